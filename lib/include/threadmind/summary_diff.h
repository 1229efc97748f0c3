/*
 * What changed between two versions of a summary, by `## ` section: the
 * sections added, removed, moved or renamed, and inside a changed section
 * the items added, removed, reworded or moved (`git threadmind diff`).
 * Pure functions over buffers (no I/O).
 */
#ifndef TM_SUMMARY_DIFF_H
#define TM_SUMMARY_DIFF_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The unit compared inside a section is an "item": a list item
 * (tm_section_is_list_item) with its continuation lines (the indented
 * lines right after it that are neither blank nor items), or any other
 * non-blank line.  Blank lines are not compared, nor the spaces, tabs and
 * CRs at the end of a line: a summary whose only change is in them has not
 * changed.
 */
typedef enum {
	TM_SDIFF_ADDED,
	TM_SDIFF_REMOVED,
	TM_SDIFF_REWORDED, /* one item replaced by another in its place */
	TM_SDIFF_MOVED     /* the same text, elsewhere in the section */
} tm_sdiff_change;

typedef struct {
	tm_sdiff_change change;
	bool item; /* a list item (else a line of text) */
	/* The item's lines joined with LF, without a final LF.  old_text:
	 * REMOVED, REWORDED, MOVED; new_text: ADDED, REWORDED (NULL
	 * otherwise).  Owned by the tm_sdiff (its pools). */
	const char *old_text;
	const char *new_text;
} tm_sdiff_unit;

typedef enum {
	TM_SDIFF_SECTION_ADDED,
	TM_SDIFF_SECTION_REMOVED,
	TM_SDIFF_SECTION_CHANGED, /* on both sides, its items differ */
	TM_SDIFF_SECTION_KEPT     /* on both sides, the same items: it moved
				     or its heading was renamed */
} tm_sdiff_section_change;

typedef struct {
	tm_sdiff_section_change change;
	bool preamble; /* the text before the first heading */
	/* The heading text on each side (tm_section's heading), NULL on a
	 * side that does not have the section and for the preamble. */
	char *old_heading;
	char *new_heading;
	/* Its heading changed (paired by its items: the same items under
	 * another heading; or the same heading spelled otherwise). */
	bool renamed;
	/* Its place among the sections both sides have is not the same. */
	bool moved;
	/* ADDED: every item ADDED; REMOVED: every item REMOVED; CHANGED:
	 * the changes in the new order (REMOVED ones where they were);
	 * KEPT: none. */
	tm_sdiff_unit *units;
	size_t nunits;
	size_t added, removed, reworded, moved_units; /* units by change */
} tm_sdiff_section;

/* The sections that changed, in the new summary's order (a removed one
 * where it was). */
typedef struct {
	tm_sdiff_section *items;
	size_t n;
	size_t alloc;
	/* The texts the units point into: one block per side compared, not
	 * one allocation per item (a diff of 10,000 new threads holds every
	 * line of them). */
	char *pools[2];
} tm_sdiff;

/* clang-format off */
#define TM_SDIFF_INIT {NULL, 0, 0, {NULL, NULL}}
/* clang-format on */

/*
 * Compare the summaries `old` (`old_len` bytes) and `new_text`
 * (`new_len`), LF line ends as tm_thread_summary returns them, into *out,
 * which must be empty (TM_SDIFF_INIT; clear it with tm_sdiff_clear).
 * Never fails.
 *
 * Sections are split as tm_section_split does and paired by heading
 * (tm_section_heading_key: the n-th "## Notes" of one side with the n-th
 * of the other), then the remaining ones by their items (a renamed
 * heading); the preambles pair with each other.  A section moved is one
 * outside the longest run of paired sections kept in order.  Inside a
 * changed section the items are compared in order (a longest common
 * subsequence; past 4 M item pairs, the common start and end only); an
 * item removed whose text is added elsewhere in the section is MOVED;
 * among the items removed and added between two kept ones, one removed
 * and one added of the same kind, or pairs whose words are at least half
 * the same (in order), are REWORDED: one change each, not two.
 */
void tm_sdiff_summaries(tm_sdiff *out, const char *old, size_t old_len,
			const char *new_text, size_t new_len);

/* Whether the summary has changed (any section in *d). */
bool tm_sdiff_changed(const tm_sdiff *d);

/* The units of every section added up: added, removed, reworded, moved. */
void tm_sdiff_totals(const tm_sdiff *d, size_t *added, size_t *removed,
		     size_t *reworded, size_t *moved);

/* Free what *d holds and make it empty. */
void tm_sdiff_clear(tm_sdiff *d);

#endif
