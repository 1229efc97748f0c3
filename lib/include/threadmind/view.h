/*
 * The read view of a project that `status`, `tree` and `list` share: every
 * readable thread, what could not be read (per file, and why), the tree
 * built from them, the active thread, and per thread its flags (stale,
 * awaiting a summary, unintegrated) and whether it is shown without --all.
 * The rules of what is flagged and what is hidden live here, not in the
 * commands.  Reads only: nothing is written.
 */
#ifndef TM_VIEW_H
#define TM_VIEW_H

#include "stale.h"
#include "store.h"
#include "tree.h"

#include <stdbool.h>
#include <stddef.h>

/* Flags of a thread in the view, beside TM_TREE_ORPHAN and TM_TREE_CYCLE. */
#define TM_VIEW_STALE      (1u << 8)
#define TM_VIEW_UNREADABLE (1u << 9)
/* Its staleness awaits a summary (tm_stale_awaits_summary): text output
 * shows it, --json does not (docs/json.md). */
#define TM_VIEW_NO_SUMMARY (1u << 10)
/* Merged, holding lines its parent lacks (reintegrate.h). */
#define TM_VIEW_UNINTEGRATED (1u << 11)

/* Why a thread file could not be read. */
typedef enum {
	TM_LOAD_UNREADABLE = 0, /* any other reason: the message says */
	TM_LOAD_MARKERS,        /* it holds merge conflict markers */
	TM_LOAD_UNMERGED        /* a merge left it conflicted in the index */
} tm_load_error_kind;

/* One file left out.  The strings are the thread list's (its error_paths
 * and errors): valid while it is. */
typedef struct {
	const char *path; /* relative to the store's root:
			     ".threadmind/threads/p/x.md" */
	tm_load_error_kind kind;
	const char *message; /* the load's own message, naming the file */
} tm_load_error;

typedef struct {
	tm_load_error *items;
	size_t n;
} tm_load_errors;

/*
 * tm_store_load_all, with each file that could not be read in `errors`
 * (in the order of out->errors) and why: conflict markers, an unmerged
 * entry in git's index (tm_resolve_pending_loaded), or another reason.  An
 * error reading git's index only leaves those files TM_LOAD_UNREADABLE.
 * Errors: those of tm_store_load_all; *out and *errors are initialised in
 * any case (tm_thread_list_clear, tm_load_errors_clear: `errors` points
 * into `out`, clear it first or with it).
 */
int tm_view_load_threads(tm_thread_list *out, tm_load_errors *errors,
			 tm_store *s, const char *project);
void tm_load_errors_clear(tm_load_errors *e);

typedef struct {
	tm_thread_list list;
	tm_load_errors errors; /* the files of list.errors, and why */
	tm_tree *tree;
	char *active;          /* the active thread's id */
	tm_active_moved moved; /* the active thread config.json named moved
				  (tm_store_active_thread_checked): the
				  caller says so and records `active` */
	size_t *order;         /* node indexes in pre-order */
	size_t norder;
	unsigned *flags; /* per node: its tree flags | TM_VIEW_* */
	bool *shown;     /* per node: shown without --all (tm_view_mark) */
	/* staleness (tm_view_mark) */
	char *stale_error;      /* it could not be computed: why (else NULL) */
	tm_strv stale_warnings; /* objects of the history skipped, one each:
				   the stale flags are then not a known
				   answer */
} tm_view;

/*
 * The view of `project`, in two steps so that a caller can report what the
 * first found before the second's long work: tm_view_load reads the
 * threads (tm_view_load_threads), builds the tree and its pre-order, finds
 * the active thread and sets each node's tree flags and TM_VIEW_NO_SUMMARY.
 * Errors: those of tm_view_load_threads, tm_tree_build and
 * tm_store_active_thread_checked; *v is initialised in any case
 * (tm_view_free).
 */
int tm_view_load(tm_view *v, tm_store *s, const char *project);

/*
 * The second step: flag the stale threads (DESIGN.md section 4, one
 * computation for the project; outside git none is; `opts` as
 * tm_stale_compute_opts takes them, NULL for none) and the unintegrated
 * ones, then decide which are shown: with `all` every thread; otherwise a
 * finished thread only when it has an unfinished descendant or is
 * unintegrated (nothing is hidden that no parent holds).  Staleness that
 * cannot be computed is no error: stale_error says why.
 */
void tm_view_mark(tm_view *v, tm_store *s, const char *project, bool all,
		  tm_stale_options *opts);

/*
 * Does `list` show node `i`?  With `all` (or --status, which picks
 * finished threads by itself) every thread; otherwise only the unfinished
 * ones: a flat list has no tree to keep connected, so the descendants and
 * unintegrated threads that keep a finished thread in `tree` (v->shown) do
 * not keep it here.
 */
bool tm_view_listed(const tm_view *v, size_t i, bool all);

/* Is node `i` the active thread? */
bool tm_view_is_active(const tm_view *v, size_t i);

void tm_view_free(tm_view *v);

#endif
