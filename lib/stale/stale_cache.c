/*
 * The staleness cache (DESIGN.md section 11, "Staleness is cached"):
 * $GIT_COMMON_DIR/threadmind/stale.cache, never in the work tree.
 *
 * It holds the last answer of tm_stale_compute with everything the answer
 * depends on, as its key: HEAD's commit (which fixes the whole history,
 * hence every version of every thread file and every commit's changes),
 * the shallow boundary ($GIT_COMMON_DIR/shallow), the folder of thread
 * files, and each thread that can be stale, in order (id, commit, paths,
 * identity: createdAt and author).
 * When the key is the same, the answer is read back without walking the
 * history: what status, tree and list need on a second run.  An unknown
 * base that the repository has since got (a fetch) makes the entry
 * unusable too.
 *
 * With the same key but for HEAD, the entry is "the answer at an earlier
 * HEAD", which stale.c may carry forward over the new commits; for that
 * it also holds every review point the answer used and whether that HEAD
 * reached them all.
 *
 * File: the magic "TMSTALE5", the payload's length and its checksum
 * (8 bytes each, little-endian: record.h's frame), the payload (the key, the
 * report with its warnings, the review points, the flag). A file that is short,
 * long, of another magic or whose hash differs is ignored and replaced by the
 * next write; nothing here is ever fatal.  A write goes through
 * tm_atomic_write_nosync (temp file, rename; no fsync, the checksum tells a
 * file torn by a crash): concurrent writers each rename a complete file, the
 * last one wins.
 */
#include "stale_internal.h"
#include "error.h"
#include "fs.h"
#include "git.h"
#include "git_libgit2.h"
#include "hashmap.h"
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* 4: review points of rewritten commits, identities, blank summaries;
 * 5: the warnings */
#define MAGIC    "TMSTALE5"
#define MAX_SIZE ((size_t)1 << 30)

/* ---- encoding ---- */

static void put_str(tm_buf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	tm_record_put_u64(b, len);
	tm_buf_put(b, s ? s : "", len);
}

static void put_strv(tm_buf *b, const tm_strv *v)
{
	size_t i;

	tm_record_put_u64(b, v->n);
	for (i = 0; i < v->n; i++)
		put_str(b, v->items[i]);
}

/* A malloc'd copy of the next string (NULL when the data is bad). */
static char *get_str(tm_record_reader *r)
{
	uint64_t len = tm_record_get_u64(r);
	char *s;

	if (r->bad || len > r->left || memchr(r->p, '\0', (size_t)len)) {
		r->bad = true;
		return NULL;
	}
	s = tm_xstrndup((const char *)r->p, (size_t)len);
	r->p += len;
	r->left -= (size_t)len;
	return s;
}

static void get_strv(tm_record_reader *r, tm_strv *v)
{
	uint64_t n = tm_record_get_u64(r), i;
	char *s;

	if (n > r->left / 8) /* every string takes at least 8 bytes */
		r->bad = true;
	if (!r->bad && n)
		tm_xgrow((void **)&v->items, &v->alloc, v->n + (size_t)n,
			 sizeof(char *));
	for (i = 0; !r->bad && i < n; i++) {
		s = get_str(r);
		if (s)
			tm_strv_push_owned(v, s);
	}
}

/* Past the next string, with get_str's checks but no copy; its bytes
 * and length (NULL when the data is bad). */
static const unsigned char *skip_str(tm_record_reader *r, size_t *len)
{
	uint64_t n = tm_record_get_u64(r);
	const unsigned char *at = r->p;

	if (r->bad || n > r->left || memchr(r->p, '\0', (size_t)n)) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	r->left -= (size_t)n;
	*len = (size_t)n;
	return at;
}

/* Past the next string vector, with get_strv's checks. */
static void skip_strv(tm_record_reader *r)
{
	uint64_t n = tm_record_get_u64(r), i;
	size_t len;

	if (n > r->left / 8)
		r->bad = true;
	for (i = 0; !r->bad && i < n; i++)
		(void)skip_str(r, &len);
}

/* ---- the key ---- */

void tm_stale__cache_key(tm_buf *key, tm_git *g, const char *threads_dir,
			 const tm_thread *const *threads, size_t n)
{
	char hex[GIT_OID_HEXSZ + 1] = "", got_hex[GIT_OID_HEXSZ + 1];
	uint64_t shallow[2];
	size_t i;

	/* HEAD read as git does, without libgit2 when it can (git_head.c) */
	if (tm_git_head(got_hex, g) == 0)
		memcpy(hex, got_hex, sizeof(hex));
	tm_error_clear();
	tm_stale__shallow_sum(shallow, tm_git_commondir(g));
	put_str(key, "head");
	put_str(key, hex);
	tm_record_put_u64(key, shallow[0]);
	tm_record_put_u64(key, shallow[1]);
	put_str(key, threads_dir ? threads_dir : "");
	tm_record_put_u64(key, threads_dir != NULL);
	for (i = 0; i < n; i++) {
		if (!tm_stale__candidate(threads[i]))
			continue;
		put_str(key, threads[i]->id);
		put_str(key, threads[i]->commit);
		put_strv(key, &threads[i]->paths);
		tm_record_put_u64(key, tm_stale__thread_identity(threads[i]));
	}
}

