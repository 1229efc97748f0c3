/*
 * Shared by the files of the staleness engine only (lib/README.md lists
 * them in the order they build on each other): their types and the
 * functions they call in one another.  See stale.c for the algorithm as a
 * whole.
 */
#ifndef TM_STALE_INTERNAL_H
#define TM_STALE_INTERNAL_H

#include "stale.h"
#include "date_queue.h"
#include "hashmap.h"
#include "index_file.h"
#include "pathspec.h"
#include "treediff.h"

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TM_STALE_NONE SIZE_MAX

struct tm_stale_blobs; /* see below */

/* ---- bit sets and index arrays ---- */

#define TM_STALE_WORDS(nbits) (((nbits) + 63) / 64)

static inline bool tm_stale__bit_get(const uint64_t *b, size_t i)
{
	return (b[i / 64] >> (i % 64)) & 1;
}

static inline void tm_stale__bit_set(uint64_t *b, size_t i)
{
	b[i / 64] |= (uint64_t)1 << (i % 64);
}

/* A growable array of indexes. */
struct tm_stale_sizev {
	size_t *v;
	size_t n, alloc;
};

static inline void tm_stale__sizev_push(struct tm_stale_sizev *a, size_t x)
{
	tm_xgrow((void **)&a->v, &a->alloc, a->n + 1, sizeof(*a->v));
	a->v[a->n++] = x;
}

static inline int tm_stale__size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop duplicates. */
static inline void tm_stale__sizev_unique(struct tm_stale_sizev *a)
{
	size_t i, j = 0;

	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), tm_stale__size_cmp);
	for (i = 0; i < a->n; i++)
		if (!j || a->v[j - 1] != a->v[i])
			a->v[j++] = a->v[i];
	a->n = j;
}

/* ---- every thread's pathspecs and file, by path (stale_specs.c) ---- */

struct tm_stale_specs {
	tm_pathspec *specs;
	size_t *owner; /* specs[i] belongs to thread owner[i] */
	size_t *next;  /* next spec of the same chain (literal, other_dirs) */
	size_t nspecs;
	tm_hashmap literal; /* head of the chain of the specs without glob
			       characters, by pattern */
	struct tm_stale_sizev other; /* glob and match-everything specs */
	/* head of the chain (next) of other's specs by their literal folder
	   (glob_folder), without its '/'; those with none: other_root */
	tm_hashmap other_dirs;
	size_t other_root;
	size_t *by_pattern; /* the literal specs sorted by pattern (for a
			       prefix; made on first use), nliteral of them */
	size_t nliteral;
	bool sorted;
	char **files; /* thread i's file, or NULL */
	size_t *file_next;
	tm_hashmap file_map; /* head of the chain of threads, by file */
	size_t nthreads;
};

/* Index the paths and files of `threads` (thread i = threads[i]); the
 * files are `threads_dir` + id + ".md" (threads_dir NULL: none). */
void tm_stale__specs_build(struct tm_stale_specs *x,
			   const tm_thread *const *threads, size_t n,
			   const char *threads_dir);
void tm_stale__specs_free(struct tm_stale_specs *x);
/* Append to `out` the threads with a spec matching `path` (maybe twice).
 * A prefix of a bounded diff ("dir/", treediff.h): the threads with a
 * spec that may name something under it (tm_pathspec_may_match_under). */
void tm_stale__specs_match(struct tm_stale_specs *x, const char *path,
			   struct tm_stale_sizev *out);
/* The first thread whose file is `path` (then chain through file_next),
 * or TM_STALE_NONE.  A prefix is no file: a commit known only by its changed
 * folders covers no thread (the conservative answer). */
size_t tm_stale__specs_file(const struct tm_stale_specs *x, const char *path);

/* ---- the commit index (stale_cidx_*.c) ---- */

