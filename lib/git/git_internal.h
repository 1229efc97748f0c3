/*
 * For the library's own files only: the libgit2 repository behind a tm_git,
 * for modules (staleness) that need more of git than git.h offers.
 */
#ifndef TM_GIT_INTERNAL_H
#define TM_GIT_INTERNAL_H

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
 * FOR TESTS ONLY.  tm_git__set_fast_path(false) makes tm_git_open use
 * libgit2 for everything, as it did before the fast path (true: back to
 * normal); tm_git__libgit2_opened tells whether libgit2 has opened g's
 * repository yet.
 */
void tm_git__set_fast_path(bool on);
bool tm_git__libgit2_opened(const tm_git *g);

#endif
