/*
 * git's plain pathspecs (no `:(magic)`): which repository paths a spec such
 * as "src/auth", "docs/" or "*.c" names, as `git log -- <spec>` decides.
 */
#ifndef TM_PATHSPEC_H
#define TM_PATHSPEC_H

#include <stdbool.h>
#include <stddef.h>

/* A parsed pathspec (tm_pathspec_parse, then tm_pathspec_free). */
typedef struct {
	char *pattern; /* normalised; ends with '/' when dir_only */
	size_t len;    /* length of pattern without that '/' */
	bool dir_only; /* only what is under the folder */
	bool glob;     /* has * ? [ or \: also matched as a glob */
	size_t plain;  /* the bytes before its first * ? [ or \ */
	bool unclosed; /* a glob with a '[' never closed: as a whole it
			  matches nothing (git's wildmatch) */
	bool all;      /* matches everything */
	bool never;    /* climbs above the root: matches nothing */
} tm_pathspec;

/*
 * Parse and normalise `raw` into *out: empty and "." components are
 * dropped, ".." removes the previous one (a spec climbing above the root
 * matches nothing), leading "/" are ignored; "." or "" match everything.
 * *out owns its pattern: free it with tm_pathspec_free.
 */
void tm_pathspec_parse(tm_pathspec *out, const char *raw);

/* Free what *s holds (NULL allowed). */
void tm_pathspec_free(tm_pathspec *s);

/*
 * Does `s` name repository path `path` ("src/auth/login.c", a C string of
 * `len` bytes)?
 * "src/auth" matches "src/auth" and everything under "src/auth/"; a
 * trailing "/" restricts the match to what is under that folder; a spec
 * with glob characters (* ? [ and \ escapes) also matches a path that the
 * glob matches as a whole, where * and ? also cross "/" (git's default
 * pathspec globbing; only `:(glob)` magic, not supported here, stops them
 * at "/").  A glob whose '[' is never closed matches nothing as a whole,
 * as for git; and, as git's tree walk does, when the folder of the path is
 * literally the beginning of the spec, the rest of the spec is matched as a
 * glob against the path's last component ("a[b]/z" for "a[b]/" + "*").
 */
bool tm_pathspec_matches(const tm_pathspec *s, const char *path, size_t len);

/*
 * Could `s` name some path under folder `dir` (`len` bytes, without a
 * trailing '/'; 0: the root)?  Exact for specs without glob characters
 * (the spec is the folder, above it, or under it); for a glob, true unless
 * its literal beginning (up to its first glob character) rules out every
 * path under the folder: an answer that may say yes for nothing, never no
 * for something.  For the prefixes of a bounded tree diff (treediff.h).
 */
bool tm_pathspec_may_match_under(const tm_pathspec *s, const char *dir,
				 size_t len);

/* tm_pathspec_matches for a spec given as text.  NULLs match nothing. */
bool tm_pathspec_match(const char *spec, const char *path);

#endif
