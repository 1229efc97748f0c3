/* Unit tests of lib/util/timestamp.c: ISO 8601 parse, format, compare. */
#include "threadmind/timestamp.h"
#include "threadmind/error.h"

#include <check.h>
#include <string.h>

static int64_t ms_of(const char *s)
{
	int64_t ms = -1;

	ck_assert_msg(tm_time_parse(&ms, s) == 0, "%s: %s", s, tm_error_last());
	return ms;
}

START_TEST(test_timestamp_parse_canonical)
{
	ck_assert_int_eq(ms_of("1970-01-01T00:00:00.000Z"), 0);
	ck_assert_int_eq(ms_of("2026-04-15T10:00:00.000Z"), 1776247200000LL);
	ck_assert_int_eq(ms_of("2026-04-15T12:30:00.123Z"), 1776256200123LL);
}
END_TEST

START_TEST(test_timestamp_parse_offsets)
{
	int64_t z = ms_of("2026-04-15T10:00:00Z");

	ck_assert_int_eq(ms_of("2026-04-15T12:00:00+02:00"), z);
	ck_assert_int_eq(ms_of("2026-04-15T12:00:00+0200"), z);
	ck_assert_int_eq(ms_of("2026-04-15T12:00:00+02"), z);
	ck_assert_int_eq(ms_of("2026-04-15T05:30:00-04:30"), z);
	ck_assert_int_eq(ms_of("2026-04-15t10:00:00z"), z);
	ck_assert_int_eq(ms_of("2026-04-15 10:00:00Z"), z);
	ck_assert_int_eq(ms_of("2026-04-15T10:00Z"), z);
}
END_TEST

START_TEST(test_timestamp_parse_fractions)
{
	int64_t z = ms_of("2026-04-15T10:00:00Z");

	ck_assert_int_eq(ms_of("2026-04-15T10:00:00.5Z"), z + 500);
	ck_assert_int_eq(ms_of("2026-04-15T10:00:00.12Z"), z + 120);
	ck_assert_int_eq(ms_of("2026-04-15T10:00:00.123456789Z"), z + 123);
	ck_assert_int_eq(ms_of("2026-04-15T10:00:00,250Z"), z + 250);
}
END_TEST

START_TEST(test_timestamp_parse_rejects)
{
	static const char *bad[] = {
		"",
		"2026-04-15",
		"2026-04-15T10:00:00",
		"2026-4-15T10:00:00Z",
		"2026-02-30T10:00:00Z",
		"2026-13-01T00:00:00Z",
		"2026-04-15T25:00:00Z",
		"2026-04-15T10:60:00Z",
		"2026-04-15T10:00:00.Z",
		"2026-04-15T10:00:00Zjunk",
		"2026-04-15T10:00:00+2",
		"yesterday",
		"2026-04-15X10:00:00Z",
	};
	size_t i;
	int64_t ms;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		ck_assert_msg(tm_time_parse(&ms, bad[i]) == TM_EINVALID,
			      "accepted '%s'", bad[i]);
		ck_assert_ptr_nonnull(strstr(tm_error_last(), "ISO 8601"));
		ck_assert(!tm_time_valid(bad[i]));
	}
	ck_assert(!tm_time_valid(NULL));
}
END_TEST

START_TEST(test_timestamp_leap_day)
{
	ck_assert(tm_time_valid("2024-02-29T00:00:00Z"));
	ck_assert(!tm_time_valid("2025-02-29T00:00:00Z"));
	ck_assert(tm_time_valid("2000-02-29T00:00:00Z"));
	ck_assert(!tm_time_valid("1900-02-29T00:00:00Z"));
}
END_TEST

START_TEST(test_timestamp_format)
{
	char out[TM_TIME_LEN + 1];

	tm_time_format(out, 0);
	ck_assert_str_eq(out, "1970-01-01T00:00:00.000Z");
	tm_time_format(out, 1776256200123LL);
	ck_assert_str_eq(out, "2026-04-15T12:30:00.123Z");
	tm_time_format(out, ms_of("2024-02-29T23:59:59.999Z"));
	ck_assert_str_eq(out, "2024-02-29T23:59:59.999Z");
	tm_time_format(out, ms_of("2026-04-15T12:00:00.5+02:00"));
	ck_assert_str_eq(out, "2026-04-15T10:00:00.500Z");
}
END_TEST

START_TEST(test_timestamp_format_roundtrip_now)
{
	char out[TM_TIME_LEN + 1];
	int64_t now = tm_time_now_ms();

	ck_assert(now > 1700000000000LL);
	tm_time_format(out, now);
	ck_assert_int_eq(ms_of(out), now);
	ck_assert_uint_eq(strlen(out), TM_TIME_LEN);
}
END_TEST

START_TEST(test_timestamp_compare_instants)
{
	/* Same instant, different strings. */
	ck_assert_int_eq(tm_time_cmp("2026-04-15T12:00:00+02:00",
				     "2026-04-15T10:00:00.000Z"),
			 0);
	/* Bytewise order would say the opposite. */
	ck_assert_int_lt(tm_time_cmp("2026-04-15T11:00:00+02:00",
				     "2026-04-15T10:00:00Z"),
			 0);
	ck_assert_int_gt(
		tm_time_cmp("2026-04-15T10:00:00.001Z", "2026-04-15T10:00:00Z"),
		0);
}
END_TEST

START_TEST(test_timestamp_compare_invalid)
{
	ck_assert_int_lt(tm_time_cmp(NULL, "2026-04-15T10:00:00Z"), 0);
	ck_assert_int_lt(tm_time_cmp("junk", "1970-01-01T00:00:00Z"), 0);
	ck_assert_int_gt(tm_time_cmp("2026-04-15T10:00:00Z", "junk"), 0);
	ck_assert_int_lt(tm_time_cmp(NULL, "junk"), 0);
	ck_assert_int_lt(tm_time_cmp("a", "b"), 0);
	ck_assert_int_eq(tm_time_cmp(NULL, NULL), 0);
}
END_TEST

Suite *timestamp_suite(void)
{
	Suite *s = suite_create("timestamp");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_timestamp_parse_canonical);
	tcase_add_test(tc, test_timestamp_parse_offsets);
	tcase_add_test(tc, test_timestamp_parse_fractions);
	tcase_add_test(tc, test_timestamp_parse_rejects);
	tcase_add_test(tc, test_timestamp_leap_day);
	suite_add_tcase(s, tc);
	tc = tcase_create("format");
	tcase_add_test(tc, test_timestamp_format);
	tcase_add_test(tc, test_timestamp_format_roundtrip_now);
	suite_add_tcase(s, tc);
	tc = tcase_create("compare");
	tcase_add_test(tc, test_timestamp_compare_instants);
	tcase_add_test(tc, test_timestamp_compare_invalid);
	suite_add_tcase(s, tc);
	return s;
}
