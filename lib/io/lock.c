/* The store lock: a process mutex, then .threadmind/.lock (see lock.h). */
#include "lock.h"
#include "fs.h"
#include "buf.h"
#include "error.h"
#include "json.h"
#include "text.h"
#include "timestamp.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_NAME ".lock"
/* Longer waits stay under this, so that a freed lock is seen soon. */
#define BACKOFF_MAX_NS 100000000L
#define BACKOFF_MIN_NS 1000000L
/* A timeout this long is forever; it keeps timespec math in range. */
#define TIMEOUT_MAX 1e9
/* The lock file is a short JSON object: anything bigger is not ours. */
#define LOCK_FILE_MAX 4096

struct tm_lock {
	char *tmdir;
	char *path; /* TMDIR/.lock, for messages */
	int dirfd;  /* the .threadmind folder */
	/*
	 * Our lock file, for refresh.  Kept open, it also keeps its inode
	 * number from being reused while we hold it: release and refresh
	 * compare it.
	 */
	int fd;
	dev_t dev;
	ino_t ino;
	pid_t pid; /* the process that took it (fork guard) */
	unsigned depth;
	double refresh_after;
	struct timespec touched; /* CLOCK_MONOTONIC */
};

/*
 * The process-wide gate: a flag behind a mutex, with a condition variable
 * on CLOCK_MONOTONIC so that waiting honours the timeout whatever the
 * wall clock does.
 */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv;
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;
static bool gate_busy;

/* The lock this thread holds, for nesting. */
static _Thread_local tm_lock *held;

static void gate_init(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&gate_cv, &attr);
	pthread_condattr_destroy(&attr);
}

static bool gate_take(const struct timespec *deadline)
{
	bool ok = true;

	pthread_once(&gate_once, gate_init);
	pthread_mutex_lock(&gate_mu);
	while (gate_busy) {
		int rc = pthread_cond_timedwait(&gate_cv, &gate_mu, deadline);

		if (rc == ETIMEDOUT && gate_busy) {
			ok = false;
			break;
		}
	}
	if (ok)
		gate_busy = true;
	pthread_mutex_unlock(&gate_mu);
	return ok;
}

static void gate_leave(void)
{
	pthread_once(&gate_once, gate_init);
	pthread_mutex_lock(&gate_mu);
	gate_busy = false;
	pthread_cond_signal(&gate_cv);
	pthread_mutex_unlock(&gate_mu);
}

static struct timespec now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

static struct timespec ts_add(struct timespec ts, double seconds)
{
	time_t whole = (time_t)seconds; /* seconds >= 0 */

	ts.tv_sec += whole;
	ts.tv_nsec += (long)((seconds - (double)whole) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* a - b, in nanoseconds. */
static int64_t ts_diff_ns(struct timespec a, struct timespec b)
{
	return (int64_t)(a.tv_sec - b.tv_sec) * 1000000000LL +
	       (a.tv_nsec - b.tv_nsec);
}

/* The age of `st`'s mtime by the wall clock (negative: in the future). */
static double mtime_age(const struct stat *st)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double)ts_diff_ns(now, st->st_mtim) / 1e9;
}

