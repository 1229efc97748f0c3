/*
 * Unit tests of lib/ops/ops.c: the store's read-modify-write operations, on a
 * copy of the seed store (main <- auth <- auth-ui in project mon-app).
 */
#include "threadmind/threadmind.h" /* every public header compiles together */
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "store_internal.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define P "mon-app"

static char *tmp;
static tm_store *s;
/* the refresh hook's count (see take_over), zeroed for each test */
static int refresh_calls, take_over_at;

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
	tm_store__set_refresh_hook(NULL, NULL, false);
	refresh_calls = take_over_at = 0;
	tm_store_free(s);
	s = NULL;
	tmt_sandbox_end(tmp);
	tmp = NULL;
}

/* The text of a file of the store (malloc'd). */
static char *file(const char *rel)
{
	char *p = tmt_join(tm_store_dir(s), rel),
	     *data = tmt_read_file(p, NULL);

	free(p);
	return data;
}

static bool exists(const char *rel)
{
	char *p = tmt_join(tm_store_dir(s), rel);
	struct stat st;
	bool r = lstat(p, &st) == 0;

	free(p);
	return r;
}

static void put(const char *rel, const char *data)
{
	tmt_put(tm_store_dir(s), rel, data);
}

static tm_thread *load(const char *id)
{
	tm_thread *t = NULL;

	ck_assert_int_eq(tm_store_load_thread(&t, s, P, id), 0);
	return t;
}

/* ck_assert that the store's lock is free again. */
static void assert_unlocked(void)
{
	ck_assert(!exists(".lock"));
}

/* ---- test seams ---- */

/* A refresh hook: on call number take_over_at, another process takes the
 * lock over (the lock file is replaced). */
static void take_over(tm_store *st, void *payload)
{
	(void)payload;
	if (++refresh_calls == take_over_at)
		tmt_take_over_lock(tm_store_dir(st));
}

static char **warned;
static size_t nwarned;

static void record_warning(const char *msg, void *payload)
{
	ck_assert_ptr_eq(payload, &nwarned);
	warned = realloc(warned, (nwarned + 1) * sizeof(*warned));
	warned[nwarned++] = strdup(msg);
}

/* ---- touch ---- */

START_TEST(test_ops_thread_touch)
{
	tm_thread *t = load("auth");

	tm_thread_touch(t, s, true);
	ck_assert_str_ne(t->updated_at, "2026-04-14T18:00:00.000Z");
	/* Outside git there is no HEAD nor branch: they stay. */
	ck_assert_str_eq(t->branch, "main");
	ck_assert_ptr_null(t->commit);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_ops_touch_needs_git)
{
	const char *head = NULL;
	char *before = file("threads/mon-app/auth.md");
	char *after;

	ck_assert_int_eq(tm_ops_touch(&head, s, P, "auth"), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "not in a git"));
	ck_assert_ptr_null(head);
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
}
END_TEST

START_TEST(test_ops_touch_records_head)
{
	char *repo = tmt_git_repo(tmp, "repo"), *want;
	const char *head = NULL;
	tm_thread *t;

	tmt_sh("git -C '%s' symbolic-ref HEAD refs/heads/topic && "
	       "git -C '%s' commit -q --allow-empty -m one",
	       repo, repo);
	want = tmt_sh_out("cd '%s' && git rev-parse HEAD", repo);
	ck_assert_int_eq(tm_ops_touch(&head, s, P, "auth"), 0);
	ck_assert_str_eq(head, want);
	t = load("auth");
	ck_assert_str_eq(t->commit, want);
	ck_assert_str_eq(t->branch, "topic");
	ck_assert_str_ne(t->updated_at, "2026-04-14T18:00:00.000Z");
	assert_unlocked();
	tm_thread_free(t);
	free(want);
	free(repo);
}
END_TEST

START_TEST(test_ops_touch_threads_all_or_none)
{
	char *repo = tmt_join(tmp, "repo"), *want, *before, *after;
	const char *ids[] = {"auth", "auth-ui"}, *bad[] = {"auth", "nope"};
	const char *head = NULL;
	tm_thread *t;

	tmt_sh("cd '%s' && git init -q -b main && git -c user.name=a "
	       "-c user.email=a@b commit -q --allow-empty -m one",
	       repo);
	want = tmt_sh_out("cd '%s' && git rev-parse HEAD", repo);
	before = file("threads/mon-app/auth.md");
	/* One unreadable thread: nothing is written. */
	ck_assert_int_eq(tm_ops_touch_threads(&head, s, P, bad, 2),
			 TM_ENOTFOUND);
	ck_assert_ptr_null(head);
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	assert_unlocked();
	ck_assert_int_eq(tm_ops_touch_threads(&head, s, P, ids, 2), 0);
	ck_assert_str_eq(head, want);
	t = load("auth");
	ck_assert_str_eq(t->commit, want);
	tm_thread_free(t);
	t = load("auth-ui");
	ck_assert_str_eq(t->commit, want);
	tm_thread_free(t);
	assert_unlocked();
	free(before);
	free(after);
	free(want);
	free(repo);
}
END_TEST

