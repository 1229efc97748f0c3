/*
 * What the CLI says besides a command's output, as git's usage.c: fatal
 * errors, warnings, the informational lines -q silences, text made safe
 * for a terminal, and "did you mean" suggestions.
 */
#ifndef TM_CLI_USAGE_H
#define TM_CLI_USAGE_H

#include "threadmind/buf.h"

#include <stdarg.h>
#include <stddef.h>

#define EXIT_NEGATIVE 1
#define EXIT_FATAL    128
#define EXIT_USAGE    129

/* "fatal: …" on stderr, exit 128 (the store is freed first: a lock still
 * held is released). */
void die(const char *fmt, ...) __attribute__((noreturn))
__attribute__((format(printf, 1, 2)));
/* die() with the library's last error message. */
void die_lib(void) __attribute__((noreturn));
/* "warning: …" on stderr (always: warnings are not silenced by -q). */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * -q silences what git's -q does: the informational lines that are not the
 * command's output.  note() is such a line on stderr ("Created thread …",
 * hints); inform() one on stdout, where a command reports what it did
 * (install's steps, migrate's changes, resolve's "resolved FILE", doctor's
 * repairs).  Errors, warnings and what a command was asked to print (a
 * list, a tree, an id, --manual's script, --dry-run's report, doctor's
 * findings) are never silenced.
 */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void inform(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* PREFIX, the formatted message and a newline on stderr, control
 * characters shown as '?' (what die, warning and note print with). */
void cli_vreport(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* In a child about to exec another program: the signal dispositions
 * main() changed (SIGXFSZ ignored) back to their defaults. */
void cli_exec_signals(void);
/*
 * `s` as human-readable output shows it: control characters as '?'
 * (DESIGN.md section 11, "Titles"; NULL gives "").  The text lives in one
 * of 8 buffers used in turn: valid until 8 more calls, enough for one
 * printf.
 */
const char *cli_safe(const char *s);

/* git's weighted edit distance (with adjacent transpositions) from `typed`
 * to `name`, for "did you mean" suggestions; only scores below
 * CLI_SIMILARITY_FLOOR are close enough to suggest (git's help.c). */
#define CLI_SIMILARITY_FLOOR 7
int cli_edit_distance(const char *typed, const char *name);
/*
 * The closest of the `n` names, given each one's score (lower is closer):
 * those with the lowest score, when it is below CLI_SIMILARITY_FLOOR,
 * appended to `out` as "'a'", "'a' or 'b'", "'a', 'b' or 'c'".  Returns how
 * many (0: none is close enough, nothing appended).
 */
size_t cli_closest(tm_buf *out, const char *const *names, const int *score,
		   size_t n);

#endif
