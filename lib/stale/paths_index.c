/*
 * The paths index of the hooks (see paths_index.h):
 * $GIT_COMMON_DIR/threadmind/paths-<hash of the folder>.index.
 *
 * File: the magic "TMPIDX03", the payload's length and its checksum (8
 * bytes each: record.h's frame), then the payload: the folder's path (the key),
 * the folder's stat data, the stamp (the ctime of a file made just before the
 * folder was listed or the first file read, seconds and ns), the number of
 * entries and the entries in id order (strcmp).  An entry: the length of the
 * rest, its id, its file's stat data, its flags (TM_PATHS_INDEX_F_FULL: the
 * whole file parses; TM_PATHS_INDEX_F_PATHS: its frontmatter has a `paths` line
 * and parses; TM_PATHS_INDEX_F_NOSTAT: lstat failed, read it again every time;
 * TM_PATHS_INDEX_F_SUMMARY: its summary is not blank), then status, commit,
 * branch, updatedAt (nullable strings), has_paths and paths. Integers are u64
 * little-endian; a string is its length, its bytes and a NUL, length 2^64-1
 * meaning NULL (no bytes).  An entry taken over from the previous index is
 * copied as it is; only the entries a hook outputs are decoded.
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

/* ---- one file ---- */

static void put_fields(tm_buf *b, const tm_thread *t)
{
	size_t i, n = t ? t->paths.n : 0;

	tm_paths_index__put_str(b, t ? t->status : NULL);
	tm_paths_index__put_str(b, t ? t->commit : NULL);
	tm_paths_index__put_str(b, t ? t->branch : NULL);
	tm_paths_index__put_str(b, t ? t->updated_at : NULL);
	tm_record_put_u64(b, t && t->has_paths);
	tm_record_put_u64(b, n);
	for (i = 0; i < n; i++)
		tm_paths_index__put_str(b, t->paths.items[i]);
}

/*
 * Read the file of `id` in folder fd into e (a body of its own): the
 * whole-file parse (as tm_store_load_all) and the frontmatter-only one (as
 * post-commit, only when a line of the block may be `paths`).  Both parse
 * the same block, so the fields are those of either.
 */
