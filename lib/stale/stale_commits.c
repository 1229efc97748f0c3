/*
 * The per-commit staleness index (DESIGN.md section 11, "Staleness is
 * cached"): $GIT_COMMON_DIR/threadmind/commits/, never in the work tree.
 *
 * For every commit it describes, what the staleness rules need of it,
 * computed once ever: its parents (as positions in the index), its
 * committer time, the paths its diff against each parent changes (one list
 * per parent, or one against the empty tree for a root or shallow commit),
 * as numbers into one table of paths, and the versions of thread files its
 * first-parent diff adds (path, the `commit` that version names, or none,
 * and its identity, createdAt and author hashed: tm_stale__identity).
 * Rewritten history only leaves unreachable entries behind (commits never
 * change).
 *
 * Only the commits a computation needs are described (issue 20): those of
 * phase 2 (from HEAD, not reachable from every review point: stale.c),
 * which the walk of phase 1 finds reading the parents of the commits the
 * index lacks from git; and the line of new commits that advance() carries
 * an answer over.  A parent of a described commit that the index lacks is
 * a stub (its oid and time; no parent, no diff slot), so that the set is
 * closed under "parent of" and stored parents first all the same.  When a
 * later run needs more (an older review point: a thread committed later,
 * or a teammate's arriving by a merge), it describes those commits then, a
 * stub included, in a new layer: the description of a commit is found by
 * its oid over its stub (tm_stale__cidx_find, tm_stale__cidx_resolve), and
 * is kept.  On git/git (81,966 commits, 21,215 merges), 300 threads
 * reviewed within the last 300 first-parent commits: the first `status`
 * describes 1,2xx commits, 0.43 s and 98 MiB, against 7.5 s and 364 MiB
 * when it described the whole history (`git log --format=%H --name-only`
 * over the range: 0.35 s).
 *
 * In layers, as git's split commit-graph: a file `chain` names the layer
 * files `layer-<id>.idx` bottom first (<id>: the layer's checksum, 16 hex
 * digits); each layer's positions and path numbers continue those of the
 * layers below it, and its header names the layer below (its id), the
 * first position and path number it holds and the shallow boundary it was
 * built with.  New commits go into a new layer on top (a first build
 * writes one every CHUNK_COMMITS commits, so that what it holds in memory
 * stays bounded, and an interrupted one resumes from the last); then the
 * layers written are merged with the ones below while those are no more
 * than twice their size (git's --split size factor 2), so that there are
 * O(log n) layers and a new commit costs O(new commits) writing.
 *
 * Layer file (native byte order; another order, another magic or version
 * is a foreign file; version 3 has stubs, version 2 is rebuilt): an 80-byte
 * header (magic, checksum of the rest, the counts, first position and path
 * number, shallow key, id of the layer below), then the arrays (see
 * layer_parse), each padded to 8 bytes, the positions sorted by commit id and
 * the paths sorted by name last for binary searches.  Loading maps each file
 * (mmap) and checks it: checksum and ranges, no table built.  A layer of
 * STAMP_MIN bytes or more is checked whole once: then its stat data goes into
 * the file `checked` (after an fsync of the layer, so that what was checked is
 * what a crash leaves), and a later load that finds the same stat data there,
 * the layer changed before `checked` was written (git's racy rule: its ctime
 * before the file's mtime), skips its checksum and its order checks, so
 * that one new commit on top of a large index does not hash the whole
 * index again; the range checks of every offset, position and path
 * number run on every load all the same (issue 24: a forged layer with a
 * matching stamp was read out of bounds).  Any change to a layer changes
 * its ctime.  The chain is read up
 * to the first layer that is missing, does not check out, or does not continue
 * the one below: the layers below it are kept, the rest rebuilt.  Every file is
 * written through tm_atomic_write_nosync (temp file, rename; no fsync: after a
 * crash the checksum tells a torn file): concurrent writers each leave
 * complete layers and a complete chain, and readers see one chain or the
 * other.  A writer removes the layers it merged away (a reader that read
 * the old chain and finds one gone keeps the layers below it and rebuilds
 * the rest) and those no chain names once they are a minute old (another
 * writer's, which may still be naming them).
 */
#include "stale_internal.h"
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

#define LAYER_MAGIC   "TMCIDXL\1"
#define LAYER_ENDIAN  0x01020304u
#define LAYER_VERSION 3u /* 2: the versions' identities; 3: stubs */
#define LAYER_HEADER  80
#define CHAIN_MAGIC   "threadmind commits chain 1\n"
#define CIDX_MAX      ((uint64_t)UINT32_MAX - 2)
/* A first build writes a layer every so many commits (or diff entries). */
#define CHUNK_COMMITS 65536
#define CHUNK_DIFFS   (4u << 20)
/* Merge the layer below while it holds at most FACTOR times the commits
 * of the layers above it. */
#define FACTOR 2
/* What libgit2 may keep mapped of the pack files while the index is built
 * (its default is 8 GiB: a walk over a history maps every pack, whole). */
#define PACK_MAPPED ((size_t)64 << 20)
/* A layer no chain names is removed once it is this old (seconds). */
#define EXPIRE 60
/* Layers this large are checked whole once, then trusted while their stat
 * data is what `checked` holds (smaller ones cost little to check). */
#define STAMP_MIN    ((uint64_t)1 << 20)
#define STAMP_MAGIC  "TMCIDXOK"
#define STAMP_FIELDS 6 /* id, dev, ino, size, mtime ns, ctime ns */

uint32_t tm_stale__chunk_commits = CHUNK_COMMITS;
unsigned long tm_stale__layer_checks;
uint64_t tm_stale__stamp_min = STAMP_MIN;

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

static const char *layer_name(const struct cidx_layer *l, uint32_t p)
{
	return l->pbytes + l->poff[p];
}

/* How much layer_parse checks. */
enum layer_check {
	CHECK_NONE,   /* our own image in memory, just made: header, sizes */
	CHECK_BOUNDS, /* + every offset, position and path number in range:
			 on every load of a file, stamped or not */
	CHECK_WHOLE   /* + the checksum and the sort orders */
};

/*
 * Point l's arrays into l->data (l->size bytes); false when it is not a
 * sound layer whose positions start at `base`, path numbers at `pbase`,
 * on top of layer `below`, for shallow boundary `key`, as far as `check`
 * looks.  A stamp (the file `checked`) saves only CHECK_WHOLE's re-hashing
 * and order checks: whatever a file holds, the readers (the cidx_*
 * accessors, the binary searches) never leave it.
 */
