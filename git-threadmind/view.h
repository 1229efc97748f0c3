/*
 * The read view (lib/include/threadmind/view.h) as status, tree and list
 * load it: warnings for what could not be read, progress while staleness
 * is computed, death on errors.
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

/*
 * tm_view_load and tm_view_mark for cli.project (`all`: every thread
 * shown), saying on stderr what they found: each file that could not be
 * read, an active thread that moved (recorded), why staleness could not
 * be computed, each object of the history skipped.  Dies on errors.
 */
void view_load(tm_view *v, bool all);

#endif
