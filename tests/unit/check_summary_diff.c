/* Unit tests of lib/format/summary_diff.c: sections and items compared. */
#include "threadmind/summary_diff.h"

#include <check.h>
#include <string.h>

static void diff(tm_sdiff *d, const char *o, const char *n)
{
	memset(d, 0, sizeof(*d));
	tm_sdiff_summaries(d, o, strlen(o), n, strlen(n));
}

static const tm_sdiff_section *section(const tm_sdiff *d, size_t i,
				       tm_sdiff_section_change change,
				       const char *heading)
{
	const tm_sdiff_section *s;

	ck_assert_uint_lt(i, d->n);
	s = &d->items[i];
	ck_assert_int_eq(s->change, change);
	if (heading) {
		const char *h =
			s->new_heading ? s->new_heading : s->old_heading;

		ck_assert_ptr_nonnull(h);
		ck_assert_str_eq(h, heading);
	} else {
		ck_assert(s->preamble);
	}
	return s;
}

static void unit(const tm_sdiff_section *s, size_t i, tm_sdiff_change change,
		 const char *old_text, const char *new_text)
{
	const tm_sdiff_unit *u;

	ck_assert_uint_lt(i, s->nunits);
	u = &s->units[i];
	ck_assert_int_eq(u->change, change);
	if (old_text)
		ck_assert_str_eq(u->old_text, old_text);
	else
		ck_assert_ptr_null(u->old_text);
	if (new_text)
		ck_assert_str_eq(u->new_text, new_text);
	else
		ck_assert_ptr_null(u->new_text);
}

START_TEST(test_summary_diff_same)
{
	tm_sdiff d;

	diff(&d, "## Decisions\n- a\n- b\n", "## Decisions\n- a\n- b\n");
	ck_assert(!tm_sdiff_changed(&d));
	tm_sdiff_clear(&d);
	/* blank lines between and inside sections, CRs, a missing final
	 * newline: not a change */
	diff(&d, "## Decisions\n- a\n- b\n\n## State\nok\n",
	     "\n## Decisions\r\n- a\r\n\n- b\n\n\n\n## State\nok");
	ck_assert_uint_eq(d.n, 0);
	tm_sdiff_clear(&d);
	diff(&d, "", "");
	ck_assert_uint_eq(d.n, 0);
	tm_sdiff_clear(&d);
}
END_TEST

START_TEST(test_summary_diff_items_added_removed)
{
	tm_sdiff d;
	const tm_sdiff_section *s;
	size_t a, r, w, m;

	diff(&d, "## Decisions\n- keep\n- drop me\n- tail\n",
	     "## Decisions\n- keep\n- tail\n- new one\n");
	ck_assert_uint_eq(d.n, 1);
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "Decisions");
	ck_assert(!s->moved && !s->renamed);
	ck_assert_uint_eq(s->nunits, 2);
	unit(s, 0, TM_SDIFF_REMOVED, "- drop me", NULL);
	unit(s, 1, TM_SDIFF_ADDED, NULL, "- new one");
	ck_assert(s->units[1].item);
	tm_sdiff_totals(&d, &a, &r, &w, &m);
	ck_assert_uint_eq(a, 1);
	ck_assert_uint_eq(r, 1);
	ck_assert_uint_eq(w + m, 0);
	tm_sdiff_clear(&d);
}
END_TEST

