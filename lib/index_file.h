/*
 * git's index file read directly, for the one question `status` asks of it
 * on every run: which paths are unmerged (have entries at a stage above 0).
 * libgit2 answers it too, but reads every entry into memory and hashes the
 * whole file first (git itself does not check the hash on a read); this
 * walks the entries in place.  Anything it does not fully understand is
 * left to libgit2 (the caller's), so that the answer is libgit2's.
 * Measured (callgrind, `status` on make bench's real-shaped repository, an
 * index of 1,263 entries, 122 KB): libgit2's read 7.0 M instructions, 4.1 M
 * of them SHA-1, plus 2.4 M for initialising libgit2; this walk 0.2 M.
 */
#ifndef TM_INDEX_FILE_H
#define TM_INDEX_FILE_H

#include "buf.h"

#include <stdbool.h>

/*
 * Append to `out` the unmerged paths of the index file at `path` that
 * start with `prefix`, once each, in index order (libgit2's conflict
 * iterator's order).  A missing file is an empty index.  Returns false,
 * with `out` unchanged, when the file is one this reader does not take:
 * unreadable, not versions 2 to 4, a mandatory extension (split or sparse
 * index), entries out of order, anything malformed, or unmerged paths that
 * a case-insensitive sort would order differently (core.ignorecase): the
 * caller asks libgit2 then.  Never sets an error.
 */
bool tm_index_file_conflicts(tm_strv *out, const char *path,
			     const char *prefix);

#endif
