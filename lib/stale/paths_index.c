/*
 * The thread index of the hooks (see paths_index.h):
 * $GIT_COMMON_DIR/threadmind/paths-<hash of the folder>.index.
 *
 * File: the magic "TMPIDX03", the payload's length and its checksum (8
 * bytes each: record.h's frame), then the payload: the folder's path (the key),
 * the folder's stat data, the stamp (the ctime of a file made just before the
 * folder was listed or the first file read, seconds and ns), the number of
 * entries and the entries in id order (strcmp).  An entry: the length of the
 * rest, its id, its file's stat data, its flags (F_FULL: the whole file parses;
 * F_PATHS: its frontmatter has a `paths` line and parses; F_NOSTAT: lstat
 * failed, read it again every time; F_SUMMARY: its summary is not blank), then
 * status, commit, branch, updatedAt (nullable strings), has_paths and paths.
 * Integers are u64 little-endian; a string is its length, its bytes and a NUL,
 * length 2^64-1 meaning NULL (no bytes).  An entry taken over from the previous
 * index is copied as it is; only the entries a hook outputs are decoded.
 *
 * The folder's own stat data saves listing it: a file added, removed or
 * renamed changes the folder's mtime and ctime, so while those are the
 * recorded ones (and older than the stamp) the names are the index's.
 *
 * Why the stamp is enough: an entry is trusted only when its stat data is
 * unchanged and its mtime and ctime are older than the stamp of the index
 * it comes from.  Its file was read after that stamp, so a later change
 * gives it a ctime at or past the stamp, that is different stat data.  The
 * stamp is the ctime of a real file, taken from the same clock as the
 * thread files' times, so coarse file-system timestamps cannot fool it.
 */
#include "paths_index.h"

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

#define MAGIC     "TMPIDX04" /* 03: record.h's checksum; 04: F_SUMMARY */
#define MAX_SIZE  ((size_t)1 << 30)
#define NULL_LEN  UINT64_MAX
#define NAME_MAX_ 255 /* the longest file name */

#define F_FULL    1u
#define F_PATHS   2u
#define F_NOSTAT  4u
#define F_SUMMARY 16u
#define F_ALL     (F_FULL | F_PATHS | F_NOSTAT | F_SUMMARY)
#define F_FRESH   8u /* while loading: the old entry holds (never stored) */

struct tstamp {
	uint64_t sec, nsec;
};

/* The stat data compared, as git's index compares it. */
struct fstat {
	uint64_t size, ino, dev, mode;
	struct tstamp mtime, ctime;
};

/* 40 bytes: the stat data stays in the body (entry_fstat), as a fresh
 * process pays a page fault for every 4 KiB it touches. */
struct entry {
	const char *id; /* in `body` (a listed name while body is NULL) */
	unsigned flags;
	const unsigned char *body; /* the encoded entry, its length first */
	size_t len;
	unsigned char *owned; /* body, when read in this run */
};

struct index {
	unsigned char *map; /* the file mapped, which old entries point into */
	size_t map_len;
	struct fstat dir;
	struct tstamp stamp;
	struct entry *e;
	size_t n;
};

static void index_clear(struct index *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		free(x->e[i].owned);
	free(x->e);
	if (x->map)
		munmap(x->map, x->map_len);
	memset(x, 0, sizeof(*x));
}

/* ---- encoding ---- */

static void put_str(tm_buf *b, const char *s)
{
	size_t len;

	if (!s) {
		tm_record_put_u64(b, NULL_LEN);
		return;
	}
	len = strlen(s);
	tm_record_put_u64(b, len);
	tm_buf_put(b, s, len + 1);
}

static void put_fstat(tm_buf *b, const struct fstat *st)
{
	tm_record_put_u64(b, st->size);
	tm_record_put_u64(b, st->mtime.sec);
	tm_record_put_u64(b, st->mtime.nsec);
	tm_record_put_u64(b, st->ctime.sec);
	tm_record_put_u64(b, st->ctime.nsec);
	tm_record_put_u64(b, st->ino);
	tm_record_put_u64(b, st->dev);
	tm_record_put_u64(b, st->mode);
}

