/*
 * Error codes and the last error message of the calling thread.
 * Every library function returns 0 or a negative TM_E* code and, on error,
 * leaves a one-line message (naming the file or thread, and what to do)
 * for tm_error_last().
 */
#ifndef TM_ERROR_H
#define TM_ERROR_H

enum {
	TM_OK = 0,
	TM_ERROR = -1,      /* generic failure (I/O, git, ...) */
	TM_ENOTFOUND = -3,  /* a file, thread, project or key does not exist */
	TM_EEXISTS = -4,    /* refusing to clobber something that exists */
	TM_ELOCKED = -5,    /* the store lock could not be taken in time */
	TM_EPARSE = -6,     /* a file does not parse */
	TM_EINVALID = -7,   /* bad input: id, path, symlink, size, argument */
	TM_ECONFLICT = -8,  /* a merge left conflicts / a cycle was refused */
	TM_EAMBIGUOUS = -9, /* a prefix matches more than one thread */
	TM_ETIMEOUT = -10   /* a time budget ran out (deadline.h) */
};

/*
 * Set the calling thread's last error message (printf format) and return
 * `code`, so that callers can write `return tm_error_set(TM_EINVALID, ...)`.
 * errno is left as it was.
 */
int tm_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Like tm_error_set, appending ": strerror(errno)" with errno as the caller
 * left it (tm_error_set keeps errno): one formatting function, the errno
 * part added after it.
 */
#define tm_error_set_errno(code, ...) \
	tm_error_append_errno(tm_error_set((code), __VA_ARGS__))

/* Append ": strerror(errno)" to the last message; return `code`. */
int tm_error_append_errno(int code);

/* The last message set in this thread ("" when none). Never NULL. */
const char *tm_error_last(void);

/* The last code set with the message (0 when none). */
int tm_error_last_code(void);

/* Forget the last message. */
void tm_error_clear(void);

/*
 * `error`, or 0 with the message forgotten when it is `code`: for a
 * caller to whom that outcome is no failure (`error =
 * tm_error_ignore(error, TM_ENOTFOUND)`: nothing there, nothing to do).
 */
int tm_error_ignore(int error, int code);

/* A short name for a code ("not found", "exists", ...). */
const char *tm_error_name(int code);

#endif
