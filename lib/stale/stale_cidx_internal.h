/*
 * The per-commit staleness index (DESIGN.md section 11, "Staleness is
 * cached"): $GIT_COMMON_DIR/threadmind/commits/, never in the work tree.
 *
 * For every commit it describes, what the staleness rules need of it,
 * computed once ever: its parents (as positions in the index), its
 * committer time, the paths its diff against its first parent changes (or
 * against the empty tree for a root or shallow commit), as numbers into
 * one table of paths; for a merge, one more list per other parent, holding
 * "/" alone ("maybe anything": stale_history.c, refine, diffs that pair of
 * trees limited to the threads' paths for the few merges whose answer
 * depends on it); and the versions of thread files its first-parent diff
 * adds (path, the `commit` that version names, or none, and its identity,
 * createdAt and author hashed: tm_stale__identity).
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
 * is a foreign file; version 4 has a merge's other parents as "/", 3 and
 * 2 are rebuilt): an 80-byte header (magic, checksum of the rest, the
 * counts, first position and path number, shallow key, id of the layer
 * below), then the arrays (see layer_parse), each padded to 8 bytes, the
 * positions sorted by commit id and the paths sorted by name last for
 * binary searches.  Loading maps each file
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
#ifndef TM_STALE_CIDX_INTERNAL_H
#define TM_STALE_CIDX_INTERNAL_H

#include "stale_internal.h"

/* Shared by the files of the commit index only: stale_cidx_read.c (loading
 * the layers, the lookups), stale_cidx_write.c (layer files, the chain)
 * and stale_cidx_build.c (describing commits). */

#define TM_STALE_LAYER_MAGIC  "TMCIDXL\1"
#define TM_STALE_LAYER_ENDIAN 0x01020304u
/* 2: the versions' identities; 3: stubs; 4: a merge's other parents "/" */
#define TM_STALE_LAYER_VERSION 4u
#define TM_STALE_LAYER_HEADER  80
#define TM_STALE_CHAIN_MAGIC   "threadmind commits chain 1\n"
#define TM_STALE_CIDX_MAX      ((uint64_t)UINT32_MAX - 2)

static inline size_t tm_stale__pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* How much layer_parse checks. */
enum tm_stale_layer_check {
	TM_STALE_CHECK_NONE,   /* our own image in memory, just made: header,
				  sizes */
	TM_STALE_CHECK_BOUNDS, /* + every offset, position and path number in
			 range: on every load of a file, stamped or not */
	TM_STALE_CHECK_WHOLE   /* + the checksum and the sort orders */
};

const char *tm_stale__layer_name(const struct tm_stale_cidx_layer *l,
				 uint32_t p);

/*
 * Point l's arrays into l->data (l->size bytes); false when it is not a
 * sound layer whose positions start at `base`, path numbers at `pbase`,
 * on top of layer `below`, for shallow boundary `key`, as far as `check`
 * looks.  A stamp (the file `checked`) saves only TM_STALE_CHECK_WHOLE's
 * re-hashing and order checks: whatever a file holds, the readers (the cidx_*
 * accessors, the binary searches) never leave it.
 */
bool tm_stale__layer_parse(struct tm_stale_cidx_layer *l, uint32_t base,
			   uint32_t pbase, uint64_t below, uint64_t key,
			   enum tm_stale_layer_check check);
void tm_stale__layer_release(struct tm_stale_cidx_layer *l);
/* $GIT_COMMON_DIR/threadmind/commits/ + `name`. */
char *tm_stale__cidx_file(git_repository *repo, const char *name);
void tm_stale__layer_file_name(char *out, size_t size, uint64_t id);
/* What the shallow boundary is ($GIT_COMMON_DIR/shallow), as a number. */
uint64_t tm_stale__shallow_key(git_repository *repo);
/* Add layer *l (sound, on top of ix's) to ix. */
void tm_stale__cidx_push(struct tm_stale_cidx *ix,
			 struct tm_stale_cidx_layer *l);

