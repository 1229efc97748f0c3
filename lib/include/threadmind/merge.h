/*
 * The three-way merge of thread files, project files and anything else the
 * merge driver is given (DESIGN.md section 6): a pure function over three
 * buffers, so that the driver, `git threadmind resolve` and the fuzzers
 * share it.
 */
#ifndef TM_MERGE_H
#define TM_MERGE_H

#include "conflict.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	unsigned version;
	int marker_size;            /* %L; 7 when below 1 */
	tm_conflict_style style;    /* from merge.conflictStyle */
	const char *ancestor_label; /* marker labels; NULL: "base", */
	const char *our_label;      /* "ours", "theirs" */
	const char *their_label;
	const char *path; /* %P: thread / project / other; may be NULL */
	bool plain;       /* a plain line merge of everything */
} tm_merge_options;

#define TM_MERGE_OPTIONS_VERSION 1
/* clang-format off */
#define TM_MERGE_OPTIONS_INIT \
	{TM_MERGE_OPTIONS_VERSION, 7, TM_CONFLICT_STYLE_MERGE, NULL, NULL, NULL, \
	 NULL, false}
/* clang-format on */

/* The largest marker size honoured; larger values are cut to it. */
#define TM_MERGE_MARKER_MAX 1024

typedef enum {
	TM_MERGE_KIND_THREAD,
	TM_MERGE_KIND_PROJECT,
	TM_MERGE_KIND_TEXT
} tm_merge_kind;

typedef struct {
	char *data; /* the merged file (malloc'd; "" when empty, never NULL) */
	size_t len;
	bool conflicted;    /* conflict markers were left in it */
	tm_merge_kind kind; /* how it was merged (TEXT after any fallback) */
	char *note;         /* NULL, or why it fell back to a text merge, or a
			       remark (tm_reintegrate_note) */
	/* the sides hold different threads (tm_merge_identity other than
	 * ONE and BOTH_OTHER): data is ours, `git threadmind resolve` sorts
	 * them out */
	bool two_threads;
} tm_merge_result;

/*
 * The kind of file at `path` (git's %P, relative to the top of the
 * worktree, '/'-separated; NULL allowed):
 * - "[…/].threadmind/threads/<project>/<id>.md" → TM_MERGE_KIND_THREAD,
 *   and *out_id (when out_id is not NULL) is set to a malloc'd copy of
 *   <id>, which the caller frees;
 * - "[…/].threadmind/projects/<id>.json" → TM_MERGE_KIND_PROJECT;
 * - anything else → TM_MERGE_KIND_TEXT.
 * <project> and <id> must be valid ids (`^[a-z0-9-]+$`, at most 255 bytes
 * with the extension), else the path is TEXT.  *out_id is only written for
 * a thread.
 */
tm_merge_kind tm_merge_kind_of_path(const char *path, char **out_id);

/*
 * Merge `a` (ours, `alen` bytes) and `b` (theirs) against their common
 * ancestor `o` into *out, following DESIGN.md section 6; `olen` 0 is a file
 * added on both sides.  Inputs need no final NUL and may hold any bytes.
 * `opts` may be NULL (TM_MERGE_OPTIONS_INIT).
 *
 * When a side equals the ancestor byte for byte (or both sides are equal)
 * the other side is the result, verbatim, with the path's kind.  A thread
 * file whose sides hold different threads (tm_merge_thread_identity:
 * TWO_THREADS, OURS_OTHER, THEIRS_OTHER) is not merged: the result is ours
 * verbatim, conflicted, with two_threads set and a note naming the threads
 * by title and author and `git threadmind resolve`; BOTH_OTHER is merged
 * with an empty ancestor.  Else the
 * kind comes from opts->path (tm_merge_kind_of_path).  Sides that
 * cannot be merged that way (a side that does not parse, one that already
 * holds conflict markers) are merged as text with git_merge_file, and
 * out->note says why.  A thread merged into its parent on one side that
 * gained lines on the other is merged as any thread, with a note naming
 * `git threadmind merge --again` (tm_reintegrate_note).  A NUL byte on any
 * side gives one conflict holding
 * ours and theirs in full.  Nothing is ever dropped: what cannot be merged
 * is left between conflict markers and out->conflicted is set.
 *
 * On success returns 0 and fills *out (free it with tm_merge_result_clear).
 * Returns TM_ERROR (with a message) only when libgit2 fails; *out is then
 * untouched.
 */
int tm_merge_files(tm_merge_result *out, const char *o, size_t olen,
		   const char *a, size_t alen, const char *b, size_t blen,
		   const tm_merge_options *opts);

/*
 * Which threads the sides of thread file `id` hold (DESIGN.md section 11,
 * "Same id born on two branches"): a thread is known by its identity,
 * `createdAt` + `author` (tm_thread_same_identity), not by its id.
 */
typedef enum {
	/* one thread (or a side that does not parse, or the root `main`):
	 * merged field by field */
	TM_MERGE_ONE_THREAD,
	/* ours and theirs are two threads and neither is the ancestor's (an
	 * add/add, or the ancestor's thread replaced on both sides by
	 * different ones): split, ours keeps the id */
	TM_MERGE_TWO_THREADS,
	/* ours holds another thread than the ancestor's, theirs edits the
	 * ancestor's (which ours moved to another id in an earlier split) */
	TM_MERGE_OURS_OTHER,
	/* the reverse: theirs holds another thread, ours edits the ancestor's
	 */
	TM_MERGE_THEIRS_OTHER,
	/* both sides hold the same thread, another than the ancestor's:
	 * merged as an add/add of that thread */
	TM_MERGE_BOTH_OTHER
} tm_merge_identity;

/*
 * The tm_merge_identity of the three sides of thread file `id` (`olen` 0:
 * no ancestor; an ancestor that does not parse, such as a criss-cross
 * virtual ancestor, or that has neither `createdAt` nor `author`, counts as
 * none: ours and theirs are then compared with each other).  Never fails;
 * sets no error.
 */
tm_merge_identity tm_merge_thread_identity(const char *o, size_t olen,
					   const char *a, size_t alen,
					   const char *b, size_t blen,
					   const char *id);

/*
 * Same id born on two branches: whether thread file `id` added on both
 * sides (`olen` 0) holds two threads (TM_MERGE_TWO_THREADS).  Returns 1
 * then (ours, the side already in the branch being merged into, keeps the
 * id: HEAD's side in a merge, the upstream in a rebase), else 0 (one
 * thread, `olen` not 0, a side that does not parse, or `id` the root
 * `main`).  Never fails; sets no error.
 */
int tm_merge_two_threads(const char *o, size_t olen, const char *a, size_t alen,
			 const char *b, size_t blen, const char *id);

/*
 * An edit of thread file opts->path whose thread an earlier split moved
 * (TM_MERGE_OURS_OTHER: ours holds another thread there, theirs edits the
 * ancestor's): the file of the same folder (opts->path, relative to the
 * current folder: the work tree's top for a merge driver) whose thread has
 * the ancestor's identity gets the edit, merged from `o` (ancestor) and `b`
 * (theirs) into it.  Returns 1 with *out_path (malloc'd) and *out (the
 * merge of that file; free with tm_merge_result_clear), or 0 when no such
 * file is found (or the ancestor has no identity).  Writes nothing; never
 * fails; sets no error.
 */
int tm_merge_follow_worktree(char **out_path, tm_merge_result *out,
			     const char *o, size_t olen, const char *b,
			     size_t blen, const tm_merge_options *opts);

/* Free what `r` holds and zero it.  NULL is allowed. */
void tm_merge_result_clear(tm_merge_result *r);

#endif
