/*
 * For lib/git/ and its tests only: the test seams of the fast path.
 */
#ifndef TM_GIT_INTERNAL_H
#define TM_GIT_INTERNAL_H

#include "git_libgit2.h"

#include <stdbool.h>

/*
 * FOR TESTS ONLY.  tm_git__set_fast_path(false) makes tm_git_open use
 * libgit2 for everything, as it did before the fast path (true: back to
 * normal); tm_git__libgit2_opened tells whether libgit2 has opened g's
 * repository yet.
 */
void tm_git__set_fast_path(bool on);
bool tm_git__libgit2_opened(const tm_git *g);

/* libgit2's allocator that tm_git_odb_read_bounded bounds (tm_git_init
 * installs it); <0 when libgit2 refuses it. */
int tm_git__alloc_install(void);

/*
 * FOR TESTS ONLY.  Whether the last tm_git_odb_read_bounded of this
 * thread refused an allocation past its bound (rather than reading the
 * object whole and finding it too large).
 */
bool tm_git__alloc_refused(void);

#endif
