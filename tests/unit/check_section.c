/* Unit tests of lib/format/section.c: splitting, finding, appending, merging.
 */
#include "threadmind/section.h"
#include "threadmind/buf.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static void split(tm_section_list *l, const char *text)
{
	memset(l, 0, sizeof(*l));
	tm_section_split(l, text, strlen(text));
}

/* The joined text of a list (malloc'd). */
static char *joined(const tm_section_list *l)
{
	tm_buf b = TM_BUF_INIT;

	tm_section_join(&b, l);
	tm_buf_putc(&b, '\0');
	return tm_buf_detach(&b);
}

static void assert_section(const tm_section_list *l, size_t i,
			   const char *heading, const char *text)
{
	const tm_section *s;

	ck_assert_uint_lt(i, l->n);
	s = &l->items[i];
	if (heading)
		ck_assert_str_eq(s->heading, heading);
	else
		ck_assert_ptr_null(s->heading);
	ck_assert_uint_eq(s->len, strlen(text));
	ck_assert_str_eq(s->text, text);
}

static void check_merge(const char *into, const char *from, const char *want)
{
	tm_buf out = TM_BUF_INIT;

	tm_section_merge(&out, into, strlen(into), from, strlen(from));
	ck_assert_str_eq(tm_buf_cstr(&out), want);
	tm_buf_release(&out);
}

static void check_append(const char *text, const char *heading, const char *add,
			 const char *want)
{
	tm_section_list l;
	char *got;

	split(&l, text);
	tm_section_append(&l, heading, add, strlen(add));
	got = joined(&l);
	ck_assert_str_eq(got, want);
	free(got);
	tm_section_list_clear(&l);
}

/* ---- split ---- */

START_TEST(test_section_split_preamble_and_headings)
{
	static const char text[] = "intro\n\n## Decisions\n- a\n\n## State\n"
				   "- b\n";
	tm_section_list l;

	split(&l, text);
	ck_assert_uint_eq(l.n, 3);
	assert_section(&l, 0, NULL, "intro\n\n");
	assert_section(&l, 1, "Decisions", "## Decisions\n- a\n\n");
	assert_section(&l, 2, "State", "## State\n- b\n");
	ck_assert_uint_eq(l.items[1].body, strlen("## Decisions\n"));
	ck_assert_uint_eq(l.items[0].body, 0);
	tm_section_list_clear(&l);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_ptr_null(l.items);
}
END_TEST

START_TEST(test_section_split_empty_preamble)
{
	tm_section_list l;

	split(&l, "## A\nx\n");
	ck_assert_uint_eq(l.n, 2);
	assert_section(&l, 0, NULL, "");
	assert_section(&l, 1, "A", "## A\nx\n");
	tm_section_list_clear(&l);
}
END_TEST

START_TEST(test_section_split_empty_text)
{
	tm_section_list l;

	split(&l, "");
	ck_assert_uint_eq(l.n, 1);
	assert_section(&l, 0, NULL, "");
	tm_section_list_clear(&l);
}
END_TEST

START_TEST(test_section_split_other_levels_do_not_split)
{
	tm_section_list l;

	split(&l, "# Title\n### Sub\n##NoSpace\n####\n    ## code\n");
	ck_assert_uint_eq(l.n, 1);
	tm_section_list_clear(&l);
}
END_TEST

START_TEST(test_section_split_heading_forms)
{
	tm_section_list l;

	split(&l, "   ## Indented\n##\tTab  ##\n##\n## A # b\n## x\r\n");
	ck_assert_uint_eq(l.n, 6);
	ck_assert_str_eq(l.items[1].heading, "Indented");
	ck_assert_str_eq(l.items[2].heading, "Tab");
	ck_assert_str_eq(l.items[3].heading, "");
	ck_assert_str_eq(l.items[4].heading, "A # b");
	ck_assert_str_eq(l.items[5].heading, "x");
	tm_section_list_clear(&l);
}
END_TEST

