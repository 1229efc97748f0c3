/*
 * Property test of the thread merge over seeded three-way cases of
 * realistic thread files (issue 10, "Measure it"): a preamble, `## `
 * sections holding prose and lists, CRLF now and then; each side adds,
 * deletes and rewords items and prose, adds, deletes and moves sections,
 * adds what the other side adds too, and changes fields.  Checked on
 * every case: the frontmatter parses and holds no markers; no line a side
 * added is lost; a section deleted on one side and unchanged on the other
 * is gone; a clean result holds no item twice that no side holds twice,
 * and no blank line inside a list; the frontmatter does not depend on
 * which side is ours; the conflict flag matches the presence of markers.
 *
 * With TM_MERGE_CORPUS=<folder> in the environment the cases are also
 * written there (<n>.O, <n>.A, <n>.B) for tests/merge-clean-share.sh,
 * which compares the share of clean results with `git merge-file`'s.
 */
#include "threadmind/buf.h"
#include "threadmind/merge.h"
#include "merge_util.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CASES 2400

static const char *const names[] = {
	"Decisions", "State",          "Next steps",  "Risks", "Notes",
	"Context",   "Open questions", "Constraints", "Done",  "Links",
};

static char *item(const char *tag)
{
	return mt_printf("- %s item %u", tag, mt_serial());
}

static char *prose(const char *tag)
{
	return mt_printf("Some prose by %s, number %u.", tag, mt_serial());
}

static bool is_item(const char *l)
{
	return l[0] == '-' && l[1] == ' ';
}

static void sec_fill(struct mt_sec *s, const char *tag)
{
	size_t k, n = 1 + mt_rnd(5);

	if (mt_rnd(3) == 0) {
		tm_strv_push_owned(&s->lines, prose(tag));
		if (mt_rnd(2))
			tm_strv_push_owned(&s->lines, prose(tag));
		tm_strv_push(&s->lines, "");
	}
	for (k = 0; k < n; k++)
		tm_strv_push_owned(&s->lines, item(tag));
	if (mt_rnd(6) == 0) {
		tm_strv_push(&s->lines, "");
		tm_strv_push_owned(&s->lines, prose(tag));
	}
}

static void base_doc(struct mt_doc *d)
{
	unsigned used = 0, k;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (mt_rnd(4) == 0)
		tm_strv_push_owned(&d->pre, prose("base"));
	d->n = 1 + mt_rnd(5);
	for (i = 0; i < d->n; i++) {
		do
			k = mt_rnd(sizeof(names) / sizeof(*names));
		while (used & (1u << k));
		used |= 1u << k;
		d->s[i].heading = mt_printf("## %s", names[k]);
		sec_fill(&d->s[i], "base");
	}
}

/* The index range of a section's list (the run of items, maybe empty). */
static void list_range(const struct mt_sec *s, size_t *from, size_t *to)
{
	size_t k = 0;

	while (k < s->lines.n && !is_item(s->lines.items[k]))
		k++;
	if (k == s->lines.n) {
		*from = *to = s->lines.n;
		return;
	}
	*from = k;
	while (k < s->lines.n && is_item(s->lines.items[k]))
		k++;
	*to = k;
}

/* A random line of section s for which `want` holds, or -1. */
static long pick_line(const struct mt_sec *s, bool (*want)(const char *))
{
	size_t k, n = 0;
	unsigned c;

	for (k = 0; k < s->lines.n; k++)
		n += want(s->lines.items[k]);
	if (!n)
		return -1;
	c = mt_rnd((unsigned)n);
	for (k = 0; k < s->lines.n; k++)
		if (want(s->lines.items[k]) && !c--)
			return (long)k;
	return -1;
}

static bool is_prose(const char *l)
{
	return *l && !is_item(l);
}

static void add_item(struct mt_sec *s, char *text)
{
	size_t from, to;

	list_range(s, &from, &to);
	if (from == s->lines.n && s->lines.n) {
		/* a list after the prose */
		tm_strv_push(&s->lines, "");
		tm_strv_push_owned(&s->lines, text);
		return;
	}
	mt_strv_insert(&s->lines, from + mt_rnd((unsigned)(to - from + 1)),
		       text);
}

