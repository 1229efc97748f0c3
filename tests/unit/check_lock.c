/* Unit tests of lib/io/lock.c: the process mutex, .threadmind/.lock across
 * processes, stale take-over, refresh, holder descriptions. */
#include "threadmind/lock.h"
#include "threadmind/fs.h"
#include "threadmind/error.h"
#include "threadmind/timestamp.h"
#include "test_util.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *dir;   /* the temp folder */
static char *tmdir; /* dir/.threadmind */
static char *lockp; /* dir/.threadmind/.lock */

static void setup(void)
{
	dir = tmt_mkdtemp();
	tmdir = tmt_join(dir, ".threadmind");
	lockp = tmt_join(tmdir, ".lock");
	tmt_mkdirs(tmdir);
}

static void teardown(void)
{
	chmod(tmdir, 0700);
	tmt_rmtree(dir);
	free(lockp);
	free(tmdir);
	free(dir);
}

static tm_lock_options opts_timeout(double timeout)
{
	tm_lock_options o = TM_LOCK_OPTIONS_INIT;

	o.timeout = timeout;
	return o;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool lock_exists(void)
{
	struct stat st;

	return lstat(lockp, &st) == 0;
}

/* Set the mtime of `path` (not following a link) `ago` seconds back. */
static void age(const char *path, double ago)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= (time_t)ago;
	ts[1] = ts[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static double age_of(const char *path)
{
	struct timespec now;
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	clock_gettime(CLOCK_REALTIME, &now);
	return (double)(now.tv_sec - st.st_mtim.tv_sec) +
	       (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
}

static void put_lock(const char *content)
{
	tmt_write_file(lockp, content, strlen(content));
}

static char *hostname(void)
{
	static char host[256];

	ck_assert_int_eq(gethostname(host, sizeof(host)), 0);
	return host;
}

/* The expected description of a lock we wrote, from its content. */
static char *our_description(void)
{
	char *data = tmt_read_file(lockp, NULL), *s;
	cJSON *root = cJSON_Parse(data);
	cJSON *pid = cJSON_GetObjectItemCaseSensitive(root, "pid");
	cJSON *host = cJSON_GetObjectItemCaseSensitive(root, "host");
	cJSON *started = cJSON_GetObjectItemCaseSensitive(root, "startedAt");

	ck_assert_msg(root != NULL, "lock content: %s", data);
	ck_assert(cJSON_IsNumber(pid));
	ck_assert(cJSON_IsString(host));
	ck_assert(cJSON_IsString(started));
	s = malloc(512);
	snprintf(s, 512, "pid %d on host %s since %s", pid->valueint,
		 host->valuestring, started->valuestring);
	cJSON_Delete(root);
	free(data);
	return s;
}

START_TEST(test_lock_acquire_release)
{
	tm_lock *lock = NULL;
	cJSON *root, *item;
	char *data;
	size_t len;
	int64_t ms;

	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, NULL), 0);
	ck_assert_ptr_nonnull(lock);
	data = tmt_read_file(lockp, &len);
	ck_assert_msg(len > 2 && data[len - 1] == '\n' && data[0] == '{', "%s",
		      data);
	root = cJSON_Parse(data);
	ck_assert_msg(root != NULL, "%s", data);
	item = cJSON_GetObjectItemCaseSensitive(root, "pid");
	ck_assert(cJSON_IsNumber(item));
	ck_assert_int_eq(item->valueint, getpid());
	item = cJSON_GetObjectItemCaseSensitive(root, "host");
	ck_assert(cJSON_IsString(item));
	ck_assert_str_eq(item->valuestring, hostname());
	item = cJSON_GetObjectItemCaseSensitive(root, "startedAt");
	ck_assert(cJSON_IsString(item));
	ck_assert_int_eq(strlen(item->valuestring), TM_TIME_LEN);
	ck_assert_int_eq(tm_time_parse(&ms, item->valuestring), 0);
	ck_assert_int_lt(llabs(ms - tm_time_now_ms()), 60000);
	ck_assert_int_eq(cJSON_GetArraySize(root), 3);
	cJSON_Delete(root);
	free(data);

	ck_assert_int_eq(tm_lock_release(lock), 0);
	ck_assert(!lock_exists());
	ck_assert_int_eq(tm_lock_release(NULL), 0);

	/* Free again: a second round works. */
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, NULL), 0);
	ck_assert_int_eq(tm_lock_release(lock), 0);
	ck_assert(!lock_exists());
}
END_TEST

