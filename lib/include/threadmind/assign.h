/*
 * Field assignments of `git threadmind set` ("title=…", "paths=a,b",
 * "branch=…"): parsed, checked and applied to a thread all or nothing.
 */
#ifndef TM_ASSIGN_H
#define TM_ASSIGN_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>

/* The fields `set` may change. */
typedef enum {
	TM_ASSIGN_TITLE,
	TM_ASSIGN_PATHS,
	TM_ASSIGN_BRANCH
} tm_assign_field;

/* One parsed assignment; `value` points into the parsed argument. */
typedef struct {
	tm_assign_field field;
	const char *value;
} tm_assign;

/*
 * Parse `arg` ("key=value", split at the first '=') into *out; out->value
 * points into `arg`, which must outlive *out.
 *
 * Errors (TM_EINVALID, *out untouched): no '=' ("'x' is not a field
 * assignment: …"), a field that exists but is not changed this way (id,
 * parentId, status, commit, mergedInto, author, createdAt, updatedAt: the
 * message names the command that changes it, or says it never changes),
 * any other key ("unknown field 'x': …").  Keys are case-sensitive.
 */
int tm_assign_parse(tm_assign *out, const char *arg);

/*
 * Apply `n` assignments to `t`, in order; all are checked before any is
 * applied, so `t` is untouched on error.
 *
 * - title: the value as given (no trimming); it must be valid UTF-8 and not
 *   empty or only blanks.  The last title= wins.
 * - branch: a name `git branch` would accept (tm_assign_branch_valid); an
 *   empty value removes the field.  The last branch= wins.
 * - paths: a comma-separated list; the first paths= starts a new list and
 *   every further paths= adds to it (so "paths=a paths=b" gives ["a","b"]).
 *   Empty items and repeated paths are dropped; each path must be valid
 *   UTF-8.  A list that ends up empty removes the field.
 *
 * *changed (optional, written on success) tells whether any field of `t`
 * got a different value.  Only title, branch, has_paths and paths are ever
 * touched (never the id, the timestamps or the body).
 *
 * Errors: TM_EINVALID naming the thread (t->id) and the bad value.
 */
int tm_assign_apply(bool *changed, tm_thread *t, const tm_assign *a, size_t n);

/*
 * Whether `name` is a branch name git accepts (`git check-ref-format
 * --branch`, for a name that is not an @{-N} shorthand): valid UTF-8; no
 * ASCII control character, space, ~ ^ : ? * [ or backslash; no "..", no
 * "@{"; no empty component (leading, trailing or double '/'); no component
 * starting with '.' or ending with ".lock"; not ending with '.'; not
 * starting with '-'; not "HEAD".  NULL and "" are invalid.
 */
bool tm_assign_branch_valid(const char *name);

#endif
