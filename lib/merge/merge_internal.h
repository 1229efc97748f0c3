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
 * One side against the ancestor `o` (merge_pair.c): its units, the diff,
 * and what the diff does not say: which inserted item rewords which base
 * item (in a hunk: one for one when the counts agree, else the most
 * similar), which units moved (deleted and inserted elsewhere unchanged),
 * and the gap each insertion goes to.  Arrays of the base's n + 1 and the
 * side's m + 1 entries; TM_MERGE__NONE where there is nothing.
 */
struct tm_merge__side {
	struct tm_merge__units u;
	size_t *mo;   /* base unit → its match here, NONE */
	size_t *mx;   /* unit → its match in the base, NONE */
	size_t *rep;  /* base unit → the unit rewording it here, NONE */
	size_t *of;   /* unit → the base unit it rewords, NONE */
	size_t *gap;  /* unit → the gap it is inserted at, NONE */
	size_t *lo;   /* gap → its first inserted unit (NONE: none) */
	size_t *hi;   /* gap → past its last inserted unit */
	size_t *move; /* base unit → the unit it was moved to here, NONE */
	size_t *from; /* unit → the base unit it is a move of, NONE */
	size_t *as;   /* unit → the other side's unit whose text it takes */
	bool *drop;   /* unit: not written (an agreed copy, a dropped move) */
};

/* Split `text` into x's units and compare them with `o` (x overwritten;
 * free with tm_merge__side_free).  `as` and `drop` start empty: the
 * merge fills them. */
void tm_merge__side_init(struct tm_merge__side *x,
			 const struct tm_merge__units *o,
			 const struct tm_merge__span *text);
void tm_merge__side_free(struct tm_merge__side *x);

/* ---- sections (merge_section.c) ---- */

/*
 * A section as the merge sees it: its heading line through its last
 * non-blank line, always ending in LF.  The blank lines that separate
 * sections belong to none of them (DESIGN.md section 11, "Section
 * bodies").
 */
struct tm_merge__section {
	struct tm_merge__span text; /* owned */
	size_t head;                /* bytes of the heading line (0: none) */
	char *key;                  /* heading without trailing blanks */
	char *heading; /* its text (tm_section_split), NULL: the preamble */
	char *fold;    /* heading folded (case, blanks), once asked for */
	uint64_t *hs;  /* the hashes of its non-blank lines' keys, sorted,
			  once asked for */
	size_t nh;
};

/*
 * A side split for the merge: the blank lines before anything else
 * (`lead`), the preamble (s[0], key "", maybe empty), one section per
 * `## ` heading, the blank lines after the last non-blank line (`tail`),
 * and whether the text ends in LF (or is empty).
 */
struct tm_merge__sections {
	struct tm_merge__section *s;
	size_t n;
	struct tm_merge__span lead, tail;
	bool nl_end;
};

/*
 * Split `t` into sections as `merge` does (tm_section_split): the preamble
 * (always there, maybe empty, key ""), then one per `## ` heading, keyed
 * by its line without trailing blanks, each without the blank lines that
 * follow it.  False when there are too many of them (ss then cleared).
 * Free with tm_merge__sections_free.
 */
bool tm_merge__sections_split(struct tm_merge__sections *ss,
			      const struct tm_merge__span *t);
void tm_merge__sections_free(struct tm_merge__sections *ss);

/* Pairing state: to[i] the side's section paired with the ancestor's i,
 * of[j] the ancestor's paired with the side's j. */
struct tm_merge__pairing {
	size_t *to, *of;
};

/*
 * Pair side `x`'s sections with the ancestor `o`'s: the preambles; then by
 * heading (a heading several sections have, by content); then the ones
 * left by heading with case and blanks folded; then by content, at least
 * half alike (a section renamed on that side).  pr->to and pr->of are
 * malloc'd (free them).
 */
void tm_merge__sections_pair(struct tm_merge__pairing *pr,
			     struct tm_merge__sections *o,
			     struct tm_merge__sections *x);

/* The length of [p, p + len) without its trailing blank lines. */
size_t tm_merge__content_len(const char *p, size_t len);

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
