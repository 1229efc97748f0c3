/*
 * Unit tests of lib/app/hooks.c: the store as the hooks open it, the lock wait,
 * the branch-follow decision, the branchThreads record, the post-merge
 * checks, and the parse and application of git's rewrite list.
 */
#include "threadmind/hooks.h"
#include "threadmind/deadline.h"
#include "threadmind/error.h"
#include "threadmind/json.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* post-rewrite ids */
#define OLD1 "0123456789abcdef0123456789abcdef01234567"
#define NEW1 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define OLD2 "fedcba9876543210fedcba9876543210fedcba98"
#define NEW2 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static char *tmp;
static char *repo;
static tm_store *store;

static void setup(void)
{
	tmp = tmt_sandbox();
	repo = tmt_git_repo(tmp, "repo");
	tmt_sh("git -C '%s' commit -q --allow-empty -m first", repo);
	store = NULL;
	tm_deadline_clear(); /* no budget unless a test sets one */
}

static void teardown(void)
{
	tm_deadline_clear();
	tm_store_free(store);
	tmt_sandbox_end(tmp);
	free(repo);
	tmp = repo = NULL;
}

/* A store with project `app` in the repository, committed. */
static void init_store(void)
{
	ck_assert_int_eq(tm_store_init(&store, repo, "App", NULL), 0);
	tmt_sh("git -C '%s' add .threadmind && git -C '%s' commit -q -m store",
	       repo, repo);
}

/* Open the store again: the branch and the git config are read once. */
static void reopen(void)
{
	tm_store_free(store);
	store = NULL;
	ck_assert_int_eq(tm_store_open(&store, repo), 0);
}

static void new_thread(const char *title, const char *branch,
		       const char *commit)
{
	tm_new_thread_options o = TM_NEW_THREAD_OPTIONS_INIT;

	o.title = title;
	o.branch = branch;
	o.commit = commit;
	ck_assert_int_eq(tm_store_create_thread(NULL, store, "app", &o), 0);
}

/* Write .threadmind/REL. */
static void put(const char *rel, const char *data)
{
	tmt_put(tm_store_dir(store), rel, data);
}

/* config.json's string `key` (malloc'd, NULL when unset). */
static char *config_string(const char *key)
{
	tm_config *cfg = NULL;
	char *v;

	ck_assert_int_eq(tm_store_load_config(&cfg, store), 0);
	v = tm_xstrdup_or_null(tm_config_get_string(cfg, key));
	tm_config_free(cfg);
	return v;
}

/* branchThreads[app][branch] (malloc'd, NULL when unset). */
static char *branch_thread(const char *branch)
{
	tm_config *cfg = NULL;
	char *v;

	ck_assert_int_eq(tm_store_load_config(&cfg, store), 0);
	v = tm_xstrdup_or_null(tm_config_branch_thread(cfg, "app", branch));
	tm_config_free(cfg);
	return v;
}

static void set_active(const char *project, const char *thread)
{
	tm_config *cfg = NULL;

	ck_assert_int_eq(tm_store_load_config(&cfg, store), 0);
	tm_config_set_string(cfg, "activeProjectId", project);
	tm_config_set_string(cfg, "activeThreadId", thread);
	ck_assert_int_eq(tm_store_save_config(store, cfg), 0);
	tm_config_free(cfg);
}

static void assert_str(char *got, const char *want)
{
	if (want) {
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, want);
	} else {
		ck_assert_ptr_null(got);
	}
	free(got);
}

/* A spent budget: the deadline passed. */
static void spend(void)
{
	tm_deadline_set(-1.0);
}

/* ---- open and lock ---- */