START_TEST(test_summary_diff_reworded_is_one_change)
{
	tm_sdiff d;
	const tm_sdiff_section *s;

	/* one item for one, in place: reworded, whatever the words */
	diff(&d, "## Decisions\n- a\n- Redis\n- c\n",
	     "## Decisions\n- a\n- Memcached\n- c\n");
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "Decisions");
	ck_assert_uint_eq(s->nunits, 1);
	unit(s, 0, TM_SDIFF_REWORDED, "- Redis", "- Memcached");
	ck_assert_uint_eq(s->reworded, 1);
	ck_assert_uint_eq(s->added + s->removed, 0);
	tm_sdiff_clear(&d);
	/* among several: the ones sharing half their words */
	diff(&d,
	     "## Next steps\n- write the login form\n- ship it\n"
	     "- call the bank\n",
	     "## Next steps\n- write the signup form\n- order pizza\n"
	     "- call the bank twice\n");
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "Next steps");
	ck_assert_uint_eq(s->reworded, 2);
	ck_assert_uint_eq(s->added, 1);
	ck_assert_uint_eq(s->removed, 1);
	unit(s, 0, TM_SDIFF_REMOVED, "- ship it", NULL);
	unit(s, 1, TM_SDIFF_REWORDED, "- write the login form",
	     "- write the signup form");
	unit(s, 2, TM_SDIFF_ADDED, NULL, "- order pizza");
	unit(s, 3, TM_SDIFF_REWORDED, "- call the bank",
	     "- call the bank twice");
	tm_sdiff_clear(&d);
	/* a list item and a line are not rewordings of each other */
	diff(&d, "## A\n- item\n", "## A\nplain text\n");
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "A");
	ck_assert_uint_eq(s->reworded, 0);
	ck_assert_uint_eq(s->added, 1);
	ck_assert_uint_eq(s->removed, 1);
	tm_sdiff_clear(&d);
}
END_TEST

START_TEST(test_summary_diff_continuation_lines)
{
	tm_sdiff d;
	const tm_sdiff_section *s;

	diff(&d, "## A\n- one\n  more of one\n- two\n",
	     "## A\n- one\n  more of one, changed\n- two\n");
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "A");
	ck_assert_uint_eq(s->nunits, 1);
	unit(s, 0, TM_SDIFF_REWORDED, "- one\n  more of one",
	     "- one\n  more of one, changed");
	ck_assert(s->units[0].item);
	tm_sdiff_clear(&d);
	/* a nested item is an item of its own */
	diff(&d, "## A\n- one\n", "## A\n- one\n  - sub\n");
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "A");
	ck_assert_uint_eq(s->nunits, 1);
	unit(s, 0, TM_SDIFF_ADDED, NULL, "  - sub");
	tm_sdiff_clear(&d);
}
END_TEST

START_TEST(test_summary_diff_item_moved)
{
	tm_sdiff d;
	const tm_sdiff_section *s;

	diff(&d, "## A\n- one\n- two\n- three\n",
	     "## A\n- two\n- three\n- one\n");
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "A");
	ck_assert_uint_eq(s->nunits, 1);
	unit(s, 0, TM_SDIFF_MOVED, "- one", NULL);
	ck_assert_uint_eq(s->moved_units, 1);
	tm_sdiff_clear(&d);
}
END_TEST

START_TEST(test_summary_diff_sections_added_removed)
{
	tm_sdiff d;
	const tm_sdiff_section *s;

	diff(&d, "## Decisions\n- a\n\n## Notes\nold note\n",
	     "## Decisions\n- a\n\n## Open questions\n- why?\n- how?\n");
	ck_assert_uint_eq(d.n, 2);
	s = section(&d, 0, TM_SDIFF_SECTION_ADDED, "Open questions");
	ck_assert_ptr_null(s->old_heading);
	ck_assert_uint_eq(s->added, 2);
	unit(s, 1, TM_SDIFF_ADDED, NULL, "- how?");
	s = section(&d, 1, TM_SDIFF_SECTION_REMOVED, "Notes");
	ck_assert_ptr_null(s->new_heading);
	unit(s, 0, TM_SDIFF_REMOVED, "old note", NULL);
	ck_assert(!s->units[0].item);
	tm_sdiff_clear(&d);
	/* a removed section is listed where it was */
	diff(&d, "## A\n1\n## B\n2\n## C\n3\n", "## A\n1\n## C\n3\n");
	ck_assert_uint_eq(d.n, 1);
	section(&d, 0, TM_SDIFF_SECTION_REMOVED, "B");
	tm_sdiff_clear(&d);
}
END_TEST

