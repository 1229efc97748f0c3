/*
 * The commit index, built (stale_cidx_internal.h): describing the commits
 * it lacks (parents, diffs, thread file versions) into new layers.
 */
#include "stale_cidx_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "git.h"
#include "git_libgit2.h"
#include "deadline.h"
#include "record.h"
#include "treediff.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A first build writes a layer every so many commits (or diff entries). */
#define CHUNK_DIFFS (4u << 20)
/* Commits to describe from which the heap is worth huge pages
 * (tm_heap_huge_pages): a hook's few commits are not. */
#define HEAP_HUGE_FROM 256
/* What libgit2 may keep mapped of the pack files while the index is built
 * (its default is 8 GiB: a walk over a history maps every pack, whole). */
#define PACK_MAPPED ((size_t)64 << 20)

/* ---- adding the commits of HEAD's history it does not have ---- */

struct fresh {
	git_oid oid, tree;
	int64_t time;
	uint32_t pfirst; /* its parents in up.poids */
	uint32_t np;
	uint32_t at; /* its position in the index (parents first) */
	bool done;   /* its parents are all placed */
	bool stub;   /* a parent only: its oid and time, not described */
};

struct update {
	struct tm_stale_cidx *ix;
	git_repository *repo;
	struct fresh *c;
	size_t n, alloc;
	git_oid *poids;
	size_t npoids, poids_alloc;
	uint32_t *table; /* open addressing: 1 + index in c, 0: empty */
	size_t mask;
	struct tm_stale_u32v stack,
		placed; /* placed: c's indexes, parents first */
	struct tm_stale_chunk ch;
	tm_hashmap paths; /* path -> its number (every one looked up) */
	struct tm_stale_blobs own_blobs, *blobs; /* versions met */
	tm_strv changed, other; /* a commit's first-parent diff, another's */
	tm_strv written;  /* the layer files this run wrote or merged away */
	size_t first_new; /* ix's first layer written by this run */
	bool on_disk;     /* every layer from first_new is written */
	const struct tm_stale_describe *how;
	tm_strv skipped;  /* one diff's */
	size_t ndescribe; /* the commits to describe (not stubs) */
};

static size_t oid_slot(const struct update *up, const git_oid *oid)
{
	uint64_t h;

	memcpy(&h, oid->id, 8);
	return (size_t)h & up->mask;
}

/* The index in up->c of fresh commit `oid`, or TM_STALE_NONE. */
static size_t fresh_lookup(const struct update *up, const git_oid *oid)
{
	size_t i;

	if (!up->table)
		return TM_STALE_NONE;
	for (i = oid_slot(up, oid); up->table[i]; i = (i + 1) & up->mask)
		if (git_oid_equal(&up->c[up->table[i] - 1].oid, oid))
			return up->table[i] - 1;
	return TM_STALE_NONE;
}

static void fresh_insert(struct update *up, size_t at)
{
	size_t i;

	if (!up->table || (up->n + 1) * 2 > up->mask + 1) {
		size_t old = up->table ? up->mask + 1 : 0, k;
		uint32_t *t = up->table;

		up->mask = old ? old * 2 - 1 : 1023;
		up->table = tm_xcalloc(up->mask + 1, sizeof(*up->table));
		for (k = 0; k < old; k++) {
			if (!t[k])
				continue;
			for (i = oid_slot(up, &up->c[t[k] - 1].oid);
			     up->table[i]; i = (i + 1) & up->mask)
				;
			up->table[i] = t[k];
		}
		free(t);
	}
	for (i = oid_slot(up, &up->c[at].oid); up->table[i];
	     i = (i + 1) & up->mask)
		;
	up->table[i] = (uint32_t)at + 1;
}

/* Load commit `oid` into up->c (when new); its index into *out, or
 * TM_STALE_NONE when the index describes it already (a stub is loaded: it is to
 * be described).  TM_ENOTFOUND: no such commit. */
