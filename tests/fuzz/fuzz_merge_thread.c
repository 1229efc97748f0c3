/*
 * libFuzzer harness of the thread merge (tm_merge_files on a thread path):
 * it must never crash, the result's frontmatter must parse without
 * markers, and swapping ours and theirs must give the same fields.
 * Build: see docs/merge.md ("Fuzzing").
 */
#include "threadmind/frontmatter.h"
#include "threadmind/merge.h"

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PATH ".threadmind/threads/p/t.md"

/*
 * Input: one byte of options (style, marker size), two 16-bit lengths,
 * then the ancestor, ours and theirs back to back (theirs takes the rest).
 */
static int split(const uint8_t *d, size_t n, tm_merge_options *opts,
		 const char *s[3], size_t len[3])
{
	size_t lo, la;

	if (n < 5)
		return -1;
	opts->style = (tm_conflict_style)(d[0] % 3);
	opts->marker_size = 1 + (d[0] >> 2) % 12;
	lo = ((size_t)d[1] << 8 | d[2]) % (n - 4);
	la = ((size_t)d[3] << 8 | d[4]) % (n - 4 - lo);
	s[0] = (const char *)d + 5;
	len[0] = lo;
	s[1] = s[0] + lo;
	len[1] = la;
	s[2] = s[1] + la;
	len[2] = n - 5 - lo - la;
	return 0;
}

/* A conflict marker line: 7 or more '<' or '>', then a blank or its end. */
static bool is_marker(const char *p, const char *end)
{
	const char *q = p;

	if (p == end || (*p != '<' && *p != '>'))
		return false;
	while (q < end && *q == *p)
		q++;
	return q - p >= 7 &&
	       (q == end || *q == ' ' || *q == '\r' || *q == '\n');
}

/* Abort when a line of the frontmatter block opens or closes a conflict. */
static void check_header(const char *p, size_t len)
{
	const char *end = p + len, *nl;
	int fences = 0;

	while (p < end && fences < 2) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (is_marker(p, end))
			abort();
		if (end - p >= 3 && !memcmp(p, "---", 3) &&
		    (p + 3 == nl || (p + 4 == nl && p[3] == '\r')))
			fences++;
		p = nl ? nl + 1 : end;
	}
	if (fences < 2)
		abort();
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An unknown field merged as a list (written as `paths` is: JSON strings
 * in brackets) with its items sorted; any other value as it is. */
static void sort_list_field(tm_extra_field *f)
{
	cJSON *a = cJSON_Parse(f->raw), *it;
	tm_strv v = TM_STRV_INIT;
	tm_buf b = TM_BUF_INIT;
	size_t i;

	if (!cJSON_IsArray(a)) {
		cJSON_Delete(a);
		return;
	}
	cJSON_ArrayForEach(it, a)
	{
		if (!cJSON_IsString(it)) {
			tm_strv_clear(&v);
			cJSON_Delete(a);
			return;
		}
		tm_strv_push(&v, it->valuestring);
	}
	qsort(v.items, v.n, sizeof(*v.items), str_cmp);
	tm_buf_puts(&b, " [");
	for (i = 0; i < v.n; i++)
		tm_buf_printf(&b, "%s\"%s\"", i ? "," : "", v.items[i]);
	tm_buf_puts(&b, "]\n");
	free(f->raw);
	f->raw = tm_buf_detach(&b);
	tm_strv_clear(&v);
	cJSON_Delete(a);
}

/*
 * The merged fields, written back with `paths` and the unknown lists
 * sorted: ours' order first is the one rule that depends on the side.
 */
static char *fields_of(const tm_merge_result *r)
{
	tm_thread *t = NULL;
	tm_buf b = TM_BUF_INIT;
	size_t i;

	check_header(r->data, r->len);
	if (tm_frontmatter_parse(&t, r->data, r->len, "t", PATH) < 0)
		abort();
	tm_strv_sort(&t->paths);
	for (i = 0; i < t->nextra; i++)
		if (t->extra[i].key)
			sort_list_field(&t->extra[i]);
	tm_frontmatter_write_header(&b, t);
	tm_thread_free(t);
	return tm_buf_detach(&b);
}

static bool same(const char *x, size_t xl, const char *y, size_t yl)
{
	return xl == yl && (!xl || !memcmp(x, y, xl));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_merge_result r1, r2;
	const char *s[3];
	size_t len[3];
	char *f1, *f2;

	if (split(data, size, &opts, s, len) < 0)
		return 0;
	opts.path = PATH;
	if (tm_merge_files(&r1, s[0], len[0], s[1], len[1], s[2], len[2],
			   &opts) < 0)
		abort();
	if (tm_merge_files(&r2, s[0], len[0], s[2], len[2], s[1], len[1],
			   &opts) < 0)
		abort();
	if (r1.kind != r2.kind || r1.two_threads != r2.two_threads)
		abort();
	/* one side unchanged gives the other verbatim, whatever it holds;
	 * two threads born with one id keep ours verbatim */
	if (r1.kind == TM_MERGE_KIND_THREAD && !r1.two_threads &&
	    !same(s[0], len[0], s[1], len[1]) &&
	    !same(s[0], len[0], s[2], len[2]) &&
	    !same(s[1], len[1], s[2], len[2])) {
		f1 = fields_of(&r1);
		f2 = fields_of(&r2);
		if (strcmp(f1, f2))
			abort();
		free(f1);
		free(f2);
	}
	tm_merge_result_clear(&r1);
	tm_merge_result_clear(&r2);
	return 0;
}
