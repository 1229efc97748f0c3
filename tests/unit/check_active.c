/* Unit tests of lib/format/active.c: each rule of the active-thread resolution.
 */
#include "threadmind/active.h"
#include "threadmind/model.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

enum { MAXT = 8 };

/* The threads of one test; slots may stay NULL (unreadable files). */
static tm_thread *threads[MAXT];
static size_t nthreads;

static void setup(void)
{
	memset(threads, 0, sizeof(threads));
	nthreads = 0;
}

static void teardown(void)
{
	size_t i;

	for (i = 0; i < MAXT; i++)
		tm_thread_free(threads[i]);
}

static tm_thread *add(const char *id, const char *branch, const char *updated,
		      const char *status)
{
	tm_thread *t = tm_thread_new();

	ck_assert_uint_lt(nthreads, MAXT);
	tm_thread_set(&t->id, id);
	tm_thread_set(&t->branch, branch);
	tm_thread_set(&t->updated_at, updated);
	tm_thread_set(&t->status, status);
	threads[nthreads++] = t;
	return t;
}

/* An unreadable file: a NULL entry. */
static void add_hole(void)
{
	ck_assert_uint_lt(nthreads, MAXT);
	threads[nthreads++] = NULL;
}

static void expect(const char *branch, const char *branch_thread,
		   const char *active_id, const char *want_id,
		   const char *want_reason)
{
	const char *reason = "unset";
	char *id = tm_active_resolve(branch, branch_thread, active_id,
				     (const tm_thread *const *)threads,
				     nthreads, &reason);

	ck_assert_ptr_nonnull(id);
	ck_assert_msg(!strcmp(id, want_id) && !strcmp(reason, want_reason),
		      "got %s (%s), want %s (%s)", id, reason, want_id,
		      want_reason);
	free(id);
}

static void add_project(void)
{
	add("main", NULL, "2026-04-01T08:00:00.000Z", NULL);
	add("auth", "main", "2026-04-14T18:00:00.000Z", NULL);
	add("auth-ui", "feature/auth-ui", "2026-04-15T12:30:00.000Z", NULL);
	add("old", "feature/auth-ui", "2026-04-10T00:00:00.000Z", NULL);
}

START_TEST(test_active_branch_threads_decides)
{
	add_project();
	expect("feature/auth-ui", "old", "auth", "old", "branchThreads");
	/* It wins even when finished: the user chose it for this branch. */
	tm_thread_set(&threads[3]->status, "done");
	expect("feature/auth-ui", "old", "auth", "old", "branchThreads");
}
END_TEST

START_TEST(test_active_branch_threads_missing)
{
	add_project();
	expect("feature/auth-ui", "deleted", "auth", "auth-ui", "branch");
	expect("feature/auth-ui", NULL, "auth", "auth-ui", "branch");
	/* The match is exact: a prefix names no thread. */
	expect("feature/auth-ui", "auth-u", "auth", "auth-ui", "branch");
}
END_TEST

START_TEST(test_active_branch_threads_without_branch)
{
	add_project();
	expect(NULL, "old", "auth", "auth", "activeThreadId");
}
END_TEST

START_TEST(test_active_branch_latest)
{
	add_project();
	expect("main", NULL, "auth-ui", "auth", "branch");
	expect("feature/auth-ui", NULL, "main", "auth-ui", "branch");
}
END_TEST

START_TEST(test_active_branch_instants)
{
	/* Bytewise "b" is later; as instants "a" (10:30Z) is. */
	add("a", "dev", "2026-04-15T12:30:00+02:00", NULL);
	add("b", "dev", "2026-04-15T10:00:00.000Z", NULL);
	add("c", "dev", "2026-04-15T05:00:00-05:00", NULL);
	expect("dev", NULL, NULL, "a", "branch");
	/* Missing or unparseable updatedAt sorts before any valid one. */
	add("d", "dev", "not a date", NULL);
	add("e", "dev", NULL, NULL);
	expect("dev", NULL, NULL, "a", "branch");
}
END_TEST

START_TEST(test_active_branch_tie_by_id)
{
	/* The same instant written three ways: the greatest id wins. */
	add("beta", "dev", "2026-04-15T10:00:00Z", NULL);
	add("gamma", "dev", "2026-04-15T12:00:00+02:00", NULL);
	add("alpha", "dev", "2026-04-15T10:00:00.000Z", NULL);
	expect("dev", NULL, NULL, "gamma", "branch");
}
END_TEST

