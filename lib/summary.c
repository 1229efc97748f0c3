/* Replacing a thread's summary: checks and the editor choice (summary.h). */
#include "summary.h"

#include "fs.h"
#include "buf.h"
#include "error.h"
#include "frontmatter.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int tm_summary_check(tm_summary_outcome *out, const tm_thread *t,
		     const char *text, size_t len)
{
	const char *id = t->id ? t->id : "?";
	tm_thread *next, *now;
	tm_buf file = TM_BUF_INIT;
	char *current;
	int error = 0;

	if (len && memchr(text, '\0', len))
		return tm_error_set(TM_EINVALID,
				    "the new summary of '%s' holds a NUL byte: "
				    "a summary is text",
				    id);
	if (!tm_utf8_valid(text, len))
		return tm_error_set(
			TM_EINVALID,
			"the new summary of '%s' is not valid UTF-8", id);
	next = tm_thread_dup(t);
	tm_thread_set_summary(next, text, len);
	tm_frontmatter_write(&file, next);
	if (file.size > TM_MAX_FILE_SIZE) {
		error = tm_error_set(TM_EINVALID,
				     "the new summary of '%s' would make its "
				     "file larger than 1 MiB, which threadmind "
				     "refuses to read",
				     id);
		goto done;
	}
	now = tm_thread_dup(t);
	current = tm_thread_summary(t);
	tm_thread_set_summary(now, current, strlen(current));
	if (next->body_len == 0)
		*out = TM_SUMMARY_EMPTY;
	else if (now->body_len == next->body_len &&
		 !memcmp(now->body, next->body, next->body_len))
		*out = TM_SUMMARY_UNCHANGED;
	else
		*out = TM_SUMMARY_CHANGED;
	free(current);
	tm_thread_free(now);
done:
	tm_buf_release(&file);
	tm_thread_free(next);
	return error;
}

static const char *set_or_null(const char *value)
{
	return value && *value ? value : NULL;
}

const char *tm_summary_editor(const char *git_editor, const char *core_editor,
			      const char *visual, const char *editor,
			      const char *term)
{
	bool dumb = !term || !strcmp(term, "dumb");
	const char *chosen = set_or_null(git_editor);

	if (!chosen)
		chosen = set_or_null(core_editor);
	if (!chosen && !dumb)
		chosen = set_or_null(visual);
	if (!chosen)
		chosen = set_or_null(editor);
	if (!chosen && !dumb)
		chosen = "vi";
	return chosen;
}