static int fresh_get(struct update *up, const git_oid *oid, size_t *out)
{
	git_commit *c = NULL;
	const git_oid *parents = NULL;
	struct fresh *f;
	uint32_t pos;
	unsigned k;
	int error;

	if (tm_stale__cidx_find(up->ix, oid, &pos) &&
	    tm_stale__cidx_described(up->ix, pos)) {
		*out = TM_STALE_NONE;
		return 0;
	}
	if ((*out = fresh_lookup(up, oid)) != TM_STALE_NONE)
		return 0;
	if (up->n >= TM_STALE_CIDX_MAX || up->npoids >= TM_STALE_CIDX_MAX)
		return tm_error_set(TM_ERROR, "history too long to index");
	tm_xgrow((void **)&up->c, &up->alloc, up->n + 1, sizeof(*up->c));
	f = &up->c[up->n];
	memset(f, 0, sizeof(*f));
	git_oid_cpy(&f->oid, oid);
	f->pfirst = (uint32_t)up->npoids;
	if (!up->how->known ||
	    !up->how->known(up->how->known_data, oid, &f->tree, &f->time,
			    &parents, &f->np)) {
		error = git_commit_lookup(&c, up->repo, oid);
		if (error == GIT_ENOTFOUND) {
			tm_error_clear();
			return TM_ENOTFOUND;
		}
		if (error < 0)
			return tm_git_error(TM_ERROR, "cannot read commit %s",
					    git_oid_tostr_s(oid));
		git_oid_cpy(&f->tree, git_commit_tree_id(c));
		f->time = (int64_t)git_commit_time(c);
		f->np = git_commit_parentcount(c);
	}
	tm_xgrow((void **)&up->poids, &up->poids_alloc, up->npoids + f->np,
		 sizeof(git_oid));
	for (k = 0; k < f->np; k++)
		git_oid_cpy(&up->poids[up->npoids++],
			    c ? git_commit_parent_id(c, k) : &parents[k]);
	git_commit_free(c);
	fresh_insert(up, up->n);
	*out = up->n++;
	return 0;
}

/* Place commit i (and, first, its parents among the ones to describe). */
static void place(struct update *up, size_t i)
{
	size_t p;
	unsigned k;

	tm_stale__u32_push(&up->stack, i);
	while (up->stack.n) {
		i = up->stack.v[up->stack.n - 1];
		if (up->c[i].done) {
			up->stack.n--;
			continue;
		}
		for (k = 0; k < up->c[i].np; k++) {
			p = fresh_lookup(up, &up->poids[up->c[i].pfirst + k]);
			if (p != TM_STALE_NONE && !up->c[p].done) {
				tm_stale__u32_push(&up->stack, p);
				break;
			}
		}
		if (k < up->c[i].np)
			continue;
		up->c[i].done = true;
		up->c[i].at = (uint32_t)(up->ix->n + up->placed.n);
		tm_stale__u32_push(&up->placed, i);
		up->stack.n--;
	}
}

/* The commits `oids` to describe, parents first, after the stubs of their
 * parents that the index lacks. */
static int collect(struct update *up, const git_oid *oids, size_t n)
{
	size_t i, p, want;
	uint32_t pos;
	unsigned k;
	int error;

	for (i = 0; i < n; i++) {
		if ((error = fresh_get(up, &oids[i], &p)) < 0)
			return error;
		if (p != TM_STALE_NONE &&
		    tm_stale__shallow_has(up->how->shallow, up->how->nshallow,
					  &up->c[p].oid))
			up->c[p].np = 0;
	}
	want = up->n;
	for (i = 0; i < want; i++) {
		for (k = 0; k < up->c[i].np; k++) {
			const git_oid *oid = &up->poids[up->c[i].pfirst + k];

			if (fresh_lookup(up, oid) != TM_STALE_NONE ||
			    tm_stale__cidx_find(up->ix, oid, &pos))
				continue;
			if ((error = fresh_get(up, oid, &p)) < 0)
				return error; /* missing, not shallow */
			up->c[p].stub = true;
			up->c[p].np = 0;
		}
	}
	for (i = want; i < up->n; i++)
		place(up, i);
	for (i = 0; i < want; i++)
		place(up, i);
	free(up->stack.v);
	memset(&up->stack, 0, sizeof(up->stack));
	return 0;
}

/* The number of path `name`, old or new. */
static uint32_t path_id(struct update *up, const char *name)
{
	size_t *at = tm_hashmap_puts(&up->paths, name, SIZE_MAX);
	uint32_t id;

	if (*at != SIZE_MAX)
		return (uint32_t)*at;
	if (!tm_stale__cidx_path_find(up->ix, name, &id)) {
		id = (uint32_t)(up->ix->npaths + up->ch.newpaths.n);
		tm_strv_push(&up->ch.newpaths, name);
	}
	*at = id;
	return id;
}