static void tm_paths_index__read_entry(struct tm_paths_index_entry *e, int fd,
				       const char *id, tm_buf *data)
{
	tm_buf name = TM_BUF_INIT, body = TM_BUF_INIT;
	tm_thread *full = NULL, *fm = NULL;
	struct stat st;
	struct tm_paths_index_stat fst;
	size_t blen = 0;
	int k;

	memset(e, 0, sizeof(*e));
	memset(&fst, 0, sizeof(fst));
	tm_buf_printf(&name, "%s.md", id);
	if (fstatat(fd, tm_buf_cstr(&name), &st, AT_SYMLINK_NOFOLLOW) == 0)
		tm_paths_index__fstat_of(&fst, &st);
	else
		e->flags |= TM_PATHS_INDEX_F_NOSTAT;
	tm_buf_clear(data);
	if (tm_fs_read_at(data, fd, tm_buf_cstr(&name), tm_buf_cstr(&name),
			  TM_MAX_FILE_SIZE) == 0) {
		if (tm_frontmatter_parse_checked(&full, data->ptr, data->size,
						 id, tm_buf_cstr(&name),
						 tm_deadline_check) == 0)
			e->flags |= TM_PATHS_INDEX_F_FULL;
		if (tm_frontmatter_may_have(data->ptr, data->size, "paths") &&
		    (blen = tm_frontmatter_block_len(data->ptr, data->size)) &&
		    tm_frontmatter_parse_checked(&fm, data->ptr, blen, id,
						 tm_buf_cstr(&name),
						 tm_deadline_check) == 0)
			e->flags |= TM_PATHS_INDEX_F_PATHS;
		if (full ? !tm_thread_summary_blank(full)
			 : blen && !tm_summary_blank(data->ptr + blen,
						     data->size - blen))
			e->flags |= TM_PATHS_INDEX_F_SUMMARY;
	}
	tm_error_clear();
	tm_record_put_u64(&body, 0); /* the length, set below */
	tm_paths_index__put_str(&body, id);
	tm_paths_index__put_fstat(&body, &fst);
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
	struct tm_paths_index_map old; /* the mapped file */
	struct tm_paths_index_map now; /* the bodies read in this run */
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
static void tm_paths_index__entry_thread(tm_thread *t,
					 const struct tm_paths_index_entry *e,
					 char ***items, size_t *nitems,
					 size_t *alloc)
{
	tm_record_reader r;
	uint64_t n, i;

	r.p = e->body + 8;
	r.left = e->len - 8;
	r.bad = false;
	t->id = (char *)tm_paths_index__get_str(
		&r);     /* checked by get_entry or read_entry */
	r.p += 9 * 8;    /* the stat data and the flags, as */
	r.left -= 9 * 8; /* checked there too */
	t->status = (char *)tm_paths_index__get_str(&r);
	t->commit = (char *)tm_paths_index__get_str(&r);
	t->branch = (char *)tm_paths_index__get_str(&r);
	t->updated_at = (char *)tm_paths_index__get_str(&r);
	t->has_paths = tm_record_get_u64(&r) == 1;
	n = tm_record_get_u64(&r);
	t->paths.alloc = *nitems; /* the offset, for now */
	for (i = 0; i < n; i++) {
		const char *p = tm_paths_index__get_str(&r);

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
		tm_paths_index__clear(&x->old);
		tm_paths_index__clear(&x->now);
		TM_FREE_ALL(x->t, x->ptrs, x->items, x);
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
			tm_paths_index__entry_thread(&x->t[k++], &x->now.e[i],
						     &x->items, &nitems,
						     &alloc);
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
	struct tm_paths_index_map old, now;
	char *path = NULL;
	struct stat st;
	struct tm_paths_index_stat dir;
	unsigned want =
		what == TM_PATHS_INDEX_ALL
			? TM_PATHS_INDEX_F_FULL
			: TM_PATHS_INDEX_F_PATHS | TM_PATHS_INDEX_F_SUMMARY;
	bool dirty = false, stamped = false, listing;
	struct tm_paths_index_entry left; /* where a load cut short stopped */
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
	if ((error = tm_store_open_threads(&fd, s, project)) < 0 || fd < 0)
		return error;
	tm_buf_printf(&key, "%s/threads/%s", tm_store_dir(s), project);
	if (!opts->no_index && (path = tm_paths_index_file(s, project)))
		tm_paths_index__read(&old, path, tm_buf_cstr(&key));
	memset(&dir, 0, sizeof(dir));
	if (fstat(fd, &st) == 0)
		tm_paths_index__fstat_of(&dir, &st);
	/* The names: the index's while the folder is unchanged. */
	listing = !old.map || !tm_paths_index__fstat_same(&dir, &old.dir) ||
		  tm_paths_index__racy(&old.dir, &old.stamp) || !dir.ctime.sec;
	if (listing) {
		char *display =
			tm_store_file_display(s, "threads", NULL, project);

		if (path &&
		    !(stamped = tm_paths_index__take_stamp(&now.stamp, path))) {
			free(path);
			path = NULL;
		}
		/* after the stamp, so that a change after it shows */
		memset(&dir, 0, sizeof(dir));
		if (fstat(fd, &st) == 0)
			tm_paths_index__fstat_of(&dir, &st);
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
	opts->stat_threads = tm_paths_index__stat_all(
		fd, now.e, nids, &old.stamp,
		tm_paths_index__stat_threads(s, nids, opts));
	/* Keep the fresh entries, read the others again, in place (an entry
	 * is taken before its slot, or an earlier one, is written). */
	for (i = 0; i < nids; i++) {
		struct tm_paths_index_entry e = now.e[i];

		if (e.flags & TM_PATHS_INDEX_F_FRESH) {
			e.flags &= ~TM_PATHS_INDEX_F_FRESH;
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
		    !(stamped = tm_paths_index__take_stamp(&now.stamp, path))) {
			free(path);
			path = NULL;
		}
		tm_paths_index__read_entry(&now.e[now.n++], fd, e.id, &data);
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
			opts->written = tm_paths_index__write_part(
				path, tm_buf_cstr(&key), &now, &left,
				now.e + i + 1, nids - i - 1, &old.stamp);
	} else if (path && dirty) {
		opts->written =
			tm_paths_index__write(path, tm_buf_cstr(&key), &now);
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
	tm_paths_index__clear(&now);
	old.n = 0; /* its entries are now's or dropped: none owns a body */
	tm_paths_index__clear(&old);
	tm_strv_clear(&listed);
	tm_buf_release(&data);
	tm_buf_release(&key);
	free(path);
	if (error == 0)
		tm_error_clear();
	return error;
}