/* ---- reading ---- */

static char *cache_path(tm_git *g)
{
	tm_buf p = TM_BUF_INIT;

	tm_buf_printf(&p, "%sthreadmind/stale.cache", tm_git_commondir(g));
	return tm_buf_detach(&p);
}

/* The whole file, read into a buffer of its size (one allocation; the
 * answer of a large history is hundreds of KiB). */
static bool read_file(tm_buf *out, const char *path)
{
	struct stat st;
	size_t got;
	FILE *f = fopen(path, "rbe");

	if (!f)
		return false;
	if (fstat(fileno(f), &st) == 0 && st.st_size > 0 &&
	    (size_t)st.st_size <= MAX_SIZE)
		tm_buf_grow(out, (size_t)st.st_size + 1);
	do {
		if (out->asize - out->size < 2)
			tm_buf_grow(out, 65536);
		got = fread(out->ptr + out->size, 1, out->asize - out->size - 1,
			    f);
		out->size += got;
		if (out->size > MAX_SIZE) {
			fclose(f);
			return false;
		}
	} while (got > 0);
	out->ptr[out->size] = '\0';
	fclose(f);
	return true;
}

/* The report of the payload `r` into *out; false when it is malformed.
 * With `ids_only`, each entry gets its id and newest commit only (the rest
 * checked as closely, not copied). */
static bool decode_report(tm_record_reader *r, tm_stale_report *out,
			  bool ids_only)
{
	tm_stale_report rep = TM_STALE_REPORT_INIT;
	tm_stale_entry *e;
	uint64_t n, i;
	const unsigned char *at;
	char *newest;
	size_t len;

	rep.shallow = tm_record_get_u64(r) != 0;
	n = tm_record_get_u64(r);
	if (n > r->left / 40)
		r->bad = true;
	if (!r->bad)
		rep.stale = tm_xcalloc((size_t)n + 1, sizeof(*rep.stale));
	for (i = 0; !r->bad && i < n; i++) {
		e = &rep.stale[rep.n++];
		e->id = get_str(r);
		if (ids_only) {
			if (!e->id || !skip_str(r, &len))
				r->bad = true;
			skip_strv(r);
			skip_strv(r);
			at = r->bad ? NULL : skip_str(r, &len);
			if (!at || len != GIT_OID_HEXSZ)
				r->bad = true;
			else
				memcpy(e->newest, at, GIT_OID_HEXSZ);
			continue;
		}
		e->commit = get_str(r);
		get_strv(r, &e->paths);
		get_strv(r, &e->changed);
		newest = get_str(r);
		if (!newest || strlen(newest) != GIT_OID_HEXSZ)
			r->bad = true;
		else
			memcpy(e->newest, newest, sizeof(e->newest));
		free(newest);
		if (!e->id || !e->commit)
			r->bad = true;
	}
	if (!r->bad)
		get_strv(r, &rep.unknown_base);
	if (!r->bad)
		get_strv(r, &rep.warnings);
	if (r->bad) {
		tm_stale_report_clear(&rep);
		return false;
	}
	*out = rep;
	return true;
}

/* Has the repository got the commit of one of the unknown bases since? */
static bool base_appeared(tm_git *g, const tm_stale_report *r,
			  const tm_thread *const *threads, size_t n)
{
	size_t i, k;

	for (k = 0; k < r->unknown_base.n; k++)
		for (i = 0; i < n; i++)
			if (tm_stale__candidate(threads[i]) &&
			    !strcmp(threads[i]->id, r->unknown_base.items[k]) &&
			    tm_git_has_commit(g, threads[i]->commit))
				return true;
	return false;
}

/* The bases and the "inside" flag after the report; false when bad. */
static bool decode_bases(tm_record_reader *r, struct tm_stale_last *last)
{
	uint64_t n = tm_record_get_u64(r), i;

	if (r->bad || n > r->left / GIT_OID_RAWSZ)
		return false;
	last->bases = tm_xcalloc((size_t)n + 1, sizeof(git_oid));
	for (i = 0; i < n; i++)
		memcpy(last->bases[i].id, r->p + i * GIT_OID_RAWSZ,
		       GIT_OID_RAWSZ);
	last->nbases = (size_t)n;
	r->p += n * GIT_OID_RAWSZ;
	r->left -= (size_t)n * GIT_OID_RAWSZ;
	last->inside = tm_record_get_u64(r) == 1;
	return !r->bad && !r->left;
}

/* Are keys a and b the same but for HEAD (both with one)?  The key
 * starts with put_str("head") then put_str(hex). */