START_TEST(test_lock_nested_same_thread)
{
	tm_lock_options o = opts_timeout(0);
	tm_lock *a = NULL, *b = NULL, *c = NULL, *other = NULL;
	char *same = tmt_join(dir, "./.threadmind");
	char *second = tmt_join(dir, "second");

	ck_assert_int_eq(tm_lock_acquire(&a, tmdir, &o), 0);
	/* With timeout 0 a second file create would fail at once. */
	ck_assert_int_eq(tm_lock_acquire(&b, tmdir, &o), 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(tm_lock_acquire(&c, same, &o), 0);
	ck_assert_ptr_eq(a, c);

	tmt_mkdirs(second);
	ck_assert_int_eq(tm_lock_acquire(&other, second, &o), TM_EINVALID);
	ck_assert_ptr_null(other);

	ck_assert_int_eq(tm_lock_release(c), 0);
	ck_assert_int_eq(tm_lock_release(b), 0);
	ck_assert(lock_exists());
	ck_assert_int_eq(tm_lock_release(a), 0);
	ck_assert(!lock_exists());
	free(same);
	free(second);
}
END_TEST

struct attempt {
	double timeout;
	int rc;
	char msg[512];
	double waited;
};

static void *try_in_thread(void *arg)
{
	struct attempt *at = arg;
	tm_lock_options o = opts_timeout(at->timeout);
	tm_lock *lock = NULL;
	double t0 = now_s();

	at->rc = tm_lock_acquire(&lock, tmdir, &o);
	at->waited = now_s() - t0;
	snprintf(at->msg, sizeof(at->msg), "%s", tm_error_last());
	if (at->rc == 0)
		tm_lock_release(lock);
	return NULL;
}

START_TEST(test_lock_other_thread_waits)
{
	struct attempt at = {0.2, 1, "", 0};
	tm_lock *lock = NULL;
	pthread_t t;

	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, NULL), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, try_in_thread, &at), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(at.rc, TM_ELOCKED);
	ck_assert_msg(strstr(at.msg, "another thread") != NULL, "%s", at.msg);
	ck_assert(at.waited >= 0.19);

	/* A waiting thread gets the lock once it is released. */
	at.timeout = 10;
	ck_assert_int_eq(pthread_create(&t, NULL, try_in_thread, &at), 0);
	usleep(100 * 1000);
	ck_assert_int_eq(tm_lock_release(lock), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(at.rc == 0, "%s", at.msg);
	ck_assert(at.waited < 5 * tmt_time_scale());
	ck_assert(!lock_exists());
}
END_TEST

START_TEST(test_lock_held_by_child_times_out)
{
	tm_lock_options o = opts_timeout(0.3);
	int ready[2], go[2], status;
	tm_lock *lock = NULL;
	char c, want[64];
	double t0, waited;
	pid_t pid;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		tm_lock_options co = opts_timeout(5);
		tm_lock *mine = NULL;
		int rc = tm_lock_acquire(&mine, tmdir, &co);

		if (write(ready[1], rc == 0 ? "r" : "x", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			rc = -1;
		if (tm_lock_release(mine) < 0)
			rc = -1;
		_exit(rc == 0 ? 0 : 1);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(c, 'r');

	t0 = now_s();
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_ELOCKED);
	waited = now_s() - t0;
	ck_assert_msg(waited >= 0.29 && waited < 3 * tmt_time_scale(),
		      "waited %.3f s", waited);
	snprintf(want, sizeof(want), "is held by pid %d on host ", (int)pid);
	ck_assert_msg(strstr(tm_error_last(), want) != NULL, "%s",
		      tm_error_last());
	ck_assert_ptr_nonnull(strstr(tm_error_last(), lockp));
	ck_assert_ptr_nonnull(strstr(tm_error_last(),
				     "; wait for it, or remove the file if "
				     "that process is gone"));
	ck_assert_ptr_null(lock);

	/* Once the child lets go, the parent gets it. */
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	o.timeout = 10;
	ck_assert_msg(tm_lock_acquire(&lock, tmdir, &o) == 0, "%s",
		      tm_error_last());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert(lock_exists());
	ck_assert_int_eq(tm_lock_release(lock), 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}
END_TEST

START_TEST(test_lock_stale_file_taken_over)
{
	tm_lock_options o = opts_timeout(2);
	tm_lock *lock = NULL;
	char *data, want[32];
	double t0 = now_s();

	put_lock("{\"pid\":999999,\"host\":\"gone\","
		 "\"startedAt\":\"2020-01-01T00:00:00.000Z\"}\n");
	age(lockp, 11);
	ck_assert_msg(tm_lock_acquire(&lock, tmdir, &o) == 0, "%s",
		      tm_error_last());
	ck_assert(now_s() - t0 < 1.5 * tmt_time_scale());
	data = tmt_read_file(lockp, NULL);
	snprintf(want, sizeof(want), "{\"pid\":%d,", (int)getpid());
	ck_assert_msg(strncmp(data, want, strlen(want)) == 0, "%s", data);
	ck_assert(age_of(lockp) < 5);
	free(data);
	ck_assert_int_eq(tm_lock_release(lock), 0);
	ck_assert(!lock_exists());
}
END_TEST

START_TEST(test_lock_fresh_foreign_file_honoured)
{
	static const char foreign[] =
		"{\"pid\":4242,\"host\":\"elsewhere\","
		"\"startedAt\":\"2026-04-15T10:00:00.000Z\"}\n";
	tm_lock_options o = opts_timeout(0.2);
	tm_lock *lock = NULL;
	char *data;

	put_lock(foreign);
	age(lockp, 9);
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_ELOCKED);
	ck_assert_ptr_null(lock);
	ck_assert_ptr_nonnull(strstr(tm_error_last(),
				     "is held by pid 4242 on host elsewhere "
				     "since 2026-04-15T10:00:00.000Z; "));
	data = tmt_read_file(lockp, NULL);
	ck_assert_str_eq(data, foreign);
	free(data);

	/* Content from elsewhere (or none) is honoured all the same. */
	put_lock("locked by the editor");
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_ELOCKED);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "unknown holder"));
	put_lock("");
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_ELOCKED);
	ck_assert(lock_exists());

	/* The gate was left on each failure: a free lock is taken. */
	ck_assert_int_eq(unlink(lockp), 0);
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), 0);
	ck_assert_int_eq(tm_lock_release(lock), 0);
}
END_TEST

