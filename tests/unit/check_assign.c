/*
 * Unit tests of lib/format/assign.c: parsing `set` assignments, applying them
 * all or nothing, and git's branch-name rules.
 */
#include "threadmind/assign.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static const char *const sample_file =
	"---\n"
	"id: auth\n"
	"title: Auth\n"
	"parentId: main\n"
	"author: a-u-thor-1234\n"
	"createdAt: 2026-04-14T09:00:00.000Z\n"
	"updatedAt: 2026-04-14T18:00:00.000Z\n"
	"branch: feature/auth\n"
	"commit: 3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f\n"
	"paths: [\"src/auth\",\"docs\"]\n"
	"reviewer: someone\n"
	"---\n"
	"\n"
	"## State\n"
	"- working\n";

static tm_thread *sample(void)
{
	tm_thread *t = NULL;

	ck_assert_msg(tm_frontmatter_parse(&t, sample_file, strlen(sample_file),
					   "auth", "auth.md") == 0,
		      "%s", tm_error_last());
	return t;
}

static char *written(const tm_thread *t)
{
	tm_buf out = TM_BUF_INIT;

	tm_frontmatter_write(&out, t);
	return tm_buf_detach(&out);
}

/* Parse `n` arguments into `a`, failing the test on any error. */
static void parse_all(tm_assign *a, const char *const *args, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ck_assert_msg(tm_assign_parse(&a[i], args[i]) == 0, "%s: %s",
			      args[i], tm_error_last());
}

/* Apply `args` to a fresh sample; returns it with *changed set. */
static tm_thread *apply_ok(bool *changed, const char *const *args, size_t n)
{
	tm_assign a[8];
	tm_thread *t = sample();

	ck_assert_uint_le(n, 8);
	parse_all(a, args, n);
	ck_assert_msg(tm_assign_apply(changed, t, a, n) == 0, "%s",
		      tm_error_last());
	return t;
}

/* Applying `args` fails with TM_EINVALID, the message holds `want`, and
 * the thread is written back exactly as before. */
static void apply_fails(const char *const *args, size_t n, const char *want)
{
	tm_assign a[8];
	tm_thread *t = sample();
	bool changed = true;
	char *before = written(t), *after;

	parse_all(a, args, n);
	ck_assert_int_eq(tm_assign_apply(&changed, t, a, n), TM_EINVALID);
	ck_assert_msg(strstr(tm_error_last(), want), "message '%s' lacks '%s'",
		      tm_error_last(), want);
	after = written(t);
	ck_assert_str_eq(after, before);
	free(before);
	free(after);
	tm_thread_free(t);
}

/* ---- parse ---- */

START_TEST(test_assign_parse_known_fields)
{
	tm_assign a;
	const char *arg = "title=a=b";

	ck_assert_int_eq(tm_assign_parse(&a, arg), 0);
	ck_assert_int_eq(a.field, TM_ASSIGN_TITLE);
	ck_assert_str_eq(a.value, "a=b");
	ck_assert_ptr_eq(a.value, arg + 6);
	ck_assert_int_eq(tm_assign_parse(&a, "paths=src,docs"), 0);
	ck_assert_int_eq(a.field, TM_ASSIGN_PATHS);
	ck_assert_str_eq(a.value, "src,docs");
	ck_assert_int_eq(tm_assign_parse(&a, "branch="), 0);
	ck_assert_int_eq(a.field, TM_ASSIGN_BRANCH);
	ck_assert_str_eq(a.value, "");
}
END_TEST

/* A field that another command changes: refused, with that command. */
static void check_fixed(const char *arg, const char *hint)
{
	tm_assign a = {TM_ASSIGN_PATHS, "sentinel"};

	ck_assert_int_eq(tm_assign_parse(&a, arg), TM_EINVALID);
	ck_assert_msg(strstr(tm_error_last(), hint), "%s: '%s' lacks '%s'", arg,
		      tm_error_last(), hint);
	ck_assert_int_eq(a.field, TM_ASSIGN_PATHS);
	ck_assert_str_eq(a.value, "sentinel");
}

