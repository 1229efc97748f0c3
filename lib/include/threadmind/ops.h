/*
 * The store's read-modify-write operations on threads, one per command
 * that changes the store (rm, move, merge, done/abandon/reopen, set,
 * summary/edit, touch, project use).  Each takes the store lock itself and
 * releases it on every path, writes nothing before every check passed, and
 * returns 0 or a negative TM_E* code with a tm_error_set message; results
 * the commands print come back through out-structs, written on success.
 */
#ifndef TM_OPS_H
#define TM_OPS_H

#include "assign.h"
#include "store.h"
#include "summary.h"

#include <stdbool.h>
#include <stddef.h>

/* Told about each thread file that could not be read (the file is left
 * out of the operation); `msg` names the file and the reason. */
typedef void (*tm_store_warn_cb)(const char *msg, void *payload);

/*
 * Set t->updatedAt to now; with `summary_changed`, also t->commit = HEAD
 * and t->branch = the current branch of the store's repository (each when
 * known).  Only `t` changes: nothing is written.
 */
void tm_thread_touch(tm_thread *t, tm_store *s, bool summary_changed);

/* ---- rm ---- */

typedef struct {
	unsigned version;      /* TM_REMOVE_OPTIONS_VERSION */
	bool recursive;        /* remove the subtree; else children move up */
	tm_store_warn_cb warn; /* unreadable thread files (may be NULL) */
	void *payload;         /* for warn */
} tm_remove_options;

#define TM_REMOVE_OPTIONS_VERSION 1
/* clang-format off */
#define TM_REMOVE_OPTIONS_INIT {TM_REMOVE_OPTIONS_VERSION, false, NULL, NULL}
/* clang-format on */

typedef struct {
	tm_strv removed;  /* the ids deleted, deepest first */
	size_t moved;     /* children given the removed thread's parent */
	char *new_parent; /* that parent (NULL: they became roots) */
} tm_remove_result;

/* Free what a tm_remove_result holds (and zero it). */
void tm_remove_result_clear(tm_remove_result *r);

/*
 * Delete thread `id` of `project`.  Without opts->recursive its children
 * (by their files' parentId) get its parent (in a two-thread cycle, none:
 * they become roots), each touched; with it, its whole subtree (by the
 * tree of readable files) goes, deepest first so that an interrupted rm
 * never leaves orphans.  config.json then forgets the deleted ids
 * (branchThreads, and activeThreadId when it is one of them in this
 * project); it is written only when that changed.  Everything is read,
 * and config.json parsed, before the first write; the lock is refreshed
 * between writes.  `opts` NULL means TM_REMOVE_OPTIONS_INIT.
 *
 * Errors: TM_EINVALID for `main`, for a subtree holding `main`, or bad
 * ids; TM_ENOTFOUND / TM_EPARSE when the thread cannot be read; TM_EPARSE
 * when config.json does not parse; TM_ELOCKED when the lock cannot be taken
 * or was taken over mid-way (the writes stop there); TM_ERROR on I/O.
 * *out is written on success only; clear it with tm_remove_result_clear.
 */
int tm_ops_remove_thread(tm_remove_result *out, tm_store *s,
			 const char *project, const char *id,
			 const tm_remove_options *opts);

/* ---- move ---- */

typedef struct {
	unsigned version;      /* TM_MOVE_OPTIONS_VERSION */
	tm_store_warn_cb warn; /* unreadable thread files (may be NULL) */
	void *payload;
} tm_move_options;

#define TM_MOVE_OPTIONS_VERSION 1
/* clang-format off */
#define TM_MOVE_OPTIONS_INIT {TM_MOVE_OPTIONS_VERSION, NULL, NULL}
/* clang-format on */

typedef struct {
	bool changed;     /* false: it already was under `parent` */
	char *old_parent; /* its parent before (NULL: it was a root) */
} tm_move_result;

void tm_move_result_clear(tm_move_result *r);

/*
 * Give thread `id` the parent `parent` (both existing ids) and touch it,
 * unless that would make a cycle in the tree of readable files (decided
 * under the lock) or it already is its parent (then nothing is written).
 * `opts` NULL means TM_MOVE_OPTIONS_INIT.
 *
 * Errors: TM_EINVALID for `main`, id == parent, or a cycle ("... is a
 * descendant of ..."); TM_ENOTFOUND / TM_EPARSE when `id` cannot be read;
 * TM_ELOCKED; TM_ERROR.  *out is written on success only.
 */
int tm_ops_move_thread(tm_move_result *out, tm_store *s, const char *project,
		       const char *id, const char *parent,
		       const tm_move_options *opts);

/* ---- merge ---- */

