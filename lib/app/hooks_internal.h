/*
 * For lib/app/hooks*.c only: what the hooks' files share.
 */
#ifndef TM_HOOKS_INTERNAL_H
#define TM_HOOKS_INTERNAL_H

#include "hooks.h"
#include "paths_index.h"

#include <stdbool.h>

struct tm_git;

/* A boolean config value (`git -c` included); `dflt` when unset or bad. */
bool tm_hook__config_bool(struct tm_git *g, const char *key, bool dflt);
/* TM_ELOCKED: the deadline passed before the lock could be taken. */
int tm_hook__out_of_time(void);
/*
 * The threads that have `paths`, frontmatter-only, through the index of
 * paths_index.h: one lstat a file, the changed ones read again.
 * Unreadable files are skipped: the hooks only report.  TM_ETIMEOUT for a
 * load the deadline cut short (never a partial list).
 */
int tm_hook__load_with_paths(tm_paths_index_list *out, tm_store *s,
			     const char *project);

#endif
