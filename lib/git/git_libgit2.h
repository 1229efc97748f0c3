/*
 * The git layer's header for the library's layers above it that call
 * libgit2 themselves (store, stale, merge, app: never the CLI nor the
 * driver): the repository behind a tm_git, libgit2 started once, the one
 * bounded way to open an index.
 */
#ifndef TM_GIT_LIBGIT2_H
#define TM_GIT_LIBGIT2_H

#include "git.h"

#include <git2.h>

/*
 * The repository `g` wraps.  Owned by `g`: valid until tm_git_free(g), never
 * to be freed by the caller.
 */
git_repository *tm_git_repository(tm_git *g);

/*
 * Initialise libgit2 once per process (thread-safe; never shut down), with
 * the settings the library relies on.  Every lib/ file that calls libgit2
 * without a tm_git calls this first.  TM_ERROR when libgit2 cannot start.
 */
int tm_git_init(void);

/*
 * The index of `repo` as it is on disk now (libgit2's copy, read again when
 * the file changed since it was loaded), once the file is known to be
 * within the bounds of index_file.h: libgit2 expands every path of a
 * hostile one (1 MiB of version 4 entries: 2 GiB).  The only way lib/ opens
 * an index through libgit2.  Free *out with git_index_free.  TM_EPARSE: the
 * file is past the bounds (the message names it and how to rebuild it);
 * TM_ERROR: libgit2 cannot read it.
 */
int tm_git_index_open(git_index **out, git_repository *repo);

/*
 * Read object `id` of `odb` into *out, never allocating more than about
 * `max` bytes for it, whatever its header says (lib/git/git_alloc.c: no
 * git_odb_read_header first, which walks a delta's whole chain).  Free
 * *out with git_odb_object_free.  1: the object is larger than `max`
 * (*out NULL, nothing kept); < 0: libgit2 cannot read it (its error is
 * set, for tm_git_error).
 */
int tm_git_odb_read_bounded(git_odb_object **out, git_odb *odb,
			    const git_oid *id, size_t max);

/*
 * The tree of commit `commit` of `repo` into *out.  TM_ERROR ("cannot read
 * commit <oid>", with libgit2's reason) when the commit cannot be read.
 */
int tm_git_commit_tree_id(git_oid *out, git_repository *repo,
			  const git_oid *commit);

/*
 * The id of the entry at `path` (slashes allowed) in commit `c`'s tree into
 * *out when there is one of type `type`; false when there is none, or
 * another type, or the tree cannot be read (libgit2's error cleared).
 */
bool tm_git_commit_entry_id(git_oid *out, const git_commit *c, const char *path,
			    git_object_t type);

#endif