START_TEST(test_lock_directory_lock)
{
	tm_lock_options o = opts_timeout(0.2);
	tm_lock *lock = NULL;
	struct stat st;

	ck_assert_int_eq(mkdir(lockp, 0755), 0);
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_ELOCKED);
	ck_assert_msg(strstr(tm_error_last(),
			     "is held by a directory lock; wait for it, or "
			     "remove the folder") != NULL,
		      "%s", tm_error_last());
	ck_assert_int_eq(lstat(lockp, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));

	age(lockp, 11);
	ck_assert_msg(tm_lock_acquire(&lock, tmdir, &o) == 0, "%s",
		      tm_error_last());
	ck_assert_int_eq(lstat(lockp, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(tm_lock_release(lock), 0);
	ck_assert(!lock_exists());
}
END_TEST

START_TEST(test_lock_stale_nonempty_directory_kept)
{
	tm_lock_options o = opts_timeout(0.3);
	char *inside = tmt_join(lockp, "owner");
	tm_lock *lock = NULL;
	struct stat st;

	tmt_write_file(inside, "plugin", 6);
	age(lockp, 60);
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_ELOCKED);
	ck_assert_int_eq(lstat(lockp, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(lstat(inside, &st), 0);
	free(inside);
}
END_TEST

START_TEST(test_lock_symlink_lock)
{
	tm_lock_options o = opts_timeout(0.2);
	char *target = tmt_join(dir, "target"), *data;
	tm_lock *lock = NULL;
	struct stat st;

	tmt_write_file(target, "outside", 7);
	ck_assert_int_eq(symlink(target, lockp), 0);
	age(target, 3600); /* the target's age must not count */
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_ELOCKED);
	ck_assert_int_eq(lstat(lockp, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));

	age(lockp, 11);
	ck_assert_msg(tm_lock_acquire(&lock, tmdir, &o) == 0, "%s",
		      tm_error_last());
	ck_assert_int_eq(lstat(lockp, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	data = tmt_read_file(target, NULL);
	ck_assert_str_eq(data, "outside");
	free(data);
	ck_assert_int_eq(tm_lock_release(lock), 0);
	ck_assert_int_eq(lstat(target, &st), 0);
	free(target);
}
END_TEST

START_TEST(test_lock_refresh)
{
	tm_lock_options o = TM_LOCK_OPTIONS_INIT;
	tm_lock *lock = NULL;

	/* Not due yet: nothing touched. */
	o.refresh_after = 1000;
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), 0);
	age(lockp, 8);
	ck_assert_int_eq(tm_lock_refresh(lock), 0);
	ck_assert(age_of(lockp) > 7);
	ck_assert_int_eq(tm_lock_release(lock), 0);

	/* Due: the mtime is now. */
	o.refresh_after = 0;
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), 0);
	age(lockp, 8);
	usleep(1000);
	ck_assert_int_eq(tm_lock_refresh(lock), 0);
	ck_assert(age_of(lockp) < 2);

	/* Taken over by someone else: refresh says so. */
	ck_assert_int_eq(unlink(lockp), 0);
	put_lock("{\"pid\":1}");
	usleep(1000);
	ck_assert_int_eq(tm_lock_refresh(lock), TM_ELOCKED);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "lost the lock"));
	ck_assert_int_eq(tm_lock_release(lock), TM_ELOCKED);
	ck_assert(lock_exists());
	ck_assert_int_eq(tm_lock_refresh(NULL), TM_EINVALID);
}
END_TEST