/* The next string, in place (NUL-terminated in the data); NULL for a NULL
 * string or bad data (r->bad set). */
static const char *get_str(tm_record_reader *r)
{
	uint64_t len = tm_record_get_u64(r);
	const char *s;

	if (r->bad || len == NULL_LEN)
		return NULL;
	if (len >= r->left || r->p[len] != '\0' || memchr(r->p, '\0', len)) {
		r->bad = true;
		return NULL;
	}
	s = (const char *)r->p;
	r->p += len + 1;
	r->left -= (size_t)len + 1;
	return s;
}

static void get_fstat(tm_record_reader *r, struct fstat *st)
{
	st->size = tm_record_get_u64(r);
	st->mtime.sec = tm_record_get_u64(r);
	st->mtime.nsec = tm_record_get_u64(r);
	st->ctime.sec = tm_record_get_u64(r);
	st->ctime.nsec = tm_record_get_u64(r);
	st->ino = tm_record_get_u64(r);
	st->dev = tm_record_get_u64(r);
	st->mode = tm_record_get_u64(r);
}

/*
 * The entry at r into e (its body stays in the data); false when bad.  Only
 * what the load itself uses is checked here (the frame, the id, room for
 * the stat data, the flags): an entry's fields are decoded only when it is
 * output, by entry_thread's bounded reader, so that a load does not decode
 * 10,000 entries to output a few.  The checksum has already caught damage;
 * a forged file with a right checksum could as well hold wrong fields that
 * parse.
 */
static bool get_entry(tm_record_reader *r, struct entry *e)
{
	uint64_t len = tm_record_get_u64(r);
	tm_record_reader body;

	memset(e, 0, sizeof(*e));
	if (r->bad || len > r->left)
		return false;
	e->body = r->p - 8;
	e->len = (size_t)len + 8;
	body.p = r->p;
	body.left = (size_t)len;
	body.bad = false;
	r->p += len;
	r->left -= (size_t)len;
	e->id = get_str(&body);
	if (!e->id || body.left < 9 * 8)
		return false;
	body.p += 8 * 8; /* the stat data, read by entry_fstat */
	body.left -= 8 * 8;
	e->flags = (unsigned)(tm_record_get_u64(&body) & F_ALL);
	return !body.bad;
}

/* The u64 at p (little-endian): the hot loop's read, inlined, of what
 * tm_record_get_u64 reads, for data already checked to be there. */
static inline uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, p, 8);
	(void)i;
#else
	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
#endif
	return v;
}

/* The length of a checked entry's id: the u64 before it in the body. */
static size_t entry_id_len(const struct entry *e)
{
	return (size_t)le64((const unsigned char *)e->id - 8);
}

/* The stat data of a checked entry (get_entry or read_entry made room for
 * it): right after its id in the body, in put_fstat's order. */
static void entry_fstat(const struct entry *e, size_t idlen, struct fstat *st)
{
	const unsigned char *p = (const unsigned char *)e->id + idlen + 1;

	st->size = le64(p);
	st->mtime.sec = le64(p + 8);
	st->mtime.nsec = le64(p + 16);
	st->ctime.sec = le64(p + 24);
	st->ctime.nsec = le64(p + 32);
	st->ino = le64(p + 40);
	st->dev = le64(p + 48);
	st->mode = le64(p + 56);
}

/* ---- the file ---- */

static bool coarse_times; /* tm_paths_index__coarse_times */

void tm_paths_index__coarse_times(bool on)
{
	coarse_times = on;
}

char *tm_paths_index_file(tm_store *s, const char *project)
{
	struct tm_git *g = tm_store_git(s);
	tm_buf key = TM_BUF_INIT, path = TM_BUF_INIT;

	tm_error_clear();
	if (!g)
		return NULL;
	tm_buf_printf(&key, "%s/threads/%s", tm_store_dir(s), project);
	tm_buf_printf(&path, "%sthreadmind/paths-%016llx.index",
		      tm_git_commondir(g),
		      (unsigned long long)tm_hash_bytes(key.ptr, key.size));
	tm_buf_release(&key);
	return tm_buf_detach(&path);
}

