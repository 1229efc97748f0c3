/* Unit tests of lib/store/store.c: discovery, init, load/save, create, active.
 */
#include "threadmind/store.h"
#include "threadmind/resolve.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "threadmind/fs.h"
#include "store_internal.h"
#include "test_util.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;

static void setup(void)
{
	tmp = tmt_sandbox();
}

static void teardown(void)
{
	tmt_sandbox_end(tmp);
	tmp = NULL;
}

/* A copy of the seed example store in tmp/repo (not a git repo). */
static char *seed_repo(void)
{
	char *repo = tmt_join(tmp, "repo");
	char *src = tmt_resource("seed-example");

	tmt_mkdirs(repo);
	tmt_sh("cp -R '%s/.threadmind' '%s/'", src, repo);
	free(src);
	return repo;
}

static tm_store *open_seed(void)
{
	char *repo = seed_repo();
	tm_store *s = NULL;

	ck_assert_int_eq(tm_store_open(&s, repo), 0);
	free(repo);
	return s;
}

static char *store_file(tm_store *s, const char *rel)
{
	return tmt_join(tm_store_dir(s), rel);
}

START_TEST(test_store_discover_from_subfolder)
{
	char *repo = seed_repo(), *sub = tmt_join(repo, "a/b/c");
	tm_store *s = NULL;

	tmt_mkdirs(sub);
	ck_assert_int_eq(tm_store_discover(&s, sub), 0);
	ck_assert_str_eq(tm_store_root(s), repo);
	tm_store_free(s);
	free(sub);
	free(repo);
}
END_TEST

START_TEST(test_store_discover_stops_at_git_root)
{
	char *repo = seed_repo(), *inner = tmt_join(repo, "inner");
	char *dotgit = tmt_join(inner, ".git");
	tm_store *s = NULL;

	/* A worktree nested in the seed folder: its own root stops the walk */
	tmt_mkdirs(dotgit);
	ck_assert_int_eq(tm_store_discover(&s, inner), TM_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "git threadmind init"));
	ck_assert_ptr_null(s);
	free(dotgit);
	free(inner);
	free(repo);
}
END_TEST

START_TEST(test_store_discover_refuses_symlink)
{
	char *repo = tmt_join(tmp, "evil"), *target = tmt_join(tmp, "outside");
	char *link = tmt_join(repo, ".threadmind");
	tm_store *s = NULL;

	tmt_mkdirs(repo);
	tmt_mkdirs(target);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(tm_store_discover(&s, repo), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "symbolic link"));
	free(link);
	free(target);
	free(repo);
}
END_TEST

START_TEST(test_store_init_creates_layout)
{
	char *repo = tmt_join(tmp, "My Project"), *p;
	char *data;
	tm_store *s = NULL;
	tm_config *cfg = NULL;
	tm_thread *main_t = NULL;

	tmt_mkdirs(repo);
	ck_assert_int_eq(tm_store_init(&s, repo, NULL, NULL), 0);
	p = store_file(s, ".gitignore");
	data = tmt_read_file(p, NULL);
	ck_assert_str_eq(data, "config.json\n.lock\n*.tmp\n");
	free(data);
	free(p);
	p = store_file(s, "projects/my-project.json");
	data = tmt_read_file(p, NULL);
	ck_assert_str_eq(data, "{\n  \"id\": \"my-project\",\n"
			       "  \"title\": \"My Project\",\n"
			       "  \"systemContext\": \"\",\n"
			       "  \"mode\": \"solo\",\n"
			       "  \"rootThreadId\": \"main\"\n}\n");
	free(data);
	free(p);
	ck_assert_int_eq(tm_store_load_thread(&main_t, s, "my-project", "main"),
			 0);
	ck_assert_str_eq(main_t->title, "Main");
	ck_assert_ptr_null(main_t->parent_id);
	ck_assert_str_eq(main_t->created_at, main_t->updated_at);
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_str_eq(tm_config_get_string(cfg, "activeProjectId"),
			 "my-project");
	ck_assert_str_eq(tm_config_get_string(cfg, "activeThreadId"), "main");
	/* No git user configured: "user-" + hash of the empty string. */
	ck_assert_str_eq(tm_config_get_string(cfg, "author"), "user-e69d");
	ck_assert_str_eq(main_t->author, "user-e69d");
	tm_config_free(cfg);
	tm_thread_free(main_t);
	tm_store_free(s);
	free(repo);
}
END_TEST

START_TEST(test_store_init_refuses_to_clobber)
{
	char *repo = seed_repo(), *p;
	char *before, *after;
	tm_store *s = NULL;

	p = tmt_join(repo, ".threadmind/projects/mon-app.json");
	before = tmt_read_file(p, NULL);
	ck_assert_int_eq(tm_store_init(&s, repo, "Other", NULL), TM_EEXISTS);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "already exists"));
	after = tmt_read_file(p, NULL);
	ck_assert_str_eq(before, after);
	ck_assert_ptr_null(s);
	free(before);
	free(after);
	free(p);
	free(repo);
}
END_TEST