/* The shape of a thread file: "[...]/.threadmind/threads/<p>/<id>.md". */
bool tm_stale__thread_file_shape(const char *path, size_t len)
{
	static const char dir[] = ".threadmind/threads/";
	const size_t dlen = sizeof(dir) - 1;
	size_t slash = len, project;

	if (len < 4 || memcmp(path + len - 3, ".md", 3))
		return false;
	while (slash > 0 && path[slash - 1] != '/')
		slash--;
	if (slash < 2 || slash == len - 3)
		return false;
	project = slash - 1;
	while (project > 0 && path[project - 1] != '/')
		project--;
	if (project == slash - 1 || project < dlen)
		return false;
	if (memcmp(path + project - dlen, dir, dlen))
		return false;
	return project == dlen || path[project - dlen - 1] == '/';
}

/* The tree of parent k of fresh commit f. */
static int parent_tree(struct update *up, const struct fresh *f, unsigned k,
		       git_oid *out)
{
	const git_oid *oid = &up->poids[f->pfirst + k];
	size_t known = fresh_lookup(up, oid);

	if (known == TM_STALE_NONE)
		return tm_git_commit_tree_id(out, up->repo, oid);
	git_oid_cpy(out, &up->c[known].tree);
	return 0;
}

/*
 * The folder tree of path `p` (its part before the last '/', `dlen` bytes)
 * in `root`, kept in *dir while the paths share it: the changed paths
 * come in tree order, so one lookup serves every file of a folder.
 * (git_tree_entry_bypath per file re-read the folder's tree each time:
 * 19 s instead of 1.6 s for the 10,000 files a first commit adds.)
 */
static const git_tree *folder_tree(git_tree **dir, tm_buf *name,
				   git_repository *repo, git_tree *root,
				   const char *p, size_t dlen)
{
	git_tree_entry *e = NULL;

	if (*dir && name->size == dlen && !memcmp(name->ptr, p, dlen))
		return *dir;
	git_tree_free(*dir);
	*dir = NULL;
	tm_buf_clear(name);
	tm_buf_put(name, p, dlen);
	if (!dlen)
		return root;
	if (git_tree_entry_bypath(&e, root, tm_buf_cstr(name)) == 0 &&
	    git_tree_entry_type(e) == GIT_OBJECT_TREE &&
	    git_tree_lookup(dir, repo, git_tree_entry_id(e)) < 0)
		*dir = NULL;
	git_tree_entry_free(e);
	tm_error_clear();
	return *dir;
}

/* How near, in the order of description, a merge's other parent must be
 * for the merge's diff against it to read trees just read. */
#define LATELY 64

/* Was parent k of fresh commit f described lately (in this build, at most
 * LATELY commits before f)?  Then its tree into *out. */
static bool lately(struct update *up, const struct fresh *f, unsigned k,
		   git_oid *out)
{
	size_t known = fresh_lookup(up, &up->poids[f->pfirst + k]);

	if (known == TM_STALE_NONE || up->c[known].stub ||
	    f->at - up->c[known].at > LATELY)
		return false;
	git_oid_cpy(out, &up->c[known].tree);
	return true;
}

/*
 * The paths of fresh commit f's diff slot k into `list` (emptied first),
 * through differ `td`: against its first parent (or the empty tree) for
 * k = 0.  A merge's diff against another parent costs what is at hand
 * only: when that parent was described lately (its trees just read: a
 * topic merged soon after its last commit) and how->other_parents wants
 * it (given the first-parent diff, up->changed), the diff opening the
 * folders how->within wants (the others left prefixes); else "/" ("maybe
 * anything"), which stale_history.c (refine) diffs as far as a thread
 * needs, if one ever does.  The whole diff, against a long-lived topic's
 * tip, holds everything the main line changed since the topic forked: on
 * git/git it was 4.9 s of an 8.3 s first run (docs/PERFORMANCE.md).
 */
static int slot_paths(struct update *up, tm_treediffer *td,
		      const struct fresh *f, unsigned k, tm_strv *list)
{
	const struct tm_stale_describe *how = up->how;
	git_oid old;
	int error;

	tm_strv_clear(list);
	if (!k) {
		if (f->np && (error = parent_tree(up, f, 0, &old)) < 0)
			return error;
		return tm_treediffer_diff(list, &up->skipped, td,
					  f->np ? &old : NULL, &f->tree);
	}
	if (!how->other_parents || !lately(up, f, k, &old) ||
	    !how->other_parents(how->within_data, &up->changed)) {
		tm_strv_push(list, "/");
		return 0;
	}
	return tm_treediffer_diff_within(list, &up->skipped, td, &old, &f->tree,
					 how->within, how->within_data);
}

