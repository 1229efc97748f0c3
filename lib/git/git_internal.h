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

/*
 * Give back the pages of git's pack files (*.pack) that this process has
 * mapped, when its resident memory passes `keep` bytes: they stay in the
 * kernel's page cache, and libgit2 maps them again as it reads them
 * (git_mapped.c says why).  Linux only; elsewhere nothing.  libgit2's
 * allocator calls it with TM_GIT_PAGES_KEPT every TM_GIT_PAGES_EVERY bytes
 * it hands out (git_alloc.c): what reads inflate follows what they map.
 * The bound leaves room under issue 20's 128 MiB for what the process
 * allocates between two calls (about 8 MiB on git/git).
 */
#define TM_GIT_PAGES_KEPT  ((size_t)112 << 20)
#define TM_GIT_PAGES_EVERY ((size_t)8 << 20)
void tm_git__pack_pages_trim(size_t keep);

#endif