START_TEST(test_store_init_in_git_records_branch)
{
	char *repo = tmt_git_repo(tmp, "gitrepo");
	tm_store *s = NULL;
	tm_config *cfg = NULL;

	tmt_sh("git -C '%s' symbolic-ref HEAD refs/heads/work && "
	       "git -C '%s' config user.name Mahmoud",
	       repo, repo);
	ck_assert_int_eq(tm_store_init(&s, repo, "Mon App", "team"), 0);
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_str_eq(tm_config_branch_thread(cfg, "mon-app", "work"),
			 "main");
	ck_assert_str_eq(tm_store_branch(s), "work");
	ck_assert_ptr_null(tm_store_head(s));
	ck_assert_int_eq(
		strncmp(tm_config_get_string(cfg, "author"), "mahmoud-", 8), 0);
	tm_config_free(cfg);
	tm_store_free(s);
	free(repo);
}
END_TEST

START_TEST(test_store_init_rejects_bad_mode)
{
	char *repo = tmt_join(tmp, "r"), *dir = tmt_join(repo, ".threadmind");
	struct stat st;

	tmt_mkdirs(repo);
	ck_assert_int_eq(tm_store_init(NULL, repo, NULL, "duo"), TM_EINVALID);
	ck_assert_int_ne(lstat(dir, &st), 0);
	free(dir);
	free(repo);
}
END_TEST

START_TEST(test_store_lists_seed)
{
	tm_store *s = open_seed();
	tm_strv ids = TM_STRV_INIT;

	ck_assert_int_eq(tm_store_list_projects(&ids, s), 0);
	ck_assert_uint_eq(ids.n, 1);
	ck_assert_str_eq(ids.items[0], "mon-app");
	tm_strv_clear(&ids);
	ck_assert_int_eq(tm_store_list_threads(&ids, NULL, s, "mon-app"), 0);
	ck_assert_uint_eq(ids.n, 3);
	ck_assert_str_eq(ids.items[0], "auth");
	ck_assert_str_eq(ids.items[1], "auth-ui");
	ck_assert_str_eq(ids.items[2], "main");
	tm_strv_clear(&ids);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_save_unchanged_is_identical)
{
	tm_store *s = open_seed();
	tm_thread *t = NULL;
	char *p = store_file(s, "threads/mon-app/auth-ui.md");
	char *before = tmt_read_file(p, NULL), *after;

	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth-ui"), 0);
	ck_assert_str_eq(t->parent_id, "auth");
	ck_assert_int_eq(tm_store_save_thread(s, "mon-app", t), 0);
	after = tmt_read_file(p, NULL);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(p);
	tm_thread_free(t);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_refuses_bad_ids_before_paths)
{
	tm_store *s = open_seed();
	tm_thread *t = NULL;

	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "../x"),
			 TM_EINVALID);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "../mon-app", "main"),
			 TM_EINVALID);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "Main"),
			 TM_EINVALID);
	ck_assert_int_eq(tm_store_delete_thread(s, "mon-app", "a/b"),
			 TM_EINVALID);
	ck_assert_ptr_null(t);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_load_missing_thread)
{
	tm_store *s = open_seed();
	tm_thread *t = NULL;

	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "nope"),
			 TM_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "nope"));
	ck_assert(!tm_store_thread_exists(s, "mon-app", "nope"));
	ck_assert(tm_store_thread_exists(s, "mon-app", "auth"));
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_load_all_reports_unreadable)
{
	tm_store *s = open_seed();
	tm_thread_list all;
	char *bad = store_file(s, "threads/mon-app/broken.md");
	char *badname = store_file(s, "threads/mon-app/Bad_Name.md");
	char *link = store_file(s, "threads/mon-app/link.md");
	char *big = store_file(s, "threads/mon-app/big.md");
	char *bigdata = malloc(1024 * 1024 + 10);

	tmt_write_file(bad, "no frontmatter\n", 15);
	tmt_write_file(badname, "---\nid: x\n---\n", 14);
	ck_assert_int_eq(symlink("/etc/passwd", link), 0);
	memset(bigdata, 'x', 1024 * 1024 + 10);
	memcpy(bigdata, "---\nid: big\n---\n", 16);
	tmt_write_file(big, bigdata, 1024 * 1024 + 10);
	ck_assert_int_eq(tm_store_load_all(&all, s, "mon-app"), 0);
	ck_assert_uint_eq(all.n, 3);
	ck_assert_uint_eq(all.errors.n, 4);
	ck_assert_ptr_nonnull(strstr(all.errors.items[0], "Bad_Name.md"));
	tm_thread_list_clear(&all);
	free(bigdata);
	free(big);
	free(link);
	free(badname);
	free(bad);
	tm_store_free(s);
}
END_TEST

/* load_all notes the files with conflict markers, parsed or not, as
 * tm_resolve_pending finds them reading the files again. */
