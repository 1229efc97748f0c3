/*
 * The store lock: read-modify-write operations on a .threadmind folder run
 * one at a time, behind a mutex inside the process and the file
 * .threadmind/.lock across processes (shared with the editor plugin).
 */
#ifndef TM_LOCK_H
#define TM_LOCK_H

typedef struct tm_lock tm_lock;

typedef struct {
	unsigned version;     /* TM_LOCK_OPTIONS_VERSION */
	double timeout;       /* seconds to wait (threadmind.lockTimeout) */
	double stale_after;   /* a lock untouched this long is taken over */
	double refresh_after; /* tm_lock_refresh touches the lock after this */
} tm_lock_options;

#define TM_LOCK_OPTIONS_VERSION 1
/* clang-format off */
#define TM_LOCK_OPTIONS_INIT {TM_LOCK_OPTIONS_VERSION, 15.0, 10.0, 5.0}
/* clang-format on */

/*
 * Take the lock of the store whose .threadmind folder is `tmdir`, waiting
 * up to opts->timeout seconds (0: try once).  `opts` NULL means
 * TM_LOCK_OPTIONS_INIT.
 *
 * First the process-wide mutex: one store lock per process at a time.  A
 * thread that already holds the lock of the same store gets the same
 * tm_lock back with its depth raised, without any file I/O; each acquire
 * needs its own tm_lock_release.  Asking for another store's lock while
 * holding one is refused (TM_EINVALID).
 *
 * Then TMDIR/.lock, created O_CREAT | O_EXCL | O_NOFOLLOW with
 * {"pid":N,"host":"H","startedAt":"T"}.  An existing .lock of any kind (a
 * file of any content, a folder, a symbolic link, never followed) is
 * honoured; once its mtime is more than opts->stale_after seconds old it
 * is removed and created anew (a non-empty folder is never removed).  A
 * flock() on the .threadmind folder serialises those take-overs among
 * threadmind processes.
 *
 * On success *out holds the lock; release it with tm_lock_release, from
 * the same thread.  A process forked while holding it must not use it but
 * may pass it to tm_lock_release, which then only frees memory.
 *
 * Errors: TM_ELOCKED when the timeout passes ("'TMDIR/.lock' is held by
 * pid 123 on host h since ...; wait for it, or remove the file if that
 * process is gone"); TM_EINVALID for bad options, a `tmdir` that is a
 * symbolic link or not a folder, or another store's lock already held by
 * this thread; TM_ENOTFOUND when `tmdir` does not exist; TM_ERROR when the
 * lock cannot be created or a stale one removed.
 */
int tm_lock_acquire(tm_lock **out, const char *tmdir,
		    const tm_lock_options *opts);

/*
 * For long operations: touch the lock's mtime when more than
 * refresh_after seconds have passed since the last touch (cheap, without
 * I/O, otherwise), so that it never looks stale to others.
 * Errors: TM_ELOCKED when the lock file is no longer ours (it was taken
 * over while we were stuck): stop writing; TM_ERROR when the touch fails;
 * TM_EINVALID for a NULL lock.
 */
int tm_lock_refresh(tm_lock *lock);

/*
 * Undo one tm_lock_acquire.  The last one removes TMDIR/.lock if it is
 * still ours (same device and inode: a lock taken over and re-created by
 * someone else stays), releases the process mutex and frees `lock`.
 * NULL is allowed.  Errors (the lock is released and freed all the same):
 * TM_ELOCKED when the last release finds the lock file gone or replaced
 * (another process took the lock over while we held it: what we wrote
 * meanwhile may have crossed its writes); TM_ERROR when our lock file
 * cannot be removed.
 */
int tm_lock_release(tm_lock *lock);

/* How many tm_lock_acquire calls `lock` still answers for (1: the next
 * tm_lock_release is the last); 0 for NULL. */
unsigned tm_lock_depth(const tm_lock *lock);

/*
 * Describe who holds the lock of `tmdir`, for `status` and messages:
 * "pid 123 on host h since 2026-04-15T10:00:00.000Z" (the parts the file
 * has), "a directory lock", "unknown holder (a symbolic link)", or
 * "unknown holder" for other content (no numeric pid).  Control
 * characters from the file are shown as '?'.  *out is malloc'd, the caller
 * frees it.  Errors: TM_ENOTFOUND when there is no lock (or no `tmdir`),
 * TM_EINVALID when `tmdir` is a symbolic link, TM_ERROR.
 */
int tm_lock_holder(char **out, const char *tmdir);

/* tm_lock_holder for `tmdir` already open as `dirfd` (not closed; `tmdir`
 * names it in messages). */
int tm_lock_holder_at(char **out, int dirfd, const char *tmdir);

#endif
