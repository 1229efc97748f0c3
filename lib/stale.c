/*
 * Staleness (DESIGN.md section 4) for every thread in one revision walk,
 * and git's plain pathspec matching.
 *
 * Let T be the threads that can be stale, K their distinct `commit`s (the
 * bases) and N the commits walked.
 *
 * 1. One walk from HEAD and from every base at once, newest commit first
 *    (git's own order for `git log A..B`).  Each commit carries a K-bit set,
 *    the bases it is reachable from, and a "reachable from HEAD" flag; both
 *    flow from a commit to its parents, and a set that grows on a commit
 *    already expanded flows on to its ancestors, so the order of the walk
 *    costs time, never correctness.  In git's terms every base is the
 *    UNINTERESTING side at once, one bit each.  A commit reachable from all
 *    bases concerns no thread: the walk stops as git's does, once every
 *    queued commit from HEAD is one of those (and a few more commits for
 *    clock skew).  O((N + E) K / 64) time and N K / 64 words.
 * 2. The commits from HEAD that some base does not reach, children first
 *    (newest first among those ready), each diffed once against its first
 *    parent (a merge also against its other parents); each changed path is
 *    matched against every thread's pathspecs at once through an index (a
 *    hash of the literal specs, probed with each leading folder of the
 *    path).  A T-bit set per commit says whose simplified history reaches
 *    it, so that each thread gets the commits that
 *    `git log <commit>..HEAD -- <paths>` lists: git's default history
 *    simplification (revision.c, try_to_simplify_commit) follows only the
 *    first "relevant" parent of a merge that has the same content under the
 *    paths, and then does not show the merge; otherwise it shows the merge
 *    when it differs from its relevant parents.  A parent is relevant
 *    unless git's walk, by date, has already marked it as reachable from the
 *    base when it reaches the merge: the base's parents from the start, and
 *    the parents and grandparents of the commits reachable from the base
 *    that are newer than the merge.  That reproduces git's answer whenever
 *    commits are newer than their parents.  O(N T / 64) plus one diff per
 *    commit and per parent of a merge.
 *
 * A per-thread `git log` loop costs T walks and up to T N diffs; here each
 * commit is read and diffed once.
 */
#include "stale.h"
#include "error.h"
#include "git_internal.h"

#include <ctype.h>
#include <git2.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NONE SIZE_MAX
/* Commits git keeps walking past the last interesting one (revision.c). */
#define SLOP 5

/* ---- bit sets ---- */

#define WORDS(nbits) (((nbits) + 63) / 64)

static bool bit_get(const uint64_t *b, size_t i)
{
	return (b[i / 64] >> (i % 64)) & 1;
}

static void bit_set(uint64_t *b, size_t i)
{
	b[i / 64] |= (uint64_t)1 << (i % 64);
}

/* A growable array of indexes. */
struct sizev {
	size_t *v;
	size_t n, alloc;
};

static void sizev_push(struct sizev *a, size_t x)
{
	tm_xgrow((void **)&a->v, &a->alloc, a->n + 1, sizeof(*a->v));
	a->v[a->n++] = x;
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop duplicates. */
static void sizev_unique(struct sizev *a)
{
	size_t i, j = 0;

	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), size_cmp);
	for (i = 0; i < a->n; i++)
		if (!j || a->v[j - 1] != a->v[i])
			a->v[j++] = a->v[i];
	a->n = j;
}

/* ---- pathspecs ---- */

/* A normalised pathspec. */
struct spec {
	char *pattern; /* normalised; ends with '/' when dir_only */
	size_t len;    /* length without that '/' */
	bool dir_only; /* only what is under the folder */
	bool glob;     /* has * ? [ or \ */
	bool all;      /* matches everything */
	bool never;    /* climbs above the root: matches nothing */
};

static void spec_parse(struct spec *s, const char *raw)
{
	tm_buf b = TM_BUF_INIT;
	const char *p = raw, *slash;
	size_t n;

	memset(s, 0, sizeof(*s));
	while (*p) {
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (b.size == 0) {
				s->never = true;
			} else {
				slash = memrchr(b.ptr, '/', b.size);
				tm_buf_truncate(&b,
				                slash ? (size_t)(slash - b.ptr)
				                      : 0);
			}
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (b.size)
				tm_buf_putc(&b, '/');
			tm_buf_put(&b, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	s->len = b.size;
	s->all = b.size == 0 && !s->never;
	s->dir_only = b.size > 0 && raw[0] && raw[strlen(raw) - 1] == '/';
	if (s->dir_only)
		tm_buf_putc(&b, '/');
	s->pattern = b.size ? tm_buf_detach(&b) : tm_xstrdup("");
	s->glob = strpbrk(s->pattern, "*?[\\") != NULL;
}

static void spec_free(struct spec *s)
{
	free(s->pattern);
	s->pattern = NULL;
}

/* A POSIX class name [:name:] (p at the name, n its length) holding c. */
static int class_match(const char *p, size_t n, unsigned char c)
{
	static const struct {
		const char *name;
		int (*fn)(int);
	} classes[] = {
	        {"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank},
	        {"cntrl", iscntrl}, {"digit", isdigit}, {"graph", isgraph},
	        {"lower", islower}, {"print", isprint}, {"punct", ispunct},
	        {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit},
	};
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(*classes); i++)
		if (strlen(classes[i].name) == n &&
		    !memcmp(classes[i].name, p, n))
			return classes[i].fn(c) != 0;
	return -1;
}

/*
 * The bracket expression starting after the '[' at *pp against c: 1 or 0,
 * *pp moved past its ']'; -1 when it is malformed (git then matches
 * nothing).
 */
static int bracket_match(const char **pp, unsigned char c)
{
	const char *p = *pp, *end;
	bool negate = false, matched = false, first = true;
	unsigned char lo, hi;
	int r;

	if (*p == '!' || *p == '^') {
		negate = true;
		p++;
	}
	for (;; first = false) {
		if (!*p)
			return -1;
		if (*p == ']' && !first)
			break;
		if (p[0] == '[' && p[1] == ':') {
			end = strstr(p + 2, ":]");
			if (!end)
				return -1;
			r = class_match(p + 2, (size_t)(end - p - 2), c);
			if (r < 0)
				return -1;
			matched |= r;
			p = end + 2;
			continue;
		}
		if (*p == '\\' && !*++p)
			return -1;
		lo = (unsigned char)*p++;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			if (*p == '\\' && !*++p)
				return -1;
			hi = (unsigned char)*p++;
			matched |= lo <= c && c <= hi;
		} else {
			matched |= lo == c;
		}
	}
	*pp = p + 1;
	return matched != negate;
}

/*
 * git's wildmatch() without WM_PATHNAME: the whole text must match, * and ?
 * also match '/'.  With only one kind of star, going back to the last star
 * is enough (no exponential backtracking).
 */
static bool wildmatch(const char *p, const char *t)
{
	const char *star_p = NULL, *star_t = NULL, *next;
	bool ok;
	int r;

	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (!*p)
				return true;
			star_p = p;
			star_t = t;
			continue;
		}
		if (!*t)
			return !*p;
		next = p + 1;
		switch (*p) {
		case '\0':
			ok = false;
			break;
		case '?':
			ok = true;
			break;
		case '[':
			r = bracket_match(&next, (unsigned char)*t);
			if (r < 0)
				return false;
			ok = r;
			break;
		case '\\':
			if (!p[1])
				return false;
			ok = p[1] == *t;
			next = p + 2;
			break;
		default:
			ok = *p == *t;
			break;
		}
		if (ok) {
			p = next;
			t++;
			continue;
		}
		if (!star_p || !*star_t)
			return false;
		p = star_p;
		t = ++star_t;
	}
}

