/*
 * Unit tests of lib/store/git_threads.c, lib/store/store_diff.c and
 * lib/store/thread_log.c: the sides git diff compares for each form of revision
 * arguments, thread files read from a commit, the index (unmerged: conflicted)
 * and the work tree, the changes between two sides of a store kept in a
 * sub-folder, and a thread's history followed across a split by `resolve`.
 */
#include "threadmind/git_threads.h"
#include "threadmind/thread_log.h"
#include "threadmind/error.h"
#include "threadmind/git.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *repo;
static tm_git *g;

#define PREFIX "sub/"
#define DIR_P  "sub/.threadmind/threads/p"

/* Thread file `id` of project p (under sub/), its summary `body`. */
static void put(const char *id, const char *title, const char *created,
		const char *body)
{
	char path[512], text[1024];

	snprintf(path, sizeof(path), "%s/" DIR_P "/%s.md", repo, id);
	snprintf(text, sizeof(text),
		 "---\nid: %s\ntitle: %s\nparentId: %s\nauthor: ann-1a2b\n"
		 "createdAt: %s\nupdatedAt: %s\n---\n\n%s",
		 id, title, strcmp(id, "main") ? "main" : "null", created,
		 created, body);
	tmt_write_file(path, text, strlen(text));
}

static void commit(const char *msg)
{
	tmt_sh("cd '%s' && git add -A && git commit -q -m '%s'", repo, msg);
}

static char *rev(const char *name)
{
	return tmt_sh_out("cd '%s' && git rev-parse '%s'", repo, name);
}

/* base: main and auth; feature adds billing; main then edits auth. */
static void setup(void)
{
	char *dir;

	tmp = tmt_sandbox();
	repo = tmt_git_repo(tmp, "repo");
	dir = tmt_join(repo, DIR_P);
	tmt_mkdirs(dir);
	free(dir);
	put("main", "P", "2026-01-01T00:00:00.000Z", "");
	put("auth", "Auth", "2026-01-02T00:00:00.000Z",
	    "## Decisions\n- one\n");
	commit("base");
	tmt_sh("cd '%s' && git switch -q -c feature", repo);
	put("billing", "Billing", "2026-01-03T00:00:00.000Z",
	    "## State\n- b\n");
	commit("feature");
	tmt_sh("cd '%s' && git switch -q main", repo);
	put("auth", "Auth", "2026-01-02T00:00:00.000Z",
	    "## Decisions\n- one\n- two\n");
	commit("two");
	ck_assert_msg(tm_git_open(&g, repo, false) == 0, "%s", tm_error_last());
}

static void teardown(void)
{
	tm_git_free(g);
	g = NULL;
	tmt_sandbox_end(tmp);
	free(repo);
	tmp = repo = NULL;
}

static void sides(tm_side *b, tm_side *a, bool cached, size_t n, ...)
{
	const char *revs[3];
	va_list ap;
	size_t i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		revs[i] = va_arg(ap, const char *);
	va_end(ap);
	ck_assert_msg(tm_git_diff_sides(b, a, g, revs, n, cached) == 0, "%s",
		      tm_error_last());
}

static void assert_commit(const tm_side *s, const char *name)
{
	char *hex = rev(name);

	ck_assert_int_eq(s->kind, TM_SIDE_COMMIT);
	ck_assert_str_eq(s->commit, hex);
	free(hex);
}

START_TEST(test_git_threads_sides_of_each_form)
{
	tm_side b, a;
	char *base = tmt_sh_out("cd '%s' && git merge-base main feature", repo);
	const char *three[] = {"main", "feature", "HEAD"};
	const char *range_and_one[] = {"main..feature", "HEAD"};

	sides(&b, &a, false, 0);
	ck_assert_int_eq(b.kind, TM_SIDE_INDEX);
	ck_assert_int_eq(a.kind, TM_SIDE_WORKTREE);
	sides(&b, &a, true, 0);
	assert_commit(&b, "HEAD");
	ck_assert_int_eq(a.kind, TM_SIDE_INDEX);
	sides(&b, &a, false, 1, "HEAD~1");
	assert_commit(&b, "HEAD~1");
	ck_assert_int_eq(a.kind, TM_SIDE_WORKTREE);
	sides(&b, &a, true, 1, "feature");
	assert_commit(&b, "feature");
	ck_assert_int_eq(a.kind, TM_SIDE_INDEX);
	sides(&b, &a, false, 2, "main", "feature");
	assert_commit(&b, "main");
	assert_commit(&a, "feature");
	sides(&b, &a, false, 1, "main..feature");
	assert_commit(&b, "main");
	assert_commit(&a, "feature");
	sides(&b, &a, false, 1, "main...feature");
	ck_assert_str_eq(b.commit, base);
	assert_commit(&a, "feature");
	ck_assert_int_eq(tm_git_diff_sides(&b, &a, g, three, 3, false),
			 TM_EINVALID);
	ck_assert_int_eq(tm_git_diff_sides(&b, &a, g, range_and_one, 2, false),
			 TM_EINVALID);
	ck_assert_int_eq(tm_git_diff_sides(&b, &a, g, three, 2, true),
			 TM_EINVALID);
	ck_assert_int_eq(tm_git_diff_sides(&b, &a, g,
					   (const char *[]){"nosuch"}, 1,
					   false),
			 TM_ENOTFOUND);
	ck_assert(strstr(tm_error_last(), "'nosuch'"));
	ck_assert(tm_git_is_revision(g, "^feature"));
	ck_assert(tm_git_is_revision(g, "main...feature"));
	ck_assert(!tm_git_is_revision(g, "auth"));
	tm_error_clear();
	free(base);
}
END_TEST

