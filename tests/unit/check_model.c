/* Unit tests of lib/format/model.c: a thread's identity. */
#include "threadmind/model.h"
#include "test_util.h"

#include <check.h>

START_TEST(test_model_same_identity)
{
	const char *t = "2026-04-15T10:00:00.000Z";

	ck_assert(tm_thread_same_identity(t, "ana-1a2b", t, "ana-1a2b"));
	/* one instant written two ways is one createdAt */
	ck_assert(tm_thread_same_identity(
		t, "ana-1a2b", "2026-04-15T12:00:00+02:00", "ana-1a2b"));
	/* another instant, or another author: another thread */
	ck_assert(!tm_thread_same_identity(
		t, "ana-1a2b", "2026-04-15T10:00:00.001Z", "ana-1a2b"));
	ck_assert(!tm_thread_same_identity(t, "ana-1a2b", t, "bob-3c4d"));
	/* two values that are not timestamps: compared as written */
	ck_assert(tm_thread_same_identity("x", NULL, "x", NULL));
	ck_assert(!tm_thread_same_identity("x", NULL, "y", NULL));
}
END_TEST

START_TEST(test_model_same_identity_absent_values)
{
	const char *t = "2026-04-15T10:00:00.000Z";

	/* a value absent on either side does not count */
	ck_assert(tm_thread_same_identity(NULL, "ana-1a2b", t, "ana-1a2b"));
	ck_assert(tm_thread_same_identity(t, NULL, t, "ana-1a2b"));
	ck_assert(tm_thread_same_identity(NULL, NULL, t, "bob-3c4d"));
	ck_assert(!tm_thread_same_identity(NULL, "ana-1a2b", t, "bob-3c4d"));
}
END_TEST

Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("identity");

	tcase_add_test(tc, test_model_same_identity);
	tcase_add_test(tc, test_model_same_identity_absent_values);
	suite_add_tcase(s, tc);
	return s;
}