START_TEST(test_ops_touch_stale)
{
	char *repo = tmt_join(tmp, "repo"), *want, *main_before, *main_after;
	tm_strv ids = TM_STRV_INIT;
	const char *head = NULL;
	tm_thread *t;

	/* auth-ui (paths: src/auth) anchored at a commit, then the code
	 * under src/auth changes in a later commit: it is stale. */
	tmt_sh("cd '%s' && git init -q -b main && git add -A && git -c "
	       "user.name=a -c user.email=a@b commit -q -m one",
	       repo);
	ck_assert_int_eq(tm_ops_touch(NULL, s, P, "auth-ui"), 0);
	tmt_sh("cd '%s' && git add -A && git -c user.name=a -c "
	       "user.email=a@b commit -q -m anchor && mkdir -p src/auth && "
	       "echo x >src/auth/login.js && git add -A && git -c "
	       "user.name=a -c user.email=a@b commit -q -m code",
	       repo);
	want = tmt_sh_out("cd '%s' && git rev-parse HEAD", repo);
	tm_store_free(s);
	ck_assert_int_eq(tm_store_open(&s, repo), 0);
	main_before = file("threads/mon-app/main.md");

	nwarned = 0;
	ck_assert_int_eq(
		tm_ops_touch_stale(&ids, &head, s, P, record_warning, &nwarned),
		0);
	ck_assert_uint_eq(ids.n, 1);
	ck_assert_str_eq(ids.items[0], "auth-ui");
	ck_assert_str_eq(head, want);
	ck_assert_uint_eq(nwarned, 0);
	t = load("auth-ui");
	ck_assert_str_eq(t->commit, want);
	tm_thread_free(t);
	/* Threads that were not stale are left as they were. */
	main_after = file("threads/mon-app/main.md");
	ck_assert_str_eq(main_before, main_after);
	assert_unlocked();
	tm_strv_clear(&ids);

	/* Re-anchored: nothing is stale any more. */
	ck_assert_int_eq(tm_ops_touch_stale(&ids, NULL, s, P, NULL, NULL), 0);
	ck_assert_uint_eq(ids.n, 0);
	tm_strv_clear(&ids);
	free(main_before);
	free(main_after);
	free(want);
	free(repo);
}
END_TEST

START_TEST(test_ops_touch_stale_needs_head)
{
	tm_strv ids = TM_STRV_INIT;

	ck_assert_int_eq(tm_ops_touch_stale(&ids, NULL, s, P, NULL, NULL),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "stale threads"));
	ck_assert_uint_eq(ids.n, 0);
}
END_TEST

/* ---- rm ---- */

START_TEST(test_ops_remove_moves_children_up)
{
	tm_remove_result r;
	char *cfg = file("config.json"), *cfg_after;
	tm_thread *t;

	ck_assert_int_eq(tm_ops_remove_thread(&r, s, P, "auth", NULL), 0);
	ck_assert_uint_eq(r.removed.n, 1);
	ck_assert_str_eq(r.removed.items[0], "auth");
	ck_assert_uint_eq(r.moved, 1);
	ck_assert_str_eq(r.new_parent, "main");
	ck_assert(!exists("threads/mon-app/auth.md"));
	t = load("auth-ui");
	ck_assert_str_eq(t->parent_id, "main");
	ck_assert_str_ne(t->updated_at, "2026-04-15T12:30:00.000Z");
	/* Nothing in config.json named auth: not rewritten. */
	cfg_after = file("config.json");
	ck_assert_str_eq(cfg, cfg_after);
	assert_unlocked();
	tm_thread_free(t);
	tm_remove_result_clear(&r);
	free(cfg);
	free(cfg_after);
}
END_TEST

START_TEST(test_ops_remove_recursive_cleans_config)
{
	tm_remove_options o = TM_REMOVE_OPTIONS_INIT;
	tm_remove_result r;
	tm_config *cfg = NULL;

	o.recursive = true;
	ck_assert_int_eq(tm_ops_remove_thread(&r, s, P, "auth", &o), 0);
	ck_assert_uint_eq(r.removed.n, 2);
	/* Deepest first. */
	ck_assert_str_eq(r.removed.items[0], "auth-ui");
	ck_assert_str_eq(r.removed.items[1], "auth");
	ck_assert_uint_eq(r.moved, 0);
	ck_assert(!exists("threads/mon-app/auth.md"));
	ck_assert(!exists("threads/mon-app/auth-ui.md"));
	ck_assert(exists("threads/mon-app/main.md"));
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_ptr_null(tm_config_get_string(cfg, "activeThreadId"));
	ck_assert_ptr_null(tm_config_branch_thread(cfg, P, "feature/auth-ui"));
	ck_assert_str_eq(tm_config_branch_thread(cfg, P, "main"), "main");
	assert_unlocked();
	tm_config_free(cfg);
	tm_remove_result_clear(&r);
}
END_TEST