START_TEST(test_active_branch_ignores_finished)
{
	add("new-done", "dev", "2026-04-20T00:00:00Z", "done");
	add("new-gone", "dev", "2026-04-19T00:00:00Z", "abandoned");
	add("new-odd", "dev", "2026-04-18T00:00:00Z", "paused");
	add("older", "dev", "2026-04-01T00:00:00Z", NULL);
	add("main", NULL, "2026-03-01T00:00:00Z", NULL);
	expect("dev", NULL, "main", "older", "branch");
	/* Every thread of the branch finished: the next rule decides. */
	tm_thread_set(&threads[3]->status, "done");
	expect("dev", NULL, "new-odd", "new-odd", "activeThreadId");
}
END_TEST

START_TEST(test_active_branch_exact_name)
{
	add("x", "feature/x", "2026-04-01T00:00:00Z", NULL);
	add("xy", "feature/xy", "2026-04-02T00:00:00Z", NULL);
	add("none", NULL, "2026-04-03T00:00:00Z", NULL);
	expect("feature/x", NULL, NULL, "x", "branch");
	expect("feature", NULL, NULL, "main", "default");
	expect("feature/x/y", NULL, "none", "none", "activeThreadId");
}
END_TEST

START_TEST(test_active_active_id)
{
	add_project();
	expect("no-such-branch", NULL, "auth", "auth", "activeThreadId");
	expect(NULL, NULL, "auth-ui", "auth-ui", "activeThreadId");
	/* activeThreadId must name a thread of the project. */
	expect("no-such-branch", NULL, "other-project-thread", "main",
	       "default");
	expect(NULL, NULL, "other-project-thread", "main", "default");
}
END_TEST

START_TEST(test_active_default)
{
	expect(NULL, NULL, NULL, "main", "default");
	expect("dev", "x", "y", "main", "default");
	add_project();
	expect("no-such-branch", "gone", NULL, "main", "default");
	expect(NULL, NULL, NULL, "main", "default");
}
END_TEST

START_TEST(test_active_default_without_main)
{
	/* "main" even when the project has no such thread. */
	add("lonely", "dev", "2026-04-01T00:00:00Z", "done");
	expect("dev", NULL, NULL, "main", "default");
}
END_TEST

START_TEST(test_active_null_entries)
{
	tm_thread *noid;

	add_hole();
	add("a", "dev", "2026-04-01T00:00:00Z", NULL);
	add_hole();
	noid = add("placeholder", "dev", "2026-04-09T00:00:00Z", NULL);
	tm_thread_set(&noid->id, NULL);
	add("b", "dev", "2026-04-02T00:00:00Z", NULL);
	add_hole();
	expect("dev", NULL, NULL, "b", "branch");
	expect("dev", "a", NULL, "a", "branchThreads");
	expect(NULL, NULL, "a", "a", "activeThreadId");
	expect("other", NULL, "zzz", "main", "default");
}
END_TEST

START_TEST(test_active_reason_optional)
{
	char *id;

	add_project();
	id = tm_active_resolve("main", NULL, NULL,
			       (const tm_thread *const *)threads, nthreads,
			       NULL);
	ck_assert_str_eq(id, "auth");
	free(id);
	id = tm_active_resolve(NULL, NULL, NULL, NULL, 0, NULL);
	ck_assert_str_eq(id, "main");
	free(id);
}
END_TEST

START_TEST(test_active_result_is_a_copy)
{
	char branch_thread[] = "old";
	const char *reason;
	char *id;

	add_project();
	id = tm_active_resolve("feature/auth-ui", branch_thread, NULL,
			       (const tm_thread *const *)threads, nthreads,
			       &reason);
	ck_assert_ptr_ne(id, branch_thread);
	branch_thread[0] = 'X';
	ck_assert_str_eq(id, "old");
	free(id);
	id = tm_active_resolve("main", NULL, NULL,
			       (const tm_thread *const *)threads, nthreads,
			       &reason);
	ck_assert_ptr_ne(id, threads[1]->id);
	ck_assert_str_eq(id, "auth");
	free(id);
}
END_TEST

Suite *active_suite(void)
{
	Suite *s = suite_create("active");
	TCase *tc = tcase_create("branchThreads");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_active_branch_threads_decides);
	tcase_add_test(tc, test_active_branch_threads_missing);
	tcase_add_test(tc, test_active_branch_threads_without_branch);
	suite_add_tcase(s, tc);
	tc = tcase_create("branch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_active_branch_latest);
	tcase_add_test(tc, test_active_branch_instants);
	tcase_add_test(tc, test_active_branch_tie_by_id);
	tcase_add_test(tc, test_active_branch_ignores_finished);
	tcase_add_test(tc, test_active_branch_exact_name);
	suite_add_tcase(s, tc);
	tc = tcase_create("fallback");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_active_active_id);
	tcase_add_test(tc, test_active_default);
	tcase_add_test(tc, test_active_default_without_main);
	tcase_add_test(tc, test_active_null_entries);
	tcase_add_test(tc, test_active_reason_optional);
	tcase_add_test(tc, test_active_result_is_a_copy);
	suite_add_tcase(s, tc);
	return s;
}
