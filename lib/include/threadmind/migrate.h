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

/* Is there anything for `tm_migrate_run` to do (a `trees/{project}.json` index,
 * or `stats/` when pruning)?  A trees/ folder that cannot be listed counts
 * (the run says why); set-aside `.json.invalid` files do not. */
bool tm_migrate_needed(tm_store *s, bool prune);

/*
 * Align every thread file on its project's trees/{project}.json (the index's
 * parent wins), then delete the index (and `trees/` once empty); with
 * `prune`, also delete `stats/`.  With `dry_run` nothing is written and the
 * lines speak in the conditional ("would delete …").  Takes the store lock.
 *
 * The upgrade never dead-ends: it applies what it can and reports the rest.
 * One human-readable line per change (made, or with `dry_run` that would be
 * made) goes to `report`; one line per thing left for a human, naming the
 * file and what to do, goes to `left`:
 * - a thread file named by the index that cannot be read: the other links
 *   are applied, the index is kept (until the file is fixed and migrate runs
 *   again);
 * - an index that cannot be read, does not parse, has no valid entry (each
 *   entry is named in `report`) or whose name is no project id: it is set
 *   aside as trees/{name}.invalid (trees/{name}.invalid-2, … when taken),
 *   so that it stops nothing; the parents are for a human to check;
 * - a trees/ folder that cannot be listed.
 * Errors: only those of the lock and of the writes: TM_ELOCKED when the
 * lock cannot be taken (nothing is written), or when another process takes
 * it over between two writes ("lost the lock": the upgrade stops before
 * the next write, what was written stays; run it again); TM_ERROR.
 */
int tm_migrate_run(tm_strv *report, tm_strv *left, tm_store *s, bool dry_run,
		   bool prune);

/* Is `path` (from any top: ".threadmind/trees/p.json",
 * "sub/.threadmind/trees/p.json") a ThreadMind 0.4 index? */
bool tm_migrate_is_04_index(const char *path);

/* What to say of a ThreadMind 0.4 index that a merge left unmerged (status,
 * doctor): who writes it and what to do.  A static string. */
const char *tm_migrate_came_back_advice(void);

/* The line that ends an upgrade that changed files: commit it, and the
 * whole team upgrades together (0.4 cannot read the store after it).  A
 * static string. */
const char *tm_migrate_closing_line(void);

#endif