static bool layer_parse(struct cidx_layer *l, uint32_t base, uint32_t pbase,
			uint64_t below, uint64_t key, enum layer_check check)
{
	struct cursor c;
	uint32_t h[12], i, k, top;
	uint64_t lkey, sum;

	if (l->size < LAYER_HEADER || memcmp(l->data, LAYER_MAGIC, 8))
		return false;
	memcpy(&sum, l->data + 8, 8);
	memcpy(h, l->data + 16, sizeof(h));
	memcpy(&lkey, l->data + 64, 8);
	memcpy(&l->below, l->data + 72, 8);
	if (h[0] != LAYER_ENDIAN || h[1] != LAYER_VERSION || lkey != key ||
	    l->below != below || h[9] != base || h[10] != pbase)
		return false;
	l->id = sum;
	l->n = h[2];
	l->nparent = h[3];
	l->nslot = h[4];
	l->ndiff = h[5];
	l->nver = h[6];
	l->npaths = h[7];
	l->pathbytes = h[8];
	l->base = base;
	l->pbase = pbase;
	if (!l->n || (uint64_t)base + l->n >= CIDX_MAX ||
	    (uint64_t)pbase + l->npaths >= CIDX_MAX)
		return false;
	c.p = l->data + LAYER_HEADER;
	c.left = l->size - LAYER_HEADER;
	c.bad = false;
	l->oids = take(&c, l->n, GIT_OID_RAWSZ);
	l->time = take(&c, l->n, sizeof(int64_t));
	l->pstart = take(&c, (uint64_t)l->n + 1, 4);
	l->parent = take(&c, l->nparent, 4);
	l->sstart = take(&c, (uint64_t)l->n + 1, 4);
	l->dstart = take(&c, (uint64_t)l->nslot + 1, 4);
	l->dpath = take(&c, l->ndiff, 4);
	l->vstart = take(&c, (uint64_t)l->n + 1, 4);
	l->vpath = take(&c, l->nver, 4);
	l->vcommit = take(&c, l->nver, GIT_OID_RAWSZ);
	l->vident = take(&c, l->nver, 8);
	l->order = take(&c, l->n, 4);
	l->poff = take(&c, (uint64_t)l->npaths + 1, 4);
	l->pbytes = take(&c, l->pathbytes, 1);
	l->psorted = take(&c, l->npaths, 4);
	if (c.bad || c.left)
		return false;
	if (check == CHECK_NONE)
		return true;
	if (check == CHECK_WHOLE &&
	    sum != tm_record_sum(l->data + 16, l->size - 16))
		return false;
	top = pbase + l->npaths;
	if (!starts_ok(l->pstart, l->n, l->nparent) ||
	    !starts_ok(l->sstart, l->n, l->nslot) ||
	    !starts_ok(l->dstart, l->nslot, l->ndiff) ||
	    !starts_ok(l->vstart, l->n, l->nver) ||
	    !starts_ok(l->poff, l->npaths, l->pathbytes) ||
	    !all_below(l->dpath, l->ndiff, top) ||
	    !all_below(l->vpath, l->nver, top) ||
	    !all_below(l->order, l->n, l->n) ||
	    !all_below(l->psorted, l->npaths, l->npaths))
		return false;
	for (i = 0; i < l->n; i++) {
		k = l->pstart[i + 1] - l->pstart[i];
		/* parents first; one slot per parent, or one for a root;
		   a stub has neither */
		if (l->sstart[i + 1] - l->sstart[i] != (k ? k : 1) &&
		    (k || l->sstart[i + 1] != l->sstart[i]))
			return false;
		for (k = l->pstart[i]; k < l->pstart[i + 1]; k++)
			if (l->parent[k] >= base + i)
				return false;
		if (check == CHECK_WHOLE && i &&
		    memcmp(l->oids + (size_t)l->order[i - 1] * 20,
			   l->oids + (size_t)l->order[i] * 20, 20) > 0)
			return false; /* a stub and its description: equal */
	}
	for (i = 0; i < l->npaths; i++)
		if (l->poff[i + 1] == l->poff[i] ||
		    l->pbytes[l->poff[i + 1] - 1] != '\0')
			return false;
	for (i = 1; check == CHECK_WHOLE && i < l->npaths; i++)
		if (strcmp(layer_name(l, l->psorted[i - 1]),
			   layer_name(l, l->psorted[i])) >= 0)
			return false;
	return true;
}

static void layer_release(struct cidx_layer *l)
{
	if (l->mapped)
		munmap(l->data, l->size);
	else
		free(l->data);
	memset(l, 0, sizeof(*l));
}

void tm_stale__cidx_free(struct cidx *ix)
{
	size_t i;

	if (!ix)
		return;
	for (i = 0; i < ix->nlayers; i++)
		layer_release(&ix->layers[i]);
	free(ix->layers);
	tm_strv_clear(&ix->dropped);
	memset(ix, 0, sizeof(*ix));
}

/* $GIT_COMMON_DIR/threadmind/commits/ + `name`. */
static char *cidx_file(git_repository *repo, const char *name)
{
	tm_buf p = TM_BUF_INIT;

	tm_buf_printf(&p, "%sthreadmind/commits/%s",
		      git_repository_commondir(repo), name);
	return tm_buf_detach(&p);
}

static void layer_file_name(char *out, size_t size, uint64_t id)
{
	snprintf(out, size, "layer-%016" PRIx64 ".idx", id);
}

/* What the shallow boundary is ($GIT_COMMON_DIR/shallow), as a number. */
static uint64_t shallow_key(git_repository *repo)
{
	uint64_t sum[2], key = 0;

	tm_stale__shallow_sum(sum, git_repository_commondir(repo));
	if (sum[1]) { /* there is a boundary: never 0 */
		key = sum[0] ^ sum[1];
		key += !key;
	}
	return key;
}

/* Add layer *l (sound, on top of ix's) to ix. */
static void cidx_push(struct cidx *ix, struct cidx_layer *l)
{
	tm_xgrow((void **)&ix->layers, &ix->alloc, ix->nlayers + 1,
		 sizeof(*ix->layers));
	ix->layers[ix->nlayers++] = *l;
	ix->n = l->base + l->n;
	ix->npaths = l->pbase + l->npaths;
	memset(l, 0, sizeof(*l));
}

