/*
 * The paths that differ between two git trees, for staleness (lib/ only:
 * it takes libgit2 types).
 */
#ifndef TM_TREEDIFF_H
#define TM_TREEDIFF_H

#include "buf.h"

#include <git2.h>

/*
 * The bounds of one diff (docs/SECURITY.md, "Bounds"): a tree a clone
 * brings may be 100,000 folders deep or hold millions of files in a few
 * KiB of packed objects, and a diff must stay quick and small anyway.
 *   MAX_PATHS  entries of one answer (paths and prefixes);
 *   MAX_BYTES  their bytes in all;
 *   MAX_TREES  tree objects read (both sides, kept ones too);
 *   MAX_DEPTH  folder levels followed below the root;
 *   MAX_TREE   the largest tree object read (its size, inflated).
 */
#define TM_TREEDIFF_MAX_PATHS 20000
#define TM_TREEDIFF_MAX_BYTES ((size_t)4 << 20)
#define TM_TREEDIFF_MAX_TREES 50000
#define TM_TREEDIFF_MAX_DEPTH 1024
#define TM_TREEDIFF_MAX_TREE  ((size_t)8 << 20)

/*
 * Append to `out` the repository paths ("src/auth/login.c") of the files
 * (blobs, symlinks and submodules) that differ between root trees `old` and
 * `new_tree` (NULL: the empty tree), in git's tree order (byte order of the
 * whole paths): added, deleted, or with another id or mode.  A file that
 * becomes a folder (or the other way) counts on both sides.  No rename
 * detection, as `git log -- <paths>` with its defaults.
 *
 * An entry ending in '/' is a prefix: "something under this folder
 * changed" ("/" alone: the root, anything).  The diff gives them, never
 * the exact paths under them, for a folder it does not open: past the
 * bounds above (the folders are opened level by level, breadth first,
 * while the answer stays within MAX_PATHS and MAX_BYTES, so a huge change
 * is answered by its changed folders at the deepest level that fits), past
 * MAX_DEPTH, a tree larger than MAX_TREE, and, when `skipped` is not NULL,
 * a tree that cannot be read or does not parse (missing, malformed, not a
 * tree): then one line naming it and the prefix it became is appended to
 * `skipped`.  A prefix is the conservative answer for staleness: every
 * `paths` entry that could name something under it is touched
 * (tm_pathspec_may_match_under).
 *
 * Errors (`skipped` NULL only): TM_ERROR when a tree cannot be read or is
 * not a well-formed tree (what `out` got until then stays there).
 */
int tm_treediff(tm_strv *out, tm_strv *skipped, git_repository *repo,
		const git_oid *old, const git_oid *new_tree);

/* Is `path` (an entry of tm_treediff's answer) a prefix? */
static inline bool tm_treediff_is_prefix(const char *path, size_t len)
{
	return len && path[len - 1] == '/';
}

/*
 * A differ that keeps the trees it read lately (a bounded number of them,
 * a bounded number of bytes), for many diffs in a row: diffing a commit
 * against its parent, then that commit's child against it, reads the
 * shared trees once.  Valid while `repo` is open; one thread at a time.
 */
typedef struct tm_treediffer tm_treediffer;

/* A new differ over `repo` (*out NULL on error).  TM_ERROR: the
 * repository's object database cannot be opened. */
int tm_treediffer_new(tm_treediffer **out, git_repository *repo);

/* tm_treediff through `d`: the same answers and errors. */
int tm_treediffer_diff(tm_strv *out, tm_strv *skipped, tm_treediffer *d,
		       const git_oid *old, const git_oid *new_tree);

/*
 * Which folders a limited diff opens: `folder` is a changed folder's path
 * with its '/' ("src/auth/", `len` bytes); false leaves it a prefix of the
 * answer, unopened.
 */
typedef bool (*tm_treediff_filter)(const char *folder, size_t len, void *data);

/* tm_treediffer_diff, opening only the folders `want` accepts (NULL:
 * every folder; the root is always opened): a changed folder it refuses
 * is a prefix of the answer, as a folder past the bounds is. */
int tm_treediffer_diff_within(tm_strv *out, tm_strv *skipped, tm_treediffer *d,
			      const git_oid *old, const git_oid *new_tree,
			      tm_treediff_filter want, void *data);

/* Free `d` and the trees it keeps (NULL allowed). */
void tm_treediffer_free(tm_treediffer *d);

#endif
