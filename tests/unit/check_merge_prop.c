/*
 * Property tests of the thread merge over seeded random edits: the
 * frontmatter always parses and never holds markers, no added line is
 * lost, and swapping ours and theirs gives the same frontmatter.
 */
#include "lib/buf.h"
#include "lib/merge.h"
#include "merge_util.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CASES 500

/* A small deterministic generator (xorshift64*). */
static uint64_t rng;

static unsigned rnd(unsigned n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (unsigned)((rng * 2685821657736338717ull) >> 33) % n;
}

/* Unique line texts across a case. */
static unsigned serial;

struct section {
	char heading[32];
	tm_strv lines;
};

struct doc {
	struct section s[16];
	size_t n;
};

static void doc_clear(struct doc *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		tm_strv_clear(&d->s[i].lines);
	d->n = 0;
}

static void doc_copy(struct doc *dst, const struct doc *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++) {
		memcpy(dst->s[i].heading, src->s[i].heading,
		       sizeof(dst->s[i].heading));
		tm_strv_copy(&dst->s[i].lines, &src->s[i].lines);
	}
	dst->n = src->n;
}

static char *new_item(const char *tag)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "- item %u %s", serial++, tag);
	return tm_xstrdup(buf);
}

static char *new_prose(const char *tag)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "Prose %u by %s.", serial++, tag);
	return tm_xstrdup(buf);
}

static void random_doc(struct doc *d)
{
	size_t i, k, n;

	memset(d, 0, sizeof(*d));
	d->n = 2 + rnd(3);
	for (i = 0; i < d->n; i++) {
		snprintf(d->s[i].heading, sizeof(d->s[i].heading),
			 "## Section %zu", i);
		if (rnd(3) == 0)
			tm_strv_push(&d->s[i].lines, "Some prose line.");
		n = 1 + rnd(5);
		for (k = 0; k < n; k++)
			tm_strv_push_owned(&d->s[i].lines, new_item("base"));
	}
}

/* Remove item k of a vector. */
static void strv_remove(tm_strv *v, size_t k)
{
	free(v->items[k]);
	memmove(&v->items[k], &v->items[k + 1],
		(v->n - k - 1) * sizeof(char *));
	v->n--;
}

static void strv_insert(tm_strv *v, size_t k, char *s)
{
	tm_strv_push_owned(v, s);
	memmove(&v->items[k + 1], &v->items[k],
		(v->n - 1 - k) * sizeof(char *));
	v->items[k] = s;
}

/* Random bullets added, removed and changed; now and then a section. */
static void random_edits(struct doc *d, const char *tag)
{
	size_t i, k, ops = 1 + rnd(4), op;
	tm_strv *l;

	for (op = 0; op < ops; op++) {
		i = rnd((unsigned)d->n);
		l = &d->s[i].lines;
		switch (rnd(8)) {
		case 0:
		case 1:
			strv_insert(l, rnd((unsigned)l->n + 1), new_item(tag));
			break;
		case 2:
		case 3:
			if (l->n)
				strv_remove(l, rnd((unsigned)l->n));
			break;
		case 4:
		case 5:
			if (l->n) {
				k = rnd((unsigned)l->n);
				free(l->items[k]);
				l->items[k] = new_item(tag);
			}
			break;
		case 6:
			if (d->n < 16) {
				k = d->n++;
				memset(&d->s[k], 0, sizeof(d->s[k]));
				snprintf(d->s[k].heading,
					 sizeof(d->s[k].heading),
					 "## New %u %s", serial++, tag);
				tm_strv_push_owned(&d->s[k].lines,
						   new_item(tag));
			}
			break;
		default:
			if (d->n > 1 && rnd(2)) {
				tm_strv_clear(&d->s[i].lines);
				memmove(&d->s[i], &d->s[i + 1],
					(d->n - i - 1) * sizeof(d->s[0]));
				d->n--;
			} else if (l->n) {
				/* prose: a change the union cannot take */
				k = rnd((unsigned)l->n);
				free(l->items[k]);
				l->items[k] = new_prose(tag);
			}
		}
	}
}

