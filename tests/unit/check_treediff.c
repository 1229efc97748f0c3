/*
 * Unit tests of lib/treediff.c: the paths two trees differ by, compared
 * with `git diff-tree -r` on a history that adds, changes, re-moves and
 * replaces files, folders and symlinks.
 */
#include "lib/treediff.h"
#include "lib/error.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *repo;
static git_repository *r;

/* The commits of the history, oldest first (HEAD~6 .. HEAD). */
#define NCOMMITS 7

static void setup(void)
{
	char *home;

	tmp = tmt_mkdtemp();
	home = tmt_join(tmp, "home");
	repo = tmt_join(tmp, "repo");
	tmt_mkdirs(home);
	tmt_mkdirs(repo);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_CONFIG_COUNT");
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	free(home);
	tmt_sh("cd '%s' && git init -q && "
	       "git config user.name T && git config user.email t@x && "
	       "git config commit.gpgsign false && "
	       "mkdir -p a b/c && echo 1 > a.c && echo 1 > a/x && "
	       "echo 1 > b/c/d && echo 1 > 'sp ace' && echo 1 > a-b && "
	       "git add -A && git commit -qm 1 && "
	       "echo 2 >> b/c/d && git commit -qam 2 && "
	       "chmod +x a.c && git commit -qam 3 && "
	       "git rm -q a.c && mkdir a.c && echo 1 > a.c/y && "
	       "git rm -rq b/c && mkdir -p b && echo 1 > b/c && "
	       "git add -A && "
	       "git commit -qm 4 && "
	       "ln -s a/x l && echo 2 >> a/x && git add -A && "
	       "git commit -qm 5 && "
	       "git rm -rq a && git commit -qm 6 && "
	       "git commit -q --allow-empty -m 7",
	       repo);
	ck_assert_int_ge(git_libgit2_init(), 1);
	ck_assert_int_eq(git_repository_open(&r, repo), 0);
}

static void teardown(void)
{
	git_repository_free(r);
	git_libgit2_shutdown();
	tmt_rmtree(tmp);
	free(tmp);
	free(repo);
}

/* The tree of `rev`. */
static git_oid tree_of(const char *rev)
{
	git_object *o = NULL;
	git_oid oid;

	ck_assert_msg(git_revparse_single(&o, r, rev) == 0, "%s", rev);
	git_oid_cpy(&oid, git_commit_tree_id((git_commit *)o));
	git_object_free(o);
	return oid;
}

/* The paths joined with newlines. */
static char *lines(const tm_strv *v)
{
	tm_buf b = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < v->n; i++)
		tm_buf_printf(&b, "%s%s", i ? "\n" : "", v->items[i]);
	return b.ptr ? tm_buf_detach(&b) : strdup("");
}

/* tm_treediff between two trees (NULL: the empty tree), as lines. */
static char *ours(const git_oid *old, const git_oid *new_tree)
{
	tm_strv v = TM_STRV_INIT;
	char *s;

	ck_assert_msg(tm_treediff(&v, r, old, new_tree) == 0, "%s",
		      tm_error_last());
	s = lines(&v);
	tm_strv_clear(&v);
	return s;
}

/* Every commit against its parent, in git's order. */
START_TEST(test_treediff_like_git)
{
	git_oid a, b;
	char rev[16], *want, *got;
	int i;

	for (i = NCOMMITS - 2; i >= 0; i--) {
		snprintf(rev, sizeof(rev), "HEAD~%d", i + 1);
		a = tree_of(rev);
		snprintf(rev, sizeof(rev), "HEAD~%d", i);
		b = tree_of(rev);
		want = tmt_sh_out("git -C '%s' -c core.quotepath=false "
				  "diff-tree -r --no-renames --name-only "
				  "HEAD~%d HEAD~%d",
				  repo, i + 1, i);
		got = ours(&a, &b);
		ck_assert_msg(!strcmp(got, want), "HEAD~%d: got\n%s\nwant\n%s",
			      i, got, want);
		free(want);
		free(got);
	}
}
END_TEST

START_TEST(test_treediff_cases)
{
	git_oid t1 = tree_of("HEAD~6"), t2 = tree_of("HEAD~5"),
		t3 = tree_of("HEAD~4"), t4 = tree_of("HEAD~3"),
		t6 = tree_of("HEAD~1"), t7 = tree_of("HEAD");
	char *s;

	/* a change deep down: only that file */
	s = ours(&t1, &t2);
	ck_assert_str_eq(s, "b/c/d");
	free(s);
	/* a mode change counts */
	s = ours(&t2, &t3);
	ck_assert_str_eq(s, "a.c");
	free(s);
	/* a file that becomes a folder counts on both sides, in git's order
	 * (a folder sorts as if its name ended with '/') */
	s = ours(&t3, &t4);
	ck_assert_str_eq(s, "a.c\na.c/y\nb/c\nb/c/d");
	free(s);
	/* the same tree, and the same tree object twice */
	s = ours(&t6, &t7);
	ck_assert_str_eq(s, "");
	free(s);
	s = ours(&t1, &t1);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* NULL is the empty tree, on either side. */
START_TEST(test_treediff_empty_tree)
{
	git_oid t1 = tree_of("HEAD~6");
	char *s;

	s = ours(NULL, &t1);
	ck_assert_str_eq(s, "a-b\na.c\na/x\nb/c/d\nsp ace");
	free(s);
	s = ours(&t1, NULL);
	ck_assert_str_eq(s, "a-b\na.c\na/x\nb/c/d\nsp ace");
	free(s);
	s = ours(NULL, NULL);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* Appends to what `out` holds. */
START_TEST(test_treediff_appends)
{
	git_oid t1 = tree_of("HEAD~6"), t2 = tree_of("HEAD~5");
	tm_strv v = TM_STRV_INIT;

	tm_strv_push(&v, "kept");
	ck_assert_int_eq(tm_treediff(&v, r, &t1, &t2), 0);
	ck_assert_uint_eq(v.n, 2);
	ck_assert_str_eq(v.items[0], "kept");
	ck_assert_str_eq(v.items[1], "b/c/d");
	tm_strv_clear(&v);
}
END_TEST

START_TEST(test_treediff_missing_tree)
{
	git_oid t1 = tree_of("HEAD~6"), bad;
	tm_strv v = TM_STRV_INIT;

	ck_assert_int_eq(git_oid_fromstr(&bad, "0123456789abcdef0123456789"
					       "abcdef01234567"),
			 0);
	ck_assert_int_eq(tm_treediff(&v, r, &t1, &bad), TM_ERROR);
	ck_assert_msg(strstr(tm_error_last(), "cannot read tree 0123456789ab"),
		      "%s", tm_error_last());
	ck_assert_int_eq(tm_treediff(&v, r, &bad, NULL), TM_ERROR);
	tm_strv_clear(&v);
}
END_TEST

Suite *treediff_suite(void)
{
	Suite *s = suite_create("treediff");
	TCase *tc = tcase_create("diff");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_treediff_like_git);
	tcase_add_test(tc, test_treediff_cases);
	tcase_add_test(tc, test_treediff_empty_tree);
	tcase_add_test(tc, test_treediff_appends);
	tcase_add_test(tc, test_treediff_missing_tree);
	suite_add_tcase(s, tc);
	return s;
}