START_TEST(test_ops_remove_refuses_root)
{
	tm_remove_options o = TM_REMOVE_OPTIONS_INIT;
	tm_remove_result r;

	ck_assert_int_eq(tm_ops_remove_thread(&r, s, P, "main", NULL),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "root thread"));
	/* A subtree holding main: nothing is deleted. */
	put("threads/mon-app/top.md", "---\nid: top\ntitle: Top\nparentId: "
				      "null\n---\n");
	put("threads/mon-app/main.md", "---\nid: main\ntitle: Main\n"
				       "parentId: top\n---\n");
	o.recursive = true;
	ck_assert_int_eq(tm_ops_remove_thread(&r, s, P, "top", &o),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "recursively"));
	ck_assert(exists("threads/mon-app/top.md"));
	ck_assert(exists("threads/mon-app/auth-ui.md"));
	assert_unlocked();
}
END_TEST

START_TEST(test_ops_remove_warns_and_refuses_unreadable)
{
	tm_remove_options o = TM_REMOVE_OPTIONS_INIT;
	tm_remove_result r;

	put("threads/mon-app/broken.md", "no frontmatter\n");
	o.warn = record_warning;
	o.payload = &nwarned;
	ck_assert_int_eq(tm_ops_remove_thread(&r, s, P, "broken", &o),
			 TM_EPARSE);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "broken.md"));
	ck_assert_uint_eq(nwarned, 1);
	ck_assert_ptr_nonnull(strstr(warned[0], "broken.md"));
	ck_assert(exists("threads/mon-app/broken.md"));
	assert_unlocked();
	ck_assert_int_eq(tm_ops_remove_thread(&r, s, P, "nope", &o),
			 TM_ENOTFOUND);
	assert_unlocked();
}
END_TEST

START_TEST(test_ops_remove_stops_when_lock_taken_over)
{
	tm_remove_options o = TM_REMOVE_OPTIONS_INIT;
	tm_remove_result r = {TM_STRV_INIT, 0, NULL};
	char *cfg = file("config.json"), *cfg_after, *lock;

	/* The first delete is done; the lock is taken over before the
	 * second. */
	tm_store__set_refresh_hook(take_over, NULL, true);
	take_over_at = 2;
	o.recursive = true;
	ck_assert_int_eq(tm_ops_remove_thread(&r, s, P, "auth", &o),
			 TM_ELOCKED);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "lost the lock"));
	ck_assert_uint_eq(r.removed.n, 0); /* not written on error */
	ck_assert(!exists("threads/mon-app/auth-ui.md"));
	ck_assert(exists("threads/mon-app/auth.md"));
	cfg_after = file("config.json");
	ck_assert_str_eq(cfg, cfg_after);
	/* The other process's lock file stays. */
	lock = file(".lock");
	ck_assert_str_eq(lock, "{\"pid\":1}\n");
	free(lock);
	free(cfg);
	free(cfg_after);
}
END_TEST

/* ---- move ---- */

START_TEST(test_ops_move)
{
	tm_move_result r;
	tm_thread *t;

	ck_assert_int_eq(tm_ops_move_thread(&r, s, P, "auth-ui", "main", NULL),
			 0);
	ck_assert(r.changed);
	ck_assert_str_eq(r.old_parent, "auth");
	tm_move_result_clear(&r);
	t = load("auth-ui");
	ck_assert_str_eq(t->parent_id, "main");
	ck_assert_str_ne(t->updated_at, "2026-04-15T12:30:00.000Z");
	tm_thread_free(t);
	assert_unlocked();
}
END_TEST

START_TEST(test_ops_move_already_there_writes_nothing)
{
	char *before = file("threads/mon-app/auth.md"), *after;
	tm_move_result r;

	ck_assert_int_eq(tm_ops_move_thread(&r, s, P, "auth", "main", NULL), 0);
	ck_assert(!r.changed);
	ck_assert_str_eq(r.old_parent, "main");
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	tm_move_result_clear(&r);
	free(before);
	free(after);
}
END_TEST

START_TEST(test_ops_move_refusals)
{
	char *before = file("threads/mon-app/auth.md"), *after;
	tm_move_result r;

	ck_assert_int_eq(tm_ops_move_thread(&r, s, P, "auth", "auth-ui", NULL),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "cycle"));
	ck_assert_int_eq(tm_ops_move_thread(&r, s, P, "auth", "auth", NULL),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "under itself"));
	ck_assert_int_eq(tm_ops_move_thread(&r, s, P, "main", "auth", NULL),
			 TM_EINVALID);
	ck_assert_int_eq(tm_ops_move_thread(&r, s, P, "nope", "auth", NULL),
			 TM_ENOTFOUND);
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	assert_unlocked();
	free(before);
	free(after);
}
END_TEST

