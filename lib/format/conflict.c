/*
 * Conflict markers (conflict.h): finding those a merge left in a thread
 * file, in its frontmatter or in a project file.
 */
#include "conflict.h"

#include <string.h>

/* The length of the run of `c` that the line at `p` is (7 or more, then a
 * blank or the end of the line), else 0. */
static size_t marker_run(const char *p, const char *end, char c)
{
	const char *q = p;

	while (q < end && *q == c)
		q++;
	if (q - p < 7 || !(q == end || *q == ' ' || *q == '\n' || *q == '\r'))
		return 0;
	return (size_t)(q - p);
}

/* Whether "<<<<<<<" appears anywhere (every opening marker has it). */
static bool has_open_run(const char *p, size_t len)
{
	const char *end = p + len, *q;

	while ((q = memchr(p, '<', (size_t)(end - p)))) {
		if (end - q >= 7 && !memcmp(q, "<<<<<<<", 7))
			return true;
		p = q + 1;
	}
	return false;
}

bool tm_conflict_markers_left(const char *data, size_t len)
{
	const char *p = data, *end = data + len, *q;
	size_t open = 0, n;
	bool fenced = false;

	/* every store load asks it of every thread file: most have no
	 * opening marker at all, found at memchr's speed */
	if (!has_open_run(data, len))
		return false;
	while (p && p < end) {
		if ((size_t)(end - p) >= 3 &&
		    (!memcmp(p, "```", 3) || !memcmp(p, "~~~", 3)))
			fenced = !fenced;
		else if (!fenced && (n = marker_run(p, end, '<')))
			open = n;
		else if (!fenced && open && marker_run(p, end, '>') == open)
			return true;
		q = memchr(p, '\n', (size_t)(end - p));
		p = q ? q + 1 : NULL;
	}
	return false;
}

/* Is the line at `p` a conflict marker: 7 or more '<', '|' or '>' then a
 * blank or the line end, or only 7 or more '='? */
static bool marker_line(const char *p, const char *end)
{
	const char *q = p;

	if (marker_run(p, end, '<') || marker_run(p, end, '|') ||
	    marker_run(p, end, '>'))
		return true;
	while (q < end && *q == '=')
		q++;
	if (q - p < 7)
		return false;
	if (q < end && *q == '\r')
		q++;
	return q == end || *q == '\n';
}

/* Is the line at `p` the frontmatter fence `---` (CRLF too)? */
static bool fence_line(const char *p, const char *end)
{
	if (end - p < 3 || memcmp(p, "---", 3))
		return false;
	p += 3;
	if (p < end && *p == '\r')
		p++;
	return p == end || *p == '\n';
}

bool tm_conflict_markers_in_fields(const char *data, size_t len, bool json)
{
	const char *p = data, *end = data + len, *q;
	bool first = true;

	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3; /* a BOM */
	if (!json && !fence_line(p, end))
		/* no frontmatter, unless a marker stands for its start */
		return p < end && marker_line(p, end);
	while (p && p < end) {
		if (!json && !first && fence_line(p, end))
			return false; /* the frontmatter's end */
		if (marker_line(p, end))
			return true;
		first = false;
		q = memchr(p, '\n', (size_t)(end - p));
		p = q ? q + 1 : NULL;
	}
	return false;
}
