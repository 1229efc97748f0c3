/*
 * Unit tests of the merge by units (lib/merge/merge_lines.c,
 * lib/merge/merge_diff.c): lists of every kind, sub-items, rewordings, moves,
 * insertions at one place, long sections; and a property test over seeded edits
 * of such lists and of sections renamed, repeated and moved, checking that the
 * result does not depend on which side is ours (issue 19).
 */
#include "threadmind/buf.h"
#include "threadmind/merge.h"
#include "merge_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CASES 2000

/* A thread file with `body`, its updatedAt `day` of April. */
static char *thread(const char *body, int day)
{
	char *f = mt_body(mt_base, body), *t;
	char when[40];

	snprintf(when, sizeof(when), "2026-04-%02dT12:00:00.000Z", day);
	t = mt_set(f, "updatedAt", when);
	free(f);
	return t;
}

/*
 * Merge bodies o, a (updatedAt the 16th), b (the 17th: theirs leads),
 * both ways; assert that both ways agree (mt_check_symmetric_text) and
 * return the body of the merge with a as ours; *conflicted set.
 */
static char *merge2(const char *o, const char *a, const char *b,
		    bool *conflicted)
{
	char *fo = thread(o, 15), *fa = thread(a, 16), *fb = thread(b, 17);
	char *const f[3] = {fo, fa, fb};
	tm_merge_result r1 = mt_merge(fo, fa, fb, NULL);
	tm_merge_result r2 = mt_merge(fo, fb, fa, NULL);
	char *got;

	mt_check_symmetric_text(f, &r1, &r2, 0);
	*conflicted = r1.conflicted;
	got = mt_body_of(r1.data, r1.len);
	tm_merge_result_clear(&r1);
	tm_merge_result_clear(&r2);
	free(fo);
	free(fa);
	free(fb);
	return got;
}

static void expect_clean(const char *o, const char *a, const char *b,
			 const char *want)
{
	bool c;
	char *got = merge2(o, a, b, &c);

	ck_assert_msg(!c, "conflicted:\n%s", got);
	ck_assert_str_eq(got, want);
	free(got);
}

