/*
 * The per-commit staleness index (DESIGN.md section 11, "Staleness is
 * cached"): $GIT_COMMON_DIR/threadmind/commits.idx, never in the work tree.
 *
 * For every commit it has, what the staleness rules need of it, computed
 * once ever: its parents (as positions in the file), its committer time,
 * the paths its diff against each parent changes (one list per parent, or
 * one against the empty tree for a root or shallow commit), as numbers into
 * one table of paths, and the versions of thread files its first-parent
 * diff adds (path, and the review point `commit` that version names, or
 * none).  The set of commits is closed under "parent of" and stored parents
 * first, so that the walk from HEAD stops at the first commit the index
 * knows: one new commit on top costs one diff.  Rewritten history only
 * leaves unreachable entries behind (commits never change).
 *
 * File (native byte order; another order, another magic or version is a
 * foreign file): a 64-byte header with the counts, the key of the shallow
 * boundary it was built with and a checksum of the rest, then the arrays
 * (see the layout in cidx_parse), each padded to 8 bytes, ending with the
 * positions sorted by commit id for a binary search: loading is one read
 * and a check, no table to build.  Anything that does not check out (short,
 * long, bad checksum, an array out of order or out of range, another
 * shallow boundary) is ignored: the index is rebuilt from scratch.  It is
 * rewritten whole through tm_atomic_write_nosync (temp file, rename; no
 * fsync: after a crash the checksum tells a torn file), so that concurrent
 * writers each leave a complete file and the last one wins.
 */
#include "stale_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "git.h"
#include "git_internal.h"
#include "record.h"
#include "treediff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CIDX_MAGIC   "TMCIDX\0\1"
#define CIDX_ENDIAN  0x01020304u
#define CIDX_VERSION 1u
#define CIDX_HEADER  64
#define CIDX_MAX     ((uint64_t)UINT32_MAX - 2)

/* ---- reading ---- */

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

struct cursor {
	unsigned char *p;
	size_t left;
	bool bad;
};

static void *take(struct cursor *c, uint64_t count, size_t size)
{
	void *at = c->p;
	uint64_t len;

	if (c->bad || count > SIZE_MAX / 8 / (size ? size : 1)) {
		c->bad = true;
		return NULL;
	}
	len = pad8((size_t)count * size);
	if (len > c->left) {
		c->bad = true;
		return NULL;
	}
	c->p += len;
	c->left -= (size_t)len;
	return at;
}

/* starts[0..n] rises from 0 to `total`. */
static bool starts_ok(const uint32_t *s, uint32_t n, uint32_t total)
{
	uint32_t i;

	if (s[0] != 0 || s[n] != total)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] > s[i + 1])
			return false;
	return true;
}

static bool all_below(const uint32_t *v, uint32_t n, uint32_t limit)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (v[i] >= limit)
			return false;
	return true;
}

/* Point ix's arrays into ix->data (ix->size bytes); false when it is not a
 * sound index. */
