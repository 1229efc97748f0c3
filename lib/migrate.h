/*
 * The upgrade from ThreadMind 0.4: `trees/{project}.json` (an index that
 * duplicated each thread's parent and used to be authoritative) is applied
 * to the thread files, then deleted.  `stats/` is left alone unless pruned.
 */
#ifndef TM_MIGRATE_H
#define TM_MIGRATE_H

#include "buf.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>

/* One id → parent link of an index (parent NULL for a root). */
typedef struct {
	char *id;
	char *parent;
} tm_migrate_link;

typedef struct {
	tm_migrate_link *links;
	size_t n;
	size_t alloc;
	tm_strv skipped; /* entries that were not understood, for the report */
} tm_migrate_index;

/*
 * Parse a 0.4 tree index.  Accepted shapes (the exact one is unknown): an
 * object id → parent (string or null); id → {"parentId"|"parent": …}; any of
 * those, or an array of {"id", "parentId"|"parent"}, under a "nodes",
 * "threads", "tree" or "root" member; a nested {"id", "children": […]} tree
 * (or an array of them).  An entry whose id is not a valid thread id is
 * skipped and named in `skipped`.  TM_EPARSE for invalid JSON or a shape with
 * no link at all.  `path` names the file in messages.
 */
int tm_migrate_parse_index(tm_migrate_index *out, const char *data, size_t len,
			   const char *path);
void tm_migrate_index_clear(tm_migrate_index *idx);

/* Is there anything for `tm_migrate_run` to do (`trees/`, or `stats/` when
 * pruning)? */
bool tm_migrate_needed(tm_store *s, bool prune);

/*
 * Align every thread file on its project's trees/{project}.json (the index's
 * parent wins), then delete the index (and `trees/` once empty); with
 * `prune`, also delete `stats/`.  With `dry_run` nothing is written.  One
 * human-readable line per change goes to `report`.  Takes the store lock.
 * A thread file that cannot be read, or an index that does not parse, stops
 * the upgrade of that project before anything of it is deleted (error).
 * Errors: TM_EPARSE (that file or index); TM_ELOCKED when the lock cannot
 * be taken (nothing is written), or when another process takes it over
 * between two writes ("lost the lock": the upgrade stops before the next
 * write, what was written stays; `report` ends with the change it stopped
 * at; run it again); TM_ERROR on I/O.
 */
int tm_migrate_run(tm_strv *report, tm_store *s, bool dry_run, bool prune);

#endif
