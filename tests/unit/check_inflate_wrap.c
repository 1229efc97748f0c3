/*
 * Unit tests of lib/git/inflate_wrap.c: zlib's inflate API through the
 * wrap (this file is linked with the executables' --wrap flags, so its
 * calls of inflateInit, inflate, inflateReset and inflateEnd go there)
 * against zlib's own (__real_), call by call, over seeded streams and the
 * ways libgit2 reads them: whole, a small output first, input cut where a
 * pack window ends, a stream reset and read again, a corrupt byte.
 */
#include "test_util.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int __real_inflateInit_(z_streamp z, const char *version, int size);
int __real_inflate(z_streamp z, int flush);
int __real_inflateReset(z_streamp z);
int __real_inflateEnd(z_streamp z);
void tm_inflate__counts(unsigned long *taken, unsigned long *declined,
			unsigned long *made);

/* The four calls, through the wrap or straight to zlib. */
struct api {
	int (*init)(z_streamp, const char *, int);
	int (*inflate)(z_streamp, int);
	int (*reset)(z_streamp);
	int (*end)(z_streamp);
};

static const struct api wrapped = {inflateInit_, inflate, inflateReset,
				   inflateEnd};
static const struct api real = {__real_inflateInit_, __real_inflate,
				__real_inflateReset, __real_inflateEnd};

/* What one call left. */
struct call {
	int ret;
	uInt avail_in, avail_out;
	uLong total_in, total_out;
	bool msg, ended; /* an error message; no state (after end) */
	uLong adler;     /* after a set-up or a reset, else 0 */
};

/* A scenario's calls and its output. */
struct run {
	struct call c[8];
	int n;
	unsigned char *out;
	size_t room;
};

enum kind {
	WHOLE,
	SMALL_FIRST,
	CUT_INPUT,
	RESET_AGAIN,
	CORRUPT,
	RESET_ZLIB,
	KINDS
};

static void note_call(struct run *r, const z_stream *z, int ret, bool set_up)
{
	struct call *c = &r->c[r->n++];

	ck_assert_int_lt(r->n, 8);
	c->ret = ret;
	c->avail_in = z->avail_in;
	c->avail_out = z->avail_out;
	c->total_in = z->total_in;
	c->total_out = z->total_out;
	c->msg = z->msg != NULL;
	c->ended = z->state == NULL;
	c->adler = set_up ? z->adler : 0;
}

#define note(r, z, ret)  note_call(r, z, ret, false)
#define noted(r, z, ret) note_call(r, z, ret, true) /* a set-up or reset */

/*
 * Scenario `kind` over the stream in[0, len) (its garbage after it
 * included) of `plain` bytes, with `api`; `cut` a position inside the
 * stream.
 */
static void scenario(const struct api *api, enum kind kind,
		     const unsigned char *in, size_t len, size_t plain,
		     size_t cut, struct run *r)
{
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	z.msg = (char *)"left by a last use"; /* set-up clears it */
	memset(r->out, 0, r->room);
	r->n = 0;
	ret = api->init(&z, ZLIB_VERSION, (int)sizeof(z_stream));
	noted(r, &z, ret);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = r->out;
	z.avail_out = (uInt)plain + 1;
	switch (kind) {
	case WHOLE:
	case CORRUPT:
		note(r, &z, api->inflate(&z, Z_FINISH));
		/* past the end: zlib answers Z_STREAM_END again */
		note(r, &z, api->inflate(&z, Z_FINISH));
		break;
	case SMALL_FIRST: /* a loose object's header, then the rest */
		z.avail_out = (uInt)(plain < 32 ? plain / 2 : 32);
		note(r, &z, api->inflate(&z, Z_FINISH));
		z.avail_out = (uInt)(plain + 1 - z.total_out);
		note(r, &z, api->inflate(&z, Z_FINISH));
		break;
	case CUT_INPUT: /* the pack window ends at `cut` */
		z.avail_in = (uInt)cut;
		note(r, &z, api->inflate(&z, Z_FINISH));
		z.avail_in += (uInt)(len - cut);
		note(r, &z, api->inflate(&z, Z_FINISH));
		break;
	case RESET_AGAIN:
	case RESET_ZLIB: /* zlib's from the start (a small output), reset */
		if (kind == RESET_ZLIB)
			z.avail_out = (uInt)(plain < 32 ? plain / 2 : 32);
		note(r, &z, api->inflate(&z, Z_FINISH));
		noted(r, &z, api->reset(&z));
		z.next_in = (Bytef *)in;
		z.avail_in = (uInt)len;
		z.next_out = r->out;
		z.avail_out = (uInt)plain + 1;
		note(r, &z, api->inflate(&z, Z_FINISH));
		break;
	case KINDS:
		break;
	}
	note(r, &z, api->end(&z));
}

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Plain bytes that compress in every way: text, runs, noise. */
static void plain_bytes(unsigned char *p, size_t n)
{
	static const char words[] = "tree parent author threads paths ";
	size_t i = 0, k;

	while (i < n) {
		switch (next() % 3) {
		case 0:
			for (k = next() % 200; k-- && i < n; i++)
				p[i] = (unsigned char)words[i % 33];
			break;
		case 1:
			for (k = next() % 50, p[i] = (unsigned char)next();
			     k-- && i + 1 < n; i++)
				p[i + 1] = p[i];
			i++;
			break;
		default:
			for (k = next() % 100; k-- && i < n; i++)
				p[i] = (unsigned char)next();
		}
	}
}