/* ---- merge ---- */

START_TEST(test_ops_merge_into_parent)
{
	tm_integrate_result r;
	tm_thread *child, *parent;
	char *summary;

	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "auth-ui"), 0);
	ck_assert_str_eq(r.parent, "auth");
	ck_assert(r.changed);
	tm_integrate_result_clear(&r);
	child = load("auth-ui");
	ck_assert_str_eq(child->status, "done");
	ck_assert_str_eq(child->merged_into, "auth");
	parent = load("auth");
	summary = tm_thread_summary(parent);
	ck_assert_ptr_nonnull(strstr(summary, "cookies httpOnly"));
	ck_assert_ptr_nonnull(strstr(summary, "React Hook Form"));
	ck_assert_ptr_nonnull(strstr(summary, "## État"));
	ck_assert_ptr_null(parent->status);
	/* Merged again: refused, nothing written. */
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "auth-ui"),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "already merged"));
	assert_unlocked();
	free(summary);
	tm_thread_free(child);
	tm_thread_free(parent);
}
END_TEST

START_TEST(test_ops_merge_empty_child_leaves_parent)
{
	char *before = file("threads/mon-app/auth.md"), *after;
	tm_integrate_result r;

	put("threads/mon-app/auth-ui.md", "---\nid: auth-ui\ntitle: UI\n"
					  "parentId: auth\n---\n");
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "auth-ui"), 0);
	ck_assert(!r.changed);
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	tm_integrate_result_clear(&r);
	free(before);
	free(after);
}
END_TEST

/* DESIGN.md section 11: merge does not rebind the parent's branch. */
START_TEST(test_ops_merge_keeps_parent_branch)
{
	char *repo = tmt_join(tmp, "repo"), *head;
	tm_integrate_result r;
	tm_thread *parent;

	tmt_sh("cd '%s' && git init -q -b feature/y && git -c user.name=A "
	       "-c user.email=a@b commit -q --allow-empty -m i",
	       repo);
	head = tmt_sh_out("cd '%s' && git rev-parse HEAD", repo);
	head[strcspn(head, "\n")] = 0;
	tm_store_free(s);
	ck_assert_int_eq(tm_store_open(&s, repo), 0);
	put("threads/mon-app/auth.md",
	    "---\nid: auth\ntitle: Auth\nparentId: main\n"
	    "branch: feature/x\ncommit: "
	    "0123456789abcdef0123456789abcdef01234567"
	    "\n---\n## Decisions\n- a\n");
	put("threads/mon-app/auth-ui.md", "---\nid: auth-ui\ntitle: UI\n"
					  "parentId: auth\n---\n"
					  "## Decisions\n- b\n");
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "auth-ui"), 0);
	ck_assert(r.changed);
	tm_integrate_result_clear(&r);
	parent = load("auth");
	ck_assert_str_eq(parent->branch, "feature/x");
	ck_assert_str_eq(parent->commit, head);
	tm_thread_free(parent);
	free(head);
	free(repo);
}
END_TEST

/* A list item the parent's section already has is not copied again. */
START_TEST(test_ops_merge_skips_items_parent_has)
{
	tm_integrate_result r;
	tm_thread *parent;
	char *summary, *parent_file;

	put("threads/mon-app/auth.md",
	    "---\nid: auth\ntitle: Auth\nparentId: main\n---\n"
	    "## Decisions\n- b\n  more\n- a\n\n## Notes\n- n\n");
	put("threads/mon-app/auth-ui.md",
	    "---\nid: auth-ui\ntitle: UI\nparentId: auth\n---\n"
	    "## Decisions\n- a  \n- c\n- b\n  more\n- b\n  other\n\ntext\n"
	    "## Next\n- a\n");
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "auth-ui"), 0);
	tm_integrate_result_clear(&r);
	parent = load("auth");
	summary = tm_thread_summary(parent);
	ck_assert_str_eq(summary, "## Decisions\n- b\n  more\n- a\n- c\n"
				  "- b\n  other\n\ntext\n\n## Notes\n- n\n\n"
				  "## Next\n- a\n");
	free(summary);
	tm_thread_free(parent);
	/* Every item already there: the parent is left as it was. */
	put("threads/mon-app/auth-ui.md",
	    "---\nid: auth-ui\ntitle: UI\nparentId: auth\n---\n"
	    "## Notes\n- n\n");
	summary = file("threads/mon-app/auth.md");
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "auth-ui"), 0);
	ck_assert(!r.changed);
	tm_integrate_result_clear(&r);
	parent_file = file("threads/mon-app/auth.md");
	ck_assert_str_eq(parent_file, summary);
	free(parent_file);
	free(summary);
}
END_TEST

