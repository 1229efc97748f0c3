/*
 * The project as the read-only commands see it: every readable thread, the
 * tree built from them, the active thread, which nodes are shown.
 */
#ifndef TM_CLI_VIEW_H
#define TM_CLI_VIEW_H

#include "cli.h"

/*
 * The deepest level drawn with its own indentation by `tree` (and indented
 * by `tree --json`): deeper threads are drawn at this level with their
 * depth as a marker, so that a hostile 100,000-deep parent chain gives
 * output linear in its size, not quadratic (docs/SECURITY.md).
 */
#define VIEW_MAX_DEPTH 16

struct view {
	tm_thread_list list;
	tm_tree *tree;
	char *active;  /* active thread id */
	size_t *order; /* node indexes in pre-order */
	size_t norder;
	bool *shown;        /* per node: shown without --all? */
	unsigned *flags;    /* per node: tree flags | CLI_FLAG_* */
	bool stale_unknown; /* staleness could not be computed (warned) */
	bool stale_partial; /* objects of the history were skipped (warned):
			       the stale flags are not a known answer */
};

/*
 * Load the project (warning once per unreadable file), build the tree, the
 * pre-order and the visibility: with `all` every node is shown; otherwise a
 * finished thread is shown only when it has an unfinished descendant or
 * holds lines the thread it was merged into lacks (CLI_FLAG_UNINTEGRATED).
 */
void view_load(struct view *v, bool all);
void view_free(struct view *v);

/* Is node i the active thread? */
bool view_is_active(const struct view *v, size_t i);

#endif
