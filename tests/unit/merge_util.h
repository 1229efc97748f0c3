/* Helpers of the merge unit tests: sample thread files, edits, checks. */
#ifndef TM_MERGE_UTIL_H
#define TM_MERGE_UTIL_H

#include "threadmind/merge.h"
#include "threadmind/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The path of thread "t" of project "p", as git gives it in %P. */
#define MT_PATH    ".threadmind/threads/p/t.md"
#define MT_PROJECT ".threadmind/projects/p.json"

/* The body of mt_base: a blank line, then two sections. */
#define MT_BASE_BODY                    \
	"\n"                            \
	"## Decisions\n"                \
	"- d1\n"                        \
	"- d2\n"                        \
	"\n"                            \
	"## State\n"                    \
	"Some prose about the state.\n" \
	"- s1\n"

/* A sample thread file (static): full frontmatter, MT_BASE_BODY. */
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
/* A copy of s[0, len) without the CR of each CRLF (malloc'd). */
char *mt_lf(const char *s, size_t len);

/*
 * The seeded case generators of the property tests (check_merge_prop.c,
 * check_merge_sections.c): a small deterministic generator, a serial for
 * unique texts, and thread bodies as sections of lines.
 */

/* Start a case: the generator (xorshift64*) at `state`, the serial at 0. */
void mt_rng_seed(uint64_t state);
/* A number in [0, n) (n > 0). */
unsigned mt_rnd(unsigned n);
/* The next number of the case's serial (0, 1, ...): texts made unique. */
unsigned mt_serial(void);
/* printf into a malloc'd string. */
char *mt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Insert `s` (owned by v then) at index k; remove (and free) item k. */
void mt_strv_insert(tm_strv *v, size_t k, char *s);
void mt_strv_remove(tm_strv *v, size_t k);

/* mt_set on `*f` in place; `value` (may be NULL) is consumed. */
void mt_set_owned(char **f, const char *key, char *value);

#define MT_MAX_SECS 24

/* A section of a generated body: its heading and lines ("" a blank line,
 * never first or last). */
struct mt_sec {
	char *heading;
	tm_strv lines;
};

/* A generated body: a preamble, then sections. */
struct mt_doc {
	tm_strv pre; /* the preamble's lines */
	struct mt_sec s[MT_MAX_SECS];
	size_t n;
	bool two_blank; /* two blank lines between sections */
	bool tail;      /* a blank line at the end */
};

void mt_doc_copy(struct mt_doc *dst, const struct mt_doc *src);
void mt_doc_clear(struct mt_doc *d);
/* The body as a thread file holds it: a blank line, the preamble, the
 * sections one blank line apart (two with two_blank), a blank line at the
 * end with tail (malloc'd). */
char *mt_doc_text(const struct mt_doc *d);
/* Whether the preamble, a heading or a line of a section is `line`. */
bool mt_doc_has(const struct mt_doc *d, const char *line);

/* A three-way case: base, ours, theirs as files and as bodies. */
struct mt_case {
	char *f[3];
	struct mt_doc d[3];
};

void mt_case_free(struct mt_case *c);

/*
 * Assert that the frontmatter does not depend on which side is ours: r1
 * merged c's files as O A B, r2 as O B A.  The blocks (line ends aside)
 * are equal, but when the three `paths` all differ: ours' order comes
 * first (DESIGN.md), so then only the set of paths is.  Returns whether
 * that was the case.
 */
bool mt_check_symmetric(const struct mt_case *c, const tm_merge_result *r1,
			const tm_merge_result *r2, unsigned seed);

/*
 * Assert that a merged file does not depend on which side is ours: r1
 * merged f[0] (the ancestor) with ours f[1] and theirs f[2], r2 with them
 * swapped.  Both are conflicted or neither, and their texts are the same
 * up to what DESIGN.md section 6 lets depend on it: the order of what
 * both sides added at one place (and the blank lines between), the order
 * of list values both changed, the order of a conflict's two sides and
 * its labels.  What one side added comes in the same order both ways.
 */
void mt_check_symmetric_text(char *const f[3], const tm_merge_result *r1,
			     const tm_merge_result *r2, unsigned seed);

/* Write case `seed` to folder `dir` as <seed>.O, .A, .B (the
 * TM_MERGE_CORPUS of the property tests, for tests/merge-clean-share.sh). */
void mt_dump_case(const char *dir, unsigned seed, const struct mt_case *g);

#endif