START_TEST(test_store_load_all_notes_conflict_markers)
{
	static const char body[] = "---\nid: cbody\ntitle: B\n---\n\n"
				   "<<<<<<< ours\na\n=======\nb\n"
				   ">>>>>>> theirs\n";
	static const char head[] = "---\nid: chead\n<<<<<<< ours\n"
				   "title: A\n=======\ntitle: B\n"
				   ">>>>>>> theirs\n---\n";
	static const char fenced[] = "---\nid: fenced\ntitle: F\n---\n\n"
				     "```\n<<<<<<< ours\n>>>>>>> theirs\n"
				     "```\n";
	tm_store *s = open_seed();
	tm_strv unmerged = TM_STRV_INIT, marked = TM_STRV_INIT;
	tm_thread_list all;
	char *p;
	size_t i;

	p = store_file(s, "threads/mon-app/cbody.md");
	tmt_write_file(p, body, strlen(body));
	free(p);
	p = store_file(s, "threads/mon-app/chead.md");
	tmt_write_file(p, head, strlen(head));
	free(p);
	p = store_file(s, "threads/mon-app/fenced.md");
	tmt_write_file(p, fenced, strlen(fenced));
	free(p);
	ck_assert_int_eq(tm_store_load_all(&all, s, "mon-app"), 0);
	ck_assert_uint_eq(all.marked.n, 2);
	ck_assert_str_eq(all.marked.items[0],
			 ".threadmind/threads/mon-app/cbody.md");
	ck_assert_str_eq(all.marked.items[1],
			 ".threadmind/threads/mon-app/chead.md");
	ck_assert_int_eq(tm_resolve_pending(&unmerged, &marked, s), 0);
	ck_assert_uint_eq(marked.n, all.marked.n);
	for (i = 0; i < marked.n; i++)
		ck_assert_str_eq(marked.items[i], all.marked.items[i]);
	tm_thread_list_clear(&all);
	ck_assert_uint_eq(all.marked.n, 0);
	tm_strv_clear(&unmerged);
	tm_strv_clear(&marked);
	tm_store_free(s);
}
END_TEST

/* The same list, whatever the threads that read it: the threads, the
 * errors and their files, the files with markers, all in the ids' order. */
static void assert_same_list(const tm_thread_list *a, const tm_thread_list *b)
{
	size_t i;

	ck_assert_uint_eq(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		ck_assert_str_eq(a->threads[i]->id, b->threads[i]->id);
		ck_assert_str_eq(a->threads[i]->title, b->threads[i]->title);
	}
	ck_assert_uint_eq(a->errors.n, b->errors.n);
	ck_assert_uint_eq(a->error_paths.n, a->errors.n);
	ck_assert_uint_eq(b->error_paths.n, b->errors.n);
	for (i = 0; i < a->errors.n; i++) {
		ck_assert_str_eq(a->errors.items[i], b->errors.items[i]);
		ck_assert_str_eq(a->error_paths.items[i],
				 b->error_paths.items[i]);
	}
	ck_assert_uint_eq(a->marked.n, b->marked.n);
	for (i = 0; i < a->marked.n; i++)
		ck_assert_str_eq(a->marked.items[i], b->marked.items[i]);
}

/* A store of 600 files, some unreadable or with conflict markers, read on
 * one thread and on several: the same list. */