START_TEST(test_hooks_open_as_git_sees_it)
{
	tm_store *s = (tm_store *)1;
	char *project = NULL, *sub = tmt_join(repo, "sub");

	/* no store at the root: nothing to do, no error */
	tmt_mkdirs(sub);
	ck_assert_int_eq(chdir(sub), 0);
	ck_assert_int_eq(tm_hook_open(&s, &project), 0);
	ck_assert_ptr_null(s);
	ck_assert_ptr_null(project);
	init_store();
	/* from a subfolder, as git runs hooks at the root anyway */
	ck_assert_int_eq(tm_hook_open(&s, &project), 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(project, "app");
	ck_assert_str_eq(tm_store_root(s), tm_store_root(store));
	tm_store_free(s);
	free(project);
	/* threadmind.hooks=false turns them off */
	tmt_sh("git -C '%s' config threadmind.hooks false", repo);
	ck_assert_int_eq(tm_hook_open(&s, &project), 0);
	ck_assert_ptr_null(s);
	ck_assert_ptr_null(project);
	free(sub);
}
END_TEST

START_TEST(test_hooks_open_outside_git_is_quiet)
{
	tm_store *s = NULL;
	char *project = NULL, *plain = tmt_join(tmp, "plain");

	tmt_mkdirs(plain);
	ck_assert_int_eq(chdir(plain), 0);
	setenv("GIT_CEILING_DIRECTORIES", tmp, 1);
	ck_assert_int_eq(tm_hook_open(&s, &project), 0);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(tm_error_last(), "");
	free(plain);
}
END_TEST

START_TEST(test_hooks_lock_wait_is_bounded)
{
	struct timespec t0, t1;
	double waited;

	init_store();
	put(".lock/busy", "x");
	tmt_sh("git -C '%s' config threadmind.lockTimeout 0.2", repo);
	reopen();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(tm_hook_lock(store), TM_ELOCKED);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* upper bounds far below the 15 s default and the 30 s asked for:
	 * wall time on a loaded CI machine drifts */
	ck_assert_msg(waited >= 0.15 && waited < 5 * tmt_time_scale(),
		      "waited %.2f s", waited);
	/* a longer timeout is cut to TM_HOOK_LOCK_WAIT_MAX (a fresh budget:
	 * on a loaded machine the setup may have spent half of it) */
	tmt_sh("git -C '%s' config threadmind.lockTimeout 30", repo);
	reopen();
	tm_deadline_set(TM_HOOK_BUDGET);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(tm_hook_lock(store), TM_ELOCKED);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(waited >= 0.9 && waited < 10 * tmt_time_scale(),
		      "waited %.2f s", waited);
	/* and never past the deadline, the hooks' one clock */
	tm_deadline_set(0.3);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(tm_hook_lock(store), TM_ELOCKED);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(waited < 0.8, "waited %.2f s", waited);
	tm_deadline_clear();
	/* free: taken at once */
	tmt_sh("rm -r '%s/.lock'", tm_store_dir(store));
	ck_assert_int_eq(tm_hook_lock(store), 0);
	ck_assert_int_eq(tm_store_unlock(store), 0);
}
END_TEST

/* ---- post-checkout: the branch-follow decision ---- */

START_TEST(test_hooks_follow_branch_switches)
{
	tm_hook_follow f;

	init_store();
	new_thread("Auth UI", "feat", NULL);
	/* main: recorded, nothing switched */
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	tm_hook_follow_clear(&f);
	tmt_sh("git -C '%s' checkout -q -b feat", repo);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_str_eq(f.id, "auth-ui");
	ck_assert_str_eq(f.title, "Auth UI");
	ck_assert(f.switched);
	tm_hook_follow_clear(&f);
	assert_str(config_string("activeThreadId"), "auth-ui");
	assert_str(branch_thread("feat"), "auth-ui");
	/* said and recorded: a second run writes nothing */
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_ptr_null(f.id);
	ck_assert(!f.switched);
	tm_hook_follow_clear(&f);
	/* back on main: main again */
	tmt_sh("git -C '%s' checkout -q main", repo);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_str_eq(f.id, "main");
	ck_assert(f.switched);
	tm_hook_follow_clear(&f);
	assert_str(config_string("activeThreadId"), "main");
}
END_TEST

START_TEST(test_hooks_follow_branch_records_without_switching)
{
	tm_hook_follow f;

	init_store();
	/* main is active but branchThreads has no entry for main */
	put("config.json", "{\"activeProjectId\": \"app\", "
			   "\"activeThreadId\": \"main\"}\n");
	assert_str(branch_thread("main"), NULL);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_str_eq(f.id, "main");
	ck_assert(!f.switched);
	tm_hook_follow_clear(&f);
	assert_str(branch_thread("main"), "main");
}
END_TEST

START_TEST(test_hooks_follow_branch_gives_up)
{
	tm_hook_follow f;

	init_store();
	new_thread("Auth UI", "feat", NULL);
	tmt_sh("git -C '%s' checkout -q -b feat", repo);
	reopen();
	/* past the budget: nothing written, no error */
	spend();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_ptr_null(f.id);
	tm_hook_follow_clear(&f);
	assert_str(config_string("activeThreadId"), "main");
	tm_deadline_clear();
	/* detached HEAD: no branch to follow */
	tmt_sh("git -C '%s' checkout -q --detach", repo);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_ptr_null(f.id);
	tm_hook_follow_clear(&f);
	/* a busy lock is an error, and nothing is written */
	tmt_sh("git -C '%s' checkout -q feat", repo);
	tmt_sh("git -C '%s' config threadmind.lockTimeout 0.1", repo);
	reopen();
	put(".lock/busy", "x");
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), TM_ELOCKED);
	ck_assert_ptr_null(f.id);
	ck_assert(!f.switched);
	tm_hook_follow_clear(&f);
	assert_str(config_string("activeThreadId"), "main");
}
END_TEST

