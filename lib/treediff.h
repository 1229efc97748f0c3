/*
 * The paths that differ between two git trees, for staleness (lib/ only:
 * it takes libgit2 types).
 */
#ifndef TM_TREEDIFF_H
#define TM_TREEDIFF_H

#include "buf.h"

#include <git2.h>

/*
 * Append to `out` the repository paths ("src/auth/login.c") of the files
 * (blobs, symlinks and submodules) that differ between root trees `old` and
 * `new_tree` (NULL: the empty tree), in git's tree order: added, deleted,
 * or with another id or mode.  A file that becomes a folder (or the other
 * way) counts on both sides.  No rename detection, as `git log -- <paths>`
 * with its defaults.
 *
 * Errors: TM_ERROR when a tree cannot be read or is not a well-formed tree
 * (what `out` got until then stays there).
 */
int tm_treediff(tm_strv *out, git_repository *repo, const git_oid *old,
		const git_oid *new_tree);

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
int tm_treediffer_diff(tm_strv *out, tm_treediffer *d, const git_oid *old,
		       const git_oid *new_tree);

/* Free `d` and the trees it keeps (NULL allowed). */
void tm_treediffer_free(tm_treediffer *d);

#endif
