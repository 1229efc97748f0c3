/*
 * Replacing a thread's summary: checks, the editor choice and the template
 * of an empty summary (summary.h).
 */
#include "summary.h"

#include "fs.h"
#include "buf.h"
#include "error.h"
#include "frontmatter.h"
#include "section.h"
#include "text.h"

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

const char *const tm_summary_sections[] = {
	"Decisions",      "Constraints", "State",
	"Open questions", "Next steps",  NULL,
};

/* Append "# ", `s` with control characters as '?', and a newline. */
static void comment_line(tm_buf *out, const char *s)
{
	tm_buf_puts(out, "# ");
	tm_text_sanitize(out, s, strlen(s), 0);
	tm_buf_putc(out, '\n');
}

/* The comment lines of the template, one per line. */
static void template_comments(tm_buf *out, const tm_thread *t,
			      const char *project)
{
	const char *id = t->id ? t->id : "";
	tm_buf line = TM_BUF_INIT;
	size_t i;

	tm_buf_printf(&line, "Summary of thread '%s' (%s), project '%s'.", id,
		      t->title ? t->title : "", project ? project : "");
	comment_line(out, tm_buf_cstr(&line));
	tm_buf_clear(&line);
	if (!t->paths.n) {
		tm_buf_printf(&line,
			      "Paths: none (git threadmind set %s "
			      "paths=<path>,... names the files it covers).",
			      id);
	} else {
		tm_buf_puts(&line, "Paths: ");
		for (i = 0; i < t->paths.n; i++)
			tm_buf_printf(&line, "%s%s", i ? ", " : "",
				      t->paths.items[i]);
	}
	comment_line(out, tm_buf_cstr(&line));
	comment_line(out, "Write under the sections you need; those left "
			  "empty are dropped.");
	comment_line(out, "These '# ' lines are removed when you save; your "
			  "own Markdown headings stay.");
	comment_line(out, "Leave every section empty (or empty the file) to "
			  "abort: nothing is written.");
	tm_buf_release(&line);
}

void tm_summary_template(tm_buf *out, const tm_thread *t, const char *project)
{
	size_t i;

	for (i = 0; tm_summary_sections[i]; i++)
		tm_buf_printf(out, "## %s\n\n", tm_summary_sections[i]);
	template_comments(out, t, project);
}

/* The length of the line [p, e) without its trailing blanks and CR. */
static size_t trimmed_len(const char *p, const char *e)
{
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return (size_t)(e - p);
}

/* Is the line [p, e) one of the lines of `comments`? */
static bool is_comment(const char *p, const char *e, const tm_buf *comments)
{
	const char *c = comments->ptr, *end = comments->ptr + comments->size;
	size_t len = trimmed_len(p, e);

	while (c < end) {
		const char *nl = memchr(c, '\n', (size_t)(end - c));

		if (!nl)
			nl = end;
		if (trimmed_len(c, nl) == len && !memcmp(c, p, len))
			return true;
		c = nl < end ? nl + 1 : end;
	}
	return false;
}

/* Does the section hold nothing but blank lines under its heading? */
static bool section_blank(const tm_section *s)
{
	size_t i;

	for (i = s->body; i < s->len; i++)
		if (!strchr(" \t\r\n", s->text[i]))
			return false;
	return true;
}

static bool template_heading(const char *heading)
{
	size_t i;

	for (i = 0; heading && tm_summary_sections[i]; i++)
		if (!strcmp(heading, tm_summary_sections[i]))
			return true;
	return false;
}

void tm_summary_strip_template(tm_buf *out, const tm_thread *t,
			       const char *project, const char *text,
			       size_t len)
{
	tm_buf comments = TM_BUF_INIT, kept = TM_BUF_INIT;
	tm_section_list l = TM_SECTION_LIST_INIT;
	const char *p = text, *end = text + len;
	size_t i;

	template_comments(&comments, t, project);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		if (!is_comment(p, nl ? nl : end, &comments))
			tm_buf_put(&kept, p, (size_t)(next - p));
		p = next;
	}
	tm_section_split(&l, tm_buf_cstr(&kept), kept.size);
	for (i = 0; i < l.n; i++) {
		const tm_section *s = &l.items[i];

		if (!(template_heading(s->heading) && section_blank(s)))
			tm_buf_put(out, s->text, s->len);
	}
	tm_section_list_clear(&l);
	tm_buf_release(&kept);
	tm_buf_release(&comments);
}