static bool spec_match(const struct spec *s, const char *path, size_t plen)
{
	if (s->never)
		return false;
	if (s->all)
		return true;
	/* the path is the spec, or lies under it */
	if (plen >= s->len && !memcmp(path, s->pattern, s->len) &&
	    (plen == s->len ? !s->dir_only : path[s->len] == '/'))
		return true;
	return s->glob && wildmatch(s->pattern, path);
}

bool tm_pathspec_match(const char *spec, const char *path)
{
	struct spec s;
	bool r;

	if (!spec || !path)
		return false;
	spec_parse(&s, spec);
	r = spec_match(&s, path, strlen(path));
	spec_free(&s);
	return r;
}

/* ---- a string-keyed hash of chains (fixed size, at most n keys) ---- */

struct strslot {
	const char *key;
	size_t len;
	size_t head; /* first item of the chain */
};

struct strmap {
	struct strslot *slots;
	size_t mask;
};

static uint64_t hash_bytes(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 14695981039346656037u;

	while (n--)
		h = (h ^ *p++) * 1099511628211u;
	return h;
}

static void strmap_init(struct strmap *m, size_t n)
{
	size_t cap = 16, i;

	while (cap < 2 * n)
		cap *= 2;
	m->slots = tm_xmalloc(cap * sizeof(*m->slots));
	for (i = 0; i < cap; i++) {
		m->slots[i].key = NULL;
		m->slots[i].head = NONE;
	}
	m->mask = cap - 1;
}

/* The slot of `key`, or the empty slot where it would go. */
static struct strslot *strmap_slot(const struct strmap *m, const char *key,
                                   size_t len)
{
	size_t i = (size_t)hash_bytes(key, len) & m->mask;

	while (m->slots[i].key &&
	       (m->slots[i].len != len || memcmp(m->slots[i].key, key, len)))
		i = (i + 1) & m->mask;
	return &m->slots[i];
}

/* Add item `x` (whose next link is next[x]) to the chain of `key`. */
static void strmap_add(struct strmap *m, const char *key, size_t len,
                       size_t *next, size_t x)
{
	struct strslot *s = strmap_slot(m, key, len);

	if (!s->key) {
		s->key = key;
		s->len = len;
	}
	next[x] = s->head;
	s->head = x;
}

static size_t strmap_head(const struct strmap *m, const char *key, size_t len)
{
	return strmap_slot(m, key, len)->head;
}

/* ---- interned strings (each changed path stored once) ---- */

struct interner {
	tm_strv names;
	size_t *slots; /* index in names, or NONE */
	size_t mask;
};

static size_t interner_slot(const struct interner *in, const char *s)
{
	size_t i = (size_t)hash_bytes(s, strlen(s)) & in->mask;

	while (in->slots[i] != NONE && strcmp(in->names.items[in->slots[i]], s))
		i = (i + 1) & in->mask;
	return i;
}

/* The number of string s, the same for equal strings. */
static size_t intern(struct interner *in, const char *s)
{
	size_t i, cap;

	if (!in->slots || (in->names.n + 1) * 2 > in->mask + 1) {
		cap = in->slots ? (in->mask + 1) * 2 : 256;
		free(in->slots);
		in->slots = tm_xmalloc(cap * sizeof(size_t));
		memset(in->slots, 0xff, cap * sizeof(size_t));
		in->mask = cap - 1;
		for (i = 0; i < in->names.n; i++)
			in->slots[interner_slot(in, in->names.items[i])] = i;
	}
	i = interner_slot(in, s);
	if (in->slots[i] == NONE) {
		in->slots[i] = in->names.n;
		tm_strv_push(&in->names, s);
	}
	return in->slots[i];
}

static void interner_free(struct interner *in)
{
	tm_strv_clear(&in->names);
	free(in->slots);
	in->slots = NULL;
}

/* ---- every thread's pathspecs and file, indexed ---- */

struct index {
	struct spec *specs;
	size_t *owner; /* specs[i] belongs to thread owner[i] */
	size_t *next;  /* next spec with the same literal pattern */
	size_t nspecs;
	struct strmap literal; /* specs without glob characters */
	struct sizev other;    /* glob and match-everything specs */
	char **files;          /* thread i's file, or NULL */
	size_t *file_next;
	struct strmap file_map;
	size_t nthreads;
};

/* Index the paths and files of `threads` (thread i = threads[i]). */
static void index_build(struct index *x, const tm_thread *const *threads,
                        size_t n, const char *threads_dir)
{
	size_t i, k, total = 0;
	struct spec *s;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < n; i++)
		total += threads[i]->paths.n;
	x->specs = tm_xcalloc(total + 1, sizeof(*x->specs));
	x->owner = tm_xcalloc(total + 1, sizeof(size_t));
	x->next = tm_xcalloc(total + 1, sizeof(size_t));
	x->files = tm_xcalloc(n + 1, sizeof(char *));
	x->file_next = tm_xcalloc(n + 1, sizeof(size_t));
	x->nthreads = n;
	strmap_init(&x->literal, total);
	strmap_init(&x->file_map, n);
	for (i = 0; i < n; i++) {
		for (k = 0; k < threads[i]->paths.n; k++) {
			s = &x->specs[x->nspecs];
			spec_parse(s, threads[i]->paths.items[k]);
			x->owner[x->nspecs] = i;
			if (s->glob || s->all)
				sizev_push(&x->other, x->nspecs);
			else if (!s->never)
				strmap_add(&x->literal, s->pattern, s->len,
				           x->next, x->nspecs);
			x->nspecs++;
		}
		if (threads_dir) {
			tm_buf f = TM_BUF_INIT;

			tm_buf_printf(&f, "%s%s.md", threads_dir,
			              threads[i]->id);
			x->files[i] = tm_buf_detach(&f);
			strmap_add(&x->file_map, x->files[i],
			           strlen(x->files[i]), x->file_next, i);
		}
	}
}