START_TEST(test_lock_holder)
{
	tm_lock *lock = NULL;
	char *who = NULL, *want, *link = tmt_join(dir, "link");

	ck_assert_int_eq(tm_lock_holder(&who, tmdir), TM_ENOTFOUND);
	ck_assert_ptr_null(who);

	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, NULL), 0);
	ck_assert_int_eq(tm_lock_holder(&who, tmdir), 0);
	want = our_description();
	ck_assert_str_eq(who, want);
	ck_assert_ptr_nonnull(strstr(who, hostname()));
	free(want);
	free(who);
	ck_assert_int_eq(tm_lock_release(lock), 0);

	put_lock("{\"pid\":77,\"host\":\"a\\u001b[31mb\\n\"}");
	ck_assert_int_eq(tm_lock_holder(&who, tmdir), 0);
	ck_assert_str_eq(who, "pid 77 on host a?[31mb?");
	free(who);
	put_lock("{\"pid\":78}");
	ck_assert_int_eq(tm_lock_holder(&who, tmdir), 0);
	ck_assert_str_eq(who, "pid 78");
	free(who);
	put_lock("{\"pid\":\"78\"}");
	ck_assert_int_eq(tm_lock_holder(&who, tmdir), 0);
	ck_assert_str_eq(who, "unknown holder");
	free(who);
	put_lock("not json");
	ck_assert_int_eq(tm_lock_holder(&who, tmdir), 0);
	ck_assert_str_eq(who, "unknown holder");
	free(who);

	ck_assert_int_eq(unlink(lockp), 0);
	ck_assert_int_eq(mkdir(lockp, 0700), 0);
	ck_assert_int_eq(tm_lock_holder(&who, tmdir), 0);
	ck_assert_str_eq(who, "a directory lock");
	free(who);
	ck_assert_int_eq(rmdir(lockp), 0);
	ck_assert_int_eq(symlink("elsewhere", lockp), 0);
	ck_assert_int_eq(tm_lock_holder(&who, tmdir), 0);
	ck_assert_str_eq(who, "unknown holder (a symbolic link)");
	free(who);

	who = NULL;
	ck_assert_int_eq(symlink(tmdir, link), 0);
	ck_assert_int_eq(tm_lock_holder(&who, link), TM_EINVALID);
	ck_assert_ptr_null(who);
	free(link);
}
END_TEST

START_TEST(test_lock_release_keeps_replaced_file)
{
	static const char other[] = "{\"pid\":31337}\n";
	tm_lock *lock = NULL;
	char *data;

	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, NULL), 0);
	ck_assert_int_eq(unlink(lockp), 0);
	put_lock(other);
	ck_assert_int_eq(tm_lock_release(lock), TM_ELOCKED);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "took it over"));
	data = tmt_read_file(lockp, NULL);
	ck_assert_str_eq(data, other);
	free(data);
}
END_TEST

START_TEST(test_lock_bad_arguments)
{
	tm_lock_options o = TM_LOCK_OPTIONS_INIT;
	char *file = tmt_join(dir, "file"), *link = tmt_join(dir, "link");
	char *nope = tmt_join(dir, "nope");
	tm_lock *lock = NULL;

	o.version = 2;
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_EINVALID);
	o = opts_timeout(-1);
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_EINVALID);
	o = opts_timeout(NAN);
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), TM_EINVALID);
	ck_assert_int_eq(tm_lock_acquire(&lock, "", NULL), TM_EINVALID);
	ck_assert_int_eq(tm_lock_acquire(&lock, nope, NULL), TM_ENOTFOUND);
	tmt_write_file(file, "f", 1);
	ck_assert_int_eq(tm_lock_acquire(&lock, file, NULL), TM_EINVALID);
	ck_assert_int_eq(symlink(tmdir, link), 0);
	ck_assert_int_eq(tm_lock_acquire(&lock, link, NULL), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "symbolic link"));
	ck_assert_ptr_null(lock);
	ck_assert(!lock_exists());

	/* None of these kept the process mutex. */
	o = opts_timeout(0);
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, &o), 0);
	ck_assert_int_eq(tm_lock_release(lock), 0);
	free(file);
	free(link);
	free(nope);
}
END_TEST

