/*
 * Unit tests of the body merge (lib/merge/merge_body.c: sections, list union,
 * markers) and of the project-file merge (lib/merge/merge_json.c).
 */
#include "threadmind/merge.h"
#include "threadmind/error.h"
#include "merge_util.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char body[] = MT_BASE_BODY;

/* Merge three bodies under the sample frontmatter. */
static tm_merge_result merge_bodies(const char *o, const char *a, const char *b,
				    const tm_merge_options *opts)
{
	char *fo = mt_body(mt_base, o), *fa = mt_body(mt_base, a);
	char *fb = mt_body(mt_base, b);
	tm_merge_result r = mt_merge(fo, fa, fb, opts);

	free(fo);
	free(fa);
	free(fb);
	return r;
}

/* The merged body, which must be clean. */
static char *clean_body(const char *o, const char *a, const char *b)
{
	tm_merge_result r = merge_bodies(o, a, b, NULL);
	char *got;

	ck_assert_msg(!r.conflicted, "conflicted:\n%s", r.data);
	got = mt_body_of(r.data, r.len);
	tm_merge_result_clear(&r);
	return got;
}

START_TEST(test_merge_body_one_sided_sections)
{
	char *got = clean_body(body,
			       "\n## Decisions\n- d1\n- d2 changed\n\n"
			       "## State\nSome prose about the state.\n- s1\n",
			       "\n## Decisions\n- d1\n- d2\n\n"
			       "## State\nOther prose.\n- s1\n");

	ck_assert_str_eq(got, "\n## Decisions\n- d1\n- d2 changed\n\n"
			      "## State\nOther prose.\n- s1\n");
	free(got);
}
END_TEST

START_TEST(test_merge_body_both_sided_clean)
{
	const char *o = "\n## State\none\ntwo\nthree\nfour\nfive\n";
	char *got = clean_body(o, "\n## State\nONE\ntwo\nthree\nfour\nfive\n",
			       "\n## State\none\ntwo\nthree\nfour\nFIVE\n");

	ck_assert_str_eq(got, "\n## State\nONE\ntwo\nthree\nfour\nFIVE\n");
	free(got);
}
END_TEST

START_TEST(test_merge_body_list_union_with_removals)
{
	/* both append to Decisions; ours also drops d1, theirs d2 → s1 */
	char *got = clean_body(body,
			       "\n## Decisions\n- d2\n- from ours\n\n"
			       "## State\nSome prose about the state.\n- s1\n",
			       "\n## Decisions\n- d1\n- d2\n- from theirs\n\n"
			       "## State\nSome prose about the state.\n");

	ck_assert_str_eq(got, "\n## Decisions\n- d2\n- from ours\n"
			      "- from theirs\n\n"
			      "## State\nSome prose about the state.\n");
	free(got);
}
END_TEST

START_TEST(test_merge_body_item_reworded_on_both_sides_conflicts)
{
	/* the same item reworded differently on both sides: a conflict on
	 * that item only, the rest merged */
	tm_merge_result r = merge_bodies(
		body,
		"\n## Decisions\n- d1 by ours\n- d2\n- d3\n\n## State\n"
		"Some prose about the state.\n- s1\n",
		"\n## Decisions\n- d1 by theirs\n- d2\n\n## State\n"
		"Some prose about the state.\n- s1\n- s2\n",
		NULL);
	char *got = mt_body_of(r.data, r.len);

	ck_assert(r.conflicted);
	ck_assert_str_eq(got, "\n## Decisions\n<<<<<<< ours\n- d1 by ours\n"
			      "=======\n- d1 by theirs\n>>>>>>> theirs\n"
			      "- d2\n- d3\n\n## State\n"
			      "Some prose about the state.\n- s1\n- s2\n");
	free(got);
	tm_merge_result_clear(&r);
	/* reworded on one side, deleted on the other: the rewording */
	got = clean_body(body, "\n## Decisions\n- d1 by ours\n- d2\n",
			 "\n## Decisions\n- d2\n");
	ck_assert_str_eq(got, "\n## Decisions\n- d1 by ours\n- d2\n");
	free(got);
}
END_TEST