static void index_free(struct index *x)
{
	size_t i;

	for (i = 0; i < x->nspecs; i++)
		spec_free(&x->specs[i]);
	for (i = 0; i < x->nthreads; i++)
		free(x->files[i]);
	free(x->specs);
	free(x->owner);
	free(x->next);
	free(x->files);
	free(x->file_next);
	free(x->literal.slots);
	free(x->file_map.slots);
	free(x->other.v);
	memset(x, 0, sizeof(*x));
}

/* Append to `out` the threads with a spec matching `path` (maybe twice). */
static void index_match(const struct index *x, const char *path,
                        struct sizev *out)
{
	size_t plen = strlen(path), i, k;

	for (i = 1; i <= plen; i++) {
		if (i < plen && path[i] != '/')
			continue;
		for (k = strmap_head(&x->literal, path, i); k != NONE;
		     k = x->next[k])
			if (i < plen || !x->specs[k].dir_only)
				sizev_push(out, x->owner[k]);
	}
	for (i = 0; i < x->other.n; i++) {
		k = x->other.v[i];
		if (spec_match(&x->specs[k], path, plen))
			sizev_push(out, x->owner[k]);
	}
}

/* The first thread whose file is `path` (chain through file_next). */
static size_t index_file(const struct index *x, const char *path)
{
	return strmap_head(&x->file_map, path, strlen(path));
}

/* ---- tree diffs ---- */

static int git_fail(const char *what, const git_oid *oid)
{
	const git_error *e = git_error_last();
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), oid);
	return tm_error_set(TM_ERROR, "cannot read %s %s: %s", what, hex,
	                    e && e->message ? e->message : "libgit2 error");
}

struct differ {
	git_repository *repo;
	tm_buf path; /* the folder being compared, with a trailing '/' */
	tm_strv *out;
};

/* Tree entries in git's order: a tree's name compares as if followed by
 * '/'.  0 only for the same name and the same kind. */
static int entry_cmp(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *na = git_tree_entry_name(a), *nb = git_tree_entry_name(b);
	size_t la = strlen(na), lb = strlen(nb), l = la < lb ? la : lb;
	int c = memcmp(na, nb, l);
	unsigned ca, cb;

	if (c)
		return c;
	ca = la > l ? (unsigned char)na[l]
	            : (git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0);
	cb = lb > l ? (unsigned char)nb[l]
	            : (git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0);
	return (int)ca - (int)cb;
}

static int diff_trees(struct differ *d, const git_oid *a, const git_oid *b);

/* One name on one side (the other NULL) or both, of the same kind. */
static int diff_entry(struct differ *d, const git_tree_entry *a,
                      const git_tree_entry *b)
{
	const git_tree_entry *e = a ? a : b;
	size_t base = d->path.size;
	int error = 0;

	if (a && b &&
	    git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b)) &&
	    git_tree_entry_filemode(a) == git_tree_entry_filemode(b))
		return 0;
	tm_buf_puts(&d->path, git_tree_entry_name(e));
	if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		tm_buf_putc(&d->path, '/');
		error = diff_trees(d, a ? git_tree_entry_id(a) : NULL,
		                   b ? git_tree_entry_id(b) : NULL);
	} else {
		tm_strv_push(d->out, tm_buf_cstr(&d->path));
	}
	tm_buf_truncate(&d->path, base);
	return error;
}

/* The paths that differ between trees a and b (NULL: the empty tree). */
static int diff_trees(struct differ *d, const git_oid *a, const git_oid *b)
{
	git_tree *ta = NULL, *tb = NULL;
	const git_tree_entry *ea, *eb;
	size_t i = 0, j = 0, na, nb;
	int error = 0, c;

	if (a && b && git_oid_equal(a, b))
		return 0;
	if (a && git_tree_lookup(&ta, d->repo, a) < 0)
		return git_fail("tree", a);
	if (b && git_tree_lookup(&tb, d->repo, b) < 0) {
		git_tree_free(ta);
		return git_fail("tree", b);
	}
	na = ta ? git_tree_entrycount(ta) : 0;
	nb = tb ? git_tree_entrycount(tb) : 0;
	while (!error && (i < na || j < nb)) {
		ea = i < na ? git_tree_entry_byindex(ta, i) : NULL;
		eb = j < nb ? git_tree_entry_byindex(tb, j) : NULL;
		c = !ea ? 1 : !eb ? -1 : entry_cmp(ea, eb);
		error = diff_entry(d, c <= 0 ? ea : NULL, c >= 0 ? eb : NULL);
		i += c <= 0;
		j += c >= 0;
	}
	git_tree_free(ta);
	git_tree_free(tb);
	return error;
}

/* Append to `out` the repository paths that differ between two root
 * trees (old NULL: the empty tree). */
static int diff_root_trees(tm_strv *out, git_repository *repo,
                           const git_oid *old, const git_oid *new_tree)
{
	struct differ d = {repo, TM_BUF_INIT, out};
	int error = diff_trees(&d, old, new_tree);

	tm_buf_release(&d.path);
	return error;
}

/* ---- shallow clones ---- */

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/* The commits git treats as parentless ($GIT_COMMON_DIR/shallow), sorted. */
static void read_shallow(git_oid **out, size_t *n, git_repository *repo)
{
	tm_buf path = TM_BUF_INIT;
	char line[128];
	size_t alloc = 0;
	FILE *f;

	*out = NULL;
	*n = 0;
	if (git_repository_is_shallow(repo) != 1)
		return;
	tm_buf_printf(&path, "%sshallow", git_repository_commondir(repo));
	f = fopen(tm_buf_cstr(&path), "re");
	tm_buf_release(&path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		tm_xgrow((void **)out, &alloc, *n + 1, sizeof(git_oid));
		if (strlen(line) >= GIT_OID_HEXSZ &&
		    git_oid_fromstrn(&(*out)[*n], line, GIT_OID_HEXSZ) == 0)
			(*n)++;
	}
	fclose(f);
	if (*n)
		qsort(*out, *n, sizeof(git_oid), oid_cmp);
}

/* ---- phase 1: the walk ---- */

enum {
	F_HEAD = 1,     /* reachable from HEAD */
	F_FULL = 2,     /* reachable from every base */
	F_QUEUED = 4,   /* in the walk's queue */
	F_EXPANDED = 8, /* parents loaded */
	F_GRAFTED = 16  /* parents missing (shallow): a root, as for git */
};

