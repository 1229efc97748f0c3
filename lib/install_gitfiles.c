/*
 * install / uninstall, the text of the git files besides hooks (see
 * install.h): our lines in .threadmind/.gitattributes, the empty
 * `[merge "threadmind"]` header left in a git config file, and the
 * old-style driver registration.  Pure text
 * functions; install_plan.c does the file I/O.
 */
#include "install.h"
#include "install_internal.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* ---- the driver registration ---- */

bool tm_install_driver_is_old(const char *value)
{
	static const char cmd[] = "git-threadmind-merge ";

	if (!value || !strcmp(value, TM_INSTALL_DRIVER))
		return false;
	value += strspn(value, " \t");
	return !strncmp(value, cmd, sizeof(cmd) - 1) &&
	       !strstr(value, "merge-file");
}

/* ---- .gitattributes ---- */

/* Is the line `pattern` followed by attributes among which `attr`
 * (`exact`: and nothing else)? */
static bool attr_line(const char *d, const struct tm_install__line *l,
		      const char *want, bool exact)
{
	const char *p = d + l->start, *end = d + l->end, *w;
	const char *space = strchr(want, ' ');
	size_t wn, plen = (size_t)(space - want);
	const char *attr = space + 1;
	bool has = false;

	if (!tm_install__next_word(&p, end, &w, &wn) || wn != plen ||
	    memcmp(w, want, wn))
		return false;
	while (tm_install__next_word(&p, end, &w, &wn)) {
		if (wn == strlen(attr) && !memcmp(w, attr, wn))
			has = true;
		else if (exact)
			return false;
	}
	return has;
}

static bool attr_present(const char *d, size_t len, const char *want)
{
	struct tm_install__line l;
	size_t pos = 0;

	while (tm_install__next_line(d, len, &pos, &l))
		if (attr_line(d, &l, want, false))
			return true;
	return false;
}

bool tm_install_attributes_add(tm_buf *out, const char *data, size_t len)
{
	static const char *const ours[] = {TM_INSTALL_ATTR_THREADS,
					   TM_INSTALL_ATTR_PROJECTS};
	const char *eol = tm_install__file_eol(data, len);
	bool added = false;
	size_t i;

	tm_buf_put(out, data, len);
	for (i = 0; i < 2; i++) {
		if (attr_present(data, len, ours[i]))
			continue;
		if (!added && len && data[len - 1] != '\n')
			tm_buf_puts(out, eol);
		tm_buf_puts(out, ours[i]);
		tm_buf_puts(out, eol);
		added = true;
	}
	return added;
}

bool tm_install_attributes_remove(tm_buf *out, const char *data, size_t len)
{
	struct tm_install__line l;
	size_t pos = 0;
	bool removed = false;

	while (tm_install__next_line(data, len, &pos, &l)) {
		if (attr_line(data, &l, TM_INSTALL_ATTR_THREADS, true) ||
		    attr_line(data, &l, TM_INSTALL_ATTR_PROJECTS, true)) {
			removed = true;
			continue;
		}
		tm_buf_put(out, data + l.start, l.next - l.start);
	}
	return removed;
}

/* ---- the config file ---- */

/* Is the line `[merge "threadmind"]` (blanks around, `merge` in any case)? */
static bool our_section(const char *d, const struct tm_install__line *l)
{
	const char *p = d + l->start, *end = d + l->end;

	while (p < end && tm_install__is_blank(*p))
		p++;
	while (end > p && tm_install__is_blank(end[-1]))
		end--;
	return end - p == 20 && !strncasecmp(p, "[merge ", 7) &&
	       !memcmp(p + 7, "\"threadmind\"]", 13);
}

static bool blank_line(const char *d, const struct tm_install__line *l)
{
	size_t i;

	for (i = l->start; i < l->end; i++)
		if (!tm_install__is_blank(d[i]))
			return false;
	return true;
}

/* Does the line start a section (`[` after blanks)? */
static bool section_line(const char *d, const struct tm_install__line *l)
{
	size_t i = l->start;

	while (i < l->end && tm_install__is_blank(d[i]))
		i++;
	return i < l->end && d[i] == '[';
}

bool tm_install_config_drop_section(tm_buf *out, const char *data, size_t len)
{
	struct tm_install__line l, m;
	size_t pos = 0, after;
	bool empty;

	while (tm_install__next_line(data, len, &pos, &l)) {
		if (!our_section(data, &l))
			continue;
		after = pos;
		empty = true;
		while (tm_install__next_line(data, len, &after, &m)) {
			if (blank_line(data, &m))
				continue;
			empty = section_line(data, &m);
			break;
		}
		if (!empty)
			continue;
		tm_buf_put(out, data, l.start);
		tm_buf_put(out, data + l.next, len - l.next);
		return true;
	}
	tm_buf_put(out, data, len);
	return false;
}