/* Remove line k, and a blank line it leaves first, last or doubled. */
static void remove_line(struct mt_sec *s, size_t k)
{
	tm_strv *l = &s->lines;

	mt_strv_remove(l, k);
	if (l->n && !*l->items[0])
		mt_strv_remove(l, 0);
	else if (l->n && !*l->items[l->n - 1])
		mt_strv_remove(l, l->n - 1);
	else if (k < l->n && k && !*l->items[k] && !*l->items[k - 1])
		mt_strv_remove(l, k);
}

/* A paragraph before the section's first line. */
static void add_prose(struct mt_sec *s, const char *tag)
{
	if (s->lines.n && is_item(s->lines.items[0]))
		mt_strv_insert(&s->lines, 0, tm_xstrdup(""));
	mt_strv_insert(&s->lines, 0, prose(tag));
}

static void edit_side(struct mt_doc *d, const char *tag)
{
	size_t ops = 1 + mt_rnd(4), op, i, j;
	struct mt_sec tmp;
	long k;
	char *t;

	for (op = 0; op < ops; op++) {
		i = d->n ? mt_rnd((unsigned)d->n) : 0;
		switch (d->n ? mt_rnd(11) : 5) {
		case 0:
		case 1:
			add_item(&d->s[i], item(tag));
			break;
		case 2:
			if ((k = pick_line(&d->s[i], is_item)) >= 0 &&
			    d->s[i].lines.n > 1)
				remove_line(&d->s[i], (size_t)k);
			break;
		case 3:
		case 4:
			if ((k = pick_line(&d->s[i], is_item)) >= 0) {
				t = mt_printf("%s (reworded %u)",
					      d->s[i].lines.items[k],
					      mt_serial());
				free(d->s[i].lines.items[k]);
				d->s[i].lines.items[k] = t;
			}
			break;
		case 5:
			if (d->n < MT_MAX_SECS) {
				j = mt_rnd((unsigned)d->n + 1);
				memmove(&d->s[j + 1], &d->s[j],
					(d->n - j) * sizeof(*d->s));
				memset(&d->s[j], 0, sizeof(*d->s));
				d->s[j].heading = mt_printf("## Topic of %s %u",
							    tag, mt_serial());
				sec_fill(&d->s[j], tag);
				d->n++;
			}
			break;
		case 6:
			free(d->s[i].heading);
			tm_strv_clear(&d->s[i].lines);
			memmove(&d->s[i], &d->s[i + 1],
				(d->n - i - 1) * sizeof(*d->s));
			d->n--;
			break;
		case 7:
			j = mt_rnd((unsigned)d->n);
			tmp = d->s[i];
			memmove(&d->s[i], &d->s[i + 1],
				(d->n - i - 1) * sizeof(*d->s));
			memmove(&d->s[j + 1], &d->s[j],
				(d->n - 1 - j) * sizeof(*d->s));
			d->s[j] = tmp;
			break;
		case 8:
			/* prose reworded, or a paragraph put first */
			if ((k = pick_line(&d->s[i], is_prose)) >= 0) {
				free(d->s[i].lines.items[k]);
				d->s[i].lines.items[k] = prose(tag);
			} else {
				add_prose(&d->s[i], tag);
			}
			break;
		case 9:
			tm_strv_push_owned(&d->pre, prose(tag));
			break;
		default:
			add_prose(&d->s[i], tag);
		}
	}
}

static const char *const pool[] = {"\"src\"", "\"lib\"", "\"doc\"", "\"test\""};

static void edit_fields(char **f)
{
	tm_buf b = TM_BUF_INIT;
	unsigned i, mask;

	if (mt_rnd(3) == 0)
		mt_set_owned(f, "title", mt_printf("Title %u", mt_rnd(3)));
	if (mt_rnd(4) != 0)
		mt_set_owned(
			f, "updatedAt",
			mt_printf("2026-04-1%uT12:00:00.000Z", 5 + mt_rnd(3)));
	if (mt_rnd(3) == 0)
		mt_set_owned(f, "branch", mt_printf("branch-%u", mt_rnd(3)));
	if (mt_rnd(3) == 0)
		mt_set_owned(f, "commit", mt_printf("c%039u", mt_rnd(3)));
	if (mt_rnd(6) == 0)
		mt_set_owned(f, "status",
			     mt_rnd(2) ? tm_xstrdup("done") : NULL);
	if (mt_rnd(8) == 0)
		mt_set_owned(f, "ticket", mt_printf("T-%u", mt_rnd(3)));
	if (mt_rnd(4) == 0) {
		mask = mt_rnd(16);
		tm_buf_putc(&b, '[');
		for (i = 0; i < 4; i++)
			if (mask & (1u << i))
				tm_buf_printf(&b, "%s%s", b.size > 1 ? "," : "",
					      pool[i]);
		tm_buf_putc(&b, ']');
		mt_set_owned(f, "paths", tm_buf_detach(&b));
	}
}