struct node {
	git_oid oid;
	git_oid tree;
	int64_t time;   /* committer time */
	size_t parents; /* first parent in walk.parent_oid / parent_node */
	unsigned nparents;
	unsigned flags;
	size_t base;     /* its index as a base, or NONE */
	size_t seen;     /* phase 2: last search that met it */
	size_t pending;  /* phase 2: children still to visit */
	uint64_t *reach; /* phase 2: threads whose history reaches it */
};

struct heap {
	size_t *v;
	size_t n, alloc;
};

struct walk {
	git_repository *repo;
	struct node *nodes;
	size_t n, alloc;
	uint64_t *bits; /* `words` per node: the bases reaching it */
	size_t words, nbases;
	uint64_t last_mask; /* the bits of the last word in use */
	git_oid *parent_oid;
	size_t *parent_node;
	size_t nparent, parent_alloc;
	size_t *table; /* oid -> node, open addressing */
	size_t table_mask;
	struct heap queue;
	size_t live; /* queued, from HEAD, not reachable from every base */
	struct sizev stack;
	git_oid *shallow;
	size_t nshallow;
};

static uint64_t *row(const struct walk *w, size_t i)
{
	return w->bits + i * w->words;
}

static bool interesting(const struct node *n)
{
	return (n->flags & (F_HEAD | F_FULL)) == F_HEAD;
}

static void table_put(struct walk *w, size_t i)
{
	uint64_t h;
	size_t s;

	memcpy(&h, w->nodes[i].oid.id, sizeof(h));
	for (s = (size_t)h & w->table_mask; w->table[s] != NONE;
	     s = (s + 1) & w->table_mask)
		;
	w->table[s] = i;
}

static size_t table_get(const struct walk *w, const git_oid *oid)
{
	uint64_t h;
	size_t s;

	memcpy(&h, oid->id, sizeof(h));
	for (s = (size_t)h & w->table_mask; w->table[s] != NONE;
	     s = (s + 1) & w->table_mask)
		if (git_oid_equal(&w->nodes[w->table[s]].oid, oid))
			return w->table[s];
	return NONE;
}

static void table_grow(struct walk *w)
{
	size_t cap = (w->table_mask + 1) * 2, i;

	free(w->table);
	w->table = tm_xmalloc(cap * sizeof(size_t));
	for (i = 0; i < cap; i++)
		w->table[i] = NONE;
	w->table_mask = cap - 1;
	for (i = 0; i < w->n; i++)
		table_put(w, i);
}

static void walk_init(struct walk *w, git_repository *repo)
{
	memset(w, 0, sizeof(*w));
	w->repo = repo;
	w->table_mask = 255;
	w->table = tm_xmalloc(256 * sizeof(size_t));
	memset(w->table, 0xff, 256 * sizeof(size_t));
	read_shallow(&w->shallow, &w->nshallow, repo);
}

static void walk_free(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->nodes[i].reach);
	free(w->nodes);
	free(w->bits);
	free(w->parent_oid);
	free(w->parent_node);
	free(w->table);
	free(w->queue.v);
	free(w->stack.v);
	free(w->shallow);
	memset(w, 0, sizeof(*w));
}

/* Size the bit sets for `nbases` bases (once, before the walk). */
static void walk_set_bases(struct walk *w, size_t nbases)
{
	w->nbases = nbases;
	w->words = WORDS(nbases);
	w->last_mask =
	        nbases % 64 ? ((uint64_t)1 << (nbases % 64)) - 1 : UINT64_MAX;
	w->bits = tm_xcalloc((w->alloc ? w->alloc : 1) * w->words + 1,
	                     sizeof(uint64_t));
}

/*
 * The node of commit `oid` into *out, loading the commit on first use.
 * TM_ENOTFOUND (no message) when the repository does not have it.
 */
static int get_node(struct walk *w, const git_oid *oid, size_t *out)
{
	git_commit *c = NULL;
	struct node *n;
	size_t i, old = w->alloc, old_parents = w->parent_alloc;
	int error;

	if ((i = table_get(w, oid)) != NONE) {
		*out = i;
		return 0;
	}
	error = git_commit_lookup(&c, w->repo, oid);
	if (error == GIT_ENOTFOUND)
		return TM_ENOTFOUND;
	if (error < 0)
		return git_fail("commit", oid);
	tm_xgrow((void **)&w->nodes, &w->alloc, w->n + 1, sizeof(*w->nodes));
	if (w->words && w->alloc != old) {
		w->bits = tm_xrealloc(w->bits,
		                      w->alloc * w->words * sizeof(uint64_t));
		memset(w->bits + old * w->words, 0,
		       (w->alloc - old) * w->words * sizeof(uint64_t));
	}
	i = w->n++;
	n = &w->nodes[i];
	memset(n, 0, sizeof(*n));
	git_oid_cpy(&n->oid, oid);
	git_oid_cpy(&n->tree, git_commit_tree_id(c));
	n->time = (int64_t)git_commit_time(c);
	n->nparents = git_commit_parentcount(c);
	n->parents = w->nparent;
	n->base = NONE;
	tm_xgrow((void **)&w->parent_oid, &w->parent_alloc,
	         w->nparent + n->nparents, sizeof(git_oid));
	if (w->parent_alloc != old_parents)
		w->parent_node = tm_xrealloc(w->parent_node,
		                             w->parent_alloc * sizeof(size_t));
	for (i = 0; i < n->nparents; i++) {
		git_oid_cpy(&w->parent_oid[w->nparent],
		            git_commit_parent_id(c, (unsigned)i));
		w->parent_node[w->nparent++] = NONE;
	}
	git_commit_free(c);
	if (w->n * 2 > w->table_mask + 1)
		table_grow(w);
	else
		table_put(w, w->n - 1);
	*out = w->n - 1;
	return 0;
}

static size_t parent(const struct walk *w, size_t node, size_t k)
{
	return w->parent_node[w->nodes[node].parents + k];
}

/* Heap of nodes: newest commit first, then in the order they were met. */
static bool before(const struct walk *w, size_t a, size_t b)
{
	if (w->nodes[a].time != w->nodes[b].time)
		return w->nodes[a].time > w->nodes[b].time;
	return a < b;
}

static void heap_push(const struct walk *w, struct heap *h, size_t x)
{
	size_t i, up;

	tm_xgrow((void **)&h->v, &h->alloc, h->n + 1, sizeof(size_t));
	for (i = h->n++; i > 0; i = up) {
		up = (i - 1) / 2;
		if (!before(w, x, h->v[up]))
			break;
		h->v[i] = h->v[up];
	}
	h->v[i] = x;
}

