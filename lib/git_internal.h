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

#endif
