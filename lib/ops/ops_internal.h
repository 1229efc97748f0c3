/*
 * Helpers shared by the ops files only: the steps every operation
 * of ops.h takes.
 */
#ifndef TM_OPS_INTERNAL_H
#define TM_OPS_INTERNAL_H

#include "ops.h"
#include "store_files.h"

/* tm_id_validate of a project id and a thread id. */
int tm_ops_check_ids(const char *project, const char *id);
/*
 * The start of an edit of one thread: check the ids, take the store's
 * lock, load the thread into *out (the caller's to free, and to unlock
 * after: tm_store_unlock_after).  On error nothing is locked or loaded.
 */
int tm_ops_lock_thread(tm_thread **out, tm_store *s, const char *project,
		       const char *id);
/*
 * The start of an edit of a whole project: `project` checked as an id, the
 * store locked, the project required to exist (the ids of every project
 * into `ids`), config.json read into *cfg (each such edit changes it; one
 * that cannot be read stops the edit before any change).  The caller frees
 * *cfg and unlocks (tm_store_unlock_after); on error nothing is left locked.
 */
int tm_ops_lock_project(tm_strv *ids, tm_config **cfg, tm_store *s,
			const char *project);
/* tm_thread_touch `t`, then write it. */
int tm_ops_touch_save(tm_store *s, const char *project, tm_thread *t,
		      bool summary_changed);

#endif