/*
 * One layer of the index (a file of $GIT_COMMON_DIR/threadmind/commits/):
 * the commits at positions base .. base + n - 1 and the paths numbered
 * pbase .. pbase + npaths - 1.  Commit base + i has the oid oids[20 i..],
 * time[i], parents parent[pstart[i] .. pstart[i + 1]] (positions below
 * base + i, in this layer or one below), diff slots sstart[i] ..
 * sstart[i + 1] (one per parent, or one against the empty tree), slot k's
 * changed paths dpath[dstart[k] .. dstart[k + 1]] (path numbers of any
 * layer up to this one), thread file versions vpath / vcommit (the
 * `commit` it names, 20 bytes each, zero: none) / vident (its identity,
 * 0: it does not parse) [vstart[i] .. vstart[i + 1]] (a stub, a parent
 * known by its oid and time only: no parent, no slot); order: i
 * sorted by oid (a stub and the commit's description: equal oids); path pbase +
 * p is the string pbytes + poff[p]; psorted: p sorted by name.
 */
struct tm_stale_cidx_layer {
	unsigned char *data; /* the file, mapped (or malloc'd) */
	size_t size;
	bool mapped;
	uint64_t id, below; /* its checksum; the one of the layer below */
	uint32_t base, n, pbase, npaths, nparent, nslot, ndiff, nver, pathbytes;
	const unsigned char *oids, *vcommit;
	const uint64_t *vident;
	const int64_t *time;
	const uint32_t *pstart, *parent, *sstart, *dstart, *dpath, *vstart,
		*vpath, *order, *poff, *psorted;
	const char *pbytes;
};

/* The index: its layers, bottom first (positions and path numbers of each
 * continue those below it); n commits and npaths paths in all. */
struct tm_stale_cidx {
	struct tm_stale_cidx_layer *layers;
	size_t nlayers, alloc;
	uint32_t n, npaths;
	uint64_t shallow_key;
	bool partial;    /* the chain names more than these layers */
	tm_strv dropped; /* the layer files the chain names past those */
};

/*
 * The layer holding `x`: the last one whose first number is <= x, that
 * number being the layer's uint32_t member at offset `first` (`base` for
 * commit positions, `pbase` for paths).
 */
static inline const struct tm_stale_cidx_layer *
tm_stale__cidx_layer_of(const struct tm_stale_cidx *ix, uint32_t x,
			size_t first)
{
	size_t lo = 0, hi = ix->nlayers, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (*(const uint32_t *)((const char *)&ix->layers[mid] +
					first) <= x)
			lo = mid;
		else
			hi = mid;
	}
	return &ix->layers[lo];
}

/* The layer holding position `pos` (< ix->n). */
static inline const struct tm_stale_cidx_layer *
tm_stale__cidx_layer_at(const struct tm_stale_cidx *ix, uint32_t pos)
{
	return tm_stale__cidx_layer_of(
		ix, pos, offsetof(struct tm_stale_cidx_layer, base));
}

/* Commit `pos`'s oid (20 bytes). */
static inline const unsigned char *
tm_stale__cidx_oid(const struct tm_stale_cidx *ix, uint32_t pos)
{
	const struct tm_stale_cidx_layer *l = tm_stale__cidx_layer_at(ix, pos);

	return l->oids + (size_t)(pos - l->base) * GIT_OID_RAWSZ;
}

static inline int64_t tm_stale__cidx_time(const struct tm_stale_cidx *ix,
					  uint32_t pos)
{
	const struct tm_stale_cidx_layer *l = tm_stale__cidx_layer_at(ix, pos);

	return l->time[pos - l->base];
}

/* Commit `pos`'s parents (positions) into *out; their count. */
static inline uint32_t tm_stale__cidx_parents(const struct tm_stale_cidx *ix,
					      uint32_t pos,
					      const uint32_t **out)
{
	const struct tm_stale_cidx_layer *l = tm_stale__cidx_layer_at(ix, pos);
	uint32_t i = pos - l->base;

	*out = l->parent + l->pstart[i];
	return l->pstart[i + 1] - l->pstart[i];
}

