/*
 * `git threadmind resolve`: re-merge the conflicted thread and project files
 * of the index from their stages (1 ancestor, 2 ours, 3 theirs) with the
 * merge driver's rules, for merges the driver did not see (a clone without
 * the driver configured, a server-side merge).
 */
#ifndef TM_RESOLVE_H
#define TM_RESOLVE_H

#include "buf.h"
#include "git.h"
#include "merge.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	TM_RESOLVE_CLEAN,     /* merged without conflict, written and staged */
	TM_RESOLVE_CONFLICTS, /* merged, markers left in the body: written */
	TM_RESOLVE_SKIPPED,   /* left alone (see note) */
	TM_RESOLVE_SPLIT,     /* two threads of one id: both kept, staged */
	TM_RESOLVE_DROPPED,   /* ThreadMind 0.4's index: upgrade, git rm */
	TM_RESOLVE_FOLLOWED   /* an edit sent to its thread's other id */
} tm_resolve_outcome;

typedef struct {
	char *path; /* repository-relative */
	tm_resolve_outcome outcome;
	char *note; /* why it was skipped, or the merge's fallback note */
	/*
	 * TM_RESOLVE_SPLIT: the id the incoming thread took, its path, the
	 * side it came from ("theirs": stage 3) and the children re-pointed.
	 * TM_RESOLVE_FOLLOWED: the id and path of the thread whose edit was
	 * merged there, and the side the edit came from ("ours", "theirs").
	 */
	char *new_id;
	char *new_path;
	const char *moved_side;
	tm_strv repointed;
	/* SPLIT and FOLLOWED: the threads as people know them ("'Search' by
	 * ana-1a2b", tm_text_thread_name): `kept_name` holds the id at
	 * `path`, `moved_name` is the one at `new_id`. */
	char *kept_name;
	char *moved_name;
	/* FOLLOWED: the merge into new_path left conflict markers there (its
	 * three stages are in the index) */
	bool conflicted;
	/* Re-merged from the conflict markers in the file (not from index
	 * stages): where its sides and its ancestor came from, for messages
	 * ("the conflict markers committed in 1a2b3c4, against the merge
	 * base 5d6e7f8 of its parents"); NULL otherwise. */
	char *from;
} tm_resolve_entry;

typedef struct {
	tm_resolve_entry *items;
	size_t n;
	size_t alloc;
	tm_git_op op; /* the git operation the conflicts come from */
} tm_resolve_report;

/*
 * Re-merge the conflicted files of g's index: those named in `paths`
 * (repository-relative; NULL or empty: every conflicted thread or project
 * file under a `.threadmind/` folder).  Each is written to the working tree
 * atomically; a clean result is also staged (the index is written once at
 * the end).  A file deleted on one side, or one that is neither a thread nor
 * a project file, is skipped with a note.  A ThreadMind 0.4 index
 * (trees/{project}.json: tm_migrate_is_04_index) that a merge brought back
 * goes through the upgrade (tm_migrate_run), then its deletion is staged
 * (TM_RESOLVE_DROPPED).
 *
 * A thread file whose sides hold different threads (tm_merge_thread_identity;
 * DESIGN.md section 11, "Same id born on two branches") is never merged
 * field by field:
 * - TWO_THREADS (added on both sides, or replaced on both sides): split.
 *   Ours, the side already in the branch being merged into (HEAD: the
 *   upstream in a rebase), keeps the id and the file; theirs takes the next
 *   free id (`<id>-2`, ... free in the working tree and the index) through
 *   tm_ops_rename_thread, which re-points its children added on its side
 *   (those whose parentId is the id in the merged tree but not in HEAD's)
 *   and, when config.json's activeThreadIdentity says that this clone
 *   knows the id as that thread (without one: during a rebase, which
 *   replays this clone's commits), config.json's references; everything
 *   is staged (TM_RESOLVE_SPLIT).
 * - OURS_OTHER / THEIRS_OTHER (one side edits the ancestor's thread, the
 *   other holds another thread at the id: an earlier split moved the
 *   ancestor's thread to another id there): the edit is merged into the
 *   file of the index (stage 0, same project) whose thread has the
 *   ancestor's identity, which is written and staged (or, when that merge
 *   conflicts, written with markers and its three stages put in the
 *   index); the id keeps the other side's thread, staged
 *   (TM_RESOLVE_FOLLOWED).  When no such file exists, it is split as
 *   above.
 * - BOTH_OTHER: merged as an add/add.
 * `opts` gives the marker size and style (its path is set per file).
 * TM_ENOTFOUND when a named path has no conflict; TM_ERROR on git errors.
 */
int tm_resolve_index(tm_resolve_report *out, tm_git *g, const tm_strv *paths,
		     const tm_merge_options *opts);
