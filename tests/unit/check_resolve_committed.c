/*
 * Unit tests of lib/app/resolve_committed.c: the sides of a text holding
 * conflict markers, and tm_resolve_files on thread files whose markers a
 * merge made without the driver committed or staged (the ancestor found in
 * history, written and staged).
 */
#include "threadmind/resolve.h"
#include "threadmind/error.h"
#include "threadmind/git.h"
#include "merge_util.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* ---- tm_resolve_split_markers ---- */

static tm_resolve_sides split_ok(const char *text)
{
	tm_resolve_sides s;

	ck_assert_msg(tm_resolve_split_markers(&s, text, strlen(text)) == 0,
		      "%s", tm_error_last());
	return s;
}

static void assert_sides(const tm_resolve_sides *s, const char *ours,
			 const char *theirs, const char *base)
{
	ck_assert_str_eq(tm_buf_cstr((tm_buf *)&s->ours), ours);
	ck_assert_str_eq(tm_buf_cstr((tm_buf *)&s->theirs), theirs);
	ck_assert_str_eq(tm_buf_cstr((tm_buf *)&s->base), base);
}

START_TEST(test_resolve_committed_split_none)
{
	tm_resolve_sides s = split_ok("a\nb\n");

	ck_assert_uint_eq(s.conflicts, 0);
	ck_assert(!s.base_complete);
	assert_sides(&s, "a\nb\n", "a\nb\n", "a\nb\n");
	tm_resolve_sides_clear(&s);
}
END_TEST

START_TEST(test_resolve_committed_split_two_conflicts)
{
	tm_resolve_sides s = split_ok("top\n"
				      "<<<<<<< main\n"
				      "ours 1\n"
				      "=======\n"
				      "theirs 1\n"
				      ">>>>>>> side\n"
				      "middle\n"
				      "<<<<<<<\n"
				      "=======\n"
				      "theirs 2\n"
				      "theirs 3\n"
				      ">>>>>>>\n"
				      "end");

	ck_assert_uint_eq(s.conflicts, 2);
	ck_assert(!s.base_complete);
	assert_sides(&s, "top\nours 1\nmiddle\nend",
		     "top\ntheirs 1\nmiddle\ntheirs 2\ntheirs 3\nend",
		     "top\nmiddle\nend");
	tm_resolve_sides_clear(&s);
}
END_TEST

START_TEST(test_resolve_committed_split_diff3_base)
{
	tm_resolve_sides s = split_ok("a\n"
				      "<<<<<<< ours\r\n"
				      "x\r\n"
				      "||||||| base\r\n"
				      "o\r\n"
				      "=======\r\n"
				      "y\r\n"
				      ">>>>>>> theirs\r\n"
				      "b\n");

	ck_assert_uint_eq(s.conflicts, 1);
	ck_assert(s.base_complete);
	assert_sides(&s, "a\nx\r\nb\n", "a\ny\r\nb\n", "a\no\r\nb\n");
	tm_resolve_sides_clear(&s);
}
END_TEST

/* One conflict without an ancestor block: the ancestor is incomplete. */
START_TEST(test_resolve_committed_split_mixed_styles)
{
	tm_resolve_sides s = split_ok("<<<<<<< a\n1\n||||||| o\n0\n=======\n"
				      "2\n>>>>>>> b\n"
				      "<<<<<<< a\n3\n=======\n4\n>>>>>>> b\n");

	ck_assert_uint_eq(s.conflicts, 2);
	ck_assert(!s.base_complete);
	tm_resolve_sides_clear(&s);
}
END_TEST

/* A fenced example of markers is text; markers of another size inside a
 * conflict are text too (git's inner markers are longer). */
START_TEST(test_resolve_committed_split_fences_and_sizes)
{
	tm_resolve_sides s = split_ok("```\n"
				      "<<<<<<< example\n"
				      "=======\n"
				      ">>>>>>> example\n"
				      "```\n"
				      "<<<<<<<<< outer\n"
				      "<<<<<<< inner\n"
				      "=======\n"
				      ">>>>>>> inner\n"
				      "=========\n"
				      "t\n"
				      ">>>>>>>>> outer\n");

	ck_assert_uint_eq(s.conflicts, 1);
	assert_sides(&s,
		     "```\n<<<<<<< example\n=======\n>>>>>>> example\n```\n"
		     "<<<<<<< inner\n=======\n>>>>>>> inner\n",
		     "```\n<<<<<<< example\n=======\n>>>>>>> example\n```\n"
		     "t\n",
		     "```\n<<<<<<< example\n=======\n>>>>>>> example\n```\n");
	tm_resolve_sides_clear(&s);
}
END_TEST

