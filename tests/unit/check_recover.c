/* Unit tests of lib/store/recover.c: the temp-file names, the recovery rule
 * (pure), and the restore, removal and trees/ index read on disk. */
#include "recover.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A thread file as ThreadMind 0.4.1 writes it (raw values, no final
 * newline), and two ways a crash leaves it cut. */
#define THREAD_04                                                   \
	"---\nid: auth\ntitle: Auth system\nparentId: main\n"       \
	"author: alice-1a2b\ncreatedAt: 2026-04-15T10:01:00.000Z\n" \
	"updatedAt: 2026-04-15T10:01:00.000Z\n---\n\n"              \
	"## Decisions\n- JWT in httpOnly cookies\n## State\n- login done"
#define CUT_IN_HEADER "---\nid: auth\ntitle: Auth sy"
#define CUT_IN_BODY                                                 \
	"---\nid: auth\ntitle: Auth system\nparentId: main\n"       \
	"author: alice-1a2b\ncreatedAt: 2026-04-15T10:01:00.000Z\n" \
	"updatedAt: 2026-04-15T10:01:00.000Z\n---\n\n## Decisions\n- JWT"
#define INDEX_04                                                          \
	"{\n  \"nodes\": {\n    \"main\": {\n      \"parentId\": null,\n" \
	"      \"children\": [\"kid\"]\n    },\n    \"kid\": {\n"         \
	"      \"parentId\": \"main\",\n      \"children\": []\n    }\n  }\n}"

#define UUID "1b4e28ba-2fa1-4d2b-883f-0016d3cca427"

/* ---- names ---- */

static void assert_target(const char *name, const char *want)
{
	char *got = tm_recover_target_name(name);

	if (!want)
		ck_assert_msg(!got, "'%s' gave '%s'", name, got);
	else
		ck_assert_msg(got && !strcmp(got, want), "'%s' gave '%s'", name,
			      got ? got : "(null)");
	free(got);
}

START_TEST(test_recover_target_of_04_names)
{
	assert_target("auth.md.3f2a9c1e.tmp", "auth.md");
	assert_target("p.json.9C1E5B7D.tmp", "p.json");
	assert_target("config.json.00000000.tmp", "config.json");
	/* 0.4's file of the empty id */
	assert_target(".md.3f2a9c1e.tmp", ".md");
	/* the last dotted part is the one that counts */
	assert_target("a.3f2a9c1e.md.3f2a9c1e.tmp", "a.3f2a9c1e.md");
}
END_TEST

START_TEST(test_recover_target_of_our_names)
{
	assert_target("auth.md." UUID ".tmp", "auth.md");
	assert_target("config.json." UUID ".tmp", "config.json");
}
END_TEST

START_TEST(test_recover_names_that_are_no_tmp)
{
	assert_target("auth.md", NULL);
	assert_target("auth.md.tmp", NULL);
	assert_target("auth.md.3f2a9c1.tmp", NULL);   /* 7 digits */
	assert_target("auth.md.3f2a9c1e0.tmp", NULL); /* 9 digits */
	assert_target("auth.md.3f2a9c1g.tmp", NULL);
	assert_target("auth.md3f2a9c1e.tmp", NULL);
	assert_target("auth.md.3f2a9c1e.tmpx", NULL);
	assert_target("auth.md.3f2a9c1e.TMP", NULL);
	assert_target(".3f2a9c1e.tmp", NULL);
	assert_target("auth.md.1b4e28ba_2fa1-4d2b-883f-0016d3cca427.tmp", NULL);
	assert_target("auth.md.1b4e28ba-2fa1-4d2b-883f-0016d3cca4.tmp", NULL);
	assert_target("." UUID ".tmp", NULL);
	assert_target("", NULL);
}
END_TEST