START_TEST(test_store_load_all_threads_like_one)
{
	static const unsigned threads[] = {2, 3, 8};
	tm_store *s = open_seed();
	tm_thread_list one, many;
	tm_buf b = TM_BUF_INIT;
	char *p;
	size_t i, k;

	for (i = 0; i < 600; i++) {
		tm_buf_clear(&b);
		tm_buf_printf(&b, "threads/mon-app/t%03zu.md", i);
		p = store_file(s, tm_buf_cstr(&b));
		tm_buf_clear(&b);
		if (i % 7 == 3)
			tm_buf_puts(&b, "no frontmatter\n");
		else if (i % 11 == 5)
			tm_buf_printf(&b,
				      "---\nid: t%03zu\ntitle: T%zu\n---\n\n"
				      "<<<<<<< ours\na\n=======\nb\n"
				      ">>>>>>> theirs\n",
				      i, i);
		else if (i % 13 == 6)
			tm_buf_printf(&b,
				      "---\nid: t%03zu\n<<<<<<< ours\n"
				      "title: A\n=======\ntitle: B\n"
				      ">>>>>>> theirs\n---\n",
				      i);
		else
			tm_buf_printf(&b,
				      "---\nid: t%03zu\ntitle: Thread %zu\n"
				      "parentId: main\n---\n\nbody %zu\n",
				      i, i, i);
		tmt_write_file(p, b.ptr, b.size);
		free(p);
	}
	p = store_file(s, "threads/mon-app/t999.md");
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	free(p);
	tm_store__load_threads(1);
	ck_assert_int_eq(tm_store_load_all(&one, s, "mon-app"), 0);
	ck_assert_uint_gt(one.n, 400);
	ck_assert_uint_gt(one.errors.n, 90);
	ck_assert_uint_gt(one.marked.n, 40);
	for (k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
		tm_store__load_threads(threads[k]);
		ck_assert_int_eq(tm_store_load_all(&many, s, "mon-app"), 0);
		assert_same_list(&one, &many);
		tm_thread_list_clear(&many);
	}
	tm_store__load_threads(0);
	tm_thread_list_clear(&one);
	tm_buf_release(&b);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_create_thread_slug_and_collisions)
{
	tm_store *s = open_seed();
	tm_new_thread_options o = TM_NEW_THREAD_OPTIONS_INIT;
	tm_strv paths = TM_STRV_INIT;
	tm_thread *t = NULL, *back = NULL;

	o.title = "Auth UI";
	o.parent = "auth";
	tm_strv_push(&paths, "src/auth");
	o.paths = &paths;
	o.branch = "feature/x";
	ck_assert_int_eq(tm_store_create_thread(&t, s, "mon-app", &o), 0);
	ck_assert_str_eq(t->id, "auth-ui-2");
	ck_assert_str_eq(t->author, "mahmoud-a3f9"); /* from config.json */
	ck_assert_str_eq(t->created_at, t->updated_at);
	ck_assert_int_eq(tm_store_load_thread(&back, s, "mon-app", "auth-ui-2"),
			 0);
	ck_assert_str_eq(back->title, "Auth UI");
	ck_assert_str_eq(back->parent_id, "auth");
	ck_assert_str_eq(back->branch, "feature/x");
	ck_assert_uint_eq(back->paths.n, 1);
	tm_thread_free(t);
	tm_thread_free(back);
	t = NULL;
	o.title = "Main";
	o.paths = NULL;
	ck_assert_int_eq(tm_store_create_thread(&t, s, "mon-app", &o), 0);
	ck_assert_str_eq(t->id, "main-2");
	tm_thread_free(t);
	t = NULL;
	o.title = "认证模块";
	ck_assert_int_eq(tm_store_create_thread(&t, s, "mon-app", &o), 0);
	ck_assert_str_eq(t->id, "thread");
	tm_thread_free(t);
	tm_strv_clear(&paths);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_create_thread_missing_parent)
{
	tm_store *s = open_seed();
	tm_new_thread_options o = TM_NEW_THREAD_OPTIONS_INIT;
	tm_strv ids = TM_STRV_INIT;

	o.title = "X";
	o.parent = "ghost";
	ck_assert_int_eq(tm_store_create_thread(NULL, s, "mon-app", &o),
			 TM_ENOTFOUND);
	ck_assert_int_eq(tm_store_list_threads(&ids, NULL, s, "mon-app"), 0);
	ck_assert_uint_eq(ids.n, 3);
	tm_strv_clear(&ids);
	tm_store_free(s);
}
END_TEST

/* A refresh hook: another process takes the lock over. */
static void take_over(tm_store *st, void *payload)
{
	(void)payload;
	tmt_take_over_lock(tm_store_dir(st));
}

START_TEST(test_store_create_thread_stops_when_lock_taken_over)
{
	tm_store *s = open_seed();
	tm_new_thread_options o = TM_NEW_THREAD_OPTIONS_INIT;
	tm_thread *t = NULL;
	char *cfg = store_file(s, "config.json"),
	     *path = store_file(s, ".lock");
	char *lock;

	/* no author yet: config.json is written first, then the thread */
	tmt_write_file(cfg, "{\"version\": 1}\n", 15);
	o.title = "New";
	tm_store__set_refresh_hook(take_over, NULL, true);
	ck_assert_int_eq(tm_store_create_thread(&t, s, "mon-app", &o),
			 TM_ELOCKED);
	tm_store__set_refresh_hook(NULL, NULL, false);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "lost the lock"));
	ck_assert_ptr_null(t);
	ck_assert(!tm_store_thread_exists(s, "mon-app", "new"));
	/* the other process's lock file stays */
	lock = tmt_read_file(path, NULL);
	ck_assert_str_eq(lock, "{\"pid\":1}\n");
	free(lock);
	free(path);
	free(cfg);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_config_missing_gives_defaults)
{
	tm_store *s = open_seed();
	char *p = store_file(s, "config.json");
	tm_config *cfg = NULL;

	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_ptr_null(tm_config_get_string(cfg, "activeThreadId"));
	ck_assert_int_eq(tm_config_version(cfg), 1);
	tm_config_free(cfg);
	free(p);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_corrupt_config_is_never_overwritten)
{
	tm_store *s = open_seed();
	char *p = store_file(s, "config.json"), *after;
	static const char corrupt[] = "{\n  \"activeThreadId\": \"x\",\n}\n";
	tm_config *cfg = NULL;

	tmt_write_file(p, corrupt, strlen(corrupt));
	ck_assert_int_eq(tm_store_load_config(&cfg, s), TM_EPARSE);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "config.json"));
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "line 3"));
	ck_assert_int_eq(tm_store_set_active(s, "mon-app", "auth"), TM_EPARSE);
	after = tmt_read_file(p, NULL);
	ck_assert_str_eq(after, corrupt);
	free(after);
	free(p);
	tm_store_free(s);
}
END_TEST