/* Fresh commit f's diffs, one slot per parent (slot_paths), and its
 * thread file versions, into the chunk. */
static int describe(struct update *up, tm_treediffer *td, const struct fresh *f)
{
	struct tm_stale_chunk *ch = &up->ch;
	git_tree *tree = NULL, *dir = NULL;
	tm_buf dname = TM_BUF_INIT;
	const git_tree_entry *e;
	const git_tree *in;
	const struct tm_stale_blob_version *ver;
	unsigned k, slots = f->np ? f->np : 1;
	size_t i, first;
	int error = 0;

	for (k = 0; k < slots; k++) {
		tm_strv *list = k ? &up->other : &up->changed;

		if ((error = slot_paths(up, td, f, k, list)) < 0)
			goto done;
		for (i = 0; i < up->skipped.n; i++)
			tm_stale__warn(up->how->warnings, "commit %.7s: %s",
				       git_oid_tostr_s(&f->oid),
				       up->skipped.items[i]);
		tm_strv_clear(&up->skipped);
		tm_stale__u32_push(&ch->dstart, ch->dpath.n);
		first = ch->dpath.n;
		for (i = 0; i < list->n; i++)
			tm_stale__u32_push(&ch->dpath,
					   path_id(up, list->items[i]));
		if (k)
			continue;
		for (i = 0; i < up->changed.n; i++) {
			const char *p = up->changed.items[i], *slash;
			size_t dlen;

			if (!tm_stale__thread_file_shape(p, strlen(p)))
				continue;
			if (!tree &&
			    git_tree_lookup(&tree, up->repo, &f->tree) < 0) {
				error = tm_git_error(TM_ERROR,
						     "cannot read tree %s",
						     git_oid_tostr_s(&f->tree));
				goto done;
			}
			slash = strrchr(p, '/');
			dlen = slash ? (size_t)(slash - p) : 0;
			in = folder_tree(&dir, &dname, up->repo, tree, p, dlen);
			e = in ? git_tree_entry_byname(in,
						       slash ? slash + 1 : p)
			       : NULL;
			if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
				ver = tm_stale__blob_version(
					up->blobs, up->repo,
					git_tree_entry_id(e),
					slash ? slash + 1 : p);
				tm_stale__u32_push(&ch->vpath,
						   ch->dpath.v[first + i]);
				tm_buf_put(&ch->vcommit, ver->review.id,
					   GIT_OID_RAWSZ);
				tm_buf_put(&ch->vident, &ver->ident, 8);
			}
		}
	}
done:
	git_tree_free(dir);
	git_tree_free(tree);
	tm_buf_release(&dname);
	return error;
}

/* Make the chunk a layer on top of ix, and empty it. */
static int chunk_flush(struct update *up)
{
	if (!up->ch.n)
		return 0;
	tm_hashmap_release(&up->paths); /* its numbers are all in ix now */
	return tm_stale__chunk_flush(&up->ch, up->ix, up->repo, &up->written,
				     &up->on_disk);
}

static int describe_all(struct update *up)
{
	size_t i, total = up->placed.n, ndone = 0;
	struct tm_stale_chunk *ch = &up->ch;
	const struct fresh *f;
	size_t known;
	tm_treediffer *td = NULL;
	uint32_t pos;
	unsigned k;
	int error = total ? tm_treediffer_new(&td, up->repo) : 0;

	if (up->ndescribe >= HEAP_HUGE_FROM)
		tm_heap_huge_pages();
	for (i = 0; !error && i < total; i++) {
		/* past the hooks' deadline: keep what is done (a layer),
		   so that the next run goes on from there */
		if (tm_deadline_passed()) {
			error = tm_error_set(TM_ETIMEOUT,
					     "time budget spent while "
					     "indexing the history");
			break;
		}
		f = &up->c[up->placed.v[i]];
		tm_buf_put(&ch->oids, f->oid.id, GIT_OID_RAWSZ);
		tm_buf_put(&ch->time, &f->time, 8);
		tm_stale__u32_push(&ch->pstart, ch->parent.n);
		for (k = 0; k < f->np; k++) {
			const git_oid *p = &up->poids[f->pfirst + k];

			known = fresh_lookup(up, p);
			if (known != TM_STALE_NONE) {
				pos = up->c[known].at;
			} else if (!tm_stale__cidx_find(up->ix, p, &pos)) {
				error = tm_error_set(TM_ERROR, "lost a parent");
				goto done;
			}
			tm_stale__u32_push(&ch->parent, pos);
		}
		tm_stale__u32_push(&ch->sstart, ch->dstart.n);
		tm_stale__u32_push(&ch->vstart, ch->vpath.n);
		ch->n++;
		if (f->stub)
			continue; /* no slot: a stub */
		if (up->how->progress && ndone % 64 == 0)
			up->how->progress(up->how->progress_data,
					  "indexing history", ndone,
					  up->ndescribe);
		if ((error = describe(up, td, f)) < 0)
			goto done;
		ndone++;
		if ((ch->n >= tm_stale__chunk_commits ||
		     ch->dpath.n >= CHUNK_DIFFS ||
		     ch->dstart.n >= CHUNK_DIFFS ||
		     ch->newpaths.n >= CHUNK_DIFFS)) {
			if ((error = chunk_flush(up)) < 0)
				goto done;
			/* what the heap grew by since */
			if (up->ndescribe >= HEAP_HUGE_FROM)
				tm_heap_huge_pages();
		}
	}
	if (!error)
		error = chunk_flush(up);
	else if (error == TM_ETIMEOUT && chunk_flush(up) == 0)
		tm_error_set(TM_ETIMEOUT,
			     "time budget spent while indexing the history");
done:
	tm_treediffer_free(td);
	if (error < 0)
		return error;
	if (up->how->progress && up->ndescribe)
		up->how->progress(up->how->progress_data, "indexing history",
				  up->ndescribe, up->ndescribe);
	return 0;
}

