/*
 * Helpers shared by ops.c and ops_tree.c only: the steps every operation
 * of ops.h takes.
 */
#ifndef TM_OPS_INTERNAL_H
#define TM_OPS_INTERNAL_H

#include "ops.h"
#include "store_files.h"

/* tm_id_validate of a project id and a thread id. */
int tm_ops_check_ids(const char *project, const char *id);
/* tm_thread_touch `t`, then write it. */
int tm_ops_touch_save(tm_store *s, const char *project, tm_thread *t,
		      bool summary_changed);

#endif
