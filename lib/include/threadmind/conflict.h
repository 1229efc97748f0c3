/*
 * Conflict markers: how git writes them (merge.conflictStyle) and finding
 * those a merge left in a file.  Pure functions over bytes, below the git
 * wrapper (which reads the style) and the store (which refuses a file that
 * holds markers), and used by the merge.
 */
#ifndef TM_CONFLICT_H
#define TM_CONFLICT_H

#include <stdbool.h>
#include <stddef.h>

/* How conflicts are written (git's merge.conflictStyle). */
typedef enum {
	TM_CONFLICT_STYLE_MERGE,
	TM_CONFLICT_STYLE_DIFF3,
	TM_CONFLICT_STYLE_ZDIFF3
} tm_conflict_style;

/*
 * Whether `len` bytes of `data` hold conflict markers a merge left: a line
 * of 7 or more '<' and a later one of as many '>' (each followed by a
 * blank or the end of the line), outside fenced code blocks (``` or ~~~),
 * so that a fenced example of markers is text.
 */
bool tm_conflict_markers_left(const char *data, size_t len);

/*
 * Whether a conflict-marker line (7 or more '<', '|' or '>' followed by a
 * blank or the line end, or a line of only 7 or more '=') lies where no
 * such line can be text: in a thread file's frontmatter, from its opening
 * `---` through its closing one (through the end when it has none; a file
 * whose first line is a marker counts: its frontmatter starts inside the
 * conflict), or anywhere in a project file (`json`: JSON has no text that
 * spans lines).  Markers in a thread's body are not looked at: a fenced
 * example is text there, and the driver leaves a body conflict for `edit`.
 */
bool tm_conflict_markers_in_fields(const char *data, size_t len, bool json);

#endif
