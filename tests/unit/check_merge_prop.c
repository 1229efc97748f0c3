/*
 * Property tests of the thread merge over seeded random edits: the
 * frontmatter always parses and never holds markers, no added line is
 * lost, and swapping ours and theirs gives the same result (the same exit
 * and the same text up to the order of what both added at one place and
 * the marker labels).  The suites' other generators (check_merge_sections.c,
 * check_merge_lines.c) check the same symmetry; the last test here checks
 * it on the corpus of `make bench`'s merge-driver row (bench/gen -m).
 */
#include "threadmind/buf.h"
#include "threadmind/merge.h"
#include "merge_util.h"
#include "test_util.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CASES 500

static char *new_item(const char *tag)
{
	return mt_printf("- item %u %s", mt_serial(), tag);
}

static char *new_prose(const char *tag)
{
	return mt_printf("Prose %u by %s.", mt_serial(), tag);
}

static void random_doc(struct mt_doc *d)
{
	size_t i, k, n;

	memset(d, 0, sizeof(*d));
	d->n = 2 + mt_rnd(3);
	for (i = 0; i < d->n; i++) {
		d->s[i].heading = mt_printf("## Section %zu", i);
		if (mt_rnd(3) == 0)
			tm_strv_push(&d->s[i].lines, "Some prose line.");
		n = 1 + mt_rnd(5);
		for (k = 0; k < n; k++)
			tm_strv_push_owned(&d->s[i].lines, new_item("base"));
	}
}

/* Random bullets added, removed and changed; now and then a section. */
static void random_edits(struct mt_doc *d, const char *tag)
{
	size_t i, k, ops = 1 + mt_rnd(4), op;
	tm_strv *l;

	for (op = 0; op < ops; op++) {
		i = mt_rnd((unsigned)d->n);
		l = &d->s[i].lines;
		switch (mt_rnd(8)) {
		case 0:
		case 1:
			mt_strv_insert(l, mt_rnd((unsigned)l->n + 1),
				       new_item(tag));
			break;
		case 2:
		case 3:
			if (l->n)
				mt_strv_remove(l, mt_rnd((unsigned)l->n));
			break;
		case 4:
		case 5:
			if (l->n) {
				k = mt_rnd((unsigned)l->n);
				free(l->items[k]);
				l->items[k] = new_item(tag);
			}
			break;
		case 6:
			if (d->n < 16) {
				k = d->n++;
				memset(&d->s[k], 0, sizeof(d->s[k]));
				d->s[k].heading = mt_printf("## New %u %s",
							    mt_serial(), tag);
				tm_strv_push_owned(&d->s[k].lines,
						   new_item(tag));
			}
			break;
		default:
			if (d->n > 1 && mt_rnd(2)) {
				free(d->s[i].heading);
				tm_strv_clear(&d->s[i].lines);
				memmove(&d->s[i], &d->s[i + 1],
					(d->n - i - 1) * sizeof(d->s[0]));
				d->n--;
			} else if (l->n) {
				/* prose: a change the union cannot take */
				k = mt_rnd((unsigned)l->n);
				free(l->items[k]);
				l->items[k] = new_prose(tag);
			}
		}
	}
}

static char *random_time(void)
{
	return mt_printf("2026-04-%02uT%02u:%02u:00.000Z", 10 + mt_rnd(3),
			 mt_rnd(2) * 12, mt_rnd(2) * 30);
}

static const char *const path_pool[] = {"src", "lib", "doc", "test", "bin"};