/* What `checked` holds: the stat data of the layers checked whole. */
struct stamps {
	uint64_t *v; /* STAMP_FIELDS per layer */
	size_t n;
	int64_t mtime_ns; /* of the file `checked` */
	bool dirty;       /* a layer checked whole since: write it again */
};

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void stamp_of(uint64_t out[STAMP_FIELDS], uint64_t id,
		     const struct stat *st)
{
	out[0] = id;
	out[1] = (uint64_t)st->st_dev;
	out[2] = (uint64_t)st->st_ino;
	out[3] = (uint64_t)st->st_size;
	out[4] = (uint64_t)ns_of(&st->st_mtim);
	out[5] = (uint64_t)ns_of(&st->st_ctim);
}

static void stamps_read(struct stamps *sp, git_repository *repo)
{
	char *path = cidx_file(repo, "checked");
	unsigned char data[4096];
	tm_record_reader r;
	struct stat st;
	size_t i, n;
	ssize_t got = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	free(path);
	memset(sp, 0, sizeof(*sp));
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size < (off_t)sizeof(data))
		got = pread(fd, data, sizeof(data), 0);
	if (got == st.st_size &&
	    tm_record_unframe(&r, data, (size_t)got, STAMP_MAGIC)) {
		n = (size_t)tm_record_get_u64(&r);
		if (n <= r.left / 8 / STAMP_FIELDS) {
			sp->v = tm_xmalloc(n * STAMP_FIELDS * 8 + 8);
			for (i = 0; i < n * STAMP_FIELDS; i++)
				sp->v[i] = tm_record_get_u64(&r);
			sp->n = r.bad ? 0 : n;
			sp->mtime_ns = ns_of(&st.st_mtim);
		}
	}
	close(fd);
}

/* Was layer `id`, as fstat gives it now, checked whole already? */
static bool stamped(const struct stamps *sp, uint64_t id, const struct stat *st)
{
	uint64_t now[STAMP_FIELDS];
	size_t i;

	stamp_of(now, id, st);
	if (ns_of(&st->st_ctim) >= sp->mtime_ns)
		return false; /* racy: changed as `checked` was written */
	for (i = 0; i < sp->n; i++)
		if (!memcmp(sp->v + i * STAMP_FIELDS, now, sizeof(now)))
			return true;
	return false;
}

/* Note layer `id` (file descriptor fd) as checked whole. */
static void stamp_add(struct stamps *sp, uint64_t id, int fd,
		      const struct stat *st)
{
	size_t i;

	if (fsync(fd) < 0)
		return; /* not known to be what a crash leaves */
	for (i = 0; i < sp->n && sp->v[i * STAMP_FIELDS] != id; i++)
		;
	if (i == sp->n) /* else: the layer's older stamp, replaced */
		sp->v = tm_xrealloc(sp->v, ++sp->n * STAMP_FIELDS * 8);
	stamp_of(sp->v + i * STAMP_FIELDS, id, st);
	sp->dirty = true;
}

static bool cidx_has_layer(const struct cidx *ix, uint64_t id)
{
	size_t j;

	for (j = 0; j < ix->nlayers; j++)
		if (ix->layers[j].id == id)
			return true;
	return false;
}

/* Write `checked` with the stamps of ix's layers (best effort). */
static void stamps_write(const struct stamps *sp, const struct cidx *ix,
			 git_repository *repo)
{
	tm_buf entries = TM_BUF_INIT, payload = TM_BUF_INIT, file = TM_BUF_INIT;
	size_t i, k, n = 0;
	char *path;

	for (i = 0; i < sp->n; i++) {
		if (!cidx_has_layer(ix, sp->v[i * STAMP_FIELDS]))
			continue;
		for (k = 0; k < STAMP_FIELDS; k++)
			tm_record_put_u64(&entries,
					  sp->v[i * STAMP_FIELDS + k]);
		n++;
	}
	tm_record_put_u64(&payload, n);
	tm_buf_put(&payload, entries.ptr, entries.size);
	tm_record_frame(&file, STAMP_MAGIC, payload.ptr, payload.size);
	path = cidx_file(repo, "checked");
	(void)tm_atomic_write_nosync(path, file.ptr, file.size);
	tm_error_clear();
	free(path);
	tm_buf_release(&entries);
	tm_buf_release(&payload);
	tm_buf_release(&file);
}

/* Map layer `id` as the next of ix; false when it is missing or unsound
 * (`check`: checked whole, unless `sp` says it was and has not changed
 * since; without, one this process just wrote; either way its bounds are
 * checked: a stamp saves re-hashing, never the range checks). */
static bool layer_load(struct cidx *ix, git_repository *repo, uint64_t id,
		       bool check, struct stamps *sp)
{
	struct cidx_layer l;
	char name[64], *path;
	struct stat st;
	void *map;
	int fd;
	bool ok, whole;

	memset(&l, 0, sizeof(l));
	layer_file_name(name, sizeof(name), id);
	path = cidx_file(repo, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < LAYER_HEADER || (uint64_t)st.st_size >= SIZE_MAX / 2) {
		close(fd);
		return false;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return false;
	}
	l.data = map;
	l.size = (size_t)st.st_size;
	l.mapped = true;
	whole = check && !(sp && stamped(sp, id, &st));
	tm_stale__layer_checks += whole;
	ok = layer_parse(&l, ix->n, ix->npaths,
			 ix->nlayers ? ix->layers[ix->nlayers - 1].id : 0,
			 ix->shallow_key, whole ? CHECK_WHOLE : CHECK_BOUNDS) &&
	     l.id == id;
	if (ok && whole && sp && (uint64_t)st.st_size >= tm_stale__stamp_min)
		stamp_add(sp, id, fd, &st);
	close(fd);
	if (ok) {
		cidx_push(ix, &l);
	} else {
		layer_release(&l);
	}
	return ok;
}

