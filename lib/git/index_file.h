/*
 * git's index file read directly, for the question `status` asks of it
 * on every run: which paths are unmerged (have entries at a stage above 0);
 * and for the staleness engine's first runs, the stage-0 entries of the
 * thread files (stale_worktree.c).
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
#include <stdint.h>

/* What tm_index_file_conflicts returns for a file it leaves to libgit2. */
#define TM_INDEX_FILE_ASK_LIBGIT2 1

/*
 * Bounds on a damaged or hostile index (docs/SECURITY.md, "Bounds"): no
 * entry's path may be PATH_MAX (4096) bytes or longer, the entry count
 * must fit the file (64 bytes an entry at least), and the paths of a
 * version 4 index (prefix-compressed) may expand to at most this many
 * times the file's size: a real index is under 2 (paths of 250 bytes
 * sharing all but 10: 3.5); a crafted 1 MiB one expanded to 2 GiB.
 */
#define TM_INDEX_FILE_EXPAND_MAX 16

/*
 * Append to `out` the unmerged paths of the index file at `path` that
 * start with `prefix`, once each, in index order (libgit2's conflict
 * iterator's order).  A missing file is an empty index.  `display` names
 * the file in messages (NULL: `path`).
 *
 * Returns 0 when answered; TM_INDEX_FILE_ASK_LIBGIT2, with `out`
 * unchanged and no error set, when the file is one this reader does not
 * take: unreadable, not versions 2 to 4, a mandatory extension (split or
 * sparse index), entries out of order, anything malformed, or unmerged
 * paths that a case-insensitive sort would order differently
 * (core.ignorecase): the caller asks libgit2 then.  TM_EPARSE, with
 * `out` unchanged, when the file is past the bounds above, which libgit2
 * would take gigabytes and seconds to read (it expands every path): the
 * message names the file, says what is wrong and how to rebuild it; the
 * caller reports it and does not ask libgit2.
 */
int tm_index_file_conflicts(tm_strv *out, const char *path, const char *display,
			    const char *prefix);

/*
 * Is the index file at `path` within the bounds above?  0 when it is, or
 * when this reader does not take it (missing, unreadable, another
 * format); TM_EPARSE (the message of tm_index_file_conflicts) when it is
 * past them.  For a caller about to have libgit2 read the whole index.
 */
int tm_index_file_check(const char *path, const char *display);

/* An entry of git's index: its path, blob id, stat data (git keeps the
 * low 32 bits of each) and whether its stat data vouch for the work
 * tree's file (stage 0, no assume-unchanged, skip-worktree or
 * intent-to-add flag). */
typedef struct {
	char *path;
	unsigned char id[20];
	uint32_t ctime_s, ctime_ns, mtime_s, mtime_ns, dev, ino, mode, size;
	bool vouched;
} tm_index_file_entry;

/*
 * The stage-0 entries of the index file at `path` whose paths start with
 * `prefix` (and are longer), and every .gitattributes entry (at any
 * stage), in index order, into *out (*n of them; free with
 * tm_index_file_entries_free), and the file's mtime (seconds,
 * nanoseconds) into mtime: an entry changed at or after it is racy (its
 * stat data prove nothing).  A missing file: none.  Returns what
 * tm_index_file_conflicts returns (TM_INDEX_FILE_ASK_LIBGIT2, TM_EPARSE:
 * *out NULL, no entry).
 */
int tm_index_file_entries(tm_index_file_entry **out, size_t *n,
			  int64_t mtime[2], const char *path,
			  const char *prefix);
void tm_index_file_entries_free(tm_index_file_entry *e, size_t n);

#endif