/* ---- post-commit: branchThreads ---- */

START_TEST(test_hooks_record_branch_thread)
{
	bool recorded = false;

	init_store();
	new_thread("Auth UI", NULL, NULL);
	set_active("app", "auth-ui");
	reopen();
	ck_assert_int_eq(tm_hook_record_branch_thread(&recorded, store, "app"),
			 0);
	ck_assert(recorded);
	assert_str(branch_thread("main"), "auth-ui");
	/* already there: nothing written */
	ck_assert_int_eq(tm_hook_record_branch_thread(&recorded, store, "app"),
			 0);
	ck_assert(!recorded);
}
END_TEST

START_TEST(test_hooks_record_branch_thread_skips)
{
	bool recorded = true;

	init_store();
	new_thread("Auth UI", NULL, NULL);
	/* the active thread of another project */
	set_active("other", "auth-ui");
	ck_assert_int_eq(tm_hook_record_branch_thread(&recorded, store, "app"),
			 0);
	ck_assert(!recorded);
	/* an active thread whose file is gone */
	set_active("app", "gone");
	ck_assert_int_eq(tm_hook_record_branch_thread(&recorded, store, "app"),
			 0);
	ck_assert(!recorded);
	assert_str(branch_thread("main"), "main");
	/* past the budget before the lock: an error, nothing written */
	set_active("app", "auth-ui");
	spend();
	ck_assert_int_eq(tm_hook_record_branch_thread(&recorded, store, "app"),
			 TM_ELOCKED);
	ck_assert(!recorded);
	assert_str(branch_thread("main"), "main");
	tm_deadline_clear();
}
END_TEST

/* ---- post-merge: the tree check ---- */

START_TEST(test_hooks_merge_counts_like_doctor)
{
	tm_hook_merge m;

	init_store();
	reopen();
	ck_assert_int_eq(tm_hook_merge_check(&m, store, "app"), 0);
	ck_assert_uint_eq(m.problems, 0);
	ck_assert(!m.upgrade);
	tm_hook_merge_clear(&m);
	/* an orphan and an id mismatch */
	put("threads/app/lost.md",
	    "---\nid: lost\ntitle: Lost\nparentId: nowhere\n---\n");
	put("threads/app/renamed.md",
	    "---\nid: other\ntitle: Renamed\nparentId: main\n---\n");
	ck_assert_int_eq(tm_hook_merge_check(&m, store, "app"), 0);
	ck_assert_uint_eq(m.problems, 2);
	tm_hook_merge_clear(&m);
	/* a missing id field counts, as doctor reports it */
	put("threads/app/noid.md", "---\ntitle: No id\nparentId: main\n---\n");
	ck_assert_int_eq(tm_hook_merge_check(&m, store, "app"), 0);
	ck_assert_uint_eq(m.problems, 3);
	tm_hook_merge_clear(&m);
}
END_TEST