START_TEST(test_merge_body_conflict_markers_in_section)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	char *o = mt_body(mt_base, body), *a0, *a, *b0, *b;
	char *pa, *pb;
	tm_merge_result r;

	opts.marker_size = 10;
	opts.our_label = "HEAD";
	opts.their_label = "feature";
	pa = mt_body(mt_base, "\n## Decisions\n- d1\n- d2\n\n## State\n"
			      "Ours rewrote the prose.\n- s1\n");
	pb = mt_body(mt_base, "\n## Decisions\n- d1\n- d2\n\n## State\n"
			      "Theirs rewrote it too.\n- s1\n");
	a0 = mt_set(pa, "title", "Ours");
	a = mt_set(a0, "updatedAt", "2026-04-15T12:00:00.001Z");
	b0 = mt_set(pb, "title", "Theirs");
	b = mt_set(b0, "updatedAt", "2026-04-15T12:00:00.002Z");
	r = mt_merge(o, a, b, &opts);
	ck_assert(r.conflicted);
	ck_assert_int_eq(r.kind, TM_MERGE_KIND_THREAD);
	ck_assert(!mt_header_has_markers(r.data, r.len));
	ck_assert(mt_has_line(r.data, "title: Theirs"));
	ck_assert(strstr(r.data,
			 "## State\n<<<<<<<<<< HEAD\nOurs rewrote the prose.\n"
			 "==========\nTheirs rewrote it too.\n"
			 ">>>>>>>>>> feature\n- s1\n"));
	ck_assert_uint_eq(mt_count(r.data, "<<<<<<<"), 1);
	tm_merge_result_clear(&r);
	free(o);
	free(pa);
	free(pb);
	free(a0);
	free(a);
	free(b0);
	free(b);
}
END_TEST

START_TEST(test_merge_body_diff3_shows_base)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	const char *a = "\n## State\nOurs.\n", *b = "\n## State\nTheirs.\n";
	const char *o = "\n## State\nBase prose.\n";
	tm_merge_result r;

	opts.style = TM_CONFLICT_STYLE_DIFF3;
	r = merge_bodies(o, a, b, &opts);
	ck_assert(strstr(r.data, "<<<<<<< ours\nOurs.\n||||||| base\n"
				 "Base prose.\n=======\nTheirs.\n"
				 ">>>>>>> theirs\n"));
	tm_merge_result_clear(&r);
	opts.style = TM_CONFLICT_STYLE_ZDIFF3;
	opts.ancestor_label = "merged common ancestors";
	r = merge_bodies(o, a, b, &opts);
	ck_assert(mt_has_line(r.data, "||||||| merged common ancestors"));
	ck_assert(mt_has_line(r.data, "Base prose."));
	tm_merge_result_clear(&r);
}
END_TEST

START_TEST(test_merge_body_sections_added_in_place)
{
	char *got = clean_body(body,
			       "\n## Decisions\n- d1\n- d2\n\n"
			       "## Constraints\n- c1\n\n"
			       "## State\nSome prose about the state.\n- s1\n",
			       "\n## Decisions\n- d1\n- d2\n\n"
			       "## State\nSome prose about the state.\n- s2\n\n"
			       "## Next steps\n- n1\n");

	ck_assert_str_eq(got, "\n## Decisions\n- d1\n- d2\n\n"
			      "## Constraints\n- c1\n\n"
			      "## State\nSome prose about the state.\n- s2\n\n"
			      "## Next steps\n- n1\n");
	free(got);
}
END_TEST

START_TEST(test_merge_body_sections_added_at_end_on_both_sides)
{
	const char *o = "\n## Decisions\n- d1\n";
	const char *a = "\n## Decisions\n- d1\n\n## Ours\n- x\n";
	const char *b = "\n## Decisions\n- d1\n\n## Theirs\n- y\n";
	char *got = clean_body(o, a, b), *swapped = clean_body(o, b, a);

	/* the same updatedAt: the greater body leads, its section first,
	 * whichever side is ours */
	ck_assert_str_eq(got, "\n## Decisions\n- d1\n\n## Theirs\n- y\n\n"
			      "## Ours\n- x\n");
	ck_assert_str_eq(swapped, got);
	free(got);
	free(swapped);
}
END_TEST