static size_t heap_pop(const struct walk *w, struct heap *h)
{
	size_t top = h->v[0], last = h->v[--h->n], i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(w, h->v[c + 1], h->v[c]))
			c++;
		if (!before(w, h->v[c], last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

static void queue_push(struct walk *w, size_t i)
{
	w->nodes[i].flags |= F_QUEUED;
	w->live += interesting(&w->nodes[i]);
	heap_push(w, &w->queue, i);
}

static size_t queue_pop(struct walk *w)
{
	size_t i = heap_pop(w, &w->queue);

	w->nodes[i].flags &= ~(unsigned)F_QUEUED;
	w->live -= interesting(&w->nodes[i]);
	return i;
}

static bool row_full(const struct walk *w, const uint64_t *r)
{
	size_t k;

	for (k = 0; k + 1 < w->words; k++)
		if (r[k] != UINT64_MAX)
			return false;
	return r[k] == w->last_mask;
}

/* Adjust the count of interesting queued nodes after node n changed. */
static void recount(struct walk *w, const struct node *n, bool was)
{
	if (!(n->flags & F_QUEUED) || was == interesting(n))
		return;
	if (was)
		w->live--;
	else
		w->live++;
}

/* Add a base bit / the HEAD flag to node i; keeps `live` right. */
static void mark(struct walk *w, size_t i, size_t base, bool head)
{
	struct node *n = &w->nodes[i];
	bool was = interesting(n);

	if (base != NONE)
		bit_set(row(w, i), base);
	if (head)
		n->flags |= F_HEAD;
	if (row_full(w, row(w, i)))
		n->flags |= F_FULL;
	recount(w, n, was);
}

/* Let what reaches `src` reach `dst`; true when that changed dst. */
static bool flow_one(struct walk *w, size_t dst, size_t src)
{
	struct node *d = &w->nodes[dst];
	const uint64_t *s = row(w, src);
	uint64_t *r = row(w, dst), v;
	bool was = interesting(d), changed = false, grew = false;
	size_t k;

	if ((w->nodes[src].flags & F_HEAD) && !(d->flags & F_HEAD)) {
		d->flags |= F_HEAD;
		changed = true;
	}
	if (!(d->flags & F_FULL)) {
		for (k = 0; k < w->words; k++) {
			v = r[k] | s[k];
			grew |= v != r[k];
			r[k] = v;
		}
		if (grew && row_full(w, r))
			d->flags |= F_FULL;
	}
	recount(w, d, was);
	return changed || grew;
}

/* Let what reaches `start` reach its ancestors among the expanded nodes. */
static void flow(struct walk *w, size_t start)
{
	size_t c, k, p;

	w->stack.n = 0;
	sizev_push(&w->stack, start);
	while (w->stack.n) {
		c = w->stack.v[--w->stack.n];
		for (k = 0; k < w->nodes[c].nparents; k++) {
			p = parent(w, c, k);
			if (flow_one(w, p, c) &&
			    (w->nodes[p].flags & F_EXPANDED))
				sizev_push(&w->stack, p);
		}
	}
}

/* Load node c's parents, queue the new ones, pass c's marks on. */
static int expand(struct walk *w, size_t c)
{
	struct node *n = &w->nodes[c];
	size_t k, p, np = n->nparents, first = n->parents;
	bool missing = w->nshallow && bsearch(&n->oid, w->shallow, w->nshallow,
	                                      sizeof(git_oid), oid_cmp);
	int error;

	for (k = 0; !missing && k < np; k++) {
		error = get_node(w, &w->parent_oid[first + k], &p);
		if (error == TM_ENOTFOUND)
			missing = true;
		else if (error < 0)
			return error;
		else
			w->parent_node[first + k] = p;
	}
	n = &w->nodes[c];
	n->flags |= F_EXPANDED;
	if (missing) {
		n->nparents = 0;
		n->flags |= F_GRAFTED;
		return 0;
	}
	for (k = 0; k < np; k++) {
		p = parent(w, c, k);
		if (!(w->nodes[p].flags & (F_QUEUED | F_EXPANDED)))
			queue_push(w, p);
	}
	flow(w, c);
	return 0;
}

/* Walk until no queued commit from HEAD concerns any thread (see top). */
static int walk_run(struct walk *w)
{
	int64_t date = INT64_MAX;
	int slop = SLOP, error;
	size_t c;

	while (w->queue.n) {
		c = queue_pop(w);
		if ((error = expand(w, c)) < 0)
			return error;
		if (interesting(&w->nodes[c])) {
			date = w->nodes[c].time;
			continue;
		}
		if (!w->queue.n)
			break;
		if (date <= w->nodes[w->queue.v[0]].time || w->live)
			slop = SLOP;
		else if (--slop == 0)
			break;
	}
	return 0;
}

/* ---- phase 2: per-thread histories ---- */

/* A thread that can be stale. */
struct live {
	const tm_thread *t;
	size_t base;          /* index of its base */
	size_t base_node;     /* node of its base */
	struct sizev changed; /* interned paths, compacted now and then */
	size_t compact_at;
	bool stale;
	git_oid newest;
};

struct pass {
	struct walk *w;
	struct index x;
	struct live *th;
	size_t nth, words;                           /* words of a thread set */
	uint64_t *active, *covers, *shown, *touched; /* touched: per parent */
	size_t touched_parents;
	tm_strv changed, other;
	struct interner paths;
	struct sizev hits;
	struct sizev pairs; /* (path, thread) pairs of the first-parent diff */
	size_t *stamp, gen; /* per thread: last path paired with it */
	struct sizev stack;
};

/* A thread set of node i's, allocated on first use. */
static uint64_t *reach_of(struct pass *s, size_t i)
{
	struct node *n = &s->w->nodes[i];

	if (!n->reach)
		n->reach = tm_xcalloc(s->words, sizeof(uint64_t));
	return n->reach;
}

/* Threads in `active` that `paths` touch, into `touched`; with `pairs`,
 * also each (path, thread) pair once into s->pairs. */
static void match_paths(struct pass *s, const tm_strv *paths, uint64_t *touched,
                        bool pairs)
{
	size_t i, k, t;

	memset(touched, 0, s->words * sizeof(uint64_t));
	for (i = 0; i < paths->n; i++) {
		s->hits.n = 0;
		index_match(&s->x, paths->items[i], &s->hits);
		s->gen++;
		for (k = 0; k < s->hits.n; k++) {
			t = s->hits.v[k];
			if (!bit_get(s->active, t))
				continue;
			bit_set(touched, t);
			if (pairs && s->stamp[t] != s->gen) {
				s->stamp[t] = s->gen;
				sizev_push(&s->pairs, i);
				sizev_push(&s->pairs, t);
			}
		}
	}
}

/* Let thread t's history go on to parent p. */
static void follow(struct pass *s, size_t p, size_t t)
{
	if (interesting(&s->w->nodes[p]))
		bit_set(reach_of(s, p), t);
}

/* Is `oid` one of node n's parents? */
static bool has_parent(const struct walk *w, size_t n, const git_oid *oid)
{
	size_t k;

	for (k = 0; k < w->nodes[n].nparents; k++)
		if (git_oid_equal(&w->parent_oid[w->nodes[n].parents + k], oid))
			return true;
	return false;
}

/*
 * Has `git log` already marked p (reachable from base b) as uninteresting
 * when its date-ordered walk reaches merge m?  It marks b's parents at the
 * start; then, for each commit reachable from b that it takes before m
 * (newer than m), that commit's parents and grandparents.
 */
static bool git_knows(struct pass *s, size_t b, size_t p, size_t m)
{
	struct walk *w = s->w;
	const git_oid *oid = &w->nodes[p].oid;
	int64_t when = w->nodes[m].time;
	size_t z, k, y;

	if (has_parent(w, b, oid))
		return true;
	if (w->nodes[b].time <= when)
		return false;
	s->gen++;
	s->stack.n = 0;
	w->nodes[b].seen = s->gen;
	sizev_push(&s->stack, b);
	while (s->stack.n) {
		z = s->stack.v[--s->stack.n];
		if (!(w->nodes[z].flags & F_EXPANDED))
			continue;
		for (k = 0; k < w->nodes[z].nparents; k++) {
			y = parent(w, z, k);
			if (y == p || has_parent(w, y, oid))
				return true;
			if (w->nodes[y].time > when &&
			    w->nodes[y].seen != s->gen) {
				w->nodes[y].seen = s->gen;
				sizev_push(&s->stack, y);
			}
		}
	}
	return false;
}

/*
 * A "relevant" parent in git's sense (revision.c): one its walk has not
 * marked uninteresting (yet), or the base itself.
 */
static bool relevant(struct pass *s, size_t m, size_t p, size_t t)
{
	const struct live *l = &s->th[t];

	if (p == l->base_node || !bit_get(row(s->w, p), l->base))
		return true;
	return !git_knows(s, l->base_node, p, m);
}

/*
 * A merge, for each thread reaching it, as git's try_to_simplify_commit()
 * sees it: the first relevant parent with the same content under the
 * thread's paths is the only one followed and the merge is not shown;
 * otherwise the merge is shown when it differs from its relevant parents
 * (from its other ones when it has none) and every parent is followed.
 */
static void simplify_merge(struct pass *s, size_t c)
{
	size_t np = s->w->nodes[c].nparents, t, i, p, nrel;
	bool rel, same, changed_rel, changed_other, done;

	for (t = 0; t < s->nth; t++) {
		if (!bit_get(s->active, t))
			continue;
		nrel = 0;
		changed_rel = changed_other = done = false;
		for (i = 0; i < np && !done; i++) {
			p = parent(s->w, c, i);
			rel = relevant(s, c, p, t);
			same = !bit_get(s->touched + i * s->words, t);
			nrel += rel;
			if (same && rel) {
				follow(s, p, t);
				done = true;
			} else if (!same) {
				changed_rel |= rel;
				changed_other |= !rel;
			}
		}
		if (done)
			continue;
		if (nrel ? changed_rel : changed_other)
			bit_set(s->shown, t);
		for (i = 0; i < np; i++)
			follow(s, parent(s->w, c, i), t);
	}
}

/* Record the threads that commit c counts against. */
static void record(struct pass *s, size_t c)
{
	size_t k, t, f;

	/* a commit that also changes the thread's file covers it */
	memset(s->covers, 0, s->words * sizeof(uint64_t));
	for (k = 0; k < s->changed.n; k++)
		for (f = index_file(&s->x, s->changed.items[k]); f != NONE;
		     f = s->x.file_next[f])
			bit_set(s->covers, f);
	for (t = 0; t < s->nth; t++) {
		if (!bit_get(s->shown, t) || bit_get(s->covers, t))
			continue;
		if (!s->th[t].stale) {
			s->th[t].stale = true;
			git_oid_cpy(&s->th[t].newest, &s->w->nodes[c].oid);
		}
	}
	for (k = 0; k + 1 < s->pairs.n; k += 2) {
		struct live *l = &s->th[s->pairs.v[k + 1]];

		t = s->pairs.v[k + 1];
		if (!bit_get(s->shown, t) || bit_get(s->covers, t))
			continue;
		sizev_push(&l->changed,
		           intern(&s->paths, s->changed.items[s->pairs.v[k]]));
		if (l->changed.n >= l->compact_at) {
			sizev_unique(&l->changed);
			l->compact_at = 2 * l->changed.n + 64;
		}
	}
}

/* Ensure room for `np` per-parent thread sets. */
static uint64_t *touched_of(struct pass *s, size_t i, size_t np)
{
	if (np > s->touched_parents) {
		free(s->touched);
		s->touched = tm_xcalloc(np * s->words, sizeof(uint64_t));
		s->touched_parents = np;
	}
	return s->touched + i * s->words;
}

static int visit(struct pass *s, size_t c)
{
	struct walk *w = s->w;
	const uint64_t *reach = w->nodes[c].reach, *r = row(w, c);
	size_t np = w->nodes[c].nparents, t, i, k;
	const git_oid *old;
	bool any = false;
	int error;

	if (!reach || !(w->nodes[c].flags & F_EXPANDED))
		return 0;
	memset(s->active, 0, s->words * sizeof(uint64_t));
	for (k = 0; k < s->words; k++) {
		uint64_t m = reach[k];

		while (m) {
			t = k * 64 + (size_t)__builtin_ctzll(m);
			m &= m - 1;
			if (!bit_get(r, s->th[t].base)) {
				bit_set(s->active, t);
				any = true;
			}
		}
	}
	if (!any)
		return 0;
	for (i = 0; i < (np ? np : 1); i++) {
		tm_strv *out = i ? &s->other : &s->changed;

		tm_strv_clear(out);
		old = np ? &w->nodes[parent(w, c, i)].tree : NULL;
		error = diff_root_trees(out, w->repo, old, &w->nodes[c].tree);
		if (error < 0)
			return error;
		if (i == 0)
			s->pairs.n = 0;
		match_paths(s, out, touched_of(s, i, np ? np : 1), i == 0);
	}
	memset(s->shown, 0, s->words * sizeof(uint64_t));
	if (np >= 2) {
		simplify_merge(s, c);
	} else {
		for (k = 0; k < s->words; k++)
			s->shown[k] = s->active[k] & s->touched[k];
		if (np == 1 && interesting(&w->nodes[parent(w, c, 0)])) {
			uint64_t *pr = reach_of(s, parent(w, c, 0));

			for (k = 0; k < s->words; k++)
				pr[k] |= s->active[k];
		}
	}
	record(s, c);
	return 0;
}

/* Phase 2 over the interesting nodes, children first. */
static int pass_run(struct pass *s, size_t head)
{
	struct walk *w = s->w;
	struct heap ready = {NULL, 0, 0};
	size_t i, k, p, c;
	uint64_t *hr;
	int error = 0;

	for (i = 0; i < w->n; i++) {
		if (!interesting(&w->nodes[i]) ||
		    !(w->nodes[i].flags & F_EXPANDED))
			continue;
		for (k = 0; k < w->nodes[i].nparents; k++)
			w->nodes[parent(w, i, k)].pending++;
	}
	if (!interesting(&w->nodes[head]))
		return 0;
	hr = reach_of(s, head);
	for (i = 0; i < s->nth; i++)
		bit_set(hr, i);
	heap_push(w, &ready, head);
	while (ready.n && !error) {
		c = heap_pop(w, &ready);
		error = visit(s, c);
		free(w->nodes[c].reach);
		w->nodes[c].reach = NULL;
		if (!(w->nodes[c].flags & F_EXPANDED))
			continue; /* cannot happen: its parents are unknown */
		for (k = 0; k < w->nodes[c].nparents; k++) {
			p = parent(w, c, k);
			if (interesting(&w->nodes[p]) &&
			    --w->nodes[p].pending == 0)
				heap_push(w, &ready, p);
		}
	}
	free(ready.v);
	return error;
}

/* ---- the report ---- */

static bool is_hex40(const char *s)
{
	return s && strlen(s) == GIT_OID_HEXSZ &&
	       strspn(s, "0123456789abcdefABCDEF") == GIT_OID_HEXSZ;
}

/* Can thread t be stale at all (paths, commit, not finished)? */
static bool candidate(const tm_thread *t)
{
	return t && t->has_paths && t->paths.n && t->commit &&
	       !tm_thread_is_finished(t);
}

static void strv_sort_unique(tm_strv *v)
{
	size_t i, j = 0;

	tm_strv_sort(v);
	for (i = 0; i < v->n; i++) {
		if (j && !strcmp(v->items[j - 1], v->items[i]))
			free(v->items[i]);
		else
			v->items[j++] = v->items[i];
	}
	v->n = j;
}

void tm_stale_report_clear(tm_stale_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		free(r->stale[i].id);
		free(r->stale[i].commit);
		tm_strv_clear(&r->stale[i].paths);
		tm_strv_clear(&r->stale[i].changed);
	}
	free(r->stale);
	tm_strv_clear(&r->unknown_base);
	r->stale = NULL;
	r->n = 0;
}

/* Which threads can be stale: their bases become nodes of the walk. */
static void find_bases(struct pass *s, tm_strv *unknown,
                       const tm_thread *const *threads, size_t n)
{
	size_t i, node, nbases = 0;
	git_oid oid;

	s->th = tm_xcalloc(n + 1, sizeof(*s->th));
	for (i = 0; i < n; i++) {
		if (!candidate(threads[i]))
			continue;
		/* unreadable counts as missing: nothing to compare with */
		if (!is_hex40(threads[i]->commit) ||
		    git_oid_fromstr(&oid, threads[i]->commit) < 0 ||
		    get_node(s->w, &oid, &node) < 0) {
			tm_error_clear();
			tm_strv_push(unknown, threads[i]->id);
			continue;
		}
		if (s->w->nodes[node].base == NONE)
			s->w->nodes[node].base = nbases++;
		s->th[s->nth].t = threads[i];
		s->th[s->nth].base = s->w->nodes[node].base;
		s->th[s->nth].base_node = node;
		s->nth++;
	}
	walk_set_bases(s->w, nbases);
}

/* Start the walk at HEAD (*head, or NONE when unborn) and every base. */
static int walk_start(struct pass *s, size_t *head)
{
	struct walk *w = s->w;
	git_oid oid;
	size_t i, nbase = w->n;
	int error;

	*head = NONE;
	error = git_reference_name_to_id(&oid, w->repo, "HEAD");
	if (error == GIT_ENOTFOUND || error == GIT_EUNBORNBRANCH)
		return 0;
	if (error < 0)
		return tm_error_set(TM_ERROR, "cannot resolve HEAD: %s",
		                    git_error_last() ? git_error_last()->message
		                                     : "libgit2 error");
	error = get_node(w, &oid, head);
	if (error == TM_ENOTFOUND)
		return tm_error_set(TM_ERROR, "HEAD names a missing commit");
	if (error < 0)
		return error;
	for (i = 0; i < nbase; i++)
		if (w->nodes[i].base != NONE)
			mark(w, i, w->nodes[i].base, false);
	mark(w, *head, NONE, true);
	for (i = 0; i < w->n; i++)
		if (i == *head || w->nodes[i].base != NONE)
			queue_push(w, i);
	return 0;
}

static void pass_free(struct pass *s)
{
	size_t i;

	for (i = 0; i < s->nth; i++)
		free(s->th[i].changed.v);
	free(s->th);
	index_free(&s->x);
	free(s->active);
	free(s->covers);
	free(s->shown);
	free(s->touched);
	tm_strv_clear(&s->changed);
	tm_strv_clear(&s->other);
	interner_free(&s->paths);
	free(s->hits.v);
	free(s->pairs.v);
	free(s->stamp);
	free(s->stack.v);
}

static void build_report(tm_stale_report *out, struct pass *s)
{
	tm_stale_entry *e;
	size_t i, k;

	out->stale = tm_xcalloc(s->nth + 1, sizeof(*out->stale));
	for (i = 0; i < s->nth; i++) {
		if (!s->th[i].stale)
			continue;
		e = &out->stale[out->n++];
		e->id = tm_xstrdup(s->th[i].t->id);
		e->commit = tm_xstrdup(s->th[i].t->commit);
		tm_strv_copy(&e->paths, &s->th[i].t->paths);
		sizev_unique(&s->th[i].changed);
		for (k = 0; k < s->th[i].changed.n; k++)
			tm_strv_push(
			        &e->changed,
			        s->paths.names.items[s->th[i].changed.v[k]]);
		tm_strv_sort(&e->changed);
		git_oid_tostr(e->newest, sizeof(e->newest), &s->th[i].newest);
	}
}

int tm_stale_compute(tm_stale_report *out, tm_git *g, const char *threads_dir,
                     const tm_thread *const *threads, size_t n)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;
	struct walk w;
	struct pass s;
	const tm_thread **cand = NULL;
	size_t head = NONE, i;
	int error = 0;

	memset(&s, 0, sizeof(s));
	walk_init(&w, tm_git_repository(g));
	s.w = &w;
	find_bases(&s, &r.unknown_base, threads, n);
	if (s.nth)
		error = walk_start(&s, &head);
	if (!error && head != NONE) {
		error = walk_run(&w);
		cand = tm_xcalloc(s.nth, sizeof(*cand));
		for (i = 0; i < s.nth; i++)
			cand[i] = s.th[i].t;
		index_build(&s.x, cand, s.nth, threads_dir);
		s.words = WORDS(s.nth);
		s.active = tm_xcalloc(s.words, sizeof(uint64_t));
		s.covers = tm_xcalloc(s.words, sizeof(uint64_t));
		s.shown = tm_xcalloc(s.words, sizeof(uint64_t));
		s.stamp = tm_xcalloc(s.nth, sizeof(size_t));
		if (!error)
			error = pass_run(&s, head);
	}
	if (!error) {
		build_report(&r, &s);
		tm_strv_sort(&r.unknown_base);
		*out = r;
	} else {
		tm_stale_report_clear(&r);
	}
	free(cand);
	pass_free(&s);
	walk_free(&w);
	return error;
}

