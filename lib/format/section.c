/* A summary's `## ` sections: split, find, append, join (see section.h). */
#include "section.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static bool is_blank_char(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Skip at most three leading spaces; NULL when there are more (code). */
static const char *skip_indent(const char *p, const char *e)
{
	int n = 0;

	while (p < e && *p == ' ' && n < 4) {
		p++;
		n++;
	}
	return n < 4 ? p : NULL;
}

bool tm_section_fence(const char *p, const char *e, char *ch, size_t *n,
		      bool rest_blank)
{
	const char *q;

	p = skip_indent(p, e);
	if (!p || p >= e || (*p != '`' && *p != '~'))
		return false;
	for (q = p; q < e && *q == *p; q++)
		;
	if (q - p < 3 || (rest_blank && !tm_section_line_blank(q, e)))
		return false;
	*ch = *p;
	*n = (size_t)(q - p);
	return true;
}

/* If [p, e) is a `##` heading, its text (malloc'd), else NULL. */
static char *heading_text(const char *p, const char *e)
{
	const char *s, *t;

	p = skip_indent(p, e);
	if (!p || e - p < 2 || p[0] != '#' || p[1] != '#')
		return NULL;
	p += 2;
	if (p < e && *p != ' ' && *p != '\t' && *p != '\r')
		return NULL;
	s = p;
	t = e;
	while (s < t && is_blank_char(*s))
		s++;
	while (t > s && is_blank_char(t[-1]))
		t--;
	/* An optional closing run of #, alone or after a blank. */
	if (t > s && t[-1] == '#') {
		const char *h = t;

		while (h > s && h[-1] == '#')
			h--;
		if (h == s || is_blank_char(h[-1])) {
			t = h;
			while (t > s && is_blank_char(t[-1]))
				t--;
		}
	}
	return tm_xstrndup(s, (size_t)(t - s));
}

static tm_section *add_section(tm_section_list *l, char *heading,
			       const char *text, size_t len, size_t body)
{
	tm_section *s;

	tm_xgrow((void **)&l->items, &l->alloc, l->n + 1, sizeof(*l->items));
	s = &l->items[l->n++];
	s->heading = heading;
	s->text = tm_xstrndup(text, len);
	s->len = len;
	s->body = body;
	return s;
}

void tm_section_split(tm_section_list *out, const char *text, size_t len)
{
	const char *end = text + len, *p = text, *start = text;
	char *heading = NULL, fch = 0;
	size_t flen = 0, body = 0;
	bool in_fence = false;

	while (p < end) {
		const char *e = tm_section_line_end(p, end),
			   *next = tm_section_next_line(p, end);
		char ch;
		size_t n;
		char *h;

		if (in_fence) {
			if (tm_section_fence(p, e, &ch, &n, true) &&
			    ch == fch && n >= flen)
				in_fence = false;
		} else if (tm_section_fence(p, e, &fch, &flen, false)) {
			in_fence = true;
		} else if ((h = heading_text(p, e))) {
			add_section(out, heading, start, (size_t)(p - start),
				    body);
			heading = h;
			start = p;
			body = (size_t)(next - p);
		}
		p = next;
	}
	add_section(out, heading, start, (size_t)(end - start), body);
}

static void section_clear(tm_section *s)
{
	TM_FREE_ALL(s->heading, s->text);
}

void tm_section_list_clear(tm_section_list *l)
{
	TM_FREE_ITEMS(l->items, l->n, section_clear);
	l->items = NULL;
	l->n = l->alloc = 0;
}

char *tm_section_heading_key(const char *heading)
{
	tm_buf b = TM_BUF_INIT;
	utf8proc_uint8_t *folded = NULL;
	const char *p;
	bool space = false;

	for (p = heading; *p; p++) {
		if (is_blank_char(*p)) {
			space = b.size > 0;
			continue;
		}
		if (space)
			tm_buf_putc(&b, ' ');
		space = false;
		tm_buf_putc(&b, *p);
	}
	if (utf8proc_map((const utf8proc_uint8_t *)tm_buf_cstr(&b), 0, &folded,
			 UTF8PROC_NULLTERM | UTF8PROC_STABLE |
				 UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD) < 0 ||
	    !folded) {
		free(folded);
		return tm_buf_detach(&b);
	}
	tm_buf_release(&b);
	return (char *)folded;
}

long tm_section_find(const tm_section_list *l, const char *heading)
{
	char *want;
	long found = -1;
	size_t i;

	if (!heading)
		return l->n ? 0 : -1;
	want = tm_section_heading_key(heading);
	for (i = 0; i < l->n && found < 0; i++) {
		char *have;

		if (!l->items[i].heading)
			continue;
		have = tm_section_heading_key(l->items[i].heading);
		if (!strcmp(have, want))
			found = (long)i;
		free(have);
	}
	free(want);
	return found;
}

bool tm_section_is_list_item(const char *p, const char *e)
{
	const char *q;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p < e && (*p == '-' || *p == '*' || *p == '+'))
		return p + 1 < e && (p[1] == ' ' || p[1] == '\t');
	for (q = p; q < e && q - p < 9 && *q >= '0' && *q <= '9'; q++)
		;
	return q > p && q + 1 < e && (*q == '.' || *q == ')') &&
	       (q[1] == ' ' || q[1] == '\t');
}

