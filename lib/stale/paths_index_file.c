/*
 * The file of the paths index (paths_index_internal.h): its encoding, read
 * (mapped) and written, and the stamp.
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

#define MAGIC \
	"TMPIDX04" /* 03: record.h's checksum; 04: TM_PATHS_INDEX_F_SUMMARY */
#define MAX_SIZE ((size_t)1 << 30)
#define NULL_LEN UINT64_MAX

/* ---- encoding ---- */

void tm_paths_index__put_str(tm_buf *b, const char *s)
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

void tm_paths_index__put_fstat(tm_buf *b, const struct tm_paths_index_stat *st)
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
const char *tm_paths_index__get_str(tm_record_reader *r)
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

static void get_fstat(tm_record_reader *r, struct tm_paths_index_stat *st)
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
static bool tm_paths_index__get_entry(tm_record_reader *r,
				      struct tm_paths_index_entry *e)
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
	e->id = tm_paths_index__get_str(&body);
	if (!e->id || body.left < 9 * 8)
		return false;
	body.p += 8 * 8; /* the stat data, read by entry_fstat */
	body.left -= 8 * 8;
	e->flags = (unsigned)(tm_record_get_u64(&body) & TM_PATHS_INDEX_F_ALL);
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
size_t tm_paths_index__entry_id_len(const struct tm_paths_index_entry *e)
{
	return (size_t)le64((const unsigned char *)e->id - 8);
}

/* The stat data of a checked entry (get_entry or read_entry made room for
 * it): right after its id in the body, in put_fstat's order. */
void tm_paths_index__entry_fstat(const struct tm_paths_index_entry *e,
				 size_t idlen, struct tm_paths_index_stat *st)
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

void tm_paths_index__clear(struct tm_paths_index_map *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		free(x->e[i].owned);
	free(x->e);
	if (x->map)
		munmap(x->map, x->map_len);
	memset(x, 0, sizeof(*x));
}

/* ---- stat data ---- */

bool tm_paths_index__times_coarse; /* tm_paths_index__coarse_times */

void tm_paths_index__coarse_times(bool on)
{
	tm_paths_index__times_coarse = on;
}

void tm_paths_index__fstat_of(struct tm_paths_index_stat *out,
			      const struct stat *st)
{
	out->size = (uint64_t)st->st_size;
	out->mtime.sec = (uint64_t)st->st_mtim.tv_sec;
	out->mtime.nsec = (uint64_t)st->st_mtim.tv_nsec;
	out->ctime.sec = (uint64_t)st->st_ctim.tv_sec;
	out->ctime.nsec = (uint64_t)st->st_ctim.tv_nsec;
	out->ino = (uint64_t)st->st_ino;
	out->dev = (uint64_t)st->st_dev;
	out->mode = (uint64_t)st->st_mode;
	if (tm_paths_index__times_coarse)
		out->mtime.nsec = out->ctime.nsec = 0;
}

bool tm_paths_index__fstat_same(const struct tm_paths_index_stat *a,
				const struct tm_paths_index_stat *b)
{
	return a->size == b->size && a->mtime.sec == b->mtime.sec &&
	       a->mtime.nsec == b->mtime.nsec && a->ctime.sec == b->ctime.sec &&
	       a->ctime.nsec == b->ctime.nsec && a->ino == b->ino &&
	       a->dev == b->dev && a->mode == b->mode;
}

static bool not_older(const struct tm_paths_index_time *t,
		      const struct tm_paths_index_time *stamp)
{
	return t->sec > stamp->sec ||
	       (t->sec == stamp->sec && t->nsec >= stamp->nsec);
}

/* Changed at or after the index was built: its stat data proves nothing. */
bool tm_paths_index__racy(const struct tm_paths_index_stat *st,
			  const struct tm_paths_index_time *stamp)
{
	return not_older(&st->mtime, stamp) || not_older(&st->ctime, stamp);
}

/* ---- reading and writing it ---- */

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
static bool map_whole(struct tm_paths_index_map *x, const char *path)
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
bool tm_paths_index__read(struct tm_paths_index_map *out, const char *path,
			  const char *key)
{
	tm_record_reader r;
	uint64_t n, i;
	const char *k;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	if (!map_whole(out, path) ||
	    !tm_record_unframe(&r, out->map, out->map_len, MAGIC))
		goto done;
	k = tm_paths_index__get_str(&r);
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
		if (!tm_paths_index__get_entry(&r, &out->e[out->n]) ||
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
		tm_paths_index__clear(out);
	tm_error_clear();
	return ok;
}

/* Write the index; false when it could not be (no error: it is only a
 * speed-up). */
bool tm_paths_index__write(const char *path, const char *key,
			   const struct tm_paths_index_map *x)
{
	tm_buf file = TM_BUF_INIT;
	size_t i, at, total = 0;
	int error;

	for (i = 0; i < x->n; i++)
		total += x->e[i].len;
	/* one buffer, framed in place: no copy of a 17 MB payload */
	tm_buf_grow(&file, TM_RECORD_FRAME_LEN + strlen(key) + 160 + total);
	at = tm_record_frame_begin(&file);
	tm_paths_index__put_str(&file, key);
	tm_paths_index__put_fstat(&file, &x->dir);
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
bool tm_paths_index__take_stamp(struct tm_paths_index_time *out,
				const char *path)
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
		out->nsec = tm_paths_index__times_coarse
				    ? 0
				    : (uint64_t)st.st_ctim.tv_nsec;
	}
done:
	tm_buf_release(&dir);
	tm_buf_release(&name);
	return ok;
}
