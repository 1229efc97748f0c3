/*
 * Shared by the files of the paths index only (paths_index.c, the load;
 * paths_index_file.c, its file; paths_index_stat.c, the stat pass): the
 * entries, the file as loaded, and the functions they call in one another.
 */
#ifndef TM_PATHS_INDEX_INTERNAL_H
#define TM_PATHS_INDEX_INTERNAL_H

#include "paths_index.h"
#include "record.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#define TM_PATHS_INDEX_F_FULL    1u
#define TM_PATHS_INDEX_F_PATHS   2u
#define TM_PATHS_INDEX_F_NOSTAT  4u
#define TM_PATHS_INDEX_F_SUMMARY 16u
#define TM_PATHS_INDEX_F_ALL                              \
	(TM_PATHS_INDEX_F_FULL | TM_PATHS_INDEX_F_PATHS | \
	 TM_PATHS_INDEX_F_NOSTAT | TM_PATHS_INDEX_F_SUMMARY)
#define TM_PATHS_INDEX_F_FRESH \
	8u /* while loading: the old entry holds (never stored) */

struct tm_paths_index_time {
	uint64_t sec, nsec;
};

/* The stat data compared, as git's index compares it. */
struct tm_paths_index_stat {
	uint64_t size, ino, dev, mode;
	struct tm_paths_index_time mtime, ctime;
};

/* 40 bytes: the stat data stays in the body (entry_fstat), as a fresh
 * process pays a page fault for every 4 KiB it touches. */
struct tm_paths_index_entry {
	const char *id; /* in `body` (a listed name while body is NULL) */
	unsigned flags;
	const unsigned char *body; /* the encoded entry, its length first */
	size_t len;
	unsigned char *owned; /* body, when read in this run */
};

struct tm_paths_index_map {
	unsigned char *map; /* the file mapped, which old entries point into */
	size_t map_len;
	struct tm_paths_index_stat dir;
	struct tm_paths_index_time stamp;
	struct tm_paths_index_entry *e;
	size_t n;
};

/* ---- paths_index_file.c: stat data ---- */

/* Stamps in whole seconds (tm_paths_index__coarse_times, for tests). */
extern bool tm_paths_index__times_coarse;

void tm_paths_index__clear(struct tm_paths_index_map *x);
void tm_paths_index__fstat_of(struct tm_paths_index_stat *out,
			      const struct stat *st);
bool tm_paths_index__fstat_same(const struct tm_paths_index_stat *a,
				const struct tm_paths_index_stat *b);
/* Changed at or after the index was built: its stat data proves nothing. */
bool tm_paths_index__racy(const struct tm_paths_index_stat *st,
			  const struct tm_paths_index_time *stamp);

/* ---- paths_index_file.c: the file ---- */

/* The index at `path` for the folder `key` into *out; false (out empty)
 * when missing, damaged or another folder's. */
bool tm_paths_index__read(struct tm_paths_index_map *out, const char *path,
			  const char *key);
/* Write the index; false when it could not be (no error: it is only a
 * speed-up). */
bool tm_paths_index__write(const char *path, const char *key,
			   const struct tm_paths_index_map *x);
void tm_paths_index__put_str(tm_buf *b, const char *s);
void tm_paths_index__put_fstat(tm_buf *b, const struct tm_paths_index_stat *st);
/* The next string, in place (NUL-terminated in the data); NULL for a NULL
 * string or bad data (r->bad set). */
const char *tm_paths_index__get_str(tm_record_reader *r);
/* The length of a checked entry's id: the u64 before it in the body. */
size_t tm_paths_index__entry_id_len(const struct tm_paths_index_entry *e);
/* The stat data of a checked entry (get_entry or read_entry made room for
 * it): right after its id in the body, in put_fstat's order. */
void tm_paths_index__entry_fstat(const struct tm_paths_index_entry *e,
				 size_t idlen, struct tm_paths_index_stat *st);
/*
 * The stamp: the ctime of a file made now in the folder of `path` (made
 * when missing), from the clock that dates the thread files.  False when
 * it cannot be made: the index is then not written.
 */
bool tm_paths_index__take_stamp(struct tm_paths_index_time *out,
				const char *path);

/* ---- paths_index_stat.c ---- */

/*
 * A load cut short by the deadline: the index of what it read (x's
 * entries, stamped as x) and of the `n` entries `rest` it did not get to,
 * `first` the one it was on, as the old index (stamp `was`) had them: an
 * entry without a body (a name new since) is left out, and so is one that
 * was racy then.  Its folder's stat data are left out (zero), so that the
 * next load lists the folder and stats every entry again, and reads only
 * those it lacks.  False when it could not be written.
 */
bool tm_paths_index__write_part(const char *path, const char *key,
				const struct tm_paths_index_map *x,
				const struct tm_paths_index_entry *first,
				const struct tm_paths_index_entry *rest,
				size_t n,
				const struct tm_paths_index_time *was);
/*
 * The lstat pass over e[0..n) on `threads` threads, the calling one
 * included (a thread that cannot be started is simply not there).
 * Returns the threads started, the caller counted.
 */
unsigned tm_paths_index__stat_all(int fd, struct tm_paths_index_entry *e,
				  size_t n,
				  const struct tm_paths_index_time *stamp,
				  unsigned threads);
/*
 * How many threads lstat `n` files: opts->threads when set, else one per
 * THREAD_COST files up to the online CPUs and MAX_THREADS, one when
 * core.preloadIndex is false (as git's preload-index, on by default).
 */
unsigned tm_paths_index__stat_threads(tm_store *s, size_t n,
				      const tm_paths_index_options *opts);

#endif
