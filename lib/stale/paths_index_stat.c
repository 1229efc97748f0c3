/*
 * The stat pass of the paths index (paths_index_internal.h): every thread
 * file's stat data, on a few threads, and the index written with them.
 */
#include "paths_index_internal.h"

#include "deadline.h"
#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "git.h"
#include "hashmap.h"
#include "parallel.h"
#include "record.h"
#include "slug.h"
#include "store_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_MAX_ 255 /* the longest file name */

/* ---- the stat pass ---- */

/*
 * Files one stat thread is worth, and the most threads: git's preload-index
 * (preload-index.c) starts one thread per 500 index entries, at most 20;
 * here never more than the online CPUs either, as a thread more than the
 * CPUs only waits for one.
 */
#define THREAD_COST 500
#define MAX_THREADS 20

/* Entries a thread claims at a time: small enough that a thread the
 * scheduler leaves waiting holds up little, large enough that claiming
 * costs nothing next to the lstat calls. */
#define CHUNK 64

/* The stat pass's data (tm_paths_index__stat_all), as the loop's threads
 * share it: each entry belongs to one chunk, so no lock. */
struct stat_pass {
	int fd;
	struct tm_paths_index_entry *e;
	struct tm_paths_index_time stamp;
};

/* lstat the files of e[from..to) taken over from the old index, relative
 * to the folder (one path component a lookup), and mark TM_PATHS_INDEX_F_FRESH
 * those whose stat data is the recorded one and older than the stamp. */
static void stat_range(void *pass, size_t from, size_t to)
{
	const struct stat_pass *p = pass;
	char name[NAME_MAX_ + 1];
	struct stat st;
	struct tm_paths_index_stat now, was;
	size_t i, len;

	for (i = from; i < to; i++) {
		struct tm_paths_index_entry *e = &p->e[i];

		if (!e->body || (e->flags & TM_PATHS_INDEX_F_NOSTAT))
			continue;
		len = tm_paths_index__entry_id_len(e);
		if (len + 4 > sizeof(name))
			continue;
		memcpy(name, e->id, len);
		memcpy(name + len, ".md", 4);
		if (fstatat(p->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		tm_paths_index__fstat_of(&now, &st);
		tm_paths_index__entry_fstat(e, len, &was);
		if (tm_paths_index__fstat_same(&now, &was) &&
		    !tm_paths_index__racy(&was, &p->stamp))
			e->flags |= TM_PATHS_INDEX_F_FRESH;
	}
}

/*
 * The lstat pass over e[0..n) on `threads` threads, the calling one
 * included (tm_parallel_for).  Returns the threads started, the caller
 * counted.
 */
unsigned tm_paths_index__stat_all(int fd, struct tm_paths_index_entry *e,
				  size_t n,
				  const struct tm_paths_index_time *stamp,
				  unsigned threads)
{
	struct stat_pass p;

	p.fd = fd;
	p.e = e;
	p.stamp = *stamp;
	return tm_parallel_for(n, CHUNK, threads, stat_range, &p);
}

/*
 * How many threads lstat `n` files: opts->threads when set, else one per
 * THREAD_COST files up to the online CPUs and MAX_THREADS, one when
 * core.preloadIndex is false (as git's preload-index, on by default).
 */
unsigned tm_paths_index__stat_threads(tm_store *s, size_t n,
				      const tm_paths_index_options *opts)
{
	struct tm_git *g = tm_store_git(s);
	bool preload = true;

	if (opts->threads)
		return opts->threads > MAX_THREADS ? MAX_THREADS
						   : opts->threads;
	if (n / THREAD_COST < 2)
		return 1; /* not worth a thread, nor a config read */
	if (g && tm_git_config_bool(&preload, g, "core.preloadIndex", true) < 0)
		preload = true;
	tm_error_clear();
	return preload ? tm_parallel_threads(n, THREAD_COST, MAX_THREADS) : 1;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tm_paths_index_entry *)a)->id,
		      ((const struct tm_paths_index_entry *)b)->id);
}

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
				size_t n, const struct tm_paths_index_time *was)
{
	struct tm_paths_index_map part;
	struct tm_paths_index_stat st;
	size_t i;
	bool ok;

	memset(&part, 0, sizeof(part));
	part.stamp = x->stamp;
	part.e = tm_xcalloc(x->n + n + 2, sizeof(*part.e));
	for (i = 0; i < x->n; i++)
		part.e[part.n++] = x->e[i];
	for (i = 0; i <= n; i++) {
		const struct tm_paths_index_entry *e = i ? &rest[i - 1] : first;

		if (!e->body || (e->flags & TM_PATHS_INDEX_F_NOSTAT))
			continue;
		tm_paths_index__entry_fstat(e, tm_paths_index__entry_id_len(e),
					    &st);
		if (!tm_paths_index__racy(&st, was))
			part.e[part.n++] = *e;
	}
	qsort(part.e, part.n, sizeof(*part.e), entry_cmp);
	ok = tm_paths_index__write(path, key, &part);
	free(part.e);
	return ok;
}
