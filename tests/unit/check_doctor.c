/* Unit tests of lib/app/doctor.c: every check, and the repairs of --fix. */
#include "threadmind/doctor.h"
#include "store_internal.h"
#include "threadmind/fs.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "threadmind/install.h"
#include "test_util.h"

#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *tmp;
static char *repo;
static tm_store *store;
static tm_doctor_report report;

static void setup(void)
{
	tmp = tmt_sandbox();
	repo = tmt_join(tmp, "repo");
	tmt_mkdirs(repo);
	store = NULL;
	memset(&report, 0, sizeof(report));
}

static void teardown(void)
{
	tm_doctor_report_clear(&report);
	tm_store_free(store);
	tmt_sandbox_end(tmp);
	free(repo);
	tmp = repo = NULL;
}

/* A fresh store in `repo` (not a git repository): project `app`. */
static void init_store(void)
{
	ck_assert_int_eq(tm_store_init(&store, repo, "App", NULL), 0);
}

/* The path of `rel` inside .threadmind (malloc'd). */
static char *tm_path(const char *rel)
{
	return tmt_join(tm_store_dir(store), rel);
}

static void put(const char *rel, const char *data)
{
	char *path = tm_path(rel);

	tmt_write_file(path, data, strlen(data));
	free(path);
}

static char *get(const char *rel)
{
	char *path = tm_path(rel), *data = tmt_read_file(path, NULL);

	free(path);
	return data;
}

static bool exists(const char *rel)
{
	char *path = tm_path(rel);
	struct stat st;
	bool r = lstat(path, &st) == 0;

	free(path);
	return r;
}

/* Set the mtime of `rel` to `ago` seconds in the past. */
static void age(const char *rel, int ago)
{
	char *path = tm_path(rel);
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= ago;
	t[1] = t[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
	free(path);
}

static void thread(const char *id, const char *frontmatter)
{
	tm_buf rel = TM_BUF_INIT, data = TM_BUF_INIT;

	tm_buf_printf(&rel, "threads/app/%s.md", id);
	tm_buf_printf(&data, "---\n%s---\n\n## State\n- body of %s\n",
		      frontmatter, id);
	put(tm_buf_cstr(&rel), tm_buf_cstr(&data));
	tm_buf_release(&rel);
	tm_buf_release(&data);
}

static void check_with(const tm_doctor_options *o)
{
	tm_doctor_report_clear(&report);
	ck_assert_int_eq(tm_doctor_check(&report, store, o), 0);
}

static void check(void)
{
	check_with(NULL);
}

static size_t count(const char *kind)
{
	size_t i, n = 0;

	for (i = 0; i < report.n; i++)
		n += !strcmp(report.items[i].kind, kind);
	return n;
}

static const tm_doctor_problem *find(const char *kind)
{
	size_t i;

	for (i = 0; i < report.n; i++)
		if (!strcmp(report.items[i].kind, kind))
			return &report.items[i];
	ck_abort_msg("no problem of kind %s", kind);
	return NULL;
}

static void dump(void)
{
	size_t i;

	for (i = 0; i < report.n; i++)
		fprintf(stderr, "  %s: %s\n", report.items[i].kind,
			report.items[i].message);
}

/* Run the repairs; returns how many were made. */
static size_t fix(void)
{
	tm_strv done = TM_STRV_INIT, failed = TM_STRV_INIT;
	size_t n;

	ck_assert_int_eq(tm_doctor_fix(&done, &failed, store, &report, NULL),
			 0);
	ck_assert_msg(failed.n == 0, "repair failed: %s",
		      failed.n ? failed.items[0] : "");
	n = done.n;
	tm_strv_clear(&done);
	tm_strv_clear(&failed);
	return n;
}

/* ---- report ---- */

START_TEST(test_doctor_clean_store_has_no_problem)
{
	init_store();
	check();
	if (report.n)
		dump();
	ck_assert_uint_eq(report.n, 0);
	ck_assert_uint_eq(fix(), 0);
}
END_TEST

START_TEST(test_doctor_add_copies_and_counts)
{
	tm_doctor_problem *p;
	char file[] = ".threadmind/x";

	p = tm_doctor_add(&report, TM_DOCTOR_STRAY_TMP, file, true,
			  "'%s' is %d", "x", 42);
	file[0] = 'X';
	ck_assert_str_eq(p->kind, "stray-tmp");
	ck_assert_str_eq(p->file, ".threadmind/x");
	ck_assert_str_eq(p->message, "'x' is 42");
	ck_assert_ptr_null(p->project);
	tm_doctor_add(&report, TM_DOCTOR_ORPHAN, NULL, false, "o");
	ck_assert_ptr_null(report.items[1].file);
	ck_assert_uint_eq(report.n, 2);
	ck_assert_uint_eq(tm_doctor_count_fixable(&report), 1);
	tm_doctor_report_clear(&report);
	ck_assert_uint_eq(report.n, 0);
	ck_assert_uint_eq(tm_doctor_count_fixable(&report), 0);
}
END_TEST

START_TEST(test_doctor_bad_options_refused)
{
	tm_doctor_options o = TM_DOCTOR_OPTIONS_INIT;

	init_store();
	o.version = 99;
	ck_assert_int_eq(tm_doctor_check(&report, store, &o), TM_EINVALID);
	o.version = TM_DOCTOR_OPTIONS_VERSION;
	o.project = "../x";
	ck_assert_int_eq(tm_doctor_check(&report, store, &o), TM_EINVALID);
	o.project = "nope";
	ck_assert_int_eq(tm_doctor_check(&report, store, &o), TM_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "nope"));
}
END_TEST

/* ---- files ---- */

START_TEST(test_doctor_bad_thread_file_name)
{
	init_store();
	thread("Foo", "id: Foo\ntitle: F\nparentId: main\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("bad-id")->file,
			 ".threadmind/threads/app/Foo.md");
	ck_assert(!find("bad-id")->fixable);
	ck_assert_str_eq(find("bad-id")->project, "app");
	ck_assert_ptr_nonnull(strstr(find("bad-id")->message, "Foo.md"));
}
END_TEST

START_TEST(test_doctor_bad_project_names)
{
	init_store();
	put("projects/Big.json", "{}\n");
	tmt_sh("mkdir '%s/threads/Big'", tm_store_dir(store));
	check();
	ck_assert_uint_eq(count("bad-id"), 2);
	ck_assert_str_eq(report.items[0].file, ".threadmind/projects/Big.json");
	ck_assert_str_eq(report.items[1].file, ".threadmind/threads/Big");
}
END_TEST

