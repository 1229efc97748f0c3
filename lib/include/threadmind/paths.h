/*
 * The `paths` of a thread as typed on the command line (`new --paths`,
 * `set paths=`): read as git reads a pathspec, relative to the current
 * folder, and stored from the repository root (DESIGN.md section 11);
 * which entries match nothing in a repository, and which were renamed.
 */
#ifndef TM_PATHS_H
#define TM_PATHS_H

#include "buf.h"
#include "git.h"

#include <stdbool.h>

/*
 * Where folder `cwd` lies in work tree `root` (both absolute, as the same
 * kind of path: physical or not, trailing '/' allowed): "" at the root,
 * "a/b/" below it; NULL when `cwd` is not in the tree.  Pure; malloc'd.
 */
char *tm_paths_prefix(const char *root, const char *cwd);

/*
 * The `paths` entry for `typed`, a path typed in folder `prefix`
 * (tm_paths_prefix) of work tree `root`, into *out (malloc'd):
 * - pathspec magic (a leading ':', as ":(exclude)x" or ":/x") is kept as
 *   typed, byte for byte;
 * - otherwise the path is joined to `prefix` (an absolute one is taken
 *   from `root` instead), then normalised: empty and "." components
 *   dropped, ".." removes the previous one; a trailing '/' is kept; glob
 *   characters (* ? [ \) are kept as typed.  The root itself is ".".
 * Pure.  TM_EINVALID ("'x' is outside the repository at 'root'") for an
 * empty path, an absolute path not under `root`, or one climbing above it.
 */
int tm_paths_normalize(char **out, const char *root, const char *prefix,
		       const char *typed);

/* Does `entry` have pathspec magic (a leading ':')? */
bool tm_paths_is_magic(const char *entry);
/* Does `entry` have glob characters (* ? [ or \)? */
bool tm_paths_is_glob(const char *entry);

/*
 * The entries of `entries` (n of them) that match no file of HEAD's tree
 * (tm_pathspec_matches), appended to *unmatched in order; with `worktree`,
 * an entry matching a file of the index or (without glob characters) a
 * path that exists in the work tree is not reported either.  Entries with
 * magic are never reported (not checked).  No HEAD (unborn branch): every
 * entry is checked against the index and work tree only.  TM_ERROR when
 * git cannot be read.
 */
int tm_paths_unmatched(tm_strv *unmatched, tm_git *g,
		       const char *const *entries, size_t n, bool worktree);

/* How far back (commits from HEAD) doctor and stale look for the rename of
 * a vanished path: the recent history, so that they stay quick on a long
 * one. */
#define TM_PATHS_RENAME_DEPTH 1000

/* The most work (an entry checked against a commit, or a tree entry read)
 * one rename search does (docs/SECURITY.md): some 0.3 s of CPU. */
#define TM_PATHS_RENAME_WORK 1000000

/* A rename of what a `paths` entry named. */
typedef struct {
	char *entry;     /* the entry (a copy) */
	char *to;        /* its new name (a folder's ends in '/' when the
			    entry did) */
	char commit[41]; /* the commit that renamed it */
} tm_paths_rename;

/*
 * For each plain entry of `entries` (no glob, no magic, not the root) that
 * HEAD's tree does not hold (an entry the work tree has is taken as held,
 * one lstat instead of reading trees), the newest rename of what it named
 * within the `depth` newest commits of HEAD's history (git's time order; 1:
 * HEAD alone): a commit whose first parent's tree has the path and whose own
 * tree does not, diffed with rename detection (a file renamed, or a folder
 * whose files kept their place under a new name).  A path removed without
 * a rename stops the search for it.  The renames found are appended to
 * *out (*n of them; free with tm_paths_renames_free), in the order of
 * `entries`.  Never fails: git errors leave entries without a rename.
 *
 * Each folder of a commit's tree is read once (a map from folder to its
 * tree), a folder with the same id in a commit and its parent is not read,
 * and the work is bounded: past TM_PATHS_RENAME_WORK (entries checked plus
 * tree entries read) the search stops, the entries not found yet left
 * without a rename, and true is returned (false: the search was complete).
 */
bool tm_paths_find_renames(tm_paths_rename **out, size_t *n, tm_git *g,
			   const tm_strv *entries, unsigned depth);
void tm_paths_renames_free(tm_paths_rename *r, size_t n);

/* `paths` with each entry that one of the n renames `r` names replaced by
 * its new name, appended to *out: the `set paths=` that follows them. */
void tm_paths_follow_renames(tm_strv *out, const tm_strv *paths,
			     const tm_paths_rename *r, size_t n);

#endif