START_TEST(test_ops_merge_refusals)
{
	tm_integrate_result r;

	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "main"),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "is a root"));
	put("threads/mon-app/lost.md", "---\nid: lost\ntitle: Lost\n"
				       "parentId: gone\n---\n");
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "lost"),
			 TM_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'gone'"));
	put("threads/mon-app/self.md", "---\nid: self\ntitle: Self\n"
				       "parentId: self\n---\n");
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "self"),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "its own parent"));
	put("threads/mon-app/bad.md", "---\nid: bad\ntitle: Bad\n"
				      "parentId: ../x\n---\n");
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "bad"), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "invalid parentId: "));
	ck_assert_int_eq(tm_ops_set_status(&(tm_status_result){0}, s, P, "auth",
					   TM_STATUS_ABANDONED),
			 0);
	ck_assert_int_eq(tm_ops_integrate_thread(&r, s, P, "auth"),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "is abandoned"));
	assert_unlocked();
}
END_TEST

/* ---- done / abandon / reopen ---- */

START_TEST(test_ops_set_status)
{
	tm_status_result r;
	tm_thread *t;
	char *before, *after;

	ck_assert_int_eq(tm_ops_set_status(&r, s, P, "auth", TM_STATUS_DONE),
			 0);
	ck_assert(r.changed);
	ck_assert_ptr_null(r.was_merged);
	t = load("auth");
	ck_assert_str_eq(t->status, "done");
	tm_thread_free(t);

	before = file("threads/mon-app/auth.md");
	ck_assert_int_eq(tm_ops_set_status(&r, s, P, "auth", TM_STATUS_DONE),
			 0);
	ck_assert(!r.changed);
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);

	ck_assert_int_eq(tm_ops_set_status(&r, s, P, "auth", NULL), 0);
	ck_assert(r.changed);
	t = load("auth");
	ck_assert_ptr_null(t->status);
	tm_thread_free(t);
	ck_assert_int_eq(tm_ops_set_status(&r, s, P, "auth", NULL), 0);
	ck_assert(!r.changed);

	ck_assert_int_eq(
		tm_ops_set_status(&r, s, P, "main", TM_STATUS_ABANDONED),
		TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "root thread"));
	assert_unlocked();
	free(before);
	free(after);
}
END_TEST

START_TEST(test_ops_reopen_merged)
{
	tm_integrate_result m;
	tm_status_result r;
	tm_thread *t;

	ck_assert_int_eq(tm_ops_integrate_thread(&m, s, P, "auth-ui"), 0);
	tm_integrate_result_clear(&m);
	ck_assert_int_eq(tm_ops_set_status(&r, s, P, "auth-ui", NULL), 0);
	ck_assert(r.changed);
	ck_assert_str_eq(r.was_merged, "auth");
	tm_status_result_clear(&r);
	t = load("auth-ui");
	ck_assert_ptr_null(t->status);
	ck_assert_ptr_null(t->merged_into);
	tm_thread_free(t);
}
END_TEST

/* ---- set ---- */

START_TEST(test_ops_set_fields)
{
	tm_assign a[2];
	bool changed = false;
	tm_thread *t;
	char *before, *after;

	ck_assert_int_eq(tm_assign_parse(&a[0], "title=New title"), 0);
	ck_assert_int_eq(tm_assign_parse(&a[1], "paths=x,y"), 0);
	ck_assert_int_eq(tm_ops_set_fields(&changed, s, P, "auth", a, 2), 0);
	ck_assert(changed);
	t = load("auth");
	ck_assert_str_eq(t->title, "New title");
	ck_assert_uint_eq(t->paths.n, 2);
	ck_assert_str_ne(t->updated_at, "2026-04-14T18:00:00.000Z");
	tm_thread_free(t);

	before = file("threads/mon-app/auth.md");
	ck_assert_int_eq(tm_ops_set_fields(&changed, s, P, "auth", a, 2), 0);
	ck_assert(!changed);
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	ck_assert_int_eq(tm_ops_set_fields(&changed, s, P, "nope", a, 1),
			 TM_ENOTFOUND);
	assert_unlocked();
	free(before);
	free(after);
}
END_TEST

/* ---- summary / edit ---- */

