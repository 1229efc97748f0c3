/*
 * What a merged thread holds that its parent lacks (issue 25, r06):
 * `git threadmind merge` copied a child's sections into its parent and
 * made it done; a git merge then brought the child lines written on
 * another branch, which only the finished, hidden child holds.  Found here
 * (pure functions), reported by the driver, `status`, `doctor`, `tree` and
 * `list`, and added to the parent by `merge --again`
 * (tm_ops_integrate_again in ops.h).
 */
#ifndef TM_REINTEGRATE_H
#define TM_REINTEGRATE_H

#include "buf.h"
#include "model.h"

#include <stddef.h>

/*
 * What summary `into` lacks of summary `from` (both as tm_thread_summary
 * returns them), counted in units: a list item (its line and its indented
 * continuation lines, tm_section_item_end) that is no item of `into`
 * (tm_section_item_key: trailing blanks ignored), and a non-blank line
 * outside list items and `## ` headings that is no line of `into` (blanks
 * at either end ignored; the lines of `into`'s items count) —
 * wherever they are in `into` (a line its owner moved to another section
 * is not missing).  With `out`, those units are appended under their
 * sections' heading lines (the preamble's first), a summary that `merge`
 * can merge into `into`.
 */
size_t tm_summary_missing(tm_buf *out, const char *into, const char *from);

/* A merged thread that holds lines its parent lacks. */
typedef struct {
	char *id;       /* the merged thread */
	char *into;     /* its mergedInto */
	size_t missing; /* tm_summary_missing of its summary */
} tm_unintegrated;

typedef struct {
	tm_unintegrated *items;
	size_t n;
	size_t alloc;
} tm_unintegrated_list;

/*
 * The threads among `threads` that have a `mergedInto` naming another of
 * `threads` and hold units of summary that thread lacks
 * (tm_summary_missing), into *out (cleared with
 * tm_unintegrated_list_clear), in the order of `threads`.  Each parent's
 * summary is indexed once: linear in the size of the summaries.
 */
void tm_find_unintegrated(tm_unintegrated_list *out,
			  const tm_thread *const *threads, size_t n);
void tm_unintegrated_list_clear(tm_unintegrated_list *l);

/*
 * For the merge of thread file `id` (ancestor `o`, ours `a`, theirs `b`,
 * as tm_merge_files takes them): when one side set `mergedInto` (the
 * thread was merged into its parent there) and the other did not but
 * added units of summary (tm_summary_missing against the ancestor), a
 * malloc'd note naming the parent and `git threadmind merge --again <id>`;
 * else NULL (also when a side does not parse, or `olen` is 0).  Sets no
 * error.
 */
char *tm_reintegrate_note(const char *o, size_t olen, const char *a,
			  size_t alen, const char *b, size_t blen,
			  const char *id);

#endif