START_TEST(test_hooks_merge_unreadable_parent_counted_once)
{
	tm_hook_merge m;

	init_store();
	put("threads/app/broken.md", "---\nid: broken\ntitle: [\n");
	put("threads/app/kid.md",
	    "---\nid: kid\ntitle: Kid\nparentId: broken\n---\n");
	put("threads/app/Bad Name.md", "---\nid: x\n---\n");
	reopen();
	ck_assert_int_eq(tm_hook_merge_check(&m, store, "app"), 0);
	/* broken (unreadable) and the bad name; kid is no orphan */
	ck_assert_uint_eq(m.problems, 2);
	tm_hook_merge_clear(&m);
}
END_TEST

START_TEST(test_hooks_merge_upgrade_first)
{
	tm_hook_merge m;

	init_store();
	put("threads/app/lost.md",
	    "---\nid: lost\ntitle: Lost\nparentId: nowhere\n---\n");
	put("trees/app.json", "{\"main\": null}\n");
	ck_assert_int_eq(tm_hook_merge_check(&m, store, "app"), 0);
	ck_assert(m.upgrade);
	ck_assert_uint_eq(m.problems, 0);
	tm_hook_merge_clear(&m);
}
END_TEST

/* ---- post-rewrite ---- */

START_TEST(test_hooks_rewrites_parse)
{
	tm_hook_rewrites r;
	const char *in = OLD2 " " NEW2 "\n"
			      "garbage line\n" OLD1 " " NEW1 " extra\n"
			      "ABCDEF1111111111111111111111111111111111 " NEW1
			      "\n" OLD1 "\n"
			      "ffffffffffffffffffffffffffffffffffffffffffffff"
			      "ffffffffffffffffff "
			      "cccccccccccccccccccccccccccccccccccccccccccccc"
			      "cccccccccccccccccc";

	tm_hook_rewrites_parse(&r, in);
	/* sorted by old id, in lower case; one-word, bad and 64-digit
	 * lines skipped */
	ck_assert_uint_eq(r.n, 3);
	ck_assert_str_eq(r.items[0].old, OLD1);
	ck_assert_str_eq(r.items[0].new, NEW1);
	ck_assert_str_eq(r.items[1].old,
			 "abcdef1111111111111111111111111111111111");
	ck_assert_str_eq(r.items[2].old, OLD2);
	ck_assert_str_eq(r.items[2].new, NEW2);
	/* found whatever the case of the commit field */
	ck_assert_ptr_eq(tm_hook_rewrites_find(&r, OLD2), &r.items[2]);
	ck_assert_ptr_null(tm_hook_rewrites_find(
		&r, "ffffffffffffffffffffffffffffffffffffffff"
		    "ffffffffffffffffffffffff"));
	ck_assert_ptr_null(tm_hook_rewrites_find(&r, NEW1));
	ck_assert_ptr_null(tm_hook_rewrites_find(&r, NULL));
	tm_hook_rewrites_clear(&r);
	tm_hook_rewrites_parse(&r, OLD1 " " NEW1);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_ptr_nonnull(tm_hook_rewrites_find(
		&r, "0123456789ABCDEF0123456789ABCDEF01234567"));
	tm_hook_rewrites_clear(&r);
	tm_hook_rewrites_parse(&r, "");
	ck_assert_uint_eq(r.n, 0);
	ck_assert_ptr_null(tm_hook_rewrites_find(&r, OLD1));
	tm_hook_rewrites_clear(&r);
}
END_TEST

START_TEST(test_hooks_rewrites_find_ignores_case)
{
	tm_hook_rewrites r;

	tm_hook_rewrites_parse(
		&r, "abcdef1111111111111111111111111111111111 " NEW1 "\n");
	ck_assert_uint_eq(r.n, 1);
	ck_assert_ptr_nonnull(tm_hook_rewrites_find(
		&r, "ABCDEF1111111111111111111111111111111111"));
	tm_hook_rewrites_clear(&r);
}
END_TEST

/* The `commit` field of thread `id` (malloc'd). */
static char *commit_of(const char *id)
{
	tm_thread *t = NULL;
	char *c;

	ck_assert_int_eq(tm_store_load_thread(&t, store, "app", id), 0);
	c = tm_xstrdup_or_null(t->commit);
	tm_thread_free(t);
	return c;
}

