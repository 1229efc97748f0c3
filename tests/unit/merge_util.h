/* Helpers of the merge unit tests: sample thread files, edits, checks. */
#ifndef TM_MERGE_UTIL_H
#define TM_MERGE_UTIL_H

#include "lib/merge.h"
#include "lib/model.h"

#include <stdbool.h>
#include <stddef.h>

/* The path of thread "t" of project "p", as git gives it in %P. */
#define MT_PATH    ".threadmind/threads/p/t.md"
#define MT_PROJECT ".threadmind/projects/p.json"

/* A sample thread file (static): full frontmatter, two sections. */
extern const char mt_base[];

/*
 * Merge NUL-terminated files at MT_PATH (or `opts->path` when opts is
 * given and its path set); asserts that the call succeeds.
 */
tm_merge_result mt_merge(const char *o, const char *a, const char *b,
			 const tm_merge_options *opts);

/*
 * A copy of thread file `f` with frontmatter line `key: value` replaced,
 * appended before the closing `---` when missing, removed when value is
 * NULL.  `value` is written as is (quote it yourself).  Returns a malloc'd
 * string.
 */
char *mt_set(const char *f, const char *key, const char *value);

/* A copy of thread file `f` with its body replaced by `body`. */
char *mt_body(const char *f, const char *body);

/* Parse a merged thread file (asserts success); free with tm_thread_free. */
tm_thread *mt_parse(const char *data, size_t len);

/* The body of a merged thread file (malloc'd). */
char *mt_body_of(const char *data, size_t len);

/* Number of non-overlapping occurrences of `needle` in `hay`. */
size_t mt_count(const char *hay, const char *needle);

/* Whether a line of the frontmatter block (up to the second `---`) is a
 * conflict marker. */
bool mt_header_has_markers(const char *data, size_t len);

/* Whether `data` holds `line` as a whole line. */
bool mt_has_line(const char *data, const char *line);

/* Replace every LF with CRLF (malloc'd). */
char *mt_crlf(const char *s);

#endif