static void update_free(struct update *up)
{
	TM_FREE_ALL(up->c, up->poids, up->table, up->stack.v, up->placed.v);
	tm_stale__chunk_free(&up->ch);
	tm_hashmap_release(&up->paths);
	tm_stale__blobs_release(&up->own_blobs);
	tm_strv_clear(&up->changed);
	tm_strv_clear(&up->other);
	tm_strv_clear(&up->written);
	tm_strv_clear(&up->skipped);
}

void tm_stale__cidx_open(struct tm_stale_cidx *ix, git_repository *repo)
{
	tm_strv none = TM_STRV_INIT;

	tm_stale__cidx_load(ix, repo);
	if (ix->partial && ix->nlayers) {
		/* a damaged chain over sound layers: name them */
		tm_stale__chain_write(ix, repo);
		tm_stale__layers_expire(ix, repo, &none);
	}
}

int tm_stale__cidx_describe(struct tm_stale_cidx *ix, git_repository *repo,
			    const git_oid *oids, size_t n,
			    const struct tm_stale_describe *how)
{
	struct update up;
	tm_buf dir = TM_BUF_INIT;
	size_t mapped = 0, i;
	int error;

	memset(&up, 0, sizeof(up));
	up.ix = ix;
	up.repo = repo;
	up.how = how;
	up.blobs = how->blobs ? how->blobs : &up.own_blobs;
	up.first_new = ix->nlayers;
	if (git_libgit2_opts(GIT_OPT_GET_MWINDOW_MAPPED_LIMIT, &mapped) < 0 ||
	    mapped <= PACK_MAPPED)
		mapped = 0; /* as it is */
	else
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, PACK_MAPPED);
	error = collect(&up, oids, n);
	if (error == TM_ENOTFOUND)
		error = tm_error_set(TM_ERROR, "a commit to index is missing");
	if (error || !up.placed.n)
		goto done;
	for (i = 0; i < up.placed.n; i++)
		up.ndescribe += !up.c[up.placed.v[i]].stub;
	if ((uint64_t)ix->n + up.placed.n >= TM_STALE_CIDX_MAX) {
		error = tm_error_set(TM_ERROR, "history too long to index");
		goto done;
	}
	tm_buf_printf(&dir, "%sthreadmind", git_repository_commondir(repo));
	up.on_disk = mkdir(tm_buf_cstr(&dir), 0777) == 0 || errno == EEXIST;
	tm_buf_puts(&dir, "/commits");
	up.on_disk = up.on_disk &&
		     (mkdir(tm_buf_cstr(&dir), 0777) == 0 || errno == EEXIST);
	error = describe_all(&up);
	if (error)
		goto done;
	/* what the walk needs of the update is in ix now */
	TM_FREE_ALL(up.c, up.poids, up.table);
	up.c = NULL;
	up.poids = NULL;
	up.table = NULL;
	error = tm_stale__layers_merge(ix, repo, up.first_new, up.on_disk,
				       &up.written);
done:
	if (mapped)
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, mapped);
	update_free(&up);
	tm_buf_release(&dir);
	return error;
}