/*
 * Map the whole of `path` (at most MAX_SIZE bytes) into x, read-only;
 * false when it cannot be.  Mapped rather than read, as git maps its own
 * index: no copy, and the page cache's pages rather than fresh ones.  The
 * file is only ever replaced by a rename, never truncated in place.
 */
static bool map_whole(struct index *x, const char *path)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < TM_RECORD_FRAME_LEN ||
	    (uint64_t)st.st_size > MAX_SIZE) {
		close(fd);
		return false;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return false;
	x->map = p;
	x->map_len = (size_t)st.st_size;
	return true;
}

/* The index at `path` for the folder `key` into *out; false (out empty)
 * when missing, damaged or another folder's. */
static bool index_read(struct index *out, const char *path, const char *key)
{
	tm_record_reader r;
	uint64_t n, i;
	const char *k;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	if (!map_whole(out, path) ||
	    !tm_record_unframe(&r, out->map, out->map_len, MAGIC))
		goto done;
	k = get_str(&r);
	if (!k || strcmp(k, key))
		goto done;
	get_fstat(&r, &out->dir);
	out->stamp.sec = tm_record_get_u64(&r);
	out->stamp.nsec = tm_record_get_u64(&r);
	n = tm_record_get_u64(&r);
	if (r.bad || n > r.left / 8)
		goto done;
	out->e = tm_xcalloc((size_t)n + 1, sizeof(*out->e));
	for (i = 0; i < n; i++) {
		/* the names become file names: valid ids only, as listed */
		if (!get_entry(&r, &out->e[out->n]) ||
		    tm_id_validate(out->e[out->n].id, "thread") < 0)
			goto done;
		out->n++;
		if (out->n > 1 &&
		    strcmp(out->e[out->n - 2].id, out->e[out->n - 1].id) >= 0)
			goto done; /* not in id order */
	}
	ok = r.left == 0;
done:
	if (!ok)
		index_clear(out);
	tm_error_clear();
	return ok;
}

/* Write the index; false when it could not be (no error: it is only a
 * speed-up). */
static bool index_write(const char *path, const char *key,
			const struct index *x)
{
	tm_buf file = TM_BUF_INIT;
	size_t i, at, total = 0;
	int error;

	for (i = 0; i < x->n; i++)
		total += x->e[i].len;
	/* one buffer, framed in place: no copy of a 17 MB payload */
	tm_buf_grow(&file, TM_RECORD_FRAME_LEN + strlen(key) + 160 + total);
	at = tm_record_frame_begin(&file);
	put_str(&file, key);
	put_fstat(&file, &x->dir);
	tm_record_put_u64(&file, x->stamp.sec);
	tm_record_put_u64(&file, x->stamp.nsec);
	tm_record_put_u64(&file, x->n);
	for (i = 0; i < x->n; i++)
		tm_buf_put(&file, x->e[i].body, x->e[i].len);
	tm_record_frame_end(&file, at, MAGIC);
	error = tm_atomic_write_nosync(path, file.ptr, file.size);
	tm_error_clear();
	tm_buf_release(&file);
	return error == 0;
}

/*
 * The stamp: the ctime of a file made now in the folder of `path` (made
 * when missing), from the clock that dates the thread files.  False when
 * it cannot be made: the index is then not written.
 */