START_TEST(test_section_split_skips_fenced_code)
{
	static const char text[] = "## A\n```sh\n## not a heading\n```\n"
				   "~~~~\n## no\n~~~\n## still no\n~~~~\n"
				   "## B\n";
	tm_section_list l;

	split(&l, text);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.items[1].heading, "A");
	ck_assert_str_eq(l.items[2].heading, "B");
	ck_assert_uint_eq(l.items[1].len, strlen(text) - strlen("## B\n"));
	tm_section_list_clear(&l);
}
END_TEST

START_TEST(test_section_split_join_round_trips)
{
	static const char *const texts[] = {
		"",
		"no newline",
		"## A",
		"\n\n## A\n\n\n## B\n",
		"pre\n## A\n```\n## x\n",
		"## A\r\nx\r\n## B\r\n",
	};
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		tm_section_list l;
		char *got;

		split(&l, texts[i]);
		got = joined(&l);
		ck_assert_str_eq(got, texts[i]);
		free(got);
		tm_section_list_clear(&l);
	}
}
END_TEST

/* ---- find ---- */

START_TEST(test_section_find_by_heading)
{
	tm_section_list l;

	split(&l, "p\n## Decisions\n## Next  steps\n## État\n## Decisions\n");
	ck_assert_int_eq(tm_section_find(&l, NULL), 0);
	ck_assert_int_eq(tm_section_find(&l, "Decisions"), 1);
	ck_assert_int_eq(tm_section_find(&l, " decisions "), 1);
	ck_assert_int_eq(tm_section_find(&l, "NEXT steps"), 2);
	ck_assert_int_eq(tm_section_find(&l, "état"), 3);
	ck_assert_int_eq(tm_section_find(&l, "Etat"), -1);
	ck_assert_int_eq(tm_section_find(&l, "Decision"), -1);
	ck_assert_int_eq(tm_section_find(&l, ""), -1);
	tm_section_list_clear(&l);
}
END_TEST

START_TEST(test_section_find_invalid_utf8_bytewise)
{
	tm_section_list l;

	split(&l, "## a\xff\n");
	ck_assert_int_eq(tm_section_find(&l, "a\xff"), 1);
	ck_assert_int_eq(tm_section_find(&l, "A\xff"), -1);
	tm_section_list_clear(&l);
}
END_TEST

/* ---- append ---- */

START_TEST(test_section_append_list_joins_list)
{
	check_append("## A\n- a\n\n## B\n- b\n", "A", "\n- c\n\n",
		     "## A\n- a\n- c\n\n## B\n- b\n");
}
END_TEST

START_TEST(test_section_append_paragraph_gets_blank_line)
{
	check_append("## A\nSome text.\n## B\n", "A", "More.",
		     "## A\nSome text.\n\nMore.\n\n## B\n");
	check_append("## A\n- a\n", "A", "Para.", "## A\n- a\n\nPara.\n");
	check_append("## A\n1. one\n", "A", "2) two", "## A\n1. one\n2) two\n");
}
END_TEST

START_TEST(test_section_append_empty_section)
{
	check_append("## A\n## B\n", "A", "x", "## A\nx\n\n## B\n");
	check_append("## A", "A", "x", "## A\nx\n");
}
END_TEST

START_TEST(test_section_append_no_final_newline)
{
	check_append("## A\n- a", "A", "- b", "## A\n- a\n- b\n");
}
END_TEST

START_TEST(test_section_append_new_section_at_end)
{
	check_append("## A\n- a\n", "New", "- n\n",
		     "## A\n- a\n\n## New\n- n\n");
	check_append("## A\n- a\n\n", "New", "n", "## A\n- a\n\n## New\nn\n");
	check_append("", "New", "n", "## New\nn\n");
	check_append("pre", "", "n", "pre\n\n##\nn\n");
}
END_TEST