START_TEST(test_recover_format_by_place)
{
	ck_assert_int_eq(tm_recover_format_of("threads/app", "auth.md"),
			 TM_RECOVER_THREAD);
	ck_assert_int_eq(tm_recover_format_of("threads/app", ".md"),
			 TM_RECOVER_THREAD);
	ck_assert_int_eq(tm_recover_format_of("threads/app", "auth.json"),
			 TM_RECOVER_OTHER);
	ck_assert_int_eq(tm_recover_format_of("threads", "auth.md"),
			 TM_RECOVER_OTHER);
	ck_assert_int_eq(tm_recover_format_of("threads/", "auth.md"),
			 TM_RECOVER_OTHER);
	ck_assert_int_eq(tm_recover_format_of("threads/a/b", "auth.md"),
			 TM_RECOVER_OTHER);
	ck_assert_int_eq(tm_recover_format_of("projects", "app.json"),
			 TM_RECOVER_OBJECT);
	ck_assert_int_eq(tm_recover_format_of("", "config.json"),
			 TM_RECOVER_OBJECT);
	ck_assert_int_eq(tm_recover_format_of("", "other.json"),
			 TM_RECOVER_OTHER);
	ck_assert_int_eq(tm_recover_format_of("", ".gitignore"),
			 TM_RECOVER_OTHER);
	ck_assert_int_eq(tm_recover_format_of("trees", "p.json"),
			 TM_RECOVER_INDEX);
	ck_assert_int_eq(tm_recover_format_of("stats", "p.json"),
			 TM_RECOVER_OTHER);
}
END_TEST

START_TEST(test_recover_broken_names)
{
	char *of = NULL;

	ck_assert(tm_recover_is_broken_name(&of, "auth.md.broken"));
	ck_assert_str_eq(of, "auth.md");
	free(of);
	ck_assert(tm_recover_is_broken_name(&of, "auth.md.broken-2"));
	ck_assert_str_eq(of, "auth.md");
	free(of);
	ck_assert(tm_recover_is_broken_name(&of, "a.broken.md.broken-10"));
	ck_assert_str_eq(of, "a.broken.md");
	free(of);
	ck_assert(tm_recover_is_broken_name(NULL, "config.json.broken"));
	ck_assert(!tm_recover_is_broken_name(NULL, "auth.md.broken-1"));
	ck_assert(!tm_recover_is_broken_name(NULL, "auth.md.broken-"));
	ck_assert(!tm_recover_is_broken_name(NULL, "auth.md.broken-2x"));
	ck_assert(!tm_recover_is_broken_name(NULL, "auth.md.brokenx"));
	ck_assert(!tm_recover_is_broken_name(NULL, "auth.md.broken.tmp"));
	ck_assert(!tm_recover_is_broken_name(NULL, ".broken"));
	ck_assert(!tm_recover_is_broken_name(NULL, "auth.md"));
}
END_TEST

/* ---- the rule ---- */

/* A file with `data` (NULL: missing) last modified at second `t`. */
static tm_recover_file file_at(const char *data, long t)
{
	tm_recover_file f;

	memset(&f, 0, sizeof(f));
	f.exists = data != NULL;
	f.data = data;
	f.size = data ? strlen(data) : 0;
	f.mtime.tv_sec = t;
	return f;
}

/* The verdict of the thread rule for tmp `tmp` at time tt and target
 * `target` at time ut; *state the target's state. */
static tm_recover_verdict judge(tm_recover_state *state,
				tm_recover_format format, const char *tmp,
				long tt, const char *target, long ut)
{
	tm_recover_file a = file_at(tmp, tt), b = file_at(target, ut);
	const char *name = format == TM_RECOVER_THREAD ? "auth.md" : "p.json";

	return tm_recover_classify(state, format, name, &a, &b);
}

START_TEST(test_recover_empty_target_is_recovered)
{
	tm_recover_state st;

	ck_assert_int_eq(judge(&st, TM_RECOVER_THREAD, THREAD_04, 100, "", 200),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_EMPTY);
	/* whichever is newer: 0.4 truncated the target after the tmp */
	ck_assert_int_eq(judge(&st, TM_RECOVER_THREAD, THREAD_04, 300, "", 200),
			 TM_RECOVER_RESTORE);
	ck_assert_str_eq(tm_recover_state_text(st), "is empty");
}
END_TEST

START_TEST(test_recover_cut_target_is_recovered)
{
	tm_recover_state st;

	ck_assert_int_eq(judge(&st, TM_RECOVER_THREAD, THREAD_04, 100,
			       CUT_IN_HEADER, 200),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_BROKEN);
	/* cut in the summary: it parses, but is shorter */
	ck_assert_int_eq(
		judge(&st, TM_RECOVER_THREAD, THREAD_04, 100, CUT_IN_BODY, 200),
		TM_RECOVER_RESTORE);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_SHORTER);
	ck_assert_str_eq(tm_recover_state_text(st), "is cut short");
}
END_TEST