START_TEST(test_inflate_wrap_like_zlib)
{
	static const size_t sizes[] = {0, 1, 2, 40, 211, 4000, 70000, 300000};
	unsigned rounds = tmt_rounds(400), round;
	unsigned long taken0, declined0, made0, taken1, declined1, made1;
	unsigned long t, d, m, t2, d2, m2;
	size_t max = 300000;
	unsigned char *plain = malloc(max), *comp = malloc(max * 2 + 100);
	struct run a, b;

	a.room = b.room = max + 64;
	a.out = malloc(a.room);
	b.out = malloc(b.room);
	tm_inflate__counts(&taken0, &declined0, &made0);
	for (round = 0; round < rounds; round++) {
		size_t n = sizes[round % 8], len, garbage, cut;
		uLongf clen = (uLongf)(max * 2 + 100);
		enum kind kind = (enum kind)(round / 8 % KINDS);
		int level = (int)(round / 40 % 10), i;

		rng = 0x9e3779b97f4a7c15ULL ^ round;
		next();
		if (n > 1000)
			n = n / 2 + next() % (n / 2);
		plain_bytes(plain, n);
		ck_assert_int_eq(compress2(comp, &clen, plain, n, level), Z_OK);
		garbage = next() % 33;
		for (len = clen; len < clen + garbage; len++)
			comp[len] = (unsigned char)next();
		cut = 1 + next() % (clen - 1);
		if (kind == CORRUPT)
			comp[cut] ^= (unsigned char)(1 + next() % 255);
		tm_inflate__counts(&t, &d, &m);
		scenario(&wrapped, kind, comp, len, n, cut, &a);
		tm_inflate__counts(&t2, &d2, &m2);
		/* each stream is libdeflate's or gets a zlib state, never
		   both (a stream zlib has, reset, stays zlib's); a whole read
		   makes none */
		ck_assert_uint_eq((t2 - t) + (m2 - m),
				  kind == RESET_AGAIN ? 2 : 1);
		if (kind == WHOLE || kind == RESET_AGAIN)
			ck_assert_uint_eq(m2 - m, 0);
		scenario(&real, kind, comp, len, n, cut, &b);
		ck_assert_int_eq(a.n, b.n);
		for (i = 0; i < a.n; i++) {
			ck_assert_msg(
				a.c[i].ret == b.c[i].ret &&
					a.c[i].avail_in == b.c[i].avail_in &&
					a.c[i].avail_out == b.c[i].avail_out &&
					a.c[i].total_in == b.c[i].total_in &&
					a.c[i].total_out == b.c[i].total_out &&
					a.c[i].msg == b.c[i].msg &&
					a.c[i].ended == b.c[i].ended &&
					a.c[i].adler == b.c[i].adler,
				"round %u (kind %d, %zu bytes, level %d) "
				"call %d: wrap %d in %u out %u, zlib %d "
				"in %u out %u",
				round, (int)kind, n, level, i, a.c[i].ret,
				a.c[i].avail_in, a.c[i].avail_out, b.c[i].ret,
				b.c[i].avail_in, b.c[i].avail_out);
		}
		/* what zlib wrote (past it, a failed decode may leave
		   other bytes: the caller frees the buffer then) */
		ck_assert_int_eq(memcmp(a.out, b.out, b.c[b.n - 2].total_out),
				 0);
		if (kind == WHOLE)
			ck_assert_int_eq(memcmp(a.out, plain, n), 0);
	}
	/* libdeflate took the whole streams, zlib the others */
	tm_inflate__counts(&taken1, &declined1, &made1);
	ck_assert_uint_ge(taken1 - taken0, rounds / KINDS / 2);
	ck_assert_uint_gt(declined1 - declined0, 0);
	ck_assert_uint_ge(made1 - made0, declined1 - declined0);
	free(a.out);
	free(b.out);
	free(plain);
	free(comp);
}
END_TEST