START_TEST(test_ops_write_summary)
{
	static const char text[] = "## Décisions\n- Tokens JWT\n";
	tm_summary_outcome outcome = TM_SUMMARY_UNCHANGED;
	tm_thread *t;
	char *summary;

	ck_assert_int_eq(tm_ops_write_summary(&outcome, s, P, "auth", text,
					      strlen(text), NULL),
			 0);
	ck_assert_int_eq(outcome, TM_SUMMARY_CHANGED);
	t = load("auth");
	summary = tm_thread_summary(t);
	ck_assert_str_eq(summary, text);
	ck_assert_str_ne(t->updated_at, "2026-04-14T18:00:00.000Z");
	assert_unlocked();
	free(summary);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_ops_write_summary_empty)
{
	tm_summary_options o = TM_SUMMARY_OPTIONS_INIT;
	tm_summary_outcome outcome;
	char *before = file("threads/mon-app/auth.md"), *after;
	tm_thread *t;

	ck_assert_int_eq(
		tm_ops_write_summary(&outcome, s, P, "auth", "\n\n", 2, &o),
		TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "--allow-empty"));
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	o.allow_empty = true;
	ck_assert_int_eq(
		tm_ops_write_summary(&outcome, s, P, "auth", "", 0, &o), 0);
	ck_assert_int_eq(outcome, TM_SUMMARY_EMPTY);
	t = load("auth");
	ck_assert_uint_eq(t->body_len, 0);
	assert_unlocked();
	tm_thread_free(t);
	free(before);
	free(after);
}
END_TEST

START_TEST(test_ops_write_summary_expect_body)
{
	tm_summary_options o = TM_SUMMARY_OPTIONS_INIT;
	tm_summary_outcome outcome;
	tm_thread *t = load("auth");
	char *before = file("threads/mon-app/auth.md"), *after;

	/* What the editor started from is no longer there. */
	o.expect_body = "## Old\n";
	o.expect_len = 7;
	ck_assert_int_eq(
		tm_ops_write_summary(&outcome, s, P, "auth", "x\n", 2, &o),
		TM_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "while you were"));
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	/* It still is: written. */
	o.expect_body = t->body;
	o.expect_len = t->body_len;
	ck_assert_int_eq(
		tm_ops_write_summary(&outcome, s, P, "auth", "x\n", 2, &o), 0);
	ck_assert_int_eq(outcome, TM_SUMMARY_CHANGED);
	assert_unlocked();
	tm_thread_free(t);
	free(before);
	free(after);
}
END_TEST

/* --append: by sections, under the lock, the rest kept byte for byte. */
START_TEST(test_ops_write_summary_append)
{
	static const char first[] = "Intro.\n\n## Decisions\n- a\n\n"
				    "## State\n- b\n";
	tm_summary_options o = TM_SUMMARY_OPTIONS_INIT;
	tm_summary_outcome outcome;
	char *before, *after, *summary;
	tm_thread *t;

	ck_assert_int_eq(tm_ops_write_summary(&outcome, s, P, "auth", first,
					      strlen(first), NULL),
			 0);
	o.append = true;
	o.section = "state";
	ck_assert_int_eq(tm_ops_write_summary(&outcome, s, P, "auth",
					      "- c\n\n## Next steps\n- d\n", 22,
					      &o),
			 0);
	ck_assert_int_eq(outcome, TM_SUMMARY_CHANGED);
	t = load("auth");
	summary = tm_thread_summary(t);
	ck_assert_str_eq(summary, "Intro.\n\n## Decisions\n- a\n\n## State\n"
				  "- b\n- c\n\n## Next steps\n- d\n");
	free(summary);
	tm_thread_free(t);
	/* without a section: the text's preamble goes to the top */
	o.section = NULL;
	ck_assert_int_eq(
		tm_ops_write_summary(&outcome, s, P, "auth", "More.\n", 6, &o),
		0);
	t = load("auth");
	summary = tm_thread_summary(t);
	ck_assert_ptr_nonnull(strstr(summary, "Intro.\n\nMore.\n\n## "));
	free(summary);
	tm_thread_free(t);
	/* nothing to append, or a heading that is no line: nothing written */
	before = file("threads/mon-app/auth.md");
	ck_assert_int_eq(
		tm_ops_write_summary(&outcome, s, P, "auth", "\n \n", 3, &o),
		TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "nothing to append"));
	o.section = "a\nb";
	ck_assert_int_eq(
		tm_ops_write_summary(&outcome, s, P, "auth", "x\n", 2, &o),
		TM_EINVALID);
	o.section = "";
	ck_assert_int_eq(
		tm_ops_write_summary(&outcome, s, P, "auth", "x\n", 2, &o),
		TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "one line"));
	after = file("threads/mon-app/auth.md");
	ck_assert_str_eq(before, after);
	assert_unlocked();
	free(before);
	free(after);
}
END_TEST

/* ---- rename ---- */

/* Whether the threads folder holds a temp file. */
static bool tmp_left(void)
{
	char *out = tmt_sh_out("ls -a '%s/threads/" P "'", tm_store_dir(s));
	bool r = strstr(out, ".tmp") != NULL;

	free(out);
	return r;
}

