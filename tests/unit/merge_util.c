/* Helpers of the merge unit tests (see merge_util.h). */
#include "merge_util.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/frontmatter.h"

#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char mt_base[] = "---\n"
		       "id: t\n"
		       "title: Thread\n"
		       "parentId: main\n"
		       "author: au-1a2b\n"
		       "createdAt: 2026-04-15T10:00:00.000Z\n"
		       "updatedAt: 2026-04-15T12:00:00.000Z\n"
		       "branch: main\n"
		       "commit: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
		       "paths: [\"src/a\",\"src/b\"]\n"
		       "---\n" MT_BASE_BODY;

tm_merge_result mt_merge(const char *o, const char *a, const char *b,
			 const tm_merge_options *opts)
{
	tm_merge_options def = TM_MERGE_OPTIONS_INIT;
	tm_merge_result r;
	int error;

	if (opts)
		def = *opts;
	if (!def.path)
		def.path = MT_PATH;
	error = tm_merge_files(&r, o, strlen(o), a, strlen(a), b, strlen(b),
			       &def);
	ck_assert_msg(error == 0, "merge failed: %s", tm_error_last());
	ck_assert_ptr_nonnull(r.data);
	ck_assert_uint_eq(strlen(r.data), r.len);
	return r;
}

/* Offset of the closing `---` line of the frontmatter. */
static size_t header_end(const char *f)
{
	const char *p = strstr(f + 3, "\n---\n");

	ck_assert_ptr_nonnull(p);
	return (size_t)(p - f) + 1;
}

char *mt_set(const char *f, const char *key, const char *value)
{
	tm_buf b = TM_BUF_INIT;
	size_t end = header_end(f), klen = strlen(key);
	const char *p = f, *nl;
	bool done = false;

	while (p < f + end) {
		nl = strchr(p, '\n');
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			if (value)
				tm_buf_printf(&b, "%s: %s\n", key, value);
			done = true;
		} else {
			tm_buf_put(&b, p, (size_t)(nl - p) + 1);
		}
		p = nl + 1;
	}
	if (!done && value)
		tm_buf_printf(&b, "%s: %s\n", key, value);
	tm_buf_puts(&b, f + end);
	return tm_buf_detach(&b);
}

char *mt_body(const char *f, const char *body)
{
	tm_buf b = TM_BUF_INIT;
	size_t end = header_end(f);

	tm_buf_put(&b, f, end + 4);
	tm_buf_puts(&b, body);
	return tm_buf_detach(&b);
}

tm_thread *mt_parse(const char *data, size_t len)
{
	tm_thread *t = NULL;

	ck_assert_msg(tm_frontmatter_parse(&t, data, len, "t", "merged") == 0,
		      "result does not parse: %s\n%s", tm_error_last(), data);
	return t;
}

char *mt_body_of(const char *data, size_t len)
{
	tm_thread *t = mt_parse(data, len);
	char *body = tm_xstrndup(t->body ? t->body : "", t->body_len);

	tm_thread_free(t);
	return body;
}

size_t mt_count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += len;
	}
	return n;
}

static bool is_marker(const char *p)
{
	return !strncmp(p, "<<<<<<<", 7) || !strncmp(p, ">>>>>>>", 7) ||
	       !strncmp(p, "=======", 7) || !strncmp(p, "|||||||", 7);
}

bool mt_header_has_markers(const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;
	int fences = 0;

	while (p < end && fences < 2) {
		if (is_marker(p))
			return true;
		nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)((nl ? nl : end) - p) >= 3 &&
		    !strncmp(p, "---", 3) &&
		    (nl == p + 3 || (nl == p + 4 && p[3] == '\r')))
			fences++;
		p = nl ? nl + 1 : end;
	}
	return false;
}

bool mt_has_line(const char *data, const char *line)
{
	size_t len = strlen(line);
	const char *p = data;

	while ((p = strstr(p, line))) {
		if ((p == data || p[-1] == '\n') &&
		    (p[len] == '\n' || p[len] == '\0' || p[len] == '\r'))
			return true;
		p++;
	}
	return false;
}

char *mt_crlf(const char *s)
{
	tm_buf b = TM_BUF_INIT;

	for (; *s; s++) {
		if (*s == '\n')
			tm_buf_putc(&b, '\r');
		tm_buf_putc(&b, *s);
	}
	return tm_buf_detach(&b);
}

static uint64_t rng;
static unsigned serial;

void mt_rng_seed(uint64_t state)
{
	rng = state;
	serial = 0;
}

unsigned mt_rnd(unsigned n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (unsigned)((rng * 2685821657736338717ull) >> 33) % n;
}

unsigned mt_serial(void)
{
	return serial++;
}

char *mt_printf(const char *fmt, ...)
{
	tm_buf b = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return tm_buf_detach(&b);
}

void mt_strv_insert(tm_strv *v, size_t k, char *s)
{
	tm_strv_push_owned(v, s);
	memmove(&v->items[k + 1], &v->items[k],
		(v->n - 1 - k) * sizeof(char *));
	v->items[k] = s;
}