/* Is commit `pos` described (its parents and diffs recorded), not a stub
 * (a parent of a described commit, known by its oid and time only)? */
static inline bool tm_stale__cidx_described(const struct tm_stale_cidx *ix,
					    uint32_t pos)
{
	const struct tm_stale_cidx_layer *l = tm_stale__cidx_layer_at(ix, pos);
	uint32_t i = pos - l->base;

	return l->sstart[i + 1] > l->sstart[i];
}

/* The paths (numbers) of commit `pos`'s diff against its parent k (k = 0
 * for a root: against the empty tree) into *out; their count. */
static inline uint32_t tm_stale__cidx_diff(const struct tm_stale_cidx *ix,
					   uint32_t pos, uint32_t k,
					   const uint32_t **out)
{
	const struct tm_stale_cidx_layer *l = tm_stale__cidx_layer_at(ix, pos);
	uint32_t slot = l->sstart[pos - l->base] + k;

	*out = l->dpath + l->dstart[slot];
	return l->dstart[slot + 1] - l->dstart[slot];
}

/* The thread file versions commit `pos` adds: paths into *paths, the
 * `commit` each names (20 bytes each, zero: none) into *commits, their
 * identities (0: the version does not parse) into *idents; their count. */
static inline uint32_t tm_stale__cidx_versions(const struct tm_stale_cidx *ix,
					       uint32_t pos,
					       const uint32_t **paths,
					       const unsigned char **commits,
					       const uint64_t **idents)
{
	const struct tm_stale_cidx_layer *l = tm_stale__cidx_layer_at(ix, pos);
	uint32_t i = pos - l->base;

	*paths = l->vpath + l->vstart[i];
	*commits = l->vcommit + (size_t)l->vstart[i] * GIT_OID_RAWSZ;
	*idents = l->vident + l->vstart[i];
	return l->vstart[i + 1] - l->vstart[i];
}

/*
 * Load the index of $GIT_COMMON_DIR/threadmind/commits/ into *ix: its
 * chain's layers up to the first unsound or foreign one (a damaged chain
 * over sound layers is written again).  Nothing is described here: the
 * computation describes the commits it needs (tm_stale__cidx_describe).
 * Free *ix with tm_stale__cidx_free either way.
 */
void tm_stale__cidx_open(struct tm_stale_cidx *ix, git_repository *repo);
/* How tm_stale__cidx_describe works (zeroed: alone, quietly). */
struct tm_stale_describe {
	const git_oid *shallow; /* sorted: git's parentless commits */
	size_t nshallow;
	tm_progress_fn progress; /* or NULL: hears of "indexing history" */
	void *progress_data;
	tm_strv *warnings; /* or NULL: the lines of the trees skipped */
	/* or NULL: the versions of thread files read so far (else its own) */
	struct tm_stale_blobs *blobs;
	/* or NULL: a commit the caller has read already: its tree, time and
	   parents (*np of them, valid during the call); false: not read */
	bool (*known)(void *data, const git_oid *oid, git_oid *tree,
		      int64_t *time, const git_oid **parents, uint32_t *np);
	void *known_data;
	/* or NULL: whether a merge's diffs against its other parents are
	   wanted, given its first-parent diff `first` (a thread's answer
	   needs them only when `first` touches its paths); then `within`
	   (with `within_data` as both's data) says which folders they open,
	   the other changed folders left prefixes.  Not wanted, or without:
	   "/" ("maybe anything": stale_history.c, refine, diffs them when
	   an answer needs it) */
	bool (*other_parents)(void *data, const tm_strv *first);
	tm_treediff_filter within;
	void *within_data;
};