START_TEST(test_ops_rename_repoints_children)
{
	tm_rename_result r;
	char *cfg = file("config.json"), *cfg_after;
	tm_thread *t, *c;

	ck_assert_int_eq(tm_ops_rename_thread(&r, s, P, "auth", "auth-2", NULL),
			 0);
	ck_assert(!exists("threads/mon-app/auth.md"));
	t = load("auth-2");
	ck_assert_str_eq(t->id, "auth-2");
	ck_assert_str_eq(t->title, "Auth");
	/* nothing touched */
	ck_assert_str_eq(t->updated_at, "2026-04-14T18:00:00.000Z");
	ck_assert_ptr_nonnull(strstr(t->body, "httpOnly"));
	c = load("auth-ui");
	ck_assert_str_eq(c->parent_id, "auth-2");
	ck_assert_uint_eq(r.repointed.n, 1);
	ck_assert_str_eq(r.repointed.items[0], "auth-ui");
	/* config.json named no auth: not rewritten */
	ck_assert(!r.config);
	cfg_after = file("config.json");
	ck_assert_str_eq(cfg, cfg_after);
	ck_assert(!tmp_left());
	assert_unlocked();
	tm_rename_result_clear(&r);
	tm_thread_free(t);
	tm_thread_free(c);
	free(cfg);
	free(cfg_after);
}
END_TEST

START_TEST(test_ops_rename_updates_config)
{
	tm_rename_options o = TM_RENAME_OPTIONS_INIT;
	tm_rename_result r;
	tm_config *cfg = NULL;
	char *before;

	ck_assert_int_eq(tm_ops_rename_thread(&r, s, P, "auth-ui", "ui", NULL),
			 0);
	ck_assert(r.config);
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_str_eq(tm_config_get_string(cfg, "activeThreadId"), "ui");
	ck_assert_str_eq(tm_config_branch_thread(cfg, P, "feature/auth-ui"),
			 "ui");
	ck_assert_str_eq(tm_config_branch_thread(cfg, P, "main"), "main");
	tm_config_free(cfg);
	tm_rename_result_clear(&r);
	/* keep_config: config.json is left as it is */
	before = file("config.json");
	o.keep_config = true;
	ck_assert_int_eq(tm_ops_rename_thread(&r, s, P, "ui", "ui-2", &o), 0);
	ck_assert(!r.config);
	{
		char *after = file("config.json");

		ck_assert_str_eq(before, after);
		free(after);
	}
	ck_assert(exists("threads/mon-app/ui-2.md"));
	assert_unlocked();
	tm_rename_result_clear(&r);
	free(before);
}
END_TEST

START_TEST(test_ops_rename_only_listed_children)
{
	tm_rename_options o = TM_RENAME_OPTIONS_INIT;
	tm_strv kids = TM_STRV_INIT;
	tm_rename_result r;
	tm_thread *t;

	put("threads/mon-app/other.md", "---\nid: other\ntitle: Other\n"
					"parentId: auth\n---\n");
	tm_strv_push(&kids, "other");
	o.children = &kids;
	ck_assert_int_eq(tm_ops_rename_thread(&r, s, P, "auth", "auth-2", &o),
			 0);
	ck_assert_uint_eq(r.repointed.n, 1);
	t = load("other");
	ck_assert_str_eq(t->parent_id, "auth-2");
	tm_thread_free(t);
	t = load("auth-ui");
	ck_assert_str_eq(t->parent_id, "auth");
	tm_thread_free(t);
	tm_rename_result_clear(&r);
	tm_strv_clear(&kids);
}
END_TEST

START_TEST(test_ops_rename_refusals)
{
	char *before = file("threads/mon-app/auth.md");

	ck_assert_int_eq(tm_ops_rename_thread(NULL, s, P, "auth", "../x", NULL),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "invalid thread id"));
	ck_assert_int_eq(tm_ops_rename_thread(NULL, s, P, "../auth", "x", NULL),
			 TM_EINVALID);
	ck_assert_int_eq(
		tm_ops_rename_thread(NULL, s, "../p", "auth", "x", NULL),
		TM_EINVALID);
	ck_assert_int_eq(tm_ops_rename_thread(NULL, s, P, "main", "x", NULL),
			 TM_EINVALID);
	ck_assert_int_eq(tm_ops_rename_thread(NULL, s, P, "auth", "main", NULL),
			 TM_EINVALID);
	ck_assert_int_eq(tm_ops_rename_thread(NULL, s, P, "auth", "auth", NULL),
			 TM_EINVALID);
	ck_assert_int_eq(
		tm_ops_rename_thread(NULL, s, P, "auth", "auth-ui", NULL),
		TM_EEXISTS);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "auth-ui.md"));
	ck_assert_int_eq(tm_ops_rename_thread(NULL, s, P, "nope", "x", NULL),
			 TM_ENOTFOUND);
	/* a config.json that does not parse: nothing written */
	put("config.json", "{");
	ck_assert_int_eq(tm_ops_rename_thread(NULL, s, P, "auth", "x", NULL),
			 TM_EPARSE);
	ck_assert(!exists("threads/mon-app/x.md"));
	{
		char *after = file("threads/mon-app/auth.md");

		ck_assert_str_eq(before, after);
		free(after);
	}
	assert_unlocked();
	free(before);
}
END_TEST