START_TEST(test_recover_missing_target_is_recovered)
{
	tm_recover_state st;

	ck_assert_int_eq(judge(&st, TM_RECOVER_THREAD, THREAD_04, 100, NULL, 0),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_MISSING);
}
END_TEST

START_TEST(test_recover_unparseable_target_is_recovered)
{
	tm_recover_state st;

	/* longer than the tmp, but no thread file */
	ck_assert_int_eq(judge(&st, TM_RECOVER_THREAD, THREAD_04, 100,
			       "no frontmatter at all, only words words words "
			       "words words words words words words words "
			       "words words words words words words words "
			       "words words words words words words words "
			       "words words words words words words words",
			       50),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_BROKEN);
	ck_assert_str_eq(tm_recover_state_text(st), "does not parse");
}
END_TEST

START_TEST(test_recover_complete_target_makes_a_stray)
{
	tm_recover_state st;

	/* the same bytes, the tmp older: safe to remove */
	ck_assert_int_eq(
		judge(&st, TM_RECOVER_THREAD, THREAD_04, 100, THREAD_04, 200),
		TM_RECOVER_STRAY_OLD);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_FINE);
	/* the tmp newer: kept */
	ck_assert_int_eq(
		judge(&st, TM_RECOVER_THREAD, THREAD_04, 300, THREAD_04, 200),
		TM_RECOVER_STRAY);
	/* the same second: not older, kept */
	ck_assert_int_eq(
		judge(&st, TM_RECOVER_THREAD, THREAD_04, 200, THREAD_04, 200),
		TM_RECOVER_STRAY);
	/* a cut tmp, older and smaller: safe to remove */
	ck_assert_int_eq(
		judge(&st, TM_RECOVER_THREAD, CUT_IN_BODY, 100, THREAD_04, 200),
		TM_RECOVER_STRAY_OLD);
	/* a cut tmp, newer: kept */
	ck_assert_int_eq(
		judge(&st, TM_RECOVER_THREAD, CUT_IN_BODY, 300, THREAD_04, 200),
		TM_RECOVER_STRAY);
}
END_TEST

START_TEST(test_recover_larger_stray_is_kept)
{
	/* older, but larger (and no thread file): kept */
	ck_assert_int_eq(judge(NULL, TM_RECOVER_THREAD,
			       "junk junk junk junk junk junk junk junk junk "
			       "junk junk junk junk junk junk junk junk junk "
			       "junk junk junk junk junk junk junk junk junk "
			       "junk junk junk junk junk junk junk junk junk "
			       "junk junk junk junk junk junk junk junk junk "
			       "junk junk junk junk junk junk junk junk junk "
			       "junk junk junk junk junk junk junk junk junk "
			       "junk junk junk junk junk junk junk junk junk",
			       100, THREAD_04, 200),
			 TM_RECOVER_STRAY);
}
END_TEST

START_TEST(test_recover_stray_without_target_is_kept)
{
	tm_recover_state st;

	ck_assert_int_eq(
		judge(&st, TM_RECOVER_THREAD, CUT_IN_HEADER, 100, NULL, 0),
		TM_RECOVER_STRAY);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_MISSING);
	/* an empty tmp is no copy of anything */
	ck_assert_int_eq(judge(&st, TM_RECOVER_THREAD, "", 100, "", 200),
			 TM_RECOVER_STRAY_OLD);
	ck_assert_int_eq(judge(&st, TM_RECOVER_THREAD, "", 100, NULL, 0),
			 TM_RECOVER_STRAY);
}
END_TEST

START_TEST(test_recover_unread_target_never_replaced)
{
	tm_recover_file tmp = file_at(THREAD_04, 100), target;
	tm_recover_state st;

	memset(&target, 0, sizeof(target));
	target.exists = true; /* a link, or over 1 MiB: not read */
	target.size = 2 * 1024 * 1024;
	target.mtime.tv_sec = 200;
	ck_assert_int_eq(tm_recover_classify(&st, TM_RECOVER_THREAD, "auth.md",
					     &tmp, &target),
			 TM_RECOVER_STRAY_OLD);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_UNREAD);
	target.size = 0;
	ck_assert_int_eq(tm_recover_classify(&st, TM_RECOVER_THREAD, "auth.md",
					     &tmp, &target),
			 TM_RECOVER_STRAY);
}
END_TEST