static bool cidx_parse(struct cidx *ix, uint64_t shallow_key, bool check)
{
	struct cursor c;
	uint32_t h[10], i, k;
	uint64_t key, sum;

	if (ix->size < CIDX_HEADER || memcmp(ix->data, CIDX_MAGIC, 8))
		return false;
	memcpy(h, ix->data + 8, sizeof(h));
	memcpy(&key, ix->data + 48, 8);
	memcpy(&sum, ix->data + 56, 8);
	if (h[0] != CIDX_ENDIAN || h[1] != CIDX_VERSION || key != shallow_key ||
	    (check && sum != tm_record_sum(ix->data + CIDX_HEADER,
					   ix->size - CIDX_HEADER)))
		return false;
	ix->n = h[2];
	ix->nparent = h[3];
	ix->nslot = h[4];
	ix->ndiff = h[5];
	ix->nver = h[6];
	ix->npaths = h[7];
	ix->pathbytes = h[8];
	c.p = ix->data + CIDX_HEADER;
	c.left = ix->size - CIDX_HEADER;
	c.bad = false;
	ix->oids = take(&c, ix->n, GIT_OID_RAWSZ);
	ix->time = take(&c, ix->n, sizeof(int64_t));
	ix->pstart = take(&c, (uint64_t)ix->n + 1, 4);
	ix->parent = take(&c, ix->nparent, 4);
	ix->sstart = take(&c, (uint64_t)ix->n + 1, 4);
	ix->dstart = take(&c, (uint64_t)ix->nslot + 1, 4);
	ix->dpath = take(&c, ix->ndiff, 4);
	ix->vstart = take(&c, (uint64_t)ix->n + 1, 4);
	ix->vpath = take(&c, ix->nver, 4);
	ix->vcommit = take(&c, ix->nver, GIT_OID_RAWSZ);
	ix->order = take(&c, ix->n, 4);
	ix->poff = take(&c, (uint64_t)ix->npaths + 1, 4);
	ix->pbytes = take(&c, ix->pathbytes, 1);
	if (c.bad || c.left)
		return false;
	if (!check)
		return true; /* our own image, just written */
	if (!starts_ok(ix->pstart, ix->n, ix->nparent) ||
	    !starts_ok(ix->sstart, ix->n, ix->nslot) ||
	    !starts_ok(ix->dstart, ix->nslot, ix->ndiff) ||
	    !starts_ok(ix->vstart, ix->n, ix->nver) ||
	    !starts_ok(ix->poff, ix->npaths, ix->pathbytes) ||
	    !all_below(ix->dpath, ix->ndiff, ix->npaths) ||
	    !all_below(ix->vpath, ix->nver, ix->npaths) ||
	    !all_below(ix->order, ix->n, ix->n))
		return false;
	for (i = 0; i < ix->n; i++) {
		k = ix->pstart[i + 1] - ix->pstart[i];
		/* parents first; one slot per parent, or one for a root */
		if (ix->sstart[i + 1] - ix->sstart[i] != (k ? k : 1))
			return false;
		for (k = ix->pstart[i]; k < ix->pstart[i + 1]; k++)
			if (ix->parent[k] >= i)
				return false;
		if (i && memcmp(ix->oids + (size_t)ix->order[i - 1] * 20,
				ix->oids + (size_t)ix->order[i] * 20, 20) >= 0)
			return false;
	}
	for (i = 0; i < ix->npaths; i++)
		if (ix->poff[i + 1] == ix->poff[i] ||
		    ix->pbytes[ix->poff[i + 1] - 1] != '\0')
			return false;
	return true;
}

void tm_stale__cidx_free(struct cidx *ix)
{
	if (!ix)
		return;
	free(ix->data);
	tm_hashmap_release(&ix->path_map);
	memset(ix, 0, sizeof(*ix));
}

static char *cidx_path(git_repository *repo)
{
	tm_buf p = TM_BUF_INIT;

	tm_buf_printf(&p, "%sthreadmind/commits.idx",
		      git_repository_commondir(repo));
	return tm_buf_detach(&p);
}

/* What the shallow boundary is ($GIT_COMMON_DIR/shallow), as a number. */
static uint64_t shallow_key(git_repository *repo)
{
	tm_buf path = TM_BUF_INIT, data = TM_BUF_INIT;
	char chunk[4096];
	size_t got;
	uint64_t key = 0;
	FILE *f;

	tm_buf_printf(&path, "%sshallow", git_repository_commondir(repo));
	f = fopen(tm_buf_cstr(&path), "rbe");
	if (f) {
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
			tm_buf_put(&data, chunk, got);
		fclose(f);
		key = tm_hash_bytes(data.ptr, data.size) ^ (data.size + 1);
		key += !key;
	}
	tm_buf_release(&path);
	tm_buf_release(&data);
	return key;
}

