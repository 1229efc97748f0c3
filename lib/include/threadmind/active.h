/*
 * Which thread a session starts on (DESIGN.md section 3), from the branch,
 * config.json and the project's threads.  Pure: no I/O.
 */
#ifndef TM_ACTIVE_H
#define TM_ACTIVE_H

#include "model.h"

#include <stddef.h>

/*
 * Resolve the active thread of a project.
 *
 * `branch` is the current git branch (NULL outside git or on a detached
 * HEAD), `branch_thread` is branchThreads[P][branch] from config.json (or
 * NULL), `active_id` is activeThreadId (or NULL), and `threads` the `n`
 * threads of the project; NULL entries (unreadable files) and entries with
 * no id are skipped.  "Exists" means a thread of that id is in `threads`,
 * whatever its status.
 *
 * With a branch: `branch_thread` if it exists; else the most recently
 * updated thread (updatedAt compared as instants with tm_time_cmp, ties
 * broken by the greatest id) that has no status and whose `branch` equals
 * `branch`; else `active_id` if it exists; else "main".  Without a branch:
 * `active_id` if it exists, else "main" (returned even when no thread
 * main exists).
 *
 * Returns a malloc'd id that the caller frees; never NULL.  When `reason`
 * is not NULL it is set to a static string naming the rule that decided:
 * "branchThreads", "branch", "activeThreadId" or "default".
 */
char *tm_active_resolve(const char *branch, const char *branch_thread,
			const char *active_id, const tm_thread *const *threads,
			size_t n, const char **reason);

#endif