/* "<<<<<<<x" is no marker (a blank or the end of the line must follow). */
START_TEST(test_resolve_committed_split_marker_needs_blank)
{
	tm_resolve_sides s = split_ok("<<<<<<<x\n>>>>>>>y\n");

	ck_assert_uint_eq(s.conflicts, 0);
	tm_resolve_sides_clear(&s);
}
END_TEST

START_TEST(test_resolve_committed_split_unclosed)
{
	const char text[] = "a\n<<<<<<< ours\nx\n=======\ny\n";
	tm_resolve_sides s;

	ck_assert_int_eq(tm_resolve_split_markers(&s, text, strlen(text)),
			 TM_EPARSE);
	ck_assert_str_eq(tm_error_last(),
			 "the conflict opened at line 2 is not closed: a line "
			 "of 7 '=' then one of 7 '>' must follow it");
	ck_assert_uint_eq(s.conflicts, 0);
	ck_assert_uint_eq(s.ours.size, 0);
}
END_TEST

/* ---- tm_resolve_files on committed markers ---- */

#define T_MD ".threadmind/threads/p/t.md"

static char *tmp;  /* the sandbox */
static char *repo; /* tmp/repo */

static void put(const char *rel, const char *content)
{
	tmt_put(repo, rel, content);
}

static char *get(const char *rel)
{
	char *p = tmt_join(repo, rel), *data = tmt_read_file(p, NULL);

	free(p);
	return data;
}

/* A thread file t with `updated` and body `body`. */
static void put_thread(const char *updated, const char *body)
{
	char *a = mt_set(mt_base, "updatedAt", updated), *b = mt_body(a, body);

	put(T_MD, b);
	free(a);
	free(b);
}

/*
 * main and side from a common base: side replaces d2 with "- side", main
 * adds "- main" after d2; git's line merge conflicts in the frontmatter
 * (updatedAt) and in the list, where only the ancestor tells that d2 was
 * deleted on one side (and not added on the other).
 */
static void setup(void)
{
	tmp = tmt_sandbox();
	repo = tmt_git_repo(tmp, "repo");
	put_thread("2026-04-15T12:00:00.000Z",
		   "\n## Decisions\n- d1\n- d2\n\n## State\nProse.\n");
	tmt_sh("cd '%s' && git add -A && git commit -q -m base && "
	       "git switch -q -c side",
	       repo);
	put_thread("2026-04-17T12:00:00.000Z",
		   "\n## Decisions\n- d1\n- side\n\n## State\nProse.\n");
	tmt_sh("cd '%s' && git commit -q -am side && git switch -q main", repo);
	put_thread("2026-04-16T12:00:00.000Z",
		   "\n## Decisions\n- d1\n- d2\n- main\n\n## State\nProse.\n");
	tmt_sh("cd '%s' && git commit -q -am main", repo);
}

static void teardown(void)
{
	tmt_sandbox_end(tmp);
	free(repo);
	tmp = repo = NULL;
}

/* What a server does: merge-tree, commit-tree, no driver; main then
 * fast-forwards to it. */
static void server_merge(void)
{
	tmt_sh("cd '%s' && t=$(git merge-tree --write-tree main side | "
	       "head -1); c=$(git commit-tree $t -p main -p side -m srv) && "
	       "git merge -q --ff-only $c && grep -q '^<<<<<<<' '%s'",
	       repo, T_MD);
}

static int run(tm_resolve_report *r, const char *path, tm_resolve_from from)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_strv paths = TM_STRV_INIT;
	tm_git *g = NULL;
	int error;

	ck_assert_msg(tm_git_open(&g, repo, false) == 0, "%s", tm_error_last());
	if (path)
		tm_strv_push(&paths, path);
	error = tm_resolve_files(r, g, &paths, &opts, from);
	tm_strv_clear(&paths);
	tm_git_free(g);
	return error;
}

static void run_ok(tm_resolve_report *r, const char *path, tm_resolve_from from)
{
	ck_assert_msg(run(r, path, from) == 0, "%s", tm_error_last());
}

/* d2 stays deleted (side deleted it): only an ancestor can tell; both
 * additions are in; clean and staged. */
