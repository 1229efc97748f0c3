/*
 * Internal interface between the files of the merge (merge.c dispatches,
 * merge_text.c wraps git_merge_file for what is merged as text,
 * merge_list.c orders lists, merge_diff.c cuts Markdown into units and
 * diffs them, merge_lines.c merges units three ways, merge_body.c merges
 * Markdown by section, merge_thread.c and merge_json.c merge the two file
 * formats).  Not installed, not part of the umbrella header.
 */
#ifndef TM_MERGE_INTERNAL_H
#define TM_MERGE_INTERNAL_H

#include "buf.h"
#include "merge.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of one side; index 0 is the ancestor, 1 ours, 2 theirs. */
struct tm_merge__span {
	const char *p;
	size_t len;
};

enum { TM_MERGE__BASE, TM_MERGE__OURS, TM_MERGE__THEIRS };

/*
 * Options as the merge files use them: every label set, marker size in
 * 1..TM_MERGE_MARKER_MAX.
 */
void tm_merge__normalize_options(tm_merge_options *out,
				 const tm_merge_options *in);

/* Whether two spans hold the same bytes. */
bool tm_merge__span_eq(const struct tm_merge__span *x,
		       const struct tm_merge__span *y);

/*
 * Line-based three-way merge of s[0..2] with git_merge_file (markers,
 * style and labels from `opts`, which must be normalised), appended to
 * `out`; *conflicted tells whether markers were written.  A side libgit2
 * takes for binary gives tm_merge__whole_conflict.  Returns 0, or TM_ERROR
 * with a message when libgit2 fails (`out` unchanged).
 */
int tm_merge__text(tm_buf *out, bool *conflicted,
		   const struct tm_merge__span s[3],
		   const tm_merge_options *opts);

/*
 * One conflict holding ours and theirs in full (and the ancestor in the
 * diff3 styles), appended to `out`.
 */
void tm_merge__whole_conflict(tm_buf *out, const struct tm_merge__span s[3],
			      const tm_merge_options *opts);

/*
 * A conflict marker line: `size` times `c`, then " label" when `label` is
 * neither NULL nor empty, then LF.
 */
void tm_merge__put_marker(tm_buf *out, char c, int size, const char *label);

/*
 * The side that decides, symmetrically, what a merge cannot take from
 * both: where an item both sides added at different places goes, whose
 * order wins when both moved sections, which of two spellings of the same
 * line is kept.  TM_MERGE__OURS or TM_MERGE__THEIRS; a thread's is the
 * side with the later `updatedAt` (tm_merge__thread).
 */
typedef int tm_merge__lead;

/*
 * Merge a Markdown text (a thread's body, a JSON string's content) by
 * `## ` section, as DESIGN.md section 6 says; appended to `out`.
 * *conflicted tells whether markers were left.  Never fails: everything
 * that cannot be merged is left between markers.
 */
void tm_merge__body(tm_buf *out, bool *conflicted,
		    const struct tm_merge__span s[3],
		    const tm_merge_options *opts, tm_merge__lead lead);

/* ---- units and their diff (merge_diff.c) ---- */

/* No index (an unmatched unit, a unit at no gap). */
#define TM_MERGE__NONE ((size_t)-1)

/* What a unit is: the merge pairs, unites and conflicts them by kind. */
enum tm_merge__kind { TM_MERGE__BLANK, TM_MERGE__PROSE, TM_MERGE__ITEM };

/*
 * One unit of a Markdown text: a blank line, a prose line (any line that
 * is not an item, every line of a fenced block), or a list item (`- `,
 * `* `, `+ `, `1. `, `1) `) with its continuation lines (the lines after
 * it indented deeper than its marker, and the blank lines between them):
 * an item and its sub-items move together.  Units compare by key: a blank
 * line's is empty, an item's has every ordered-list number made `#` (a
 * renumbered item is the same item).
 */
struct tm_merge__unit {
	const char *p; /* its lines, the last one ending in LF */
	size_t len;
	const char *key; /* its key (in the list's `keys`), klen bytes */
	size_t klen;
	uint64_t hash; /* of the key */
	size_t head;   /* the length of its first line, LF included */
	enum tm_merge__kind kind;
};

struct tm_merge__units {
	struct tm_merge__unit *u;
	size_t n;
	tm_buf keys;
};

/*
 * Split `len` bytes of `text` (LF line ends; a last line without one is a
 * unit too) into units; `out` is overwritten.  Free with
 * tm_merge__units_free.
 */
void tm_merge__units_split(struct tm_merge__units *out, const char *text,
			   size_t len);
void tm_merge__units_free(struct tm_merge__units *us);

