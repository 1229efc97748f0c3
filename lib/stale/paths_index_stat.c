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
#include "record.h"
#include "slug.h"
#include "store_files.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
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

/*
 * One lstat pass, shared by the threads: each claims the next CHUNK
 * entries until none is left.  The caller waits only for the chunks
 * claimed, never for a thread to start: on a busy machine a thread the
 * scheduler has not run yet finds nothing left and just leaves (detached;
 * the last one out frees the pass), so a second thread never makes the
 * pass slower than one.
 */
struct stat_pass {
	int fd;
	struct tm_paths_index_entry *e;
	size_t n;
	struct tm_paths_index_time stamp;
	atomic_size_t next; /* the first entry not claimed */
	atomic_size_t done; /* entries whose chunk is finished */
	atomic_int refs;    /* the caller and the threads started */
	pthread_mutex_t lock;
	pthread_cond_t all_done;
};

/* lstat the files of e[from..to) taken over from the old index, relative
 * to the folder (one path component a lookup), and mark TM_PATHS_INDEX_F_FRESH
 * those whose stat data is the recorded one and older than the stamp. */
static void stat_range(const struct stat_pass *p, size_t from, size_t to)
{
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

/* Claim and do chunks until none is left. */
static void stat_chunks(struct stat_pass *p)
{
	size_t from, to;

	while ((from = atomic_fetch_add(&p->next, CHUNK)) < p->n) {
		to = from + CHUNK < p->n ? from + CHUNK : p->n;
		stat_range(p, from, to);
		if (atomic_fetch_add(&p->done, to - from) + (to - from) ==
		    p->n) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_broadcast(&p->all_done);
			pthread_mutex_unlock(&p->lock);
		}
	}
}

static void stat_pass_unref(struct stat_pass *p)
{
	if (atomic_fetch_sub(&p->refs, 1) == 1) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->all_done);
		free(p);
	}
}

static void *stat_thread(void *pass)
{
	stat_chunks(pass);
	stat_pass_unref(pass);
	return NULL;
}

/*
 * The lstat pass over e[0..n) on `threads` threads, the calling one
 * included (a thread that cannot be started is simply not there).
 * Returns the threads started, the caller counted.
 */
unsigned tm_paths_index__stat_all(int fd, struct tm_paths_index_entry *e,
				  size_t n,
				  const struct tm_paths_index_time *stamp,
				  unsigned threads)
{
	struct stat_pass *p = tm_xcalloc(1, sizeof(*p));
	pthread_attr_t attr;
	pthread_t tid;
	unsigned k, ran = 1;

	p->fd = fd;
	p->e = e;
	p->n = n;
	p->stamp = *stamp;
	atomic_init(&p->next, 0);
	atomic_init(&p->done, 0);
	atomic_init(&p->refs, 1);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->all_done, NULL);
	if (threads > 1 && n > CHUNK && pthread_attr_init(&attr) == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		for (k = 1; k < threads; k++) {
			atomic_fetch_add(&p->refs, 1);
			if (pthread_create(&tid, &attr, stat_thread, p) != 0) {
				atomic_fetch_sub(&p->refs, 1);
				break;
			}
			ran++;
		}
		pthread_attr_destroy(&attr);
	}
	stat_chunks(p);
	pthread_mutex_lock(&p->lock);
	while (atomic_load(&p->done) < n)
		pthread_cond_wait(&p->all_done, &p->lock);
	pthread_mutex_unlock(&p->lock);
	stat_pass_unref(p);
	return ran;
}

static long fake_cpus; /* tm_paths_index__online_cpus */

void tm_paths_index__online_cpus(long n)
{
	fake_cpus = n;
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
	long cpus = fake_cpus > 0 ? fake_cpus : sysconf(_SC_NPROCESSORS_ONLN);
	bool preload = true;
	size_t t;

	if (opts->threads)
		t = opts->threads;
	else if ((t = n / THREAD_COST) < 2)
		return 1; /* not worth a thread, nor a config read */
	else if (g &&
		 tm_git_config_bool(&preload, g, "core.preloadIndex", true) < 0)
		preload = true;
	tm_error_clear();
	if (!opts->threads && !preload)
		return 1;
	if (!opts->threads && cpus > 0 && t > (size_t)cpus)
		t = (size_t)cpus;
	return t > MAX_THREADS ? MAX_THREADS : (unsigned)t;
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