static bool take_stamp(struct tstamp *out, const char *path)
{
	const char *slash = strrchr(path, '/');
	tm_buf dir = TM_BUF_INIT, name = TM_BUF_INIT;
	char uuid[TM_UUID_LEN + 1];
	struct stat st;
	bool ok = false;
	int fd;

	tm_buf_put(&dir, path, slash ? (size_t)(slash - path) : 0);
	if (mkdir(tm_buf_cstr(&dir), 0777) < 0 && errno != EEXIST)
		goto done;
	tm_uuid_v4(uuid);
	tm_buf_printf(&name, "%s/.stamp-%s.tmp", tm_buf_cstr(&dir), uuid);
	fd = open(tm_buf_cstr(&name),
		  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto done;
	ok = fstat(fd, &st) == 0;
	close(fd);
	unlink(tm_buf_cstr(&name));
	if (ok) {
		out->sec = (uint64_t)st.st_ctim.tv_sec;
		out->nsec = coarse_times ? 0 : (uint64_t)st.st_ctim.tv_nsec;
	}
done:
	tm_buf_release(&dir);
	tm_buf_release(&name);
	return ok;
}

/* ---- one file ---- */

static void fstat_of(struct fstat *out, const struct stat *st)
{
	out->size = (uint64_t)st->st_size;
	out->mtime.sec = (uint64_t)st->st_mtim.tv_sec;
	out->mtime.nsec = (uint64_t)st->st_mtim.tv_nsec;
	out->ctime.sec = (uint64_t)st->st_ctim.tv_sec;
	out->ctime.nsec = (uint64_t)st->st_ctim.tv_nsec;
	out->ino = (uint64_t)st->st_ino;
	out->dev = (uint64_t)st->st_dev;
	out->mode = (uint64_t)st->st_mode;
	if (coarse_times)
		out->mtime.nsec = out->ctime.nsec = 0;
}

static bool fstat_same(const struct fstat *a, const struct fstat *b)
{
	return a->size == b->size && a->mtime.sec == b->mtime.sec &&
	       a->mtime.nsec == b->mtime.nsec && a->ctime.sec == b->ctime.sec &&
	       a->ctime.nsec == b->ctime.nsec && a->ino == b->ino &&
	       a->dev == b->dev && a->mode == b->mode;
}

static bool not_older(const struct tstamp *t, const struct tstamp *stamp)
{
	return t->sec > stamp->sec ||
	       (t->sec == stamp->sec && t->nsec >= stamp->nsec);
}

/* Changed at or after the index was built: its stat data proves nothing. */
static bool racy(const struct fstat *st, const struct tstamp *stamp)
{
	return not_older(&st->mtime, stamp) || not_older(&st->ctime, stamp);
}

static void put_fields(tm_buf *b, const tm_thread *t)
{
	size_t i, n = t ? t->paths.n : 0;

	put_str(b, t ? t->status : NULL);
	put_str(b, t ? t->commit : NULL);
	put_str(b, t ? t->branch : NULL);
	put_str(b, t ? t->updated_at : NULL);
	tm_record_put_u64(b, t && t->has_paths);
	tm_record_put_u64(b, n);
	for (i = 0; i < n; i++)
		put_str(b, t->paths.items[i]);
}

/*
 * Read the file of `id` in folder fd into e (a body of its own): the
 * whole-file parse (as tm_store_load_all) and the frontmatter-only one (as
 * post-commit, only when a line of the block may be `paths`).  Both parse
 * the same block, so the fields are those of either.
 */
static void read_entry(struct entry *e, int fd, const char *id, tm_buf *data)
{
	tm_buf name = TM_BUF_INIT, body = TM_BUF_INIT;
	tm_thread *full = NULL, *fm = NULL;
	struct stat st;
	struct fstat fst;
	size_t blen = 0;
	int k;

	memset(e, 0, sizeof(*e));
	memset(&fst, 0, sizeof(fst));
	tm_buf_printf(&name, "%s.md", id);
	if (fstatat(fd, tm_buf_cstr(&name), &st, AT_SYMLINK_NOFOLLOW) == 0)
		fstat_of(&fst, &st);
	else
		e->flags |= F_NOSTAT;
	tm_buf_clear(data);
	if (tm_fs_read_at(data, fd, tm_buf_cstr(&name), tm_buf_cstr(&name),
			  TM_MAX_FILE_SIZE) == 0) {
		if (tm_frontmatter_parse_checked(&full, data->ptr, data->size,
						 id, tm_buf_cstr(&name),
						 tm_deadline_check) == 0)
			e->flags |= F_FULL;
		if (tm_frontmatter_may_have(data->ptr, data->size, "paths") &&
		    (blen = tm_frontmatter_block_len(data->ptr, data->size)) &&
		    tm_frontmatter_parse_checked(&fm, data->ptr, blen, id,
						 tm_buf_cstr(&name),
						 tm_deadline_check) == 0)
			e->flags |= F_PATHS;
		if (full ? !tm_thread_summary_blank(full)
			 : blen && !tm_summary_blank(data->ptr + blen,
						     data->size - blen))
			e->flags |= F_SUMMARY;
	}
	tm_error_clear();
	tm_record_put_u64(&body, 0); /* the length, set below */
	put_str(&body, id);
	put_fstat(&body, &fst);
	tm_record_put_u64(&body, e->flags);
	put_fields(&body, fm ? fm : full);
	for (k = 0; k < 8; k++)
		body.ptr[k] = (char)(unsigned char)((body.size - 8) >> (8 * k));
	e->len = body.size;
	e->owned = (unsigned char *)tm_buf_detach(&body);
	e->body = e->owned;
	e->id = (const char *)e->body + 16; /* past the two lengths */
	tm_thread_free(full);
	tm_thread_free(fm);
	tm_buf_release(&name);
}

/* What a list's threads point into (tm_paths_index_list.impl_). */
struct list_impl {
	struct index old; /* the mapped file */
	struct index now; /* the bodies read in this run */
	tm_thread *t;
	const tm_thread **ptrs;
	char **items;
};

/*
 * Entry e as thread t, its strings borrowed from the body (NUL-terminated
 * in it: get_str checks each), its paths appended to *items as offsets
 * (fixed up by the caller once the pool stops moving).  Fields past the
 * end of a bad body are left NULL, and so are its paths from there.
 */
static void entry_thread(tm_thread *t, const struct entry *e, char ***items,
			 size_t *nitems, size_t *alloc)
{
	tm_record_reader r;
	uint64_t n, i;

	r.p = e->body + 8;
	r.left = e->len - 8;
	r.bad = false;
	t->id = (char *)get_str(&r); /* checked by get_entry or read_entry */
	r.p += 9 * 8;                /* the stat data and the flags, as */
	r.left -= 9 * 8;             /* checked there too */
	t->status = (char *)get_str(&r);
	t->commit = (char *)get_str(&r);
	t->branch = (char *)get_str(&r);
	t->updated_at = (char *)get_str(&r);
	t->has_paths = tm_record_get_u64(&r) == 1;
	n = tm_record_get_u64(&r);
	t->paths.alloc = *nitems; /* the offset, for now */
	for (i = 0; i < n; i++) {
		const char *p = get_str(&r);

		if (!p)
			break; /* bad data, or a NULL that no path can be */
		tm_xgrow((void **)items, alloc, *nitems + 1, sizeof(**items));
		(*items)[(*nitems)++] = (char *)p;
	}
	t->paths.n = (size_t)i;
}

void tm_paths_index_list_clear(tm_paths_index_list *l)
{
	struct list_impl *x = l->impl_;

	if (x) {
		x->old.n = 0; /* now's or dropped: none owns a body */
		index_clear(&x->old);
		index_clear(&x->now);
		free(x->t);
		free(x->ptrs);
		free(x->items);
		free(x);
	}
	memset(l, 0, sizeof(*l));
}

/* The entries with every flag of `want` of x->now as l's threads. */
static void make_list(tm_paths_index_list *l, struct list_impl *x,
		      unsigned want)
{
	size_t i, k = 0, nitems = 0, alloc = 0, n = 0;

	for (i = 0; i < x->now.n; i++)
		n += (x->now.e[i].flags & want) == want;
	x->t = tm_xcalloc(n + 1, sizeof(*x->t));
	x->ptrs = tm_xcalloc(n + 1, sizeof(*x->ptrs));
	for (i = 0; i < x->now.n; i++)
		if ((x->now.e[i].flags & want) == want)
			entry_thread(&x->t[k++], &x->now.e[i], &x->items,
				     &nitems, &alloc);
	for (i = 0; i < k; i++) {
		/* no thread with paths: no items (NULL + 0 is undefined) */
		x->t[i].paths.items =
			x->items ? x->items + x->t[i].paths.alloc : NULL;
		x->t[i].paths.alloc = 0; /* borrowed */
		x->ptrs[i] = &x->t[i];
	}
	l->threads = x->ptrs;
	l->n = k;
	l->impl_ = x;
}

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
	struct entry *e;
	size_t n;
	struct tstamp stamp;
	atomic_size_t next; /* the first entry not claimed */
	atomic_size_t done; /* entries whose chunk is finished */
	atomic_int refs;    /* the caller and the threads started */
	pthread_mutex_t lock;
	pthread_cond_t all_done;
};

