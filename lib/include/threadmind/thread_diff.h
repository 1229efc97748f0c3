/*
 * What changed between two versions of a project's threads (`git
 * threadmind diff` and `log`): threads added, removed, renamed (the same
 * thread under a new id: a split by `resolve`), and in each thread its
 * fields and its summary by section.  A pure core over parsed threads: the
 * git side (which versions, read from where) is git_threads.h.
 */
#ifndef TM_THREAD_DIFF_H
#define TM_THREAD_DIFF_H

#include "buf.h"
#include "model.h"
#include "summary_diff.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	TM_TDIFF_ADDED,
	TM_TDIFF_REMOVED,
	TM_TDIFF_MODIFIED,
	TM_TDIFF_RENAMED,    /* the same thread (createdAt + author), new id */
	TM_TDIFF_CONFLICTED, /* a merge left it conflicted on a side */
	TM_TDIFF_UNREADABLE  /* a side's file is not a thread file */
} tm_tdiff_kind;

/* A frontmatter field that differs. */
typedef struct {
	/* The field's name in the file ("parentId", "status", "title",
	 * "mergedInto", "branch", "paths", "commit", "author", "createdAt",
	 * "updatedAt", "id") or an unknown field's key; owned. */
	char *name;
	/* The values on each side, NULL when absent (for `paths`: NULL);
	 * an unknown field's raw text, trimmed.  Owned. */
	char *old_value;
	char *new_value;
	/* paths: the entries added and removed, in their side's order. */
	tm_strv added;
	tm_strv removed;
} tm_tdiff_field;

typedef struct {
	tm_tdiff_kind kind;
	char *id;     /* the thread's id: the new side's (old side's when
			 removed) */
	char *old_id; /* the old side's id; NULL when added */
	/* The versions compared (borrowed from the caller: NULL when the
	 * side does not have it, or for CONFLICTED and UNREADABLE a
	 * readable version of the other side, or none). */
	const tm_thread *before;
	const tm_thread *after;
	char *message; /* CONFLICTED, UNREADABLE: why (owned) */
	tm_tdiff_field *fields;
	size_t nfields;
	tm_sdiff summary; /* ADDED: all of it; REMOVED: all of it removed */
} tm_tdiff_entry;

typedef struct {
	tm_tdiff_entry *items;
	size_t n;
	size_t alloc;
} tm_tdiff;

/* clang-format off */
#define TM_TDIFF_INIT {NULL, 0, 0}
/* clang-format on */

typedef struct {
	unsigned version;
	/* Also report `updatedAt` and the informative `id` field (without
	 * it, a thread whose only change is there has not changed). */
	bool all_fields;
} tm_tdiff_options;

#define TM_TDIFF_OPTIONS_VERSION 1
#define TM_TDIFF_OPTIONS_INIT                   \
	{                                       \
		TM_TDIFF_OPTIONS_VERSION, false \
	}

/*
 * Compare the threads `before` (`nbefore` of them) with `after` (`nafter`)
 * and append the changes to *out (clear it with tm_tdiff_clear).  Each
 * array holds a side's threads, every id at most once: all of them, or a
 * part closed under parents (a thread's parent is there when its side has
 * it), which gives the same answer for the threads it holds; a thread
 * given on both sides as the same pointer is taken as unchanged.
 *
 * Threads are paired by id, except where both sides know the thread's
 * identity (createdAt and author, tm_thread_same_identity) and it
 * differs: those two are different threads (one removed, one added).
 * Among the rest, a thread removed and one added with the same identity
 * are one thread RENAMED.  A pair is MODIFIED when a field or the summary
 * (tm_sdiff_summaries of tm_thread_summary) differs; fields in this order:
 * parentId, status, mergedInto, title, branch, paths, commit, author,
 * createdAt, then with opts->all_fields updatedAt and id, then the unknown
 * fields in the new side's order (then the ones only the old side has).
 *
 * Order: the threads the new side has in its tree's pre-order (tm_tree),
 * then those removed in the old side's.  opts may be NULL (defaults).
 * Returns 0; TM_EINVALID when a side holds an id twice (the tree's
 * message).
 */
int tm_tdiff_threads(tm_tdiff *out, const tm_thread *const *before,
		     size_t nbefore, const tm_thread *const *after,
		     size_t nafter, const tm_tdiff_options *opts);

/*
 * Append a CONFLICTED or UNREADABLE entry for thread `id` (`message` says
 * why; `before` / `after`, borrowed, may be NULL).
 */
void tm_tdiff_add_problem(tm_tdiff *d, tm_tdiff_kind kind, const char *id,
			  const tm_thread *before, const tm_thread *after,
			  const char *message);

/* The entry whose id or old id is `id`, or NULL. */
const tm_tdiff_entry *tm_tdiff_find(const tm_tdiff *d, const char *id);

/* The field `name` of an entry, or NULL when it did not change. */
const tm_tdiff_field *tm_tdiff_field_get(const tm_tdiff_entry *e,
					 const char *name);

/* Remove the entries naming none of `ids` (neither id nor old id). */
void tm_tdiff_limit(tm_tdiff *d, const char *const *ids, size_t nids);

/* Free what *d holds and make it empty. */
void tm_tdiff_clear(tm_tdiff *d);

#endif