typedef struct {
	char *parent; /* the id merged into */
	bool changed; /* false: the child's summary added nothing */
	size_t added; /* tm_ops_integrate_again: the units added */
} tm_integrate_result;

void tm_integrate_result_clear(tm_integrate_result *r);

/*
 * Merge thread `id` into its parent: the child's `## ` sections go under
 * the parent's same-named ones (tm_section_merge), less the list items
 * that section of the parent already has; the parent is written (updatedAt
 * and commit touched, its `branch` kept: DESIGN.md section 11) only when
 * its summary changed, first, so that a failure never leaves a child
 * claiming a merge that did not land; then the child becomes done with
 * mergedInto = the parent.
 *
 * Errors: TM_EINVALID for a root, an already merged or finished thread, a
 * thread that is its own parent or has an invalid parentId; TM_ENOTFOUND
 * when the parent does not exist or `id` does not; TM_EPARSE; TM_ELOCKED;
 * TM_ERROR.  *out is written on success only.
 */
int tm_ops_integrate_thread(tm_integrate_result *out, tm_store *s,
			    const char *project, const char *id);

/*
 * `git threadmind merge --again`: add to the thread that merged thread
 * `id` names in `mergedInto` what it lacks of `id`'s summary
 * (tm_summary_missing in reintegrate.h), under the same-named sections as
 * tm_ops_integrate_thread puts them; the parent is written (touched, its
 * `branch` kept) only when something was added (out->added units).  `id`
 * is not changed.
 *
 * Errors: TM_EINVALID when `id` has no mergedInto ("... run 'git
 * threadmind merge'") or an invalid one; TM_ENOTFOUND when `id` or the
 * thread it was merged into does not exist; TM_EPARSE; TM_ELOCKED;
 * TM_ERROR.  *out is written on success only.
 */
int tm_ops_integrate_again(tm_integrate_result *out, tm_store *s,
			   const char *project, const char *id);

/* ---- done / abandon / reopen ---- */

typedef struct {
	bool changed;     /* false: it already had that status */
	char *was_merged; /* reopen of a merged thread: where it was merged */
} tm_status_result;

void tm_status_result_clear(tm_status_result *r);

/*
 * Set the status of thread `id` to `status` (TM_STATUS_DONE,
 * TM_STATUS_ABANDONED) or, with NULL, reopen it (clears status and
 * mergedInto), touching it; nothing is written when it already has that
 * status (for reopen: no status and no mergedInto).
 *
 * Errors: TM_EINVALID for finishing `main` or bad ids; TM_ENOTFOUND /
 * TM_EPARSE when it cannot be read; TM_ELOCKED; TM_ERROR.  *out is
 * written on success only.
 */
int tm_ops_set_status(tm_status_result *out, tm_store *s, const char *project,
		      const char *id, const char *status);

/* ---- set ---- */

/*
 * Apply the `n` assignments `a` (tm_assign_apply) to thread `id`; when a
 * field changed, touch it and write it.  *changed tells which.
 *
 * Errors: those of tm_assign_apply (TM_EINVALID), TM_ENOTFOUND /
 * TM_EPARSE when it cannot be read, TM_ELOCKED, TM_ERROR.
 */
int tm_ops_set_fields(bool *changed, tm_store *s, const char *project,
		      const char *id, const tm_assign *a, size_t n);

/* ---- summary / edit ---- */

typedef struct {
	unsigned version;        /* TM_SUMMARY_OPTIONS_VERSION */
	bool allow_empty;        /* an empty text erases the summary */
	const char *expect_body; /* non-NULL: refuse unless the body is this */
	size_t expect_len;       /* its length */
	/* Add the text to the summary instead of replacing it, by sections
	 * as `merge` does (tm_section_merge_under): its `## ` sections under
	 * the same-named ones, the lines before its first heading under
	 * `section` (NULL: at the top, before the first heading). */
	bool append;
	const char *section;
} tm_summary_options;

#define TM_SUMMARY_OPTIONS_VERSION 1
/* clang-format off */
#define TM_SUMMARY_OPTIONS_INIT \
	{TM_SUMMARY_OPTIONS_VERSION, false, NULL, 0, false, NULL}
/* clang-format on */

/*
 * Replace the summary of thread `id` with `len` bytes of `text` and touch
 * it as a summary change (commit = HEAD, branch), writing it.  *out says
 * what the text did (tm_summary_check; an unchanged summary is written
 * all the same, as a review mark).  `opts` NULL means
 * TM_SUMMARY_OPTIONS_INIT.
 *
 * With opts->append, the text is added to the summary (read under the
 * lock, so that nothing written meanwhile is lost) rather than replacing
 * it.
 *
 * Errors: TM_EINVALID for an empty text without opts->allow_empty ("...
 * nothing was written"; with opts->append, always), a `section` that is
 * empty or more than one line, or a text tm_summary_check refuses (the
 * text itself, then the summary it makes); TM_ECONFLICT
 * when opts->expect_body is set and the thread's body is no longer that
 * ("the summary changed while you were editing it; nothing was written",
 * without the thread's name); TM_ENOTFOUND / TM_EPARSE; TM_ELOCKED;
 * TM_ERROR.
 */