/* The index as the chain names it, up to its first unusable layer. */
static void cidx_load(struct cidx *ix, git_repository *repo)
{
	char *path = cidx_file(repo, "chain"), line[64];
	tm_buf name = TM_BUF_INIT;
	struct stamps sp;
	size_t len;
	FILE *f;

	memset(ix, 0, sizeof(*ix));
	ix->shallow_key = shallow_key(repo);
	f = fopen(path, "rbe");
	free(path);
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f) || strcmp(line, CHAIN_MAGIC)) {
		ix->partial = true;
		fclose(f);
		return;
	}
	stamps_read(&sp, repo);
	while (fgets(line, sizeof(line), f)) {
		len = strlen(line);
		if (!ix->partial && len == 17 && line[16] == '\n' &&
		    strspn(line, "0123456789abcdef") == 16 &&
		    layer_load(ix, repo, strtoull(line, NULL, 16), true, &sp))
			continue;
		/* this layer and the ones above it are of no use now */
		ix->partial = true;
		if (len == 17 && strspn(line, "0123456789abcdef") == 16) {
			line[16] = '\0';
			tm_buf_clear(&name);
			tm_buf_printf(&name, "layer-%s.idx", line);
			tm_strv_push(&ix->dropped, tm_buf_cstr(&name));
		}
	}
	if (sp.dirty)
		stamps_write(&sp, ix, repo);
	free(sp.v);
	tm_buf_release(&name);
	fclose(f);
}

/* How entry `e` of layer l's sorted array compares with `key`. */
typedef int (*layer_cmp)(const struct cidx_layer *l, uint32_t e,
			 const void *key);

/* Binary search of `key` among the n entries of `sorted` (layer l's, in
 * the order of cmp): the entry into *at when it is there. */
