/* Unit tests for seq.c: the longest increasing run. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "seq.h"

#define SKIP SIZE_MAX

/* The length of a longest strictly increasing run, O(n^2). */
static size_t slow_lis(const size_t *v, size_t n)
{
	size_t best[64], i, j, top = 0;

	for (i = 0; i < n; i++) {
		best[i] = 0;
		if (v[i] == SKIP)
			continue;
		best[i] = 1;
		for (j = 0; j < i; j++)
			if (v[j] != SKIP && v[j] < v[i] &&
			    best[j] + 1 > best[i])
				best[i] = best[j] + 1;
		if (best[i] > top)
			top = best[i];
	}
	return top;
}

START_TEST(test_seq_lis_known)
{
	const size_t v[] = {3, 1, SKIP, 4, 1, 5, 9, 2, 6};
	size_t out[9], len;

	len = tm_seq_lis(out, v, 9, SKIP);
	/* 1 4 5 6 of 1 4 5 9, 3 4 5 6, ...: patience sorting's */
	ck_assert_uint_eq(len, 4);
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(out[1], 3);
	ck_assert_uint_eq(out[2], 5);
	ck_assert_uint_eq(out[3], 8);
	ck_assert_uint_eq(tm_seq_lis(out, v, 0, SKIP), 0);
}
END_TEST

START_TEST(test_seq_lis_random)
{
	size_t v[64], out[64], n, len, i, round;
	unsigned seed = 7;

	for (round = 0; round < 2000; round++) {
		seed = seed * 1103515245u + 12345u;
		n = (seed >> 16) % 40;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			v[i] = (seed >> 16) % 11 == 0 ? SKIP
						      : (seed >> 16) % 20;
		}
		len = tm_seq_lis(out, v, n, SKIP);
		ck_assert_uint_eq(len, slow_lis(v, n));
		for (i = 0; i < len; i++) {
			ck_assert_uint_lt(out[i], n);
			ck_assert(v[out[i]] != SKIP);
			if (i) {
				ck_assert_uint_lt(out[i - 1], out[i]);
				ck_assert_uint_lt(v[out[i - 1]], v[out[i]]);
			}
		}
	}
}
END_TEST

Suite *seq_suite(void)
{
	Suite *s = suite_create("seq");
	TCase *tc = tcase_create("lis");

	tcase_add_test(tc, test_seq_lis_known);
	tcase_add_test(tc, test_seq_lis_random);
	suite_add_tcase(s, tc);
	return s;
}
