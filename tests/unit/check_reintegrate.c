/*
 * Unit tests of lib/format/reintegrate.c (what a merged thread holds that its
 * parent lacks; the driver's note) and of tm_ops_integrate_again, which adds
 * it to the parent.
 */
#include "threadmind/reintegrate.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "threadmind/merge.h"
#include "threadmind/ops.h"
#include "merge_util.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* tm_summary_missing with its text; asserts the count. */
static void check_missing(const char *into, const char *from, size_t n,
			  const char *text)
{
	tm_buf out = TM_BUF_INIT;

	ck_assert_uint_eq(tm_summary_missing(&out, into, from), n);
	ck_assert_str_eq(tm_buf_cstr(&out), text);
	ck_assert_uint_eq(tm_summary_missing(NULL, into, from), n);
	tm_buf_release(&out);
}

START_TEST(test_reintegrate_nothing_missing)
{
	/* everything is there, trailing blanks aside, in another order */
	check_missing("## Decisions\n- a\n- b\n\n## State\nProse.\n",
		      "## Decisions\n- b  \n- a\n\n## State\nProse.\t\n", 0,
		      "");
	check_missing("## Decisions\n- a\n", "", 0, "");
}
END_TEST

START_TEST(test_reintegrate_items_and_lines)
{
	check_missing("## Decisions\n- a\n\n## State\nProse.\n",
		      "Preamble line.\n\n## Decisions\n- a\n- new\n  more\n\n"
		      "## State\nProse.\nNew prose.\n\n## Next\n- step\n",
		      4,
		      "Preamble line.\n\n## Decisions\n- new\n  more\n\n"
		      "## State\nNew prose.\n\n## Next\n- step\n");
}
END_TEST

/* A unit the parent holds in another section is not missing: the
 * parent's owner may have moved it. */
START_TEST(test_reintegrate_anywhere_in_parent)
{
	check_missing("## Done\n- a\n  more\n\n## Notes\nA line.\n",
		      "## Decisions\n- a\n  more\n\n## State\nA line.\n", 0,
		      "");
}
END_TEST

/* An item is one unit: another continuation makes it another item; a
 * line of the parent's item counts as a line of text. */
START_TEST(test_reintegrate_item_is_one_unit)
{
	check_missing("## D\n- a\n  more\n", "## D\n- a\n  other\n", 1,
		      "## D\n- a\n  other\n");
	check_missing("## D\n- a\n  a line\n", "## D\na line\n", 0, "");
}
END_TEST

/* ---- tm_find_unintegrated ---- */

static tm_thread *thread(const char *text, const char *id)
{
	tm_thread *t = NULL;

	ck_assert_msg(tm_frontmatter_parse(&t, text, strlen(text), id, id) == 0,
		      "%s", tm_error_last());
	return t;
}

START_TEST(test_reintegrate_find)
{
	tm_thread *t[5];
	tm_unintegrated_list l;
	size_t i;

	t[0] = thread("---\nid: auth\ntitle: A\n---\n## D\n- a\n- b\n", "auth");
	/* merged, with a line auth lacks */
	t[1] = thread("---\nid: oauth\ntitle: O\nparentId: auth\nstatus: "
		      "done\nmergedInto: auth\n---\n## D\n- a\n- c\n- d\n",
		      "oauth");
	/* merged, all in auth */
	t[2] = thread("---\nid: sso\ntitle: S\nparentId: auth\nstatus: "
		      "done\nmergedInto: auth\n---\n## D\n- b\n",
		      "sso");
	/* merged into a thread that is not there: nothing to compare */
	t[3] = thread("---\nid: gone\ntitle: G\nstatus: done\nmergedInto: "
		      "nope\n---\n## D\n- z\n",
		      "gone");
	/* not merged */
	t[4] = thread("---\nid: open\ntitle: O\nparentId: auth\n---\n"
		      "## D\n- y\n",
		      "open");
	tm_find_unintegrated(&l, (const tm_thread *const *)t, 5);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.items[0].id, "oauth");
	ck_assert_str_eq(l.items[0].into, "auth");
	ck_assert_uint_eq(l.items[0].missing, 2);
	tm_unintegrated_list_clear(&l);
	for (i = 0; i < 5; i++)
		tm_thread_free(t[i]);
}
END_TEST

