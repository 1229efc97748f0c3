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
 * lib/stale.c had before (3 million random patterns and paths over the
 * characters * ? [ ] ! ^ - \ : / . a b c), glibc's fnmatch gave the same
 * answers except in two corners: a '[' that is never closed is a literal
 * '[' for fnmatch while git's wildmatch then matches nothing (`x[ab*`
 * names "x[abc" for us, nothing for git), and fnmatch reads "[." and "[="
 * inside a bracket as collating elements where git sees a literal '['.
 * Specs like those name no real path of a project.
 */
#include "pathspec.h"
#include "buf.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

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
	s->glob = strpbrk(s->pattern, "*?[\\") != NULL;
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
	if (s->never)
		return false;
	if (s->all)
		return true;
	/* the path is the spec, or lies under it */
	if (len >= s->len && !memcmp(path, s->pattern, s->len) &&
	    (len == s->len ? !s->dir_only : path[s->len] == '/'))
		return true;
	return s->glob && fnmatch(s->pattern, path, 0) == 0;
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