static void assert_merged_with_base(void)
{
	char *t = get(T_MD), *staged, *diff;

	ck_assert_ptr_null(strstr(t, "<<<<<<<"));
	ck_assert(!mt_has_line(t, "- d2"));
	ck_assert(mt_has_line(t, "- d1"));
	ck_assert(mt_has_line(t, "- main"));
	ck_assert(mt_has_line(t, "- side"));
	ck_assert(mt_has_line(t, "updatedAt: 2026-04-17T12:00:00.000Z"));
	staged = tmt_sh_out("git -C '%s' show :%s", repo, T_MD);
	ck_assert_ptr_null(strstr(staged, "<<<<<<<"));
	diff = tmt_sh_out("git -C '%s' diff --name-only", repo);
	ck_assert_str_eq(diff, ""); /* the working tree is what is staged */
	free(t);
	free(staged);
	free(diff);
}

START_TEST(test_resolve_committed_server_merge)
{
	tm_resolve_report r;
	char *merge;

	server_merge();
	run_ok(&r, NULL, TM_RESOLVE_FROM_ANY);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.items[0].path, T_MD);
	ck_assert_int_eq(r.items[0].outcome, TM_RESOLVE_CLEAN);
	merge = tmt_sh_out("git -C '%s' rev-parse --short HEAD", repo);
	ck_assert_ptr_nonnull(r.items[0].from);
	ck_assert_msg(strstr(r.items[0].from, merge) != NULL, "%s",
		      r.items[0].from);
	ck_assert_ptr_nonnull(strstr(r.items[0].from,
				     "against the merge base of its parents"));
	assert_merged_with_base();
	free(merge);
	tm_resolve_report_clear(&r);
	/* nothing left: a second run has nothing to do */
	run_ok(&r, NULL, TM_RESOLVE_FROM_ANY);
	ck_assert_uint_eq(r.n, 0);
	tm_resolve_report_clear(&r);
}
END_TEST

/* Later commits that keep the markers (or edit around them) lead back
 * to the merge that introduced them. */
START_TEST(test_resolve_committed_found_through_later_commits)
{
	tm_resolve_report r;
	char *t;

	server_merge();
	tmt_sh("cd '%s' && echo x >other && git add other && "
	       "git commit -q -m other && echo '- later' >>'%s' && "
	       "git commit -q -am later",
	       repo, T_MD);
	run_ok(&r, T_MD, TM_RESOLVE_FROM_ANY);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_ptr_nonnull(strstr(r.items[0].from,
				     "against the merge base of its parents"));
	t = get(T_MD);
	ck_assert(!mt_has_line(t, "- d2"));
	ck_assert(mt_has_line(t, "- later"));
	free(t);
	tm_resolve_report_clear(&r);
}
END_TEST

/* `git add` of the conflicted file during a merge: no stages, no commit
 * yet; the ancestor is the merge base of HEAD and MERGE_HEAD. */
START_TEST(test_resolve_committed_staged_during_merge)
{
	tm_resolve_report r;

	tmt_sh("cd '%s' && { git merge -q side >/dev/null 2>&1; "
	       "test $? -eq 1; } && git add '%s'",
	       repo, T_MD);
	run_ok(&r, NULL, TM_RESOLVE_FROM_ANY);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.items[0].outcome, TM_RESOLVE_CLEAN);
	ck_assert_msg(strstr(r.items[0].from, "the conflict markers in the "
					      "file, against the merge base "
					      "of HEAD and MERGE_HEAD") != NULL,
		      "%s", r.items[0].from);
	assert_merged_with_base();
	tm_resolve_report_clear(&r);
}
END_TEST

/* --committed takes the markers even when the index has stages. */
START_TEST(test_resolve_committed_markers_over_stages)
{
	tm_resolve_report r;
	char *left;

	tmt_sh("cd '%s' && { git merge -q side >/dev/null 2>&1; "
	       "test $? -eq 1; }",
	       repo);
	run_ok(&r, NULL, TM_RESOLVE_FROM_MARKERS);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_ptr_nonnull(r.items[0].from);
	assert_merged_with_base();
	left = tmt_sh_out("git -C '%s' diff --name-only --diff-filter=U", repo);
	ck_assert_str_eq(left, "");
	free(left);
	tm_resolve_report_clear(&r);
}
END_TEST

/* Markers committed in a commit that is no merge: no ancestor, merged as
 * a file added on both sides (d2 is kept: nothing says it was deleted). */