struct tm_stale_u32v {
	uint32_t *v;
	size_t n, alloc;
};

static inline void tm_stale__u32_push(struct tm_stale_u32v *a, size_t x)
{
	tm_xgrow((void **)&a->v, &a->alloc, a->n + 1, sizeof(*a->v));
	a->v[a->n++] = (uint32_t)x;
}

/* The layer being built, in the form of struct tm_stale_cidx_layer (its starts
 * local, its parents and path numbers global). */
struct tm_stale_chunk {
	tm_buf oids, time, vcommit, vident;
	struct tm_stale_u32v pstart, parent, sstart, dstart, dpath, vstart,
		vpath;
	tm_strv newpaths;
	uint32_t n;
};

/* ---- stale_cidx_read.c ---- */

/* The state of the file `checked` (the layers checked whole). */
struct tm_stale_stamps;
/* Map layer `id` as the next of ix; false when it is missing or unsound
 * (`check`: checked whole, unless `sp` says it was and has not changed
 * since; without, one this process just wrote; either way its bounds are
 * checked: a stamp saves re-hashing, never the range checks). */
bool tm_stale__layer_load(struct tm_stale_cidx *ix, git_repository *repo,
			  uint64_t id, bool check, struct tm_stale_stamps *sp);
/* The index as the chain names it, up to its first unusable layer. */
void tm_stale__cidx_load(struct tm_stale_cidx *ix, git_repository *repo);
/* The number of path `name` in ix, when it has it. */
bool tm_stale__cidx_path_find(const struct tm_stale_cidx *ix, const char *name,
			      uint32_t *out);

/* ---- stale_cidx_write.c ---- */

/*
 * The file of one layer holding the `nsrc` consecutive layers `src` (one,
 * or the layers a merge replaces), on top of layer `below`, into *out;
 * returns its id.
 */
uint64_t tm_stale__layer_image(tm_buf *out,
			       const struct tm_stale_cidx_layer *const *src,
			       size_t nsrc, uint64_t below, uint64_t key);
/*
 * Write image `img` (layer `id`) into the commits folder and put it on top
 * of ix, mapped from the file (or, when it cannot be written, from memory:
 * *img is taken either way).  Returns 1 when the file is there, 0 when it
 * is not, TM_ERROR when it cannot be read back (ix stays as it was).
 */
int tm_stale__layer_add(struct tm_stale_cidx *ix, git_repository *repo,
			tm_buf *img, uint64_t id, tm_strv *written);
/* Name ix's layers in the chain file (when every one is written). */
void tm_stale__chain_write(const struct tm_stale_cidx *ix,
			   git_repository *repo);
/* Remove the layer files ix does not name: the ones this run wrote or
 * merged away (`written`) and those the chain named past the ones it
 * loaded at once, the others (another writer's) once they are a minute
 * old. */
void tm_stale__layers_expire(const struct tm_stale_cidx *ix,
			     git_repository *repo, const tm_strv *written);
void tm_stale__chunk_free(struct tm_stale_chunk *ch);
/* Make chunk *ch (not empty) a layer on top of ix (written, its file
 * name into `written`, and named by the chain while *on_disk: every layer
 * of this run is written; a layer that could not be written clears it),
 * and empty it. */
int tm_stale__chunk_flush(struct tm_stale_chunk *ch, struct tm_stale_cidx *ix,
			  git_repository *repo, tm_strv *written,
			  bool *on_disk);
/* Merge the layers this run wrote (from ix's layer `first_new`, when
 * on_disk: all written) with each other and with the ones below while
 * those hold at most twice their commits; then remove the files no chain
 * names (tm_stale__layers_expire). */
int tm_stale__layers_merge(struct tm_stale_cidx *ix, git_repository *repo,
			   size_t first_new, bool on_disk, tm_strv *written);

#endif
