/*
 * Unit tests of the units a Markdown text is merged by and of their diff
 * (lib/merge/merge_diff.c): items with their continuation lines, fenced blocks,
 * keys without numbers, the diff's matches (patience anchors and small
 * gaps), ordered lists numbered and renumbered.
 */
#include "threadmind/buf.h"
#include "merge_internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void split(struct tm_merge__units *us, const char *text)
{
	tm_merge__units_split(us, text, strlen(text));
}

/* Unit i's bytes and key as C strings, compared with what is wanted. */
static void check_unit(const struct tm_merge__units *us, size_t i,
		       enum tm_merge__kind kind, const char *text,
		       const char *key)
{
	ck_assert_uint_lt(i, us->n);
	ck_assert_int_eq(us->u[i].kind, kind);
	ck_assert_uint_eq(us->u[i].len, strlen(text));
	ck_assert(!memcmp(us->u[i].p, text, strlen(text)));
	ck_assert_uint_eq(us->u[i].klen, strlen(key));
	ck_assert(!memcmp(us->u[i].key, key, strlen(key)));
}

START_TEST(test_merge_diff_units)
{
	struct tm_merge__units us;

	split(&us, "Some prose.\n\n- item\n  - sub\n\n  more about it\n"
		   "- next\n* star\n+ plus\n12. twelve\n3) three\n"
		   "```\n- not an item\n```\n   \nlast");
	ck_assert_uint_eq(us.n, 13);
	check_unit(&us, 0, TM_MERGE__PROSE, "Some prose.\n", "Some prose.");
	check_unit(&us, 1, TM_MERGE__BLANK, "\n", "");
	/* its sub-item and the indented paragraph after a blank line */
	check_unit(&us, 2, TM_MERGE__ITEM,
		   "- item\n  - sub\n\n  more about it\n",
		   "- item\n  - sub\n\n  more about it");
	check_unit(&us, 3, TM_MERGE__ITEM, "- next\n", "- next");
	check_unit(&us, 4, TM_MERGE__ITEM, "* star\n", "* star");
	check_unit(&us, 5, TM_MERGE__ITEM, "+ plus\n", "+ plus");
	/* numbers are not in the key */
	check_unit(&us, 6, TM_MERGE__ITEM, "12. twelve\n", "#. twelve");
	check_unit(&us, 7, TM_MERGE__ITEM, "3) three\n", "#) three");
	check_unit(&us, 8, TM_MERGE__PROSE, "```\n", "```");
	check_unit(&us, 9, TM_MERGE__PROSE, "- not an item\n", "- not an item");
	check_unit(&us, 10, TM_MERGE__PROSE, "```\n", "```");
	check_unit(&us, 11, TM_MERGE__BLANK, "   \n", "");
	check_unit(&us, 12, TM_MERGE__PROSE, "last", "last");
	ck_assert(tm_merge__unit_eq(&us, 1, &us, 11));
	tm_merge__units_free(&us);
}
END_TEST

/* The diff of two texts as "o:x" pairs of matched units. */
static char *matches(const char *o, const char *x)
{
	struct tm_merge__units uo, ux;
	size_t *mo, *mx, i;
	tm_buf b = TM_BUF_INIT;

	split(&uo, o);
	split(&ux, x);
	mo = calloc(uo.n + 1, sizeof(size_t));
	mx = calloc(ux.n + 1, sizeof(size_t));
	tm_merge__diff(mo, mx, &uo, &ux);
	for (i = 0; i < uo.n; i++) {
		if (mo[i] == TM_MERGE__NONE)
			continue;
		ck_assert_uint_eq(mx[mo[i]], i);
		tm_buf_printf(&b, "%s%zu:%zu", b.size ? " " : "", i, mo[i]);
	}
	free(mo);
	free(mx);
	tm_merge__units_free(&uo);
	tm_merge__units_free(&ux);
	return tm_buf_detach(&b);
}

START_TEST(test_merge_diff_matches)
{
	tm_buf o = TM_BUF_INIT, x = TM_BUF_INIT;
	char *m;
	int k;

	m = matches("- a\n- b\n- c\n", "- c\n- a\n- b\n");
	ck_assert_str_eq(m, "0:1 1:2"); /* c moved: not matched */
	free(m);
	m = matches("P\n\nQ\n", "P\n\nN\n\nQ\n");
	ck_assert_str_eq(m, "0:0 1:1 2:4");
	free(m);
	m = matches("1. a\n2. b\n", "1. z\n2. a\n3. b\n");
	ck_assert_str_eq(m, "0:1 1:2"); /* renumbered: the same items */
	free(m);
	/* a long list: anchors, not a quadratic table */
	for (k = 0; k < 30000; k++) {
		tm_buf_printf(&o, "- item %d\n", k);
		if (k != 7)
			tm_buf_printf(&x, "- item %d%s\n", k,
				      k == 20000 ? " (done)" : "");
	}
	tm_buf_puts(&x, "- new\n");
	m = matches(o.ptr, x.ptr);
	ck_assert_ptr_null(strstr(m, " 7:"));
	ck_assert_ptr_null(strstr(m, " 20000:"));
	ck_assert_ptr_nonnull(strstr(m, " 8:7 "));
	ck_assert_ptr_nonnull(strstr(m, " 29999:29998"));
	free(m);
	tm_buf_release(&o);
	tm_buf_release(&x);
}
END_TEST

START_TEST(test_merge_diff_numbered)
{
	tm_buf b = TM_BUF_INIT;
	const char *text = "1. a\n   - sub\n2. b\n\n3. c\n   1. x\n   2. y\n"
			   "4. d\n\nProse.\n\n5. e\n6. f\n";

	ck_assert(tm_merge__numbered_consecutively(text, strlen(text)));
	ck_assert(!tm_merge__numbered_consecutively("1. a\n1. b\n", 10));
	ck_assert(!tm_merge__numbered_consecutively("1) a\n3) b\n", 10));
	/* another delimiter, another list */
	ck_assert(tm_merge__numbered_consecutively("1. a\n1) b\n", 10));
	tm_buf_puts(&b, "# keep\n2. a\n2. b\n   5. x\n   5. y\n7. c\n- d\n"
			"4. e\n4. f\n");
	tm_merge__renumber(&b, 7);
	ck_assert_str_eq(b.ptr, "# keep\n2. a\n3. b\n   5. x\n   6. y\n4. c\n"
				"- d\n4. e\n5. f\n");
	tm_buf_release(&b);
}
END_TEST

Suite *merge_diff_suite(void)
{
	Suite *s = suite_create("merge_diff");
	TCase *tc = tcase_create("units");

	tcase_add_test(tc, test_merge_diff_units);
	tcase_add_test(tc, test_merge_diff_matches);
	tcase_add_test(tc, test_merge_diff_numbered);
	suite_add_tcase(s, tc);
	return s;
}