START_TEST(test_resolve_committed_no_merge_no_ancestor)
{
	tm_resolve_report r;
	char *t;

	tmt_sh("cd '%s' && git show side:'%s' >side.md && "
	       "git show main~1:'%s' >base.md && "
	       "{ git merge-file -L main -L base -L side '%s' base.md "
	       "side.md; test $? -ge 1; } && rm side.md base.md && "
	       "git commit -q -am 'by hand'",
	       repo, T_MD, T_MD, T_MD);
	run_ok(&r, NULL, TM_RESOLVE_FROM_ANY);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.items[0].outcome, TM_RESOLVE_CLEAN);
	ck_assert_msg(strstr(r.items[0].from,
			     ", which is not a merge; no ancestor: merged as "
			     "a file added on both sides") != NULL,
		      "%s", r.items[0].from);
	t = get(T_MD);
	ck_assert_ptr_null(strstr(t, "<<<<<<<"));
	ck_assert(mt_has_line(t, "- d2"));
	ck_assert(mt_has_line(t, "- main"));
	ck_assert(mt_has_line(t, "- side"));
	free(t);
	tm_resolve_report_clear(&r);
}
END_TEST

/* The same with diff3 markers: their ancestor blocks are the ancestor. */
START_TEST(test_resolve_committed_no_merge_diff3_blocks)
{
	tm_resolve_report r;
	char *t;

	tmt_sh("cd '%s' && git show side:'%s' >side.md && "
	       "git show main~1:'%s' >base.md && "
	       "{ git merge-file --diff3 -L main -L base -L side '%s' base.md "
	       "side.md; test $? -ge 1; } && rm side.md base.md && "
	       "grep -q '^|||||||' '%s' && git commit -q -am 'by hand'",
	       repo, T_MD, T_MD, T_MD, T_MD);
	run_ok(&r, NULL, TM_RESOLVE_FROM_ANY);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_msg(strstr(r.items[0].from, "against the ancestor blocks "
					      "of its diff3 markers") != NULL,
		      "%s", r.items[0].from);
	t = get(T_MD);
	ck_assert_ptr_null(strstr(t, "<<<<<<<"));
	ck_assert(!mt_has_line(t, "- d2"));
	ck_assert(mt_has_line(t, "- main"));
	ck_assert(mt_has_line(t, "- side"));
	free(t);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_committed_unclosed_skipped)
{
	tm_resolve_report r;
	char *t;

	tmt_sh("cd '%s' && printf '<<<<<<< x\\n>>>>>>> y\\n' >>'%s' && "
	       "git commit -q -am broken",
	       repo, T_MD);
	run_ok(&r, NULL, TM_RESOLVE_FROM_ANY);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.items[0].outcome, TM_RESOLVE_SKIPPED);
	ck_assert_msg(strstr(r.items[0].note, "is not closed") != NULL, "%s",
		      r.items[0].note);
	/* left as it was */
	t = get(T_MD);
	ck_assert(mt_has_line(t, "<<<<<<< x"));
	ck_assert(mt_has_line(t, ">>>>>>> y"));
	free(t);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_committed_named_without_markers)
{
	tm_resolve_report r;

	ck_assert_int_eq(run(&r, T_MD, TM_RESOLVE_FROM_ANY), TM_ENOTFOUND);
	ck_assert_str_eq(tm_error_last(), "'" T_MD "' has no conflict to "
					  "resolve");
	tm_resolve_report_clear(&r);
	ck_assert_int_eq(run(&r, T_MD, TM_RESOLVE_FROM_MARKERS), TM_ENOTFOUND);
	tm_resolve_report_clear(&r);
}
END_TEST

Suite *resolve_committed_suite(void)
{
	Suite *s = suite_create("resolve_committed");
	TCase *tc = tcase_create("split");

	tcase_add_test(tc, test_resolve_committed_split_none);
	tcase_add_test(tc, test_resolve_committed_split_two_conflicts);
	tcase_add_test(tc, test_resolve_committed_split_diff3_base);
	tcase_add_test(tc, test_resolve_committed_split_mixed_styles);
	tcase_add_test(tc, test_resolve_committed_split_fences_and_sizes);
	tcase_add_test(tc, test_resolve_committed_split_marker_needs_blank);
	tcase_add_test(tc, test_resolve_committed_split_unclosed);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_resolve_committed_server_merge);
	tcase_add_test(tc, test_resolve_committed_found_through_later_commits);
	tcase_add_test(tc, test_resolve_committed_staged_during_merge);
	tcase_add_test(tc, test_resolve_committed_markers_over_stages);
	tcase_add_test(tc, test_resolve_committed_no_merge_no_ancestor);
	tcase_add_test(tc, test_resolve_committed_no_merge_diff3_blocks);
	tcase_add_test(tc, test_resolve_committed_unclosed_skipped);
	tcase_add_test(tc, test_resolve_committed_named_without_markers);
	suite_add_tcase(s, tc);
	return s;
}
