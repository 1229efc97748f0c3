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
 * Errors: TM_ERROR when a tree cannot be read (what `out` got until then
 * stays there).
 */
int tm_treediff(tm_strv *out, git_repository *repo, const git_oid *old,
		const git_oid *new_tree);

#endif