START_TEST(test_git_threads_read_and_list)
{
	tm_side head = {TM_SIDE_COMMIT, ""}, feature = {TM_SIDE_COMMIT, ""};
	tm_side wt = {TM_SIDE_WORKTREE, ""};
	tm_strv ids = TM_STRV_INIT;
	tm_buf b = TM_BUF_INIT;
	char *h = rev("HEAD"), *f = rev("feature");

	memcpy(head.commit, h, 41);
	memcpy(feature.commit, f, 41);
	ck_assert_int_eq(tm_side_list_threads(&ids, g, PREFIX, &feature, "p"),
			 0);
	ck_assert_uint_eq(ids.n, 3);
	ck_assert_str_eq(ids.items[0], "auth");
	ck_assert_str_eq(ids.items[1], "billing");
	ck_assert_str_eq(ids.items[2], "main");
	ck_assert_int_eq(tm_side_read_thread(&b, g, PREFIX, &head, "p", "auth"),
			 0);
	ck_assert(strstr(tm_buf_cstr(&b), "- two\n"));
	ck_assert_int_eq(
		tm_side_read_thread(&b, g, PREFIX, &head, "p", "billing"),
		TM_ENOTFOUND);
	ck_assert_int_eq(tm_side_read_thread(&b, g, PREFIX, &wt, "p", "../x"),
			 TM_EINVALID);
	/* a thread git holds unmerged is conflicted, in the index and in
	 * the work tree */
	tmt_sh("cd '%s' && git switch -q -c left HEAD~1 && "
	       "sed -i 's/- one/- left/' " DIR_P "/auth.md && "
	       "git commit -q -am left && "
	       "{ git merge -q main >/dev/null 2>&1; true; } && "
	       "git ls-files -u | grep -q auth.md",
	       repo);
	ck_assert_int_eq(tm_side_read_thread(&b, g, PREFIX, &wt, "p", "auth"),
			 TM_ECONFLICT);
	wt.kind = TM_SIDE_INDEX;
	ck_assert_int_eq(tm_side_read_thread(&b, g, PREFIX, &wt, "p", "auth"),
			 TM_ECONFLICT);
	tm_error_clear();
	tm_buf_release(&b);
	tm_strv_clear(&ids);
	free(h);
	free(f);
}
END_TEST

static const tm_tdiff_entry *entry(const tm_store_diff *d, const char *id)
{
	ck_assert_uint_eq(d->n, 1);
	ck_assert_str_eq(d->items[0].project, "p");
	return tm_tdiff_find(&d->items[0].diff, id);
}