static inline bool layer_search(const struct cidx_layer *l,
				const uint32_t *sorted, uint32_t n,
				layer_cmp cmp, const void *key, uint32_t *at)
{
	size_t lo = 0, hi = n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = cmp(l, sorted[mid], key);
		if (!c) {
			*at = sorted[mid];
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int oid_cmp_at(const struct cidx_layer *l, uint32_t e, const void *key)
{
	return memcmp(l->oids + (size_t)e * 20, key, 20);
}

static int name_cmp_at(const struct cidx_layer *l, uint32_t e, const void *key)
{
	return strcmp(layer_name(l, e), key);
}

bool tm_stale__cidx_find(const struct cidx *ix, const git_oid *oid,
			 uint32_t *out)
{
	const struct cidx_layer *l;
	size_t k, lo, hi, mid;
	bool found = false;

	/* a layer may hold a stub and the commit's description (merged
	   layers): the first of the equal entries, then each of them */
	for (k = ix->nlayers; k-- > 0;) {
		l = &ix->layers[k];
		for (lo = 0, hi = l->n; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (oid_cmp_at(l, l->order[mid], oid->id) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < l->n && !oid_cmp_at(l, l->order[lo], oid->id);
		     lo++) {
			*out = l->base + l->order[lo];
			found = true;
			if (cidx_described(ix, *out))
				return true;
		}
	}
	return found;
}

uint32_t tm_stale__cidx_resolve(const struct cidx *ix, uint32_t pos)
{
	git_oid oid;
	uint32_t at;

	if (cidx_described(ix, pos))
		return pos;
	memcpy(oid.id, cidx_oid(ix, pos), GIT_OID_RAWSZ);
	return tm_stale__cidx_find(ix, &oid, &at) ? at : pos;
}

const char *tm_stale__cidx_name(const struct cidx *ix, uint32_t path)
{
	size_t lo = 0, hi = ix->nlayers, mid;
	const struct cidx_layer *l;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ix->layers[mid].pbase <= path)
			lo = mid;
		else
			hi = mid;
	}
	l = &ix->layers[lo];
	return layer_name(l, path - l->pbase);
}

/* The number of path `name` in ix, when it has it. */
static bool cidx_path_find(const struct cidx *ix, const char *name,
			   uint32_t *out)
{
	const struct cidx_layer *l;
	uint32_t at;
	size_t k;

	for (k = 0; k < ix->nlayers; k++) {
		l = &ix->layers[k];
		if (layer_search(l, l->psorted, l->npaths, name_cmp_at, name,
				 &at)) {
			*out = l->pbase + at;
			return true;
		}
	}
	return false;
}

/* ---- writing a layer ---- */

static void put_pad(tm_buf *b)
{
	static const char zero[8];

	tm_buf_put(b, zero, pad8(b->size) - b->size);
}

static void put_u32(tm_buf *b, uint32_t v)
{
	tm_buf_put(b, &v, 4);
}

/* The size of a layer file with these counts. */
static size_t layer_size(uint64_t n, uint64_t np, uint64_t ns, uint64_t nd,
			 uint64_t nv, uint64_t npaths, uint64_t pb)
{
	return LAYER_HEADER + pad8(n * 20) + pad8(n * 8) + pad8((n + 1) * 4) +
	       pad8(np * 4) + pad8((n + 1) * 4) + pad8((ns + 1) * 4) +
	       pad8(nd * 4) + pad8((n + 1) * 4) + pad8(nv * 4) + pad8(nv * 20) +
	       pad8(nv * 8) + pad8(n * 4) + pad8((npaths + 1) * 4) + pad8(pb) +
	       pad8(npaths * 4);
}

/*
 * The file of one layer holding the `nsrc` consecutive layers `src` (one,
 * or the layers a merge replaces), on top of layer `below`, into *out;
 * returns its id.
 */
static uint64_t layer_image(tm_buf *out, const struct cidx_layer *const *src,
			    size_t nsrc, uint64_t below, uint64_t key)
{
	uint32_t h[12] = {LAYER_ENDIAN, LAYER_VERSION};
	uint32_t base = src[0]->base, pbase = src[0]->pbase, off, *head;
	const struct cidx_layer *l;
	size_t s, i, best, total;
	uint64_t sum;

	for (s = 0; s < nsrc; s++) {
		h[2] += src[s]->n;
		h[3] += src[s]->nparent;
		h[4] += src[s]->nslot;
		h[5] += src[s]->ndiff;
		h[6] += src[s]->nver;
		h[7] += src[s]->npaths;
		h[8] += src[s]->pathbytes;
	}
	h[9] = base;
	h[10] = pbase;
	tm_buf_grow(out, layer_size(h[2], h[3], h[4], h[5], h[6], h[7], h[8]));
	tm_buf_put(out, LAYER_MAGIC, 8);
	tm_buf_put(out, "\0\0\0\0\0\0\0\0", 8); /* the checksum, below */
	tm_buf_put(out, h, sizeof(h));
	tm_buf_put(out, &key, 8);
	tm_buf_put(out, &below, 8);
#define CONCAT(field, count, size)                                 \
	do {                                                       \
		for (s = 0; s < nsrc; s++)                         \
			tm_buf_put(out, src[s]->field,             \
				   (size_t)src[s]->count *(size)); \
		put_pad(out);                                      \
	} while (0)
	/* starts: each layer's, shifted by the counts of those before it */
#define STARTS(field, n, count)                                           \
	do {                                                              \
		for (s = 0, off = 0; s < nsrc; off += src[s]->count, s++) \
			for (i = 0; i < src[s]->n; i++)                   \
				put_u32(out, src[s]->field[i] + off);     \
		put_u32(out, off);                                        \
		put_pad(out);                                             \
	} while (0)
	CONCAT(oids, n, 20);
	CONCAT(time, n, 8);
	STARTS(pstart, n, nparent);
	CONCAT(parent, nparent, 4);
	STARTS(sstart, n, nslot);
	STARTS(dstart, nslot, ndiff);
	CONCAT(dpath, ndiff, 4);
	STARTS(vstart, n, nver);
	CONCAT(vpath, nver, 4);
	CONCAT(vcommit, nver, 20);
	CONCAT(vident, nver, 8);
	/* order and psorted: the layers' merged */
	head = tm_xcalloc(nsrc, sizeof(*head));
	for (total = h[2]; total--;) {
		for (s = 0, best = nsrc; s < nsrc; s++) {
			l = src[s];
			if (head[s] < l->n &&
			    (best == nsrc ||
			     memcmp(l->oids + (size_t)l->order[head[s]] * 20,
				    src[best]->oids +
					    (size_t)src[best]->order
							    [head[best]] *
						    20,
				    20) < 0))
				best = s;
		}
		put_u32(out, src[best]->base - base +
				     src[best]->order[head[best]++]);
	}
	put_pad(out);
	STARTS(poff, npaths, pathbytes);
	CONCAT(pbytes, pathbytes, 1);
	memset(head, 0, nsrc * sizeof(*head));
	for (total = h[7]; total--;) {
		for (s = 0, best = nsrc; s < nsrc; s++) {
			l = src[s];
			if (head[s] < l->npaths &&
			    (best == nsrc ||
			     strcmp(layer_name(l, l->psorted[head[s]]),
				    layer_name(
					    src[best],
					    src[best]->psorted[head[best]])) <
				     0))
				best = s;
		}
		put_u32(out, src[best]->pbase - pbase +
				     src[best]->psorted[head[best]++]);
	}
	put_pad(out);
#undef CONCAT
#undef STARTS
	free(head);
	sum = tm_record_sum(out->ptr + 16, out->size - 16);
	memcpy(out->ptr + 8, &sum, 8);
	return sum;
}

/*
 * Write image `img` (layer `id`) into the commits folder and put it on top
 * of ix, mapped from the file (or, when it cannot be written, from memory:
 * *img is taken either way).  Returns 1 when the file is there, 0 when it
 * is not, TM_ERROR when it cannot be read back (ix stays as it was).
 */
static int layer_add(struct cidx *ix, git_repository *repo, tm_buf *img,
		     uint64_t id, tm_strv *written)
{
	char name[64], *path;
	struct cidx_layer l;
	bool ok;

	layer_file_name(name, sizeof(name), id);
	path = cidx_file(repo, name);
	ok = tm_atomic_write_nosync(path, img->ptr, img->size) == 0;
	tm_error_clear();
	free(path);
	if (ok) {
		/* mapped from the file, not held twice */
		tm_buf_release(img);
		tm_strv_push(written, name);
		if (layer_load(ix, repo, id, false, NULL))
			return 1;
		return tm_error_set(TM_ERROR, "cannot read back %s", name);
	}
	memset(&l, 0, sizeof(l));
	l.size = img->size;
	l.data = (unsigned char *)tm_buf_detach(img);
	if (!layer_parse(&l, ix->n, ix->npaths,
			 ix->nlayers ? ix->layers[ix->nlayers - 1].id : 0,
			 ix->shallow_key, CHECK_NONE))
		abort(); /* our own image */
	cidx_push(ix, &l);
	return 0;
}

/* Name ix's layers in the chain file (when every one is written). */
static void chain_write(const struct cidx *ix, git_repository *repo)
{
	tm_buf b = TM_BUF_INIT;
	char *path = cidx_file(repo, "chain");
	size_t i;

	tm_buf_puts(&b, CHAIN_MAGIC);
	for (i = 0; i < ix->nlayers; i++)
		tm_buf_printf(&b, "%016" PRIx64 "\n", ix->layers[i].id);
	(void)tm_atomic_write_nosync(path, b.ptr, b.size);
	tm_error_clear();
	free(path);
	tm_buf_release(&b);
}

/* Remove the layer files ix does not name: the ones this run wrote or
 * merged away (`written`) and those the chain named past the ones it
 * loaded at once, the others (another writer's) once they are EXPIRE
 * seconds old. */
static void layers_expire(const struct cidx *ix, git_repository *repo,
			  const tm_strv *written)
{
	char *dir = cidx_file(repo, ""), name[64];
	tm_hashmap keep = TM_HASHMAP_INIT, mine = TM_HASHMAP_INIT;
	struct dirent *e;
	struct stat st;
	time_t now = time(NULL);
	size_t i;
	DIR *d = opendir(dir);
	int fd;

	if (!d) {
		free(dir);
		return;
	}
	fd = dirfd(d);
	for (i = 0; i < ix->nlayers; i++) {
		layer_file_name(name, sizeof(name), ix->layers[i].id);
		tm_hashmap_puts(&keep, name, 0);
	}
	for (i = 0; i < written->n; i++)
		tm_hashmap_puts(&mine, written->items[i], 0);
	for (i = 0; i < ix->dropped.n; i++)
		tm_hashmap_puts(&mine, ix->dropped.items[i], 0);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "layer-", 6) ||
		    strlen(e->d_name) != 26 || strcmp(e->d_name + 22, ".idx") ||
		    tm_hashmap_gets(&keep, e->d_name))
			continue;
		if (tm_hashmap_gets(&mine, e->d_name) ||
		    (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     st.st_mtime + EXPIRE < now))
			(void)unlinkat(fd, e->d_name, 0);
	}
	closedir(d);
	tm_hashmap_release(&keep);
	tm_hashmap_release(&mine);
	free(dir);
}

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

