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

/* Our lines, and the forms earlier versions wrote (upgraded in place,
 * removed by uninstall). */
static const char *const attr_ours[] = {TM_INSTALL_ATTR_THREADS,
					TM_INSTALL_ATTR_PROJECTS};
static const char *const attr_old[] = {TM_INSTALL_ATTR_THREADS_OLD};

/* The length of an attribute's name: `merge` of `merge=x`, `diff` of
 * `-diff` (without its `-` or `!`). */
static size_t attr_name(const char **w, size_t wn)
{
	const char *eq;

	if (wn && (**w == '-' || **w == '!')) {
		(*w)++;
		wn--;
	}
	eq = memchr(*w, '=', wn);
	return eq ? (size_t)(eq - *w) : wn;
}

/* Does the word list [p, end) hold the word `word` (`n` bytes)? */
static bool has_word(const char *p, const char *end, const char *word, size_t n)
{
	const char *w;
	size_t wn;

	while (tm_install__next_word(&p, end, &w, &wn))
		if (wn == n && !memcmp(w, word, n))
			return true;
	return false;
}

/* Does the line start with the pattern of `want` (its first word)?  Then
 * *rest is what follows the pattern. */
static bool attr_pattern(const char *d, const struct tm_install__line *l,
			 const char *want, const char **rest)
{
	const char *p = d + l->start, *end = d + l->end, *w;
	size_t wn, plen = strcspn(want, " ");

	if (!tm_install__next_word(&p, end, &w, &wn) || wn != plen ||
	    memcmp(w, want, wn))
		return false;
	*rest = p;
	return true;
}

/* Is the line exactly `want`: its pattern and the same attributes, in
 * any order, blanks between words ignored? */
static bool attr_exact(const char *d, const struct tm_install__line *l,
		       const char *want)
{
	const char *p, *end = d + l->end, *w, *wp, *wend;
	size_t wn, count = 0, wcount = 0;

	if (!attr_pattern(d, l, want, &p))
		return false;
	wp = want + strcspn(want, " ");
	wend = want + strlen(want);
	while (tm_install__next_word(&p, end, &w, &wn)) {
		if (!has_word(wp, wend, w, wn))
			return false;
		count++;
	}
	while (tm_install__next_word(&wp, wend, &w, &wn))
		wcount++;
	return count == wcount;
}

/*
 * Does some line of the file with the pattern of `want` say what `want`
 * says of the attribute `a` (`an` bytes)?  `merge` must be set to our
 * value; any state of another attribute (`-diff`, `diff=other`) is the
 * user's choice and counts.
 */
static bool attr_covered(const char *d, size_t len, const char *want,
			 const char *a, size_t an)
{
	struct tm_install__line l;
	const char *p, *w;
	size_t pos = 0, wn, n;

	while (tm_install__next_line(d, len, &pos, &l)) {
		if (!attr_pattern(d, &l, want, &p))
			continue;
		while (tm_install__next_word(&p, d + l.end, &w, &wn)) {
			const char *name = w;

			n = attr_name(&name, wn);
			if (n != an || memcmp(name, a, an))
				continue;
			if (an != 5 || memcmp(a, "merge", 5) ||
			    (wn == an + 11 &&
			     !memcmp(w + an, "=threadmind", 11)))
				return true;
		}
	}
	return false;
}

bool tm_install_attributes_ask_driver(const char *data, size_t len)
{
	static const char ours[] = "merge=threadmind";
	struct tm_install__line l;
	const char *p, *w;
	size_t pos = 0, wn;

	while (tm_install__next_line(data, len, &pos, &l)) {
		p = data + l.start;
		/* the pattern first, then the attributes */
		if (!tm_install__next_word(&p, data + l.end, &w, &wn) ||
		    *w == '#')
			continue;
		if (has_word(p, data + l.end, ours, sizeof(ours) - 1))
			return true;
	}
	return false;
}

/* Does the file say everything `want` says (each of its attributes
 * covered by some line with its pattern)? */
static bool attr_present(const char *d, size_t len, const char *want)
{
	const char *p = want + strcspn(want, " "), *end = want + strlen(want);
	const char *w, *name;
	size_t wn, n;

	while (tm_install__next_word(&p, end, &w, &wn)) {
		name = w;
		n = attr_name(&name, wn);
		if (!attr_covered(d, len, want, name, n))
			return false;
	}
	return true;
}

/* Is the line an old form of one of our lines?  Then *now is that line. */
static bool attr_is_old(const char *d, const struct tm_install__line *l,
			const char **now)
{
	size_t i, k;

	*now = NULL;
	for (i = 0; i < sizeof(attr_old) / sizeof(*attr_old); i++) {
		if (!attr_exact(d, l, attr_old[i]))
			continue;
		for (k = 0; k < sizeof(attr_ours) / sizeof(*attr_ours); k++)
			if (strcspn(attr_ours[k], " ") ==
				    strcspn(attr_old[i], " ") &&
			    !memcmp(attr_ours[k], attr_old[i],
				    strcspn(attr_old[i], " ")))
				*now = attr_ours[k];
		return true;
	}
	return false;
}

bool tm_install_attributes_add(tm_buf *out, const char *data, size_t len)
{
	const char *eol = tm_install__file_eol(data, len);
	bool added = false, appended = false, upgraded[2] = {false, false};
	struct tm_install__line l;
	const char *now = NULL;
	size_t i, pos = 0;
	tm_buf mid = TM_BUF_INIT;

	/* Old forms of a line that is not all there: upgraded in place. */
	while (tm_install__next_line(data, len, &pos, &l)) {
		if (attr_is_old(data, &l, &now) && now &&
		    !attr_present(data, len, now)) {
			i = now == attr_ours[0] ? 0 : 1;
			if (!upgraded[i]) {
				tm_buf_puts(&mid, now);
				tm_buf_put(&mid, data + l.end, l.next - l.end);
				upgraded[i] = true;
				added = true;
				continue;
			}
		}
		tm_buf_put(&mid, data + l.start, l.next - l.start);
	}
	tm_buf_put(out, tm_buf_cstr(&mid), mid.size);
	for (i = 0; i < 2; i++) {
		if (upgraded[i] ||
		    attr_present(tm_buf_cstr(&mid), mid.size, attr_ours[i]))
			continue;
		if (!appended && mid.size && mid.ptr[mid.size - 1] != '\n')
			tm_buf_puts(out, eol);
		tm_buf_puts(out, attr_ours[i]);
		tm_buf_puts(out, eol);
		added = appended = true;
	}
	tm_buf_release(&mid);
	return added;
}

bool tm_install_attributes_remove(tm_buf *out, const char *data, size_t len)
{
	struct tm_install__line l;
	const char *now;
	size_t pos = 0, i;
	bool removed = false, ours;

	while (tm_install__next_line(data, len, &pos, &l)) {
		ours = attr_is_old(data, &l, &now);
		for (i = 0; !ours && i < 2; i++)
			ours = attr_exact(data, &l, attr_ours[i]);
		if (ours) {
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