START_TEST(test_summary_diff_sections_moved_renamed)
{
	tm_sdiff d;
	const tm_sdiff_section *s;

	diff(&d, "## A\n1\n## B\n2\n## C\n3\n", "## A\n1\n## C\n3\n## B\n2\n");
	ck_assert_uint_eq(d.n, 1);
	s = section(&d, 0, TM_SDIFF_SECTION_KEPT, "C");
	ck_assert(s->moved);
	ck_assert(!s->renamed);
	tm_sdiff_clear(&d);
	/* moved and changed (of two swapped, the later one stays put) */
	diff(&d, "## A\n1\n## B\n2\n", "## B\n2\n2b\n## A\n1\n");
	ck_assert_uint_eq(d.n, 1);
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "B");
	ck_assert(s->moved);
	unit(s, 0, TM_SDIFF_ADDED, NULL, "2b");
	tm_sdiff_clear(&d);
	/* renamed: the same items under another heading */
	diff(&d, "## Todo\n- x\n- y\n", "## Next steps\n- x\n- y\n");
	ck_assert_uint_eq(d.n, 1);
	s = section(&d, 0, TM_SDIFF_SECTION_KEPT, "Next steps");
	ck_assert(s->renamed);
	ck_assert_str_eq(s->old_heading, "Todo");
	tm_sdiff_clear(&d);
	/* the same heading spelled otherwise */
	diff(&d, "## next  steps\n- x\n", "## Next steps\n- x\n- z\n");
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "Next steps");
	ck_assert(s->renamed);
	ck_assert_str_eq(s->old_heading, "next  steps");
	tm_sdiff_clear(&d);
}
END_TEST

START_TEST(test_summary_diff_repeated_headings_and_preamble)
{
	tm_sdiff d;
	const tm_sdiff_section *s;

	diff(&d, "intro\n## Notes\na\n## Notes\nb\n",
	     "intro, longer\n## Notes\na\n## Notes\nb\nc\n");
	ck_assert_uint_eq(d.n, 2);
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, NULL);
	unit(s, 0, TM_SDIFF_REWORDED, "intro", "intro, longer");
	s = section(&d, 1, TM_SDIFF_SECTION_CHANGED, "Notes");
	ck_assert_uint_eq(s->nunits, 1);
	unit(s, 0, TM_SDIFF_ADDED, NULL, "c");
	tm_sdiff_clear(&d);
	/* a summary written from nothing: every section added */
	diff(&d, "", "## Decisions\n- a\n");
	ck_assert_uint_eq(d.n, 1);
	section(&d, 0, TM_SDIFF_SECTION_ADDED, "Decisions");
	tm_sdiff_clear(&d);
	/* a heading inside a fence does not split */
	diff(&d, "## A\n```\n## not\n```\n",
	     "## A\n```\n## not a heading\n```\n");
	ck_assert_uint_eq(d.n, 1);
	s = section(&d, 0, TM_SDIFF_SECTION_CHANGED, "A");
	unit(s, 0, TM_SDIFF_REWORDED, "## not", "## not a heading");
	tm_sdiff_clear(&d);
}
END_TEST

Suite *summary_diff_suite(void)
{
	Suite *s = suite_create("summary_diff");
	TCase *tc = tcase_create("sections");

	tcase_add_test(tc, test_summary_diff_same);
	tcase_add_test(tc, test_summary_diff_sections_added_removed);
	tcase_add_test(tc, test_summary_diff_sections_moved_renamed);
	tcase_add_test(tc, test_summary_diff_repeated_headings_and_preamble);
	suite_add_tcase(s, tc);
	tc = tcase_create("items");
	tcase_add_test(tc, test_summary_diff_items_added_removed);
	tcase_add_test(tc, test_summary_diff_reworded_is_one_change);
	tcase_add_test(tc, test_summary_diff_continuation_lines);
	tcase_add_test(tc, test_summary_diff_item_moved);
	suite_add_tcase(s, tc);
	return s;
}
