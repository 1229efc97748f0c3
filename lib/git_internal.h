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
 * FOR TESTS ONLY.  tm_git__set_fast_path(false) makes tm_git_open use
 * libgit2 for everything, as it did before the fast path (true: back to
 * normal); tm_git__libgit2_opened tells whether libgit2 has opened g's
 * repository yet.
 */
void tm_git__set_fast_path(bool on);
bool tm_git__libgit2_opened(const tm_git *g);

#endif
