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
 *   tm_store_rename_thread, which re-points its children added on its side
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

struct tm_store;

/*
 * What `git threadmind resolve` is waiting for in store `s` (DESIGN.md
 * section 11, "Conflicts are visible"): the store's files that the index
 * holds unmerged (when in git), appended to `unmerged`, and the thread
 * files whose content holds conflict markers
 * (tm_merge_has_conflict_markers), appended to `marked`; both as paths
 * relative to the store's root (".threadmind/threads/p/x.md"), sorted.
 * Files that cannot be read are left out.  Returns 0, or TM_ERROR when the
 * index or a folder cannot be read.
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