/* ---- tm_reintegrate_note, and through tm_merge_files ---- */

static char *child(const char *merged, const char *updated, const char *body)
{
	char *a = mt_set(mt_base, "updatedAt", updated), *b;

	if (merged) {
		b = mt_set(a, "status", "done");
		free(a);
		a = mt_set(b, "mergedInto", merged);
		free(b);
	}
	b = mt_body(a, body);
	free(a);
	return b;
}

static char *note(const char *o, const char *a, const char *b)
{
	return tm_reintegrate_note(o, strlen(o), a, strlen(a), b, strlen(b),
				   "t");
}

START_TEST(test_reintegrate_note)
{
	char *o = child(NULL, "2026-04-15T12:00:00.000Z", "\n## D\n- a\n"),
	     *merged =
		     child("main", "2026-04-16T12:00:00.000Z", "\n## D\n- a\n"),
	     *added = child(NULL, "2026-04-17T12:00:00.000Z",
			    "\n## D\n- a\n- carol\n"),
	     *dropped = child(NULL, "2026-04-17T12:00:00.000Z", "\n## D\n"), *n;
	const char want[] = "'t' was merged into 'main' on one side and "
			    "gained 1 line on the other: once the merge is "
			    "done, run 'git threadmind merge --again t' to "
			    "add it to 'main'";
	tm_merge_result r;

	ck_assert_str_eq(n = note(o, merged, added), want);
	free(n);
	ck_assert_str_eq(n = note(o, added, merged), want);
	free(n);
	/* nothing gained, both merged, nothing merged, no ancestor */
	ck_assert_ptr_null(note(o, merged, dropped));
	ck_assert_ptr_null(note(o, merged, merged));
	ck_assert_ptr_null(note(o, added, dropped));
	ck_assert_ptr_null(tm_reintegrate_note("", 0, merged, strlen(merged),
					       added, strlen(added), "t"));
	/* the driver's merge: clean, the line in the merged child, the note */
	r = mt_merge(o, merged, added, NULL);
	ck_assert(!r.conflicted);
	ck_assert(mt_has_line(r.data, "mergedInto: main"));
	ck_assert(mt_has_line(r.data, "- carol"));
	ck_assert_str_eq(r.note, want);
	tm_merge_result_clear(&r);
	free(o);
	free(merged);
	free(added);
	free(dropped);
}
END_TEST

/* ---- tm_ops_integrate_again ---- */

#define P "mon-app"

static char *tmp;
static tm_store *s;

static void setup(void)
{
	char *repo, *src;

	tmp = tmt_sandbox();
	repo = tmt_join(tmp, "repo");
	src = tmt_resource("seed-example");
	tmt_mkdirs(repo);
	tmt_sh("cp -R '%s/.threadmind' '%s/'", src, repo);
	ck_assert_int_eq(tm_store_open(&s, repo), 0);
	free(src);
	free(repo);
}

static void teardown(void)
{
	tm_store_free(s);
	s = NULL;
	tmt_sandbox_end(tmp);
	tmp = NULL;
}

static void put(const char *rel, const char *data)
{
	tmt_put(tm_store_dir(s), rel, data);
}

static char *summary_of(const char *id)
{
	tm_thread *t = NULL;
	char *sum;

	ck_assert_int_eq(tm_store_load_thread(&t, s, P, id), 0);
	sum = tm_thread_summary(t);
	tm_thread_free(t);
	return sum;
}