START_TEST(test_merge_body_section_deleted_when_unchanged)
{
	char *got = clean_body(body, "\n## Decisions\n- d1\n- d2\n\n",
			       "\n## Decisions\n- d1\n- d2\n- d3\n\n"
			       "## State\nSome prose about the state.\n- s1\n");

	ck_assert_str_eq(got, "\n## Decisions\n- d1\n- d2\n- d3\n\n");
	free(got);
}
END_TEST

START_TEST(test_merge_body_section_deleted_and_changed_as_emptied)
{
	/* ours deleted State, theirs changed its prose and added an item:
	 * merged as if ours had emptied it, theirs' changes stay under the
	 * heading, the line theirs left alone stays deleted */
	char *got = clean_body(body, "\n## Decisions\n- d1\n- d2\n\n",
			       "\n## Decisions\n- d1\n- d2\n\n"
			       "## State\nNew prose.\n- s1\n- s2\n");
	char *got2 = clean_body(body,
				"\n## Decisions\n- d1\n- d2\n\n"
				"## State\nNew prose.\n- s1\n- s2\n",
				"\n## Decisions\n- d1\n- d2\n\n");
	/* only lines deleted on the changing side: nothing is left */
	char *got3 = clean_body(body, "\n## Decisions\n- d1\n- d2\n",
				"\n## Decisions\n- d1\n- d2\n\n"
				"## State\nSome prose about the state.\n");

	ck_assert_str_eq(got, "\n## Decisions\n- d1\n- d2\n\n"
			      "## State\nNew prose.\n- s2\n");
	ck_assert_str_eq(got2, got);
	ck_assert_str_eq(got3, "\n## Decisions\n- d1\n- d2\n");
	free(got);
	free(got2);
	free(got3);
}
END_TEST

START_TEST(test_merge_body_append_after_edited_section)
{
	/* the blank line before a new section is no one's content */
	char *got = clean_body("\n## Next steps\n- Write tests\n",
			       "\n## Next steps\n- Write tests\n\n"
			       "## Risks\n- Token theft\n",
			       "\n## Next steps\n- Write tests\n- Ask Ana\n");

	ck_assert_str_eq(got, "\n## Next steps\n- Write tests\n- Ask Ana\n\n"
			      "## Risks\n- Token theft\n");
	free(got);
}
END_TEST

START_TEST(test_merge_body_last_section_deleted_stays_deleted)
{
	const char *o = "\n## Decisions\n- Use JWT\n\n## Next steps\n"
			"- Write tests\n";
	char *got = clean_body(o, "\n## Decisions\n- Use JWT\n",
			       "\n## Decisions\n- Use JWT\n\n## Next steps\n"
			       "- Write tests\n\n## Notes\n- Ask Ana\n");
	char *both = clean_body(o, "\n## Next steps\n- Write tests\n",
				"\n## Decisions\n- Use JWT\n");

	ck_assert_str_eq(got, "\n## Decisions\n- Use JWT\n\n## Notes\n"
			      "- Ask Ana\n");
	ck_assert_str_eq(both, "\n");
	free(got);
	free(both);
}
END_TEST

START_TEST(test_merge_body_item_added_alike_once)
{
	char *got = clean_body("\n## Next steps\n- Remove the fallback\n",
			       "\n## Next steps\n- Remove the fallback (done)\n"
			       "- Wire the exporter\n",
			       "\n## Next steps\n- Remove the fallback\n"
			       "- Wire the exporter\n");
	/* git merges these cleanly, the item twice */
	char *apart = clean_body("\n## L\n- a\n- b\n- c\n- d\n",
				 "\n## L\n- a\n- x\n- b\n- c\n- d\n",
				 "\n## L\n- a\n- b\n- c\n- d\n- x\n");

	ck_assert_str_eq(got, "\n## Next steps\n- Remove the fallback (done)\n"
			      "- Wire the exporter\n");
	ck_assert_str_eq(apart, "\n## L\n- a\n- x\n- b\n- c\n- d\n");
	free(got);
	free(apart);
}
END_TEST

