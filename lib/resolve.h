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

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	TM_RESOLVE_CLEAN,     /* merged without conflict, written and staged */
	TM_RESOLVE_CONFLICTS, /* merged, markers left in the body: written */
	TM_RESOLVE_SKIPPED    /* left alone (see note) */
} tm_resolve_outcome;

typedef struct {
	char *path; /* repository-relative */
	tm_resolve_outcome outcome;
	char *note; /* why it was skipped, or the merge's fallback note */
} tm_resolve_entry;

typedef struct {
	tm_resolve_entry *items;
	size_t n;
	size_t alloc;
} tm_resolve_report;

/*
 * Re-merge the conflicted files of g's index: those named in `paths`
 * (repository-relative; NULL or empty: every conflicted thread or project
 * file under a `.threadmind/` folder).  Each is written to the working tree
 * atomically; a clean result is also staged (the index is written once at
 * the end).  A file deleted on one side, or one that is neither a thread nor
 * a project file, is skipped with a note.  `opts` gives the marker size and
 * style (its path is set per file).  TM_ENOTFOUND when a named path has no
 * conflict; TM_ERROR on git errors.
 */
int tm_resolve_index(tm_resolve_report *out, tm_git *g, const tm_strv *paths,
		     const tm_merge_options *opts);
void tm_resolve_report_clear(tm_resolve_report *r);

#endif