START_TEST(test_section_append_new_section_is_found)
{
	tm_section_list l;
	char *got;

	split(&l, "## A\n");
	tm_section_append(&l, "B", "- 1", 3);
	tm_section_append(&l, "b", "- 2", 3);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.items[2].heading, "B");
	got = joined(&l);
	ck_assert_str_eq(got, "## A\n\n## B\n- 1\n- 2\n");
	free(got);
	tm_section_list_clear(&l);
}
END_TEST

START_TEST(test_section_append_preamble)
{
	check_append("## A\nx\n", NULL, "intro", "intro\n\n## A\nx\n");
	check_append("pre\n\n## A\n", NULL, "more", "pre\n\nmore\n\n## A\n");
	check_append("", NULL, "only\n", "only\n");
}
END_TEST

START_TEST(test_section_append_blank_text_changes_nothing)
{
	check_append("## A\n- a\n", "A", " \n\t\n", "## A\n- a\n");
	check_append("## A\n- a\n", "Other", "", "## A\n- a\n");
}
END_TEST

START_TEST(test_section_append_keeps_inner_blank_lines)
{
	check_append("## A\n", "A", "\n\np1\n\n\np2\n\n", "## A\np1\n\n\np2\n");
}
END_TEST

/* ---- merge ---- */

START_TEST(test_section_merge_same_named_sections)
{
	check_merge("## Decisions\n- parent decision\n\n## State\n- p state\n",
		    "## State\n- child state\n\n## Decisions\n- child dec\n",
		    "## Decisions\n- parent decision\n- child dec\n\n"
		    "## State\n- p state\n- child state\n");
}
END_TEST

START_TEST(test_section_merge_new_sections_at_end_in_order)
{
	check_merge("## Decisions\n- d\n",
		    "## Open questions\n- q\n\n## Next steps\n- n\n",
		    "## Decisions\n- d\n\n## Open questions\n- q\n\n"
		    "## Next steps\n- n\n");
}
END_TEST

START_TEST(test_section_merge_preamble_under_preamble)
{
	check_merge("Parent intro.\n\n## A\n- a\n",
		    "Child intro.\n\n## A\n- b\n",
		    "Parent intro.\n\nChild intro.\n\n## A\n- a\n- b\n");
	check_merge("## A\n- a\n", "Child intro.\n",
		    "Child intro.\n\n## A\n- a\n");
}
END_TEST

START_TEST(test_section_merge_untouched_sections_keep_bytes)
{
	static const char into[] = "## A\n\n  odd   spacing  \n\n\n## B\n- b\n";

	check_merge(into, "## B\n- c\n",
		    "## A\n\n  odd   spacing  \n\n\n## B\n- b\n- c\n");
}
END_TEST

START_TEST(test_section_merge_empty_sides)
{
	check_merge("## A\n- a\n", "", "## A\n- a\n");
	check_merge("", "## A\n- a\n", "## A\n- a\n");
	check_merge("", "", "");
}
END_TEST

START_TEST(test_section_merge_case_insensitive_and_fences)
{
	check_merge("## Décisions\n- a\n", "## DÉCISIONS\n```\n## not\n```\n",
		    "## Décisions\n- a\n\n```\n## not\n```\n");
}
END_TEST

START_TEST(test_section_merge_duplicate_child_sections)
{
	check_merge("## A\n- a\n", "## A\n- 1\n## A\n- 2\n",
		    "## A\n- a\n- 1\n- 2\n");
}
END_TEST

static void check_merge_under(const char *into, const char *from,
			      const char *heading, const char *want)
{
	tm_buf out = TM_BUF_INIT;

	tm_section_merge_under(&out, into, strlen(into), from, strlen(from),
			       heading);
	ck_assert_str_eq(tm_buf_cstr(&out), want);
	tm_buf_release(&out);
}

