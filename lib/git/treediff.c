/*
 * The paths that differ between two trees (see treediff.h): both trees'
 * entries merged in git's order, recursing only into folders whose ids
 * differ, so a commit that touches one file reads one tree per level.
 *
 * Why not git_diff_tree_to_tree: same answers, much slower for what we
 * need (only the changed paths).  Issue 9 "Architecture" measured this
 * diff about 8 times faster on the 1,000-thread bench.  Re-measured on
 * 2026-12-01 on a bench/gen repository (1,000 threads, 10,000 commits, a
 * shared 2-core machine, so only the ratios mean much): the 10,001
 * first-parent diffs take 195 ms here against 4.8 s through
 * git_diff_tree_to_tree + git_diff_foreach (best of 5, about 25x), and
 * `git threadmind stale` takes 1.9 s against 29 s with that diff swapped
 * in (median of 5, about 15x), with byte-identical output.
 *
 * Why raw trees (git_odb_read, the entries walked in the buffer) rather
 * than git_tree_lookup: libgit2 reads the object the same way, then builds
 * a git_tree, one allocated entry per name, each mode parsed through
 * git__strntol32; callgrind on the first `stale` of the 12,000-commit
 * bench history put 28% of all instructions in that parse
 * (docs/PERFORMANCE.md).  The walk here looks at a name and a mode only
 * where the two trees' entries differ.
 *
 * Why a differ that keeps trees: a history's diffs come parent first, so
 * the trees a commit's diff reads on its side are the ones its child's
 * diff reads on the parent side; libgit2's object cache is off (lib/git/git.c)
 * and would keep every object it reads.  A small direct-mapped table
 * keyed by tree id, with a byte budget, keeps the recent ones.  Small:
 * 512 KiB (trees up to 64 KiB each) against 4 MiB before, the first run
 * on g80k-narrow went from 71 to 62 ms, on `real` from 357 to 321 ms (the
 * same answers): the trees that count are the last few, and a larger
 * table only grew the heap, a page fault per new page (bench-measure, 11
 * and 5 rounds, 2026-12-04).
 */
#include "treediff.h"
#include "error.h"
#include "git_libgit2.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Trees a differ keeps: slots (a power of two) and bytes in all. */
#define KEEP_SLOTS 4096
#define KEEP_BYTES ((size_t)512 << 10)

struct kept {
	git_oid id;
	git_odb_object *obj; /* NULL: empty slot */
};

/* A pair of folders still to compare (a NULL side: the empty tree). */
struct todo {
	git_oid a, b;
	bool has_a, has_b;
	unsigned depth; /* 0: the root */
	size_t path;    /* its path in `names` (offset; no trailing '/') */
	size_t len;
};

/* The folders still to compare, breadth first. */
struct queue {
	struct todo *v;
	size_t head, n, alloc;
	tm_buf names;
};

struct tm_treediffer {
	git_odb *odb;
	struct kept *slots; /* KEEP_SLOTS of them, or NULL: keeps nothing */
	size_t bytes;       /* the kept trees' sizes */
	/* one diff */
	struct queue q, sub; /* sub: the folders one pair adds */
	tm_strv files;       /* the files one pair adds */
	tm_buf path;         /* scratch */
	tm_strv *out, *skipped;
	size_t entries; /* paths given and folders queued */
	size_t bytes_out, trees;
	bool full;               /* a bound was met: open no more folders */
	tm_treediff_filter want; /* or NULL: every folder */
	void *want_data;
};

/* One entry of a raw tree: "<octal mode> <name>\0<20-byte id>". */
struct entry {
	const char *name;
	size_t len;
	unsigned mode; /* as written */
	bool tree;
	const unsigned char *id;
};

/* A raw tree being walked. */
struct walk {
	git_odb_object *obj; /* NULL: the empty tree */
	const unsigned char *p, *end;
};

static void forget_all(tm_treediffer *d)
{
	size_t i;

	for (i = 0; d->slots && i < KEEP_SLOTS; i++) {
		git_odb_object_free(d->slots[i].obj);
		d->slots[i].obj = NULL;
	}
	d->bytes = 0;
}

static struct kept *slot_of(tm_treediffer *d, const git_oid *id)
{
	size_t h = (size_t)id->id[0] | (size_t)id->id[1] << 8 |
		   (size_t)id->id[2] << 16;

	return &d->slots[h & (KEEP_SLOTS - 1)];
}

