/* Helpers of the merge unit tests (see merge_util.h). */
#include "merge_util.h"
#include "threadmind/buf.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
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

/* ---- symmetry of whole results ---- */

/* Split a copy of `text` into lines (NUL-terminated, LF dropped); free
 * (*lines)[0] and *lines. */
static size_t split_lines(const char *text, char ***lines)
{
	char *copy = tm_xstrdup(text), *p = copy, *nl;
	size_t n = 0, alloc = 0;

	*lines = NULL;
	tm_xgrow((void **)lines, &alloc, 1, sizeof(char *));
	(*lines)[0] = copy;
	while (*p) {
		tm_xgrow((void **)lines, &alloc, n + 2, sizeof(char *));
		(*lines)[n++] = p;
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = '\0';
		p = nl + 1;
	}
	if (!n)
		(*lines)[0] = copy;
	return n;
}

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Whether the sorted `v` holds `s`. */
static bool in_sorted(const tm_strv *v, const char *s)
{
	return v->n && bsearch(&s, v->items, v->n, sizeof(char *), str_cmp);
}

/* A flow list line `key: [a, b]` with its items sorted; else a copy. */
static char *sorted_list_line(const char *line)
{
	const char *open = strstr(line, ": ["), *p;
	tm_strv items = TM_STRV_INIT;
	tm_buf item = TM_BUF_INIT, out = TM_BUF_INIT;
	bool quoted = false;
	size_t i, len = strlen(line);

	if (!open || line[len - 1] != ']')
		return tm_xstrdup(line);
	for (p = open + 3; p < line + len - 1; p++) {
		if (*p == '\\' && quoted && p[1]) {
			tm_buf_put(&item, p, 2);
			p++;
		} else if (*p == '"') {
			quoted = !quoted;
			tm_buf_putc(&item, *p);
		} else if (*p == ',' && !quoted) {
			tm_strv_push_owned(&items, tm_buf_detach(&item));
		} else if (!(*p == ' ' && !quoted && !item.size)) {
			tm_buf_putc(&item, *p);
		}
	}
	if (item.size)
		tm_strv_push_owned(&items, tm_buf_detach(&item));
	tm_buf_release(&item);
	tm_strv_sort(&items);
	tm_buf_put(&out, line, (size_t)(open - line) + 3);
	for (i = 0; i < items.n; i++)
		tm_buf_printf(&out, "%s%s", i ? "," : "", items.items[i]);
	tm_buf_putc(&out, ']');
	tm_strv_clear(&items);
	return tm_buf_detach(&out);
}

/* The marker character a line opens with (7 or more of it), or 0. */
static char marker_of(const char *l)
{
	char c = l[0];
	int n = 0;

	if (c != '<' && c != '>' && c != '=' && c != '|')
		return 0;
	while (l[n] == c)
		n++;
	return n >= 7 && (!l[n] || l[n] == ' ') ? c : 0;
}

/* A line with an ordered-list number made `#`. */
static char *unnumbered(const char *l)
{
	const char *p = l, *d;
	tm_buf b = TM_BUF_INIT;

	while (*p == ' ' || *p == '\t')
		p++;
	for (d = p; *d >= '0' && *d <= '9'; d++)
		;
	if (d > p && (*d == '.' || *d == ')') && (d[1] == ' ' || !d[1])) {
		tm_buf_put(&b, l, (size_t)(p - l));
		tm_buf_putc(&b, '#');
		tm_buf_puts(&b, d);
		return tm_buf_detach(&b);
	}
	return tm_xstrdup(l);
}

/*
 * A merged file in a form that does not depend on which side was ours,
 * for the sides' symmetry (DESIGN.md section 6): in the frontmatter, list
 * values sorted; in the body, ordered-list numbers made `#`, each conflict
 * without labels and with its two sides in sorted order, and each run of
 * lines the ancestor does not have (blank lines among them) sorted
 * without its blank lines: what both sides added at one place may come in
 * either order.
 */