START_TEST(test_hooks_rewrite_commits_suggests_touch)
{
	tm_hook_rewrite_result res;
	tm_hook_rewrites r;

	init_store();
	new_thread("Anchored", NULL, OLD1);
	new_thread("Other", NULL, OLD2);
	new_thread("Free", NULL, NULL);
	tm_hook_rewrites_parse(&r, OLD1 " " NEW1 "\n" OLD2 " " NEW2 "\n");
	reopen();
	ck_assert_int_eq(tm_hook_rewrite_commits(&res, store, "app", &r), 0);
	ck_assert(!res.rewrite);
	ck_assert_uint_eq(res.anchored.n, 2);
	ck_assert_str_eq(res.anchored.items[0], "anchored");
	ck_assert_str_eq(res.anchored.items[1], "other");
	ck_assert_uint_eq(res.rewritten.n, 0);
	assert_str(commit_of("anchored"), OLD1);
	tm_hook_rewrite_result_clear(&res);
	tm_hook_rewrites_clear(&r);
}
END_TEST

START_TEST(test_hooks_rewrite_commits_rewrites)
{
	tm_hook_rewrite_result res;
	tm_hook_rewrites r;
	char *before, *after, *path;

	init_store();
	new_thread("Anchored", NULL, OLD1);
	new_thread("Free", NULL, "cccccccccccccccccccccccccccccccccccccccc");
	tmt_sh("git -C '%s' config threadmind.rewriteCommits true", repo);
	tm_hook_rewrites_parse(&r, OLD1 " " NEW1 "\n");
	reopen();
	path = tmt_join(tm_store_dir(store), "threads/app/anchored.md");
	before = tmt_read_file(path, NULL);
	ck_assert_int_eq(tm_hook_rewrite_commits(&res, store, "app", &r), 0);
	ck_assert(res.rewrite);
	ck_assert_uint_eq(res.anchored.n, 1);
	ck_assert_uint_eq(res.rewritten.n, 1);
	ck_assert_str_eq(res.rewritten.items[0], "anchored");
	assert_str(commit_of("anchored"), NEW1);
	assert_str(commit_of("free"),
		   "cccccccccccccccccccccccccccccccccccccccc");
	/* only the commit line changed */
	after = tmt_read_file(path, NULL);
	ck_assert_ptr_nonnull(strstr(before, "commit: " OLD1 "\n"));
	memcpy(strstr(before, OLD1), NEW1, strlen(NEW1));
	ck_assert_str_eq(after, before);
	tm_hook_rewrite_result_clear(&res);
	/* already rewritten: nothing anchored any more */
	ck_assert_int_eq(tm_hook_rewrite_commits(&res, store, "app", &r), 0);
	ck_assert_uint_eq(res.anchored.n, 0);
	tm_hook_rewrite_result_clear(&res);
	tm_hook_rewrites_clear(&r);
	free(before);
	free(after);
	free(path);
}
END_TEST

START_TEST(test_hooks_rewrite_commits_lock_busy)
{
	tm_hook_rewrite_result res;
	tm_hook_rewrites r;

	init_store();
	new_thread("Anchored", NULL, OLD1);
	tmt_sh("git -C '%s' config threadmind.rewriteCommits true && "
	       "git -C '%s' config threadmind.lockTimeout 0.1",
	       repo, repo);
	tm_hook_rewrites_parse(&r, OLD1 " " NEW1 "\n");
	reopen();
	put(".lock/busy", "x");
	ck_assert_int_eq(tm_hook_rewrite_commits(&res, store, "app", &r),
			 TM_ELOCKED);
	ck_assert_uint_eq(res.rewritten.n, 0);
	assert_str(commit_of("anchored"), OLD1);
	tm_hook_rewrite_result_clear(&res);
	tm_hook_rewrites_clear(&r);
}
END_TEST

/* ---- the off note, the checkout's additions ---- */