static char *doc_text(const struct doc *d)
{
	tm_buf b = TM_BUF_INIT;
	size_t i, k;

	tm_buf_putc(&b, '\n');
	for (i = 0; i < d->n; i++) {
		tm_buf_printf(&b, "%s%s\n", i ? "\n" : "", d->s[i].heading);
		for (k = 0; k < d->s[i].lines.n; k++)
			tm_buf_printf(&b, "%s\n", d->s[i].lines.items[k]);
	}
	return tm_buf_detach(&b);
}

static char *random_time(void)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "2026-04-%02uT%02u:%02u:00.000Z",
		 10 + rnd(3), rnd(2) * 12, rnd(2) * 30);
	return tm_xstrdup(buf);
}

/* Replace `*f` by a copy with key set to value (value is consumed). */
static void set(char **f, const char *key, char *value)
{
	char *n = mt_set(*f, key, value);

	free(*f);
	free(value);
	*f = n;
}

static char *value(const char *fmt, unsigned n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, n);
	return tm_xstrdup(buf);
}

static const char *const path_pool[] = {"src", "lib", "doc", "test", "bin"};

static char *random_paths(void)
{
	tm_buf b = TM_BUF_INIT;
	unsigned i, mask = rnd(32);
	bool first = true;

	tm_buf_putc(&b, '[');
	for (i = 0; i < 5; i++)
		if (mask & (1u << ((i + rnd(2)) % 5))) {
			tm_buf_printf(&b, "%s\"%s\"", first ? "" : ",",
				      path_pool[i]);
			first = false;
		}
	tm_buf_putc(&b, ']');
	return tm_buf_detach(&b);
}

/* Random frontmatter edits (each field now and then). */
static void random_fields(char **f)
{
	if (rnd(3) == 0)
		set(f, "title", value("Title %u", rnd(4)));
	if (rnd(2) == 0)
		set(f, "updatedAt", random_time());
	if (rnd(6) == 0)
		set(f, "createdAt", random_time());
	if (rnd(3) == 0)
		set(f, "branch", value("branch-%u", rnd(3)));
	if (rnd(3) == 0)
		set(f, "commit", value("c%039u", rnd(3)));
	if (rnd(6) == 0)
		set(f, "status", rnd(2) ? tm_xstrdup("done") : NULL);
	if (rnd(6) == 0)
		set(f, "parentId", value("parent-%u", rnd(3)));
	if (rnd(4) == 0)
		set(f, "paths", random_paths());
	if (rnd(6) == 0)
		set(f, rnd(2) ? "reviewer" : "ticket", value("v%u", rnd(3)));
	if (rnd(8) == 0)
		set(f, "mergedInto", value("m-%u", rnd(2)));
}

struct gen {
	char *f[3];
	struct doc d[3];
};

static void gen_case(struct gen *g, unsigned seed)
{
	char *body;
	int x;

	rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed * 0x100000001b3ull);
	serial = 0;
	random_doc(&g->d[0]);
	body = doc_text(&g->d[0]);
	g->f[0] = mt_body(mt_base, body);
	free(body);
	for (x = 1; x < 3; x++) {
		doc_copy(&g->d[x], &g->d[0]);
		random_edits(&g->d[x], x == 1 ? "ours" : "theirs");
		body = doc_text(&g->d[x]);
		g->f[x] = mt_body(g->f[0], body);
		free(body);
		random_fields(&g->f[x]);
	}
}

static void gen_free(struct gen *g)
{
	int x;

	for (x = 0; x < 3; x++) {
		free(g->f[x]);
		doc_clear(&g->d[x]);
	}
}

static bool doc_has(const struct doc *d, const char *line)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->s[i].heading, line) ||
		    tm_strv_contains(&d->s[i].lines, line))
			return true;
	return false;
}

/* Every line of d[x] that the ancestor lacks is in `data`. */
static void check_added_lines(const struct gen *g, int x, const char *data,
			      unsigned seed)
{
	size_t i, k;
	const char *line;

	for (i = 0; i < g->d[x].n; i++)
		for (k = 0; k <= g->d[x].s[i].lines.n; k++) {
			line = k ? g->d[x].s[i].lines.items[k - 1]
				 : g->d[x].s[i].heading;
			if (doc_has(&g->d[0], line))
				continue;
			ck_assert_msg(mt_has_line(data, line),
				      "seed %u: '%s' lost:\n%s", seed, line,
				      data);
		}
}