START_TEST(test_merge_body_section_added_on_both_sides_one_list)
{
	const char *o = "\n## Decisions\n- d1\n\n## State\n- s1\n";
	const char *a = "\n## Decisions\n- d1\n\n## Risks\n- r1\n\n"
			"## State\n- s1\n";
	const char *b = "\n## Decisions\n- d1\n\n## State\n- s1\n\n"
			"## Risks\n- r2\n";
	char *got = clean_body(o, a, b), *swapped = clean_body(o, b, a);

	/* one section, at the leading side's place (theirs: the greater
	 * body), ours' items first */
	ck_assert_str_eq(got, "\n## Decisions\n- d1\n\n## State\n- s1\n\n"
			      "## Risks\n- r1\n- r2\n");
	ck_assert_str_eq(swapped, "\n## Decisions\n- d1\n\n## State\n- s1\n\n"
				  "## Risks\n- r2\n- r1\n");
	free(got);
	free(swapped);
}
END_TEST

START_TEST(test_merge_body_one_blank_line_between_sections)
{
	char *got = clean_body("\n## A\n- a\n\n\n## B\n- b\n",
			       "\n## A\n- a\n- a2\n\n\n## B\n- b\n",
			       "\n## A\n- a\n\n## B\n- b\n- b2\n\n\n## C\n"
			       "- c\n");

	ck_assert_str_eq(got, "\n## A\n- a\n- a2\n\n## B\n- b\n- b2\n\n## C\n"
			      "- c\n");
	free(got);
}
END_TEST

static const char project[] = "{\n"
			      "  \"id\": \"p\",\n"
			      "  \"title\": \"P\",\n"
			      "  \"systemContext\": \"one\\ntwo\\nthree\",\n"
			      "  \"mode\": \"solo\",\n"
			      "  \"rootThreadId\": \"main\"\n"
			      "}\n";

/* `project` with `from` replaced by `to` (malloc'd). */
static char *edit(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	size_t n;
	char *r;

	ck_assert_ptr_nonnull(at);
	n = strlen(s) - strlen(from) + strlen(to);
	r = malloc(n + 1);
	memcpy(r, s, (size_t)(at - s));
	strcpy(r + (at - s), to);
	strcat(r, at + strlen(from));
	return r;
}

static tm_merge_result merge_project(const char *o, const char *a,
				     const char *b)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;

	opts.path = MT_PROJECT;
	return mt_merge(o, a, b, &opts);
}