static int config_warnings;

static void count_config_warning(const char *msg, void *payload)
{
	ck_assert_ptr_nonnull(strstr(msg, "config.json"));
	ck_assert_ptr_nonnull(strstr(msg, "doctor --fix"));
	(void)payload;
	config_warnings++;
}

START_TEST(test_store_corrupt_config_fallback_for_readers)
{
	tm_store *s = open_seed();
	char *p = store_file(s, "config.json"), *after, *current = NULL;
	static const char corrupt[] = "{\"activeProjectId\": oops";
	tm_config *cfg = NULL;

	tmt_write_file(p, corrupt, strlen(corrupt));
	config_warnings = 0;
	tm_store_config_fallback(s, count_config_warning, NULL);
	/* A reader gets the defaults, with one warning for the process. */
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_ptr_null(tm_config_get_string(cfg, "activeProjectId"));
	tm_config_free(cfg);
	ck_assert_int_eq(tm_store_current_project(&current, s, NULL), 0);
	ck_assert_str_eq(current, "mon-app");
	free(current);
	ck_assert_int_eq(config_warnings, 1);
	/* The strict reader still sees the error. */
	ck_assert_int_eq(tm_store_load_config_strict(&cfg, s), TM_EPARSE);
	/* A writer still stops before writing anything. */
	ck_assert_int_eq(tm_store_set_active(s, "mon-app", "auth"), TM_EPARSE);
	ck_assert_int_eq(tm_store_lock(s), 0);
	cfg = tm_config_new();
	ck_assert_int_eq(tm_store_save_config(s, cfg), TM_EPARSE);
	tm_config_free(cfg);
	ck_assert_int_eq(tm_store_unlock(s), 0);
	after = tmt_read_file(p, NULL);
	ck_assert_str_eq(after, corrupt);
	free(after);
	/* A symbolic link is not followed: defaults too. */
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	tm_config_free(cfg);
	ck_assert_int_eq(tm_store_load_config_strict(&cfg, s), TM_EINVALID);
	free(p);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_set_active_keeps_sessions)
{
	tm_store *s = open_seed();
	tm_config *cfg = NULL;

	ck_assert_int_eq(tm_store_set_active(s, "mon-app", "auth"), 0);
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_str_eq(tm_config_get_string(cfg, "activeThreadId"), "auth");
	ck_assert_uint_eq(tm_config_session_count(cfg), 1);
	/* not on a branch: branchThreads untouched */
	ck_assert_str_eq(tm_config_branch_thread(cfg, "mon-app", "main"),
			 "main");
	tm_config_free(cfg);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_current_project)
{
	tm_store *s = open_seed();
	tm_project *p = tm_project_new("other", "Other");
	char *id = NULL;

	ck_assert_int_eq(tm_store_current_project(&id, s, NULL), 0);
	ck_assert_str_eq(id, "mon-app");
	free(id);
	ck_assert_int_eq(tm_store_save_project(s, p), 0);
	ck_assert_int_eq(tm_store_current_project(&id, s, "other"), 0);
	ck_assert_str_eq(id, "other");
	free(id);
	ck_assert_int_eq(tm_store_current_project(&id, s, "ghost"),
			 TM_ENOTFOUND);
	ck_assert_int_eq(tm_store_current_project(&id, s, "Bad/Id"),
			 TM_EINVALID);
	tm_project_free(p);
	tm_store_free(s);
}
END_TEST

/* A fresh clone: no config.json, two projects. */
START_TEST(test_store_current_project_none_active)
{
	tm_store *s = open_seed();
	tm_project *p = tm_project_new("other", "Other");
	char *id = NULL, *cfg_path;

	ck_assert_int_eq(tm_store_save_project(s, p), 0);
	cfg_path = tm_store_path_join(tm_store_dir(s), "config.json");
	ck_assert_int_eq(unlink(cfg_path), 0);
	ck_assert_int_eq(tm_store_current_project(&id, s, NULL), TM_EAMBIGUOUS);
	ck_assert_ptr_null(id);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "(mon-app, other)"));
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "--project"));
	ck_assert_int_eq(tm_store_current_project(&id, s, "other"), 0);
	ck_assert_str_eq(id, "other");
	free(id);
	free(cfg_path);
	tm_project_free(p);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_active_thread_rules)
{
	char *repo = seed_repo();
	tm_store *s = NULL;
	tm_config *cfg = NULL;
	char *id = NULL;

	free(tmt_git_repo(tmp, "repo"));
	tmt_sh("git -C '%s' symbolic-ref HEAD refs/heads/feature/auth-ui && "
	       "git -C '%s' commit -q --allow-empty -m i",
	       repo, repo);
	ck_assert_int_eq(tm_store_open(&s, repo), 0);
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_int_eq(
		tm_store_active_thread(&id, s, "mon-app", cfg, NULL, 0), 0);
	ck_assert_str_eq(id, "auth-ui"); /* branchThreads */
	free(id);
	ck_assert_int_eq(tm_config_set_branch_thread(cfg, "mon-app",
						     "feature/auth-ui", NULL),
			 0);
	ck_assert_int_eq(
		tm_store_active_thread(&id, s, "mon-app", cfg, NULL, 0), 0);
	ck_assert_str_eq(id, "auth-ui"); /* the thread's branch field */
	free(id);
	ck_assert_uint_eq(strlen(tm_store_head(s)), 40);
	tm_config_free(cfg);
	tm_store_free(s);
	free(repo);
}
END_TEST

