/*
 * Thread files written back canonically (the frontmatter block, then the
 * body), and the summary body (see frontmatter.h).
 */
#include "frontmatter.h"
#include "yaml.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define LF   "\n"
#define CRLF "\r\n"

/* Append `len` bytes of `s`, its LF line ends made `eol`. */
static void put_lines(tm_buf *out, const char *eol, const char *s, size_t len)
{
	const char *nl, *end = s + len;

	while ((nl = memchr(s, '\n', end - s))) {
		tm_buf_put(out, s, nl - s);
		tm_buf_puts(out, eol);
		s = nl + 1;
	}
	tm_buf_put(out, s, end - s);
}

static void put_field(tm_buf *out, const char *eol, const char *key,
		      const char *value)
{
	if (!value)
		return;
	tm_buf_puts(out, key);
	tm_buf_puts(out, ": ");
	tm_yaml_put_scalar(out, value);
	tm_buf_puts(out, eol);
}

static void put_header(tm_buf *out, const tm_thread *t, const char *eol)
{
	size_t i;

	tm_buf_puts(out, "---");
	tm_buf_puts(out, eol);
	put_field(out, eol, "id", t->id ? t->id : t->field_id);
	put_field(out, eol, "title", t->title);
	if (t->parent_id) {
		put_field(out, eol, "parentId", t->parent_id);
	} else {
		tm_buf_puts(out, "parentId: null"); /* plain: a root */
		tm_buf_puts(out, eol);
	}
	put_field(out, eol, "author", t->author);
	put_field(out, eol, "createdAt", t->created_at);
	put_field(out, eol, "updatedAt", t->updated_at);
	put_field(out, eol, "status", t->status);
	put_field(out, eol, "branch", t->branch);
	put_field(out, eol, "commit", t->commit);
	if (t->has_paths) {
		tm_buf_puts(out, "paths: [");
		for (i = 0; i < t->paths.n; i++) {
			if (i)
				tm_buf_putc(out, ',');
			tm_yaml_put_quoted(out, t->paths.items[i]);
		}
		tm_buf_putc(out, ']');
		tm_buf_puts(out, eol);
	}
	put_field(out, eol, "mergedInto", t->merged_into);
	for (i = 0; i < t->nextra; i++) {
		if (t->extra[i].key) {
			tm_buf_puts(out, t->extra[i].key);
			tm_buf_putc(out, ':');
		}
		if (t->extra[i].raw)
			put_lines(out, eol, t->extra[i].raw,
				  strlen(t->extra[i].raw));
		tm_buf_puts(out, eol);
	}
	tm_buf_puts(out, "---");
	tm_buf_puts(out, eol);
}

void tm_frontmatter_write_header(tm_buf *out, const tm_thread *t)
{
	put_header(out, t, LF);
}

void tm_frontmatter_write(tm_buf *out, const tm_thread *t)
{
	put_header(out, t, t->crlf ? CRLF : LF);
	if (t->body)
		tm_buf_put(out, t->body, t->body_len);
}

static bool is_blank_char(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

void tm_thread_set_summary(tm_thread *t, const char *text, size_t len)
{
	tm_buf norm = TM_BUF_INIT, body = TM_BUF_INIT;
	const char *eol = t->crlf ? CRLF : LF;
	size_t i, keep = 0;
	bool blank = true;

	for (i = 0; i < len; i++)
		if (text[i] != '\r' || i + 1 == len || text[i + 1] != '\n')
			tm_buf_putc(&norm, text[i]);
	/* keep up to the end of the last line holding more than blanks */
	for (i = 0; i < norm.size; i++) {
		if (norm.ptr[i] == '\n')
			blank = true;
		else if (!is_blank_char(norm.ptr[i]))
			blank = false;
		if (!blank && (i + 1 == norm.size || norm.ptr[i + 1] == '\n'))
			keep = i + 1;
	}
	if (keep) {
		tm_buf_puts(&body, eol);
		put_lines(&body, eol, norm.ptr, keep);
		tm_buf_puts(&body, eol);
	}
	tm_thread_set_body(t, tm_buf_cstr(&body), body.size);
	tm_buf_release(&norm);
	tm_buf_release(&body);
}

bool tm_summary_blank(const char *body, size_t len)
{
	size_t i;

	for (i = 0; body && i < len; i++)
		if (body[i] != '\n' && !is_blank_char(body[i]))
			return false;
	return true;
}

bool tm_thread_summary_blank(const tm_thread *t)
{
	return tm_summary_blank(t->body, t->body_len);
}

char *tm_thread_summary(const tm_thread *t)
{
	tm_buf out = TM_BUF_INIT;
	const char *s = t->body, *end, *nl;
	size_t len = t->body_len, n;

	if (!s)
		return tm_xstrdup("");
	if (len && s[0] == '\n')
		s++, len--;
	else if (len >= 2 && s[0] == '\r' && s[1] == '\n')
		s += 2, len -= 2;
	end = s + len;
	/* Each line of the file, its line end (CRLF in a CRLF file, else LF)
	 * cut off, then written back as tm_thread_set_summary reads it: LF,
	 * or CRLF when the line's text itself ends in CR. */
	while ((nl = memchr(s, '\n', end - s))) {
		n = nl - s;
		if (t->crlf && n && s[n - 1] == '\r')
			n--;
		tm_buf_put(&out, s, n);
		tm_buf_puts(&out, n && s[n - 1] == '\r' ? CRLF : LF);
		s = nl + 1;
	}
	tm_buf_put(&out, s, end - s);
	return tm_buf_detach(&out);
}