START_TEST(test_ops_rename_stops_when_lock_taken_over)
{
	tm_thread *t;

	/* taken over before the child is re-pointed: the old file stays */
	tm_store__set_refresh_hook(take_over, NULL, true);
	take_over_at = 1;
	ck_assert_int_eq(
		tm_ops_rename_thread(NULL, s, P, "auth", "auth-2", NULL),
		TM_ELOCKED);
	ck_assert(exists("threads/mon-app/auth.md"));
	t = load("auth-ui");
	ck_assert_str_eq(t->parent_id, "auth");
	tm_thread_free(t);
}
END_TEST

START_TEST(test_ops_rename_waits_for_the_lock)
{
	/* a fresh lock held by another process: the rename gives up */
	put(".lock", "{\"pid\":1}\n");
	tmt_sh("cd '%s' && git init -q && git config threadmind.lockTimeout 1",
	       tm_store_root(s));
	ck_assert_int_eq(
		tm_ops_rename_thread(NULL, s, P, "auth", "auth-2", NULL),
		TM_ELOCKED);
	ck_assert(exists("threads/mon-app/auth.md"));
	ck_assert(!exists("threads/mon-app/auth-2.md"));
}
END_TEST

/* ---- project use ---- */

START_TEST(test_ops_use_project)
{
	tm_config *cfg = NULL;
	char *id = NULL, *thread = NULL;

	ck_assert_int_eq(tm_store_create_project(&id, s, "Other", NULL), 0);
	ck_assert_str_eq(id, "other");
	ck_assert_int_eq(tm_ops_use_project(&thread, s, id), 0);
	ck_assert_str_eq(thread, "main");
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_str_eq(tm_config_get_string(cfg, "activeProjectId"), "other");
	ck_assert_str_eq(tm_config_get_string(cfg, "activeThreadId"), "main");
	tm_config_free(cfg);
	free(thread);
	thread = NULL;
	ck_assert_int_eq(tm_ops_use_project(&thread, s, "nope"), TM_ENOTFOUND);
	ck_assert_ptr_null(thread);
	assert_unlocked();
	free(id);
}
END_TEST

Suite *ops_suite(void)
{
	Suite *su = suite_create("ops");
	TCase *tc;

	tc = tcase_create("rm");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ops_remove_moves_children_up);
	tcase_add_test(tc, test_ops_remove_recursive_cleans_config);
	tcase_add_test(tc, test_ops_remove_refuses_root);
	tcase_add_test(tc, test_ops_remove_warns_and_refuses_unreadable);
	tcase_add_test(tc, test_ops_remove_stops_when_lock_taken_over);
	suite_add_tcase(su, tc);

	tc = tcase_create("move-merge");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ops_move);
	tcase_add_test(tc, test_ops_move_already_there_writes_nothing);
	tcase_add_test(tc, test_ops_move_refusals);
	tcase_add_test(tc, test_ops_merge_into_parent);
	tcase_add_test(tc, test_ops_merge_empty_child_leaves_parent);
	tcase_add_test(tc, test_ops_merge_keeps_parent_branch);
	tcase_add_test(tc, test_ops_merge_skips_items_parent_has);
	tcase_add_test(tc, test_ops_merge_refusals);
	suite_add_tcase(su, tc);

	tc = tcase_create("rename");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_ops_rename_repoints_children);
	tcase_add_test(tc, test_ops_rename_updates_config);
	tcase_add_test(tc, test_ops_rename_only_listed_children);
	tcase_add_test(tc, test_ops_rename_refusals);
	tcase_add_test(tc, test_ops_rename_stops_when_lock_taken_over);
	tcase_add_test(tc, test_ops_rename_waits_for_the_lock);
	suite_add_tcase(su, tc);

	tc = tcase_create("fields");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ops_thread_touch);
	tcase_add_test(tc, test_ops_touch_needs_git);
	tcase_add_test(tc, test_ops_touch_records_head);
	tcase_add_test(tc, test_ops_touch_threads_all_or_none);
	tcase_add_test(tc, test_ops_touch_stale);
	tcase_add_test(tc, test_ops_touch_stale_needs_head);
	tcase_add_test(tc, test_ops_set_status);
	tcase_add_test(tc, test_ops_reopen_merged);
	tcase_add_test(tc, test_ops_set_fields);
	tcase_add_test(tc, test_ops_write_summary);
	tcase_add_test(tc, test_ops_write_summary_empty);
	tcase_add_test(tc, test_ops_write_summary_expect_body);
	tcase_add_test(tc, test_ops_write_summary_append);
	tcase_add_test(tc, test_ops_use_project);
	suite_add_tcase(su, tc);
	return su;
}
