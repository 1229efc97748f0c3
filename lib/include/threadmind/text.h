/*
 * Text that reaches a terminal, and titles as they are typed: control
 * characters in what a file holds are shown as '?' (as git shows them), and
 * refused in a new title (DESIGN.md section 11, "Titles").  Pure functions:
 * no I/O.
 */
#ifndef TM_TEXT_H
#define TM_TEXT_H

#include "buf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define TM_TEXT_KEEP_LF  1u /* keep '\n' (multi-line messages) */
#define TM_TEXT_KEEP_TAB 2u /* keep '\t' */

/*
 * Append `len` bytes of `s` to `out` with every control character replaced
 * by one '?': C0 (U+0000..U+001F, but LF / TAB when `flags` keeps them),
 * DEL (U+007F) and C1 (U+0080..U+009F, two bytes in UTF-8).  A byte that is
 * not part of valid UTF-8 becomes '?' too.  Everything else is copied as
 * is, so text without control characters comes out unchanged.
 */
void tm_text_sanitize(tm_buf *out, const char *s, size_t len, unsigned flags);

/*
 * Append JSON text `s` (`len` bytes, as tm_json_stringify writes it) with
 * DEL and the C1 controls, which JSON.stringify leaves raw, written as
 * \u007f and \u0080..\u009f: the same JSON value, and no control
 * character for a terminal (C0 is escaped already).  Such bytes can only
 * occur inside strings, so the result is valid JSON when `s` is.
 */
void tm_text_json_escape(tm_buf *out, const char *s, size_t len);

/*
 * Append a message line as every binary prints it: `prefix` (as is), the
 * formatted message with control characters as '?' (line ends and tabs
 * kept; paths and ids in it may come from a cloned repository), and a
 * newline.  The one filter of the CLI's die/warning/note, the merge
 * driver's and the hooks' lines (docs/SECURITY.md).
 */
void tm_text_vmessage(tm_buf *out, const char *prefix, const char *fmt,
		      va_list ap) __attribute__((format(printf, 3, 0)));

/* Does `s` (`len` bytes) hold anything tm_text_sanitize would replace? */
bool tm_text_needs_sanitize(const char *s, size_t len, unsigned flags);

/*
 * Append how messages name a thread to a person, by what they know it by
 * rather than by an id that may have changed hands: "'<title>' by
 * <author>" (control characters as '?'; a NULL title is "(untitled)", a
 * NULL author "an unknown author").
 */
void tm_text_thread_name(tm_buf *out, const char *title, const char *author);

/*
 * A title as typed (`new`, `set title=`, `project new`): each line end (LF,
 * CR or CR LF, and runs of them) becomes one space; everything else is
 * kept as given (spaces at the ends included).  Refused with TM_EINVALID:
 * bytes that are not UTF-8, a title empty after trimming blanks (spaces,
 * tabs, line ends), and any other control character (tab included).  `what`
 * names the title in messages ("the title of 'auth'").
 *
 * On success *out is the malloc'd title, which the caller frees.
 */
int tm_text_title(char **out, const char *in, const char *what);

#endif
