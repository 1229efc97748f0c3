/*
 * The thread tree built from each thread's parentId, orphans and broken
 * cycles shown as roots.  Pure (no I/O) and free of recursion.
 */
#ifndef TM_TREE_H
#define TM_TREE_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>

enum {
	TM_TREE_ORPHAN = 1 << 0, /* parentId names no thread: shown as a root */
	TM_TREE_CYCLE = 1 << 1   /* a parent cycle was broken here: a root */
};

typedef struct {
	const tm_thread *thread; /* borrowed */
	long parent;             /* node index of the parent, -1 for a root */
	size_t *children;        /* node indexes, sorted; NULL when none */
	size_t nchildren;
	unsigned flags; /* TM_TREE_ORPHAN / TM_TREE_CYCLE */
	size_t depth;   /* 0 for roots */
} tm_tree_node;

typedef struct tm_tree {
	tm_tree_node *nodes; /* nodes[i] is threads[i] */
	size_t n;
	size_t *roots; /* ordered like children */
	size_t nroots;
} tm_tree;

/*
 * Build the tree of the `n` threads in `threads` into *out (free it with
 * tm_tree_free).  The threads are borrowed and must outlive the tree; node
 * i is threads[i].
 *
 * A thread whose parent_id is NULL is a root.  One whose parent_id names no
 * thread is a root flagged TM_TREE_ORPHAN.  Each parent cycle (a thread that
 * is its own parent included) is broken at its member with the earliest
 * createdAt (ties by id): that member becomes a root flagged TM_TREE_CYCLE
 * and the other members hang below it, so every thread appears exactly
 * once.  Siblings and roots are ordered by createdAt compared as instants
 * (tm_time_cmp: missing or unparseable timestamps first), then by id
 * (strcmp).  O(n log n).
 *
 * Returns 0, or TM_EINVALID (naming the thread) when an entry is NULL, has
 * no id, or two entries have the same id.  *out is written only on success.
 */
int tm_tree_build(tm_tree **out, const tm_thread *const *threads, size_t n);

/* Free a tree (not the threads it borrows); NULL is allowed. */
void tm_tree_free(tm_tree *tree);

/* Node index of the thread `id` (binary search, O(log n)), or -1 when no
 * thread has that id or `id` is NULL. */
long tm_tree_find(const tm_tree *tree, const char *id);

/*
 * Called by tm_tree_walk for each node; a non-zero return stops the walk.
 */
typedef int (*tm_tree_visit_fn)(const tm_tree *tree, size_t node,
				void *payload);

/*
 * Pre-order walk: each root in order, each node before its children, the
 * children in order.  Calls `fn(tree, node, payload)` once per node, without
 * recursion.  Returns 0 after the last node, or the first non-zero value fn
 * returned (the walk stops there).
 */
int tm_tree_walk(const tm_tree *tree, tm_tree_visit_fn fn, void *payload);

/*
 * True when node `ancestor` is a strict ancestor of node `node` in the built
 * tree (a node is not its own ancestor).  O(1).  False for indexes out of
 * range.
 */
bool tm_tree_is_ancestor(const tm_tree *tree, size_t ancestor, size_t node);

/*
 * Would setting thread `id`'s parentId to `new_parent` create a cycle in
 * the files?  True when the parent chain of `new_parent`, followed through
 * each file's parentId (also where the built tree broke a cycle), reaches
 * `id`; `new_parent` equal to `id` is a cycle.  False when `new_parent` is
 * NULL (a root), or the chain ends at a root, at a missing thread, or loops
 * in a cycle that does not contain `id`.  For `move`.  O(n log n) at worst.
 */
bool tm_tree_would_cycle(const tm_tree *tree, const char *id,
			 const char *new_parent);

/*
 * True when the node is the last of its siblings (the last root for a
 * root), for drawing box lines.  False for an index out of range.
 */
bool tm_tree_is_last_child(const tm_tree *tree, size_t node);

#endif
