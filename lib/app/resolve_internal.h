/*
 * Internal interface between the files of resolve: resolve.c (the index
 * stages, the merge, the report), resolve_identity.c (two threads of one
 * id), resolve_committed.c (files whose conflict markers were committed or
 * staged: their sides and their ancestor) and resolve_pending.c (what is
 * waiting for resolve).  Not installed.
 */
#ifndef TM_RESOLVE_INTERNAL_H
#define TM_RESOLVE_INTERNAL_H

#include "resolve.h"

#include <git2.h>

/* One conflicted path: which stages exist and their blobs. */
struct tm_resolve__conflict {
	char *path;
	bool has[3]; /* ancestor, ours, theirs */
	git_oid id[3];
	const tm_buf *given; /* the sides themselves, instead of blobs */
	/* a thread renamed differently on both sides (find_renames): the
	 * old path [0] and the new ones, in HEAD [1] and on the other side
	 * [2]; NULL when it is not */
	const char *renamed[3];
};

/*
 * The conflicts of `index`, copied out (staging changes the index under an
 * iterator): a malloc'd array of *n into *out, each path malloc'd.
 * Errors: TM_ERROR (the index cannot be read).
 */
int tm_resolve__list_conflicts(struct tm_resolve__conflict **out, size_t *n,
			       git_index *index);

/* Whether stage `stage` of `c` is over TM_MAX_FILE_SIZE, into *out (the
 * object database's header only: a huge blob is never loaded). */
int tm_resolve__blob_too_large(bool *out, git_repository *repo,
			       const struct tm_resolve__conflict *c, int stage);

/* Stage `stage` of `c` appended to `out` (nothing for a missing stage).
 * Errors: TM_ERROR. */
int tm_resolve__blob_of(tm_buf *out, git_repository *repo,
			const struct tm_resolve__conflict *c, int stage);

/* A new entry of `r` for `path` (copied), `note` copied or NULL; the
 * other fields zero. */
tm_resolve_entry *tm_resolve__add_entry(tm_resolve_report *r, const char *path,
					tm_resolve_outcome outcome,
					const char *note);

/* Stage working-tree file `path`.  Errors: TM_ERROR "cannot stage". */
int tm_resolve__stage_path(git_index *index, const char *path);

/*
 * Same id, different threads (DESIGN.md section 11): split them, or send
 * an edit to its thread (tm_resolve_index).  *done false when the file is
 * to be merged as one thread (side[0] emptied for BOTH_OTHER: an add/add).
 */
int tm_resolve__identity(bool *done, tm_resolve_report *out,
			 git_repository *repo, git_index *index,
			 const struct tm_resolve__conflict *c, tm_buf side[3],
			 const char *id, const tm_merge_options *opts);

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
