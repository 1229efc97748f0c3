/* Terminal-safe text and typed titles (see text.h). */
#include "text.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

/* A byte next_char passes as one character, never replaced (the stale
 * listing sends thousands of paths through here). */
#define PRINTABLE_ASCII(c) ((c) >= 0x20 && (c) < 0x7f)

/*
 * Length of the character at `s` (at most `len` bytes) and whether it is
 * to be replaced: 1 for a control character or a byte that does not start
 * valid UTF-8, 0 otherwise.
 */
static size_t next_char(const unsigned char *s, size_t len, unsigned flags,
			bool *bad)
{
	unsigned char c = s[0];
	size_t n;

	*bad = false;
	if (c < 0x80) {
		*bad = (c < 0x20 || c == 0x7f) &&
		       !(c == '\n' && (flags & TM_TEXT_KEEP_LF)) &&
		       !(c == '\t' && (flags & TM_TEXT_KEEP_TAB));
		return 1;
	}
	/* the length of the first character, when it is valid */
	n = tm_utf8_valid_prefix((const char *)s, len > 4 ? 4 : len);
	if (n == 0) {
		*bad = true;
		return 1;
	}
	n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	/* C1 controls: U+0080..U+009F are C2 80..C2 9F */
	*bad = c == 0xc2 && s[1] < 0xa0;
	return n;
}

void tm_text_sanitize(tm_buf *out, const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, n;
	bool bad;

	while (i < len) {
		if (PRINTABLE_ASCII(p[i])) {
			i++;
			continue;
		}
		n = next_char(p + i, len - i, flags, &bad);
		if (bad) {
			tm_buf_put(out, s + run, i - run);
			tm_buf_putc(out, '?');
			run = i + n;
		}
		i += n;
	}
	tm_buf_put(out, s + run, len - run);
}

void tm_text_json_escape(tm_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, run = 0;

	for (i = 0; i < len; i++) {
		unsigned c = p[i];

		if (c == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 &&
		    p[i + 1] < 0xa0)
			c = p[++i];
		else if (c != 0x7f)
			continue;
		tm_buf_put(out, s + run, (c == 0x7f ? i : i - 1) - run);
		tm_buf_printf(out, "\\u%04x", c);
		run = i + 1;
	}
	tm_buf_put(out, s + run, len - run);
}

void tm_text_vmessage(tm_buf *out, const char *prefix, const char *fmt,
		      va_list ap)
{
	tm_buf msg = TM_BUF_INIT;

	tm_buf_vprintf(&msg, fmt, ap);
	tm_buf_puts(out, prefix);
	tm_text_sanitize(out, msg.ptr ? msg.ptr : "", msg.size,
			 TM_TEXT_KEEP_LF | TM_TEXT_KEEP_TAB);
	tm_buf_putc(out, '\n');
	tm_buf_release(&msg);
}

bool tm_text_needs_sanitize(const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	bool bad;

	while (i < len) {
		if (PRINTABLE_ASCII(p[i])) { /* most of it: no call */
			i++;
			continue;
		}
		i += next_char(p + i, len - i, flags, &bad);
		if (bad)
			return true;
	}
	return false;
}

void tm_text_thread_name(tm_buf *out, const char *title, const char *author)
{
	if (!title)
		title = "(untitled)";
	tm_buf_putc(out, '\'');
	tm_text_sanitize(out, title, strlen(title), 0);
	tm_buf_puts(out, "' by ");
	if (author)
		tm_text_sanitize(out, author, strlen(author), 0);
	else
		tm_buf_puts(out, "an unknown author");
}

static bool blank(char c)
{
	return c && strchr(" \t\n\r\v\f", c);
}

int tm_text_title(char **out, const char *in, const char *what)
{
	tm_buf b = TM_BUF_INIT, shown = TM_BUF_INIT;
	size_t len = in ? strlen(in) : 0, i;
	int error = 0;

	if (!what)
		what = "the title";
	if (!tm_utf8_valid(in ? in : "", len))
		return tm_error_set(TM_EINVALID, "%s is not valid UTF-8", what);
	for (i = 0; i < len && blank(in[i]); i++)
		;
	if (i == len)
		return tm_error_set(TM_EINVALID, "%s cannot be empty", what);
	for (i = 0; i < len; i++) {
		if (in[i] == '\n' || in[i] == '\r') {
			while (i + 1 < len &&
			       (in[i + 1] == '\n' || in[i + 1] == '\r'))
				i++;
			tm_buf_putc(&b, ' ');
		} else
			tm_buf_putc(&b, in[i]);
	}
	if (tm_text_needs_sanitize(tm_buf_cstr(&b), b.size, 0)) {
		tm_text_sanitize(&shown, b.ptr, b.size, 0);
		error = tm_error_set(TM_EINVALID,
				     "%s holds a control character ('%s', "
				     "shown as '?'); titles are plain text",
				     what, tm_buf_cstr(&shown));
	}
	if (error == 0)
		*out = tm_buf_detach(&b);
	tm_buf_release(&b);
	tm_buf_release(&shown);
	return error;
}
