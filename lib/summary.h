/*
 * Replacing a thread's summary (`summary`, `edit`): what a new text would
 * do to the thread, and which editor to run, chosen as git chooses it.
 */
#ifndef TM_SUMMARY_H
#define TM_SUMMARY_H

#include "model.h"

#include <stddef.h>

/* What replacing a summary with a new text would do. */
typedef enum {
	TM_SUMMARY_CHANGED,   /* the summary would be different */
	TM_SUMMARY_UNCHANGED, /* the same summary once normalised */
	TM_SUMMARY_EMPTY      /* the text is empty or only blanks */
} tm_summary_outcome;

/*
 * What tm_thread_set_summary(t, text, len) would do, into *out.  The text
 * is compared with t's current summary (tm_thread_summary) after both are
 * normalised the way tm_thread_set_summary normalises (CRLF, trailing blank
 * lines, final newline), so that an editor adding or dropping a final
 * newline leaves the summary unchanged.  TM_SUMMARY_EMPTY wins over
 * TM_SUMMARY_UNCHANGED (an empty text on an empty summary is "empty").
 * `t` is not modified.
 *
 * Errors (*out untouched): TM_EINVALID, naming the thread (t->id), when the
 * text holds a NUL byte or is not valid UTF-8, or when the thread file
 * would grow past TM_MAX_FILE_SIZE (it could not be read back).
 */
int tm_summary_check(tm_summary_outcome *out, const tm_thread *t,
		     const char *text, size_t len);

/*
 * The editor command git would run, from the values git looks at, in
 * order: `git_editor` ($GIT_EDITOR), `core_editor` (core.editor),
 * `visual` ($VISUAL, skipped when the terminal is dumb), `editor`
 * ($EDITOR), then "vi" unless the terminal is dumb.  `term` is $TERM; NULL
 * or "dumb" is a dumb terminal.  NULL and empty values count as unset.
 *
 * Returns one of the arguments (or the static "vi"), not a copy; NULL when
 * the terminal is dumb and neither GIT_EDITOR, core.editor nor EDITOR is
 * set.  Reads nothing itself: the caller passes the environment and config.
 */
const char *tm_summary_editor(const char *git_editor, const char *core_editor,
			      const char *visual, const char *editor,
			      const char *term);

#endif