/*
 * Describe the `n` commits `oids` that ix lacks or holds as stubs, in new
 * layers on top of ix (written atomically; a failed write is no error),
 * merged as git's split commit-graph: for each, its parents (their stubs
 * added when ix lacks them; none for a commit of how->shallow), its diff
 * against each parent and the thread file versions its first-parent diff
 * adds.  A tree that cannot be read is skipped (treediff.h: its folder a
 * prefix) with a line in how->warnings.  Past the calling thread's
 * deadline (deadline.h) it stops with TM_ETIMEOUT, the commits described
 * so far written as a layer.  On error (a commit or a parent that cannot
 * be read, the deadline) *ix must not be used.  What the caller read
 * already (how->blobs, how->known) is not read again.
 */
int tm_stale__cidx_describe(struct tm_stale_cidx *ix, git_repository *repo,
			    const git_oid *oids, size_t n,
			    const struct tm_stale_describe *how);
void tm_stale__cidx_free(struct tm_stale_cidx *ix);
/* FOR TESTS ONLY: a first build writes a layer every so many commits. */
extern uint32_t tm_stale__chunk_commits;
/* FOR TESTS ONLY: how many layers this process has checked whole (a layer
 * whose stat data the file `checked` holds is not). */
extern unsigned long tm_stale__layer_checks;
/* FOR TESTS ONLY: the size from which a layer checked whole is stamped. */
extern uint64_t tm_stale__stamp_min;
/* The position of commit `oid` into *out, its description rather than a
 * stub when ix has both; false when ix lacks it. */
bool tm_stale__cidx_find(const struct tm_stale_cidx *ix, const git_oid *oid,
			 uint32_t *out);
/* Position `pos`, or the description of its commit when `pos` is a stub
 * and ix describes it elsewhere. */
uint32_t tm_stale__cidx_resolve(const struct tm_stale_cidx *ix, uint32_t pos);
const char *tm_stale__cidx_name(const struct tm_stale_cidx *ix, uint32_t path);
/* Is `path` shaped as a thread file ("[.../].threadmind/threads/P/X.md")?
 * The index records versions of those only. */
bool tm_stale__thread_file_shape(const char *path, size_t len);

/* ---- phase 1: the walk (stale_walk.c) ---- */

enum {
	TM_STALE_F_HEAD = 1, /* reachable from HEAD */
	TM_STALE_F_FULL =
		2, /* reachable, for every thread, from one of its bases */
	TM_STALE_F_QUEUED = 4,   /* in the walk's queue */
	TM_STALE_F_EXPANDED = 8, /* parents loaded */
	TM_STALE_F_GRAFTED =
		16 /* parents missing (shallow): a root, as for git */
};

/*
 * A commit of the walk.  Kept small: with the index, HEAD's whole history
 * may be a node each (its oid is then the index's, by position; the search
 * marks of phase 2 are in pass.seen, its parents' oids not copied).
 */
struct tm_stale_node {
	uint32_t cix;     /* its position in the index, or UINT32_MAX */
	uint32_t parents; /* first parent in walk.parent_node (and, read
			     from git, walk.parent_oid) */
	uint32_t nparents;
	uint32_t flags;
	int64_t time;     /* committer time */
	size_t base;      /* its index as a base, or TM_STALE_NONE */
	uint64_t *reach;  /* phase 2: threads whose history reaches it */
	uint32_t pending; /* phase 2: children still to visit */
	uint32_t row;     /* its set of bases in walk.bits (0: none yet) */
};

/* What git gives of a commit the index lacks (or of every commit, without
 * the index). */
struct tm_stale_gitnode {
	git_oid oid, tree;
};

/* The indexed commits found missing from the repository, kept across the
 * computations of one answer. */
struct tm_stale_gone {
	git_oid *v;
	size_t n, alloc;
};