/* A cheap jitter source; quality does not matter, spreading does. */
static uint64_t jitter_next(void)
{
	static _Thread_local uint64_t state;

	if (!state) {
		struct timespec ts = now_mono();

		state = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
			(uint64_t)ts.tv_sec ^ 0x9e3779b97f4a7c15ULL;
	}
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* Copy `s` for a message: control characters as '?', cut at 100 bytes. */
static void put_clean(tm_buf *out, const char *s)
{
	size_t len = strlen(s);

	tm_text_sanitize(out, s, len < 100 ? len : 100, 0);
}

/* The holder named by the content of a lock file ("unknown holder"). */
static void describe_content(tm_buf *out, const char *data, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(data, len);
	cJSON *pid, *host, *started;

	pid = cJSON_GetObjectItemCaseSensitive(root, "pid");
	host = cJSON_GetObjectItemCaseSensitive(root, "host");
	started = cJSON_GetObjectItemCaseSensitive(root, "startedAt");
	if (!cJSON_IsNumber(pid) || pid->valuedouble < 1 ||
	    pid->valuedouble > 4294967295.0 ||
	    pid->valuedouble != (double)(long long)pid->valuedouble) {
		tm_buf_puts(out, "unknown holder");
		goto done;
	}
	tm_buf_printf(out, "pid %.0f", pid->valuedouble);
	if (cJSON_IsString(host) && *host->valuestring) {
		tm_buf_puts(out, " on host ");
		put_clean(out, host->valuestring);
	}
	if (cJSON_IsString(started) && *started->valuestring) {
		tm_buf_puts(out, " since ");
		put_clean(out, started->valuestring);
	}
done:
	cJSON_Delete(root);
}

/*
 * Describe the .lock in `dirfd` into `out`; *kind (may be NULL) gets what
 * to tell people to remove.  TM_ENOTFOUND when there is none.
 */
static int describe_at(tm_buf *out, const char **kind, int dirfd,
		       const char *path)
{
	tm_buf data = TM_BUF_INIT;
	struct stat st;
	const char *what = "file";

	if (fstatat(dirfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return tm_error_set(TM_ENOTFOUND, "no lock '%s'", path);
		return tm_error_set_errno(TM_ERROR, "cannot stat '%s'", path);
	}
	if (S_ISDIR(st.st_mode)) {
		tm_buf_puts(out, "a directory lock");
		what = "folder";
	} else if (S_ISLNK(st.st_mode)) {
		tm_buf_puts(out, "unknown holder (a symbolic link)");
		what = "link";
	} else if (tm_fs_read_at(&data, dirfd, LOCK_NAME, path,
				 LOCK_FILE_MAX) == 0) {
		describe_content(out, tm_buf_cstr(&data), data.size);
	} else {
		tm_buf_puts(out, "unknown holder");
	}
	tm_buf_release(&data);
	if (kind)
		*kind = what;
	return 0;
}

static int timed_out(int dirfd, const char *path)
{
	tm_buf who = TM_BUF_INIT;
	const char *kind = "file";
	int error;

	if (describe_at(&who, &kind, dirfd, path) < 0)
		tm_buf_puts(&who, "unknown holder");
	error = tm_error_set(TM_ELOCKED,
			     "'%s' is held by %s; wait for it, or remove the "
			     "%s if that process is gone",
			     path, tm_buf_cstr(&who), kind);
	tm_buf_release(&who);
	return error;
}

/*
 * Remove the stale lock `seen` unless it changed meanwhile.  Returns 1
 * when it is gone (retry now), 0 when it stays (wait), or an error.
 */
static int take_over(int dirfd, const struct stat *seen, double stale_after,
		     const char *path)
{
	bool flocked = true;
	struct stat st;
	int rc, error = 0;

	/*
	 * Another threadmind process busy with the same take-over: let it
	 * finish.  File systems without flock: go on, the re-check below
	 * still narrows the race.
	 */
	if (flock(dirfd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		flocked = false;
	}
	if (fstatat(dirfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			error = 1;
		else
			error = tm_error_set_errno(TM_ERROR, "cannot stat '%s'",
						   path);
		goto done;
	}
	/* Same inode, still stale: nobody took it over or refreshed it. */
	if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino ||
	    mtime_age(&st) <= stale_after)
		goto done;
	if (S_ISDIR(st.st_mode))
		rc = unlinkat(dirfd, LOCK_NAME, AT_REMOVEDIR);
	else
		rc = unlinkat(dirfd, LOCK_NAME, 0);
	if (rc == 0 || errno == ENOENT)
		error = 1;
	else if (errno != ENOTEMPTY && errno != EEXIST)
		error = tm_error_set_errno(
			TM_ERROR, "cannot remove the stale lock '%s'", path);
	/* A folder with something inside is someone's: keep waiting. */
done:
	if (flocked)
		flock(dirfd, LOCK_UN);
	return error;
}

static void lock_content(tm_buf *out)
{
	char host[256], when[TM_TIME_LEN + 1];

	if (gethostname(host, sizeof(host)) < 0)
		strcpy(host, "unknown");
	host[sizeof(host) - 1] = '\0';
	tm_time_format(when, tm_time_now_ms());
	tm_buf_printf(out, "{\"pid\":%ld,\"host\":", (long)getpid());
	tm_json_put_string(out, host, strlen(host));
	tm_buf_puts(out, ",\"startedAt\":");
	tm_json_put_string(out, when, strlen(when));
	tm_buf_puts(out, "}\n");
}

/* Create our lock file: 0 (lock filled in), 1 when it exists, or error. */
static int try_create(tm_lock *lock)
{
	tm_buf content = TM_BUF_INIT;
	struct stat st;
	int fd, error = 0;

	fd = openat(lock->dirfd, LOCK_NAME,
		    O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno == EEXIST)
			return 1;
		return tm_error_set_errno(TM_ERROR, "cannot create '%s'",
					  lock->path);
	}
	lock_content(&content);
	if (tm_fs_write_all(fd, content.ptr, content.size) < 0 ||
	    fstat(fd, &st) < 0) {
		error = tm_fs_write_error(lock->path);
		close(fd);
		unlinkat(lock->dirfd, LOCK_NAME, 0);
		goto done;
	}
	lock->fd = fd;
	lock->dev = st.st_dev;
	lock->ino = st.st_ino;
	lock->touched = now_mono();
done:
	tm_buf_release(&content);
	return error;
}

/* Sleep for the backoff (jittered to [b/2, b]), at most until deadline. */
static void backoff_sleep(long *backoff_ns, struct timespec deadline)
{
	int64_t left = ts_diff_ns(deadline, now_mono());
	int64_t ns = *backoff_ns / 2 +
		     (int64_t)(jitter_next() % (uint64_t)(*backoff_ns / 2 + 1));
	struct timespec ts;

	if (ns > left)
		ns = left;
	if (ns > 0) {
		ts.tv_sec = (time_t)(ns / 1000000000LL);
		ts.tv_nsec = (long)(ns % 1000000000LL);
		nanosleep(&ts, NULL);
	}
	*backoff_ns *= 2;
	if (*backoff_ns > BACKOFF_MAX_NS)
		*backoff_ns = BACKOFF_MAX_NS;
}

static int take_file(tm_lock *lock, const tm_lock_options *opts,
		     struct timespec deadline)
{
	long backoff = BACKOFF_MIN_NS;
	struct stat st;
	int rc;

	for (;;) {
		rc = try_create(lock);
		if (rc <= 0)
			return rc;
		if (fstatat(lock->dirfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) <
		    0) {
			if (errno == ENOENT)
				continue; /* just released: try again */
			return tm_error_set_errno(TM_ERROR, "cannot stat '%s'",
						  lock->path);
		}
		if (mtime_age(&st) > opts->stale_after) {
			rc = take_over(lock->dirfd, &st, opts->stale_after,
				       lock->path);
			if (rc < 0)
				return rc;
			if (rc == 1)
				continue;
		}
		if (ts_diff_ns(deadline, now_mono()) <= 0)
			return timed_out(lock->dirfd, lock->path);
		backoff_sleep(&backoff, deadline);
	}
}

static int check_options(const tm_lock_options *o)
{
	if (o->version != TM_LOCK_OPTIONS_VERSION)
		return tm_error_set(TM_EINVALID,
				    "unsupported lock options version %u",
				    o->version);
	if (!(o->timeout >= 0) || !(o->stale_after >= 0) ||
	    !(o->refresh_after >= 0))
		return tm_error_set(TM_EINVALID,
				    "lock timeouts must be numbers of seconds, "
				    "0 or more");
	return 0;
}

/* Does `tmdir` name the folder the held lock is in? */
static bool same_store(const tm_lock *lock, const char *tmdir)
{
	struct stat a, b;

	if (!strcmp(lock->tmdir, tmdir))
		return true;
	return stat(tmdir, &a) == 0 && fstat(lock->dirfd, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void lock_free(tm_lock *lock)
{
	tm_fs_close(lock->fd);
	tm_fs_close(lock->dirfd);
	TM_FREE_ALL(lock->tmdir, lock->path, lock);
}

int tm_lock_acquire(tm_lock **out, const char *tmdir,
		    const tm_lock_options *opts)
{
	static const tm_lock_options defaults = TM_LOCK_OPTIONS_INIT;
	struct timespec deadline;
	tm_lock *lock;
	int error;

	if (!opts)
		opts = &defaults;
	if ((error = check_options(opts)) < 0)
		return error;
	if (!tmdir || !*tmdir)
		return tm_error_set(TM_EINVALID, "empty .threadmind path");

	if (held && held->pid != getpid()) {
		/*
		 * Inherited through fork() from this very thread: the
		 * parent's lock is not ours, and no other thread exists here
		 * to leave the gate.
		 */
		held = NULL;
		gate_leave();
	}
	if (held) {
		if (!same_store(held, tmdir))
			return tm_error_set(TM_EINVALID,
					    "cannot lock '%s' while holding "
					    "'%s'",
					    tmdir, held->path);
		held->depth++;
		*out = held;
		return 0;
	}

	deadline =
		ts_add(now_mono(), opts->timeout < TIMEOUT_MAX ? opts->timeout
							       : TIMEOUT_MAX);
	if (!gate_take(&deadline))
		return tm_error_set(TM_ELOCKED,
				    "'%s/" LOCK_NAME "' is held by another "
				    "thread of this process; wait for it",
				    tmdir);

	lock = tm_xcalloc(1, sizeof(*lock));
	lock->fd = -1;
	lock->tmdir = tm_xstrdup(tmdir);
	lock->path = tm_xmalloc(strlen(tmdir) + sizeof("/" LOCK_NAME));
	strcpy(lock->path, tmdir);
	strcat(lock->path, "/" LOCK_NAME);
	lock->pid = getpid();
	lock->depth = 1;
	lock->refresh_after = opts->refresh_after;
	if ((error = tm_fs_open_dir(&lock->dirfd, tmdir)) < 0) {
		lock->dirfd = -1;
		goto fail;
	}
	if ((error = take_file(lock, opts, deadline)) < 0)
		goto fail;
	held = lock;
	*out = lock;
	return 0;

fail:
	lock_free(lock);
	gate_leave();
	return error;
}

int tm_lock_refresh(tm_lock *lock)
{
	struct timespec now = now_mono();
	struct stat st;

	if (!lock)
		return tm_error_set(TM_EINVALID, "no lock to refresh");
	if ((double)ts_diff_ns(now, lock->touched) / 1e9 <= lock->refresh_after)
		return 0;
	if (fstatat(lock->dirfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != lock->dev || st.st_ino != lock->ino)
		return tm_error_set(TM_ELOCKED,
				    "lost the lock '%s': another process took "
				    "it over",
				    lock->path);
	if (futimens(lock->fd, NULL) < 0)
		return tm_error_set_errno(TM_ERROR, "cannot touch '%s'",
					  lock->path);
	lock->touched = now;
	return 0;
}

int tm_lock_release(tm_lock *lock)
{
	struct stat st;
	int error = 0;

	if (!lock)
		return 0;
	if (lock->depth > 1) {
		lock->depth--;
		return 0;
	}
	if (lock->pid != getpid()) {
		/* A copy inherited through fork(): the file is the parent's. */
		if (held == lock) {
			held = NULL;
			gate_leave();
		}
		lock_free(lock);
		return 0;
	}
	if (fstatat(lock->dirfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != lock->dev || st.st_ino != lock->ino)
		error = tm_error_set(TM_ELOCKED,
				     "lost the lock '%s': another process took "
				     "it over while it was held",
				     lock->path);
	else if (unlinkat(lock->dirfd, LOCK_NAME, 0) < 0 && errno != ENOENT)
		error = tm_error_set_errno(TM_ERROR, "cannot remove '%s'",
					   lock->path);
	if (held == lock)
		held = NULL;
	lock_free(lock);
	gate_leave();
	return error;
}

unsigned tm_lock_depth(const tm_lock *lock)
{
	return lock ? lock->depth : 0;
}

int tm_lock_holder(char **out, const char *tmdir)
{
	int dirfd, error;

	if ((error = tm_fs_open_dir(&dirfd, tmdir)) < 0)
		return error;
	error = tm_lock_holder_at(out, dirfd, tmdir);
	close(dirfd);
	return error;
}

int tm_lock_holder_at(char **out, int dirfd, const char *tmdir)
{
	tm_buf who = TM_BUF_INIT, path = TM_BUF_INIT;
	int error;

	tm_buf_printf(&path, "%s/" LOCK_NAME, tmdir);
	error = describe_at(&who, NULL, dirfd, tm_buf_cstr(&path));
	tm_buf_release(&path);
	if (error < 0) {
		tm_buf_release(&who);
		return error;
	}
	*out = tm_buf_detach(&who);
	return 0;
}
