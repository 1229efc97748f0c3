/*
 * libgit2's inflates through libdeflate.  Linked into the executables
 * built on a static libgit2 (STATIC_GIT=1: the linker's --wrap sends
 * libgit2's calls of zlib's inflateInit_, inflate, inflateReset and
 * inflateEnd here) and into the unit-test runner (its own calls, checked
 * against zlib's); not into libthreadmind.a.
 *
 * Why: a first run over a history inflates every commit and tree it
 * describes, and zlib's inflate was the largest single cost: 27% of the
 * instructions of make bench's narrow first run, 43% of the whole-history
 * one.  libdeflate decodes the same streams in about 40% fewer
 * instructions (docs/PERFORMANCE.md, issue 20).
 *
 * What libdeflate takes: a whole stream in one call, the way libgit2 reads
 * a packed object: the first inflate of a stream inflateInit_ has just set
 * up (zlib's format, whose Adler-32 libdeflate checks as zlib does), with
 * Z_FINISH and room for input and output.  It decodes into the caller's
 * buffer; the stream's pointers and counters (next_in, avail_in, total_in,
 * next_out, avail_out, total_out) move as zlib's inflate would move them,
 * and the call returns Z_STREAM_END; a later inflate of that stream
 * returns Z_STREAM_END again, as zlib's does once a stream is done, until
 * inflateReset or inflateEnd.  Anything else goes to zlib, from the start
 * of the stream and untouched: an output buffer too small for the whole
 * object (a loose object's header read first), input that ends before the
 * stream does (an object across two pack windows), data libdeflate finds
 * bad (zlib then gives its own answer and message), and every call after
 * the first.  The other fields zlib sets on the way (adler, data_type,
 * msg) are left as inflateInit_ left them; libgit2 reads none of them.
 *
 * The state is per thread: the stream just set up, the stream done by
 * libdeflate, and the thread's decompressor (made on its first use, kept
 * until the process ends).  One of each: a thread that sets up a second
 * stream before inflating the first gets zlib for the first, which is
 * slower, never different; a stream inflated again after Z_STREAM_END
 * once the thread has decoded another would get zlib's answer to its
 * remaining bytes (libgit2 never inflates a stream past its end).
 */
#include <libdeflate.h>
#include <stdbool.h>
#include <stddef.h>
#include <zlib.h>

int __real_inflateInit_(z_streamp z, const char *version, int size);
int __real_inflate(z_streamp z, int flush);
int __real_inflateReset(z_streamp z);
int __real_inflateEnd(z_streamp z);
int __wrap_inflateInit_(z_streamp z, const char *version, int size);
int __wrap_inflate(z_streamp z, int flush);
int __wrap_inflateReset(z_streamp z);
int __wrap_inflateEnd(z_streamp z);
void tm_inflate__counts(unsigned long *taken, unsigned long *declined);

static _Thread_local z_streamp fresh; /* set up, not inflated yet */
static _Thread_local z_streamp done;  /* decoded whole by libdeflate */
static _Thread_local struct libdeflate_decompressor *decoder;
static _Thread_local unsigned long taken, declined;

/* For tests: how many first calls libdeflate took and how many it left
 * to zlib, on this thread. */
void tm_inflate__counts(unsigned long *t, unsigned long *d)
{
	*t = taken;
	*d = declined;
}

/* Forget what is known of stream z (set up again, reset or ended). */
static void forget(z_streamp z)
{
	if (fresh == z)
		fresh = NULL;
	if (done == z)
		done = NULL;
}

/* Stream z decoded whole into its output: true, its fields moved. */
static bool whole(z_streamp z)
{
	size_t in_used, out_len;

	if (!decoder && !(decoder = libdeflate_alloc_decompressor()))
		return false;
	if (libdeflate_zlib_decompress_ex(decoder, z->next_in, z->avail_in,
					  z->next_out, z->avail_out, &in_used,
					  &out_len) != LIBDEFLATE_SUCCESS)
		return false;
	z->next_in += in_used;
	z->avail_in -= (uInt)in_used;
	z->total_in += in_used;
	z->next_out += out_len;
	z->avail_out -= (uInt)out_len;
	z->total_out += out_len;
	return true;
}

int __wrap_inflateInit_(z_streamp z, const char *version, int size)
{
	int ret = __real_inflateInit_(z, version, size);

	forget(z);
	if (ret == Z_OK)
		fresh = z;
	return ret;
}

int __wrap_inflate(z_streamp z, int flush)
{
	if (z && z == done)
		return Z_STREAM_END;
	if (z && z == fresh) {
		fresh = NULL;
		if (flush == Z_FINISH && z->avail_in && z->avail_out &&
		    z->next_in && z->next_out) {
			if (whole(z)) {
				taken++;
				done = z;
				return Z_STREAM_END;
			}
			declined++;
		}
	}
	return __real_inflate(z, flush);
}

int __wrap_inflateReset(z_streamp z)
{
	forget(z);
	return __real_inflateReset(z);
}

int __wrap_inflateEnd(z_streamp z)
{
	forget(z);
	return __real_inflateEnd(z);
}