START_TEST(test_section_merge_under_heading)
{
	static const char into[] = "Intro.\n\n## Decisions\n- a\n\n"
				   "## State\n- b\n";

	/* the preamble of `from` under the section named, its sections
	 * under theirs */
	check_merge_under(into, "- c\n\n## Decisions\n- d\n", "state",
			  "Intro.\n\n## Decisions\n- a\n- d\n\n## State\n"
			  "- b\n- c\n");
	/* a section the summary lacks is added at the end */
	check_merge_under(into, "- e\n", "Next steps",
			  "Intro.\n\n## Decisions\n- a\n\n## State\n- b\n"
			  "\n## Next steps\n- e\n");
	/* NULL: as tm_section_merge */
	check_merge_under(into, "More.\n", NULL,
			  "Intro.\n\nMore.\n\n## Decisions\n- a\n\n"
			  "## State\n- b\n");
	/* into an empty summary */
	check_merge_under("", "- x\n", "State", "## State\n- x\n");
}
END_TEST

static bool item(const char *line)
{
	return tm_section_is_list_item(line, line + strlen(line));
}

START_TEST(test_section_is_list_item)
{
	static const char *const yes[] = {
		"- a",    "* a",  "+ a",          "-\ta", "  - a",
		"\t1. a", "1) a", "123456789. a", "- ",
	};
	static const char *const no[] = {
		"",    "-",   "-a",  "--- a",         "a - b",
		"1.a", "1 a", ". a", "1234567890. a", "## a",
		"1.",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		ck_assert_msg(item(yes[i]), "'%s' is a list item", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(*no); i++)
		ck_assert_msg(!item(no[i]), "'%s' is no list item", no[i]);
	/* the line ends at e, whatever follows */
	ck_assert(!tm_section_is_list_item(yes[0], yes[0] + 1));
}
END_TEST

Suite *section_suite(void)
{
	Suite *s = suite_create("section");
	TCase *tc;

	tc = tcase_create("split");
	tcase_add_test(tc, test_section_split_preamble_and_headings);
	tcase_add_test(tc, test_section_split_empty_preamble);
	tcase_add_test(tc, test_section_split_empty_text);
	tcase_add_test(tc, test_section_split_other_levels_do_not_split);
	tcase_add_test(tc, test_section_split_heading_forms);
	tcase_add_test(tc, test_section_split_skips_fenced_code);
	tcase_add_test(tc, test_section_split_join_round_trips);
	suite_add_tcase(s, tc);

	tc = tcase_create("find");
	tcase_add_test(tc, test_section_find_by_heading);
	tcase_add_test(tc, test_section_find_invalid_utf8_bytewise);
	suite_add_tcase(s, tc);

	tc = tcase_create("append");
	tcase_add_test(tc, test_section_append_list_joins_list);
	tcase_add_test(tc, test_section_append_paragraph_gets_blank_line);
	tcase_add_test(tc, test_section_append_empty_section);
	tcase_add_test(tc, test_section_append_no_final_newline);
	tcase_add_test(tc, test_section_append_new_section_at_end);
	tcase_add_test(tc, test_section_append_new_section_is_found);
	tcase_add_test(tc, test_section_append_preamble);
	tcase_add_test(tc, test_section_append_blank_text_changes_nothing);
	tcase_add_test(tc, test_section_append_keeps_inner_blank_lines);
	tcase_add_test(tc, test_section_is_list_item);
	suite_add_tcase(s, tc);

	tc = tcase_create("merge");
	tcase_add_test(tc, test_section_merge_same_named_sections);
	tcase_add_test(tc, test_section_merge_new_sections_at_end_in_order);
	tcase_add_test(tc, test_section_merge_preamble_under_preamble);
	tcase_add_test(tc, test_section_merge_untouched_sections_keep_bytes);
	tcase_add_test(tc, test_section_merge_empty_sides);
	tcase_add_test(tc, test_section_merge_case_insensitive_and_fences);
	tcase_add_test(tc, test_section_merge_duplicate_child_sections);
	tcase_add_test(tc, test_section_merge_under_heading);
	suite_add_tcase(s, tc);
	return s;
}
