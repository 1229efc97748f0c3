/*
 * Replacing a thread's summary (`summary`, `edit`): what a new text would
 * do to the thread, which editor to run, chosen as git chooses it, and the
 * template `edit` offers for an empty summary.
 */
#ifndef TM_SUMMARY_H
#define TM_SUMMARY_H

#include "buf.h"
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

/* The sections the seed suggests for a summary, in its order (Decisions,
 * Constraints, State, Open questions, Next steps); NULL-terminated. */
extern const char *const tm_summary_sections[];

/*
 * Append to `out` the text `edit` offers for thread `t` of `project` when
 * its summary is empty, as `git commit` offers a template: a `## ` heading
 * for each of tm_summary_sections, a blank line after each, then comment
 * lines starting with "# " (the thread's id, title, project and paths, and
 * how to abort).  Control characters of the title and paths show as '?'.
 *
 * A Markdown `# ` heading is text, so the comment lines are not "every
 * line starting with #" as in git: only the lines this function writes
 * are comments (see tm_summary_strip_template).
 */
void tm_summary_template(tm_buf *out, const tm_thread *t, const char *project);

/*
 * What `len` bytes of `text` (the buffer the editor left, which began as
 * tm_summary_template(t, project)) give as a summary, appended to `out`:
 * every line equal to one of the template's comment lines (trailing
 * spaces, tabs and CR ignored) is removed, wherever it is; the user's own
 * lines, `# ` headings included, stay.  Then every section whose heading is
 * exactly one of tm_summary_sections and whose body holds only blank lines
 * is dropped, heading and all.  An unchanged template gives "" (nothing
 * but blank lines, at most).
 */
void tm_summary_strip_template(tm_buf *out, const tm_thread *t,
			       const char *project, const char *text,
			       size_t len);

#endif