/* The type of object `id` is not a tree. */
static int not_a_tree(const git_oid *id, git_object_t type)
{
	return tm_error_set(TM_ERROR,
			    "cannot read tree %s: the object is a %s "
			    "(check the repository with 'git fsck')",
			    git_oid_tostr_s(id), git_object_type2string(type));
}

/* Tree `id` into *w (its own reference), kept for the next reads; 1
 * (nothing read) when it is larger than TM_TREEDIFF_MAX_TREE. */
static int read_tree(tm_treediffer *d, struct walk *w, const git_oid *id)
{
	struct kept *k = d->slots ? slot_of(d, id) : NULL;
	git_odb_object *obj = NULL;
	git_object_t type;
	size_t size;
	int error;

	if (k && k->obj && git_oid_equal(&k->id, id)) {
		if (git_odb_object_dup(&obj, k->obj) < 0)
			return tm_git_error(TM_ERROR, "cannot read tree %s",
					    git_oid_tostr_s(id));
	} else {
		/* bounded: a few KiB of pack may say it inflates to GiB */
		error = tm_git_odb_read_bounded(&obj, d->odb, id,
						TM_TREEDIFF_MAX_TREE);
		if (error == 1)
			return 1;
		if (error < 0)
			return tm_git_error(TM_ERROR, "cannot read tree %s",
					    git_oid_tostr_s(id));
		if (git_odb_object_type(obj) != GIT_OBJECT_TREE) {
			type = git_odb_object_type(obj);
			git_odb_object_free(obj);
			return not_a_tree(id, type);
		}
		size = git_odb_object_size(obj);
		if (k && size <= KEEP_BYTES / 8) {
			if (d->bytes + size > KEEP_BYTES)
				forget_all(d);
			if (k->obj) {
				d->bytes -= git_odb_object_size(k->obj);
				git_odb_object_free(k->obj);
				k->obj = NULL;
			}
			if (git_odb_object_dup(&k->obj, obj) == 0) {
				git_oid_cpy(&k->id, id);
				d->bytes += size;
			} else {
				k->obj = NULL;
			}
		}
	}
	w->obj = obj;
	w->p = git_odb_object_data(obj);
	w->end = w->p + git_odb_object_size(obj);
	return 0;
}

/* The next entry of w into *e.  1: one, 0: the end, TM_ERROR: a
 * malformed entry (`id` names the tree). */
static int next_entry(struct walk *w, struct entry *e, const git_oid *id)
{
	const unsigned char *s = w->p, *nul;
	unsigned mode = 0;

	if (s == w->end)
		return 0;
	while (s < w->end && *s >= '0' && *s <= '7' && mode <= 0xffff)
		mode = mode * 8 + (unsigned)(*s++ - '0');
	if (s == w->p || mode > 0xffff || s == w->end || *s != ' ')
		goto bad;
	s++;
	nul = memchr(s, 0, (size_t)(w->end - s));
	if (!nul || nul == s || (size_t)(w->end - nul - 1) < GIT_OID_RAWSZ)
		goto bad;
	e->name = (const char *)s;
	e->len = (size_t)(nul - s);
	e->mode = mode;
	e->tree = (mode & 0170000) == 0040000;
	e->id = nul + 1;
	w->p = nul + 1 + GIT_OID_RAWSZ;
	return 1;
bad:
	return tm_error_set(TM_ERROR,
			    "cannot read tree %s: a malformed entry "
			    "(check the repository with 'git fsck')",
			    git_oid_tostr_s(id));
}

/* Entries in git's order: a tree's name compares as if followed by '/'.
 * 0 only for the same name and the same kind. */
static int entry_cmp(const struct entry *a, const struct entry *b)
{
	size_t l = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, l);
	unsigned ca, cb;

	if (c)
		return c;
	ca = a->len > l ? (unsigned char)a->name[l] : (a->tree ? '/' : 0);
	cb = b->len > l ? (unsigned char)b->name[l] : (b->tree ? '/' : 0);
	return (int)ca - (int)cb;
}

/* The mode as libgit2's git_tree_entry_filemode gives it (and git's
 * canon_mode): a folder, an executable (the owner's x bit), a submodule,
 * a link or a file. */
static unsigned canon_mode(unsigned mode)
{
	if ((mode & 0170000) == 0040000)
		return 0040000;
	if (mode & 0100)
		return 0100755;
	switch (mode & 0170000) {
	case 0160000:
		return 0160000;
	case 0120000:
		return 0120000;
	default:
		return 0100644;
	}
}

