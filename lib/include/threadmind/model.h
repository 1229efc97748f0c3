/*
 * The in-memory thread (ThreadNode): its frontmatter fields, the unknown
 * fields kept verbatim, and the body bytes.  Reading and writing the file
 * format lives in frontmatter.h; this header only defines the struct and
 * its small helpers.
 */
#ifndef TM_MODEL_H
#define TM_MODEL_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TM_ROOT_THREAD_ID   "main"
#define TM_STATUS_DONE      "done"
#define TM_STATUS_ABANDONED "abandoned"

/*
 * A frontmatter entry the format does not know, or a comment line.  `key`
 * is the field name (NULL for a comment or other keyless line) and `raw` the
 * exact text after "key:" up to the end of the entry, including the
 * following indented lines, with LF line ends (for a keyless line, the whole
 * line).  Written back as "key:" + raw.
 */
typedef struct {
	char *key;
	char *raw;
} tm_extra_field;

/*
 * What fstat said of a thread's file just before its bytes were read
 * (tm_store_load_all), so that a later check can tell the bytes are still
 * the file's, as git's index tells a file unchanged (stale_worktree.c).
 * `set` false: the thread was not read from a file.  It vouches for the
 * fields as parsed: code that changes a loaded thread and then asks for
 * staleness with it clears `set` first (no caller does so today: the
 * callers of tm_stale_compute pass threads as loaded).
 */
typedef struct {
	bool set;
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
} tm_file_stamp;

/*
 * A thread.  Every string is owned (free with tm_thread_free); NULL means
 * the field is absent.  Timestamps are kept as written in the file (so that
 * an unchanged file round-trips); tm_timestamp compares them as instants.
 */
typedef struct tm_thread {
	char *id;       /* from the file name; authoritative */
	char *field_id; /* the `id` field as read (informative), or NULL */
	char *title;
	char *parent_id; /* NULL for a root (`parentId: null`) */
	char *author;
	char *created_at;
	char *updated_at;
	char *status; /* NULL = active; "done", "abandoned", or kept as-is */
	char *branch;
	char *commit;
	bool has_paths; /* `paths` present (possibly empty) */
	tm_strv paths;
	char *merged_into;
	tm_extra_field *extra;
	size_t nextra;
	char *body; /* bytes after the closing `---` line */
	size_t body_len;
	bool crlf; /* the file uses CRLF line ends: write it back so */
	tm_file_stamp stamp; /* its file's, when the store read it */
} tm_thread;

/* A new, empty thread (all fields absent). */
tm_thread *tm_thread_new(void);
/* Deep copy. */
tm_thread *tm_thread_dup(const tm_thread *t);
/* Free a thread and everything it owns; NULL is allowed. */
void tm_thread_free(tm_thread *t);

/* Replace a string field: `*field` is freed and set to a copy of `value`
 * (or NULL). */
void tm_thread_set(char **field, const char *value);
/* Replace the body with `len` bytes. */
void tm_thread_set_body(tm_thread *t, const char *body, size_t len);

/* True for a thread with no status (active). */
bool tm_thread_is_active(const tm_thread *t);
/* True for status done or abandoned. */
bool tm_thread_is_finished(const tm_thread *t);

/*
 * Whether two threads are the same thread, whatever their id (DESIGN.md
 * section 11): the same `createdAt` instant (tm_time_cmp: equal instants
 * written differently are the same) and the same `author`.  A value absent
 * on either side does not count (a file written by hand, or before the
 * field existed).  A thread keeps both for life, so two files that differ
 * in them hold two threads.
 */
bool tm_thread_same_identity(const char *created_a, const char *author_a,
			     const char *created_b, const char *author_b);

/* Free an array of `n` threads and the array. */
void tm_thread_array_free(tm_thread **threads, size_t n);

#endif