START_TEST(test_assign_parse_refuses_fixed_fields)
{
	check_fixed("id=other", "never changes");
	check_fixed("parentId=main", "git threadmind move");
	check_fixed("status=done", "'abandon'");
	check_fixed("commit=HEAD", "git threadmind touch");
	check_fixed("mergedInto=x", "git threadmind merge");
	check_fixed("updatedAt=now", "every change");
}
END_TEST

START_TEST(test_assign_parse_refuses_unknown_keys)
{
	tm_assign a;

	ck_assert_int_eq(tm_assign_parse(&a, "colour=red"), TM_EINVALID);
	ck_assert_str_eq(tm_error_last(), "unknown field 'colour': title, "
					  "paths and branch can be set");
	ck_assert_int_eq(tm_assign_parse(&a, "Title=x"), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'Title'"));
	ck_assert_int_eq(tm_assign_parse(&a, "=x"), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "unknown field ''"));
	ck_assert_int_eq(tm_assign_parse(&a, "title"), TM_EINVALID);
	ck_assert_ptr_nonnull(
		strstr(tm_error_last(), "'title' is not a field assignment"));
}
END_TEST

/* ---- apply ---- */

START_TEST(test_assign_apply_title_kept_as_given)
{
	const char *args[] = {"title=First", "title= Fix: login #12 "};
	bool changed = false;
	tm_thread *t = apply_ok(&changed, args, 2);
	char *out;

	ck_assert(changed);
	ck_assert_str_eq(t->title, " Fix: login #12 ");
	out = written(t);
	ck_assert_ptr_nonnull(strstr(out, "\ntitle: \" Fix: login #12 \"\n"));
	free(out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_assign_apply_title_refuses_blank)
{
	const char *empty[] = {"title="};
	const char *blank[] = {"title= \t "};
	const char *bad[] = {"title=caf\xe9"};

	apply_fails(empty, 1, "the title of 'auth' cannot be empty");
	apply_fails(blank, 1, "cannot be empty");
	apply_fails(bad, 1, "not valid UTF-8");
}
END_TEST

START_TEST(test_assign_apply_paths_split_and_deduplicated)
{
	const char *args[] = {"paths=lib,,src/a b,lib,"};
	bool changed = false;
	tm_thread *t = apply_ok(&changed, args, 1);

	ck_assert(changed);
	ck_assert(t->has_paths);
	ck_assert_uint_eq(t->paths.n, 2);
	ck_assert_str_eq(t->paths.items[0], "lib");
	ck_assert_str_eq(t->paths.items[1], "src/a b");
	tm_thread_free(t);
}
END_TEST

START_TEST(test_assign_apply_paths_repeated_add_up)
{
	const char *args[] = {"paths=a", "title=T", "paths=b,c"};
	bool changed = false;
	tm_thread *t = apply_ok(&changed, args, 3);
	char *out = written(t);

	ck_assert_ptr_nonnull(strstr(out, "\npaths: [\"a\",\"b\",\"c\"]\n"));
	ck_assert_ptr_null(strstr(out, "src/auth"));
	free(out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_assign_apply_empty_values_remove_fields)
{
	const char *args[] = {"paths=", "branch="};
	bool changed = false;
	tm_thread *t = apply_ok(&changed, args, 2);
	char *out = written(t);

	ck_assert(changed);
	ck_assert(!t->has_paths);
	ck_assert_uint_eq(t->paths.n, 0);
	ck_assert_ptr_null(t->branch);
	ck_assert_ptr_null(strstr(out, "paths:"));
	ck_assert_ptr_null(strstr(out, "branch:"));
	free(out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_assign_apply_branch)
{
	const char *args[] = {"branch=feature/login"};
	bool changed = false;
	tm_thread *t = apply_ok(&changed, args, 1);

	ck_assert(changed);
	ck_assert_str_eq(t->branch, "feature/login");
	tm_thread_free(t);
}
END_TEST

START_TEST(test_assign_apply_all_or_nothing)
{
	const char *args[] = {"title=New", "paths=x", "branch=a..b"};
	const char *args2[] = {"paths=ok", "title="};

	apply_fails(args, 3, "'a..b' is not a valid branch name");
	apply_fails(args2, 2, "cannot be empty");
}
END_TEST

START_TEST(test_assign_apply_same_values_change_nothing)
{
	const char *same[] = {"title=Auth", "branch=feature/auth",
			      "paths=src/auth,docs"};
	const char *reordered[] = {"paths=docs,src/auth"};
	bool changed = true;
	tm_thread *t = apply_ok(&changed, same, 3);
	char *out = written(t);

	ck_assert(!changed);
	ck_assert_str_eq(out, sample_file);
	free(out);
	tm_thread_free(t);
	t = apply_ok(&changed, reordered, 1);
	ck_assert(changed);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_assign_apply_keeps_other_fields)
{
	const char *args[] = {"title=Renamed"};
	bool changed = false;
	tm_thread *t = apply_ok(&changed, args, 1);
	char *out = written(t);
	const char *want = "---\n"
			   "id: auth\n"
			   "title: Renamed\n"
			   "parentId: main\n"
			   "author: a-u-thor-1234\n"
			   "createdAt: 2026-04-14T09:00:00.000Z\n"
			   "updatedAt: 2026-04-14T18:00:00.000Z\n"
			   "branch: feature/auth\n"
			   "commit: 3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f\n"
			   "paths: [\"src/auth\",\"docs\"]\n"
			   "reviewer: someone\n"
			   "---\n"
			   "\n"
			   "## State\n"
			   "- working\n";

	ck_assert_str_eq(out, want);
	free(out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_assign_apply_no_changed_pointer)
{
	tm_assign a;
	tm_thread *t = sample();

	ck_assert_int_eq(tm_assign_parse(&a, "title=X"), 0);
	ck_assert_int_eq(tm_assign_apply(NULL, t, &a, 1), 0);
	ck_assert_str_eq(t->title, "X");
	tm_thread_free(t);
}
END_TEST

/* ---- branch names ---- */

START_TEST(test_assign_branch_valid_accepts)
{
	static const char *const ok[] = {
		"main",     "feature/auth-ui", "release-1.2",
		"fix@home", "ünïcödé",         "a.b/c.d",
		"x_y+z",    "v1.0-rc",         "a/b/c/d",
		"lock",     "a.locks",         "@x",
		"@",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		ck_assert_msg(tm_assign_branch_valid(ok[i]), "'%s' refused",
			      ok[i]);
}
END_TEST

START_TEST(test_assign_branch_valid_refuses)
{
	static const char *const bad[] = {
		"",      "-x",    "HEAD", "a..b",   "a b",      "a~1", "a^",
		"a:b",   "a?",    "a*",   "a[1]",   "a\\b",     "/a",  "a/",
		"a//b",  ".a",    "a/.b", "a.lock", "a.lock/b", "a.",  "a@{1}",
		"\x01x", "a\x7f", "a\tb", "\xff",   "a\nb",
	};
	size_t i;

	ck_assert(!tm_assign_branch_valid(NULL));
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(!tm_assign_branch_valid(bad[i]), "'%s' accepted",
			      bad[i]);
}
END_TEST

Suite *assign_suite(void)
{
	Suite *s = suite_create("assign");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_assign_parse_known_fields);
	tcase_add_test(tc, test_assign_parse_refuses_fixed_fields);
	tcase_add_test(tc, test_assign_parse_refuses_unknown_keys);
	suite_add_tcase(s, tc);

	tc = tcase_create("apply");
	tcase_add_test(tc, test_assign_apply_title_kept_as_given);
	tcase_add_test(tc, test_assign_apply_title_refuses_blank);
	tcase_add_test(tc, test_assign_apply_paths_split_and_deduplicated);
	tcase_add_test(tc, test_assign_apply_paths_repeated_add_up);
	tcase_add_test(tc, test_assign_apply_empty_values_remove_fields);
	tcase_add_test(tc, test_assign_apply_branch);
	tcase_add_test(tc, test_assign_apply_all_or_nothing);
	tcase_add_test(tc, test_assign_apply_same_values_change_nothing);
	tcase_add_test(tc, test_assign_apply_keeps_other_fields);
	tcase_add_test(tc, test_assign_apply_no_changed_pointer);
	suite_add_tcase(s, tc);

	tc = tcase_create("branch");
	tcase_add_test(tc, test_assign_branch_valid_accepts);
	tcase_add_test(tc, test_assign_branch_valid_refuses);
	suite_add_tcase(s, tc);
	return s;
}