int tm_ops_write_summary(tm_summary_outcome *out, tm_store *s,
			 const char *project, const char *id, const char *text,
			 size_t len, const tm_summary_options *opts);

/* ---- touch ---- */

/*
 * Mark thread `id` as reviewed at HEAD: touch it as a summary change and
 * write it.  *out_head (optional) receives HEAD, owned by the store.
 *
 * Errors: TM_EINVALID outside git or when HEAD has no commit yet;
 * TM_ENOTFOUND / TM_EPARSE; TM_ELOCKED; TM_ERROR.
 */
int tm_ops_touch(const char **out_head, tm_store *s, const char *project,
		 const char *id);

/* ---- rename ---- */

typedef struct {
	unsigned version; /* TM_RENAME_OPTIONS_VERSION */
	/* The children to re-point (ids): NULL means every thread whose
	 * parentId is the old id; only those listed (and whose parentId is
	 * the old id) otherwise. */
	const tm_strv *children;
	bool keep_config;      /* leave config.json's references alone */
	tm_store_warn_cb warn; /* unreadable thread files (may be NULL) */
	void *payload;
} tm_rename_options;

#define TM_RENAME_OPTIONS_VERSION 1
/* clang-format off */
#define TM_RENAME_OPTIONS_INIT \
	{TM_RENAME_OPTIONS_VERSION, NULL, false, NULL, NULL}
/* clang-format on */

typedef struct {
	tm_strv repointed; /* the children given the new id as parentId */
	bool config;       /* config.json was changed */
} tm_rename_result;

void tm_rename_result_clear(tm_rename_result *r);

/*
 * Give thread `from` of `project` the id `to`: threads/{project}/{to}.md
 * is written (atomically) with `id: to`, everything else of the file kept
 * (title included, nothing touched); then the children (opts->children)
 * get parentId `to`; then, unless opts->keep_config, config.json's
 * references (branchThreads[project][*] and activeThreadId,
 * tm_config_rename_thread) follow; then {from}.md is deleted, so that an
 * interrupted rename never loses the thread.  Runs under the lock;
 * everything (config.json included) is read before the first write.
 * `opts` NULL means TM_RENAME_OPTIONS_INIT.
 *
 * Errors: TM_EINVALID for bad ids, `main` as either id, or from == to;
 * TM_ENOTFOUND / TM_EPARSE when `from` cannot be read; TM_EEXISTS when
 * `to` exists; TM_EPARSE when config.json does not parse; TM_ELOCKED;
 * TM_ERROR.  *out (optional) is written on success only.
 */
int tm_ops_rename_thread(tm_rename_result *out, tm_store *s,
			 const char *project, const char *from, const char *to,
			 const tm_rename_options *opts);

/*
 * tm_ops_touch for the `n` threads `ids` under one lock: every one is
 * read before the first write, so that nothing is written when one cannot
 * be read.  Errors as tm_ops_touch (the message of a HEAD problem names
 * the thread when n is 1, else how many).
 */
int tm_ops_touch_threads(const char **out_head, tm_store *s,
			 const char *project, const char *const *ids, size_t n);

/*
 * Re-anchor every stale thread of `project`: under the lock, read its
 * threads, find the stale ones (tm_stale_compute, stale.h) and touch each
 * as tm_ops_touch does.  *out_ids (clear it with tm_strv_clear) receives
 * the ids touched, in the store's order (empty when none was stale);
 * unreadable thread files are left out and told to `warn` (may be NULL).
 *
 * Errors: those of tm_ops_touch; TM_ERROR when the history cannot be
 * read.  *out_ids and *out_head are written on success only.
 */
int tm_ops_touch_stale(tm_strv *out_ids, const char **out_head, tm_store *s,
		       const char *project, tm_store_warn_cb warn,
		       void *payload);

/* ---- project use ---- */

/*
 * Make `project` (an existing project id) the active project:
 * config.json's activeProjectId, and activeThreadId = its active thread
 * for the current branch (tm_store_active_thread), which *out_thread
 * receives (malloc'd; the caller frees it).
 *
 * Errors: TM_EINVALID / TM_ENOTFOUND for a bad or unknown project;
 * TM_EPARSE when config.json does not parse; TM_ELOCKED; TM_ERROR.
 */
int tm_ops_use_project(char **out_thread, tm_store *s, const char *project);

#endif