START_TEST(test_merge_json_keys_from_each_side)
{
	char *a = edit(project, "\"title\": \"P\"", "\"title\": \"Ours\"");
	char *b0 = edit(project, "\"solo\"", "\"team\"");
	char *b = edit(b0, "\"main\"\n",
		       "\"main\",\n  \"extra\": [\n    1\n  ]\n");
	char *c = edit(project, "  \"id\": \"p\",\n", "");
	tm_merge_result r = merge_project(project, a, b);
	tm_merge_result s = merge_project(project, c, a);

	ck_assert(!r.conflicted);
	ck_assert_int_eq(r.kind, TM_MERGE_KIND_PROJECT);
	ck_assert_str_eq(r.data, "{\n  \"id\": \"p\",\n  \"title\": \"Ours\",\n"
				 "  \"systemContext\": \"one\\ntwo\\nthree\",\n"
				 "  \"mode\": \"team\",\n"
				 "  \"rootThreadId\": \"main\",\n"
				 "  \"extra\": [\n    1\n  ]\n}\n");
	/* a key deleted on one side and unchanged on the other */
	ck_assert_ptr_null(strstr(s.data, "\"id\""));
	ck_assert(strstr(s.data, "\"title\": \"Ours\""));
	tm_merge_result_clear(&r);
	tm_merge_result_clear(&s);
	free(a);
	free(b0);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_merge_json_string_merged_by_line)
{
	char *a = edit(project, "one\\n", "ONE\\n");
	char *b = edit(project, "three", "THREE");
	tm_merge_result r = merge_project(project, a, b);

	ck_assert(!r.conflicted);
	ck_assert(strstr(r.data, "\"systemContext\": \"ONE\\ntwo\\nTHREE\""));
	tm_merge_result_clear(&r);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_json_key_conflict_markers)
{
	char *a = edit(project, "\"solo\"", "\"team\"");
	char *b0 = edit(project, "\"solo\"", "\"duo\"");
	char *b = edit(b0, "\"title\": \"P\"", "\"title\": \"Theirs\"");
	tm_merge_result r = merge_project(project, a, b);

	ck_assert(r.conflicted);
	ck_assert_int_eq(r.kind, TM_MERGE_KIND_PROJECT);
	ck_assert_str_eq(r.data,
			 "{\n  \"id\": \"p\",\n  \"title\": \"Theirs\",\n"
			 "  \"systemContext\": \"one\\ntwo\\nthree\",\n"
			 "<<<<<<< ours\n  \"mode\": \"team\",\n"
			 "=======\n  \"mode\": \"duo\",\n"
			 ">>>>>>> theirs\n"
			 "  \"rootThreadId\": \"main\"\n}\n");
	tm_merge_result_clear(&r);
	free(a);
	free(b0);
	free(b);
}
END_TEST

START_TEST(test_merge_json_string_conflict_markers)
{
	char *a = edit(project, "two", "ours");
	char *b = edit(project, "two", "theirs");
	tm_merge_result r = merge_project(project, a, b);

	ck_assert(r.conflicted);
	ck_assert(strstr(r.data,
			 "<<<<<<< ours\n  \"systemContext\": "
			 "\"one\\nours\\nthree\",\n=======\n"
			 "  \"systemContext\": \"one\\ntheirs\\nthree\","
			 "\n>>>>>>> theirs\n"));
	tm_merge_result_clear(&r);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_json_invalid_falls_back)
{
	char *a = edit(project, "\"solo\"", "solo");
	char *b = edit(project, "\"P\"", "\"Q\"");
	tm_merge_result r = merge_project(project, a, b);
	tm_merge_result s = merge_project(project, "[1]\n", b);

	ck_assert_int_eq(r.kind, TM_MERGE_KIND_TEXT);
	ck_assert_msg(strstr(r.note, "ours is not valid JSON"), "%s", r.note);
	/* the text merge still takes both changes */
	ck_assert(!r.conflicted);
	ck_assert(strstr(r.data, "\"mode\": solo,"));
	ck_assert(strstr(r.data, "\"title\": \"Q\""));
	ck_assert_int_eq(s.kind, TM_MERGE_KIND_TEXT);
	ck_assert(strstr(s.note, "ours is not a JSON object"));
	tm_merge_result_clear(&r);
	tm_merge_result_clear(&s);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_json_empty_ancestor)
{
	tm_merge_result r = merge_project("", "{\"a\": 1, \"b\": 2}",
					  "{\"b\": 2, \"c\": 3}");

	ck_assert(!r.conflicted);
	ck_assert_str_eq(r.data,
			 "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n");
	tm_merge_result_clear(&r);
}
END_TEST

/* cJSON's allocator, failing every allocation after the first `budget`. */
static long budget = -1;
static bool failed;

static void *failing_malloc(size_t n)
{
	if (budget == 0) {
		failed = true;
		return NULL;
	}
	if (budget > 0)
		budget--;
	return malloc(n);
}

/*
 * Any cJSON allocation may fail: the merge then reports TM_ERROR (never
 * a crash, never a file with a key silently missing), or falls back to a
 * text merge when a side could not be read.
 */
