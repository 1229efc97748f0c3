/* lib/git/paths.c: `paths` entries typed from a folder, stored from the root.
 */
#include "threadmind/paths.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* tm_paths_normalize from `prefix` in /w/repo must give `want`. */
static void norm_ok(const char *prefix, const char *typed, const char *want)
{
	char *out = NULL;

	ck_assert_msg(tm_paths_normalize(&out, "/w/repo", prefix, typed) == 0,
		      "'%s' in '%s': %s", typed, prefix, tm_error_last());
	ck_assert_str_eq(out, want);
	free(out);
}

static void norm_outside(const char *prefix, const char *typed)
{
	char *out = NULL;

	ck_assert_int_eq(tm_paths_normalize(&out, "/w/repo", prefix, typed),
			 TM_EINVALID);
	ck_assert_ptr_null(out);
	ck_assert_ptr_nonnull(
		strstr(tm_error_last(), "outside the repository"));
	ck_assert_ptr_nonnull(strstr(tm_error_last(), typed));
	tm_error_clear();
}

START_TEST(test_paths_prefix)
{
	static const struct {
		const char *root, *cwd, *want;
	} cases[] = {
		{"/w/repo", "/w/repo", ""},
		{"/w/repo/", "/w/repo", ""},
		{"/w/repo", "/w/repo/", ""},
		{"/w/repo", "/w/repo/pkg/test", "pkg/test/"},
		{"/w/repo/", "/w/repo/pkg/", "pkg/"},
		{"/", "/etc", "etc/"},
		{"/w/repo", "/w/repository", NULL},
		{"/w/repo", "/w", NULL},
		{"/w/repo", "/elsewhere", NULL},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = tm_paths_prefix(cases[i].root, cases[i].cwd);

		if (!cases[i].want)
			ck_assert_msg(!got, "%s in %s: got '%s'", cases[i].cwd,
				      cases[i].root, got);
		else
			ck_assert_msg(got && !strcmp(got, cases[i].want),
				      "%s in %s: got '%s'", cases[i].cwd,
				      cases[i].root, got ? got : "(null)");
		free(got);
	}
}
END_TEST

START_TEST(test_paths_relative_to_the_folder)
{
	norm_ok("", "src/auth", "src/auth");
	norm_ok("pkg/test/", "test_api.py", "pkg/test/test_api.py");
	norm_ok("pkg/test/", "../lib", "pkg/lib");
	norm_ok("pkg/test/", "./a//b/./c", "pkg/test/a/b/c");
	norm_ok("pkg/test/", "../..", ".");
	norm_ok("pkg/test/", ".", "pkg/test");
	norm_ok("", ".", ".");
	norm_ok("", "./", ".");
	norm_ok("pkg/", "docs/", "pkg/docs/");
	norm_ok("pkg/", "docs//", "pkg/docs/");
	norm_ok(NULL, "a", "a");
}
END_TEST

START_TEST(test_paths_absolute)
{
	norm_ok("pkg/", "/w/repo/src/x.c", "src/x.c");
	norm_ok("pkg/", "/w/repo", ".");
	norm_ok("", "/w/./repo//lib/", "lib/");
	norm_ok("", "/w/other/../repo/lib", "lib");
	norm_outside("", "/etc/passwd");
	norm_outside("", "/w/repository/a");
	norm_outside("", "/w");
	norm_outside("", "/w/repo/../x");
}
END_TEST

START_TEST(test_paths_outside)
{
	norm_outside("", "..");
	norm_outside("", "../outside");
	norm_outside("pkg/", "../../x");
	norm_outside("pkg/", "a/../../../x");
}
END_TEST

START_TEST(test_paths_globs_and_magic_kept)
{
	norm_ok("pkg/", "*.py", "pkg/*.py");
	norm_ok("pkg/", "t/[ab]?.c", "pkg/t/[ab]?.c");
	norm_ok("pkg/", "./x\\*y", "pkg/x\\*y");
	norm_ok("pkg/", ":(exclude)../x", ":(exclude)../x");
	norm_ok("pkg/", ":/src", ":/src");
	ck_assert(tm_paths_is_magic(":!x"));
	ck_assert(!tm_paths_is_magic("a:b"));
	ck_assert(tm_paths_is_glob("a/*.c"));
	ck_assert(tm_paths_is_glob("a\\b"));
	ck_assert(!tm_paths_is_glob("a/b.c"));
}
END_TEST

START_TEST(test_paths_empty_refused)
{
	char *out = NULL;

	ck_assert_int_eq(tm_paths_normalize(&out, "/w/repo", "", ""),
			 TM_EINVALID);
	ck_assert_ptr_null(out);
	tm_error_clear();
}
END_TEST

/* ---- against a repository ---- */

static char *tmp, *repo;

static void setup(void)
{
	tmp = tmt_mkdtemp();
	repo = tmt_git_repo(tmp, "repo");
	tmt_sh("cd '%s' && mkdir -p src/auth docs && echo a >src/auth/a.c && "
	       "echo r >README && git add . && git commit -q -m one && "
	       "mkdir new && echo n >new/staged.c && git add new && "
	       "echo u >untracked.txt && mkdir empty",
	       repo);
}

static void teardown(void)
{
	tmt_rmtree(tmp);
	free(tmp);
	free(repo);
}