struct u32v {
	uint32_t *v;
	size_t n, alloc;
};

static void u32_push(struct u32v *a, size_t x)
{
	tm_xgrow((void **)&a->v, &a->alloc, a->n + 1, sizeof(*a->v));
	a->v[a->n++] = (uint32_t)x;
}

/* The layer being built, in the form of struct cidx_layer (its starts
 * local, its parents and path numbers global). */
struct chunk {
	tm_buf oids, time, vcommit, vident;
	struct u32v pstart, parent, sstart, dstart, dpath, vstart, vpath;
	tm_strv newpaths;
	uint32_t n;
};

/* What a version of a thread file says for staleness. */
struct blob_version {
	git_oid commit; /* the `commit` it names (zero: none) */
	uint64_t ident; /* its identity (0: it does not parse) */
};

struct update {
	struct cidx *ix;
	git_repository *repo;
	struct fresh *c;
	size_t n, alloc;
	git_oid *poids;
	size_t npoids, poids_alloc;
	uint32_t *table; /* open addressing: 1 + index in c, 0: empty */
	size_t mask;
	struct u32v stack, placed; /* placed: c's indexes, parents first */
	struct chunk ch;
	tm_hashmap paths; /* path -> its number (every one looked up) */
	tm_hashmap blobs; /* blob id + file name -> 1 + index in
			     blob_version */
	struct blob_version *blob_version;
	size_t nblob, blob_alloc;
	tm_strv changed;
	tm_strv written;  /* the layer files this run wrote or merged away */
	size_t first_new; /* ix's first layer written by this run */
	bool on_disk;     /* every layer from first_new is written */
	tm_progress_fn progress;
	void *progress_data;
	tm_strv *warnings; /* the objects skipped (or NULL) */
	tm_strv skipped;   /* one diff's */
	size_t ndescribe;  /* the commits to describe (not stubs) */
};

static size_t oid_slot(const struct update *up, const git_oid *oid)
{
	uint64_t h;

	memcpy(&h, oid->id, 8);
	return (size_t)h & up->mask;
}