struct tm_stale_walk {
	git_repository *repo;
	struct tm_stale_node *nodes;
	size_t n, alloc;
	/* the sets of bases reaching the nodes, `words` each: set 0 is empty,
	   the others shared by nodes with the same (refs[i] of them; a set
	   that has none is in `spare`), copied when one of them grows */
	uint64_t *bits;
	uint32_t *refs;
	size_t nrows, rows_alloc;
	struct tm_stale_sizev spare;
	size_t words, nbases;
	uint64_t last_mask; /* the bits of the last word in use */
	/* what TM_STALE_F_FULL asks of a set once the threads are known
	   (tm_stale__walk_set_threads; else every base): the bases some
	   thread has alone (`words` bits), and, for each other thread, one of
	   its bases (gstart[g]..gstart[g + 1] in group) */
	uint64_t *need;
	size_t *group, *gstart, ngroups;
	git_oid *parent_oid; /* of the nodes read from git only */
	uint32_t *parent_node;
	size_t nparent, parent_alloc, poid_alloc;
	tm_hashmap table; /* oid -> node, of the commits ix lacks */
	uint32_t *at_pos; /* 1 + the node of index position i, or 0 */
	size_t at_n;      /* at_pos's size (the index's, + 1) */
	struct tm_stale_gitnode
		*git; /* node i's oid and tree, when read from git */
	size_t git_alloc;
	tm_date_queue queue; /* of nodes (tm_stale__queue) */
	size_t live;         /* queued, from HEAD, interesting */
	struct tm_stale_sizev stack;
	git_oid *shallow;
	size_t nshallow;
	struct tm_stale_cidx *ix; /* or NULL: every commit read from git */
	struct tm_stale_sizev
		unchecked;          /* indexed bases not looked up in git */
	struct tm_stale_gone *gone; /* or NULL */
	tm_strv *warnings;          /* objects skipped (tm_stale__warn) */
	tm_strv skipped;            /* one diff's (scratch) */
};

/* Node i's oid (into *buf for an indexed commit). */
static inline const git_oid *tm_stale__node_oid(const struct tm_stale_walk *w,
						size_t i, git_oid *buf)
{
	if (w->nodes[i].cix == UINT32_MAX)
		return &w->git[i].oid;
	memcpy(buf->id, tm_stale__cidx_oid(w->ix, w->nodes[i].cix),
	       GIT_OID_RAWSZ);
	return buf;
}

/* The bases reaching node i. */
static inline const uint64_t *tm_stale__row(const struct tm_stale_walk *w,
					    size_t i)
{
	return w->bits + (size_t)w->nodes[i].row * w->words;
}

/* From HEAD and not reachable from every base of some thread: a commit that
 * may concern a thread. */
static inline bool tm_stale__interesting(const struct tm_stale_node *n)
{
	return (n->flags & (TM_STALE_F_HEAD | TM_STALE_F_FULL)) ==
	       TM_STALE_F_HEAD;
}

/* Node of the k-th parent of `node` (once expanded). */
static inline size_t tm_stale__parent(const struct tm_stale_walk *w,
				      size_t node, size_t k)
{
	return w->parent_node[w->nodes[node].parents + k];
}

void tm_stale__walk_init(struct tm_stale_walk *w, git_repository *repo);
void tm_stale__walk_free(struct tm_stale_walk *w);
/* Size the bit sets for `nbases` bases (once, before the walk). */
void tm_stale__walk_set_bases(struct tm_stale_walk *w, size_t nbases);
/* Let the walk stop once every queued commit from HEAD is reachable, for
 * each of the `nth` threads, from one of its bases (else from every base):
 * a thread's older review points add nothing when a newer one reaches
 * them, and the walk need not go down to them (issue 20).  Every thread
 * has a base. */
struct tm_stale_live;
void tm_stale__walk_set_threads(struct tm_stale_walk *w,
				const struct tm_stale_live *th, size_t nth);
/*
 * The node of commit `oid` into *out, loading the commit on first use.
 * TM_ENOTFOUND (no message) when the repository does not have it.
 */