static bool same_but_head(const unsigned char *a, size_t alen, const tm_buf *b)
{
	const size_t at = 8 + 4 + 8, end = at + GIT_OID_HEXSZ;

	return alen == b->size && alen > end && !memcmp(a, b->ptr, at - 8) &&
	       a[at - 8] == GIT_OID_HEXSZ && b->ptr[at - 8] == GIT_OID_HEXSZ &&
	       !memcmp(a + at - 7, b->ptr + at - 7, 7) &&
	       !memcmp(a + end, b->ptr + end, alen - end);
}

void tm_stale__last_clear(struct tm_stale_last *last)
{
	tm_stale_report_clear(&last->r);
	free(last->bases);
	memset(last, 0, sizeof(*last));
}

/* tm_stale__cache_load, with decode_report's `ids_only`. */
static int cache_read(tm_stale_report *out, struct tm_stale_last *prev,
		      tm_git *g, const tm_buf *key,
		      const tm_thread *const *threads, size_t n, bool ids_only)
{
	tm_buf data = TM_BUF_INIT;
	tm_record_reader r;
	struct tm_stale_last last;
	uint64_t len;
	const unsigned char *stored;
	char *path = cache_path(g);
	int found = 0;
	bool exact, near;

	memset(&last, 0, sizeof(last));
	if (!read_file(&data, path) ||
	    !tm_record_unframe(&r, data.ptr, data.size, MAGIC))
		goto done;
	len = tm_record_get_u64(&r);
	if (r.bad || len > r.left)
		goto done;
	stored = r.p;
	exact = len == key->size && !memcmp(stored, key->ptr, key->size);
	near = !exact && prev && same_but_head(stored, (size_t)len, key);
	if (!exact && !near)
		goto done;
	r.p += len;
	r.left -= (size_t)len;
	if (!decode_report(&r, &last.r, ids_only) || !decode_bases(&r, &last))
		goto done;
	if (base_appeared(g, &last.r, threads, n))
		goto done;
	if (exact) {
		TM_MOVE(out, last.r);
		found = 1;
	} else if (git_oid_fromstrn(&last.head, (const char *)stored + 20,
				    GIT_OID_HEXSZ) == 0) {
		TM_MOVE(prev, last);
		found = 2;
	}
done:
	tm_stale__last_clear(&last);
	free(path);
	tm_buf_release(&data);
	tm_error_clear();
	return found;
}

int tm_stale__cache_load(tm_stale_report *out, struct tm_stale_last *prev,
			 tm_git *g, const tm_buf *key,
			 const tm_thread *const *threads, size_t n)
{
	return cache_read(out, prev, g, key, threads, n, false);
}

int tm_stale_cached_ids(tm_strv *out, tm_git *g, const char *threads_dir,
			const tm_thread *const *threads, size_t n)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_buf key = TM_BUF_INIT;
	size_t i;
	int found;

	tm_stale__cache_key(&key, g, threads_dir, threads, n);
	found = cache_read(&r, NULL, g, &key, threads, n, true);
	if (r.warnings.n)
		found = 0; /* the full answer says them */
	for (i = 0; found == 1 && i < r.n; i++) {
		tm_strv_push_owned(out, r.stale[i].id);
		r.stale[i].id = NULL;
	}
	tm_stale_report_clear(&r);
	tm_buf_release(&key);
	return found == 1;
}

/* ---- writing ---- */

void tm_stale__cache_store(tm_git *g, const tm_buf *key,
			   const tm_stale_report *rep, const git_oid *bases,
			   size_t nbases, bool inside)
{
	tm_buf payload = TM_BUF_INIT, file = TM_BUF_INIT, dir = TM_BUF_INIT;
	char *path = cache_path(g);
	size_t i;

	tm_record_put_u64(&payload, key->size);
	tm_buf_put(&payload, key->ptr, key->size);
	tm_record_put_u64(&payload, rep->shallow);
	tm_record_put_u64(&payload, rep->n);
	for (i = 0; i < rep->n; i++) {
		put_str(&payload, rep->stale[i].id);
		put_str(&payload, rep->stale[i].commit);
		put_strv(&payload, &rep->stale[i].paths);
		put_strv(&payload, &rep->stale[i].changed);
		put_str(&payload, rep->stale[i].newest);
	}
	put_strv(&payload, &rep->unknown_base);
	put_strv(&payload, &rep->warnings);
	tm_record_put_u64(&payload, nbases);
	for (i = 0; i < nbases; i++)
		tm_buf_put(&payload, bases[i].id, GIT_OID_RAWSZ);
	tm_record_put_u64(&payload, inside);
	tm_record_frame(&file, MAGIC, payload.ptr, payload.size);
	tm_buf_printf(&dir, "%sthreadmind", tm_git_commondir(g));
	if (mkdir(tm_buf_cstr(&dir), 0777) == 0 || errno == EEXIST)
		(void)tm_atomic_write_nosync(path, file.ptr, file.size);
	tm_error_clear(); /* a cache that cannot be written is no error */
	tm_buf_release(&dir);
	tm_buf_release(&file);
	tm_buf_release(&payload);
	free(path);
}