void tm_resolve_report_clear(tm_resolve_report *r);

/* Where tm_resolve_files takes the two sides of a file from. */
typedef enum {
	/* the index stages; for a file without stages that holds conflict
	 * markers (committed or staged by a merge made without the driver),
	 * the markers */
	TM_RESOLVE_FROM_ANY,
	/* the markers in the file, even when the index has stages for it
	 * (`resolve --committed`) */
	TM_RESOLVE_FROM_MARKERS
} tm_resolve_from;

/*
 * tm_resolve_index, also for files whose conflict markers git no longer
 * lists as a conflict: a merge made without the driver (a server's
 * `merge-tree` + `commit-tree`, a `git add` of a conflicted file) committed
 * or staged a thread or project file holding markers.  Such a file is
 * re-merged from its markers' two sides (tm_resolve_split_markers: ours is
 * the first block of each conflict, theirs the second, the text outside
 * them both sides' own), against the ancestor found in history: the file
 * in the merge base of the parents of the merge commit that introduced the
 * markers (the newest commit of HEAD's history whose version holds them
 * when its parents' versions do not); while a merge, cherry-pick or rebase
 * is in progress and HEAD's version holds none, the merge base of HEAD and
 * MERGE_HEAD, or the parent of CHERRY_PICK_HEAD / REBASE_HEAD; else the
 * ancestor blocks of diff3-style markers when every conflict has one; else
 * none, a file added on both sides.  The result is written and, when
 * clean, staged, as for index conflicts (two threads of one id are split);
 * the entry's `from` says where the sides came from.
 *
 * With TM_RESOLVE_FROM_ANY a named path that is neither unmerged nor holds
 * markers is TM_ENOTFOUND; without `paths`, every unmerged file is taken
 * from the index and every thread or project file holding markers without
 * index stages from its markers.  With TM_RESOLVE_FROM_MARKERS only files
 * holding markers are taken, from their markers.  Markers that do not pair
 * up leave the file alone, skipped with a note.
 */
int tm_resolve_files(tm_resolve_report *out, tm_git *g, const tm_strv *paths,
		     const tm_merge_options *opts, tm_resolve_from from);

/*
 * The sides of a text holding conflict markers (tm_resolve_split_markers).
 * Each conflict is a line of N >= 7 '<' (then a blank or the end of the
 * line), ours' lines, optionally a line of N '|' and the ancestor's lines
 * (diff3, zdiff3), a line of N '=', theirs' lines and a line of N '>'.
 */
typedef struct {
	tm_buf ours;        /* the text with each conflict's first block */
	tm_buf theirs;      /* ... with its second block */
	tm_buf base;        /* ... with its ancestor block (or nothing) */
	bool base_complete; /* every conflict had an ancestor block */
	size_t conflicts;   /* how many conflicts there were */
} tm_resolve_sides;

/*
 * Split `len` bytes of `data` into *out (zeroed first; clear it with
 * tm_resolve_sides_clear).  Lines outside conflicts go to every side, line
 * ends kept.  Outside a conflict, lines inside a fenced code block (``` or
 * ~~~ at the start of a line) are text, as for
 * tm_conflict_markers_left; inside one, marker lines of another size
 * are text (git's inner markers of a recursive merge are longer).  A text
 * without markers gives three copies and `conflicts` 0.  Returns 0, or
 * TM_EPARSE when a conflict is not closed ("a conflict opened at line N
 * is not closed ...").
 */
int tm_resolve_split_markers(tm_resolve_sides *out, const char *data,
			     size_t len);
void tm_resolve_sides_clear(tm_resolve_sides *s);

struct tm_store;

/*
 * What `git threadmind resolve` is waiting for in store `s` (DESIGN.md
 * section 11, "Conflicts are visible"): the store's files that the index
 * holds unmerged (when in git), appended to `unmerged`, and the thread
 * files whose content holds conflict markers
 * (tm_conflict_markers_left), appended to `marked`; both as paths
 * relative to the store's root (".threadmind/threads/p/x.md"), sorted.
 * Files that cannot be read are left out.  Returns 0, or TM_ERROR when the
 * index or a folder cannot be read, or TM_EPARSE when the index is
 * damaged past the bounds of index_file.h (then `unmerged` is left as it
 * was, and `marked` is still filled).
 */
int tm_resolve_pending(tm_strv *unmerged, tm_strv *marked, struct tm_store *s);

/*
 * The same, with the threads of `project` just loaded into `loaded`
 * (tm_store_load_all): their files are not read again, `loaded->marked`
 * says which hold markers (status reads every thread file once, not twice).
 */
int tm_resolve_pending_loaded(tm_strv *unmerged, tm_strv *marked,
			      struct tm_store *s, const char *project,
			      const tm_thread_list *loaded);

#endif
