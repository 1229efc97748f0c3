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
 * msg) are left as inflateInit_ left them: a stream libdeflate decoded
 * has no error, and libgit2 reads msg only on one.
 *
 * zlib's own state (7 KiB, malloc'd by inflateInit_) is made only when
 * zlib gets the stream: inflateInit_ marks the stream as set up (its
 * `state` pointing at a tag of this file, its counters and msg as zlib
 * leaves them), and an inflate libdeflate does not take calls zlib's
 * inflateInit_ first.  A whole read, most of libgit2's, then costs no
 * allocation: zlib's state, the size of a large malloc request, made
 * glibc's malloc merge every small free chunk on each inflateInit_ (5% of
 * a whole-history first run, docs/PERFORMANCE.md).  A stream libdeflate
 * decoded points at another tag: inflate answers Z_STREAM_END again, as
 * zlib's does once a stream is done; inflateReset sets it up again and
 * inflateEnd forgets it.  So the state lives in each stream, streams are
 * independent, and only these four calls may be made on a stream set up
 * here (libgit2 makes no other); each thread keeps one decompressor, made
 * on its first use and kept until the process ends.
 */
#include <libdeflate.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

int __real_inflateInit_(z_streamp z, const char *version, int size);
int __real_inflate(z_streamp z, int flush);
int __real_inflateReset(z_streamp z);
int __real_inflateEnd(z_streamp z);
int __wrap_inflateInit_(z_streamp z, const char *version, int size);
int __wrap_inflate(z_streamp z, int flush);
int __wrap_inflateReset(z_streamp z);
int __wrap_inflateEnd(z_streamp z);
void tm_inflate__counts(unsigned long *taken, unsigned long *declined,
			unsigned long *made);

static _Thread_local struct libdeflate_decompressor *decoder;
static _Thread_local unsigned long taken, declined, made;

/* The two tags a stream's state may point at: each the size of the
 * pointer zlib's other calls would read first from a state (its stream,
 * never this one, so they answer Z_STREAM_ERROR). */
static const struct tag {
	const void *strm;
} tag_set_up, tag_done;
#define SET_UP ((struct internal_state *)(uintptr_t)&tag_set_up)
#define DONE   ((struct internal_state *)(uintptr_t)&tag_done)

/* For tests: on this thread, how many first calls libdeflate took, how
 * many it left to zlib, and how many zlib states were made. */
void tm_inflate__counts(unsigned long *t, unsigned long *d, unsigned long *m)
{
	*t = taken;
	*d = declined;
	*m = made;
}

/* Stream z is one of ours: set up or done, zlib's state not made. */
static bool tagged(z_streamp z)
{
	return z && (z->state == SET_UP || z->state == DONE);
}

/* Stream z as inflateInit_ or inflateReset leaves it, zlib's state not
 * made yet. */
static int set_up(z_streamp z)
{
	z->state = SET_UP;
	z->msg = Z_NULL;
	z->total_in = z->total_out = 0;
	z->adler = 1;
	return Z_OK;
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
	if (!z || !version || version[0] != ZLIB_VERSION[0] ||
	    size != (int)sizeof(z_stream))
		return __real_inflateInit_(z, version, size); /* its error */
	return set_up(z);
}

int __wrap_inflate(z_streamp z, int flush)
{
	int ret;

	if (z && z->state == DONE)
		return Z_STREAM_END;
	if (z && z->state == SET_UP) {
		if (flush == Z_FINISH && z->avail_in && z->avail_out &&
		    z->next_in && z->next_out) {
			if (whole(z)) {
				taken++;
				z->state = DONE;
				return Z_STREAM_END;
			}
			declined++;
		}
		/* zlib's from the start: nothing moved (whole moves the
		   fields only on success) */
		made++;
		if ((ret = __real_inflateInit_(z, ZLIB_VERSION,
					       (int)sizeof(z_stream))) != Z_OK)
			return ret;
	}
	return __real_inflate(z, flush);
}

int __wrap_inflateReset(z_streamp z)
{
	if (tagged(z))
		return set_up(z);
	return __real_inflateReset(z);
}

int __wrap_inflateEnd(z_streamp z)
{
	if (tagged(z)) {
		z->state = Z_NULL;
		return Z_OK;
	}
	return __real_inflateEnd(z);
}