START_TEST(test_merge_property_random_edits)
{
	struct gen g;
	tm_merge_result r;
	tm_thread *t;
	unsigned seed, conflicts = 0;

	for (seed = 0; seed < CASES; seed++) {
		gen_case(&g, seed);
		r = mt_merge(g.f[0], g.f[1], g.f[2], NULL);
		ck_assert_int_eq(r.kind, TM_MERGE_KIND_THREAD);
		ck_assert_msg(!mt_header_has_markers(r.data, r.len),
			      "seed %u: markers in the frontmatter", seed);
		t = mt_parse(r.data, r.len);
		tm_thread_free(t);
		check_added_lines(&g, 1, r.data, seed);
		check_added_lines(&g, 2, r.data, seed);
		conflicts += r.conflicted;
		tm_merge_result_clear(&r);
		gen_free(&g);
	}
	/* the generator must reach both outcomes */
	ck_assert_uint_gt(conflicts, 0);
	ck_assert_uint_lt(conflicts, CASES);
}
END_TEST

/* The frontmatter block of a merged file (malloc'd). */
static char *header_of(const char *data)
{
	const char *end = strstr(data + 3, "\n---\n");

	ck_assert_ptr_nonnull(end);
	return tm_xstrndup(data, (size_t)(end - data) + 5);
}

/* The header without its paths line, and the sorted paths. */
static char *split_paths(const char *header, tm_strv *paths, const char *data,
			 size_t len)
{
	tm_thread *t = mt_parse(data, len);
	char *rest = mt_set(header, "paths", NULL);

	tm_strv_copy(paths, &t->paths);
	tm_strv_sort(paths);
	tm_thread_free(t);
	return rest;
}

START_TEST(test_merge_property_symmetric_frontmatter)
{
	struct gen g;
	tm_merge_result r1, r2;
	char *h1, *h2, *p1, *p2;
	tm_strv s1 = TM_STRV_INIT, s2 = TM_STRV_INIT;
	unsigned seed, both_paths = 0;
	tm_thread *t[3];
	int x;

	for (seed = 1000; seed < 1000 + CASES; seed++) {
		gen_case(&g, seed);
		r1 = mt_merge(g.f[0], g.f[1], g.f[2], NULL);
		r2 = mt_merge(g.f[0], g.f[2], g.f[1], NULL);
		h1 = header_of(r1.data);
		h2 = header_of(r2.data);
		for (x = 0; x < 3; x++)
			t[x] = mt_parse(g.f[x], strlen(g.f[x]));
		if (!tm_strv_equal(&t[0]->paths, &t[1]->paths) &&
		    !tm_strv_equal(&t[0]->paths, &t[2]->paths) &&
		    !tm_strv_equal(&t[1]->paths, &t[2]->paths)) {
			/* paths changed on both sides: ours' order comes
			 * first (DESIGN.md), so only the set is symmetric */
			both_paths++;
			p1 = split_paths(h1, &s1, r1.data, r1.len);
			p2 = split_paths(h2, &s2, r2.data, r2.len);
			ck_assert_msg(!strcmp(p1, p2), "seed %u:\n%s\n%s", seed,
				      p1, p2);
			ck_assert_msg(tm_strv_equal(&s1, &s2), "seed %u", seed);
			free(p1);
			free(p2);
			tm_strv_clear(&s1);
			tm_strv_clear(&s2);
		} else {
			ck_assert_msg(!strcmp(h1, h2), "seed %u:\n%s\n%s", seed,
				      h1, h2);
		}
		for (x = 0; x < 3; x++)
			tm_thread_free(t[x]);
		free(h1);
		free(h2);
		tm_merge_result_clear(&r1);
		tm_merge_result_clear(&r2);
		gen_free(&g);
	}
	ck_assert_uint_gt(both_paths, 0);
	ck_assert_uint_lt(both_paths, CASES / 2);
}
END_TEST

Suite *merge_prop_suite(void)
{
	Suite *s = suite_create("merge_prop");
	TCase *tc;

	tc = tcase_create("property");
	tcase_set_timeout(tc, 300); /* a hang guard: CPU time is ~1 s, a loaded
				       sanitizer run is much slower */
	tcase_add_test(tc, test_merge_property_random_edits);
	tcase_add_test(tc, test_merge_property_symmetric_frontmatter);
	suite_add_tcase(s, tc);
	return s;
}