START_TEST(test_reintegrate_merge_again)
{
	tm_integrate_result r;
	tm_thread *c;
	char *sum;

	put("threads/mon-app/auth.md", "---\nid: auth\ntitle: Auth\nparentId: "
				       "main\nbranch: feature/x\n---\n"
				       "## Decisions\n- a\n- parent's own\n");
	put("threads/mon-app/auth-ui.md",
	    "---\nid: auth-ui\ntitle: UI\nparentId: auth\n---\n"
	    "## Decisions\n- a\n");
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "auth-ui"), 0);
	tm_integrate_result_clear(&r);
	/* a git merge brings a line and a section to the merged child */
	put("threads/mon-app/auth-ui.md",
	    "---\nid: auth-ui\ntitle: UI\nparentId: auth\nstatus: done\n"
	    "mergedInto: auth\n---\n"
	    "## Decisions\n- a\n- carol\n\n## State\nStarted.\n");
	ck_assert_int_eq(tm_ops_integrate_again(&r, s, P, "auth-ui"), 0);
	ck_assert_str_eq(r.parent, "auth");
	ck_assert(r.changed);
	ck_assert_uint_eq(r.added, 2);
	tm_integrate_result_clear(&r);
	sum = summary_of("auth");
	ck_assert_str_eq(sum, "## Decisions\n- a\n- parent's own\n- carol\n\n"
			      "## State\nStarted.\n");
	free(sum);
	/* the parent keeps its branch; the child is left as it was */
	c = NULL;
	ck_assert_int_eq(tm_store_load_thread(&c, s, P, "auth"), 0);
	ck_assert_str_eq(c->branch, "feature/x");
	tm_thread_free(c);
	ck_assert_int_eq(tm_store_load_thread(&c, s, P, "auth-ui"), 0);
	ck_assert_str_eq(c->status, "done");
	tm_thread_free(c);
	/* again: nothing left to add, nothing written */
	ck_assert_int_eq(tm_ops_integrate_again(&r, s, P, "auth-ui"), 0);
	ck_assert(!r.changed);
	ck_assert_uint_eq(r.added, 0);
	tm_integrate_result_clear(&r);
}
END_TEST

START_TEST(test_reintegrate_merge_again_refusals)
{
	tm_integrate_result r;

	ck_assert_int_eq(tm_ops_integrate_again(&r, s, P, "auth-ui"),
			 TM_EINVALID);
	ck_assert_str_eq(tm_error_last(),
			 "thread 'auth-ui' was not merged into its parent: "
			 "run 'git threadmind merge auth-ui'");
	put("threads/mon-app/auth-ui.md",
	    "---\nid: auth-ui\ntitle: UI\nparentId: auth\nstatus: done\n"
	    "mergedInto: gone\n---\n## D\n- a\n");
	ck_assert_int_eq(tm_ops_integrate_again(&r, s, P, "auth-ui"),
			 TM_ENOTFOUND);
	ck_assert_str_eq(tm_error_last(),
			 "thread 'auth-ui' was merged into 'gone', which no "
			 "longer exists: reopen it ('git threadmind reopen "
			 "auth-ui') and merge it again");
	ck_assert_int_eq(tm_ops_integrate_again(&r, s, P, "nope"),
			 TM_ENOTFOUND);
}
END_TEST

Suite *reintegrate_suite(void)
{
	Suite *s = suite_create("reintegrate");
	TCase *tc = tcase_create("missing");

	tcase_add_test(tc, test_reintegrate_nothing_missing);
	tcase_add_test(tc, test_reintegrate_items_and_lines);
	tcase_add_test(tc, test_reintegrate_anywhere_in_parent);
	tcase_add_test(tc, test_reintegrate_item_is_one_unit);
	tcase_add_test(tc, test_reintegrate_find);
	tcase_add_test(tc, test_reintegrate_note);
	suite_add_tcase(s, tc);

	tc = tcase_create("merge_again");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reintegrate_merge_again);
	tcase_add_test(tc, test_reintegrate_merge_again_refusals);
	suite_add_tcase(s, tc);
	return s;
}