START_TEST(test_lock_read_only_folder)
{
	tm_lock *lock = NULL;

	if (geteuid() == 0)
		return; /* root creates files there anyway */
	ck_assert_int_eq(chmod(tmdir, 0555), 0);
	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, NULL), TM_ERROR);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "cannot create"));
	ck_assert_int_eq(chmod(tmdir, 0700), 0);
}
END_TEST

START_TEST(test_lock_inherited_by_fork)
{
	tm_lock *lock = NULL;
	int status;
	pid_t pid;

	ck_assert_int_eq(tm_lock_acquire(&lock, tmdir, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		tm_lock_options co = opts_timeout(0.2);
		tm_lock *mine = NULL;
		char want[32];
		int rc = 0;

		/* Frees the copy, leaves the parent's file. */
		if (tm_lock_release(lock) != 0 || !lock_exists())
			rc |= 1;
		/* The file lock is the parent's: honoured, not nested. */
		snprintf(want, sizeof(want), "pid %d ", (int)getppid());
		if (tm_lock_acquire(&mine, tmdir, &co) != TM_ELOCKED ||
		    !strstr(tm_error_last(), want))
			rc |= 2;
		_exit(rc);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert(lock_exists());
	ck_assert_int_eq(tm_lock_release(lock), 0);
	ck_assert(!lock_exists());
}
END_TEST

/* One worker of the counter test: 100 locked read-increment-writes. */
static int count_up(int n)
{
	tm_lock_options o = opts_timeout(20);
	tm_buf b = TM_BUF_INIT;
	char num[32];
	int i, fd, error = 0;

	if (tm_fs_open_dir(&fd, tmdir) < 0)
		return -1;
	for (i = 0; i < n && !error; i++) {
		tm_lock *lock = NULL;

		if ((error = tm_lock_acquire(&lock, tmdir, &o)) < 0)
			break;
		tm_buf_clear(&b);
		error = tm_fs_read_at(&b, fd, "counter", "counter", 64);
		if (!error) {
			snprintf(num, sizeof(num), "%ld\n",
				 strtol(tm_buf_cstr(&b), NULL, 10) + 1);
			error = tm_atomic_write_at(fd, "counter", "counter",
						   num, strlen(num));
		}
		if (tm_lock_release(lock) < 0 && !error)
			error = -1;
	}
	if (error)
		fprintf(stderr, "count_up: %s\n", tm_error_last());
	tm_buf_release(&b);
	close(fd);
	return error;
}

START_TEST(test_lock_counter_many_processes)
{
	enum { PROCS = 8, EACH = 100 };
	pid_t pids[PROCS];
	char *counter = tmt_join(tmdir, "counter"), *data;
	int i, status;

	tmt_write_file(counter, "0\n", 2);
	for (i = 0; i < PROCS; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			free(counter);
			_exit(count_up(EACH) == 0 ? 0 : 1);
		}
	}
	for (i = 0; i < PROCS; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	}
	data = tmt_read_file(counter, NULL);
	ck_assert_int_eq(strtol(data, NULL, 10), PROCS * EACH);
	ck_assert(!lock_exists());
	free(data);
	free(counter);
}
END_TEST

Suite *lock_suite(void)
{
	Suite *s = suite_create("lock");
	TCase *tc;

	tc = tcase_create("basics");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_lock_acquire_release);
	tcase_add_test(tc, test_lock_nested_same_thread);
	tcase_add_test(tc, test_lock_release_keeps_replaced_file);
	tcase_add_test(tc, test_lock_bad_arguments);
	tcase_add_test(tc, test_lock_read_only_folder);
	tcase_add_test(tc, test_lock_refresh);
	tcase_add_test(tc, test_lock_holder);
	suite_add_tcase(s, tc);

	tc = tcase_create("waiting");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_lock_other_thread_waits);
	tcase_add_test(tc, test_lock_held_by_child_times_out);
	tcase_add_test(tc, test_lock_fresh_foreign_file_honoured);
	tcase_add_test(tc, test_lock_inherited_by_fork);
	suite_add_tcase(s, tc);

	tc = tcase_create("stale");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_lock_stale_file_taken_over);
	tcase_add_test(tc, test_lock_directory_lock);
	tcase_add_test(tc, test_lock_stale_nonempty_directory_kept);
	tcase_add_test(tc, test_lock_symlink_lock);
	suite_add_tcase(s, tc);

	tc = tcase_create("contention");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lock_counter_many_processes);
	suite_add_tcase(s, tc);
	return s;
}