static char *symmetric_form(const char *data, size_t len, const char *base)
{
	char *lf = mt_lf(data, len), *blf = mt_lf(base, strlen(base));
	char **l, **bl, *t, *part[3];
	size_t n, nb, i, k, fences = 0, run_from;
	tm_strv have = TM_STRV_INIT, run = TM_STRV_INIT;
	tm_buf out = TM_BUF_INIT,
	       sec[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	int at;
	bool blanks_only;

	nb = split_lines(blf, &bl);
	for (i = 0; i < nb; i++)
		if (*bl[i])
			tm_strv_push_owned(&have, unnumbered(bl[i]));
	tm_strv_sort(&have);
	n = split_lines(lf, &l);
	for (i = 0; i < n && fences < 2; i++) {
		fences += !strcmp(l[i], "---");
		t = sorted_list_line(l[i]);
		tm_buf_printf(&out, "%s\n", t);
		free(t);
	}
	while (i < n) {
		if (marker_of(l[i]) == '<') {
			at = 0;
			for (k = 0; k < 3; k++)
				tm_buf_clear(&sec[k]);
			for (i++; i < n && marker_of(l[i]) != '>'; i++) {
				if (marker_of(l[i]) == '|')
					at = 1;
				else if (marker_of(l[i]) == '=')
					at = 2;
				else
					tm_buf_printf(&sec[at], "%s\n", l[i]);
			}
			i++;
			for (k = 0; k < 3; k++)
				part[k] = (char *)tm_buf_cstr(&sec[k]);
			if (strcmp(part[0], part[2]) > 0) {
				t = part[0];
				part[0] = part[2];
				part[2] = t;
			}
			tm_buf_printf(&out, "<<<\n%s|||\n%s===\n%s>>>\n",
				      part[0], part[1], part[2]);
			continue;
		}
		t = unnumbered(l[i]);
		if (*t && in_sorted(&have, t)) {
			tm_buf_printf(&out, "%s\n", t);
			free(t);
			i++;
			continue;
		}
		free(t);
		/* a run of lines the ancestor lacks */
		blanks_only = true;
		for (run_from = i; i < n && !marker_of(l[i]); i++) {
			t = unnumbered(l[i]);
			if (*t && in_sorted(&have, t)) {
				free(t);
				break;
			}
			if (*t) {
				blanks_only = false;
				tm_strv_push_owned(&run, t);
			} else {
				free(t);
			}
		}
		if (blanks_only) {
			tm_buf_printf(&out, "(%zu blank)\n", i - run_from);
		} else {
			qsort(run.items, run.n, sizeof(char *), str_cmp);
			tm_buf_puts(&out, "[\n");
			for (k = 0; k < run.n; k++)
				tm_buf_printf(&out, "%s\n", run.items[k]);
			tm_buf_puts(&out, "]\n");
		}
		tm_strv_clear(&run);
	}
	for (k = 0; k < 3; k++)
		tm_buf_release(&sec[k]);
	tm_strv_clear(&have);
	free(l[0]);
	free(l);
	free(bl[0]);
	free(bl);
	free(lf);
	free(blf);
	return tm_buf_detach(&out);
}

/* Append to `out` the body lines (numbers aside; blank lines and the
 * lines `have` holds, sorted, skipped) of side file `side`; sort it. */
static void added_lines(tm_strv *out, const char *side, const tm_strv *have)
{
	char *lf = mt_lf(side, strlen(side)), **l, *t;
	size_t n = split_lines(lf, &l), i, fences = 0;
	tm_strv got = TM_STRV_INIT;

	for (i = 0; i < n && fences < 2; i++)
		fences += !strcmp(l[i], "---");
	for (; i < n; i++) {
		t = unnumbered(l[i]);
		if (*t && !in_sorted(have, t))
			tm_strv_push_owned(&got, t);
		else
			free(t);
	}
	for (i = 0; i < got.n; i++)
		tm_strv_push(out, got.items[i]);
	tm_strv_clear(&got);
	tm_strv_sort(out);
	free(l[0]);
	free(l);
	free(lf);
}

/* The lines of a merged file's body that `added` holds, in their order,
 * outside conflicts (whose sides swap with the sides), one a line. */
static char *projection(const tm_merge_result *r, const tm_strv *added)
{
	char *lf = mt_lf(r->data, r->len), **l, *t;
	size_t n = split_lines(lf, &l), i, fences = 0;
	tm_buf out = TM_BUF_INIT;
	bool in_conflict = false;

	for (i = 0; i < n && fences < 2; i++)
		fences += !strcmp(l[i], "---");
	for (; i < n; i++) {
		if (marker_of(l[i]) == '<' || marker_of(l[i]) == '>') {
			in_conflict = marker_of(l[i]) == '<';
			continue;
		}
		t = unnumbered(l[i]);
		if (!in_conflict && *t && in_sorted(added, t))
			tm_buf_printf(&out, "%s\n", t);
		free(t);
	}
	free(l[0]);
	free(l);
	free(lf);
	return tm_buf_detach(&out);
}

void mt_check_symmetric_text(char *const f[3], const tm_merge_result *r1,
			     const tm_merge_result *r2, unsigned seed)
{
	char *s1 = symmetric_form(r1->data, r1->len, f[0]);
	char *s2 = symmetric_form(r2->data, r2->len, f[0]);
	char *blf = mt_lf(f[0], strlen(f[0])), **bl, *p1, *p2;
	tm_strv have = TM_STRV_INIT, added = TM_STRV_INIT;
	size_t nb = split_lines(blf, &bl), i;
	int x;

	ck_assert_msg(r1->conflicted == r2->conflicted,
		      "seed %u: conflicted %d one way, %d the other:\n%s\n"
		      "----\n%s",
		      seed, r1->conflicted, r2->conflicted, r1->data, r2->data);
	ck_assert_msg(!strcmp(s1, s2),
		      "seed %u: the result depends on which side is ours:\n%s\n"
		      "----\n%s",
		      seed, r1->data, r2->data);
	/* what one side alone added keeps one order whichever side is ours:
	 * only the interleaving of the two sides' additions may change */
	for (x = 1; x <= 2; x++) {
		tm_strv_clear(&have);
		for (i = 0; i < nb; i++)
			if (*bl[i])
				tm_strv_push_owned(&have, unnumbered(bl[i]));
		/* the ancestor's lines and those the other side added */
		added_lines(&have, f[3 - x], &have);
		added_lines(&added, f[x], &have);
		p1 = projection(r1, &added);
		p2 = projection(r2, &added);
		ck_assert_msg(!strcmp(p1, p2),
			      "seed %u: the order of %s' additions depends on "
			      "which side is ours:\n%s\n----\n%s",
			      seed, x == 1 ? "ours" : "theirs", r1->data,
			      r2->data);
		free(p1);
		free(p2);
		tm_strv_clear(&added);
	}
	tm_strv_clear(&have);
	free(bl[0]);
	free(bl);
	free(blf);
	free(s1);
	free(s2);
}

void mt_dump_case(const char *dir, unsigned seed, const struct mt_case *g)
{
	static const char *const ext[3] = {"O", "A", "B"};
	char path[4096];
	FILE *f;
	int x;

	for (x = 0; x < 3; x++) {
		snprintf(path, sizeof(path), "%s/%05u.%s", dir, seed, ext[x]);
		f = fopen(path, "wb");
		ck_assert_msg(f != NULL, "cannot write %s", path);
		fputs(g->f[x], f);
		ck_assert_int_eq(fclose(f), 0);
	}
}