START_TEST(test_hooks_open_keeps_the_off_note)
{
	tm_store *s = NULL;
	char *project = NULL;
	char *note = tmt_join(repo, ".git/" TM_HOOK_OFF_NOTE);

	init_store();
	ck_assert_int_eq(chdir(repo), 0);
	tmt_sh("git -C '%s' config threadmind.hooks false", repo);
	ck_assert_int_eq(tm_hook_open(&s, &project), 0);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(access(note, F_OK), 0);
	/* `git -c` says nothing of the files: the note stays */
	setenv("GIT_CONFIG_PARAMETERS", "'threadmind.hooks'='true'", 1);
	ck_assert_int_eq(tm_hook_open(&s, &project), 0);
	ck_assert_ptr_nonnull(s);
	tm_store_free(s);
	free(project);
	ck_assert_int_eq(access(note, F_OK), 0);
	unsetenv("GIT_CONFIG_PARAMETERS");
	tmt_sh("git -C '%s' config threadmind.hooks true", repo);
	ck_assert_int_eq(tm_hook_open(&s, &project), 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(access(note, F_OK), -1);
	tm_store_free(s);
	free(project);
	/* no project wanted: a store with several and none active opens */
	ck_assert_int_eq(
		tm_store_create_project(&project, store, "Other", NULL), 0);
	free(project);
	project = NULL;
	put("config.json", "{}\n");
	ck_assert_int_eq(tm_hook_open(&s, &project), 0);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(tm_hook_open(&s, NULL), 0);
	ck_assert_ptr_nonnull(s);
	tm_store_free(s);
	free(note);
}
END_TEST

START_TEST(test_hooks_follow_branch_renamed)
{
	tm_hook_follow f;

	init_store();
	new_thread("Coupons", NULL, NULL);
	tmt_sh("git -C '%s' checkout -q -b feature/coupons", repo);
	reopen();
	ck_assert_int_eq(tm_store_set_active(store, "app", "coupons"), 0);
	tmt_sh("git -C '%s' checkout -q main", repo);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	tm_hook_follow_clear(&f);
	assert_str(config_string("activeThreadId"), "main");
	tmt_sh("git -C '%s' branch -m feature/coupons feature/deals && "
	       "git -C '%s' checkout -q feature/deals",
	       repo, repo);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_str_eq(f.id, "coupons");
	ck_assert(f.switched);
	ck_assert_str_eq(f.renamed_from, "feature/coupons");
	tm_hook_follow_clear(&f);
	assert_str(branch_thread("feature/deals"), "coupons");
	assert_str(branch_thread("feature/coupons"), NULL);
	/* the old name taken again by a new branch: not followed */
	tmt_sh("git -C '%s' checkout -q main && "
	       "git -C '%s' branch -m feature/deals sale && "
	       "git -C '%s' branch feature/deals && "
	       "git -C '%s' checkout -q sale",
	       repo, repo, repo, repo);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_ptr_null(f.renamed_from);
	tm_hook_follow_clear(&f);
	assert_str(config_string("activeThreadId"), "main");
	assert_str(branch_thread("feature/deals"), "coupons");
}
END_TEST

START_TEST(test_hooks_follow_branch_keeps_the_shown_thread)
{
	tm_hook_follow f;
	tm_config *cfg = NULL;
	char *shown = NULL, *path;

	init_store();
	/* a fresh clone: no config.json, a thread whose branch is main */
	new_thread("Cart", "main", NULL);
	path = tmt_join(tm_store_dir(store), "config.json");
	ck_assert_int_eq(unlink(path), 0);
	free(path);
	reopen();
	ck_assert_int_eq(tm_store_load_config(&cfg, store), 0);
	ck_assert_int_eq(
		tm_store_active_thread(&shown, store, "app", cfg, NULL, 0), 0);
	ck_assert_str_eq(shown, "cart");
	free(shown);
	tm_config_free(cfg);
	tmt_sh("git -C '%s' checkout -q -b topic", repo);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_str_eq(f.id, "cart");
	ck_assert(!f.switched); /* what status showed: nothing to say */
	tm_hook_follow_clear(&f);
	assert_str(config_string("activeThreadId"), "cart");
	assert_str(branch_thread("topic"), "cart");
	/* from a detached HEAD: activeThreadId, as before */
	ck_assert_int_eq(tm_store_set_active(store, "app", "main"), 0);
	tmt_sh("git -C '%s' checkout -q --detach && "
	       "git -C '%s' checkout -q -b other",
	       repo, repo);
	reopen();
	ck_assert_int_eq(tm_hook_follow_branch(&f, store, "app"), 0);
	ck_assert_str_eq(f.id, "main");
	tm_hook_follow_clear(&f);
}
END_TEST

/* ---- post-commit, post-rewrite: replayed commits ---- */

/* Commit every change in the repository; its id (malloc'd). */
static char *commit_all(const char *msg)
{
	char *id;
	size_t n;

	tmt_sh("git -C '%s' add -A && git -C '%s' commit -q -m '%s'", repo,
	       repo, msg);
	id = tmt_sh_out("git -C '%s' rev-parse HEAD", repo);
	n = strlen(id);
	while (n && id[n - 1] == '\n')
		id[--n] = '\0';
	return id;
}

START_TEST(test_hooks_replaying)
{
	init_store();
	reopen();
	ck_assert(!tm_hook_replaying(store));
	tmt_sh("mkdir '%s/.git/rebase-merge'", repo);
	ck_assert(tm_hook_replaying(store));
}
END_TEST

START_TEST(test_hooks_rewrite_touches)
{
	tm_hook_rewrites r;
	tm_strv ids = TM_STRV_INIT;
	tm_buf list = TM_BUF_INIT;
	char *c1, *c2, *c3, *c4;

	init_store();
	/* with summaries: a blank one is never outdated */
	put("threads/app/core.md", "---\nid: core\ntitle: Core\nparentId: "
				   "main\npaths: [\"src/a.c\"]\n---\n\nS.\n");
	put("threads/app/lib.md", "---\nid: lib\ntitle: Lib\nparentId: "
				  "main\npaths: [\"src/b.c\"]\n---\n\nS.\n");
	put("threads/app/done.md", "---\nid: done\ntitle: Done\nparentId: "
				   "main\nstatus: done\npaths: "
				   "[\"src/a.c\"]\n---\n");
	tmt_sh("mkdir -p '%s/src' && echo a >'%s/src/a.c' && "
	       "echo b >'%s/src/b.c'",
	       repo, repo, repo);
	free(commit_all("threads"));
	tmt_sh("echo 1 >>'%s/src/a.c'", repo);
	c1 = commit_all("a1");
	tmt_sh("echo 2 >>'%s/src/a.c'", repo);
	c2 = commit_all("a2");
	/* changes lib's paths and lib's file: covered */
	tmt_sh("echo 3 >>'%s/src/b.c' && echo >>'%s/.threadmind/threads/app/"
	       "lib.md'",
	       repo, repo);
	c3 = commit_all("b-covered");
	tmt_sh("echo 4 >>'%s/README.md'", repo);
	c4 = commit_all("readme");
	tm_buf_printf(&list, "%s %s\n%s %s\n%s %s\n%s %s\n", OLD1, c1, OLD2, c2,
		      NEW1, c3, NEW2, c4);
	tm_hook_rewrites_parse(&r, tm_buf_cstr(&list));
	reopen();
	ck_assert_int_eq(tm_hook_rewrite_touches(&ids, store, "app", &r), 0);
	ck_assert_uint_eq(ids.n, 1);
	ck_assert_str_eq(ids.items[0], "core");
	tm_strv_clear(&ids);
	tm_hook_rewrites_clear(&r);
	/* a new commit the repository lacks is skipped; past the budget,
	 * nothing */
	tm_buf_clear(&list);
	tm_buf_printf(&list, "%s %s\n%s %s\n", OLD1,
		      "cccccccccccccccccccccccccccccccccccccccc", OLD2, c2);
	tm_hook_rewrites_parse(&r, tm_buf_cstr(&list));
	ck_assert_int_eq(tm_hook_rewrite_touches(&ids, store, "app", &r), 0);
	ck_assert_uint_eq(ids.n, 1);
	tm_strv_clear(&ids);
	spend();
	ck_assert_int_eq(tm_hook_rewrite_touches(&ids, store, "app", &r), 0);
	ck_assert_uint_eq(ids.n, 0);
	tm_hook_rewrites_clear(&r);
	tm_buf_release(&list);
	free(c1);
	free(c2);
	free(c3);
	free(c4);
}
END_TEST

/* ---- pre-commit ---- */

START_TEST(test_hooks_staged_markers)
{
	static const char *const marked =
		"---\nid: auth\n<<<<<<< ours\ntitle: A\n=======\ntitle: "
		"B\n>>>>>>> theirs\nparentId: main\n---\n";
	tm_strv files = TM_STRV_INIT;

	init_store();
	new_thread("Auth", NULL, NULL);
	new_thread("Notes", NULL, NULL);
	free(commit_all("threads"));
	reopen();
	ck_assert_int_eq(tm_hook_staged_markers(&files, store), 0);
	ck_assert_uint_eq(files.n, 0);
	/* in the work tree only: not staged, not looked at */
	put("threads/app/auth.md", marked);
	ck_assert_int_eq(tm_hook_staged_markers(&files, store), 0);
	ck_assert_uint_eq(files.n, 0);
	tmt_sh("git -C '%s' add .threadmind", repo);
	put("threads/app/notes.md",
	    "---\nid: notes\ntitle: N\nparentId: main\n---\n"
	    "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n");
	put("projects/app.json", "{\n<<<<<<< ours\n=======\n>>>>>>> x\n}\n");
	tmt_sh("git -C '%s' add .threadmind", repo);
	reopen();
	ck_assert_int_eq(tm_hook_staged_markers(&files, store), 0);
	ck_assert_uint_eq(files.n, 2);
	ck_assert_str_eq(files.items[0], ".threadmind/projects/app.json");
	ck_assert_str_eq(files.items[1], ".threadmind/threads/app/auth.md");
	tm_strv_clear(&files);
	/* committed as they are: a later commit of something else passes */
	free(commit_all("marked"));
	tmt_sh("echo x >>'%s/README.md' && git -C '%s' add README.md", repo,
	       repo);
	ck_assert_int_eq(tm_hook_staged_markers(&files, store), 0);
	ck_assert_uint_eq(files.n, 0);
	/* deleted: nothing to refuse */
	tmt_sh("git -C '%s' rm -q .threadmind/threads/app/auth.md", repo);
	ck_assert_int_eq(tm_hook_staged_markers(&files, store), 0);
	ck_assert_uint_eq(files.n, 0);
	spend();
	put("threads/app/notes.md", marked);
	tmt_sh("git -C '%s' add .threadmind", repo);
	ck_assert_int_eq(tm_hook_staged_markers(&files, store), 0);
	ck_assert_uint_eq(files.n, 0);
}
END_TEST

Suite *hooks_suite(void)
{
	Suite *s = suite_create("hooks");
	TCase *tc = tcase_create("open-and-lock");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_hooks_open_as_git_sees_it);
	tcase_add_test(tc, test_hooks_open_outside_git_is_quiet);
	tcase_add_test(tc, test_hooks_open_keeps_the_off_note);
	tcase_add_test(tc, test_hooks_lock_wait_is_bounded);
	suite_add_tcase(s, tc);

	tc = tcase_create("post-checkout");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_hooks_follow_branch_switches);
	tcase_add_test(tc, test_hooks_follow_branch_records_without_switching);
	tcase_add_test(tc, test_hooks_follow_branch_gives_up);
	tcase_add_test(tc, test_hooks_follow_branch_renamed);
	tcase_add_test(tc, test_hooks_follow_branch_keeps_the_shown_thread);
	suite_add_tcase(s, tc);

	tc = tcase_create("post-commit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_hooks_record_branch_thread);
	tcase_add_test(tc, test_hooks_record_branch_thread_skips);
	tcase_add_test(tc, test_hooks_replaying);
	suite_add_tcase(s, tc);

	tc = tcase_create("post-merge");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_hooks_merge_counts_like_doctor);
	tcase_add_test(tc, test_hooks_merge_unreadable_parent_counted_once);
	tcase_add_test(tc, test_hooks_merge_upgrade_first);
	suite_add_tcase(s, tc);

	tc = tcase_create("post-rewrite");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_hooks_rewrites_parse);
	tcase_add_test(tc, test_hooks_rewrites_find_ignores_case);
	tcase_add_test(tc, test_hooks_rewrite_commits_suggests_touch);
	tcase_add_test(tc, test_hooks_rewrite_commits_rewrites);
	tcase_add_test(tc, test_hooks_rewrite_commits_lock_busy);
	tcase_add_test(tc, test_hooks_rewrite_touches);
	suite_add_tcase(s, tc);

	tc = tcase_create("pre-commit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_hooks_staged_markers);
	suite_add_tcase(s, tc);
	return s;
}
