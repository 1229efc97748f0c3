/*
 * Unit tests of lib/app/view.c: the read view of status, tree and list --
 * why each unreadable file was left out, and which threads are shown
 * without --all.
 */
#include "threadmind/view.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;  /* the test's sandbox */
static char *repo; /* tmp/repo */

static const char project[] = "{\n"
			      "  \"id\": \"p\",\n"
			      "  \"title\": \"P\",\n"
			      "  \"systemContext\": \"\",\n"
			      "  \"mode\": \"solo\",\n"
			      "  \"rootThreadId\": \"main\"\n"
			      "}\n";

static void put(const char *rel, const char *content)
{
	tmt_put(repo, rel, content);
}

/* threads/p/<id>.md with `parent` (NULL: none) and `status` (NULL: none). */
static void thread(const char *id, const char *parent, const char *status)
{
	tm_buf path = TM_BUF_INIT, text = TM_BUF_INIT;

	tm_buf_printf(&path, ".threadmind/threads/p/%s.md", id);
	tm_buf_printf(&text, "---\nid: %s\ntitle: T %s\nparentId: %s\n", id, id,
		      parent ? parent : "null");
	if (status)
		tm_buf_printf(&text, "status: %s\n", status);
	tm_buf_puts(&text, "---\n- a line\n");
	put(tm_buf_cstr(&path), tm_buf_cstr(&text));
	tm_buf_release(&path);
	tm_buf_release(&text);
}

static void setup(void)
{
	tmp = tmt_sandbox();
	repo = tmt_git_repo(tmp, "repo");
	put(".threadmind/projects/p.json", project);
	thread("main", NULL, NULL);
	thread("a", "main", "done");      /* finished, an unfinished child */
	thread("b", "a", NULL);           /* unfinished */
	thread("c", "main", "done");      /* finished leaf */
	thread("d", "main", "abandoned"); /* finished leaf */
	thread("y", "main", NULL);
	tmt_sh("cd '%s' && git add -A && git commit -q -m base && "
	       "git checkout -q -b theirs",
	       repo);
	thread("y", "main", "done");
	tmt_sh("cd '%s' && git commit -q -a -m theirs && git checkout -q main",
	       repo);
	thread("y", "main", "abandoned");
	tmt_sh("cd '%s' && git commit -q -a -m ours && "
	       "{ git merge -q --no-edit theirs >/dev/null 2>&1; "
	       "test $? -eq 1; }",
	       repo);
}

static void teardown(void)
{
	free(repo);
	tmt_sandbox_end(tmp);
	tmp = repo = NULL;
}

static tm_store *open_store(void)
{
	tm_store *s = NULL;

	ck_assert_msg(tm_store_open(&s, repo) == 0, "%s", tm_error_last());
	return s;
}

static const tm_load_error *find_error(const tm_load_errors *e,
				       const char *path)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (!strcmp(e->items[i].path, path))
			return &e->items[i];
	ck_abort_msg("no load error for '%s'", path);
	return NULL;
}

/* Each file left out says which and why, as data: no message to parse. */
START_TEST(test_view_load_threads_says_why_per_file)
{
	tm_store *s = open_store();
	tm_thread_list list;
	tm_load_errors errors;
	const tm_load_error *e;

	/* y.md: unmerged, and its markers still there */
	put(".threadmind/threads/p/Bad.md", "---\nid: bad\n---\n");
	put(".threadmind/threads/p/z.md", "no frontmatter\n");
	ck_assert_int_eq(tm_view_load_threads(&list, &errors, s, "p"), 0);
	ck_assert_uint_eq(errors.n, list.errors.n);
	ck_assert_uint_eq(errors.n, 3);
	e = find_error(&errors, ".threadmind/threads/p/y.md");
	ck_assert_int_eq(e->kind, TM_LOAD_MARKERS);
	e = find_error(&errors, ".threadmind/threads/p/z.md");
	ck_assert_int_eq(e->kind, TM_LOAD_UNREADABLE);
	ck_assert_ptr_nonnull(strstr(e->message, "z.md"));
	e = find_error(&errors, ".threadmind/threads/p/Bad.md");
	ck_assert_int_eq(e->kind, TM_LOAD_UNREADABLE);
	ck_assert_ptr_nonnull(strstr(e->message, "Bad.md"));
	tm_load_errors_clear(&errors);
	tm_thread_list_clear(&list);

	/* the markers gone, the index entry still unmerged */
	put(".threadmind/threads/p/y.md", "not a thread\n");
	ck_assert_int_eq(tm_view_load_threads(&list, &errors, s, "p"), 0);
	e = find_error(&errors, ".threadmind/threads/p/y.md");
	ck_assert_int_eq(e->kind, TM_LOAD_UNMERGED);
	tm_load_errors_clear(&errors);
	tm_thread_list_clear(&list);
	tm_store_free(s);
}
END_TEST

static bool shown(const tm_view *v, const char *id)
{
	long k = tm_tree_find(v->tree, id);

	ck_assert_msg(k >= 0, "no thread '%s' in the view", id);
	return v->shown[k];
}

/* Without --all a finished thread shows only above an unfinished one. */
START_TEST(test_view_hides_finished_threads)
{
	tm_store *s = open_store();
	tm_view v;

	ck_assert_msg(tm_view_load(&v, s, "p") == 0, "%s", tm_error_last());
	ck_assert_uint_eq(v.list.n, 5);
	ck_assert_uint_eq(v.errors.n, 1); /* y.md */
	tm_view_mark(&v, s, "p", false, NULL);
	ck_assert(shown(&v, "main"));
	ck_assert(shown(&v, "a"));
	ck_assert(shown(&v, "b"));
	ck_assert(!shown(&v, "c"));
	ck_assert(!shown(&v, "d"));
	/* list is flat: `a` is kept in the tree for `b`, not in the list */
	ck_assert(tm_view_listed(&v, tm_tree_find(v.tree, "b"), false));
	ck_assert(!tm_view_listed(&v, tm_tree_find(v.tree, "a"), false));
	ck_assert(!tm_view_listed(&v, tm_tree_find(v.tree, "c"), false));
	ck_assert(tm_view_listed(&v, tm_tree_find(v.tree, "c"), true));
	tm_view_free(&v);

	ck_assert_int_eq(tm_view_load(&v, s, "p"), 0);
	tm_view_mark(&v, s, "p", true, NULL);
	ck_assert(shown(&v, "c") && shown(&v, "d"));
	ck_assert_ptr_null(v.stale_error);
	tm_view_free(&v);
	tm_store_free(s);
}
END_TEST

Suite *view_suite(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_view_load_threads_says_why_per_file);
	tcase_add_test(tc, test_view_hides_finished_threads);
	suite_add_tcase(s, tc);
	return s;
}