START_TEST(test_doctor_unreadable_threads)
{
	char *big = tm_xmalloc(TM_MAX_FILE_SIZE + 10);

	init_store();
	put("threads/app/broken.md", "---\nid: broken\ntitle: B\n");
	memset(big, 'a', TM_MAX_FILE_SIZE + 9);
	memcpy(big, "---\nid: big\n---\n", 16);
	big[TM_MAX_FILE_SIZE + 9] = '\0';
	put("threads/app/big.md", big);
	free(big);
	tmt_sh("ln -s ../../../outside.md '%s/threads/app/link.md'",
	       tm_store_dir(store));
	check();
	if (report.n != 3)
		dump();
	ck_assert_uint_eq(count("unreadable"), 3);
	ck_assert_uint_eq(report.n, 3);
	/* sorted by id: big, broken, link */
	ck_assert_str_eq(report.items[0].thread, "big");
	ck_assert_ptr_nonnull(strstr(report.items[0].message, "1 MiB"));
	ck_assert_str_eq(report.items[1].file,
			 ".threadmind/threads/app/broken.md");
	ck_assert_ptr_nonnull(strstr(report.items[1].message, "closing"));
	ck_assert_ptr_nonnull(strstr(report.items[2].message, "link"));
	ck_assert(!report.items[2].fixable);
}
END_TEST

START_TEST(test_doctor_corrupt_config_and_project)
{
	init_store();
	put("config.json", "{\n  \"activeProjectId\": oops\n}\n");
	put("projects/app.json", "{\"id\": \"app\",");
	check();
	ck_assert_uint_eq(count("config"), 1);
	ck_assert_uint_eq(count("unreadable"), 1);
	ck_assert_str_eq(report.items[0].file, ".threadmind/config.json");
	ck_assert_ptr_nonnull(strstr(report.items[0].message, "line 2"));
	ck_assert(report.items[0].fixable);
	ck_assert_str_eq(report.items[1].file, ".threadmind/projects/app.json");
	ck_assert_str_eq(report.items[1].project, "app");
}
END_TEST

/* The names in .threadmind/ that start with `prefix`. */
static void names_with(tm_strv *out, const char *prefix)
{
	DIR *d = opendir(tm_store_dir(store));
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			tm_strv_push(out, e->d_name);
	closedir(d);
}

START_TEST(test_doctor_corrupt_config_renamed_aside)
{
	tm_strv names = TM_STRV_INIT;
	char *data;

	init_store();
	put("config.json", "{oops");
	check();
	ck_assert_uint_eq(fix(), 1);
	ck_assert(!exists("config.json"));
	names_with(&names, "config.json.corrupt-");
	ck_assert_uint_eq(names.n, 1);
	data = get(names.items[0]);
	ck_assert_str_eq(data, "{oops");
	free(data);
	tm_strv_clear(&names);
	check();
	ck_assert_uint_eq(count("config"), 0);
	/* Twice in the same second: never overwritten. */
	put("config.json", "{again");
	check();
	ck_assert_uint_eq(fix(), 1);
	names_with(&names, "config.json.corrupt-");
	ck_assert_uint_eq(names.n, 2);
	tm_strv_clear(&names);
}
END_TEST

START_TEST(test_doctor_project_id_mismatch_fixed)
{
	char *data;

	init_store();
	put("projects/app.json", "{\n  \"id\": \"apq\",\n  \"title\": \"App\","
				 "\n  \"extra\": [1]\n}\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert(find("id-mismatch")->fixable);
	ck_assert_ptr_null(find("id-mismatch")->thread);
	ck_assert_uint_eq(fix(), 1);
	data = get("projects/app.json");
	ck_assert_str_eq(data, "{\n  \"id\": \"app\",\n  \"title\": \"App\",\n"
			       "  \"extra\": [\n    1\n  ]\n}\n");
	free(data);
	ck_assert(!exists("projects/apq.json"));
	check();
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

START_TEST(test_doctor_threads_folder_without_project)
{
	init_store();
	tmt_sh("mkdir -p '%s/threads/lost' && cp '%s/threads/app/main.md' "
	       "'%s/threads/lost/'",
	       tm_store_dir(store), tm_store_dir(store), tm_store_dir(store));
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("no-project")->file, ".threadmind/threads/lost");
	ck_assert_str_eq(find("no-project")->project, "lost");
}
END_TEST

START_TEST(test_doctor_symlinked_threads_folder_once)
{
	init_store();
	put("projects/other.json", "{\"id\": \"other\"}\n");
	tmt_sh("mkdir '%s/elsewhere' && ln -s ../../elsewhere "
	       "'%s/threads/other'",
	       tmp, tm_store_dir(store));
	check();
	if (report.n != 1)
		dump();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("unreadable")->file, ".threadmind/threads/other");
	ck_assert_ptr_nonnull(strstr(find("unreadable")->message, "symbolic"));
}
END_TEST

START_TEST(test_doctor_project_without_root)
{
	init_store();
	tmt_sh("rm '%s/threads/app/main.md'", tm_store_dir(store));
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("no-root")->file,
			 ".threadmind/threads/app/main.md");
	/* An unreadable main.md is reported as that, not as missing. */
	put("threads/app/main.md", "no frontmatter\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(report.items[0].kind, "unreadable");
}
END_TEST

/* ---- ids ---- */

START_TEST(test_doctor_id_mismatch_found_and_fixed)
{
	static const char fm[] = "id: autj\ntitle: Auth\nparentId: main\n"
				 "updatedAt: 2026-01-01T00:00:00.000Z\n"
				 "custom: kept\n";
	char *data;

	init_store();
	thread("auth", fm);
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("id-mismatch")->thread, "auth");
	ck_assert_str_eq(find("id-mismatch")->file,
			 ".threadmind/threads/app/auth.md");
	ck_assert(find("id-mismatch")->fixable);
	ck_assert_ptr_nonnull(strstr(find("id-mismatch")->message, "autj"));
	ck_assert_uint_eq(fix(), 1);
	data = get("threads/app/auth.md");
	/* Only the id changed: updatedAt, unknown fields, body kept. */
	ck_assert_str_eq(data, "---\nid: auth\ntitle: Auth\nparentId: main\n"
			       "updatedAt: 2026-01-01T00:00:00.000Z\n"
			       "custom: kept\n---\n\n## State\n- body of "
			       "auth\n");
	free(data);
	check();
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

START_TEST(test_doctor_missing_id_field_fixed)
{
	char *data;

	init_store();
	thread("noid", "title: No id\nparentId: main\n");
	check();
	ck_assert_uint_eq(count("id-mismatch"), 1);
	ck_assert_ptr_nonnull(strstr(report.items[0].message, "no id field"));
	ck_assert_uint_eq(fix(), 1);
	data = get("threads/app/noid.md");
	ck_assert_ptr_nonnull(strstr(data, "---\nid: noid\ntitle: No id\n"));
	free(data);
}
END_TEST