START_TEST(test_git_threads_store_diff)
{
	tm_store_diff d = TM_STORE_DIFF_INIT;
	tm_store_diff_options o = TM_STORE_DIFF_OPTIONS_INIT;
	tm_side b, a;
	const tm_tdiff_entry *e;
	const char *only[] = {"billing"};

	sides(&b, &a, false, 1, "main...feature");
	ck_assert_int_eq(tm_store_diff_sides(&d, g, PREFIX, &b, &a, NULL), 0);
	ck_assert_uint_eq(d.items[0].diff.n, 1);
	e = entry(&d, "billing");
	ck_assert_int_eq(e->kind, TM_TDIFF_ADDED);
	ck_assert_str_eq(e->after->title, "Billing");
	tm_store_diff_clear(&d);

	sides(&b, &a, false, 2, "main", "feature");
	ck_assert_int_eq(tm_store_diff_sides(&d, g, PREFIX, &b, &a, NULL), 0);
	ck_assert_uint_eq(d.items[0].diff.n, 2);
	ck_assert_int_eq(entry(&d, "auth")->kind, TM_TDIFF_MODIFIED);
	ck_assert_uint_eq(entry(&d, "auth")->summary.n, 1);
	tm_store_diff_clear(&d);
	o.threads = only;
	o.nthreads = 1;
	ck_assert_int_eq(tm_store_diff_sides(&d, g, PREFIX, &b, &a, &o), 0);
	ck_assert_uint_eq(d.items[0].diff.n, 1);
	ck_assert_int_eq(entry(&d, "billing")->kind, TM_TDIFF_ADDED);
	tm_store_diff_clear(&d);

	/* the work tree against the index: an edit not staged; then only
	 * updatedAt, which is no change */
	put("auth", "Auth v2", "2026-01-02T00:00:00.000Z",
	    "## Decisions\n- one\n- two\n");
	sides(&b, &a, false, 0);
	ck_assert_int_eq(tm_store_diff_sides(&d, g, PREFIX, &b, &a, NULL), 0);
	e = entry(&d, "auth");
	ck_assert_ptr_nonnull(tm_tdiff_field_get(e, "title"));
	ck_assert(!tm_store_diff_empty(&d));
	tm_store_diff_clear(&d);
	tmt_sh("cd '%s' && git checkout -q . && sed -i "
	       "'s/^updatedAt: .*/updatedAt: 2027-01-01T00:00:00.000Z/' " DIR_P
	       "/auth.md",
	       repo);
	ck_assert_int_eq(tm_store_diff_sides(&d, g, PREFIX, &b, &a, NULL), 0);
	ck_assert(tm_store_diff_empty(&d));
	tm_store_diff_clear(&d);
	o.threads = NULL;
	o.nthreads = 0;
	o.all_fields = true;
	ck_assert_int_eq(tm_store_diff_sides(&d, g, PREFIX, &b, &a, &o), 0);
	ck_assert_ptr_nonnull(
		tm_tdiff_field_get(entry(&d, "auth"), "updatedAt"));
	tm_store_diff_clear(&d);

	/* nothing is compared against a work tree on the left */
	ck_assert_int_eq(tm_store_diff_sides(&d, g, PREFIX, &a, &b, NULL),
			 TM_EINVALID);
	tm_error_clear();
}
END_TEST

START_TEST(test_git_threads_log_follows_a_split)
{
	tm_log_options o = TM_LOG_OPTIONS_INIT;
	tm_log l = TM_LOG_INIT;
	char *h;

	/* auth becomes auth-2 (same createdAt and author), as resolve
	 * renames a split */
	tmt_sh("cd '%s' && git mv " DIR_P "/auth.md " DIR_P "/auth-2.md && "
	       "sed -i 's/^id: auth$/id: auth-2/' " DIR_P "/auth-2.md",
	       repo);
	commit("split");
	o.project = "p";
	o.thread = "auth-2";
	ck_assert_msg(tm_log_read(&l, g, PREFIX, &o) == 0, "%s",
		      tm_error_last());
	ck_assert_uint_eq(l.n, 3);
	h = rev("HEAD");
	ck_assert_str_eq(l.items[0].commit, h);
	free(h);
	ck_assert_str_eq(l.items[0].id, "auth-2");
	ck_assert_int_eq(l.items[0].diff.items[0].diff.items[0].kind,
			 TM_TDIFF_RENAMED);
	ck_assert_str_eq(l.items[1].id, "auth");
	ck_assert_str_eq(l.items[1].subject, "two");
	ck_assert_str_eq(l.items[2].id, "auth");
	ck_assert_uint_eq(l.items[2].against, SIZE_MAX);
	tm_log_clear(&l);

	o.max_count = 1;
	ck_assert_int_eq(tm_log_read(&l, g, PREFIX, &o), 0);
	ck_assert_uint_eq(l.n, 1);
	tm_log_clear(&l);

	o.max_count = 0;
	o.thread = "../auth";
	ck_assert_int_eq(tm_log_read(&l, g, PREFIX, &o), TM_EINVALID);
	o.thread = "auth-2";
	o.revs = (const char *[]){"nosuch"};
	o.nrevs = 1;
	ck_assert_int_eq(tm_log_read(&l, g, PREFIX, &o), TM_ENOTFOUND);
	tm_log_clear(&l);
	tm_error_clear();
}
END_TEST

Suite *git_threads_suite(void)
{
	Suite *s = suite_create("git_threads");
	TCase *tc = tcase_create("repo");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_threads_sides_of_each_form);
	tcase_add_test(tc, test_git_threads_read_and_list);
	tcase_add_test(tc, test_git_threads_store_diff);
	tcase_add_test(tc, test_git_threads_log_follows_a_split);
	suite_add_tcase(s, tc);
	return s;
}