int tm_stale__get_node(struct tm_stale_walk *w, const git_oid *oid,
		       size_t *out);
/* The same for a base (a thread's `commit`): with the index, the
 * repository must still have it (the index keeps commits that git may have
 * pruned since).  A base HEAD reaches has it; the others are looked up
 * after the walk (tm_stale__walk_check), to spare a search of every pack
 * file per base. */
int tm_stale__get_base(struct tm_stale_walk *w, const git_oid *oid,
		       size_t *out);
/* Node c's parents as nodes (tm_stale__parent), read the first time; a
 * node made since may move w->nodes.  *missing when c is a shallow end or
 * the repository lacks one of them (then the walk takes c as a root). */
int tm_stale__node_parents(struct tm_stale_walk *w, size_t c, bool *missing);
/* After the index described more commits (tm_stale__cidx_describe): the
 * nodes read from git that it now describes take their positions. */
void tm_stale__walk_described(struct tm_stale_walk *w);
/* Start the walk at HEAD (*head, or TM_STALE_NONE when unborn) and every base.
 */
int tm_stale__walk_start(struct tm_stale_walk *w, size_t *head);
/* Walk until no queued commit from HEAD concerns any thread. */
int tm_stale__walk_run(struct tm_stale_walk *w);
/* After the walk: the indexed bases HEAD does not reach that the
 * repository lacks go into w->gone; 2 when there were any (then compute
 * again without them), else 0. */
int tm_stale__walk_check(struct tm_stale_walk *w);
/* Queue node x in q, whose tm_date_queue_pop gives nodes newest commit
 * first, then in the order they were met (by index). */
static inline void tm_stale__queue(tm_date_queue *q,
				   const struct tm_stale_walk *w, size_t x)
{
	tm_date_queue_push(q, w->nodes[x].time, x, x);
}

/* ---- phase 2: per-thread histories (stale_history.c) ---- */

/* Each changed path stored once, numbered in the order first met. */
struct tm_stale_interner {
	tm_strv names;
	tm_hashmap map; /* name -> its index in names */
};

/* A thread that can be stale. */
struct tm_stale_live {
	const tm_thread *t;
	git_oid commit;              /* its `commit` */
	uint64_t ident;              /* its identity (tm_stale__identity) */
	struct tm_stale_sizev bases; /* every review point's base index
			       (stale_review.c) */
	struct tm_stale_sizev base_nodes; /* their nodes, in the same order */
	struct tm_stale_sizev
		changed; /* interned paths, each once (pass.pairset) */
	bool stale;
	git_oid newest;
};

/* ---- versions of thread files, each parsed once (stale_base.c) ---- */

/* What a version of a thread file says for staleness. */
struct tm_stale_blob_version {
	git_oid review; /* the `commit` it names (zero: none) */
	uint64_t ident; /* its identity (0: it does not parse) */
};

/* ---- thread files from the work tree (stale_worktree.c) ---- */

/* The threads read from the work tree that git's index may vouch for as
 * the blobs of HEAD's thread files (zeroed, or init'ed: not looked at
 * before the first question). */
struct tm_stale_worktree {
	git_repository *repo;
	const char *threads_dir; /* relative to the work tree, with its '/' */
	const tm_thread *const *threads;
	size_t n;
	int state;
	int dirfd;              /* threads_dir, opened */
	tm_index_file_entry *e; /* the index's entries under threads_dir,
				   and its .gitattributes */
	size_t ne;
	int64_t index_mtime[2];
	tm_hashmap entries; /* file name -> 1 + index in e */
	tm_hashmap byname;  /* file name -> 1 + index in threads (stamped) */
};

void tm_stale__worktree_init(struct tm_stale_worktree *wt, git_repository *repo,
			     const char *threads_dir,
			     const tm_thread *const *threads, size_t n);
/* The thread the caller read from file `name` of threads_dir when git's
 * index vouches that its bytes are blob `blob`'s (stale_worktree.c says
 * when), else NULL: then read the blob. */
