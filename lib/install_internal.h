/*
 * Internal to the install files (install_hooks.c, install_gitfiles.c): the
 * line reader both edit text with.  Not part of the umbrella header.
 */
#ifndef TM_INSTALL_INTERNAL_H
#define TM_INSTALL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* One line of a buffer: [start, end) without its line end, next after. */
struct tm_install__line {
	size_t start, end, next;
};

static inline bool tm_install__next_line(const char *d, size_t len, size_t *pos,
					 struct tm_install__line *l)
{
	const char *nl;

	if (*pos >= len)
		return false;
	l->start = *pos;
	nl = memchr(d + *pos, '\n', len - *pos);
	l->end = nl ? (size_t)(nl - d) : len;
	l->next = nl ? l->end + 1 : len;
	if (l->end > l->start && d[l->end - 1] == '\r')
		l->end--;
	*pos = l->next;
	return true;
}

static inline bool tm_install__line_is(const char *d,
				       const struct tm_install__line *l,
				       const char *text)
{
	size_t n = strlen(text);

	return l->end - l->start == n && !memcmp(d + l->start, text, n);
}

/* The line end of the file: that of its first line, LF by default. */
static inline const char *tm_install__file_eol(const char *d, size_t len)
{
	const char *nl = memchr(d, '\n', len);

	return nl && nl > d && nl[-1] == '\r' ? "\r\n" : "\n";
}

static inline bool tm_install__is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated word of [*p, end) into [*w, *w + *wn). */
static inline bool tm_install__next_word(const char **p, const char *end,
					 const char **w, size_t *wn)
{
	while (*p < end && tm_install__is_blank(**p))
		(*p)++;
	if (*p >= end)
		return false;
	*w = *p;
	while (*p < end && !tm_install__is_blank(**p))
		(*p)++;
	*wn = (size_t)(*p - *w);
	return true;
}

#endif