/* The index file into ix (empty when there is none or it is unsound). */
static void cidx_load(struct cidx *ix, git_repository *repo)
{
	char *path = cidx_path(repo);
	struct stat st;
	ssize_t got;
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(ix, 0, sizeof(*ix));
	ix->shallow_key = shallow_key(repo);
	free(path);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= CIDX_HEADER && (uint64_t)st.st_size < SIZE_MAX / 2) {
		ix->size = (size_t)st.st_size;
		ix->data = tm_xmalloc(ix->size + 8);
		while (done < ix->size) {
			got = read(fd, ix->data + done, ix->size - done);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;
			done += (size_t)got;
		}
	}
	close(fd);
	if (!ix->data || done != ix->size ||
	    !cidx_parse(ix, ix->shallow_key, true)) {
		uint64_t key = ix->shallow_key;

		free(ix->data);
		memset(ix, 0, sizeof(*ix));
		ix->shallow_key = key;
	}
}

bool tm_stale__cidx_find(const struct cidx *ix, const git_oid *oid,
			 uint32_t *out)
{
	size_t lo = 0, hi = ix->n, mid;
	int cmp;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		cmp = memcmp(ix->oids + (size_t)ix->order[mid] * 20, oid->id,
			     20);
		if (!cmp) {
			*out = ix->order[mid];
			return true;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

const char *tm_stale__cidx_name(const struct cidx *ix, uint32_t path)
{
	return ix->pbytes + ix->poff[path];
}

/* ---- adding the commits of HEAD's history it does not have ---- */

struct fresh {
	git_oid oid, tree;
	int64_t time;
	size_t pfirst; /* its parents in up.poids */
	unsigned np;
	uint32_t at; /* its position in the new file (parents first) */
	bool done;   /* its parents are all placed */
};

struct update {
	struct cidx *ix;
	git_repository *repo;
	struct fresh *c;
	size_t n, alloc;
	git_oid *poids;
	size_t npoids, poids_alloc;
	tm_hashmap map; /* oid -> index in c */
	struct sizev stack;
	struct sizev placed; /* c's indexes, parents first */
	/* the new entries, in `placed` order */
	uint32_t *parent, *sstart, *dstart, *dpath, *vstart, *vpath;
	size_t nparent, nslot, ndiff, nver, ns, nv;
	size_t parent_alloc, slot_alloc, diff_alloc, ver_alloc, s_alloc,
		v_alloc;
	unsigned char *voids;
	size_t voids_alloc;
	tm_strv newpaths;
	tm_hashmap blobs; /* blob id -> 1 + index in blob_commit */
	git_oid *blob_commit;
	size_t nblob, blob_alloc;
	tm_strv changed;
	tm_progress_fn progress;
	void *progress_data;
};

static void push_u32(uint32_t **v, size_t *n, size_t *alloc, size_t x)
{
	tm_xgrow((void **)v, alloc, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (uint32_t)x;
}

/* Load commit `oid` into up->c (when new); its index into *out, or
 * NONE when the index already has it.  TM_ENOTFOUND: no such commit. */
static int fresh_get(struct update *up, const git_oid *oid, size_t *out)
{
	git_commit *c = NULL;
	struct fresh *f;
	const size_t *known;
	uint32_t pos;
	unsigned k;
	int error;

	if (tm_stale__cidx_find(up->ix, oid, &pos)) {
		*out = NONE;
		return 0;
	}
	known = tm_hashmap_get(&up->map, oid->id, GIT_OID_RAWSZ);
	if (known) {
		*out = *known;
		return 0;
	}
	error = git_commit_lookup(&c, up->repo, oid);
	if (error == GIT_ENOTFOUND) {
		tm_error_clear();
		return TM_ENOTFOUND;
	}
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot read commit %s",
				    git_oid_tostr_s(oid));
	tm_xgrow((void **)&up->c, &up->alloc, up->n + 1, sizeof(*up->c));
	f = &up->c[up->n];
	memset(f, 0, sizeof(*f));
	git_oid_cpy(&f->oid, oid);
	git_oid_cpy(&f->tree, git_commit_tree_id(c));
	f->time = (int64_t)git_commit_time(c);
	f->np = git_commit_parentcount(c);
	f->pfirst = up->npoids;
	tm_xgrow((void **)&up->poids, &up->poids_alloc, up->npoids + f->np,
		 sizeof(git_oid));
	for (k = 0; k < f->np; k++)
		git_oid_cpy(&up->poids[up->npoids++],
			    git_commit_parent_id(c, k));
	git_commit_free(c);
	tm_hashmap_put(&up->map, up->c[up->n].oid.id, GIT_OID_RAWSZ, up->n);
	*out = up->n++;
	return 0;
}

/* Every commit of HEAD's history the index lacks, parents first. */
static int collect(struct update *up, const git_oid *head,
		   const git_oid *shallow, size_t nshallow)
{
	size_t i, p;
	unsigned k;
	int error = fresh_get(up, head, &i);

	if (error < 0 || i == NONE)
		return error;
	if (tm_stale__shallow_has(shallow, nshallow, &up->c[i].oid))
		up->c[i].np = 0;
	sizev_push(&up->stack, i);
	while (up->stack.n) {
		i = up->stack.v[up->stack.n - 1];
		if (up->c[i].done) {
			up->stack.n--;
			continue;
		}
		for (k = 0; k < up->c[i].np; k++) {
			error = fresh_get(up, &up->poids[up->c[i].pfirst + k],
					  &p);
			if (error < 0)
				return error; /* missing, not shallow */
			if (p == NONE || up->c[p].done)
				continue;
			if (tm_stale__shallow_has(shallow, nshallow,
						  &up->c[p].oid))
				up->c[p].np = 0;
			sizev_push(&up->stack, p);
			break;
		}
		if (k < up->c[i].np)
			continue;
		up->c[i].done = true;
		up->c[i].at = (uint32_t)(up->ix->n + up->placed.n);
		sizev_push(&up->placed, i);
		up->stack.n--;
		if (up->progress && up->placed.n % 1024 == 0)
			up->progress(up->progress_data, "counting commits",
				     up->placed.n, 0);
	}
	return 0;
}

/* The number of path `name`, old or new. */
static uint32_t path_id(struct update *up, const char *name)
{
	struct cidx *ix = up->ix;
	size_t *at;
	uint32_t i;

	if (!ix->path_map_ready) {
		for (i = 0; i < ix->npaths; i++)
			tm_hashmap_puts(&ix->path_map,
					tm_stale__cidx_name(ix, i), i);
		ix->path_map_ready = true;
	}
	at = tm_hashmap_puts(&ix->path_map, name, ix->npaths + up->newpaths.n);
	if (*at == ix->npaths + up->newpaths.n)
		tm_strv_push(&up->newpaths, name);
	return (uint32_t)*at;
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

/* The review point that blob `id` names as its `commit` (zero: none). */
static void review_of(struct update *up, const git_oid *id, git_oid *out)
{
	size_t *at = tm_hashmap_put(&up->blobs, id->id, GIT_OID_RAWSZ, 0);
	git_blob *blob = NULL;
	tm_thread *v = NULL;

	if (*at) {
		git_oid_cpy(out, &up->blob_commit[*at - 1]);
		return;
	}
	memset(out, 0, sizeof(*out));
	if (git_blob_lookup(&blob, up->repo, id) == 0 &&
	    tm_frontmatter_parse(&v, git_blob_rawcontent(blob),
				 (size_t)git_blob_rawsize(blob), "x",
				 "(history)") == 0 &&
	    v->commit && tm_git_is_hex_oid(v->commit, strlen(v->commit)) &&
	    git_oid_fromstr(out, v->commit) == 0 && git_oid_is_zero(out))
		memset(out, 0, sizeof(*out));
	tm_error_clear();
	tm_thread_free(v);
	git_blob_free(blob);
	tm_xgrow((void **)&up->blob_commit, &up->blob_alloc, up->nblob + 1,
		 sizeof(git_oid));
	git_oid_cpy(&up->blob_commit[up->nblob++], out);
	*at = up->nblob;
}

/* The tree of parent k of fresh commit f. */
static int parent_tree(struct update *up, const struct fresh *f, unsigned k,
		       git_oid *out)
{
	const git_oid *oid = &up->poids[f->pfirst + k];
	const size_t *known = tm_hashmap_get(&up->map, oid->id, GIT_OID_RAWSZ);
	git_commit *c = NULL;

	if (known) {
		git_oid_cpy(out, &up->c[*known].tree);
		return 0;
	}
	if (git_commit_lookup(&c, up->repo, oid) < 0)
		return tm_git_error(TM_ERROR, "cannot read commit %s",
				    git_oid_tostr_s(oid));
	git_oid_cpy(out, git_commit_tree_id(c));
	git_commit_free(c);
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

/* Fresh commit f's diffs, one per parent (through differ `td`), and its
 * thread file versions. */
static int describe(struct update *up, tm_treediffer *td, const struct fresh *f)
{
	git_tree *tree = NULL, *dir = NULL;
	tm_buf dname = TM_BUF_INIT;
	const git_tree_entry *e;
	const git_tree *in;
	git_oid old, rev;
	unsigned k, slots = f->np ? f->np : 1;
	size_t i;
	uint32_t pos;
	int error = 0;

	for (k = 0; k < slots; k++) {
		if (f->np && (error = parent_tree(up, f, k, &old)) < 0)
			goto done;
		tm_strv_clear(&up->changed);
		error = tm_treediffer_diff(&up->changed, td,
					   f->np ? &old : NULL, &f->tree);
		if (error < 0)
			goto done;
		push_u32(&up->dstart, &up->nslot, &up->slot_alloc, up->ndiff);
		for (i = 0; i < up->changed.n; i++)
			push_u32(&up->dpath, &up->ndiff, &up->diff_alloc,
				 path_id(up, up->changed.items[i]));
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
				review_of(up, git_tree_entry_id(e), &rev);
				pos = up->ndiff - up->changed.n + (uint32_t)i;
				push_u32(&up->vpath, &up->nver, &up->ver_alloc,
					 up->dpath[pos]);
				tm_xgrow((void **)&up->voids, &up->voids_alloc,
					 up->nver * GIT_OID_RAWSZ, 1);
				memcpy(up->voids +
					       (up->nver - 1) * GIT_OID_RAWSZ,
				       rev.id, GIT_OID_RAWSZ);
			}
		}
	}
done:
	git_tree_free(dir);
	git_tree_free(tree);
	tm_buf_release(&dname);
	return error;
}

static int describe_all(struct update *up)
{
	size_t i, total = up->placed.n;
	const struct fresh *f;
	const size_t *known;
	tm_treediffer *td = NULL;
	uint32_t pos;
	unsigned k;
	int error = total ? tm_treediffer_new(&td, up->repo) : 0;

	for (i = 0; !error && i < total; i++) {
		f = &up->c[up->placed.v[i]];
		for (k = 0; k < f->np; k++) {
			const git_oid *p = &up->poids[f->pfirst + k];

			known = tm_hashmap_get(&up->map, p->id, GIT_OID_RAWSZ);
			if (known)
				pos = up->c[*known].at;
			else if (!tm_stale__cidx_find(up->ix, p, &pos)) {
				tm_treediffer_free(td);
				return tm_error_set(TM_ERROR, "lost a parent");
			}
			push_u32(&up->parent, &up->nparent, &up->parent_alloc,
				 pos);
		}
		push_u32(&up->sstart, &up->ns, &up->s_alloc,
			 up->ix->nslot + up->nslot);
		push_u32(&up->vstart, &up->nv, &up->v_alloc,
			 up->ix->nver + up->nver);
		if (up->progress && i % 256 == 0)
			up->progress(up->progress_data, "indexing history", i,
				     total);
		error = describe(up, td, f);
	}
	tm_treediffer_free(td);
	if (error < 0)
		return error;
	if (up->progress && total)
		up->progress(up->progress_data, "indexing history", total,
			     total);
	return 0;
}

/* ---- writing ---- */

static void put_pad(tm_buf *b)
{
	static const char zero[8];

	tm_buf_put(b, zero, pad8(b->size) - b->size);
}

static void put_u32s(tm_buf *b, const uint32_t *v, size_t n)
{
	tm_buf_put(b, v, n * 4);
}

/* starts: the old ones (n of them, without the end), then the new ones
 * (already absolute), then the end. */
static void put_starts(tm_buf *b, const uint32_t *old, size_t nold,
		       const uint32_t *add, size_t nadd, size_t end)
{
	uint32_t e = (uint32_t)end;

	put_u32s(b, old, nold);
	put_u32s(b, add, nadd);
	put_u32s(b, &e, 1);
	put_pad(b);
}

static const struct update *sort_up;

static int fresh_oid_cmp(const void *a, const void *b)
{
	const struct fresh *x = &sort_up->c[*(const size_t *)a];
	const struct fresh *y = &sort_up->c[*(const size_t *)b];

	return memcmp(x->oid.id, y->oid.id, GIT_OID_RAWSZ);
}

/* The whole new file, old entries then new ones, into *out. */
static void cidx_image(tm_buf *out, const struct update *up)
{
	const struct cidx *ix = up->ix;
	size_t n = ix->n + up->placed.n, i, j, k, pb = ix->pathbytes;
	uint32_t h[10] = {CIDX_ENDIAN, CIDX_VERSION};
	size_t *sorted = tm_xcalloc(up->placed.n + 1, sizeof(size_t));
	uint64_t sum;
	const struct fresh *f;

	h[2] = (uint32_t)n;
	h[3] = (uint32_t)(ix->nparent + up->nparent);
	h[4] = (uint32_t)(ix->nslot + up->nslot);
	h[5] = (uint32_t)(ix->ndiff + up->ndiff);
	h[6] = (uint32_t)(ix->nver + up->nver);
	h[7] = (uint32_t)(ix->npaths + up->newpaths.n);
	for (i = 0; i < up->newpaths.n; i++)
		pb += strlen(up->newpaths.items[i]) + 1;
	h[8] = (uint32_t)pb;
	tm_buf_put(out, CIDX_MAGIC, 8);
	tm_buf_put(out, h, sizeof(h));
	tm_buf_put(out, &ix->shallow_key, 8);
	tm_buf_put(out, "\0\0\0\0\0\0\0\0", 8); /* the checksum, below */

	tm_buf_put(out, ix->oids, (size_t)ix->n * 20);
	for (i = 0; i < up->placed.n; i++)
		tm_buf_put(out, up->c[up->placed.v[i]].oid.id, 20);
	put_pad(out);
	tm_buf_put(out, ix->time, (size_t)ix->n * 8);
	for (i = 0; i < up->placed.n; i++)
		tm_buf_put(out, &up->c[up->placed.v[i]].time, 8);
	put_pad(out);
	/* pstart of the new ones: running sums of their parent counts */
	put_u32s(out, ix->pstart, ix->n);
	for (i = 0, k = ix->nparent; i < up->placed.n; i++) {
		uint32_t v = (uint32_t)k;

		put_u32s(out, &v, 1);
		k += up->c[up->placed.v[i]].np;
	}
	put_starts(out, NULL, 0, NULL, 0, k);
	put_u32s(out, ix->parent, ix->nparent);
	put_u32s(out, up->parent, up->nparent);
	put_pad(out);
	put_starts(out, ix->sstart, ix->n, up->sstart, up->ns,
		   ix->nslot + up->nslot);
	put_u32s(out, ix->dstart, ix->nslot);
	for (i = 0; i < up->nslot; i++) {
		uint32_t v = (uint32_t)(ix->ndiff + up->dstart[i]);

		put_u32s(out, &v, 1);
	}
	put_starts(out, NULL, 0, NULL, 0, ix->ndiff + up->ndiff);
	put_u32s(out, ix->dpath, ix->ndiff);
	put_u32s(out, up->dpath, up->ndiff);
	put_pad(out);
	put_starts(out, ix->vstart, ix->n, up->vstart, up->nv,
		   ix->nver + up->nver);
	put_u32s(out, ix->vpath, ix->nver);
	put_u32s(out, up->vpath, up->nver);
	put_pad(out);
	tm_buf_put(out, ix->vcommit, (size_t)ix->nver * 20);
	tm_buf_put(out, up->voids, up->nver * 20);
	put_pad(out);
	/* order: the old sorted positions merged with the new ones */
	for (i = 0; i < up->placed.n; i++)
		sorted[i] = up->placed.v[i];
	sort_up = up;
	if (up->placed.n)
		qsort(sorted, up->placed.n, sizeof(size_t), fresh_oid_cmp);
	for (i = j = 0; i < ix->n || j < up->placed.n;) {
		uint32_t v;

		f = j < up->placed.n ? &up->c[sorted[j]] : NULL;
		if (i < ix->n &&
		    (!f || memcmp(ix->oids + (size_t)ix->order[i] * 20,
				  f->oid.id, 20) < 0))
			v = ix->order[i++];
		else
			v = up->c[sorted[j++]].at;
		put_u32s(out, &v, 1);
	}
	put_pad(out);
	put_u32s(out, ix->poff, ix->npaths);
	for (i = 0, k = ix->pathbytes; i < up->newpaths.n; i++) {
		uint32_t v = (uint32_t)k;

		put_u32s(out, &v, 1);
		k += strlen(up->newpaths.items[i]) + 1;
	}
	put_starts(out, NULL, 0, NULL, 0, k);
	tm_buf_put(out, ix->pbytes, ix->pathbytes);
	for (i = 0; i < up->newpaths.n; i++)
		tm_buf_put(out, up->newpaths.items[i],
			   strlen(up->newpaths.items[i]) + 1);
	put_pad(out);
	sum = tm_record_sum((const unsigned char *)out->ptr + CIDX_HEADER,
			    out->size - CIDX_HEADER);
	memcpy(out->ptr + 56, &sum, 8);
	free(sorted);
}

static void update_free(struct update *up)
{
	free(up->c);
	free(up->poids);
	tm_hashmap_release(&up->map);
	free(up->stack.v);
	free(up->placed.v);
	free(up->parent);
	free(up->sstart);
	free(up->dstart);
	free(up->dpath);
	free(up->vstart);
	free(up->vpath);
	free(up->voids);
	tm_strv_clear(&up->newpaths);
	tm_hashmap_release(&up->blobs);
	free(up->blob_commit);
	tm_strv_clear(&up->changed);
}

int tm_stale__cidx_open(struct cidx *ix, git_repository *repo,
			const git_oid *shallow, size_t nshallow,
			tm_progress_fn progress, void *progress_data)
{
	struct update up;
	tm_buf image = TM_BUF_INIT, dir = TM_BUF_INIT;
	git_oid head;
	char *path;
	int error;

	cidx_load(ix, repo);
	if (git_reference_name_to_id(&head, repo, "HEAD") < 0) {
		tm_error_clear();
		return 0; /* unborn: nothing to add */
	}
	memset(&up, 0, sizeof(up));
	up.ix = ix;
	up.repo = repo;
	up.progress = progress;
	up.progress_data = progress_data;
	error = collect(&up, &head, shallow, nshallow);
	if (!error && !up.placed.n)
		goto done;
	if (!error && (ix->n + up.placed.n >= CIDX_MAX ||
		       ix->nparent + up.npoids >= CIDX_MAX))
		error = tm_error_set(TM_ERROR, "history too long to index");
	if (!error)
		error = describe_all(&up);
	if (!error && (ix->ndiff + up.ndiff >= CIDX_MAX ||
		       ix->nslot + up.nslot >= CIDX_MAX))
		error = tm_error_set(TM_ERROR, "history too long to index");
	if (error)
		goto done;
	cidx_image(&image, &up);
	path = cidx_path(repo);
	tm_buf_printf(&dir, "%sthreadmind", git_repository_commondir(repo));
	if (mkdir(tm_buf_cstr(&dir), 0777) == 0 || errno == EEXIST)
		(void)tm_atomic_write_nosync(path, image.ptr, image.size);
	tm_error_clear(); /* an index that cannot be written is no error */
	free(path);
	tm_buf_release(&dir);
	{
		uint64_t key = ix->shallow_key;

		tm_stale__cidx_free(ix);
		ix->shallow_key = key;
		ix->size = image.size;
		ix->data = (unsigned char *)tm_buf_detach(&image);
		if (!cidx_parse(ix, key, false))
			error = tm_error_set(TM_ERROR, "index image unsound");
	}
done:
	update_free(&up);
	tm_buf_release(&image);
	return error;
}