START_TEST(test_recover_json_files)
{
	tm_recover_state st;
	const char *project = "{\n  \"id\": \"p\",\n  \"title\": \"P\"\n}";

	ck_assert_int_eq(judge(&st, TM_RECOVER_OBJECT, project, 100, "", 200),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(judge(&st, TM_RECOVER_OBJECT, project, 100,
			       "{\n  \"id\": \"p\",\n  \"ti", 200),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_BROKEN);
	/* JSON, but not the object a project file is */
	ck_assert_int_eq(judge(&st, TM_RECOVER_OBJECT, project, 100,
			       "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]",
			       200),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(judge(&st, TM_RECOVER_OBJECT, "[1, 2]", 100, NULL, 0),
			 TM_RECOVER_STRAY);
	ck_assert_int_eq(
		judge(&st, TM_RECOVER_OBJECT, project, 100, project, 200),
		TM_RECOVER_STRAY_OLD);
	/* the 0.4 index */
	ck_assert_int_eq(judge(&st, TM_RECOVER_INDEX, INDEX_04, 100, "", 200),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(judge(&st, TM_RECOVER_INDEX, INDEX_04, 100,
			       "{\n  \"nodes\": {\n    \"main\": {", 200),
			 TM_RECOVER_RESTORE);
	ck_assert_int_eq(
		judge(&st, TM_RECOVER_INDEX, "{\"nodes\": {", 100, "", 200),
		TM_RECOVER_STRAY);
}
END_TEST

START_TEST(test_recover_other_files_never_recovered)
{
	tm_recover_file tmp = file_at("config.json\n.lock\n*.tmp\n", 100);
	tm_recover_file target = file_at("", 200);
	tm_recover_state st;

	ck_assert_int_eq(tm_recover_classify(&st, TM_RECOVER_OTHER,
					     ".gitignore", &tmp, &target),
			 TM_RECOVER_STRAY);
	ck_assert_int_eq(st, TM_RECOVER_TARGET_FINE);
	target = file_at(NULL, 0);
	ck_assert_int_eq(tm_recover_classify(&st, TM_RECOVER_OTHER,
					     ".gitignore", &tmp, &target),
			 TM_RECOVER_STRAY);
	ck_assert(!tm_recover_parses(TM_RECOVER_OTHER, ".gitignore", "x", 1));
}
END_TEST

/* ---- on disk ---- */

static char *dir;
static int dfd = -1;

static void setup(void)
{
	char *threads;

	dir = tmt_mkdtemp();
	threads = tmt_join(dir, "threads/app");
	tmt_mkdirs(threads);
	free(threads);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
}

static void teardown(void)
{
	if (dfd >= 0)
		close(dfd);
	dfd = -1;
	tmt_rmtree(dir);
	free(dir);
	dir = NULL;
}

static void put(const char *name, const char *content)
{
	tmt_put(dir, name, content);
}

static char *get(const char *name)
{
	char *p = tmt_join(dir, name), *data = tmt_read_file(p, NULL);

	free(p);
	return data;
}

static bool exists(const char *name)
{
	char *p = tmt_join(dir, name);
	struct stat st;
	bool r = lstat(p, &st) == 0;

	free(p);
	return r;
}

/* Set the mtime of `name` to `ago` seconds in the past. */
static void age(const char *name, int ago)
{
	char *p = tmt_join(dir, name);
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= ago;
	t[1] = t[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, p, t, AT_SYMLINK_NOFOLLOW), 0);
	free(p);
}

static int sub(const char *rel)
{
	int fd = openat(dfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

static void make_trees(void)
{
	char *p = tmt_join(dir, "trees");

	tmt_mkdirs(p);
	free(p);
}

START_TEST(test_recover_check_on_disk)
{
	tm_recover_item it;
	int fd = sub("threads/app");

	put("threads/app/auth.md", "");
	put("threads/app/auth.md.3f2a9c1e.tmp", THREAD_04);
	put("threads/app/auth.md." UUID ".tmp", CUT_IN_BODY);
	put("threads/app/auth.md.77.tmp", THREAD_04);
	age("threads/app/auth.md.3f2a9c1e.tmp", 3600);
	ck_assert_int_eq(tm_recover_check_at(&it, fd, "threads/app",
					     "auth.md.3f2a9c1e.tmp"),
			 0);
	ck_assert_str_eq(it.target, "auth.md");
	ck_assert_int_eq(it.format, TM_RECOVER_THREAD);
	ck_assert_int_eq(it.verdict, TM_RECOVER_RESTORE);
	ck_assert_int_eq(it.state, TM_RECOVER_TARGET_EMPTY);
	ck_assert(it.age > 3500 && it.age < 3700);
	tm_recover_item_clear(&it);
	ck_assert_int_eq(tm_recover_check_at(&it, fd, "threads/app",
					     "auth.md." UUID ".tmp"),
			 0);
	ck_assert_str_eq(it.target, "auth.md");
	ck_assert_int_eq(it.verdict, TM_RECOVER_RESTORE);
	tm_recover_item_clear(&it);
	/* no name of ours or of 0.4: no target */
	ck_assert_int_eq(
		tm_recover_check_at(&it, fd, "threads/app", "auth.md.77.tmp"),
		0);
	ck_assert_ptr_null(it.target);
	ck_assert_int_eq(it.verdict, TM_RECOVER_STRAY);
	tm_recover_item_clear(&it);
	ck_assert_int_eq(
		tm_recover_check_at(&it, fd, "threads/app", "gone.md.tmp"),
		TM_ENOTFOUND);
	tm_error_clear();
	close(fd);
}
END_TEST

START_TEST(test_recover_restore_empty_target)
{
	char *data, *broken = NULL;
	bool done;
	int fd = sub("threads/app");

	put("threads/app/auth.md", "");
	put("threads/app/auth.md.3f2a9c1e.tmp", THREAD_04);
	age("threads/app/auth.md.3f2a9c1e.tmp", 3600);
	ck_assert_int_eq(tm_recover_restore_at(&done, &broken, fd,
					       "threads/app",
					       "auth.md.3f2a9c1e.tmp", 60),
			 0);
	ck_assert(done);
	ck_assert_ptr_null(broken); /* an empty file holds nothing to keep */
	ck_assert(!exists("threads/app/auth.md.3f2a9c1e.tmp"));
	ck_assert(!exists("threads/app/auth.md.broken"));
	data = get("threads/app/auth.md");
	ck_assert_str_eq(data, THREAD_04);
	free(data);
	close(fd);
}
END_TEST

START_TEST(test_recover_restore_keeps_cut_target)
{
	char *data, *broken = NULL;
	bool done;
	int fd = sub("threads/app");

	put("threads/app/auth.md", CUT_IN_BODY);
	put("threads/app/auth.md.3f2a9c1e.tmp", THREAD_04);
	put("threads/app/auth.md.broken", "an older one");
	age("threads/app/auth.md.3f2a9c1e.tmp", 3600);
	ck_assert_int_eq(tm_recover_restore_at(&done, &broken, fd,
					       "threads/app",
					       "auth.md.3f2a9c1e.tmp", 60),
			 0);
	ck_assert(done);
	ck_assert_str_eq(broken, "auth.md.broken-2");
	free(broken);
	data = get("threads/app/auth.md.broken-2");
	ck_assert_str_eq(data, CUT_IN_BODY);
	free(data);
	data = get("threads/app/auth.md.broken");
	ck_assert_str_eq(data, "an older one");
	free(data);
	data = get("threads/app/auth.md");
	ck_assert_str_eq(data, THREAD_04);
	free(data);
	ck_assert(!exists("threads/app/auth.md.3f2a9c1e.tmp"));
	close(fd);
}
END_TEST

START_TEST(test_recover_restore_missing_target_and_our_tmp)
{
	char *data, *broken = NULL;
	bool done;
	int fd = sub("threads/app");

	put("threads/app/auth.md." UUID ".tmp", THREAD_04);
	age("threads/app/auth.md." UUID ".tmp", 3600);
	ck_assert_int_eq(tm_recover_restore_at(&done, &broken, fd,
					       "threads/app",
					       "auth.md." UUID ".tmp", 60),
			 0);
	ck_assert(done);
	ck_assert_ptr_null(broken);
	data = get("threads/app/auth.md");
	ck_assert_str_eq(data, THREAD_04);
	free(data);
	close(fd);
}
END_TEST

START_TEST(test_recover_restore_only_what_the_rule_says)
{
	char *data;
	bool done;
	int fd = sub("threads/app"), tfd;

	/* young: a write may be in progress */
	put("threads/app/auth.md", "");
	put("threads/app/auth.md.3f2a9c1e.tmp", THREAD_04);
	ck_assert_int_eq(tm_recover_restore_at(&done, NULL, fd, "threads/app",
					       "auth.md.3f2a9c1e.tmp", 60),
			 0);
	ck_assert(!done);
	ck_assert(exists("threads/app/auth.md.3f2a9c1e.tmp"));
	/* a stray: the target is complete */
	put("threads/app/main.md", THREAD_04);
	put("threads/app/main.md.3f2a9c1e.tmp", CUT_IN_BODY);
	age("threads/app/main.md.3f2a9c1e.tmp", 3600);
	ck_assert_int_eq(tm_recover_restore_at(&done, NULL, fd, "threads/app",
					       "main.md.3f2a9c1e.tmp", 60),
			 0);
	ck_assert(!done);
	data = get("threads/app/main.md");
	ck_assert_str_eq(data, THREAD_04);
	free(data);
	/* gone meanwhile */
	ck_assert_int_eq(tm_recover_restore_at(&done, NULL, fd, "threads/app",
					       "x.md.3f2a9c1e.tmp", 60),
			 0);
	ck_assert(!done);
	close(fd);
	/* the 0.4 index is the upgrade's to read */
	make_trees();
	put("trees/p.json", "");
	put("trees/p.json.9c1e5b7d.tmp", INDEX_04);
	age("trees/p.json.9c1e5b7d.tmp", 3600);
	tfd = sub("trees");
	ck_assert_int_eq(tm_recover_restore_at(&done, NULL, tfd, "trees",
					       "p.json.9c1e5b7d.tmp", 60),
			 0);
	ck_assert(!done);
	ck_assert(exists("trees/p.json.9c1e5b7d.tmp"));
	close(tfd);
}
END_TEST

START_TEST(test_recover_remove_only_old_small_strays)
{
	bool removed;
	int fd = sub("threads/app");

	put("threads/app/main.md", THREAD_04);
	put("threads/app/main.md.0a1b2c3d.tmp", CUT_IN_BODY);
	put("threads/app/main.md.1a1b2c3d.tmp", CUT_IN_BODY);
	put("threads/app/main.md.2a1b2c3d.tmp",
	    THREAD_04 "\nand more than the file holds");
	put("threads/app/main.md.3a1b2c3d.tmp", CUT_IN_BODY);
	age("threads/app/main.md", 600);
	age("threads/app/main.md.0a1b2c3d.tmp", 3600); /* older, smaller */
	age("threads/app/main.md.1a1b2c3d.tmp", 300);  /* newer */
	age("threads/app/main.md.2a1b2c3d.tmp", 3600); /* larger */
	/* 3a1b2c3d: newer and young */
	ck_assert_int_eq(tm_recover_remove_at(&removed, fd, "threads/app",
					      "main.md.0a1b2c3d.tmp", 60),
			 0);
	ck_assert(removed);
	ck_assert(!exists("threads/app/main.md.0a1b2c3d.tmp"));
	ck_assert_int_eq(tm_recover_remove_at(&removed, fd, "threads/app",
					      "main.md.1a1b2c3d.tmp", 60),
			 0);
	ck_assert(!removed);
	ck_assert_int_eq(tm_recover_remove_at(&removed, fd, "threads/app",
					      "main.md.2a1b2c3d.tmp", 60),
			 0);
	ck_assert(!removed);
	ck_assert_int_eq(tm_recover_remove_at(&removed, fd, "threads/app",
					      "main.md.3a1b2c3d.tmp", 60),
			 0);
	ck_assert(!removed);
	ck_assert(exists("threads/app/main.md.1a1b2c3d.tmp"));
	ck_assert(exists("threads/app/main.md.2a1b2c3d.tmp"));
	ck_assert(exists("threads/app/main.md.3a1b2c3d.tmp"));
	close(fd);
}
END_TEST

/* The upgrade's read of trees/p.json. */
static char *index_read(tm_strv *report, bool dry_run)
{
	tm_buf out = TM_BUF_INIT;
	int fd = sub("trees");

	ck_assert_int_eq(tm_recover_index_read(&out, report, fd, "p.json",
					       ".threadmind/trees/p.json",
					       dry_run),
			 0);
	close(fd);
	return tm_buf_detach(&out);
}

START_TEST(test_recover_index_from_tmp)
{
	tm_strv report = TM_STRV_INIT;
	char *data;

	make_trees();
	put("trees/p.json", "");
	put("trees/p.json.9c1e5b7d.tmp", INDEX_04);
	put("trees/p.json.0c1e5b7d.tmp", "{\"nodes\": {}}"); /* older one */
	put("trees/q.json.1c1e5b7d.tmp", "{\"other\": 1}");
	age("trees/p.json.9c1e5b7d.tmp", 3600);
	age("trees/p.json.0c1e5b7d.tmp", 7200);
	data = index_read(&report, false);
	ck_assert_str_eq(data, INDEX_04);
	free(data);
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(report.items[0],
			 "trees/p.json is empty: used the complete index an "
			 "interrupted 0.4 write left in "
			 "trees/p.json.9c1e5b7d.tmp (kept: delete it once the "
			 "parents look right)");
	ck_assert(exists("trees/p.json.9c1e5b7d.tmp"));
	ck_assert(exists("trees/p.json"));
	tm_strv_clear(&report);
	/* cut short, and a dry run */
	put("trees/p.json", "{\n  \"nodes\": {\n    \"ma");
	data = index_read(&report, true);
	ck_assert_str_eq(data, INDEX_04);
	free(data);
	ck_assert_uint_eq(report.n, 1);
	ck_assert_ptr_nonnull(strstr(report.items[0],
				     "trees/p.json does not parse: would use"));
	tm_strv_clear(&report);
}
END_TEST

START_TEST(test_recover_index_as_it_is)
{
	tm_strv report = TM_STRV_INIT;
	char *data;

	make_trees();
	/* a complete index wins over any tmp */
	put("trees/p.json", "{\"a\": null}");
	put("trees/p.json.9c1e5b7d.tmp", INDEX_04);
	age("trees/p.json.9c1e5b7d.tmp", 3600);
	data = index_read(&report, false);
	ck_assert_str_eq(data, "{\"a\": null}");
	free(data);
	ck_assert_uint_eq(report.n, 0);
	/* broken, and no complete tmp: the bytes as they are */
	put("trees/p.json", "{\"a\": ");
	put("trees/p.json.9c1e5b7d.tmp", "{\"nodes\": ");
	data = index_read(&report, false);
	ck_assert_str_eq(data, "{\"a\": ");
	free(data);
	ck_assert_uint_eq(report.n, 0);
}
END_TEST

Suite *recover_suite(void)
{
	Suite *s = suite_create("recover");
	TCase *tc;

	tc = tcase_create("names");
	tcase_add_test(tc, test_recover_target_of_04_names);
	tcase_add_test(tc, test_recover_target_of_our_names);
	tcase_add_test(tc, test_recover_names_that_are_no_tmp);
	tcase_add_test(tc, test_recover_format_by_place);
	tcase_add_test(tc, test_recover_broken_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("rule");
	tcase_add_test(tc, test_recover_empty_target_is_recovered);
	tcase_add_test(tc, test_recover_cut_target_is_recovered);
	tcase_add_test(tc, test_recover_missing_target_is_recovered);
	tcase_add_test(tc, test_recover_unparseable_target_is_recovered);
	tcase_add_test(tc, test_recover_complete_target_makes_a_stray);
	tcase_add_test(tc, test_recover_larger_stray_is_kept);
	tcase_add_test(tc, test_recover_stray_without_target_is_kept);
	tcase_add_test(tc, test_recover_unread_target_never_replaced);
	tcase_add_test(tc, test_recover_json_files);
	tcase_add_test(tc, test_recover_other_files_never_recovered);
	suite_add_tcase(s, tc);

	tc = tcase_create("disk");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_recover_check_on_disk);
	tcase_add_test(tc, test_recover_restore_empty_target);
	tcase_add_test(tc, test_recover_restore_keeps_cut_target);
	tcase_add_test(tc, test_recover_restore_missing_target_and_our_tmp);
	tcase_add_test(tc, test_recover_restore_only_what_the_rule_says);
	tcase_add_test(tc, test_recover_remove_only_old_small_strays);
	tcase_add_test(tc, test_recover_index_from_tmp);
	tcase_add_test(tc, test_recover_index_as_it_is);
	suite_add_tcase(s, tc);
	return s;
}