const tm_thread *tm_stale__worktree_thread(struct tm_stale_worktree *wt,
					   const git_oid *blob,
					   const char *name);
void tm_stale__worktree_free(struct tm_stale_worktree *wt);

/* The versions met so far (zeroed: none). */
struct tm_stale_blobs {
	tm_hashmap map; /* blob id + file name -> 1 + index in v */
	struct tm_stale_blob_version *v;
	size_t n, alloc;
	struct tm_stale_worktree *wt; /* or NULL: every version from git */
};

/* What blob `id` of `repo`, a version of thread file `name` ("<id>.md"),
 * says: parsed the first time (under the hooks' deadline; or the work
 * tree's thread when b->wt vouches for it), remembered.  A blob that
 * cannot be read or parsed says nothing (ident 0). */
const struct tm_stale_blob_version *
tm_stale__blob_version(struct tm_stale_blobs *b, git_repository *repo,
		       const git_oid *id, const char *name);
void tm_stale__blobs_release(struct tm_stale_blobs *b);

struct tm_stale_pass {
	struct tm_stale_walk *w;
	struct tm_stale_blobs blobs; /* versions of thread files met */
	struct tm_stale_specs x;
	struct tm_stale_live *th;
	size_t nth, words;       /* words of a thread set */
	size_t nbases;           /* distinct bases */
	tm_progress_fn progress; /* or NULL */
	void *progress_data;
	uint64_t *active, *covers, *shown, *touched; /* touched: per parent */
	/* per parent: the threads touched only through a prefix (a folder a
	   diff did not open; for a merge's other parents, "/": not diffed),
	   refined by a diff limited to their paths when the merge needs it */
	uint64_t *maybe;
	uint64_t *refining; /* the threads refine() works for (all three in
			       touched's block) */
	size_t touched_parents;
	tm_treediffer *td; /* the refinements' differ, or NULL */
	tm_strv changed, other;
	struct tm_stale_interner paths;
	struct tm_stale_sizev hits;
	struct tm_stale_sizev
		pairs;     /* (path, thread) pairs of the first-parent diff */
	uint64_t *pairset; /* (path, thread) pairs recorded, + 1 (0: empty),
			      open addressing: each thread's `changed` once */
	size_t pairset_mask, pairset_n;
	size_t *stamp, gen;     /* per thread: last path paired with it */
	uint32_t *seen, search; /* per node: the last search that met it
				   (allocated on the first) */
	struct tm_stale_sizev stack;
	/* with the index: per path number, the threads whose specs match it
	   and the threads whose file it is (memo_at: 1 + start in memo, 0: not
	   computed yet; memo_n its count, files after the matches) */
	size_t *memo_at;
	uint32_t *memo_nmatch, *memo_nfile;
	struct tm_stale_sizev memo;
	const uint32_t *slot_paths; /* the changed paths of slot 0 */
	size_t slot_n;
	/* the commits that add a version of a thread under another file
	   name (a same-id split's rename), sorted by commit: they cover that
	   thread as a change of its own file does (stale_review.c) */
	struct tm_stale_cover *extra;
	size_t nextra;
};

/* Commit `at` adds a version of thread `t` (an index of pass.th). */
struct tm_stale_cover {
	git_oid at;
	size_t t;
};

/*
 * Phase 0 (stale_review.c), before the walk: the review points of the
 * threads s->th (DESIGN.md section 11, "Staleness across merges"), as
 * their bases.  A version of thread file of `threads_dir` in HEAD's
 * history belongs to every thread of the same identity; its review point
 * is its `commit` when HEAD reaches that commit, else the commits that
 * introduced it (their version of the file differs from every parent's;
 * not a shallow end, and, in a shallow clone, only when the repository
 * has the `commit`).  A thread's own `commit` is a base when HEAD reaches
 * it, or when no version of its history names it and the repository has
 * it (a review not committed yet).  The threads left without a review
 * point, and in a shallow clone those whose own `commit` a version names
 * but the repository lacks (beyond the boundary, or rewritten: it cannot
 * tell), leave s->th for `unknown` (ids appended).  Versions that do not
 * parse give nothing.  With s->w->ix, read from the index.
 */