/* `s` with its first `from` replaced by `to` (malloc'd). */
static char *replaced(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	tm_buf b = TM_BUF_INIT;

	ck_assert_ptr_nonnull(at);
	tm_buf_put(&b, s, (size_t)(at - s));
	tm_buf_puts(&b, to);
	tm_buf_puts(&b, at + strlen(from));
	return tm_buf_detach(&b);
}

/* The active thread's id now holds another thread (a same-id split):
 * activeThreadIdentity finds where it went. */
START_TEST(test_store_active_thread_follows_identity)
{
	tm_store *s = open_seed();
	tm_config *cfg = NULL;
	tm_active_moved m;
	tm_thread_list all;
	char *id = NULL, *auth = store_file(s, "threads/mon-app/auth.md");
	char *auth2 = store_file(s, "threads/mon-app/auth-2.md");
	char *data = tmt_read_file(auth, NULL), *other;

	ck_assert_int_eq(tm_store_set_active(s, "mon-app", "auth"), 0);
	/* unchanged: nothing moved */
	ck_assert_int_eq(tm_store_load_config(&cfg, s), 0);
	ck_assert_int_eq(tm_store_active_thread_checked(&id, &m, s, "mon-app",
							cfg, NULL, 0),
			 0);
	ck_assert_str_eq(id, "auth");
	ck_assert_ptr_null(m.from);
	free(id);
	/* a merge gave 'auth' to carol's thread and moved this one */
	other = replaced(data, "author: mahmoud-a3f9", "author: carol-9f9f");
	tmt_write_file(auth, other, strlen(other));
	free(other);
	other = replaced(data, "id: auth\n", "id: auth-2\n");
	tmt_write_file(auth2, other, strlen(other));
	free(other);
	ck_assert_int_eq(tm_store_active_thread_checked(&id, &m, s, "mon-app",
							cfg, NULL, 0),
			 0);
	ck_assert_str_eq(id, "auth-2");
	ck_assert_str_eq(m.from, "auth");
	ck_assert_str_eq(m.to, "auth-2");
	ck_assert_str_eq(m.was_title, "Auth");
	ck_assert_str_eq(m.was_author, "mahmoud-a3f9");
	ck_assert_str_eq(m.now_author, "carol-9f9f");
	tm_active_moved_clear(&m);
	free(id);
	/* the same from a loaded list, and without `moved` */
	ck_assert_int_eq(tm_store_load_all(&all, s, "mon-app"), 0);
	ck_assert_int_eq(tm_store_active_thread(
				 &id, s, "mon-app", cfg,
				 (const tm_thread *const *)all.threads, all.n),
			 0);
	ck_assert_str_eq(id, "auth-2");
	free(id);
	tm_thread_list_clear(&all);
	/* gone from the project: the usual fallback, said */
	ck_assert_int_eq(unlink(auth2), 0);
	ck_assert_int_eq(tm_store_active_thread_checked(&id, &m, s, "mon-app",
							cfg, NULL, 0),
			 0);
	ck_assert_str_eq(id, "main");
	ck_assert_str_eq(m.from, "auth");
	ck_assert_ptr_null(m.to);
	tm_active_moved_clear(&m);
	free(id);
	/* deleted without a trace: the usual fallback, nothing to say */
	ck_assert_int_eq(unlink(auth), 0);
	ck_assert_int_eq(tm_store_active_thread_checked(&id, &m, s, "mon-app",
							cfg, NULL, 0),
			 0);
	ck_assert_str_eq(id, "main");
	ck_assert_ptr_null(m.from);
	free(id);
	/* an unreadable file is left alone */
	tmt_write_file(auth, "---\nid: auth\n", 13);
	ck_assert_int_eq(tm_store_active_thread_checked(&id, &m, s, "mon-app",
							cfg, NULL, 0),
			 0);
	ck_assert_str_eq(id, "auth");
	ck_assert_ptr_null(m.from);
	free(id);
	tm_config_free(cfg);
	free(data);
	free(auth);
	free(auth2);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_delete_thread)
{
	tm_store *s = open_seed();

	ck_assert_int_eq(tm_store_delete_thread(s, "mon-app", "auth-ui"), 0);
	ck_assert(!tm_store_thread_exists(s, "mon-app", "auth-ui"));
	ck_assert_int_eq(tm_store_delete_thread(s, "mon-app", "auth-ui"),
			 TM_ENOTFOUND);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_lock_nests_and_releases)
{
	tm_store *s = open_seed();
	char *lock = store_file(s, ".lock");
	struct stat st;

	ck_assert_int_eq(tm_store_lock(s), 0);
	ck_assert_int_eq(tm_store_lock(s), 0);
	ck_assert_int_eq(lstat(lock, &st), 0);
	ck_assert_int_eq(tm_store_unlock(s), 0);
	ck_assert_int_eq(lstat(lock, &st), 0);
	ck_assert_int_eq(tm_store_unlock(s), 0);
	ck_assert_int_ne(lstat(lock, &st), 0);
	/* Not held: nothing to do. */
	ck_assert_int_eq(tm_store_unlock(s), 0);
	ck_assert_int_eq(tm_store_lock_refresh(s), 0);
	free(lock);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_lock_taken_over_is_reported)
{
	tm_store *s = open_seed();
	char *lock = store_file(s, ".lock");
	struct stat st;

	/* Checked on every refresh, as if 5 seconds had passed. */
	tm_store__set_refresh_hook(NULL, NULL, true);
	ck_assert_int_eq(tm_store_lock(s), 0);
	ck_assert_int_eq(tm_store_lock_refresh(s), 0);
	tmt_take_over_lock(tm_store_dir(s));
	ck_assert_int_eq(tm_store_lock_refresh(s), TM_ELOCKED);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "lost the lock"));
	ck_assert_int_eq(tm_store_unlock(s), TM_ELOCKED);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "took it over"));
	/* The other process's file stays. */
	ck_assert_int_eq(lstat(lock, &st), 0);
	tm_store__set_refresh_hook(NULL, NULL, false);
	free(lock);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_create_project)
{
	tm_store *s = open_seed();
	tm_project *p = NULL;
	tm_thread *t = NULL;
	char *id = NULL, *path, *data;

	/* mon-app is taken, so is a folder of threads named mon-app-2. */
	path = store_file(s, "threads/mon-app-2/x.md");
	tmt_write_file(path, "x", 1);
	free(path);
	ck_assert_int_eq(tm_store_create_project(&id, s, "Mon App", "team"), 0);
	ck_assert_str_eq(id, "mon-app-3");
	ck_assert_int_eq(tm_store_load_project(&p, s, id), 0);
	ck_assert_str_eq(tm_project_get(p, "title"), "Mon App");
	ck_assert_str_eq(tm_project_get(p, "mode"), "team");
	ck_assert_int_eq(tm_store_load_thread(&t, s, id, "main"), 0);
	ck_assert_str_eq(t->title, "Main");
	ck_assert_ptr_null(t->parent_id);
	/* The author of config.json. */
	ck_assert_str_eq(t->author, "mahmoud-a3f9");
	path = store_file(s, ".lock");
	ck_assert_int_ne(access(path, F_OK), 0);
	free(path);
	free(id);
	id = NULL;
	ck_assert_int_eq(tm_store_create_project(&id, s, "X", "duo"),
			 TM_EINVALID);
	ck_assert_ptr_null(id);
	/* The config.json was not touched (it had an author). */
	path = store_file(s, "config.json");
	data = tmt_read_file(path, NULL);
	ck_assert_ptr_nonnull(strstr(data, "\"sessionId\""));
	free(data);
	free(path);
	tm_project_free(p);
	tm_thread_free(t);
	tm_store_free(s);
}
END_TEST