/* ---- one commit, for the post-commit hook ---- */

int tm_stale_commit_touches(tm_strv *out_ids, tm_git *g, const char *hex,
                            const char *threads_dir,
                            const tm_thread *const *threads, size_t n)
{
	git_repository *repo = tm_git_repository(g);
	git_commit *c = NULL, *p = NULL;
	tm_strv changed = TM_STRV_INIT, ids = TM_STRV_INIT;
	struct index x;
	struct sizev hits = {NULL, 0, 0};
	const tm_thread **cand;
	git_oid oid, *shallow = NULL;
	size_t i, k, f, ncand = 0, nshallow = 0;
	uint64_t *touched, *covers;
	int error;

	if (!is_hex40(hex) || git_oid_fromstr(&oid, hex) < 0)
		return tm_error_set(TM_EINVALID,
		                    "'%s' is not a full commit hash",
		                    hex ? hex : "");
	error = git_commit_lookup(&c, repo, &oid);
	if (error == GIT_ENOTFOUND)
		return tm_error_set(TM_ENOTFOUND,
		                    "no commit %s in this "
		                    "repository",
		                    hex);
	if (error < 0)
		return git_fail("commit", &oid);
	read_shallow(&shallow, &nshallow, repo);
	if (git_commit_parentcount(c) > 0 &&
	    !(nshallow &&
	      bsearch(&oid, shallow, nshallow, sizeof(git_oid), oid_cmp)) &&
	    git_commit_parent(&p, c, 0) < 0)
		p = NULL; /* missing: compare with the empty tree */
	free(shallow);
	error = diff_root_trees(&changed, repo,
	                        p ? git_commit_tree_id(p) : NULL,
	                        git_commit_tree_id(c));
	git_commit_free(p);
	git_commit_free(c);
	if (error < 0) {
		tm_strv_clear(&changed);
		return error;
	}

	cand = tm_xcalloc(n + 1, sizeof(*cand));
	for (i = 0; i < n; i++)
		if (threads[i] && threads[i]->has_paths &&
		    threads[i]->paths.n && !tm_thread_is_finished(threads[i]) &&
		    !(threads[i]->commit &&
		      !strcasecmp(threads[i]->commit, hex)))
			cand[ncand++] = threads[i];
	index_build(&x, cand, ncand, threads_dir);
	touched = tm_xcalloc(WORDS(ncand) + 1, sizeof(uint64_t));
	covers = tm_xcalloc(WORDS(ncand) + 1, sizeof(uint64_t));
	for (i = 0; i < changed.n; i++) {
		hits.n = 0;
		index_match(&x, changed.items[i], &hits);
		for (k = 0; k < hits.n; k++)
			bit_set(touched, hits.v[k]);
		for (f = index_file(&x, changed.items[i]); f != NONE;
		     f = x.file_next[f])
			bit_set(covers, f);
	}
	for (i = 0; i < ncand; i++)
		if (bit_get(touched, i) && !bit_get(covers, i))
			tm_strv_push(&ids, cand[i]->id);
	strv_sort_unique(&ids);
	*out_ids = ids;
	free(touched);
	free(covers);
	free(hits.v);
	index_free(&x);
	free(cand);
	tm_strv_clear(&changed);
	return 0;
}