int tm_stale__review_points(struct tm_stale_pass *s, tm_strv *unknown,
			    const char *threads_dir);

/* The most lines a computation keeps in its report's warnings. */
#define TM_STALE_MAX_WARNINGS 10

/* Append a warning line to `w` (NULL: none kept), past
 * TM_STALE_MAX_WARNINGS one line saying there are more.  (stale_base.c) */
void tm_stale__warn(tm_strv *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* 40 hex digits (tm_git_is_hex_oid); NULL is not.  (stale_base.c) */
bool tm_stale__is_hex40(const char *s);
/* Can thread t be stale at all (paths, commit, not finished, a summary)?
 * (stale_base.c) */
bool tm_stale__candidate(const tm_thread *t);
/* The identity of a thread or version in file `name` ("<id>.md"): its
 * createdAt instant and its author, hashed; never 0.  Equal for equal
 * identities as the merge driver compares them (tm_time_cmp, then the
 * author).  When createdAt is missing or does not parse, the file's name
 * is part of it: such a version belongs to its own file's thread only. */
uint64_t tm_stale__identity(const tm_thread *t, const char *name);
/* A thread's identity, with its own file's name "<id>.md". */
uint64_t tm_stale__thread_identity(const tm_thread *t);

/* ---- the shallow boundary (stale_base.c) ---- */

/* The commits git treats as parentless ($GIT_COMMON_DIR/shallow), sorted
 * (malloc'd into *out; none when the repository is not shallow). */
void tm_stale__read_shallow(git_oid **out, size_t *n, git_repository *repo);
/* Is `oid` in the sorted list of n shallow commits? */
bool tm_stale__shallow_has(const git_oid *list, size_t n, const git_oid *oid);
/* The shallow boundary, $commondir/shallow: out[0] its checksum and out[1]
 * its size + 1, both 0 when there is none (part of both caches' keys). */
void tm_stale__shallow_sum(uint64_t out[2], const char *commondir);

/* ---- the cache (stale_cache.c) ---- */

/* Append to `key` everything the answer for these inputs depends on. */
void tm_stale__cache_key(tm_buf *key, tm_git *g, const char *threads_dir,
			 const tm_thread *const *threads, size_t n);
/* The last answer as the cache holds it, with what an update needs. */
struct tm_stale_last {
	tm_stale_report r;
	git_oid head;   /* the HEAD it was computed at */
	git_oid *bases; /* every review point of every thread */
	size_t nbases;
	bool inside; /* all of them reachable from that HEAD */
};

/* The cached answer: 1 when it is for `key` (into *out); 2 when it is for
 * the same inputs at another HEAD (into *prev, when prev is not NULL;
 * clear it with tm_stale__last_clear); 0 when there is none, or the cache
 * is unreadable, corrupt or outdated. */
int tm_stale__cache_load(tm_stale_report *out, struct tm_stale_last *prev,
			 tm_git *g, const tm_buf *key,
			 const tm_thread *const *threads, size_t n);
void tm_stale__last_clear(struct tm_stale_last *last);
/* Replace the cache with answer `r` for `key` (failures are ignored). */
void tm_stale__cache_store(tm_git *g, const tm_buf *key,
			   const tm_stale_report *r, const git_oid *bases,
			   size_t nbases, bool inside);

/* Phase 2 over the interesting nodes, children first, from `head`. */
int tm_stale__pass_run(struct tm_stale_pass *s, size_t head);
void tm_stale__pass_free(struct tm_stale_pass *s);

#endif