/* lstat the files of e[from..to) taken over from the old index, relative
 * to the folder (one path component a lookup), and mark F_FRESH those
 * whose stat data is the recorded one and older than the stamp. */
static void stat_range(const struct stat_pass *p, size_t from, size_t to)
{
	char name[NAME_MAX_ + 1];
	struct stat st;
	struct fstat now, was;
	size_t i, len;

	for (i = from; i < to; i++) {
		struct entry *e = &p->e[i];

		if (!e->body || (e->flags & F_NOSTAT))
			continue;
		len = entry_id_len(e);
		if (len + 4 > sizeof(name))
			continue;
		memcpy(name, e->id, len);
		memcpy(name + len, ".md", 4);
		if (fstatat(p->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		fstat_of(&now, &st);
		entry_fstat(e, len, &was);
		if (fstat_same(&now, &was) && !racy(&was, &p->stamp))
			e->flags |= F_FRESH;
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
static unsigned stat_all(int fd, struct entry *e, size_t n,
			 const struct tstamp *stamp, unsigned threads)
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
static unsigned stat_threads(tm_store *s, size_t n,
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
	return strcmp(((const struct entry *)a)->id,
		      ((const struct entry *)b)->id);
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
static bool index_write_part(const char *path, const char *key,
			     const struct index *x, const struct entry *first,
			     const struct entry *rest, size_t n,
			     const struct tstamp *was)
{
	struct index part;
	struct fstat st;
	size_t i;
	bool ok;

	memset(&part, 0, sizeof(part));
	part.stamp = x->stamp;
	part.e = tm_xcalloc(x->n + n + 2, sizeof(*part.e));
	for (i = 0; i < x->n; i++)
		part.e[part.n++] = x->e[i];
	for (i = 0; i <= n; i++) {
		const struct entry *e = i ? &rest[i - 1] : first;

		if (!e->body || (e->flags & F_NOSTAT))
			continue;
		entry_fstat(e, entry_id_len(e), &st);
		if (!racy(&st, was))
			part.e[part.n++] = *e;
	}
	qsort(part.e, part.n, sizeof(*part.e), entry_cmp);
	ok = index_write(path, key, &part);
	free(part.e);
	return ok;
}

/* ---- the load ---- */

/*
 * Time to stop reading, past a deadline (deadline.h), for a load of `n`
 * entries: early enough to write the index of what was read within it
 * (about 2 us an entry: 17 MB for 100,000 threads).
 */
static bool out_of_time(size_t n)
{
	return tm_deadline_is_set() && tm_deadline_left() < (double)n * 2e-6;
}

int tm_paths_index_load(tm_paths_index_list *out, tm_store *s,
			const char *project, tm_paths_index_what what,
			tm_paths_index_options *opts)
{
	tm_paths_index_options dflt = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_strv listed = TM_STRV_INIT;
	tm_buf data = TM_BUF_INIT, key = TM_BUF_INIT;
	struct index old, now;
	char *path = NULL;
	struct stat st;
	struct fstat dir;
	unsigned want =
		what == TM_PATHS_INDEX_ALL ? F_FULL : F_PATHS | F_SUMMARY;
	bool dirty = false, stamped = false, listing;
	struct entry left; /* where a load cut short stopped */
	size_t i, j = 0, nids;
	int fd, error;

	memset(out, 0, sizeof(*out));
	memset(&old, 0, sizeof(old));
	memset(&now, 0, sizeof(now));
	memset(&left, 0, sizeof(left));
	if (!opts)
		opts = &dflt;
	opts->cut_short = opts->written = opts->listed = false;
	opts->reread = 0;
	opts->stat_threads = 0;
	if ((error = tm_id_validate(project, "project")) < 0)
		return error;
	error = tm_store_open_folder(&fd, s, "threads", project, false);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		return 0;
	}
	if (error < 0)
		return error;
	tm_buf_printf(&key, "%s/threads/%s", tm_store_dir(s), project);
	if (!opts->no_index && (path = tm_paths_index_file(s, project)))
		index_read(&old, path, tm_buf_cstr(&key));
	memset(&dir, 0, sizeof(dir));
	if (fstat(fd, &st) == 0)
		fstat_of(&dir, &st);
	/* The names: the index's while the folder is unchanged. */
	listing = !old.map || !fstat_same(&dir, &old.dir) ||
		  racy(&old.dir, &old.stamp) || !dir.ctime.sec;
	if (listing) {
		char *display =
			tm_store_file_display(s, "threads", NULL, project);

		if (path && !(stamped = take_stamp(&now.stamp, path))) {
			free(path);
			path = NULL;
		}
		/* after the stamp, so that a change after it shows */
		memset(&dir, 0, sizeof(dir));
		if (fstat(fd, &st) == 0)
			fstat_of(&dir, &st);
		error = tm_store_list_names(&listed, NULL, fd, display, ".md",
					    "thread");
		free(display);
		if (error < 0)
			goto done;
		dirty = true;
	} else {
		now.stamp = old.stamp;
	}
	now.dir = dir;
	opts->listed = listing;
	nids = listing ? listed.n : old.n;
	if (!listing) { /* the same names: the old entries, in place */
		now.e = old.e;
		old.e = NULL;
		old.n = 0;
	} else { /* each name with the old entry of that name, if any */
		now.e = tm_xcalloc(nids + 1, sizeof(*now.e));
		for (i = 0; i < nids; i++) {
			const char *id = listed.items[i];
			int c = 1;

			while (j < old.n && (c = strcmp(old.e[j].id, id)) < 0)
				j++; /* removed since */
			if (j < old.n && c == 0)
				now.e[i] = old.e[j++];
			else
				now.e[i].id = id; /* new: no body */
		}
	}
	opts->stat_threads = stat_all(fd, now.e, nids, &old.stamp,
				      stat_threads(s, nids, opts));
	/* Keep the fresh entries, read the others again, in place (an entry
	 * is taken before its slot, or an earlier one, is written). */
	for (i = 0; i < nids; i++) {
		struct entry e = now.e[i];

		if (e.flags & F_FRESH) {
			e.flags &= ~F_FRESH;
			now.e[now.n++] = e;
			continue;
		}
		if (out_of_time(nids)) {
			opts->cut_short = true;
			left = e;
			break;
		}
		/* Stamp before the first read: what is read after it is
		 * what the index records. */
		if (path && !stamped &&
		    !(stamped = take_stamp(&now.stamp, path))) {
			free(path);
			path = NULL;
		}
		read_entry(&now.e[now.n++], fd, e.id, &data);
		if (tm_deadline_passed()) {
			/* the read may have stopped half-way: an entry
			 * that says "does not parse" must not be kept */
			opts->cut_short = true;
			free(now.e[--now.n].owned);
			left = e;
			break;
		}
		opts->reread++;
		dirty = true;
	}
	if (opts->cut_short) {
		/* what was read is kept: the next load goes on from there */
		if (path && opts->reread)
			opts->written = index_write_part(
				path, tm_buf_cstr(&key), &now, &left,
				now.e + i + 1, nids - i - 1, &old.stamp);
	} else if (path && dirty) {
		opts->written = index_write(path, tm_buf_cstr(&key), &now);
	}
	{
		struct list_impl *x = tm_xcalloc(1, sizeof(*x));

		x->old = old;
		x->now = now;
		memset(&old, 0, sizeof(old));
		memset(&now, 0, sizeof(now));
		make_list(out, x, want);
	}
done:
	close(fd);
	index_clear(&now);
	old.n = 0; /* its entries are now's or dropped: none owns a body */
	index_clear(&old);
	tm_strv_clear(&listed);
	tm_buf_release(&data);
	tm_buf_release(&key);
	free(path);
	if (error == 0)
		tm_error_clear();
	return error;
}