/* How many leading bytes the n bytes at a and b share. */
static size_t same_head(const unsigned char *a, const unsigned char *b,
			size_t n)
{
	uint64_t x, y;
	size_t i = 0;

	while (i + 8 <= n) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* How many trailing bytes the n bytes before a_end and b_end share. */
static size_t same_tail(const unsigned char *a_end, const unsigned char *b_end,
			size_t n)
{
	uint64_t x, y;
	size_t i = 0;

	while (i + 8 <= n) {
		memcpy(&x, a_end - i - 8, 8);
		memcpy(&y, b_end - i - 8, 8);
		if (x != y)
			break;
		i += 8;
	}
	while (i < n && a_end[-1 - (ptrdiff_t)i] == b_end[-1 - (ptrdiff_t)i])
		i++;
	return i;
}

/*
 * Both walks past the entries the two trees share at their start (the
 * same bytes: the same names, modes and ids, nothing to report), and the
 * number of bytes they share at their end: once both have that many bytes
 * left, at an entry boundary, the rest is the same too.  Most folders of
 * a diff change one entry of many.
 */
static size_t skip_same(struct walk *wa, struct walk *wb)
{
	size_t na = (size_t)(wa->end - wa->p), nb = (size_t)(wb->end - wb->p);
	const unsigned char *lim = wa->p +
				   same_head(wa->p, wb->p, na < nb ? na : nb),
			    *q = wa->p, *nul;

	while ((nul = memchr(q, 0, (size_t)(lim - q))) &&
	       (size_t)(lim - nul) > GIT_OID_RAWSZ)
		q = nul + 1 + GIT_OID_RAWSZ;
	wb->p += q - wa->p;
	wa->p = q;
	na = (size_t)(wa->end - wa->p);
	nb = (size_t)(wb->end - wb->p);
	return same_tail(wa->end, wb->end, na < nb ? na : nb);
}

/* Whether the rest of both walks is the same bytes (see skip_same). */
static bool rest_same(const struct walk *wa, const struct walk *wb, size_t tail)
{
	size_t left = (size_t)(wa->end - wa->p);

	return left <= tail && left == (size_t)(wb->end - wb->p);
}

/* ---- one diff, breadth first ---- */

static void queue_push(struct queue *q, const struct entry *a,
		       const struct entry *b, unsigned depth, const char *dir,
		       size_t dlen, const struct entry *e)
{
	struct todo *t;

	tm_xgrow((void **)&q->v, &q->alloc, q->n + 1, sizeof(*q->v));
	t = &q->v[q->n++];
	memset(t, 0, sizeof(*t));
	if ((t->has_a = a != NULL))
		git_oid_fromraw(&t->a, a->id);
	if ((t->has_b = b != NULL))
		git_oid_fromraw(&t->b, b->id);
	t->depth = depth;
	t->path = q->names.size;
	if (dlen) {
		tm_buf_put(&q->names, dir, dlen);
		tm_buf_putc(&q->names, '/');
	}
	tm_buf_put(&q->names, e->name, e->len);
	t->len = q->names.size - t->path;
}

/* The path of folder t, t->len bytes (the root's is empty, and may come
 * before the names have any buffer). */
static const char *todo_path(const tm_treediffer *d, const struct todo *t)
{
	return d->q.names.ptr ? d->q.names.ptr + t->path : "";
}

/* Folder t as a prefix of the answer: "<path>/" ("/" for the root). */
static void give_prefix(tm_treediffer *d, const struct todo *t)
{
	tm_buf_clear(&d->path);
	tm_buf_put(&d->path, todo_path(d, t), t->len);
	tm_buf_putc(&d->path, '/');
	tm_strv_push(d->out, tm_buf_cstr(&d->path));
}

/* One name on one side (the other NULL) or both, of the same kind, in
 * folder `dir`: a file into d->files, a folder into d->sub. */
static void diff_entry(tm_treediffer *d, const struct entry *a,
		       const struct entry *b, const struct todo *t,
		       const char *dir)
{
	const struct entry *e = a ? a : b;

	if (a && b && !memcmp(a->id, b->id, GIT_OID_RAWSZ) &&
	    (a->mode == b->mode || canon_mode(a->mode) == canon_mode(b->mode)))
		return;
	tm_buf_clear(&d->path);
	if (t->len) {
		tm_buf_put(&d->path, dir, t->len);
		tm_buf_putc(&d->path, '/');
	}
	tm_buf_put(&d->path, e->name, e->len);
	if (e->tree) {
		tm_buf_putc(&d->path, '/');
		if (!d->want || d->want(tm_buf_cstr(&d->path), d->path.size,
					d->want_data)) {
			queue_push(&d->sub, a, b, t->depth + 1, dir, t->len, e);
			return;
		}
	}
	/* a file, or a folder left a prefix */
	tm_strv_push(&d->files, tm_buf_cstr(&d->path));
}

/*
 * The entries of folder pair t into d->files and d->sub (emptied first).
 * 1: a tree larger than TM_TREEDIFF_MAX_TREE; TM_ERROR: a tree that cannot
 * be read or does not parse (the message names it).
 */
static int open_pair(tm_treediffer *d, const struct todo *t)
{
	struct walk wa = {NULL, NULL, NULL}, wb = {NULL, NULL, NULL};
	struct entry ea, eb;
	int error = 0, ha = 0, hb = 0, c;
	size_t tail = 0;
	char *dir = tm_xstrndup(todo_path(d, t), t->len);

	tm_strv_clear(&d->files);
	d->sub.n = 0;
	tm_buf_clear(&d->sub.names);
	if (t->has_a && (error = read_tree(d, &wa, &t->a)) != 0)
		goto done;
	if (t->has_b && (error = read_tree(d, &wb, &t->b)) != 0)
		goto done;
	if (t->has_a && t->has_b)
		tail = skip_same(&wa, &wb);
	if ((t->has_a && (error = ha = next_entry(&wa, &ea, &t->a)) < 0) ||
	    (t->has_b && (error = hb = next_entry(&wb, &eb, &t->b)) < 0))
		goto done;
	error = 0;
	while (ha || hb) {
		c = !ha ? 1 : !hb ? -1 : entry_cmp(&ea, &eb);
		diff_entry(d, c <= 0 ? &ea : NULL, c >= 0 ? &eb : NULL, t, dir);
		if (c == 0 && tail && rest_same(&wa, &wb, tail))
			break; /* both entries done: the rest is the same */
		if (c <= 0 && (ha = next_entry(&wa, &ea, &t->a)) < 0)
			error = ha;
		if (c >= 0 && error == 0 &&
		    (hb = next_entry(&wb, &eb, &t->b)) < 0)
			error = hb;
		if (error < 0)
			goto done;
	}
done:
	git_odb_object_free(wa.obj);
	git_odb_object_free(wb.obj);
	free(dir);
	return error;
}

/* The bytes the pair's entries add to the answer. */
static size_t pair_bytes(const tm_treediffer *d)
{
	size_t i, n = d->sub.names.size + d->sub.n;

	for (i = 0; i < d->files.n; i++)
		n += strlen(d->files.items[i]);
	return n;
}

/* Pair t opened: its files into the answer, its folders queued, when
 * they fit the bounds; else it stays a prefix and no folder is opened
 * any more. */
static void take_pair(tm_treediffer *d, const struct todo *t)
{
	size_t i, k = d->files.n + d->sub.n, bytes = pair_bytes(d);
	struct todo *s;

	if (d->entries - 1 + k > TM_TREEDIFF_MAX_PATHS ||
	    d->bytes_out + bytes > TM_TREEDIFF_MAX_BYTES) {
		d->full = true;
		give_prefix(d, t);
		return;
	}
	d->entries = d->entries - 1 + k;
	d->bytes_out += bytes;
	for (i = 0; i < d->files.n; i++) {
		tm_strv_push_owned(d->out, d->files.items[i]);
		d->files.items[i] = NULL;
	}
	d->files.n = 0;
	for (i = 0; i < d->sub.n; i++) {
		tm_xgrow((void **)&d->q.v, &d->q.alloc, d->q.n + 1,
			 sizeof(*d->q.v));
		s = &d->q.v[d->q.n++];
		*s = d->sub.v[i];
		s->path = d->q.names.size;
		tm_buf_put(&d->q.names, d->sub.names.ptr + d->sub.v[i].path,
			   d->sub.v[i].len);
	}
}

/* The last error, about folder pair t, as a line of d->skipped. */
static void note_skipped(tm_treediffer *d, const struct todo *t)
{
	tm_buf_clear(&d->path);
	tm_buf_printf(&d->path, "%s; '%.*s/' counted as changed",
		      tm_error_last(), (int)t->len, todo_path(d, t));
	tm_strv_push(d->skipped, tm_buf_cstr(&d->path));
	tm_error_clear();
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The paths that differ between trees a and b (NULL: the empty tree),
 * appended to d->out: the folders opened level by level from a queue
 * (nothing recurses, whatever the depth), then the new entries sorted
 * (git's tree order is the byte order of the whole paths).
 */
static int diff_trees(tm_treediffer *d, const git_oid *a, const git_oid *b)
{
	size_t first = d->out->n;
	struct todo t;
	int error = 0;

	if ((!a && !b) || (a && b && git_oid_equal(a, b)))
		return 0;
	tm_buf_clear(&d->q.names);
	d->entries = 1; /* the root, queued */
	d->bytes_out = 0;
	d->trees = 0;
	d->full = false;
	tm_xgrow((void **)&d->q.v, &d->q.alloc, 1, sizeof(*d->q.v));
	memset(&d->q.v[0], 0, sizeof(d->q.v[0]));
	if ((d->q.v[0].has_a = a != NULL))
		git_oid_cpy(&d->q.v[0].a, a);
	if ((d->q.v[0].has_b = b != NULL))
		git_oid_cpy(&d->q.v[0].b, b);
	d->q.head = 0;
	d->q.n = 1;
	while (d->q.head < d->q.n) {
		t = d->q.v[d->q.head++];
		if (d->full || t.depth > TM_TREEDIFF_MAX_DEPTH ||
		    d->trees + t.has_a + t.has_b > TM_TREEDIFF_MAX_TREES) {
			give_prefix(d, &t);
			continue;
		}
		d->trees += t.has_a + t.has_b;
		error = open_pair(d, &t);
		if (error == 1) { /* a tree too large to read */
			give_prefix(d, &t);
			error = 0;
			continue;
		}
		if (error < 0) {
			if (!d->skipped)
				break;
			note_skipped(d, &t);
			give_prefix(d, &t);
			error = 0;
			continue;
		}
		take_pair(d, &t);
	}
	tm_strv_clear(&d->files);
	if (d->out->n > first)
		qsort(d->out->items + first, d->out->n - first,
		      sizeof(*d->out->items), cmp_path);
	return error;
}

int tm_treediffer_new(tm_treediffer **out, git_repository *repo)
{
	tm_treediffer *d = tm_xcalloc(1, sizeof(*d));

	*out = NULL;
	if (git_repository_odb(&d->odb, repo) < 0) {
		free(d);
		return tm_git_error(TM_ERROR,
				    "cannot open the object database");
	}
	d->slots = tm_xcalloc(KEEP_SLOTS, sizeof(*d->slots));
	*out = d;
	return 0;
}

int tm_treediffer_diff(tm_strv *out, tm_strv *skipped, tm_treediffer *d,
		       const git_oid *old, const git_oid *new_tree)
{
	return tm_treediffer_diff_within(out, skipped, d, old, new_tree, NULL,
					 NULL);
}

int tm_treediffer_diff_within(tm_strv *out, tm_strv *skipped, tm_treediffer *d,
			      const git_oid *old, const git_oid *new_tree,
			      tm_treediff_filter want, void *data)
{
	int error;

	d->out = out;
	d->skipped = skipped;
	d->want = want;
	d->want_data = data;
	error = diff_trees(d, old, new_tree);
	d->out = NULL;
	d->skipped = NULL;
	d->want = NULL;
	d->want_data = NULL;
	return error;
}

static void differ_release(tm_treediffer *d)
{
	free(d->q.v);
	free(d->sub.v);
	tm_buf_release(&d->q.names);
	tm_buf_release(&d->sub.names);
	tm_buf_release(&d->path);
	tm_strv_clear(&d->files);
	git_odb_free(d->odb);
}

void tm_treediffer_free(tm_treediffer *d)
{
	if (!d)
		return;
	forget_all(d);
	free(d->slots);
	differ_release(d);
	free(d);
}

int tm_treediff(tm_strv *out, tm_strv *skipped, git_repository *repo,
		const git_oid *old, const git_oid *new_tree)
{
	tm_treediffer d;
	int error;

	memset(&d, 0, sizeof(d));
	if (git_repository_odb(&d.odb, repo) < 0)
		return tm_git_error(TM_ERROR,
				    "cannot open the object database");
	d.out = out;
	d.skipped = skipped;
	error = diff_trees(&d, old, new_tree);
	differ_release(&d);
	return error;
}
