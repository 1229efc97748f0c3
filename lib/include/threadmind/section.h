/*
 * A summary's Markdown split into `## ` sections, for `merge` and
 * `summary --append`: find a section by its heading, append text under it,
 * join the sections back.  Pure functions over buffers (no I/O).
 */
#ifndef TM_SECTION_H
#define TM_SECTION_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* ---- lines (inline: the merge's hot loops call them) ---- */

/* The end of the line starting at `p` (its LF, or `end`). */
static inline const char *tm_section_line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* The start of the next line (past the LF), or `end`. */
static inline const char *tm_section_next_line(const char *p, const char *end)
{
	const char *e = tm_section_line_end(p, end);

	return e < end ? e + 1 : end;
}

/* Whether [p, e) holds nothing but blanks (space, tab, CR). */
static inline bool tm_section_line_blank(const char *p, const char *e)
{
	for (; p < e; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return false;
	return true;
}

/*
 * One section: its heading line (when it has one) and the lines up to the
 * next heading, exactly as in the text.  `heading` is the heading's text:
 * the line without its `##` marker, an optional closing run of `#`, and the
 * surrounding spaces and tabs ("" for a bare `##`); NULL for the preamble.
 */
typedef struct {
	char *heading;
	char *text;  /* the section's bytes, NUL-terminated */
	size_t len;  /* bytes in text */
	size_t body; /* offset in text of the line after the heading (0 for
			the preamble) */
} tm_section;

/*
 * The sections of a text.  items[0] is always the preamble: the text
 * before the first heading (possibly empty); the headed sections follow in
 * order.  Joining the items gives back the text byte for byte.
 */
typedef struct {
	tm_section *items;
	size_t n;
	size_t alloc;
} tm_section_list;

/* clang-format off */
#define TM_SECTION_LIST_INIT {NULL, 0, 0}
/* clang-format on */

/*
 * Split `len` bytes of `text` (LF line ends, as tm_thread_summary returns;
 * a CR before the LF is kept in the bytes and ignored in headings) into
 * *out, which must be empty (TM_SECTION_LIST_INIT) and is cleared with
 * tm_section_list_clear.
 *
 * A heading is a line that starts with `##` followed by a space, a tab or
 * the end of the line, after at most three spaces (as in CommonMark).
 * `#`, `###` and deeper headings do not split.  Lines inside a fenced
 * code block (``` or ~~~, three or more, closed by a fence of the same
 * character at least as long) are never headings.  Never fails.
 */
void tm_section_split(tm_section_list *out, const char *text, size_t len);

/* Free the sections and make the list empty. */
void tm_section_list_clear(tm_section_list *l);

/*
 * The index of the first section whose heading matches `heading`, or -1.
 * NULL finds the preamble (0).  Headings match when they are equal after
 * trimming, collapsing runs of spaces and tabs into one space, and Unicode
 * case folding ("## Next steps" matches "next  Steps"); invalid UTF-8 is
 * compared bytewise.
 */
long tm_section_find(const tm_section_list *l, const char *heading);

/*
 * A heading as tm_section_find compares it: blanks trimmed, runs of spaces
 * and tabs collapsed into one space, Unicode case folding (bytewise for
 * invalid UTF-8).  Two headings match when their keys are equal.
 * malloc'd; the caller frees it.
 */
char *tm_section_heading_key(const char *heading);

/*
 * Append `len` bytes of `text` under the section `heading` (one line;
 * NULL: the preamble): under the first section tm_section_find finds, or
 * in a new section "## <heading>" added at the end.  Leading and trailing blank
 * lines of `text` are dropped; a text with nothing but blank lines changes
 * nothing.
 *
 * The text goes after the section's last non-blank line, the section's
 * trailing blank lines (which separate it from the next heading) kept
 * after it.  It follows that line directly when both that line and the
 * text's first line are list items (`-`, `*`, `+` or `1.` / `1)` then a
 * space), so that a list stays one list; otherwise a blank line separates
 * them.  A new section is separated from the one before it by a blank
 * line.
 */
void tm_section_append(tm_section_list *l, const char *heading,
		       const char *text, size_t len);

/*
 * Whether the line [p, e) (no line end) is a list item: after optional
 * spaces and tabs, `-`, `*`, `+`, or one to nine digits then `.` or `)`,
 * followed by a space or a tab.
 */
bool tm_section_is_list_item(const char *p, const char *e);

/*
 * The end of the list item whose line starts at `p` (within [p, e)): past
 * its line and the indented non-blank lines that continue it (a blank
 * line, a line that is not indented or another item ends it).
 */
const char *tm_section_item_end(const char *p, const char *e);

/*
 * The item [p, e) as a key into `out` (cleared first): each line without
 * its trailing blanks and CR, then LF, so that two copies of an item
 * differing only there have the same key.
 */
void tm_section_item_key(tm_buf *out, const char *p, const char *e);

/*
 * Whether the line [p, e) (no line end) is a code fence: a run of three
 * or more ``` or ~~~ after at most three spaces; its character and length
 * in *ch and *n.  `closing` asks for nothing but blanks after the run, as
 * a closing fence has.
 */
bool tm_section_fence(const char *p, const char *e, char *ch, size_t *n,
		      bool closing);

/* Append every section's bytes, in order, to `out`. */
void tm_section_join(tm_buf *out, const tm_section_list *l);

/*
 * Merge the summary `from` (`from_len` bytes) into the summary `into`
 * (`into_len` bytes) and append the result to `out`: the preamble of
 * `from` is appended under the preamble of `into`, each headed section of
 * `from`, in order, under the section of `into` with a matching heading
 * (or added at the end), as tm_section_append does.  Sections of `into`
 * that receive nothing keep their bytes.
 */
void tm_section_merge(tm_buf *out, const char *into, size_t into_len,
		      const char *from, size_t from_len);

/*
 * tm_section_merge, except that the preamble of `from` goes under the
 * section `heading` of `into` (one line; NULL: under the preamble), as
 * tm_section_append puts it: `summary --append --section`.
 */
void tm_section_merge_under(tm_buf *out, const char *into, size_t into_len,
			    const char *from, size_t from_len,
			    const char *heading);

#endif
