/*
 * git's plain pathspec matching (see pathspec.h): normalisation, the
 * literal prefix test, and globs through POSIX fnmatch(3).
 *
 * Why not libgit2's git_pathspec: it disagrees with git on 9 of the 48
 * cases of test_stale_pathspec_table (tests/unit/check_stale.c), figure
 * from issue 9 "Architecture", re-checked with libgit2 1.5.1
 * (git_pathspec_matches_path, no flags): it lets "src/auth/" match the
 * file "src/auth" and "src/a*" + "/" match "src/auth/a.c", and does not
 * normalise "./", "//", "/./" or "/../", nor match "dir[1]" literally.
 * Our answers must be git's: a thread is stale when `git log
 * <commit>..HEAD -- <paths>` lists a commit.
 *
 * Globs: git matches a plain pathspec with wildmatch() without
 * WM_PATHNAME, so * and ? cross '/' (only `:(glob)` magic stops them
 * there); that is fnmatch() with no flags: no FNM_PATHNAME, no
 * FNM_PERIOD, backslash escapes on.  Checked against the wildmatch that
 * lib/stale/stale.c had before (3 million random patterns and paths over the
 * characters * ? [ ] ! ^ - \ : / . a b c), glibc's fnmatch gave the same
 * answers except in two corners: a '[' that is never closed is a literal
 * '[' for fnmatch while git's wildmatch then matches nothing (`x[ab*`
 * would name "x[abc" through fnmatch, nothing for git), and fnmatch reads
 * "[." and "[=" inside a bracket as collating elements where git sees a
 * literal '['.  The first is checked before fnmatch (closed_brackets): the
 * whole path is then not matched as a glob, as for git.  The second names
 * no real path of a project.
 *
 * One more rule of git's tree walk (tree-walk.c, tree_entry_interesting):
 * when the folder holding a file is, literally, the beginning of the spec,
 * the rest of the spec is matched as a glob against the file's name alone:
 * the specs "a[b]/" + "*" and "y[/" + "*" name "a[b]/z" and "y[/z" for git,
 * though the whole paths do not match them as globs.
 */
#include "pathspec.h"
#include "buf.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/*
 * Is every unescaped '[' of glob `p` closed, as git's wildmatch wants it?
 * After '[' (and a '!' or '^'), the first character is a member even when
 * it is ']'; a backslash escapes the next one, inside or outside.
 */
static bool closed_brackets(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return true;
			continue;
		}
		if (*p != '[')
			continue;
		p++;
		if (*p == '!' || *p == '^')
			p++;
		if (*p == '\\' && p[1])
			p++;
		if (!*p)
			return false;
		for (p++; *p != ']'; p++) {
			if (!*p)
				return false;
			if (*p == '\\' && !*++p)
				return false;
		}
	}
	return true;
}

void tm_pathspec_parse(tm_pathspec *s, const char *raw)
{
	tm_buf b = TM_BUF_INIT;
	const char *p = raw, *slash;
	size_t n;

	memset(s, 0, sizeof(*s));
	while (*p) {
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (b.size == 0) {
				s->never = true;
			} else {
				slash = memrchr(b.ptr, '/', b.size);
				tm_buf_truncate(&b,
						slash ? (size_t)(slash - b.ptr)
						      : 0);
			}
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (b.size)
				tm_buf_putc(&b, '/');
			tm_buf_put(&b, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	s->len = b.size;
	s->all = b.size == 0 && !s->never;
	s->dir_only = b.size > 0 && raw[0] && raw[strlen(raw) - 1] == '/';
	if (s->dir_only)
		tm_buf_putc(&b, '/');
	if (b.size) {
		s->pattern = tm_buf_detach(&b);
	} else {
		/* "a/.." leaves an empty buffer that still holds memory */
		tm_buf_release(&b);
		s->pattern = tm_xstrdup("");
	}
	s->plain = strcspn(s->pattern, "*?[\\");
	s->glob = s->pattern[s->plain] != '\0';
	s->unclosed = s->glob && !closed_brackets(s->pattern);
}

void tm_pathspec_free(tm_pathspec *s)
{
	if (!s)
		return;
	free(s->pattern);
	s->pattern = NULL;
}

bool tm_pathspec_matches(const tm_pathspec *s, const char *path, size_t len)
{
	const char *slash, *rest;
	size_t n;

	if (s->never)
		return false;
	if (s->all)
		return true;
	/* the path is the spec, or lies under it */
	if (len >= s->len && !memcmp(path, s->pattern, s->len) &&
	    (len == s->len ? !s->dir_only : path[s->len] == '/'))
		return true;
	if (!s->glob)
		return false;
	/* fnmatch matches the bytes before the first glob character as
	   they are: a path that does not start with them is no match */
	if (!s->unclosed && len >= s->plain &&
	    !memcmp(path, s->pattern, s->plain) &&
	    fnmatch(s->pattern, path, 0) == 0)
		return true;
	/* git's tree walk: the folder holding the file, when the spec starts
	 * with it literally, and the rest of the spec on the file's name */
	slash = memrchr(path, '/', len);
	if (!slash)
		return false;
	n = (size_t)(slash - path) + 1;
	rest = s->pattern + n;
	return n <= s->len && !memcmp(path, s->pattern, n) &&
	       closed_brackets(rest) && fnmatch(rest, slash + 1, 0) == 0;
}

bool tm_pathspec_may_match_under(const tm_pathspec *s, const char *dir,
				 size_t len)
{
	size_t head, n;

	if (s->never)
		return false;
	if (s->all || !len)
		return true;
	/* a glob's paths all start with its literal beginning */
	head = s->glob ? s->plain : s->len;
	if (head > s->len)
		head = s->len;
	n = head < len ? head : len;
	if (memcmp(s->pattern, dir, n))
		return false;
	if (head > len && s->pattern[len] != '/')
		return false; /* "abc..." under "ab/": no */
	if (s->glob)
		return true;
	/* the spec is the folder, above it, or under it */
	return s->len >= len || dir[s->len] == '/';
}

bool tm_pathspec_match(const char *spec, const char *path)
{
	tm_pathspec s;
	bool r;

	if (!spec || !path)
		return false;
	tm_pathspec_parse(&s, spec);
	r = tm_pathspec_matches(&s, path, strlen(path));
	tm_pathspec_free(&s);
	return r;
}