/* Two streams set up before either is inflated: each is libdeflate's,
 * neither makes a zlib state, both give the bytes. */
START_TEST(test_inflate_wrap_two_streams)
{
	static const char text[] = "a thread file, twice over: a thread file";
	unsigned char comp[200], out1[64], out2[64];
	uLongf clen = sizeof(comp);
	unsigned long t0, d0, m0, t1, d1, m1;
	z_stream x, y;

	ck_assert_int_eq(
		compress2(comp, &clen, (const Bytef *)text, sizeof(text), 9),
		Z_OK);
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	ck_assert_int_eq(inflateInit(&x), Z_OK);
	ck_assert_int_eq(inflateInit(&y), Z_OK);
	tm_inflate__counts(&t0, &d0, &m0);
	x.next_in = y.next_in = comp;
	x.avail_in = y.avail_in = (uInt)clen;
	x.next_out = out1;
	y.next_out = out2;
	x.avail_out = y.avail_out = sizeof(out1);
	ck_assert_int_eq(inflate(&x, Z_FINISH), Z_STREAM_END);
	ck_assert_int_eq(inflate(&y, Z_FINISH), Z_STREAM_END);
	tm_inflate__counts(&t1, &d1, &m1);
	ck_assert_uint_eq(t1 - t0, 2);
	ck_assert_uint_eq(m1 - m0, 0);
	ck_assert_str_eq((const char *)out1, text);
	ck_assert_str_eq((const char *)out2, text);
	ck_assert_uint_eq(x.total_out, sizeof(text));
	ck_assert_uint_eq(y.total_out, sizeof(text));
	ck_assert_int_eq(inflateEnd(&x), Z_OK);
	ck_assert_int_eq(inflateEnd(&y), Z_OK);
}
END_TEST

/* A set-up zlib would refuse (another major version, another z_stream
 * size) gets zlib's own answer. */
START_TEST(test_inflate_wrap_refuses_as_zlib)
{
	static const char *const versions[] = {"0", "2.0", ZLIB_VERSION};
	static const int less[] = {0, 0, 1};
	z_stream a, b;
	unsigned i;

	for (i = 0; i < 3; i++) {
		int size = (int)sizeof(z_stream) - less[i];

		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		ck_assert_int_eq(inflateInit_(&a, versions[i], size),
				 __real_inflateInit_(&b, versions[i], size));
		ck_assert_int_eq(inflateInit_(&a, versions[i], size),
				 Z_VERSION_ERROR);
	}
	ck_assert_int_eq(inflateInit_(NULL, ZLIB_VERSION, (int)sizeof(a)),
			 Z_STREAM_ERROR);
}
END_TEST

Suite *inflate_wrap_suite(void)
{
	Suite *s = suite_create("inflate_wrap");
	TCase *tc = tcase_create("zlib");

	tcase_add_test(tc, test_inflate_wrap_like_zlib);
	tcase_add_test(tc, test_inflate_wrap_two_streams);
	tcase_add_test(tc, test_inflate_wrap_refuses_as_zlib);
	suite_add_tcase(s, tc);
	return s;
}