START_TEST(test_merge_json_out_of_memory)
{
	char *a = edit(project, "\"title\": \"P\"", "\"title\": \"Ours\"");
	char *b0 = edit(project, "\"solo\"", "\"team\"");
	char *b = edit(b0, "two", "2");
	char *c = edit(project, "\"title\": \"P\"", "\"title\": \"T\"");
	const char *theirs[2] = {b, c};
	cJSON_Hooks hooks = {failing_malloc, free};
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_merge_result want, got;
	long n;
	int k, rc;

	opts.path = MT_PROJECT;
	cJSON_InitHooks(&hooks);
	for (k = 0; k < 2; k++) {
		budget = -1;
		ck_assert_int_eq(tm_merge_files(&want, project, strlen(project),
						a, strlen(a), theirs[k],
						strlen(theirs[k]), &opts),
				 0);
		ck_assert_int_eq(want.kind, TM_MERGE_KIND_PROJECT);
		ck_assert(want.conflicted == (k == 1));
		for (n = 0;; n++) {
			budget = n;
			failed = false;
			memset(&got, 0, sizeof(got));
			rc = tm_merge_files(&got, project, strlen(project), a,
					    strlen(a), theirs[k],
					    strlen(theirs[k]), &opts);
			if (rc < 0) {
				ck_assert(failed);
				ck_assert_int_eq(rc, TM_ERROR);
				ck_assert_str_eq(
					tm_error_last(),
					"out of memory while merging a "
					"project file");
			} else if (got.kind == TM_MERGE_KIND_PROJECT) {
				ck_assert_str_eq(got.data, want.data);
			} else {
				ck_assert(failed);
				ck_assert_ptr_nonnull(got.note);
			}
			tm_merge_result_clear(&got);
			if (!failed)
				break;
		}
		ck_assert_int_gt(n, 10);
		tm_merge_result_clear(&want);
	}
	cJSON_InitHooks(NULL);
	free(a);
	free(b0);
	free(b);
	free(c);
}
END_TEST

Suite *merge_body_suite(void)
{
	Suite *s = suite_create("merge_body");
	TCase *tc;

	tc = tcase_create("sections");
	tcase_add_test(tc, test_merge_body_one_sided_sections);
	tcase_add_test(tc, test_merge_body_both_sided_clean);
	tcase_add_test(tc, test_merge_body_sections_added_in_place);
	tcase_add_test(tc, test_merge_body_sections_added_at_end_on_both_sides);
	tcase_add_test(tc, test_merge_body_section_deleted_when_unchanged);
	tcase_add_test(tc,
		       test_merge_body_section_deleted_and_changed_as_emptied);
	tcase_add_test(tc, test_merge_body_append_after_edited_section);
	tcase_add_test(tc, test_merge_body_last_section_deleted_stays_deleted);
	tcase_add_test(tc, test_merge_body_item_added_alike_once);
	tcase_add_test(tc,
		       test_merge_body_section_added_on_both_sides_one_list);
	tcase_add_test(tc, test_merge_body_one_blank_line_between_sections);
	suite_add_tcase(s, tc);

	tc = tcase_create("lists");
	tcase_add_test(tc, test_merge_body_list_union_with_removals);
	tcase_add_test(tc,
		       test_merge_body_item_reworded_on_both_sides_conflicts);
	suite_add_tcase(s, tc);

	tc = tcase_create("conflicts");
	tcase_add_test(tc, test_merge_body_conflict_markers_in_section);
	tcase_add_test(tc, test_merge_body_diff3_shows_base);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_test(tc, test_merge_json_keys_from_each_side);
	tcase_add_test(tc, test_merge_json_string_merged_by_line);
	tcase_add_test(tc, test_merge_json_key_conflict_markers);
	tcase_add_test(tc, test_merge_json_string_conflict_markers);
	tcase_add_test(tc, test_merge_json_invalid_falls_back);
	tcase_add_test(tc, test_merge_json_empty_ancestor);
	tcase_add_test(tc, test_merge_json_out_of_memory);
	suite_add_tcase(s, tc);
	return s;
}