/* Whether unit i of `x` and unit j of `y` have the same key. */
bool tm_merge__unit_eq(const struct tm_merge__units *x, size_t i,
		       const struct tm_merge__units *y, size_t j);

/*
 * The diff of `x` against the ancestor `o`: mo[i] is the unit of x that
 * o's unit i is matched with (TM_MERGE__NONE: deleted), mx[j] the unit of
 * o that x's unit j is matched with (TM_MERGE__NONE: inserted); matches
 * are in order on both sides.  Patience anchors (keys found once on each
 * side, longest increasing run) split the texts, the gaps between them
 * are compared exactly when small: n log n for the usual edits of a long
 * list, whatever its length.
 */
void tm_merge__diff(size_t *mo, size_t *mx, const struct tm_merge__units *o,
		    const struct tm_merge__units *x);

/*
 * Three-way merge of texts cut into units (a section's body, an item's
 * continuation lines): what one side changed is taken, list items are
 * united, a unit reworded differently on both sides and prose changed on
 * both sides at the same place are conflicts (DESIGN.md section 6).
 * Appended to `out`; *conflicted set when markers were written.  `depth`
 * bounds the nesting of sub-item merges (0 at the top).
 */
void tm_merge__lines(tm_buf *out, bool *conflicted,
		     const struct tm_merge__span s[3],
		     const tm_merge_options *opts, tm_merge__lead lead,
		     int depth);

/*
 * Whether every ordered list of `len` bytes of `text` is numbered
 * consecutively (n, n + 1, ...); renumber the ordered lists of `b` from
 * `from` on so that they are.
 */
bool tm_merge__numbered_consecutively(const char *text, size_t len);
void tm_merge__renumber(tm_buf *b, size_t from);

/* ---- lists (merge_list.c) ---- */

/*
 * Identities for list items that may repeat: "<n>:<key>" where n counts
 * the earlier items with the same key (0 for the first), so that the n-th
 * "## Notes" of one side matches the n-th of another.  Returns a malloc'd
 * array of `n` malloc'd strings (free with tm_merge__ids_free).
 */
char **tm_merge__ids(const char *const *keys, size_t n);
void tm_merge__ids_free(char **ids, size_t n);

/* A lookup table from identities to their index in a list. */
typedef struct tm_merge__index tm_merge__index;

/* Index the `n` strings of `ids` (not copied: they must outlive it). */
tm_merge__index *tm_merge__index_new(const char *const *ids, size_t n);
/* The index of `id` in the list, or -1 (the first one when repeated). */
long tm_merge__index_find(const tm_merge__index *ix, const char *id);
void tm_merge__index_free(tm_merge__index *ix);

/*
 * The order of a merged list.  `a` (`na` identities) is the list whose
 * order leads, `b` the other one; identities are unique within each list.
 * keep_a[i] / keep_b[j] tell whether an item is in the result; an item in
 * both lists is placed by `a` (keep_b is then ignored).  Items of `b` only
 * are kept in place: right after the item that precedes them in `b`, past
 * the items of `a` that `b` does not have.
 *
 * Returns a malloc'd array of *out_n codes: i for a[i], na + j for b[j].
 */
size_t *tm_merge__order(size_t *out_n, const char *const *a, const bool *keep_a,
			size_t na, const char *const *b, const bool *keep_b,
			size_t nb);

/*
 * Merge a thread file whose id (file name) is `id`; the sides hold LF line
 * ends.  Appends the canonical file (LF) to `out`.  Returns 0;
 * TM_EPARSE when a side is not a thread file, with a malloc'd *note saying
 * which and why (`out` unchanged); TM_ECONFLICT (no message set) when the
 * sides hold different threads (tm_merge_thread_identity TWO_THREADS,
 * OURS_OTHER or THEIRS_OTHER), with a malloc'd *note naming them and
 * `git threadmind resolve` (`out` unchanged); or TM_ERROR as
 * tm_merge__text.  BOTH_OTHER is merged with an empty ancestor.
 */
int tm_merge__thread(tm_buf *out, bool *conflicted, char **note,
		     const struct tm_merge__span s[3], const char *id,
		     const tm_merge_options *opts);

/*
 * Merge a project file (a JSON object) key by key; same contract as
 * tm_merge__thread ("ours is not valid JSON: …" notes).
 */
int tm_merge__project(tm_buf *out, bool *conflicted, char **note,
		      const struct tm_merge__span s[3],
		      const tm_merge_options *opts);

/* The names of the sides in notes: "the ancestor", "ours", "theirs". */
extern const char *const tm_merge__side_name[3];

#endif