static int refreshes;

/* On the refresh before the project file, make its write fail. */
static void fail_second_write(tm_store *s, void *payload)
{
	(void)s;
	(void)payload;
	if (++refreshes == 2)
		tm_atomic_inject_fault(TM_ATOMIC_FAULT_RENAME);
}

START_TEST(test_store_create_project_rolls_back)
{
	tm_store *s = open_seed();
	tm_strv ids = TM_STRV_INIT;
	char *id = NULL, *path;
	struct stat st;

	tm_store__set_refresh_hook(fail_second_write, NULL, false);
	ck_assert_int_eq(tm_store_create_project(&id, s, "New One", NULL),
			 TM_ERROR);
	tm_store__set_refresh_hook(NULL, NULL, false);
	ck_assert_int_eq(refreshes, 2);
	ck_assert_ptr_null(id);
	/* Neither the project nor its root thread nor its folder stayed. */
	path = store_file(s, "threads/new-one");
	ck_assert_int_ne(lstat(path, &st), 0);
	free(path);
	path = store_file(s, "projects/new-one.json");
	ck_assert_int_ne(lstat(path, &st), 0);
	free(path);
	ck_assert_int_eq(tm_store_list_projects(&ids, s), 0);
	ck_assert_uint_eq(ids.n, 1);
	tm_strv_clear(&ids);
	tm_store_free(s);
}
END_TEST