/* Trim leading and trailing blank lines off [*s, *e): *s at the first
 * non-blank line, *e at the end of the last one (before its LF). */
static void trim_blank_lines(const char **s, const char **e)
{
	const char *p = *s, *first = NULL, *last_end = NULL;

	while (p < *e) {
		const char *le = tm_section_line_end(p, *e);

		if (!tm_section_line_blank(p, le)) {
			if (!first)
				first = p;
			last_end = le;
		}
		p = tm_section_next_line(p, *e);
	}
	if (!first) {
		*s = *e;
		return;
	}
	*s = first;
	*e = last_end;
}

static void append_under(tm_section_list *l, size_t i, const char *add,
			 const char *add_end)
{
	tm_section *s = &l->items[i];
	const char *p = s->text + s->body, *end = s->text + s->len;
	const char *content_end = s->text + s->body, *last = NULL;
	tm_buf b = TM_BUF_INIT;

	while (p < end) {
		const char *le = tm_section_line_end(p, end);

		if (!tm_section_line_blank(p, le)) {
			last = p;
			content_end = tm_section_next_line(p, end);
		}
		p = tm_section_next_line(p, end);
	}
	tm_buf_put(&b, s->text, (size_t)(content_end - s->text));
	if (b.size && b.ptr[b.size - 1] != '\n')
		tm_buf_putc(&b, '\n');
	if (last &&
	    !(tm_section_is_list_item(last, tm_section_line_end(last, end)) &&
	      tm_section_is_list_item(add, tm_section_line_end(add, add_end))))
		tm_buf_putc(&b, '\n');
	tm_buf_put(&b, add, (size_t)(add_end - add));
	tm_buf_putc(&b, '\n');
	if (content_end < end)
		tm_buf_put(&b, content_end, (size_t)(end - content_end));
	else if (i + 1 < l->n)
		tm_buf_putc(&b, '\n'); /* keep a blank line before the next */
	free(s->text);
	s->len = b.size;
	s->text = tm_buf_detach(&b);
}

void tm_section_append(tm_section_list *l, const char *heading,
		       const char *text, size_t len)
{
	const char *s = text, *e = text + len;
	long i;
	tm_buf b = TM_BUF_INIT;
	tm_section *prev;

	trim_blank_lines(&s, &e);
	if (s == e)
		return;
	if (!l->n)
		add_section(l, NULL, "", 0, 0);
	i = tm_section_find(l, heading);
	if (i >= 0) {
		append_under(l, (size_t)i, s, e);
		return;
	}
	/* A blank line between the last section and the new one. */
	prev = &l->items[l->n - 1];
	if (prev->len) {
		tm_buf_put(&b, prev->text, prev->len);
		if (b.ptr[b.size - 1] != '\n')
			tm_buf_putc(&b, '\n');
		if (b.size < 2 || b.ptr[b.size - 2] != '\n')
			tm_buf_putc(&b, '\n');
		free(prev->text);
		prev->len = b.size;
		prev->text = tm_buf_detach(&b);
	}
	tm_buf_printf(&b, "##%s%s\n", *heading ? " " : "", heading);
	tm_buf_put(&b, s, (size_t)(e - s));
	tm_buf_putc(&b, '\n');
	add_section(l, tm_xstrdup(heading), tm_buf_cstr(&b), b.size,
		    strlen(heading) + (*heading ? 4 : 3));
	tm_buf_release(&b);
}

void tm_section_join(tm_buf *out, const tm_section_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		tm_buf_put(out, l->items[i].text, l->items[i].len);
}

void tm_section_merge_under(tm_buf *out, const char *into, size_t into_len,
			    const char *from, size_t from_len,
			    const char *heading)
{
	tm_section_list dst = TM_SECTION_LIST_INIT, src = TM_SECTION_LIST_INIT;
	size_t i;

	tm_section_split(&dst, into, into_len);
	tm_section_split(&src, from, from_len);
	for (i = 0; i < src.n; i++) {
		const tm_section *s = &src.items[i];

		tm_section_append(&dst, i ? s->heading : heading,
				  s->text + s->body, s->len - s->body);
	}
	tm_section_join(out, &dst);
	tm_section_list_clear(&dst);
	tm_section_list_clear(&src);
}

void tm_section_merge(tm_buf *out, const char *into, size_t into_len,
		      const char *from, size_t from_len)
{
	tm_section_merge_under(out, into, into_len, from, from_len, NULL);
}

const char *tm_section_item_end(const char *p, const char *e)
{
	const char *q = tm_section_next_line(p, e);

	while (q < e && (*q == ' ' || *q == '\t') &&
	       !tm_section_is_list_item(q, tm_section_line_end(q, e))) {
		if (tm_section_line_blank(q, tm_section_line_end(q, e)))
			break; /* a blank line ends the item */
		q = tm_section_next_line(q, e);
	}
	return q;
}

void tm_section_item_key(tm_buf *out, const char *p, const char *e)
{
	tm_buf_clear(out);
	while (p < e) {
		const char *le = tm_section_line_end(p, e), *t = le;

		while (t > p && is_blank_char(t[-1]))
			t--;
		tm_buf_put(out, p, (size_t)(t - p));
		tm_buf_putc(out, '\n');
		p = tm_section_next_line(p, e);
	}
}