/* ---- helpers for the commands ---- */

char *tm_stale_threads_dir(tm_git *g, const char *store_root,
                           const char *project)
{
	const char *wd = tm_git_workdir(g);
	char *root = NULL, *top = NULL, *rel = NULL;
	tm_buf out = TM_BUF_INIT;
	size_t len;

	if (!wd || !store_root || !project)
		return NULL;
	root = realpath(store_root, NULL);
	top = realpath(wd, NULL);
	if (root && top) {
		len = strlen(top);
		if (!strcmp(root, top))
			rel = "";
		else if (!strncmp(root, top, len) &&
		         (root[len] == '/' || (len == 1 && top[0] == '/')))
			rel = root + len + (top[len - 1] != '/');
	}
	if (rel) {
		tm_buf_puts(&out, rel);
		if (*rel)
			tm_buf_putc(&out, '/');
		tm_buf_printf(&out, ".threadmind/threads/%s/", project);
	}
	free(root);
	free(top);
	return rel ? tm_buf_detach(&out) : NULL;
}

int tm_stale_describe_commit(char **out_short, char **out_subject, tm_git *g,
                             const char *hex)
{
	git_commit *c = NULL;
	git_buf buf = GIT_BUF_INIT;
	git_oid oid;
	const char *subject;
	int error;

	if (!is_hex40(hex) || git_oid_fromstr(&oid, hex) < 0)
		return tm_error_set(TM_EINVALID,
		                    "'%s' is not a full commit hash",
		                    hex ? hex : "");
	error = git_commit_lookup(&c, tm_git_repository(g), &oid);
	if (error == GIT_ENOTFOUND)
		return tm_error_set(TM_ENOTFOUND,
		                    "no commit %s in this "
		                    "repository",
		                    hex);
	if (error < 0)
		return git_fail("commit", &oid);
	if (git_object_short_id(&buf, (const git_object *)c) < 0) {
		error = git_fail("commit", &oid);
		git_commit_free(c);
		return error;
	}
	subject = git_commit_summary(c);
	*out_short = tm_xstrdup(buf.ptr);
	*out_subject = tm_xstrdup(subject ? subject : "");
	git_buf_dispose(&buf);
	git_commit_free(c);
	return 0;
}