START_TEST(test_doctor_repair_of_a_gone_problem_is_silent)
{
	init_store();
	thread("auth", "id: autj\ntitle: Auth\nparentId: main\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	thread("auth", "id: auth\ntitle: Auth\nparentId: main\n");
	ck_assert_uint_eq(fix(), 0);
}
END_TEST

/* ---- tree ---- */

START_TEST(test_doctor_orphan_reported)
{
	init_store();
	thread("lost", "id: lost\ntitle: Lost\nparentId: ghost\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("orphan")->thread, "lost");
	ck_assert_str_eq(find("orphan")->message,
			 "thread 'lost': its parent 'ghost' does not exist; "
			 "re-parent it with 'git threadmind move lost "
			 "<parent>'");
	ck_assert(!find("orphan")->fixable);
}
END_TEST

START_TEST(test_doctor_child_of_unreadable_is_no_orphan)
{
	init_store();
	put("threads/app/parent.md", "---\nid: parent\n");
	thread("kid", "id: kid\ntitle: Kid\nparentId: parent\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(report.items[0].kind, "unreadable");
	ck_assert_str_eq(report.items[0].thread, "parent");
}
END_TEST

START_TEST(test_doctor_cycle_reported_once)
{
	init_store();
	thread("a", "id: a\ntitle: A\nparentId: b\n"
		    "createdAt: 2026-01-01T00:00:00.000Z\n");
	thread("b", "id: b\ntitle: B\nparentId: a\n"
		    "createdAt: 2026-01-02T00:00:00.000Z\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("cycle")->thread, "a");
	ck_assert_str_eq(find("cycle")->message,
			 "thread 'a' is in a parent cycle (its parent 'b' "
			 "descends from it); break it with 'git threadmind "
			 "move a <parent>'");
}
END_TEST

START_TEST(test_doctor_unknown_status)
{
	init_store();
	thread("d", "id: d\ntitle: D\nparentId: main\nstatus: done\n");
	thread("x", "id: x\ntitle: X\nparentId: main\nstatus: abandoned\n");
	thread("w", "id: w\ntitle: W\nparentId: main\nstatus: wip\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("unknown-status")->thread, "w");
	ck_assert_ptr_nonnull(strstr(find("unknown-status")->message, "'wip'"));
}
END_TEST

/* ---- lock and temp files ---- */

START_TEST(test_doctor_fresh_lock_is_fine)
{
	init_store();
	put(".lock", "{\"pid\":1,\"host\":\"h\"}");
	check();
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

START_TEST(test_doctor_stale_lock_found_and_removed)
{
	init_store();
	put(".lock", "{\"pid\":123,\"host\":\"box\"}");
	age(".lock", 60);
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert(find("stale-lock")->fixable);
	ck_assert_str_eq(find("stale-lock")->file, ".threadmind/.lock");
	ck_assert_ptr_nonnull(strstr(find("stale-lock")->message, "pid 123"));
	ck_assert_uint_eq(fix(), 1);
	ck_assert(!exists(".lock"));
	check();
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

START_TEST(test_doctor_busy_folder_lock_not_fixable)
{
	init_store();
	put(".lock/owner", "someone\n");
	age(".lock", 60);
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert(!find("stale-lock")->fixable);
	ck_assert_uint_eq(fix(), 0);
	ck_assert(exists(".lock/owner"));
}
END_TEST

/* Strays older than their file and no larger: removed once old enough. */
START_TEST(test_doctor_stray_tmp_old_and_young)
{
	init_store();
	put("config.json", "{\"activeProjectId\": \"app\"}");
	put("threads/app/main.md.0a1b2c3d.tmp", "half");
	put("config.json.9f8e7d6c.tmp", "half");
	put("threads/app/main.md.77aa88bb.tmp", "in progress");
	age("threads/app/main.md.0a1b2c3d.tmp", 120);
	age("config.json.9f8e7d6c.tmp", 3600);
	age("threads/app/main.md.77aa88bb.tmp", 5);
	check();
	ck_assert_uint_eq(count("stray-tmp"), 3);
	ck_assert_uint_eq(tm_doctor_count_fixable(&report), 2);
	ck_assert_uint_eq(fix(), 2);
	ck_assert(!exists("threads/app/main.md.0a1b2c3d.tmp"));
	ck_assert(!exists("config.json.9f8e7d6c.tmp"));
	ck_assert(exists("threads/app/main.md.77aa88bb.tmp"));
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert(!report.items[0].fixable);
	ck_assert_str_eq(report.items[0].file,
			 ".threadmind/threads/app/main.md.77aa88bb.tmp");
	ck_assert_ptr_nonnull(strstr(report.items[0].message, "in progress"));
}
END_TEST

START_TEST(test_doctor_tmp_min_age_option)
{
	tm_doctor_options o = TM_DOCTOR_OPTIONS_INIT;

	init_store();
	put("threads/app/main.md.1a2b3c4d.tmp", "half");
	age("threads/app/main.md.1a2b3c4d.tmp", 5);
	o.tmp_min_age = 1;
	check_with(&o);
	ck_assert_uint_eq(tm_doctor_count_fixable(&report), 1);
	check();
	ck_assert_uint_eq(tm_doctor_count_fixable(&report), 0);
}
END_TEST

/* ---- interrupted writes (recover.h) ---- */

#define AUTH_04                                               \
	"---\nid: auth\ntitle: Auth\nparentId: main\n---\n\n" \
	"## Decisions\n- JWT in httpOnly cookies"

/* 0.4 crashed while rewriting auth.md: the tmp is the whole file. */
START_TEST(test_doctor_recovery_restored)
{
	const tm_doctor_problem *p;
	char *data;

	init_store();
	put("threads/app/auth.md", "");
	put("threads/app/auth.md.3f2a9c1e.tmp", AUTH_04);
	age("threads/app/auth.md.3f2a9c1e.tmp", 3600);
	check();
	p = find("recovery");
	ck_assert(p->fixable);
	ck_assert_str_eq(p->file,
			 ".threadmind/threads/app/auth.md.3f2a9c1e.tmp");
	ck_assert_str_eq(p->project, "app");
	ck_assert_str_eq(p->thread, "auth");
	ck_assert_str_eq(
		p->message,
		"'.threadmind/threads/app/auth.md.3f2a9c1e.tmp' is the "
		"only complete copy of '.threadmind/threads/app/"
		"auth.md', which is empty (an interrupted write); "
		"--fix puts it in place of '.threadmind/threads/app/"
		"auth.md'");
	ck_assert_uint_eq(count("stray-tmp"), 0);
	ck_assert_uint_eq(fix(), 1);
	data = get("threads/app/auth.md");
	ck_assert_str_eq(data, AUTH_04);
	free(data);
	ck_assert(!exists("threads/app/auth.md.3f2a9c1e.tmp"));
	check();
	if (report.n)
		dump();
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

/* A cut file is kept as .broken, which doctor names until deleted. */
START_TEST(test_doctor_recovery_keeps_broken)
{
	tm_strv done = TM_STRV_INIT, failed = TM_STRV_INIT;
	char *data;

	init_store();
	put("projects/app.json", "{\n  \"id\": \"app\",\n  \"ti");
	put("projects/app.json.0badc0de.tmp",
	    "{\n  \"id\": \"app\",\n  \"title\": \"App\"\n}");
	age("projects/app.json.0badc0de.tmp", 3600);
	check();
	ck_assert_ptr_nonnull(
		strstr(find("recovery")->message,
		       "which does not parse (an interrupted write); --fix "
		       "puts it in place of '.threadmind/projects/app.json' "
		       "and keeps the old file as "
		       "'.threadmind/projects/app.json.broken'"));
	ck_assert_str_eq(find("recovery")->project, "app");
	ck_assert_int_eq(tm_doctor_fix(&done, &failed, store, &report, NULL),
			 0);
	ck_assert_uint_eq(failed.n, 0);
	ck_assert_uint_eq(done.n, 1);
	ck_assert_str_eq(
		done.items[0],
		"restored '.threadmind/projects/app.json' from "
		"'.threadmind/projects/app.json.0badc0de.tmp'; its old "
		"content is kept as "
		"'.threadmind/projects/app.json.broken'");
	data = get("projects/app.json.broken");
	ck_assert_str_eq(data, "{\n  \"id\": \"app\",\n  \"ti");
	free(data);
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("leftover")->file,
			 ".threadmind/projects/app.json.broken");
	ck_assert(!find("leftover")->fixable);
	ck_assert_uint_eq(fix(), 0);
	ck_assert(exists("projects/app.json.broken"));
	tm_strv_clear(&done);
	tm_strv_clear(&failed);
}
END_TEST

/* The restored file was what blocked the upgrade: --fix runs it too. */
START_TEST(test_doctor_recovery_unblocks_upgrade)
{
	tm_thread *t = NULL;

	init_store();
	thread("w", "id: w\ntitle: W\nparentId: main\n");
	put("threads/app/auth.md", "---\nid: auth\nti");
	put("threads/app/auth.md.3f2a9c1e.tmp", AUTH_04);
	age("threads/app/auth.md.3f2a9c1e.tmp", 3600);
	put("trees/app.json", "{\"auth\": \"w\"}");
	check();
	ck_assert(!find("upgrade")->fixable);
	ck_assert(find("recovery")->fixable);
	fix();
	ck_assert(!exists("trees"));
	ck_assert_int_eq(tm_store_load_thread(&t, store, "app", "auth"), 0);
	ck_assert_str_eq(t->parent_id, "w");
	tm_thread_free(t);
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("leftover")->file,
			 ".threadmind/threads/app/auth.md.broken");
}
END_TEST

/* A trees/ tmp is the upgrade's: doctor never moves or deletes it. */
START_TEST(test_doctor_trees_tmp_is_the_upgrades)
{
	init_store();
	put("trees/app.json", "");
	put("trees/app.json.9c1e5b7d.tmp", "{\"main\": null}");
	age("trees/app.json.9c1e5b7d.tmp", 3600);
	check();
	ck_assert_uint_eq(count("upgrade"), 2);
	ck_assert(find("upgrade")->fixable);
	ck_assert(!report.items[1].fixable);
	ck_assert_str_eq(report.items[1].file,
			 ".threadmind/trees/app.json.9c1e5b7d.tmp");
	ck_assert_uint_eq(fix(), 2); /* the index used, then deleted */
	ck_assert(!exists("trees/app.json"));
	ck_assert(exists("trees/app.json.9c1e5b7d.tmp"));
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("leftover")->file,
			 ".threadmind/trees/app.json.9c1e5b7d.tmp");
	ck_assert(!find("leftover")->fixable);
	ck_assert_uint_eq(fix(), 0);
	ck_assert(exists("trees/app.json.9c1e5b7d.tmp"));
}
END_TEST

/* Strays that are newer or larger than their file, or name none: kept. */
START_TEST(test_doctor_strays_kept)
{
	init_store();
	put("config.json", "{\"activeProjectId\": \"app\"}");
	put("threads/app/main.md.0a1b2c3d.tmp", "half");
	put("threads/app/main.md.1a1b2c3d.tmp",
	    "more bytes than main.md holds, more bytes than main.md holds, "
	    "more bytes than main.md holds, more bytes than main.md holds, "
	    "more bytes than main.md holds, more bytes than main.md holds");
	put("config.json.77.tmp", "half");
	age("threads/app/main.md", 3600);
	age("threads/app/main.md.0a1b2c3d.tmp", 600);  /* newer */
	age("threads/app/main.md.1a1b2c3d.tmp", 7200); /* larger */
	age("config.json.77.tmp", 7200);               /* no name of ours */
	check();
	ck_assert_uint_eq(count("stray-tmp"), 3);
	ck_assert_uint_eq(tm_doctor_count_fixable(&report), 0);
	ck_assert_ptr_nonnull(
		strstr(report.items[0].message, "not named as threadmind"));
	ck_assert_str_eq(report.items[1].message,
			 "'.threadmind/threads/app/main.md.0a1b2c3d.tmp' is a "
			 "temporary file left by an interrupted write, not "
			 "older than '.threadmind/threads/app/main.md'; --fix "
			 "removes only one older than its file and no larger, "
			 "so it is kept: compare the two, then delete it");
	ck_assert_ptr_nonnull(strstr(report.items[2].message,
				     "interrupted write, larger than "));
	ck_assert_uint_eq(fix(), 0);
	ck_assert(exists("threads/app/main.md.0a1b2c3d.tmp"));
	ck_assert(exists("threads/app/main.md.1a1b2c3d.tmp"));
	ck_assert(exists("config.json.77.tmp"));
}
END_TEST

/* ---- .gitignore ---- */

START_TEST(test_doctor_gitignore_lines_added)
{
	char *data;

	init_store();
	put(".gitignore", "# mine\n/config.json\nnotes.txt");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert(find("gitignore")->fixable);
	ck_assert_ptr_nonnull(
		strstr(find("gitignore")->message, ".lock, *.tmp"));
	ck_assert_uint_eq(fix(), 1);
	data = get(".gitignore");
	ck_assert_str_eq(data,
			 "# mine\n/config.json\nnotes.txt\n.lock\n*.tmp\n");
	free(data);
	check();
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

START_TEST(test_doctor_gitignore_keeps_crlf)
{
	char *data;

	init_store();
	put(".gitignore", "config.json\r\n");
	check();
	ck_assert_uint_eq(fix(), 1);
	data = get(".gitignore");
	ck_assert_str_eq(data, "config.json\r\n.lock\r\n*.tmp\r\n");
	free(data);
}
END_TEST

START_TEST(test_doctor_gitignore_missing_created)
{
	char *data;

	init_store();
	tmt_sh("rm '%s/.gitignore'", tm_store_dir(store));
	check();
	ck_assert_uint_eq(count("gitignore"), 1);
	ck_assert_ptr_nonnull(strstr(report.items[0].message, "missing"));
	ck_assert_uint_eq(fix(), 1);
	data = get(".gitignore");
	ck_assert_str_eq(data, TM_STORE_GITIGNORE);
	free(data);
}
END_TEST

/* ---- the thread checks shared with post-merge ---- */

static tm_thread *mk(const char *id, const char *field_id, const char *parent,
		     const char *created)
{
	tm_thread *t = tm_thread_new();

	tm_thread_set(&t->id, id);
	tm_thread_set(&t->field_id, field_id);
	tm_thread_set(&t->title, id);
	tm_thread_set(&t->parent_id, parent);
	tm_thread_set(&t->created_at, created);
	return t;
}

START_TEST(test_doctor_check_threads_pure)
{
	tm_doctor_project p;
	const char *kinds[] = {"bad-id",      "unreadable", "id-mismatch",
			       "id-mismatch", "orphan",     "cycle"};
	const char *threads[] = {NULL,      "broken", "noid",
				 "renamed", "lost",   "a"};
	size_t i;

	memset(&p, 0, sizeof(p));
	p.id = tm_xstrdup("app");
	p.threads = tm_xcalloc(8, sizeof(tm_thread *));
	p.threads[p.n++] = mk("main", "main", NULL, NULL);
	p.threads[p.n++] = mk("noid", NULL, "main", NULL);
	p.threads[p.n++] = mk("renamed", "other", "main", NULL);
	p.threads[p.n++] = mk("lost", "lost", "ghost", NULL);
	p.threads[p.n++] = mk("kid", "kid", "broken", NULL);
	p.threads[p.n++] = mk("a", "a", "b", "2026-01-01T00:00:00.000Z");
	p.threads[p.n++] = mk("b", "b", "a", "2026-01-02T00:00:00.000Z");
	tm_strv_push(&p.unreadable, "broken");
	tm_strv_push(&p.errors, "'broken.md' does not parse");
	tm_strv_push(&p.bad, "Bad Name.md");
	tm_doctor_check_threads(&report, &p, 1);
	if (report.n != 6)
		dump();
	/* one problem each, in the order of the checks; kid (child of an
	 * unreadable parent) is not an orphan, the cycle is reported once */
	ck_assert_uint_eq(report.n, 6);
	for (i = 0; i < 6; i++) {
		ck_assert_str_eq(report.items[i].kind, kinds[i]);
		ck_assert_str_eq(report.items[i].project, "app");
		if (threads[i])
			ck_assert_str_eq(report.items[i].thread, threads[i]);
	}
	ck_assert_str_eq(report.items[1].message, "'broken.md' does not parse");
	ck_assert_str_eq(report.items[0].file,
			 ".threadmind/threads/app/Bad Name.md");
	ck_assert_ptr_nonnull(strstr(report.items[2].message, "no id field"));
	ck_assert(report.items[2].fixable && report.items[3].fixable);
	tm_doctor_project_clear(&p);
	ck_assert_ptr_null(p.id);
}
END_TEST

START_TEST(test_doctor_project_load)
{
	tm_doctor_project p;

	init_store();
	put("threads/app/broken.md", "---\nid: broken\n");
	put("threads/app/Bad.md", "---\nid: x\n---\n");
	thread("kid", "id: kid\ntitle: Kid\nparentId: main\n");
	ck_assert_int_eq(tm_doctor_project_load(&p, store, "app"), 0);
	ck_assert_str_eq(p.id, "app");
	ck_assert_uint_eq(p.n, 2);
	ck_assert_str_eq(p.threads[0]->id, "kid");
	ck_assert_str_eq(p.threads[1]->id, "main");
	ck_assert_uint_eq(p.unreadable.n, 1);
	ck_assert_str_eq(p.unreadable.items[0], "broken");
	ck_assert_uint_eq(p.errors.n, 1);
	ck_assert_uint_eq(p.bad.n, 1);
	ck_assert_str_eq(p.bad.items[0], "Bad.md");
	ck_assert(!p.folder_link);
	ck_assert_ptr_null(p.folder_error);
	tm_doctor_project_clear(&p);
	/* a threads folder that is a link is not read */
	tmt_sh("mkdir '%s/elsewhere' && ln -s ../../elsewhere "
	       "'%s/threads/linked'",
	       tmp, tm_store_dir(store));
	ck_assert_int_eq(tm_doctor_project_load(&p, store, "linked"), 0);
	ck_assert(p.folder_link);
	ck_assert_uint_eq(p.n, 0);
	tm_doctor_project_clear(&p);
	ck_assert_int_eq(tm_doctor_project_load(&p, store, "Not An Id"),
			 TM_EINVALID);
	tm_doctor_project_clear(&p);
}
END_TEST

/* git decides which attributes apply, not the text of one file. */
START_TEST(test_doctor_gitattributes_as_git_sees_them)
{
	char *root_attrs = tmt_join(repo, ".gitattributes");
	const char *both = "*.md merge=threadmind diff=markdown\n*.json "
			   "merge=threadmind\n";

	free(tmt_git_repo(tmp, "repo"));
	init_store();
	/* no .threadmind/.gitattributes, but the root file covers both */
	tmt_write_file(root_attrs, both, strlen(both));
	check();
	ck_assert_uint_eq(count("gitattributes"), 0);
	/* a deeper file wins: threads/ says otherwise */
	tmt_write_file(root_attrs, "", 0);
	put(".gitattributes",
	    TM_INSTALL_ATTR_THREADS "\n" TM_INSTALL_ATTR_PROJECTS "\n");
	check();
	ck_assert_uint_eq(count("gitattributes"), 0);
	put("threads/.gitattributes", "*.md merge=binary\n");
	check();
	ck_assert_uint_eq(count("gitattributes"), 1);
	ck_assert_ptr_nonnull(
		strstr(find("gitattributes")->message,
		       "lacks 'threads/**/*.md merge=threadmind'"));
	ck_assert_ptr_null(
		strstr(find("gitattributes")->message, "projects/*.json"));
	/* our file has our lines: --fix could not help, the other file wins */
	ck_assert(!find("gitattributes")->fixable);
	ck_assert_ptr_nonnull(
		strstr(find("gitattributes")->message, "git check-attr"));
	free(root_attrs);
}
END_TEST

/* ---- git setup, upgrade, project filter ---- */

START_TEST(test_doctor_git_setup)
{
	tm_doctor_options o = TM_DOCTOR_OPTIONS_INIT;
	char *hooks;

	free(tmt_git_repo(tmp, "repo"));
	init_store();
	check();
	/* driver, attributes, and the five hooks */
	ck_assert_uint_eq(report.n, 7);
	ck_assert_uint_eq(count("hooks"), 5);
	/* Read as findings, never install's sentence glued to a hint. */
	ck_assert_ptr_nonnull(strstr(find("hooks")->message,
				     "missing hook post-checkout ('"));
	ck_assert_ptr_null(strstr(find("hooks")->message, ":;"));
	ck_assert_ptr_null(find("merge-driver")->file);
	ck_assert_str_eq(find("gitattributes")->file,
			 ".threadmind/.gitattributes");
	ck_assert(find("gitattributes")->fixable);
	o.git = false;
	check_with(&o);
	ck_assert_uint_eq(report.n, 0);

	/* One line of two is not enough. */
	put(".gitattributes", "threads/**/*.md merge=threadmind\n");
	check();
	ck_assert_uint_eq(count("gitattributes"), 1);
	ck_assert_ptr_nonnull(
		strstr(find("gitattributes")->message, "projects/*.json"));
	/* The line of earlier versions: no diff driver, --fix upgrades it. */
	put(".gitattributes", "# ours\nthreads/**/*.md merge=threadmind\n"
			      "projects/*.json\tmerge=threadmind\n");
	check();
	ck_assert_uint_eq(count("gitattributes"), 1);
	ck_assert_ptr_nonnull(strstr(find("gitattributes")->message,
				     "lacks 'threads/**/*.md diff=markdown'"));
	ck_assert_ptr_null(
		strstr(find("gitattributes")->message, "merge=threadmind"));
	ck_assert(find("gitattributes")->fixable);
	ck_assert_uint_eq(fix(), 1);
	{
		char *now = get(".gitattributes");

		ck_assert_str_eq(now, "# ours\n" TM_INSTALL_ATTR_THREADS
				      "\nprojects/*.json\tmerge=threadmind\n");
		free(now);
	}
	check();
	ck_assert_uint_eq(count("gitattributes"), 0);
	/* A user's own choice of diff driver counts. */
	put(".gitattributes", "# ours\nthreads/**/*.md  text merge=threadmind "
			      "-diff\nprojects/*.json\tmerge=threadmind\n");
	tmt_sh("git -C '%s' config merge.threadmind.driver "
	       "'git-threadmind-merge %%O %%A %%B %%L %%P'",
	       repo);
	tm_store_free(store); /* the repository's config is read once */
	ck_assert_int_eq(tm_store_open(&store, repo), 0);
	check();
	/* an old-style registration: install upgrades it */
	ck_assert_uint_eq(report.n, 6);
	ck_assert_ptr_nonnull(
		strstr(find("merge-driver")->message, "old-style"));
	tmt_sh("git -C '%s' config merge.threadmind.driver '%s'", repo,
	       TM_INSTALL_DRIVER);
	tm_store_free(store);
	ck_assert_int_eq(tm_store_open(&store, repo), 0);
	check();
	ck_assert_uint_eq(report.n, 5);
	ck_assert_uint_eq(count("hooks"), 5);
	/* our stubs, as install writes them */
	hooks = tmt_resource("../../hooks");
	tmt_sh("cd '%s' && for h in post-checkout post-commit post-merge "
	       "post-rewrite pre-commit; do cp '%s/'$h .git/hooks/ && "
	       "chmod +x .git/hooks/$h; done",
	       repo, hooks);
	free(hooks);
	check();
	if (report.n)
		dump();
	ck_assert_uint_eq(report.n, 0);
	/* the stub of earlier versions: reported, install replaces it */
	{
		static const char old[] =
			"#!/bin/sh\n"
			"# ThreadMind's post-merge hook: runs 'git-threadmind "
			"hook post-merge'\n"
			"# when git-threadmind is on PATH, and never makes git "
			"fail.  Written by\n"
			"# 'git threadmind install', removed by 'git "
			"threadmind uninstall'.\n"
			"if command -v git-threadmind >/dev/null 2>&1; then\n"
			"\tgit-threadmind hook post-merge \"$@\"\n"
			"fi\n"
			"exit 0\n";
		char *p = tmt_join(repo, ".git/hooks/post-merge");

		tmt_write_file(p, old, sizeof(old) - 1);
		ck_assert_int_eq(chmod(p, 0755), 0);
		free(p);
	}
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_ptr_nonnull(strstr(find("hooks")->message,
				     "an earlier threadmind stub is the hook "
				     "post-merge"));
	hooks = tmt_resource("../../hooks");
	tmt_sh("cp '%s/post-merge' '%s/.git/hooks/'", hooks, repo);
	free(hooks);
	check();
	if (report.n)
		dump();
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

/* `paths` entries matching nothing in HEAD, with the new name of a
 * rename (doctor_paths.c). */
START_TEST(test_doctor_unmatched_paths)
{
	tm_doctor_options o = TM_DOCTOR_OPTIONS_INIT;
	const tm_doctor_problem *p;
	size_t i, n;

	tmt_sh("git init -q '%s' && cd '%s' && mkdir -p src/auth lib && "
	       "printf 'one\\ntwo\\nthree\\n' >src/auth/login.c && "
	       "printf 'x\\ny\\nz\\n' >lib/util.c && git add . && "
	       "git -c user.name=A -c user.email=a@b commit -q -m code",
	       repo, repo);
	init_store();
	thread("t", "id: t\ntitle: T\nparentId: main\n"
		    "paths: [\"src/auth/login.c\", \"lib/\", \"src/*.c\", "
		    "\":(exclude)x\", \"gone\"]\n");
	check();
	ck_assert_uint_eq(count(TM_DOCTOR_UNMATCHED_PATH), 1);
	p = find(TM_DOCTOR_UNMATCHED_PATH);
	ck_assert_str_eq(p->thread, "t");
	ck_assert_str_eq(p->file, ".threadmind/threads/app/t.md");
	ck_assert(!p->fixable);
	ck_assert_ptr_nonnull(strstr(p->message, "'gone' matches nothing"));
	ck_assert_ptr_null(strstr(p->message, "renamed"));
	ck_assert_ptr_nonnull(
		strstr(p->message,
		       "paths=src/auth/login.c,lib/,src/*.c,:(exclude)x'"));

	tmt_sh("cd '%s' && git mv src/auth/login.c src/auth/signin.c && "
	       "git mv lib libs && git -c user.name=A -c user.email=a@b "
	       "commit -q -m rename && echo more >>src/auth/signin.c && "
	       "git -c user.name=A -c user.email=a@b commit -q -a -m more",
	       repo);
	check();
	ck_assert_uint_eq(count(TM_DOCTOR_UNMATCHED_PATH), 3);
	for (i = n = 0; i < report.n; i++) {
		const char *m = report.items[i].message;

		if (strcmp(report.items[i].kind, TM_DOCTOR_UNMATCHED_PATH))
			continue;
		n += strstr(m, "'src/auth/login.c' matches nothing in HEAD; "
			       "renamed to 'src/auth/signin.c' in ") != NULL;
		n += strstr(m, "'lib/' matches nothing in HEAD; renamed to "
			       "'libs/' in ") != NULL;
		n += strstr(m, "'gone' matches nothing in HEAD; fix") != NULL;
	}
	ck_assert_uint_eq(n, 3);
	/* The glob still matches src/auth/signin.c; magic is not judged. */
	for (i = 0; i < report.n; i++)
		ck_assert_ptr_null(
			strstr(report.items[i].message, "'src/*.c'"));
	o.git = false;
	check_with(&o);
	ck_assert_uint_eq(count(TM_DOCTOR_UNMATCHED_PATH), 0);
}
END_TEST

/* A cloned thread of 5,000 entries matching nothing: one short problem
 * each (not the whole list in every message), an entry two threads share
 * reported for both, and in n log n (20,000 entries used to take 10 s). */
START_TEST(test_doctor_unmatched_paths_many)
{
	tm_buf fm = TM_BUF_INIT;
	size_t i, longest = 0, shared = 0;

	tmt_sh("git init -q '%s' && cd '%s' && echo x >f && git add f && "
	       "git -c user.name=A -c user.email=a@b commit -q -m code",
	       repo, repo);
	init_store();
	tm_buf_puts(&fm, "id: big\ntitle: B\nparentId: main\npaths:\n");
	for (i = 0; i < 5000; i++)
		tm_buf_printf(&fm, "  - src/f%zu\n", i);
	thread("big", tm_buf_cstr(&fm));
	thread("small", "id: small\ntitle: S\nparentId: main\n"
			"paths: [\"src/f7\", \"f\"]\n");
	check();
	ck_assert_uint_eq(count(TM_DOCTOR_UNMATCHED_PATH), 5001);
	for (i = 0; i < report.n; i++) {
		const char *m = report.items[i].message;

		if (strcmp(report.items[i].kind, TM_DOCTOR_UNMATCHED_PATH))
			continue;
		if (strlen(m) > longest)
			longest = strlen(m);
		shared += strstr(m, "'src/f7' matches nothing") != NULL;
		if (!strcmp(report.items[i].thread, "big"))
			ck_assert_ptr_nonnull(
				strstr(m, "in its paths (5000 entries)"));
		else
			ck_assert_ptr_nonnull(strstr(
				m, "'git threadmind set small paths=f'"));
	}
	ck_assert_uint_eq(shared, 2);
	ck_assert_uint_lt(longest, 200);
	tm_buf_release(&fm);
}
END_TEST

START_TEST(test_doctor_tracked_lock_folder)
{
	tm_strv done = TM_STRV_INIT, failed = TM_STRV_INIT;

	tmt_sh("git init -q '%s'", repo);
	init_store();
	put(".lock/held", "someone\n");
	put(".lock/sub/deeper", "x");
	age(".lock", 3600);
	tmt_sh("cd '%s' && git add -f .threadmind/.lock", repo);
	check();
	ck_assert_uint_eq(count("tracked"), 1);
	ck_assert_uint_eq(count("stale-lock"), 0);
	ck_assert_str_eq(find("tracked")->file, ".threadmind/.lock");
	ck_assert_ptr_nonnull(strstr(find("tracked")->message, "2 files"));
	ck_assert(find("tracked")->fixable);
	/* The store lock would wait for it: the repair comes first. */
	ck_assert_int_eq(tm_doctor_fix(&done, &failed, store, &report, NULL),
			 0);
	ck_assert_uint_eq(failed.n, 0);
	ck_assert_str_eq(done.items[0], "untracked '.threadmind/.lock' (commit "
					"the removal) and removed it");
	ck_assert(!exists(".lock"));
	check();
	ck_assert_uint_eq(count("tracked"), 0);
	tm_strv_clear(&done);
	tm_strv_clear(&failed);
}
END_TEST

START_TEST(test_doctor_tracked_lock_file_that_changed_is_kept)
{
	tm_strv done = TM_STRV_INIT, failed = TM_STRV_INIT;

	tmt_sh("git init -q '%s' && git -C '%s' config threadmind.lockTimeout "
	       "0",
	       repo, repo);
	init_store();
	put(".lock", "committed\n");
	tmt_sh("cd '%s' && git add -f .threadmind/.lock", repo);
	put(".lock", "a live one\n");
	check();
	ck_assert_uint_eq(count("tracked"), 1);
	/* Untracked, left on disk; then the live lock holds the store. */
	ck_assert_int_eq(tm_doctor_fix(&done, &failed, store, &report, NULL),
			 TM_ELOCKED);
	ck_assert_ptr_nonnull(strstr(done.items[0], "left the file on disk"));
	ck_assert(exists(".lock"));
	tm_strv_clear(&done);
	tm_strv_clear(&failed);
}
END_TEST

START_TEST(test_doctor_upgrade_pending)
{
	init_store();
	put("trees/app.json", "{\"main\": null}\n");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(find("upgrade")->file, ".threadmind/trees");
	ck_assert_ptr_nonnull(strstr(find("upgrade")->message, "migrate"));
	ck_assert(find("upgrade")->fixable);
	/* --fix runs the upgrade. */
	ck_assert_uint_eq(fix(), 1);
	ck_assert(!exists("trees"));
	check();
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

START_TEST(test_doctor_upgrade_blocked_and_set_aside)
{
	tm_strv done = TM_STRV_INIT, failed = TM_STRV_INIT;

	init_store();
	thread("w", "id: w\ntitle: W\nparentId: main\n");
	put("threads/app/broken.md", "---\nid: broken\n");
	put("trees/app.json", "{\"broken\": \"w\"}\n");
	check();
	/* Nothing the upgrade can do: not fixable, and it says why. */
	ck_assert(!find("upgrade")->fixable);
	ck_assert_ptr_nonnull(strstr(find("upgrade")->message, "broken.md"));
	ck_assert_ptr_nonnull(strstr(find("upgrade")->message, "fix the file"));

	/* An index that does not parse: --fix sets it aside, and the file
	 * set aside is a finding (not fixable) until deleted. */
	put("trees/app.json", "{\"broken\": ");
	check();
	ck_assert(find("upgrade")->fixable);
	ck_assert_int_eq(tm_doctor_fix(&done, &failed, store, &report, NULL),
			 0);
	ck_assert_uint_eq(done.n, 1);
	ck_assert_str_eq(done.items[0],
			 "set aside trees/app.json as trees/app.json.invalid");
	ck_assert_uint_eq(failed.n, 1);
	ck_assert_ptr_nonnull(strstr(failed.items[0], "parentId by hand"));
	check();
	ck_assert_uint_eq(count("upgrade"), 1);
	ck_assert_str_eq(find("upgrade")->file,
			 ".threadmind/trees/app.json.invalid");
	ck_assert(!find("upgrade")->fixable);
	tm_strv_clear(&done);
	tm_strv_clear(&failed);
}
END_TEST

START_TEST(test_doctor_project_filter)
{
	tm_doctor_options o = TM_DOCTOR_OPTIONS_INIT;

	init_store();
	put("projects/other.json", "{\"id\": \"other\"}\n");
	put("threads/other/main.md", "---\nid: main\ntitle: Main\n"
				     "parentId: null\n---\n");
	put("threads/other/bad.md", "---\nid: bad\n");
	thread("w", "id: w\ntitle: W\nparentId: main\nstatus: wip\n");
	check();
	ck_assert_uint_eq(report.n, 2);
	o.project = "other";
	check_with(&o);
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(report.items[0].kind, "unreadable");
	ck_assert_str_eq(report.items[0].project, "other");
	o.project = "app";
	check_with(&o);
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(report.items[0].kind, "unknown-status");
}
END_TEST

START_TEST(test_doctor_fix_without_fixable_takes_no_lock)
{
	init_store();
	thread("w", "id: w\ntitle: W\nparentId: main\nstatus: wip\n");
	/* A live lock: taking it would wait for the timeout. */
	put(".lock", "{\"pid\":1}");
	check();
	ck_assert_uint_eq(report.n, 1);
	ck_assert_uint_eq(fix(), 0);
	ck_assert(exists(".lock"));
}
END_TEST

/* A refresh hook: another process takes the lock over. */
static void take_over(tm_store *st, void *payload)
{
	(void)payload;
	tmt_take_over_lock(tm_store_dir(st));
}

START_TEST(test_doctor_fix_stops_when_lock_taken_over)
{
	tm_strv done = TM_STRV_INIT, failed = TM_STRV_INIT;
	char *data, *lock;

	init_store();
	thread("a", "id: x\ntitle: A\nparentId: main\n");
	thread("b", "id: y\ntitle: B\nparentId: main\n");
	check();
	ck_assert_uint_eq(count("id-mismatch"), 2);
	ck_assert_str_eq(report.items[0].thread, "a");
	/* taken over after the first repair */
	tm_store__set_refresh_hook(take_over, NULL, true);
	ck_assert_int_eq(tm_doctor_fix(&done, &failed, store, &report, NULL),
			 TM_ELOCKED);
	tm_store__set_refresh_hook(NULL, NULL, false);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "lost the lock"));
	ck_assert_uint_eq(done.n, 1);
	ck_assert_uint_eq(failed.n, 0);
	data = get("threads/app/a.md");
	ck_assert_ptr_nonnull(strstr(data, "id: a\n"));
	free(data);
	data = get("threads/app/b.md");
	ck_assert_ptr_nonnull(strstr(data, "id: y\n"));
	free(data);
	/* the other process's lock file stays */
	lock = get(".lock");
	ck_assert_str_eq(lock, "{\"pid\":1}\n");
	free(lock);
	tm_strv_clear(&done);
	tm_strv_clear(&failed);
}
END_TEST

Suite *doctor_suite(void)
{
	Suite *s = suite_create("doctor");
	TCase *tc = tcase_create("report");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_clean_store_has_no_problem);
	tcase_add_test(tc, test_doctor_add_copies_and_counts);
	tcase_add_test(tc, test_doctor_bad_options_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_bad_thread_file_name);
	tcase_add_test(tc, test_doctor_bad_project_names);
	tcase_add_test(tc, test_doctor_unreadable_threads);
	tcase_add_test(tc, test_doctor_corrupt_config_and_project);
	tcase_add_test(tc, test_doctor_corrupt_config_renamed_aside);
	tcase_add_test(tc, test_doctor_project_id_mismatch_fixed);
	tcase_add_test(tc, test_doctor_threads_folder_without_project);
	tcase_add_test(tc, test_doctor_symlinked_threads_folder_once);
	tcase_add_test(tc, test_doctor_project_without_root);
	suite_add_tcase(s, tc);

	tc = tcase_create("ids");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_id_mismatch_found_and_fixed);
	tcase_add_test(tc, test_doctor_missing_id_field_fixed);
	tcase_add_test(tc, test_doctor_repair_of_a_gone_problem_is_silent);
	suite_add_tcase(s, tc);

	tc = tcase_create("tree");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_orphan_reported);
	tcase_add_test(tc, test_doctor_child_of_unreadable_is_no_orphan);
	tcase_add_test(tc, test_doctor_cycle_reported_once);
	tcase_add_test(tc, test_doctor_unknown_status);
	suite_add_tcase(s, tc);

	tc = tcase_create("shared-thread-checks");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_check_threads_pure);
	tcase_add_test(tc, test_doctor_project_load);
	suite_add_tcase(s, tc);

	tc = tcase_create("lock-and-tmp");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_fresh_lock_is_fine);
	tcase_add_test(tc, test_doctor_stale_lock_found_and_removed);
	tcase_add_test(tc, test_doctor_busy_folder_lock_not_fixable);
	tcase_add_test(tc, test_doctor_stray_tmp_old_and_young);
	tcase_add_test(tc, test_doctor_tmp_min_age_option);
	tcase_add_test(tc, test_doctor_fix_without_fixable_takes_no_lock);
	tcase_add_test(tc, test_doctor_fix_stops_when_lock_taken_over);
	suite_add_tcase(s, tc);

	tc = tcase_create("recovery");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_recovery_restored);
	tcase_add_test(tc, test_doctor_recovery_keeps_broken);
	tcase_add_test(tc, test_doctor_recovery_unblocks_upgrade);
	tcase_add_test(tc, test_doctor_trees_tmp_is_the_upgrades);
	tcase_add_test(tc, test_doctor_strays_kept);
	suite_add_tcase(s, tc);

	tc = tcase_create("gitignore");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_gitignore_lines_added);
	tcase_add_test(tc, test_doctor_gitignore_keeps_crlf);
	tcase_add_test(tc, test_doctor_gitignore_missing_created);
	suite_add_tcase(s, tc);

	tc = tcase_create("setup");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_doctor_git_setup);
	tcase_add_test(tc, test_doctor_gitattributes_as_git_sees_them);
	tcase_add_test(tc, test_doctor_upgrade_pending);
	tcase_add_test(tc, test_doctor_unmatched_paths);
	tcase_add_test(tc, test_doctor_unmatched_paths_many);
	tcase_add_test(tc, test_doctor_tracked_lock_folder);
	tcase_add_test(tc, test_doctor_tracked_lock_file_that_changed_is_kept);
	tcase_add_test(tc, test_doctor_upgrade_blocked_and_set_aside);
	tcase_add_test(tc, test_doctor_project_filter);
	suite_add_tcase(s, tc);
	return s;
}