void mt_strv_remove(tm_strv *v, size_t k)
{
	free(v->items[k]);
	memmove(&v->items[k], &v->items[k + 1],
		(v->n - k - 1) * sizeof(char *));
	v->n--;
}

char *mt_lf(const char *s, size_t len)
{
	tm_buf b = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < len; i++)
		if (!(s[i] == '\r' && i + 1 < len && s[i + 1] == '\n'))
			tm_buf_putc(&b, s[i]);
	return tm_buf_detach(&b);
}

void mt_set_owned(char **f, const char *key, char *value)
{
	char *n = mt_set(*f, key, value);

	free(*f);
	free(value);
	*f = n;
}

void mt_doc_copy(struct mt_doc *dst, const struct mt_doc *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	tm_strv_copy(&dst->pre, &src->pre);
	for (i = 0; i < src->n; i++) {
		dst->s[i].heading = tm_xstrdup(src->s[i].heading);
		tm_strv_copy(&dst->s[i].lines, &src->s[i].lines);
	}
	dst->n = src->n;
}

void mt_doc_clear(struct mt_doc *d)
{
	size_t i;

	tm_strv_clear(&d->pre);
	for (i = 0; i < d->n; i++) {
		free(d->s[i].heading);
		tm_strv_clear(&d->s[i].lines);
	}
	d->n = 0;
}

char *mt_doc_text(const struct mt_doc *d)
{
	tm_buf b = TM_BUF_INIT;
	size_t i, k;
	bool any;

	tm_buf_putc(&b, '\n');
	for (k = 0; k < d->pre.n; k++)
		tm_buf_printf(&b, "%s\n", d->pre.items[k]);
	any = d->pre.n > 0;
	for (i = 0; i < d->n; i++) {
		if (any)
			tm_buf_puts(&b, d->two_blank ? "\n\n" : "\n");
		tm_buf_printf(&b, "%s\n", d->s[i].heading);
		for (k = 0; k < d->s[i].lines.n; k++)
			tm_buf_printf(&b, "%s\n", d->s[i].lines.items[k]);
		any = true;
	}
	if (d->tail)
		tm_buf_putc(&b, '\n');
	return tm_buf_detach(&b);
}

bool mt_doc_has(const struct mt_doc *d, const char *line)
{
	size_t i;

	if (tm_strv_contains(&d->pre, line))
		return true;
	for (i = 0; i < d->n; i++)
		if (!strcmp(d->s[i].heading, line) ||
		    tm_strv_contains(&d->s[i].lines, line))
			return true;
	return false;
}

void mt_case_free(struct mt_case *c)
{
	int x;

	for (x = 0; x < 3; x++) {
		free(c->f[x]);
		mt_doc_clear(&c->d[x]);
	}
}

/* The frontmatter block of a merged file, LF (malloc'd). */
static char *header_of(const tm_merge_result *r)
{
	char *lf = mt_lf(r->data, r->len), *end = strstr(lf + 3, "\n---\n");

	ck_assert_ptr_nonnull(end);
	end[5] = '\0';
	return lf;
}

/* The header without its paths line; the paths sorted in *paths. */
static char *without_paths(const char *header, tm_strv *paths,
			   const tm_merge_result *r)
{
	tm_thread *t = mt_parse(r->data, r->len);

	tm_strv_copy(paths, &t->paths);
	tm_strv_sort(paths);
	tm_thread_free(t);
	return mt_set(header, "paths", NULL);
}

static bool paths_changed_on_both_sides(const struct mt_case *c)
{
	tm_thread *t[3];
	bool both;
	int x;

	for (x = 0; x < 3; x++)
		t[x] = mt_parse(c->f[x], strlen(c->f[x]));
	both = !tm_strv_equal(&t[0]->paths, &t[1]->paths) &&
	       !tm_strv_equal(&t[0]->paths, &t[2]->paths) &&
	       !tm_strv_equal(&t[1]->paths, &t[2]->paths);
	for (x = 0; x < 3; x++)
		tm_thread_free(t[x]);
	return both;
}

bool mt_check_symmetric(const struct mt_case *c, const tm_merge_result *r1,
			const tm_merge_result *r2, unsigned seed)
{
	char *h1 = header_of(r1), *h2 = header_of(r2), *p1, *p2;
	tm_strv s1 = TM_STRV_INIT, s2 = TM_STRV_INIT;
	bool both = paths_changed_on_both_sides(c);

	if (both) {
		p1 = without_paths(h1, &s1, r1);
		p2 = without_paths(h2, &s2, r2);
		ck_assert_msg(!strcmp(p1, p2), "seed %u:\n%s\n%s", seed, p1,
			      p2);
		ck_assert_msg(tm_strv_equal(&s1, &s2), "seed %u", seed);
		free(p1);
		free(p2);
		tm_strv_clear(&s1);
		tm_strv_clear(&s2);
	} else {
		ck_assert_msg(!strcmp(h1, h2), "seed %u:\n%s\n%s", seed, h1,
			      h2);
	}
	free(h1);
	free(h2);
	return both;
}