static char *random_paths(void)
{
	tm_buf b = TM_BUF_INIT;
	unsigned i, mask = mt_rnd(32);
	bool first = true;

	tm_buf_putc(&b, '[');
	for (i = 0; i < 5; i++)
		if (mask & (1u << ((i + mt_rnd(2)) % 5))) {
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
	if (mt_rnd(3) == 0)
		mt_set_owned(f, "title", mt_printf("Title %u", mt_rnd(4)));
	if (mt_rnd(2) == 0)
		mt_set_owned(f, "updatedAt", random_time());
	/* createdAt names the thread (with author): another instant is
	 * another thread (test_merge_identity_*); the same instant written
	 * another way is an edit */
	if (mt_rnd(6) == 0)
		mt_set_owned(f, "createdAt",
			     mt_rnd(2)
				     ? tm_xstrdup("2026-04-15T10:00:00Z")
				     : tm_xstrdup("2026-04-15T12:00:00+02:00"));
	if (mt_rnd(3) == 0)
		mt_set_owned(f, "branch", mt_printf("branch-%u", mt_rnd(3)));
	if (mt_rnd(3) == 0)
		mt_set_owned(f, "commit", mt_printf("c%039u", mt_rnd(3)));
	if (mt_rnd(6) == 0)
		mt_set_owned(f, "status",
			     mt_rnd(2) ? tm_xstrdup("done") : NULL);
	if (mt_rnd(6) == 0)
		mt_set_owned(f, "parentId", mt_printf("parent-%u", mt_rnd(3)));
	if (mt_rnd(4) == 0)
		mt_set_owned(f, "paths", random_paths());
	if (mt_rnd(6) == 0)
		mt_set_owned(f, mt_rnd(2) ? "reviewer" : "ticket",
			     mt_printf("v%u", mt_rnd(3)));
	if (mt_rnd(8) == 0)
		mt_set_owned(f, "mergedInto", mt_printf("m-%u", mt_rnd(2)));
}

static void gen_case(struct mt_case *g, unsigned seed)
{
	char *body;
	int x;

	mt_rng_seed(0x9e3779b97f4a7c15ull ^
		    ((uint64_t)seed * 0x100000001b3ull));
	random_doc(&g->d[0]);
	body = mt_doc_text(&g->d[0]);
	g->f[0] = mt_body(mt_base, body);
	free(body);
	for (x = 1; x < 3; x++) {
		mt_doc_copy(&g->d[x], &g->d[0]);
		random_edits(&g->d[x], x == 1 ? "ours" : "theirs");
		body = mt_doc_text(&g->d[x]);
		g->f[x] = mt_body(g->f[0], body);
		free(body);
		random_fields(&g->f[x]);
	}
}

/* Every line of d[x] that the ancestor lacks is in `data`. */
static void check_added_lines(const struct mt_case *g, int x, const char *data,
			      unsigned seed)
{
	size_t i, k;
	const char *line;

	for (i = 0; i < g->d[x].n; i++)
		for (k = 0; k <= g->d[x].s[i].lines.n; k++) {
			line = k ? g->d[x].s[i].lines.items[k - 1]
				 : g->d[x].s[i].heading;
			if (mt_doc_has(&g->d[0], line))
				continue;
			ck_assert_msg(mt_has_line(data, line),
				      "seed %u: '%s' lost:\n%s", seed, line,
				      data);
		}
}

START_TEST(test_merge_property_random_edits)
{
	struct mt_case g;
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
		mt_case_free(&g);
	}
	/* the generator must reach both outcomes */
	ck_assert_uint_gt(conflicts, 0);
	ck_assert_uint_lt(conflicts, CASES);
}
END_TEST

START_TEST(test_merge_property_symmetric_frontmatter)
{
	struct mt_case g;
	tm_merge_result r1, r2;
	unsigned seed, both_paths = 0;

	for (seed = 1000; seed < 1000 + CASES; seed++) {
		gen_case(&g, seed);
		r1 = mt_merge(g.f[0], g.f[1], g.f[2], NULL);
		r2 = mt_merge(g.f[0], g.f[2], g.f[1], NULL);
		both_paths += mt_check_symmetric(&g, &r1, &r2, seed);
		mt_check_symmetric_text(g.f, &r1, &r2, seed);
		tm_merge_result_clear(&r1);
		tm_merge_result_clear(&r2);
		mt_case_free(&g);
	}
	ck_assert_uint_gt(both_paths, 0);
	ck_assert_uint_lt(both_paths, CASES / 2);
}
END_TEST

/* The cases of make bench's merge corpus (its default seed and size). */
#define BENCH_CASES 200

/* bench-gen, next to this runner in the build folder (make unit builds
 * it), malloc'd. */
static char *bench_gen(void)
{
	char self[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_msg(n > 0, "cannot find the test runner's folder");
	self[n] = '\0';
	slash = strrchr(self, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
	return tmt_join(self, "bench-gen");
}

START_TEST(test_merge_property_symmetric_bench_corpus)
{
	char *gen = bench_gen(), *tmp = tmt_mkdtemp(), *f[3], path[4096];
	static const char *const name[3] = {"O", "A", "B"};
	tm_merge_result r1, r2;
	unsigned c;
	int x;

	ck_assert_msg(access(gen, X_OK) == 0,
		      "'%s' missing: 'make unit' builds it", gen);
	tmt_sh("'%s' -m '%s/corpus' %d", gen, tmp, BENCH_CASES);
	for (c = 0; c < BENCH_CASES; c++) {
		for (x = 0; x < 3; x++) {
			snprintf(path, sizeof(path), "%s/corpus/c%03u/%s", tmp,
				 c, name[x]);
			f[x] = tmt_read_file(path, NULL);
		}
		r1 = mt_merge(f[0], f[1], f[2], NULL);
		r2 = mt_merge(f[0], f[2], f[1], NULL);
		ck_assert_int_eq(r1.kind, TM_MERGE_KIND_THREAD);
		ck_assert_msg(!mt_header_has_markers(r1.data, r1.len) &&
				      !mt_header_has_markers(r2.data, r2.len),
			      "case %u: markers in the frontmatter", c);
		mt_check_symmetric_text(f, &r1, &r2, c);
		tm_merge_result_clear(&r1);
		tm_merge_result_clear(&r2);
		for (x = 0; x < 3; x++)
			free(f[x]);
	}
	tmt_rmtree(tmp);
	free(tmp);
	free(gen);
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
	tcase_add_test(tc, test_merge_property_symmetric_bench_corpus);
	suite_add_tcase(s, tc);
	return s;
}