static void gen_case(struct mt_case *g, unsigned seed)
{
	char *body, *shared, *crlf;
	size_t target = 0;
	int x;
	unsigned mode, ends;

	mt_rng_seed(0xd1b54a32d192ed03ull ^
		    ((uint64_t)seed * 0x9e3779b97f4a7c15ull));
	mt_rnd(2);
	base_doc(&g->d[0]);
	body = mt_doc_text(&g->d[0]);
	g->f[0] = mt_body(mt_base, body);
	free(body);
	/* now and then both sides add the same item or section */
	mode = mt_rnd(6);
	shared = mt_printf("- %s item %u", "shared", mt_serial());
	target = mt_rnd((unsigned)g->d[0].n);
	for (x = 1; x < 3; x++) {
		struct mt_doc *d = &g->d[x];

		mt_doc_copy(d, &g->d[0]);
		if (mode == 0 && target < d->n) {
			add_item(&d->s[target], tm_xstrdup(shared));
		} else if (mode == 1 && d->n < MT_MAX_SECS) {
			d->s[d->n].heading =
				mt_printf("## %s %u", "Shared", 0u);
			tm_strv_push_owned(&d->s[d->n].lines,
					   item(x == 1 ? "ours" : "theirs"));
			tm_strv_push(&d->s[d->n].lines, shared);
			d->n++;
		}
		if (mt_rnd(5))
			edit_side(d, x == 1 ? "ours" : "theirs");
		d->two_blank = mt_rnd(10) == 0;
		d->tail = mt_rnd(10) == 0;
		body = mt_doc_text(d);
		g->f[x] = mt_body(g->f[0], body);
		free(body);
		edit_fields(&g->f[x]);
	}
	free(shared);
	ends = mt_rnd(12);
	for (x = 0; x < 3; x++)
		if (ends == 0 || (ends == 1 && x == 2)) {
			crlf = mt_crlf(g->f[x]);
			free(g->f[x]);
			g->f[x] = crlf;
		}
}

/* How many times a doc holds a line. */
static size_t doc_count(const struct mt_doc *d, const char *line)
{
	size_t i, k, n = 0;

	for (k = 0; k < d->pre.n; k++)
		n += !strcmp(d->pre.items[k], line);
	for (i = 0; i < d->n; i++)
		for (k = 0; k < d->s[i].lines.n; k++)
			n += !strcmp(d->s[i].lines.items[k], line);
	return n;
}

static const struct mt_sec *doc_find(const struct mt_doc *d,
				     const char *heading)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->s[i].heading, heading))
			return &d->s[i];
	return NULL;
}

static bool marker_line(const char *p)
{
	return !strncmp(p, "<<<<<<<", 7) || !strncmp(p, ">>>>>>>", 7);
}

/* The lines of a text, each NUL-terminated in a copy (free lines[0]). */
static char **lines_of(const char *text, size_t *n)
{
	char *copy = tm_xstrdup(text), *p = copy, *nl;
	char **l = NULL;
	size_t alloc = 0;

	*n = 0;
	while (*p) {
		tm_xgrow((void **)&l, &alloc, *n + 2, sizeof(*l));
		l[(*n)++] = p;
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = '\0';
		p = nl + 1;
	}
	if (!l) {
		l = tm_xcalloc(2, sizeof(*l));
		l[0] = copy;
	}
	return l;
}

struct stats {
	unsigned clean, deleted_checked, crlf;
};