/* The index in up->c of fresh commit `oid`, or NONE. */
static size_t fresh_lookup(const struct update *up, const git_oid *oid)
{
	size_t i;

	if (!up->table)
		return NONE;
	for (i = oid_slot(up, oid); up->table[i]; i = (i + 1) & up->mask)
		if (git_oid_equal(&up->c[up->table[i] - 1].oid, oid))
			return up->table[i] - 1;
	return NONE;
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
 * NONE when the index describes it already (a stub is loaded: it is to be
 * described).  TM_ENOTFOUND: no such commit. */
static int fresh_get(struct update *up, const git_oid *oid, size_t *out)
{
	git_commit *c = NULL;
	struct fresh *f;
	uint32_t pos;
	unsigned k;
	int error;

	if (tm_stale__cidx_find(up->ix, oid, &pos) &&
	    cidx_described(up->ix, pos)) {
		*out = NONE;
		return 0;
	}
	if ((*out = fresh_lookup(up, oid)) != NONE)
		return 0;
	if (up->n >= CIDX_MAX || up->npoids >= CIDX_MAX)
		return tm_error_set(TM_ERROR, "history too long to index");
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
	f->pfirst = (uint32_t)up->npoids;
	tm_xgrow((void **)&up->poids, &up->poids_alloc, up->npoids + f->np,
		 sizeof(git_oid));
	for (k = 0; k < f->np; k++)
		git_oid_cpy(&up->poids[up->npoids++],
			    git_commit_parent_id(c, k));
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

	u32_push(&up->stack, i);
	while (up->stack.n) {
		i = up->stack.v[up->stack.n - 1];
		if (up->c[i].done) {
			up->stack.n--;
			continue;
		}
		for (k = 0; k < up->c[i].np; k++) {
			p = fresh_lookup(up, &up->poids[up->c[i].pfirst + k]);
			if (p != NONE && !up->c[p].done) {
				u32_push(&up->stack, p);
				break;
			}
		}
		if (k < up->c[i].np)
			continue;
		up->c[i].done = true;
		up->c[i].at = (uint32_t)(up->ix->n + up->placed.n);
		u32_push(&up->placed, i);
		up->stack.n--;
	}
}

/* The commits `oids` to describe, parents first, after the stubs of their
 * parents that the index lacks. */
static int collect(struct update *up, const git_oid *oids, size_t n,
		   const git_oid *shallow, size_t nshallow)
{
	size_t i, p, want;
	uint32_t pos;
	unsigned k;
	int error;

	for (i = 0; i < n; i++) {
		if ((error = fresh_get(up, &oids[i], &p)) < 0)
			return error;
		if (p != NONE &&
		    tm_stale__shallow_has(shallow, nshallow, &up->c[p].oid))
			up->c[p].np = 0;
	}
	want = up->n;
	for (i = 0; i < want; i++) {
		for (k = 0; k < up->c[i].np; k++) {
			const git_oid *oid = &up->poids[up->c[i].pfirst + k];

			if (fresh_lookup(up, oid) != NONE ||
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
	if (!cidx_path_find(up->ix, name, &id)) {
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

/* What blob `id`, a version of thread file `name` ("<id>.md"), says
 * (parsed once). */
static const struct blob_version *
version_of(struct update *up, const git_oid *id, const char *name)
{
	tm_buf key = TM_BUF_INIT;
	size_t *at;
	struct blob_version out;
	git_blob *blob = NULL;
	tm_thread *v = NULL;

	tm_buf_put(&key, id->id, GIT_OID_RAWSZ);
	tm_buf_puts(&key, name);
	at = tm_hashmap_put(&up->blobs, key.ptr, key.size, 0);
	tm_buf_release(&key);
	if (*at)
		return &up->blob_version[*at - 1];
	memset(&out, 0, sizeof(out));
	if (git_blob_lookup(&blob, up->repo, id) == 0 &&
	    tm_frontmatter_parse_checked(&v, git_blob_rawcontent(blob),
					 (size_t)git_blob_rawsize(blob), "x",
					 "(history)", tm_deadline_check) == 0) {
		out.ident = tm_stale__identity(v, name);
		if (v->commit &&
		    tm_git_is_hex_oid(v->commit, strlen(v->commit)) &&
		    git_oid_fromstr(&out.commit, v->commit) < 0)
			memset(&out.commit, 0, sizeof(out.commit));
	}
	tm_error_clear();
	tm_thread_free(v);
	git_blob_free(blob);
	tm_xgrow((void **)&up->blob_version, &up->blob_alloc, up->nblob + 1,
		 sizeof(*up->blob_version));
	up->blob_version[up->nblob++] = out;
	*at = up->nblob;
	return &up->blob_version[*at - 1];
}

/* The tree of parent k of fresh commit f. */
static int parent_tree(struct update *up, const struct fresh *f, unsigned k,
		       git_oid *out)
{
	const git_oid *oid = &up->poids[f->pfirst + k];
	size_t known = fresh_lookup(up, oid);
	git_commit *c = NULL;

	if (known != NONE) {
		git_oid_cpy(out, &up->c[known].tree);
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
 * thread file versions, into the chunk. */
static int describe(struct update *up, tm_treediffer *td, const struct fresh *f)
{
	struct chunk *ch = &up->ch;
	git_tree *tree = NULL, *dir = NULL;
	tm_buf dname = TM_BUF_INIT;
	const git_tree_entry *e;
	const git_tree *in;
	const struct blob_version *ver;
	git_oid old;
	unsigned k, slots = f->np ? f->np : 1;
	size_t i, first;
	int error = 0;

	for (k = 0; k < slots; k++) {
		if (f->np && (error = parent_tree(up, f, k, &old)) < 0)
			goto done;
		tm_strv_clear(&up->changed);
		error = tm_treediffer_diff(&up->changed, &up->skipped, td,
					   f->np ? &old : NULL, &f->tree);
		if (error < 0)
			goto done;
		for (i = 0; i < up->skipped.n; i++)
			tm_stale__warn(up->warnings, "commit %.7s: %s",
				       git_oid_tostr_s(&f->oid),
				       up->skipped.items[i]);
		tm_strv_clear(&up->skipped);
		u32_push(&ch->dstart, ch->dpath.n);
		first = ch->dpath.n;
		for (i = 0; i < up->changed.n; i++)
			u32_push(&ch->dpath, path_id(up, up->changed.items[i]));
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
				ver = version_of(up, git_tree_entry_id(e),
						 slash ? slash + 1 : p);
				u32_push(&ch->vpath, ch->dpath.v[first + i]);
				tm_buf_put(&ch->vcommit, ver->commit.id,
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

static void chunk_free(struct chunk *ch)
{
	tm_buf_release(&ch->oids);
	tm_buf_release(&ch->time);
	tm_buf_release(&ch->vcommit);
	tm_buf_release(&ch->vident);
	free(ch->pstart.v);
	free(ch->parent.v);
	free(ch->sstart.v);
	free(ch->dstart.v);
	free(ch->dpath.v);
	free(ch->vstart.v);
	free(ch->vpath.v);
	tm_strv_clear(&ch->newpaths);
	memset(ch, 0, sizeof(*ch));
}

static const struct cidx_layer *sort_layer;

static int order_cmp(const void *a, const void *b)
{
	return memcmp(sort_layer->oids + (size_t) * (const uint32_t *)a * 20,
		      sort_layer->oids + (size_t) * (const uint32_t *)b * 20,
		      20);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(layer_name(sort_layer, *(const uint32_t *)a),
		      layer_name(sort_layer, *(const uint32_t *)b));
}

/* Make the chunk a layer on top of ix (written, and named by the chain
 * when every layer of this run is), and empty it. */
static int chunk_flush(struct update *up)
{
	struct chunk *ch = &up->ch;
	struct cidx_layer l;
	const struct cidx_layer *src = &l;
	tm_buf pbytes = TM_BUF_INIT, img = TM_BUF_INIT;
	uint32_t *order, *psorted, *poff;
	uint64_t id;
	size_t i;
	int error;

	if (!ch->n)
		return 0;
	u32_push(&ch->pstart, ch->parent.n);
	u32_push(&ch->sstart, ch->dstart.n);
	u32_push(&ch->dstart, ch->dpath.n);
	u32_push(&ch->vstart, ch->vpath.n);
	poff = tm_xcalloc(ch->newpaths.n + 1, sizeof(*poff));
	for (i = 0; i < ch->newpaths.n; i++) {
		poff[i] = (uint32_t)pbytes.size;
		tm_buf_put(&pbytes, ch->newpaths.items[i],
			   strlen(ch->newpaths.items[i]) + 1);
	}
	poff[i] = (uint32_t)pbytes.size;
	memset(&l, 0, sizeof(l));
	l.base = up->ix->n;
	l.pbase = up->ix->npaths;
	l.n = ch->n;
	l.nparent = (uint32_t)ch->parent.n;
	l.nslot = (uint32_t)ch->dstart.n - 1;
	l.ndiff = (uint32_t)ch->dpath.n;
	l.nver = (uint32_t)ch->vpath.n;
	l.npaths = (uint32_t)ch->newpaths.n;
	l.pathbytes = (uint32_t)pbytes.size;
	l.oids = (const unsigned char *)ch->oids.ptr;
	l.time = (const int64_t *)(const void *)ch->time.ptr;
	l.vcommit = (const unsigned char *)ch->vcommit.ptr;
	l.vident = (const uint64_t *)(const void *)ch->vident.ptr;
	l.pstart = ch->pstart.v;
	l.parent = ch->parent.v;
	l.sstart = ch->sstart.v;
	l.dstart = ch->dstart.v;
	l.dpath = ch->dpath.v;
	l.vstart = ch->vstart.v;
	l.vpath = ch->vpath.v;
	l.poff = poff;
	l.pbytes = pbytes.ptr ? pbytes.ptr : "";
	order = tm_xcalloc(l.n + 1, sizeof(*order));
	psorted = tm_xcalloc(l.npaths + 1, sizeof(*psorted));
	for (i = 0; i < l.n; i++)
		order[i] = (uint32_t)i;
	for (i = 0; i < l.npaths; i++)
		psorted[i] = (uint32_t)i;
	sort_layer = &l;
	qsort(order, l.n, sizeof(*order), order_cmp);
	qsort(psorted, l.npaths, sizeof(*psorted), name_cmp);
	l.order = order;
	l.psorted = psorted;
	id = layer_image(
		&img, &src, 1,
		up->ix->nlayers ? up->ix->layers[up->ix->nlayers - 1].id : 0,
		up->ix->shallow_key);
	free(order);
	free(psorted);
	free(poff);
	tm_buf_release(&pbytes);
	chunk_free(ch);
	tm_hashmap_release(&up->paths); /* its numbers are all in ix now */
	error = layer_add(up->ix, up->repo, &img, id, &up->written);
	if (error < 0)
		return error;
	if (!error)
		up->on_disk = false;
	if (up->on_disk)
		chain_write(up->ix, up->repo);
	return 0;
}

/* Merge the layers this run wrote with each other and with the ones below
 * while those hold at most FACTOR times their commits. */
static int layers_merge(struct update *up)
{
	struct cidx *ix = up->ix;
	const struct cidx_layer **src;
	size_t j = up->first_new, k, top = ix->nlayers;
	uint64_t acc = 0, id;
	tm_buf img = TM_BUF_INIT;
	int error;

	if (!up->on_disk || j >= top)
		return 0;
	for (k = j; k < top; k++)
		acc += ix->layers[k].n;
	while (j > 0 && ix->layers[j - 1].n <= FACTOR * acc) {
		j--;
		acc += ix->layers[j].n;
	}
	if (top - j >= 2) {
		src = tm_xcalloc(top - j, sizeof(*src));
		for (k = j; k < top; k++)
			src[k - j] = &ix->layers[k];
		id = layer_image(&img, src, top - j,
				 j ? ix->layers[j - 1].id : 0, ix->shallow_key);
		free(src);
		for (k = j; k < top; k++) {
			char name[64];

			layer_file_name(name, sizeof(name), ix->layers[k].id);
			tm_strv_push(&up->written, name); /* merged away */
			layer_release(&ix->layers[k]);
		}
		ix->nlayers = j;
		ix->n = j ? ix->layers[j - 1].base + ix->layers[j - 1].n : 0;
		ix->npaths =
			j ? ix->layers[j - 1].pbase + ix->layers[j - 1].npaths
			  : 0;
		error = layer_add(ix, up->repo, &img, id, &up->written);
		if (error <= 0)
			return error; /* not written: the chain as it was */
		chain_write(ix, up->repo);
	}
	layers_expire(ix, up->repo, &up->written);
	return 0;
}

static int describe_all(struct update *up)
{
	size_t i, total = up->placed.n, ndone = 0;
	struct chunk *ch = &up->ch;
	const struct fresh *f;
	size_t known;
	tm_treediffer *td = NULL;
	uint32_t pos;
	unsigned k;
	int error = total ? tm_treediffer_new(&td, up->repo) : 0;

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
		u32_push(&ch->pstart, ch->parent.n);
		for (k = 0; k < f->np; k++) {
			const git_oid *p = &up->poids[f->pfirst + k];

			known = fresh_lookup(up, p);
			if (known != NONE) {
				pos = up->c[known].at;
			} else if (!tm_stale__cidx_find(up->ix, p, &pos)) {
				error = tm_error_set(TM_ERROR, "lost a parent");
				goto done;
			}
			u32_push(&ch->parent, pos);
		}
		u32_push(&ch->sstart, ch->dstart.n);
		u32_push(&ch->vstart, ch->vpath.n);
		ch->n++;
		if (f->stub)
			continue; /* no slot: a stub */
		if (up->progress && ndone % 64 == 0)
			up->progress(up->progress_data, "indexing history",
				     ndone, up->ndescribe);
		if ((error = describe(up, td, f)) < 0)
			goto done;
		ndone++;
		if ((ch->n >= tm_stale__chunk_commits ||
		     ch->dpath.n >= CHUNK_DIFFS ||
		     ch->dstart.n >= CHUNK_DIFFS ||
		     ch->newpaths.n >= CHUNK_DIFFS) &&
		    (error = chunk_flush(up)) < 0)
			goto done;
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
	if (up->progress && up->ndescribe)
		up->progress(up->progress_data, "indexing history",
			     up->ndescribe, up->ndescribe);
	return 0;
}

static void update_free(struct update *up)
{
	free(up->c);
	free(up->poids);
	free(up->table);
	free(up->stack.v);
	free(up->placed.v);
	chunk_free(&up->ch);
	tm_hashmap_release(&up->paths);
	tm_hashmap_release(&up->blobs);
	free(up->blob_version);
	tm_strv_clear(&up->changed);
	tm_strv_clear(&up->written);
	tm_strv_clear(&up->skipped);
}

void tm_stale__cidx_open(struct cidx *ix, git_repository *repo)
{
	tm_strv none = TM_STRV_INIT;

	cidx_load(ix, repo);
	if (ix->partial && ix->nlayers) {
		/* a damaged chain over sound layers: name them */
		chain_write(ix, repo);
		layers_expire(ix, repo, &none);
	}
}

int tm_stale__cidx_describe(struct cidx *ix, git_repository *repo,
			    const git_oid *oids, size_t n,
			    const git_oid *shallow, size_t nshallow,
			    tm_progress_fn progress, void *progress_data,
			    tm_strv *warnings)
{
	struct update up;
	tm_buf dir = TM_BUF_INIT;
	size_t mapped = 0, i;
	int error;

	memset(&up, 0, sizeof(up));
	up.ix = ix;
	up.repo = repo;
	up.progress = progress;
	up.progress_data = progress_data;
	up.warnings = warnings;
	up.first_new = ix->nlayers;
	if (git_libgit2_opts(GIT_OPT_GET_MWINDOW_MAPPED_LIMIT, &mapped) < 0 ||
	    mapped <= PACK_MAPPED)
		mapped = 0; /* as it is */
	else
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, PACK_MAPPED);
	error = collect(&up, oids, n, shallow, nshallow);
	if (error == TM_ENOTFOUND)
		error = tm_error_set(TM_ERROR, "a commit to index is missing");
	if (error || !up.placed.n)
		goto done;
	for (i = 0; i < up.placed.n; i++)
		up.ndescribe += !up.c[up.placed.v[i]].stub;
	if ((uint64_t)ix->n + up.placed.n >= CIDX_MAX) {
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
	free(up.c);
	free(up.poids);
	free(up.table);
	up.c = NULL;
	up.poids = NULL;
	up.table = NULL;
	error = layers_merge(&up);
done:
	if (mapped)
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, mapped);
	update_free(&up);
	tm_buf_release(&dir);
	return error;
}
