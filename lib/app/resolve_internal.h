/*
 * Internal interface between resolve.c (the index stages, the report) and
 * resolve_committed.c (files whose conflict markers were committed or
 * staged: their sides and their ancestor).  Not installed.
 */
#ifndef TM_RESOLVE_INTERNAL_H
#define TM_RESOLVE_INTERNAL_H

#include "resolve.h"

#include <git2.h>

/*
 * The files to re-merge from their conflict markers, appended to `out`
 * (repository paths).  With `paths` (NULL or empty: none named): each
 * named path that `from` does not take from the index (`unmerged` holds
 * the index's conflicted paths) must hold conflict markers
 * (tm_conflict_markers_left) in the working tree, else TM_ENOTFOUND
 * "'<path>' has no conflict to resolve: ...".  Without: every thread and
 * project file under a `.threadmind/` folder, in the index or in the
 * working tree's top-level `.threadmind/`, that holds markers (and, with
 * TM_RESOLVE_FROM_ANY, is not in `unmerged`).  Files that cannot be read
 * are left out.  Returns 0 or TM_ENOTFOUND; nothing is written.
 */
int tm_resolve__select(tm_strv *out, git_repository *repo, git_index *index,
		       const tm_strv *unmerged, const tm_strv *paths,
		       tm_resolve_from from);

/*
 * The three sides of working-tree file `path` (a repository path) that
 * holds conflict markers: side[1] and side[2] from the markers
 * (tm_resolve_split_markers), side[0] the ancestor (tm_resolve__base),
 * *has_base false when there is none (a file added on both sides).
 * *from (malloc'd) says where they came from, for messages.  Errors:
 * TM_EPARSE (the markers do not pair up), TM_EINVALID / TM_ENOTFOUND (the
 * file cannot be read), TM_ERROR (git).
 */
int tm_resolve__marker_sides(tm_buf side[3], bool *has_base, char **from,
			     git_repository *repo, const char *path);

#endif