static void check_case(const struct mt_case *g, const tm_merge_result *r,
		       unsigned seed, struct stats *st)
{
	char *lf = mt_lf(r->data, r->len), **l;
	size_t n, i, k, c;
	bool markers = false;
	const struct mt_sec *so, *sy;
	int x;
	tm_thread *t;

	ck_assert_int_eq(r->kind, TM_MERGE_KIND_THREAD);
	ck_assert_msg(!mt_header_has_markers(r->data, r->len),
		      "seed %u: markers in the frontmatter:\n%s", seed, lf);
	t = mt_parse(r->data, r->len);
	tm_thread_free(t);
	if (strstr(g->f[1], "\r\n")) {
		st->crlf++;
		ck_assert_msg(strstr(r->data, "---\r\n"), "seed %u: not CRLF",
			      seed);
	}
	l = lines_of(lf, &n);
	for (i = 0; i < n; i++)
		markers |= marker_line(l[i]);
	ck_assert_msg(markers == r->conflicted,
		      "seed %u: conflicted %d, markers %d:\n%s", seed,
		      r->conflicted, markers, lf);
	/* every line a side added is there */
	for (x = 1; x < 3; x++) {
		const struct mt_doc *d = &g->d[x];

		for (k = 0; k < d->pre.n; k++)
			ck_assert_msg(mt_doc_has(&g->d[0], d->pre.items[k]) ||
					      mt_has_line(lf, d->pre.items[k]),
				      "seed %u: '%s' lost:\n%s", seed,
				      d->pre.items[k], lf);
		for (i = 0; i < d->n; i++) {
			ck_assert_msg(mt_doc_has(&g->d[0], d->s[i].heading) ||
					      mt_has_line(lf, d->s[i].heading),
				      "seed %u: '%s' lost:\n%s", seed,
				      d->s[i].heading, lf);
			for (k = 0; k < d->s[i].lines.n; k++) {
				const char *line = d->s[i].lines.items[k];

				ck_assert_msg(
					!*line || mt_doc_has(&g->d[0], line) ||
						mt_has_line(lf, line),
					"seed %u: '%s' lost:\n%s", seed, line,
					lf);
			}
		}
	}
	/* deleted on one side, unchanged on the other: gone */
	for (i = 0; i < g->d[0].n; i++) {
		so = &g->d[0].s[i];
		for (x = 1; x < 3; x++) {
			sy = doc_find(&g->d[3 - x], so->heading);
			if (doc_find(&g->d[x], so->heading) ||
			    (sy && !tm_strv_equal(&sy->lines, &so->lines)))
				continue;
			st->deleted_checked++;
			ck_assert_msg(!mt_has_line(lf, so->heading),
				      "seed %u: '%s' deleted by side %d came "
				      "back:\n%s",
				      seed, so->heading, x, lf);
		}
	}
	if (!r->conflicted) {
		st->clean++;
		for (i = 0; i < n; i++) {
			if (!is_item(l[i]))
				continue;
			for (k = c = 0; k < n; k++)
				c += !strcmp(l[i], l[k]);
			ck_assert_msg(c < 2 || doc_count(&g->d[1], l[i]) > 1 ||
					      doc_count(&g->d[2], l[i]) > 1,
				      "seed %u: '%s' twice:\n%s", seed, l[i],
				      lf);
			/* no blank line inside a list */
			ck_assert_msg(
				!(i + 2 < n && !*l[i + 1] && is_item(l[i + 2])),
				"seed %u: a blank line in a list:\n%s", seed,
				lf);
		}
	}
	free(l[0]);
	free(l);
	free(lf);
}

START_TEST(test_merge_sections_property)
{
	const char *dir = getenv("TM_MERGE_CORPUS");
	struct stats st = {0, 0, 0};
	tm_merge_result r1, r2;
	struct mt_case g;
	unsigned seed;

	for (seed = 0; seed < CASES; seed++) {
		gen_case(&g, seed);
		if (dir && *dir)
			mt_dump_case(dir, seed, &g);
		r1 = mt_merge(g.f[0], g.f[1], g.f[2], NULL);
		r2 = mt_merge(g.f[0], g.f[2], g.f[1], NULL);
		check_case(&g, &r1, seed, &st);
		mt_check_symmetric(&g, &r1, &r2, seed);
		mt_check_symmetric_text(g.f, &r1, &r2, seed);
		tm_merge_result_clear(&r1);
		tm_merge_result_clear(&r2);
		mt_case_free(&g);
	}
	/* the generator reaches every check and both outcomes */
	ck_assert_uint_gt(st.clean, CASES / 2);
	ck_assert_uint_lt(st.clean, CASES);
	ck_assert_uint_gt(st.deleted_checked, CASES / 20);
	ck_assert_uint_gt(st.crlf, CASES / 20);
}
END_TEST

Suite *merge_sections_suite(void)
{
	Suite *s = suite_create("merge_sections");
	TCase *tc = tcase_create("property");

	tcase_set_timeout(tc, 300); /* a hang guard: CPU time is ~1 s, a loaded
				       sanitizer run is much slower */
	tcase_add_test(tc, test_merge_sections_property);
	suite_add_tcase(s, tc);
	return s;
}
