/*
 * Unit tests of lib/util/record.c: u64 little-endian both ways, a reader that
 * never reads past its bytes, and the frame that every damaged or foreign
 * cache file fails.
 */
#include "record.h"

#include <check.h>
#include <string.h>

#define MAGIC "TMTEST01"

START_TEST(test_record_u64_little_endian)
{
	tm_buf b = TM_BUF_INIT;
	tm_record_reader r;

	tm_record_put_u64(&b, 0x0807060504030201ull);
	tm_record_put_u64(&b, UINT64_MAX);
	ck_assert_uint_eq(b.size, 16);
	ck_assert_mem_eq(b.ptr, "\1\2\3\4\5\6\7\10", 8);
	r.p = (const unsigned char *)b.ptr;
	r.left = b.size;
	r.bad = false;
	ck_assert_uint_eq(tm_record_get_u64(&r), 0x0807060504030201ull);
	ck_assert_uint_eq(tm_record_get_u64(&r), UINT64_MAX);
	ck_assert(!r.bad);
	ck_assert_uint_eq(r.left, 0);
	/* past the end: 0, bad, and it stays bad */
	ck_assert_uint_eq(tm_record_get_u64(&r), 0);
	ck_assert(r.bad);
	r.left = 7;
	ck_assert_uint_eq(tm_record_get_u64(&r), 0);
	ck_assert(r.bad);
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_record_sum)
{
	const char a[] = "0123456789abcdefXYZ";
	char b[sizeof(a)];

	ck_assert_uint_eq(tm_record_sum(a, 19), tm_record_sum(a, 19));
	/* every byte counts, in the 8-byte words and in the tail */
	memcpy(b, a, sizeof(a));
	b[3] ^= 1;
	ck_assert_uint_ne(tm_record_sum(a, 19), tm_record_sum(b, 19));
	memcpy(b, a, sizeof(a));
	b[18] ^= 1;
	ck_assert_uint_ne(tm_record_sum(a, 19), tm_record_sum(b, 19));
	/* so does the length */
	ck_assert_uint_ne(tm_record_sum(a, 18), tm_record_sum(a, 19));
	ck_assert_uint_ne(tm_record_sum("", 0), tm_record_sum("\0", 1));
}
END_TEST

START_TEST(test_record_frame_round_trip)
{
	tm_buf f = TM_BUF_INIT;
	tm_record_reader r;

	tm_record_frame(&f, MAGIC, "payload", 7);
	ck_assert_uint_eq(f.size, TM_RECORD_FRAME_LEN + 7);
	ck_assert_mem_eq(f.ptr, MAGIC, 8);
	ck_assert(tm_record_unframe(&r, f.ptr, f.size, MAGIC));
	ck_assert_uint_eq(r.left, 7);
	ck_assert_mem_eq(r.p, "payload", 7);
	ck_assert(!r.bad);
	tm_buf_clear(&f);
	tm_record_frame(&f, MAGIC, "", 0);
	ck_assert(tm_record_unframe(&r, f.ptr, f.size, MAGIC));
	ck_assert_uint_eq(r.left, 0);
	tm_buf_release(&f);
}
END_TEST

START_TEST(test_record_frame_damaged)
{
	tm_buf f = TM_BUF_INIT;
	tm_record_reader r;
	size_t i;

	tm_record_frame(&f, MAGIC, "some payload", 12);
	ck_assert(!tm_record_unframe(&r, f.ptr, f.size, "TMTEST02"));
	/* truncated anywhere, or one byte longer */
	for (i = 0; i < f.size; i++)
		ck_assert_msg(!tm_record_unframe(&r, f.ptr, i, MAGIC), "%zu",
			      i);
	tm_buf_putc(&f, 'x');
	ck_assert(!tm_record_unframe(&r, f.ptr, f.size, MAGIC));
	f.size--;
	/* any bit flipped, in the header or the payload */
	for (i = 0; i < f.size; i++) {
		f.ptr[i] ^= 0x10;
		ck_assert_msg(!tm_record_unframe(&r, f.ptr, f.size, MAGIC),
			      "%zu", i);
		f.ptr[i] ^= 0x10;
	}
	ck_assert(tm_record_unframe(&r, f.ptr, f.size, MAGIC));
	tm_buf_release(&f);
}
END_TEST

Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_record_u64_little_endian);
	tcase_add_test(tc, test_record_sum);
	tcase_add_test(tc, test_record_frame_round_trip);
	tcase_add_test(tc, test_record_frame_damaged);
	suite_add_tcase(s, tc);
	return s;
}