START_TEST(test_paths_unmatched)
{
	static const char *const entries[] = {
		"src/auth",     "src/",           "*.c",
		"README",       "nope",           "src/auth/zz",
		"new/staged.c", "untracked.txt",  "empty/",
		"new/*.c",      ":(exclude)gone", "docs",
		"README/",      "src/auth/",
	};
	size_t n = sizeof(entries) / sizeof(*entries);
	tm_strv head = TM_STRV_INIT, tree = TM_STRV_INIT;
	tm_git *g = NULL;

	ck_assert_int_eq(tm_git_open(&g, repo, false), 0);
	ck_assert_int_eq(tm_paths_unmatched(&head, g, entries, n, false), 0);
	ck_assert_uint_eq(head.n, 8);
	ck_assert_str_eq(head.items[0], "nope");
	ck_assert_str_eq(head.items[1], "src/auth/zz");
	ck_assert_str_eq(head.items[2], "new/staged.c");
	ck_assert_str_eq(head.items[3], "untracked.txt");
	ck_assert_str_eq(head.items[4], "empty/");
	ck_assert_str_eq(head.items[5], "new/*.c");
	ck_assert_str_eq(head.items[6], "docs");
	ck_assert_str_eq(head.items[7], "README/");
	ck_assert_int_eq(tm_paths_unmatched(&tree, g, entries, n, true), 0);
	/* The index and the work tree count too (docs and empty/ are
	 * folders that exist; README/ is a file, not a folder). */
	ck_assert_uint_eq(tree.n, 3);
	ck_assert_str_eq(tree.items[0], "nope");
	ck_assert_str_eq(tree.items[1], "src/auth/zz");
	ck_assert_str_eq(tree.items[2], "README/");
	tm_strv_clear(&head);
	tm_strv_clear(&tree);
	tm_git_free(g);
}
END_TEST

/* The renames of vanished entries: a folder and a file renamed, a file
 * removed, an entry still there; only within `depth` commits; the `set
 * paths=` that follows them. */
START_TEST(test_paths_find_renames)
{
	tm_strv entries = TM_STRV_INIT, follow = TM_STRV_INIT;
	tm_paths_rename *r = NULL;
	size_t n = 0;
	char *moved;
	tm_git *g = NULL;

	tmt_sh("cd '%s' && git commit -q -m two && git mv src/auth src/login "
	       "&& git commit -q -m 'move auth' && git mv README README.md && "
	       "git rm -q new/staged.c && git commit -q -m 'readme, staged'",
	       repo);
	moved = tmt_sh_out("git -C '%s' rev-parse HEAD~1", repo);
	tm_strv_push(&entries, "src/auth/");
	tm_strv_push(&entries, "README");
	tm_strv_push(&entries, "new/staged.c");
	tm_strv_push(&entries, "docs");
	tm_strv_push(&entries, "*.c");
	ck_assert_int_eq(tm_git_open(&g, repo, false), 0);
	/* false: the search was complete (not stopped at its bound) */
	ck_assert(!tm_paths_find_renames(&r, &n, g, &entries, 1));
	ck_assert_uint_eq(n, 1); /* HEAD alone: the readme only */
	ck_assert_str_eq(r[0].entry, "README");
	ck_assert_str_eq(r[0].to, "README.md");
	tm_paths_renames_free(r, n);
	r = NULL;
	n = 0;
	ck_assert(!tm_paths_find_renames(&r, &n, g, &entries, 100));
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(r[0].entry, "src/auth/");
	ck_assert_str_eq(r[0].to, "src/login/");
	ck_assert_str_eq(r[0].commit, moved);
	ck_assert_str_eq(r[1].entry, "README");
	tm_paths_follow_renames(&follow, &entries, r, n);
	ck_assert_uint_eq(follow.n, 5);
	ck_assert_str_eq(follow.items[0], "src/login/");
	ck_assert_str_eq(follow.items[1], "README.md");
	ck_assert_str_eq(follow.items[2], "new/staged.c");
	ck_assert_str_eq(follow.items[3], "docs");
	tm_paths_renames_free(r, n);
	tm_strv_clear(&follow);
	tm_strv_clear(&entries);
	free(moved);
	tm_git_free(g);
}
END_TEST

START_TEST(test_paths_unmatched_unborn)
{
	static const char *const entries[] = {"a", "b"};
	tm_strv out = TM_STRV_INIT;
	char *fresh = tmt_git_repo(tmp, "fresh");
	tm_git *g = NULL;

	tmt_sh("cd '%s' && echo a >a && git add a", fresh);
	ck_assert_int_eq(tm_git_open(&g, fresh, false), 0);
	ck_assert_int_eq(tm_paths_unmatched(&out, g, entries, 2, false), 0);
	ck_assert_uint_eq(out.n, 2);
	tm_strv_clear(&out);
	ck_assert_int_eq(tm_paths_unmatched(&out, g, entries, 2, true), 0);
	ck_assert_uint_eq(out.n, 1);
	ck_assert_str_eq(out.items[0], "b");
	tm_strv_clear(&out);
	tm_git_free(g);
	free(fresh);
}
END_TEST

Suite *paths_suite(void)
{
	Suite *s = suite_create("paths");
	TCase *tc = tcase_create("normalize");

	tcase_add_test(tc, test_paths_prefix);
	tcase_add_test(tc, test_paths_relative_to_the_folder);
	tcase_add_test(tc, test_paths_absolute);
	tcase_add_test(tc, test_paths_outside);
	tcase_add_test(tc, test_paths_globs_and_magic_kept);
	tcase_add_test(tc, test_paths_empty_refused);
	suite_add_tcase(s, tc);
	tc = tcase_create("git");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_paths_unmatched);
	tcase_add_test(tc, test_paths_unmatched_unborn);
	tcase_add_test(tc, test_paths_find_renames);
	suite_add_tcase(s, tc);
	return s;
}