START_TEST(test_store_symlinked_threads_folder_refused)
{
	char *repo = seed_repo(), *outside = tmt_join(tmp, "outside");
	char *threads = tmt_join(repo, ".threadmind/threads/mon-app");
	tm_store *s = NULL;
	tm_thread *t = NULL;

	tmt_sh("mv '%s' '%s'", threads, outside);
	ck_assert_int_eq(symlink(outside, threads), 0);
	ck_assert_int_eq(tm_store_open(&s, repo), 0);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "main"),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "symbolic link"));
	tm_store_free(s);
	free(threads);
	free(outside);
	free(repo);
}
END_TEST

/* ---- the author id ---- */

static char *git_hash4(const char *email)
{
	return tmt_sh_out(
		"printf %%s '%s' | git hash-object --stdin | cut -c1-4", email);
}

static char *author(const char *name, const char *email)
{
	char *id = NULL;

	ck_assert_msg(tm_author_id(&id, name, email) == 0, "%s",
		      tm_error_last());
	return id;
}

/* Assert that `id` is `slug` + "-" + git_hash4(email). */
static void assert_author(char *id, const char *slug, const char *email)
{
	char *hash = git_hash4(email);
	char *want = NULL;

	ck_assert_uint_eq(strlen(hash), 4);
	ck_assert_int_ge(asprintf(&want, "%s-%s", slug, hash), 0);
	ck_assert_str_eq(id, want);
	free(want);
	free(hash);
	free(id);
}

START_TEST(test_store_author_id_hash)
{
	static const char *emails[] = {"mahmoud@example.com", "a@b",
				       "x.y+tag@example.org",
				       "someone@exämple.com"};
	size_t i;

	for (i = 0; i < sizeof(emails) / sizeof(emails[0]); i++)
		assert_author(author("Mahmoud", emails[i]), "mahmoud",
			      emails[i]);
	assert_author(author("Jean-Éric Dupont", "je@d.fr"), "jean-eric-dupont",
		      "je@d.fr");
}
END_TEST

START_TEST(test_store_author_id_empty_email)
{
	assert_author(author("Mahmoud", ""), "mahmoud", "");
	assert_author(author("Mahmoud", NULL), "mahmoud", "");
}
END_TEST

START_TEST(test_store_author_id_name_fallback)
{
	assert_author(author(NULL, "a@b"), "user", "a@b");
	assert_author(author("", "a@b"), "user", "a@b");
	assert_author(author("认证", "a@b"), "user", "a@b");
	assert_author(author("!!!", "a@b"), "user", "a@b");
}
END_TEST

Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("discover");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_store_discover_from_subfolder);
	tcase_add_test(tc, test_store_discover_stops_at_git_root);
	tcase_add_test(tc, test_store_discover_refuses_symlink);
	suite_add_tcase(s, tc);

	tc = tcase_create("author");
	tcase_add_test(tc, test_store_author_id_hash);
	tcase_add_test(tc, test_store_author_id_empty_email);
	tcase_add_test(tc, test_store_author_id_name_fallback);
	suite_add_tcase(s, tc);

	tc = tcase_create("init");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_store_init_creates_layout);
	tcase_add_test(tc, test_store_init_refuses_to_clobber);
	tcase_add_test(tc, test_store_init_in_git_records_branch);
	tcase_add_test(tc, test_store_init_rejects_bad_mode);
	suite_add_tcase(s, tc);

	tc = tcase_create("threads");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_store_lists_seed);
	tcase_add_test(tc, test_store_save_unchanged_is_identical);
	tcase_add_test(tc, test_store_refuses_bad_ids_before_paths);
	tcase_add_test(tc, test_store_load_missing_thread);
	tcase_add_test(tc, test_store_load_all_reports_unreadable);
	tcase_add_test(tc, test_store_load_all_notes_conflict_markers);
	tcase_add_test(tc, test_store_load_all_threads_like_one);
	tcase_add_test(tc, test_store_create_thread_slug_and_collisions);
	tcase_add_test(tc, test_store_create_thread_missing_parent);
	tcase_add_test(tc, test_store_create_thread_stops_when_lock_taken_over);
	tcase_add_test(tc, test_store_delete_thread);
	tcase_add_test(tc, test_store_symlinked_threads_folder_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("config");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_store_config_missing_gives_defaults);
	tcase_add_test(tc, test_store_corrupt_config_is_never_overwritten);
	tcase_add_test(tc, test_store_corrupt_config_fallback_for_readers);
	tcase_add_test(tc, test_store_set_active_keeps_sessions);
	tcase_add_test(tc, test_store_current_project);
	tcase_add_test(tc, test_store_current_project_none_active);
	tcase_add_test(tc, test_store_active_thread_rules);
	tcase_add_test(tc, test_store_active_thread_follows_identity);
	tcase_add_test(tc, test_store_lock_nests_and_releases);
	tcase_add_test(tc, test_store_lock_taken_over_is_reported);
	tcase_add_test(tc, test_store_create_project);
	tcase_add_test(tc, test_store_create_project_rolls_back);
	suite_add_tcase(s, tc);
	return s;
}