static void expect_conflict(const char *o, const char *a, const char *b,
			    const char *want)
{
	bool c;
	char *got = merge2(o, a, b, &c);

	ck_assert_msg(c, "clean:\n%s", got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_merge_lines_every_list_kind_united)
{
	static const char *const marks[] = {"- ", "* ", "+ ", "- [ ] "};
	char *o, *a, *b, *want;
	size_t k;

	for (k = 0; k < sizeof(marks) / sizeof(*marks); k++) {
		o = mt_printf("\n## Next steps\n%swrite tests\n%sship\n",
			      marks[k], marks[k]);
		a = mt_printf("%s%sours: update docs\n", o, marks[k]);
		b = mt_printf("%s%stheirs: tell support\n", o, marks[k]);
		want = mt_printf("%s%stheirs: tell support\n", a, marks[k]);
		expect_clean(o, a, b, want);
		free(o);
		free(a);
		free(b);
		free(want);
	}
}
END_TEST

START_TEST(test_merge_lines_numbered_lists_renumbered)
{
	/* both append, and ours inserts at the top: consecutive again */
	expect_clean("\n## Next steps\n1. write tests\n2. ship\n",
		     "\n## Next steps\n1. plan\n2. write tests\n3. ship\n"
		     "4. ours: update docs\n",
		     "\n## Next steps\n1. write tests\n2. ship\n"
		     "3. theirs: tell support\n",
		     "\n## Next steps\n1. plan\n2. write tests\n3. ship\n"
		     "4. ours: update docs\n5. theirs: tell support\n");
	expect_clean("\n## Next steps\n1) write tests\n2) ship\n",
		     "\n## Next steps\n1) write tests\n2) ship\n3) ours\n",
		     "\n## Next steps\n1) write tests\n2) ship\n3) theirs\n",
		     "\n## Next steps\n1) write tests\n2) ship\n3) ours\n"
		     "4) theirs\n");
	/* numbers that were not consecutive are left as they are */
	expect_clean("\n## Next steps\n1. write tests\n1. ship\n",
		     "\n## Next steps\n1. write tests\n1. ship\n1. ours\n",
		     "\n## Next steps\n1. write tests\n1. ship\n1. theirs\n",
		     "\n## Next steps\n1. write tests\n1. ship\n1. ours\n"
		     "1. theirs\n");
}
END_TEST

START_TEST(test_merge_lines_sub_items_move_with_their_item)
{
	/* 02: theirs adds a sub-item, ours an item right after its parent */
	expect_clean("\n## Decisions\n- Use Redis for the cart\n"
		     "- Use JWT for sessions\n",
		     "\n## Decisions\n- Use Redis for the cart\n"
		     "- Use Kafka for events\n- Use JWT for sessions\n",
		     "\n## Decisions\n- Use Redis for the cart\n"
		     "  - because ops already runs it\n"
		     "- Use JWT for sessions\n",
		     "\n## Decisions\n- Use Redis for the cart\n"
		     "  - because ops already runs it\n"
		     "- Use Kafka for events\n- Use JWT for sessions\n");
	/* both add a sub-item under the same item: united under it */
	expect_clean("\n## Decisions\n- Use Redis\n- Use JWT\n",
		     "\n## Decisions\n- Use Redis\n  - ours: it is fast\n"
		     "- Use JWT\n",
		     "\n## Decisions\n- Use Redis\n  - theirs: ops run it\n"
		     "- Use JWT\n",
		     "\n## Decisions\n- Use Redis\n  - ours: it is fast\n"
		     "  - theirs: ops run it\n- Use JWT\n");
	/* an item moved with its sub-items while the other side appends */
	expect_clean("\n## L\n- a\n  - a1\n- b\n- c\n",
		     "\n## L\n- b\n- c\n- a\n  - a1\n",
		     "\n## L\n- a\n  - a1\n- b\n- c\n- d\n",
		     "\n## L\n- b\n- c\n- a\n  - a1\n- d\n");
}
END_TEST

START_TEST(test_merge_lines_reworded_items)
{
	/* 06: the same item reworded differently on both sides */
	expect_conflict(
		"\n## Next steps\n- Use Redis for the cart\n- Ship\n",
		"\n## Next steps\n- Use Redis for the cart (done)\n"
		"- Ship\n",
		"\n## Next steps\n- Use Redis for the cart (postponed)\n"
		"- Ship\n",
		"\n## Next steps\n<<<<<<< ours\n"
		"- Use Redis for the cart (done)\n=======\n"
		"- Use Redis for the cart (postponed)\n"
		">>>>>>> theirs\n- Ship\n");
	/* ticked on one side, reworded on the other */
	expect_conflict("\n## Next steps\n- [ ] Write tests for the cart\n"
			"- Ship\n",
			"\n## Next steps\n- [x] Write tests for the cart\n"
			"- Ship\n",
			"\n## Next steps\n- [ ] Write tests for the cart and "
			"the checkout\n- Ship\n",
			"\n## Next steps\n<<<<<<< ours\n"
			"- [x] Write tests for the cart\n=======\n"
			"- [ ] Write tests for the cart and the checkout\n"
			">>>>>>> theirs\n- Ship\n");
	/* deleted on one side, reworded on the other: the rewording */
	expect_clean("\n## Next steps\n- Keep REST until the freeze\n- Ship\n",
		     "\n## Next steps\n- Ship\n",
		     "\n## Next steps\n- Keep REST until the freeze; the free "
		     "tier caps requests\n- Ship\n",
		     "\n## Next steps\n- Keep REST until the freeze; the free "
		     "tier caps requests\n- Ship\n");
	/* moved on one side, reworded on the other: the rewording, moved */
	expect_clean("\n## Next steps\n- a\n- b\n- c\n",
		     "\n## Next steps\n- c\n- a\n- b\n",
		     "\n## Next steps\n- a\n- b\n- c (done)\n",
		     "\n## Next steps\n- c (done)\n- a\n- b\n");
	/* reworded alike on both sides: once */
	expect_clean("\n## L\n- a\n- b\n", "\n## L\n- a (done)\n- b\n",
		     "\n## L\n- a (done)\n- b\n- c\n",
		     "\n## L\n- a (done)\n- b\n- c\n");
}
END_TEST

START_TEST(test_merge_lines_insertions_at_one_place_kept)
{
	/* two paragraphs at the end of a section: both, ours first */
	expect_clean("\n## State\nThe login form is done.\n\n## Next steps\n"
		     "- Ship\n",
		     "\n## State\nThe login form is done.\n\nOurs: the API is "
		     "up.\n\n## Next steps\n- Ship\n",
		     "\n## State\nThe login form is done.\n\nTheirs: the docs "
		     "are out.\n\n## Next steps\n- Ship\n",
		     "\n## State\nThe login form is done.\n\nOurs: the API is "
		     "up.\n\nTheirs: the docs are out.\n\n## Next steps\n"
		     "- Ship\n");
	/* the same new section on both sides: one, both bodies */
	expect_clean("\n## Decisions\n- d1\n",
		     "\n## Decisions\n- d1\n\n## Glossary\n- cart: a basket\n",
		     "\n## Decisions\n- d1\n\n## Glossary\n- SKU: an article\n",
		     "\n## Decisions\n- d1\n\n## Glossary\n- cart: a basket\n"
		     "- SKU: an article\n");
	/* 01: prose replaced by an item on one side, the item added below
	 * the prose on the other: the item once, the prose gone */
	expect_clean("\n## State\nThe login form is done.\n",
		     "\n## State\n- Ship the login form\n",
		     "\n## State\nThe login form is done.\n"
		     "- Ship the login form\n",
		     "\n## State\n- Ship the login form\n");
	/* the same prose line rewritten on both sides: a conflict */
	expect_conflict("\n## State\nBase.\n- s1\n",
			"\n## State\nOurs.\n- s1\n",
			"\n## State\nTheirs.\n- s1\n",
			"\n## State\n<<<<<<< ours\nOurs.\n=======\nTheirs.\n"
			">>>>>>> theirs\n- s1\n");
}
END_TEST

/* Thread files of the three bodies (days 15, 16, 17) into f; the bodies
 * are released. */
static void three_threads(char *f[3], tm_buf body[3])
{
	int k;

	for (k = 0; k < 3; k++) {
		f[k] = thread(body[k].ptr, 15 + k);
		tm_buf_release(&body[k]);
	}
}

static void free_three(char *f[3])
{
	free(f[0]);
	free(f[1]);
	free(f[2]);
}

START_TEST(test_merge_lines_long_section_linear)
{
	tm_buf x[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	char *f[3];
	tm_merge_result r;
	clock_t t0;
	double s;
	/* as long as a thread file may be: under the 1 MiB over which a
	 * merge is the line merge in conflict (merge.c, limit_size) */
	int k, n = 25000;

	for (k = 0; k < 3; k++)
		tm_buf_puts(&x[k], "\n## Decisions\n");
	for (k = 1; k <= n; k++) {
		tm_buf_printf(&x[0], "- Decision %d: keep component %d\n", k,
			      k);
		if (k != 10)
			tm_buf_printf(&x[1],
				      "- Decision %d: keep component %d\n", k,
				      k);
		tm_buf_printf(&x[2], "- Decision %d: keep component %d%s\n", k,
			      k, k == 3 ? " (confirmed)" : "");
	}
	tm_buf_puts(&x[1], "- ours appended\n");
	tm_buf_puts(&x[2], "- theirs appended\n");
	three_threads(f, x);
	t0 = clock();
	r = mt_merge(f[0], f[1], f[2], NULL);
	s = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ck_assert(!r.conflicted);
	ck_assert(mt_has_line(r.data, "- Decision 3: keep component 3 "
				      "(confirmed)"));
	ck_assert(!mt_has_line(r.data, "- Decision 10: keep component 10"));
	ck_assert(strstr(r.data, "- ours appended\n- theirs appended\n"));
	ck_assert_uint_gt(r.len, 800 * 1024);
	/* a bound, not a benchmark: the quadratic union took minutes */
	ck_assert_msg(s < 5, "%.2f s", s);
	tm_merge_result_clear(&r);
	free_three(f);
}
END_TEST

/* The one size rule (merge.c, limit_size): a thread whose merge would be
 * over 1 MiB is the line merge of the whole file, in conflict, with the
 * note the driver prints and `resolve` lists; plain, no limit. */
START_TEST(test_merge_lines_over_1mib_is_line_merge_in_conflict)
{
	tm_buf x[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	tm_merge_options plain = TM_MERGE_OPTIONS_INIT;
	char *f[3];
	tm_merge_result r, p;
	int k;

	tm_buf_puts(&x[0], "\n## Decisions\n");
	for (k = 1; k <= 40000; k++)
		tm_buf_printf(&x[0], "- Decision %d: keep component %d\n", k,
			      k);
	tm_buf_put(&x[1], x[0].ptr, x[0].size);
	tm_buf_put(&x[2], x[0].ptr, x[0].size);
	tm_buf_puts(&x[1], "- ours appended\n");
	tm_buf_puts(&x[2], "- theirs appended\n");
	three_threads(f, x);
	r = mt_merge(f[0], f[1], f[2], NULL);
	ck_assert(r.conflicted);
	ck_assert_int_eq(r.kind, TM_MERGE_KIND_TEXT);
	ck_assert_ptr_nonnull(r.note);
	ck_assert_ptr_nonnull(strstr(r.note, "over the 1 MiB limit of "
					     "threadmind's reads: left as a "
					     "line merge, in conflict"));
	/* the line merge: what the plain merge gives, in conflict */
	plain.plain = true;
	p = mt_merge(f[0], f[1], f[2], &plain);
	ck_assert_uint_eq(r.len, p.len);
	ck_assert(!memcmp(r.data, p.data, p.len));
	ck_assert(p.conflicted);
	ck_assert_ptr_null(strstr(p.note ? p.note : "", "1 MiB"));
	tm_merge_result_clear(&r);
	tm_merge_result_clear(&p);
	free_three(f);
}
END_TEST

START_TEST(test_merge_lines_sections_renamed_repeated_moved)
{
	/* 03: renamed on one side (case only, or a new name), an item added
	 * on the other: one section, renamed, with the item */
	expect_clean("\n## Decisions\n- Use Redis\n\n## Open questions\n"
		     "- Who owns the cart?\n- Is Redis enough?\n",
		     "\n## Decisions\n- Use Redis\n\n## Questions\n"
		     "- Who owns the cart?\n- Is Redis enough?\n",
		     "\n## Decisions\n- Use Redis\n\n## Open questions\n"
		     "- Who owns the cart?\n- Is Redis enough?\n"
		     "- Do we need Kafka?\n",
		     "\n## Decisions\n- Use Redis\n\n## Questions\n"
		     "- Who owns the cart?\n- Is Redis enough?\n"
		     "- Do we need Kafka?\n");
	expect_clean("\n## Open questions\n- Who owns the cart?\n",
		     "\n## Open Questions\n- Who owns the cart?\n",
		     "\n## Open questions\n- Who owns the cart?\n- Kafka?\n",
		     "\n## Open Questions\n- Who owns the cart?\n- Kafka?\n");
	/* renamed differently on both sides: a conflict on the heading */
	expect_conflict("\n## Notes\n- n1\n", "\n## Ours notes\n- n1\n",
			"\n## Theirs notes\n- n1\n",
			"\n<<<<<<< ours\n## Ours notes\n=======\n"
			"## Theirs notes\n>>>>>>> theirs\n- n1\n");
	/* 09: a repeated heading is paired by content */
	expect_clean("\n## Decisions\n- d1\n\n## Notes\n- old note\n",
		     "\n## Decisions\n- d1\n\n## Notes\n- new ours note\n\n"
		     "## Notes\n- old note\n",
		     "\n## Decisions\n- d1\n\n## Notes\n- old note "
		     "(confirmed)\n",
		     "\n## Decisions\n- d1\n\n## Notes\n- new ours note\n\n"
		     "## Notes\n- old note (confirmed)\n");
	/* 05: moved on one side, edited on the other: moved either way */
	expect_clean("\n## Decisions\n- d1\n\n## State\nWIP.\n\n"
		     "## Next steps\n- n1\n",
		     "\n## Next steps\n- n1\n\n## Decisions\n- d1\n\n"
		     "## State\nWIP.\n",
		     "\n## Decisions\n- d1\n\n## State\nWIP.\n\n"
		     "## Next steps\n- n1\n- n2\n",
		     "\n## Next steps\n- n1\n- n2\n\n## Decisions\n- d1\n\n"
		     "## State\nWIP.\n");
	/* 11: deleted on one side, a question added on the other */
	expect_clean("\n## Decisions\n- d1\n\n## Open questions\n"
		     "- Who owns the cart?\n- Is Redis enough?\n",
		     "\n## Decisions\n- d1\n- Redis is enough; Ana owns the "
		     "cart\n",
		     "\n## Decisions\n- d1\n\n## Open questions\n"
		     "- Who owns the cart?\n- Is Redis enough?\n"
		     "- Do we need Kafka?\n",
		     "\n## Decisions\n- d1\n- Redis is enough; Ana owns the "
		     "cart\n\n## Open questions\n- Do we need Kafka?\n");
}
END_TEST

START_TEST(test_merge_lines_frontmatter_lists_and_review_point)
{
	char *o0 = mt_set(mt_base, "tags", "[\"auth\"]");
	char *a0 = mt_set(o0, "tags", "[auth, security]");
	char *a = mt_set(a0, "updatedAt", "2026-04-16T00:00:00.000Z");
	char *b0 = mt_set(o0, "tags", "\n  - auth\n  - perf");
	char *b = mt_set(b0, "updatedAt", "2026-04-17T00:00:00.000Z");
	tm_merge_result r1 = mt_merge(o0, a, b, NULL);
	tm_merge_result r2 = mt_merge(o0, b, a, NULL);
	char *c0, *c, *d0, *d, *d1;
	tm_thread *t;

	/* 07: a list-valued unknown field is set-merged, block or flow */
	ck_assert_msg(mt_has_line(r1.data, "tags: [\"auth\",\"security\","
					   "\"perf\"]"),
		      "%s", r1.data);
	ck_assert(mt_has_line(r2.data, "tags: [\"auth\",\"perf\","
				       "\"security\"]"));
	ck_assert(!r1.conflicted);
	tm_merge_result_clear(&r1);
	tm_merge_result_clear(&r2);
	/* 10: commit changed on both, branch on one: both from the later */
	c0 = mt_set(mt_base, "commit",
		    "b111111111111111111111111111111111111111");
	c = mt_set(c0, "updatedAt", "2026-04-17T00:00:00.000Z");
	d0 = mt_set(mt_base, "branch", "feature/b");
	d1 = mt_set(d0, "commit", "c222222222222222222222222222222222222222");
	d = mt_set(d1, "updatedAt", "2026-04-16T00:00:00.000Z");
	r1 = mt_merge(mt_base, c, d, NULL);
	r2 = mt_merge(mt_base, d, c, NULL);
	t = mt_parse(r1.data, r1.len);
	ck_assert_str_eq(t->branch, "main");
	ck_assert_str_eq(t->commit, "b111111111111111111111111111111111111111");
	ck_assert_str_eq(r1.data, r2.data);
	tm_thread_free(t);
	tm_merge_result_clear(&r1);
	tm_merge_result_clear(&r2);
	/* only one side changed them: the per-field rule as before */
	r1 = mt_merge(mt_base, c, d0, NULL);
	t = mt_parse(r1.data, r1.len);
	ck_assert_str_eq(t->branch, "feature/b");
	ck_assert_str_eq(t->commit, "b111111111111111111111111111111111111111");
	tm_thread_free(t);
	tm_merge_result_clear(&r1);
	free(o0);
	free(a0);
	free(a);
	free(b0);
	free(b);
	free(c0);
	free(c);
	free(d0);
	free(d1);
	free(d);
}
END_TEST

/* ---- the property test ---- */

static const char *const marks[] = {"- ", "* ", "+ ", "1. ", "1) ", "- [ ] "};
static const char *const heads[] = {"Decisions", "Next steps", "Notes",
				    "Open questions", "State"};

/* A section's list style (an index into marks), from its first item. */
static int style_of(const struct mt_sec *s)
{
	size_t k, i;

	for (k = 0; k < s->lines.n; k++)
		for (i = sizeof(marks) / sizeof(*marks); i-- > 0;)
			if (i == 3 || i == 4) {
				const char *p = s->lines.items[k];

				while (*p >= '0' && *p <= '9')
					p++;
				if (p > s->lines.items[k] && *p == marks[i][1])
					return (int)i;
			} else if (!strncmp(s->lines.items[k], marks[i],
					    strlen(marks[i]))) {
				return (int)i;
			}
	return -1;
}

static bool top_item(const char *l)
{
	return *l && *l != ' ' && *l != '\t' &&
	       (l[0] == '-' || l[0] == '*' || l[0] == '+' ||
		(l[0] >= '0' && l[0] <= '9'));
}

static char *new_item(int style, const char *tag)
{
	if (style == 3 || style == 4)
		return mt_printf("1%c %s item %u", marks[style][1], tag,
				 mt_serial());
	return mt_printf("%s%s item %u", marks[style < 0 ? 0 : style], tag,
			 mt_serial());
}

/* Number the section's top-level ordered items 1, 2, ... as an editor
 * does after inserting one. */
static void renumber(struct mt_sec *s)
{
	size_t k;
	unsigned n = 1;
	const char *p;
	char *t;

	for (k = 0; k < s->lines.n; k++) {
		p = s->lines.items[k];
		if (!(*p >= '0' && *p <= '9'))
			continue;
		while (*p >= '0' && *p <= '9')
			p++;
		t = mt_printf("%u%s", n++, p);
		free(s->lines.items[k]);
		s->lines.items[k] = t;
	}
}

/* The indexes of the top-level items of s (at most 64). */
static size_t items_of(const struct mt_sec *s, size_t *at)
{
	size_t k, n = 0;

	for (k = 0; k < s->lines.n && n < 64; k++)
		if (top_item(s->lines.items[k]))
			at[n++] = k;
	return n;
}

/* The end of the item at line k: past its sub-item lines. */
static size_t item_end(const struct mt_sec *s, size_t k)
{
	for (k++; k < s->lines.n && s->lines.items[k][0] == ' '; k++)
		;
	return k;
}

static void fill(struct mt_sec *s, int style, const char *tag)
{
	size_t n = 1 + mt_rnd(5), k;

	if (mt_rnd(3) == 0) {
		tm_strv_push_owned(&s->lines, mt_printf("Prose by %s %u.", tag,
							mt_serial()));
		tm_strv_push(&s->lines, "");
	}
	for (k = 0; k < n; k++) {
		tm_strv_push_owned(&s->lines, new_item(style, tag));
		if (mt_rnd(5) == 0)
			tm_strv_push_owned(&s->lines,
					   mt_printf("   - %s detail %u", tag,
						     mt_serial()));
	}
	renumber(s);
}

static void lines_base(struct mt_doc *d)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->n = 1 + mt_rnd(4);
	for (i = 0; i < d->n; i++) {
		d->s[i].heading = mt_printf("## %s", heads[mt_rnd(5)]);
		fill(&d->s[i], (int)mt_rnd(6), "base");
	}
}

static void move_lines(tm_strv *l, size_t from, size_t to, size_t at)
{
	tm_strv moved = TM_STRV_INIT;
	size_t k;

	for (k = from; k < to; k++)
		tm_strv_push(&moved, l->items[k]);
	for (k = from; k < to; k++)
		mt_strv_remove(l, from);
	if (at > from)
		at -= to - from;
	for (k = 0; k < moved.n; k++)
		mt_strv_insert(l, at + k, tm_xstrdup(moved.items[k]));
	tm_strv_clear(&moved);
}

static void lines_edit(struct mt_doc *d, char **f, const char *tag)
{
	size_t ops = 1 + mt_rnd(4), op, i, j, n, at[64], e;
	struct mt_sec *s, tmp;
	int style;
	char *t;

	for (op = 0; op < ops && d->n; op++) {
		i = mt_rnd((unsigned)d->n);
		s = &d->s[i];
		style = style_of(s);
		n = items_of(s, at);
		switch (mt_rnd(14)) {
		case 0:
		case 1: /* an item */
			mt_strv_insert(&s->lines,
				       n ? at[mt_rnd((unsigned)n)] : s->lines.n,
				       new_item(style, tag));
			if (mt_rnd(2) && n)
				mt_strv_insert(&s->lines, s->lines.n,
					       new_item(style, tag));
			break;
		case 2: /* a sub-item */
			if (n) {
				j = at[mt_rnd((unsigned)n)];
				mt_strv_insert(&s->lines, item_end(s, j),
					       mt_printf("   - %s detail %u",
							 tag, mt_serial()));
			}
			break;
		case 3: /* reworded, or ticked */
			if (n) {
				j = at[mt_rnd((unsigned)n)];
				if (style == 5 && mt_rnd(2))
					t = mt_printf("- [x]%s",
						      s->lines.items[j] + 5);
				else
					t = mt_printf("%s (%s %u)",
						      s->lines.items[j], tag,
						      mt_serial());
				free(s->lines.items[j]);
				s->lines.items[j] = t;
			}
			break;
		case 4: /* deleted, with its sub-items */
			if (n > 1) {
				j = at[mt_rnd((unsigned)n)];
				for (e = item_end(s, j); e > j; e--)
					mt_strv_remove(&s->lines, j);
			}
			break;
		case 5: /* moved, with its sub-items */
			if (n > 1) {
				j = at[mt_rnd((unsigned)n)];
				move_lines(&s->lines, j, item_end(s, j),
					   mt_rnd(2) ? at[0] : s->lines.n);
			}
			break;
		case 6: /* a section moved */
			j = mt_rnd((unsigned)d->n);
			tmp = d->s[i];
			memmove(&d->s[i], &d->s[i + 1],
				(d->n - i - 1) * sizeof(*d->s));
			memmove(&d->s[j + 1], &d->s[j],
				(d->n - 1 - j) * sizeof(*d->s));
			d->s[j] = tmp;
			break;
		case 7: /* renamed: its case, or another name */
			t = mt_rnd(2) ? mt_printf("## %s (%s)", s->heading + 3,
						  tag)
				      : mt_printf("## %c%s", s->heading[3] ^ 32,
						  s->heading + 4);
			free(s->heading);
			s->heading = t;
			break;
		case 8: /* a section with a heading already there */
			if (d->n < MT_MAX_SECS) {
				j = mt_rnd((unsigned)d->n + 1);
				memmove(&d->s[j + 1], &d->s[j],
					(d->n - j) * sizeof(*d->s));
				memset(&d->s[j], 0, sizeof(*d->s));
				d->s[j].heading = tm_xstrdup(
					d->s[i < j ? i : i + 1].heading);
				fill(&d->s[j], (int)mt_rnd(6), tag);
				d->n++;
			}
			break;
		case 9: /* a paragraph at the end */
			tm_strv_push(&s->lines, "");
			tm_strv_push_owned(&s->lines,
					   mt_printf("Paragraph by %s %u.", tag,
						     mt_serial()));
			break;
		case 10: /* a section deleted */
			free(s->heading);
			tm_strv_clear(&s->lines);
			memmove(&d->s[i], &d->s[i + 1],
				(d->n - i - 1) * sizeof(*d->s));
			d->n--;
			break;
		case 11: /* a glossary, which the other side may add too */
			if (d->n < MT_MAX_SECS) {
				s = &d->s[d->n++];
				memset(s, 0, sizeof(*s));
				s->heading = tm_xstrdup("## Glossary");
				tm_strv_push_owned(&s->lines,
						   mt_printf("- %s term %u",
							     tag, mt_serial()));
			}
			break;
		case 12: /* tags, a list-valued unknown field */
			mt_set_owned(f, "tags",
				     mt_printf("[\"auth\", \"%s-%u\"]", tag,
					       mt_rnd(3)));
			break;
		default: /* the review point */
			if (mt_rnd(2))
				mt_set_owned(
					f, "branch",
					mt_printf("%s-%u", tag, mt_rnd(2)));
			mt_set_owned(f, "commit",
				     mt_printf("c%039u", mt_rnd(3)));
		}
		if (i < d->n)
			renumber(&d->s[i]);
	}
}

static void lines_case(struct mt_case *g, unsigned seed)
{
	char *body, *t;
	int x;

	mt_rng_seed(0x2545f4914f6cdd1dull ^ ((uint64_t)seed * 0x9e37ull));
	lines_base(&g->d[0]);
	body = mt_doc_text(&g->d[0]);
	g->f[0] = mt_body(mt_base, body);
	free(body);
	if (mt_rnd(3) == 0)
		mt_set_owned(&g->f[0], "tags", tm_xstrdup("[\"auth\"]"));
	for (x = 1; x < 3; x++) {
		mt_doc_copy(&g->d[x], &g->d[0]);
		g->f[x] = tm_xstrdup(g->f[0]);
		lines_edit(&g->d[x], &g->f[x], x == 1 ? "ours" : "theirs");
		mt_set_owned(
			&g->f[x], "updatedAt",
			mt_printf("2026-04-1%uT12:00:00.000Z", 5 + mt_rnd(3)));
		body = mt_doc_text(&g->d[x]);
		t = mt_body(g->f[x], body);
		free(g->f[x]);
		g->f[x] = t;
		free(body);
	}
}

/* Every line a side added (numbers aside) is in the result. */
static void check_kept(const struct mt_case *g, const char *lf, unsigned seed)
{
	size_t i, k;
	int x;
	const char *line;

	for (x = 1; x < 3; x++)
		for (i = 0; i < g->d[x].n; i++)
			for (k = 0; k <= g->d[x].s[i].lines.n; k++) {
				line = k ? g->d[x].s[i].lines.items[k - 1]
					 : g->d[x].s[i].heading;
				if (!*line || mt_doc_has(&g->d[0], line) ||
				    (line[0] >= '0' && line[0] <= '9'))
					continue;
				ck_assert_msg(mt_has_line(lf, line),
					      "seed %u: '%s' lost:\n%s", seed,
					      line, lf);
			}
}

START_TEST(test_merge_lines_property_symmetric)
{
	const char *dir = getenv("TM_MERGE_CORPUS");
	struct mt_case g;
	tm_merge_result r1, r2;
	unsigned seed, clean = 0;
	tm_thread *t;

	for (seed = 0; seed < CASES; seed++) {
		lines_case(&g, seed);
		if (dir && *dir)
			mt_dump_case(dir, seed, &g);
		r1 = mt_merge(g.f[0], g.f[1], g.f[2], NULL);
		r2 = mt_merge(g.f[0], g.f[2], g.f[1], NULL);
		ck_assert_int_eq(r1.kind, TM_MERGE_KIND_THREAD);
		ck_assert_msg(!mt_header_has_markers(r1.data, r1.len),
			      "seed %u: markers in the frontmatter", seed);
		t = mt_parse(r1.data, r1.len);
		tm_thread_free(t);
		ck_assert_msg(r1.conflicted ==
				      tm_conflict_markers_left(r1.data, r1.len),
			      "seed %u: conflicted %d:\n%s", seed,
			      r1.conflicted, r1.data);
		check_kept(&g, r1.data, seed);
		mt_check_symmetric_text(g.f, &r1, &r2, seed);
		clean += !r1.conflicted;
		tm_merge_result_clear(&r1);
		tm_merge_result_clear(&r2);
		mt_case_free(&g);
	}
	/* the generator reaches both outcomes */
	ck_assert_uint_gt(clean, CASES / 2);
	ck_assert_uint_lt(clean, CASES);
}
END_TEST

Suite *merge_lines_suite(void)
{
	Suite *s = suite_create("merge_lines");
	TCase *tc;

	tc = tcase_create("lists");
	tcase_add_test(tc, test_merge_lines_every_list_kind_united);
	tcase_add_test(tc, test_merge_lines_numbered_lists_renumbered);
	tcase_add_test(tc, test_merge_lines_sub_items_move_with_their_item);
	tcase_add_test(tc, test_merge_lines_reworded_items);
	tcase_add_test(tc, test_merge_lines_insertions_at_one_place_kept);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_merge_lines_long_section_linear);
	tcase_add_test(tc,
		       test_merge_lines_over_1mib_is_line_merge_in_conflict);
	suite_add_tcase(s, tc);

	tc = tcase_create("sections");
	tcase_add_test(tc, test_merge_lines_sections_renamed_repeated_moved);
	tcase_add_test(tc, test_merge_lines_frontmatter_lists_and_review_point);
	suite_add_tcase(s, tc);

	tc = tcase_create("property");
	tcase_set_timeout(tc, 300); /* a hang guard */
	tcase_add_test(tc, test_merge_lines_property_symmetric);
	suite_add_tcase(s, tc);
	return s;
}
