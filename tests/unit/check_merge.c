/*
 * Unit tests of lib/merge/merge.c: path kinds, the frontmatter field rules,
 * line ends and the text fallbacks.  Bodies and JSON: check_merge_body.c.
 */
#include "threadmind/merge.h"
#include "threadmind/frontmatter.h"
#include "merge_util.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(test_merge_kind_of_thread_path)
{
	char *id = NULL;

	ck_assert_int_eq(tm_merge_kind_of_path(
				 ".threadmind/threads/app/auth-ui.md", &id),
			 TM_MERGE_KIND_THREAD);
	ck_assert_str_eq(id, "auth-ui");
	free(id);
	id = NULL;
	ck_assert_int_eq(
		tm_merge_kind_of_path("sub/.threadmind/threads/a/x-2.md", &id),
		TM_MERGE_KIND_THREAD);
	ck_assert_str_eq(id, "x-2");
	free(id);
}
END_TEST

START_TEST(test_merge_kind_of_other_paths)
{
	char *id = NULL;

	ck_assert_int_eq(
		tm_merge_kind_of_path(".threadmind/projects/app.json", &id),
		TM_MERGE_KIND_PROJECT);
	ck_assert_int_eq(
		tm_merge_kind_of_path(".threadmind/threads/a/B.md", &id),
		TM_MERGE_KIND_TEXT);
	ck_assert_int_eq(
		tm_merge_kind_of_path(".threadmind/threads/a/b/c.md", &id),
		TM_MERGE_KIND_TEXT);
	ck_assert_int_eq(
		tm_merge_kind_of_path(".threadmind/threads/a/.md", &id),
		TM_MERGE_KIND_TEXT);
	ck_assert_int_eq(tm_merge_kind_of_path("threads/a/b.md", &id),
			 TM_MERGE_KIND_TEXT);
	ck_assert_int_eq(
		tm_merge_kind_of_path(".threadmind/threads/../b.md", &id),
		TM_MERGE_KIND_TEXT);
	ck_assert_int_eq(tm_merge_kind_of_path("README.md", &id),
			 TM_MERGE_KIND_TEXT);
	ck_assert_int_eq(tm_merge_kind_of_path(NULL, &id), TM_MERGE_KIND_TEXT);
	ck_assert_ptr_null(id);
}
END_TEST

/* Merge o, a, b and parse the result, which must be clean. */
static tm_thread *merged(const char *o, const char *a, const char *b)
{
	tm_merge_result r = mt_merge(o, a, b, NULL);
	tm_thread *t;

	ck_assert_msg(!r.conflicted, "conflicted:\n%s", r.data);
	ck_assert_int_eq(r.kind, TM_MERGE_KIND_THREAD);
	ck_assert_ptr_null(r.note);
	t = mt_parse(r.data, r.len);
	tm_merge_result_clear(&r);
	return t;
}

START_TEST(test_merge_field_one_side_beats_later_updated_at)
{
	char *a = mt_set(mt_base, "title", "Renamed by ours");
	char *b = mt_set(mt_base, "updatedAt", "2026-04-16T09:00:00.000Z");
	tm_thread *t = merged(mt_base, a, b);

	/* theirs is later, but only ours touched the title */
	ck_assert_str_eq(t->title, "Renamed by ours");
	ck_assert_str_eq(t->updated_at, "2026-04-16T09:00:00.000Z");
	tm_thread_free(t);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_field_updated_at_later_instant)
{
	/* 15:00+02:00 is 13:00Z: earlier, although greater as bytes */
	char *a = mt_set(mt_base, "updatedAt", "2026-04-15T15:00:00.000+02:00");
	char *b = mt_set(mt_base, "updatedAt", "2026-04-15T14:00:00.000Z");
	tm_thread *t = merged(mt_base, a, b), *u = merged(mt_base, b, a);

	ck_assert_str_eq(t->updated_at, "2026-04-15T14:00:00.000Z");
	ck_assert_str_eq(u->updated_at, "2026-04-15T14:00:00.000Z");
	tm_thread_free(t);
	tm_thread_free(u);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_field_created_at_same_instant)
{
	/* one instant written two ways: the smaller string, either way */
	char *a = mt_set(mt_base, "createdAt", "2026-04-15T12:00:00.000+02:00");
	char *b = mt_set(mt_base, "createdAt", "2026-04-15T10:00:00Z");
	tm_thread *t = merged(mt_base, a, b), *u = merged(mt_base, b, a);

	ck_assert_str_eq(t->created_at, "2026-04-15T10:00:00Z");
	ck_assert_str_eq(u->created_at, "2026-04-15T10:00:00Z");
	tm_thread_free(t);
	tm_thread_free(u);
	free(a);
	free(b);
}
END_TEST

/* Ours and theirs that both change `key`; theirs has the later updatedAt. */
static void check_leader_field(const char *key, const char *va, const char *vb,
			       const char *want)
{
	char *a0 = mt_set(mt_base, "updatedAt", "2026-04-15T13:00:00.000Z");
	char *b0 = mt_set(mt_base, "updatedAt", "2026-04-15T13:00:00.001Z");
	char *a = mt_set(a0, key, va), *b = mt_set(b0, key, vb);
	tm_merge_result r1 = mt_merge(mt_base, a, b, NULL);
	tm_merge_result r2 = mt_merge(mt_base, b, a, NULL);
	char line[256];

	snprintf(line, sizeof(line), "%s: %s", key, want);
	ck_assert_msg(mt_has_line(r1.data, line), "%s not in\n%s", line,
		      r1.data);
	ck_assert_str_eq(r1.data, r2.data);
	ck_assert(!r1.conflicted);
	tm_merge_result_clear(&r1);
	tm_merge_result_clear(&r2);
	free(a0);
	free(b0);
	free(a);
	free(b);
}

START_TEST(test_merge_field_branch_commit_follow_updated_at)
{
	check_leader_field("branch", "feat-a", "feat-b", "feat-b");
	check_leader_field("commit", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
			   "cccccccccccccccccccccccccccccccccccccccc",
			   "cccccccccccccccccccccccccccccccccccccccc");
}
END_TEST

START_TEST(test_merge_field_others_follow_updated_at)
{
	check_leader_field("title", "Title A", "Title B", "Title B");
	check_leader_field("parentId", "pa", "pb", "pb");
	check_leader_field("status", "done", "abandoned", "abandoned");
	check_leader_field("mergedInto", "ma", "mb", "mb");
	check_leader_field("reviewer", "alice", "bob", "bob");
}
END_TEST

START_TEST(test_merge_field_tie_broken_by_bytes)
{
	/* same updatedAt on both sides: the greater frontmatter wins */
	char *a0 = mt_set(mt_base, "updatedAt", "2026-04-15T13:00:00.000Z");
	char *a = mt_set(a0, "title", "Alpha");
	char *b = mt_set(a0, "title", "Beta");
	char *c0 = mt_set(a0, "status", "done");
	char *c = mt_set(c0, "commit",
			 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	char *d = mt_set(a0, "commit",
			 "cccccccccccccccccccccccccccccccccccccccc");
	tm_thread *t = merged(mt_base, a, b), *u = merged(mt_base, b, a);
	tm_thread *v, *w;

	ck_assert_str_eq(t->title, "Beta");
	ck_assert_str_eq(u->title, "Beta");
	tm_thread_free(t);
	tm_thread_free(u);
	/* "status: done" sorts above "branch: main": c leads, although
	 * its commit is the smaller value */
	v = merged(mt_base, c, d);
	w = merged(mt_base, d, c);
	ck_assert_str_eq(v->commit, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	ck_assert_str_eq(w->commit, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	ck_assert_str_eq(v->status, "done");
	tm_thread_free(v);
	tm_thread_free(w);
	free(a0);
	free(a);
	free(b);
	free(c0);
	free(c);
	free(d);
}
END_TEST

START_TEST(test_merge_field_id_from_file_name)
{
	char *a = mt_set(mt_base, "id", "other-a");
	char *b = mt_set(mt_base, "id", "other-b");
	tm_merge_result r = mt_merge(mt_base, a, b, NULL);

	ck_assert(mt_has_line(r.data, "id: t"));
	ck_assert_uint_eq(mt_count(r.data, "id:"), 1);
	tm_merge_result_clear(&r);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_field_paths_set_merge_order)
{
	/* base a b; ours drops b, adds c, d; theirs adds e, drops a */
	char *a = mt_set(mt_base, "paths", "[\"d\",\"src/a\",\"c\"]");
	char *b = mt_set(mt_base, "paths", "[\"src/b\",\"e\",\"d\"]");
	tm_merge_result r1 = mt_merge(mt_base, a, b, NULL);
	tm_merge_result r2 = mt_merge(mt_base, b, a, NULL);

	ck_assert(mt_has_line(r1.data, "paths: [\"d\",\"c\",\"e\"]"));
	ck_assert(mt_has_line(r2.data, "paths: [\"e\",\"d\",\"c\"]"));
	tm_merge_result_clear(&r1);
	tm_merge_result_clear(&r2);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_field_paths_one_side)
{
	char *a = mt_set(mt_base, "paths", "[\"src/b\",\"src/a\"]");
	char *b = mt_set(mt_base, "title", "Other");
	char *c = mt_set(mt_base, "paths", NULL);
	tm_thread *t = merged(mt_base, a, b), *u = merged(mt_base, b, c);

	ck_assert_uint_eq(t->paths.n, 2);
	ck_assert_str_eq(t->paths.items[0], "src/b");
	ck_assert(!u->has_paths);
	tm_thread_free(t);
	tm_thread_free(u);
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_merge_field_unknown_fields)
{
	char *a0 = mt_set(mt_base, "reviewer", "alice");
	char *a = mt_set(a0, "updatedAt", "2026-04-15T12:30:00.000Z");
	char *b = mt_set(mt_base, "ticket", "42");
	char *c = mt_set(a, "reviewer", "carol");
	char *d = mt_set(b, "reviewer", "dave");
	tm_merge_result r = mt_merge(mt_base, a, b, NULL);
	tm_merge_result s = mt_merge(mt_base, b, a, NULL);

	/* each side added one: both kept, the later side's first */
	ck_assert(mt_has_line(r.data, "reviewer: alice"));
	ck_assert(mt_has_line(r.data, "ticket: 42"));
	ck_assert(strstr(r.data, "reviewer") < strstr(r.data, "ticket"));
	ck_assert_str_eq(r.data, s.data);
	ck_assert(!r.conflicted);
	tm_merge_result_clear(&r);
	tm_merge_result_clear(&s);
	/* both added it differently: the later updatedAt decides */
	r = mt_merge(mt_base, d, c, NULL);
	ck_assert(mt_has_line(r.data, "reviewer: carol"));
	ck_assert(mt_has_line(r.data, "ticket: 42"));
	ck_assert_uint_eq(mt_count(r.data, "reviewer"), 1);
	tm_merge_result_clear(&r);
	free(a0);
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

START_TEST(test_merge_field_empty_ancestor)
{
	char *a = mt_set(mt_base, "title", "Added by ours");
	char *b0 = mt_set(mt_base, "title", "Added by theirs");
	char *b = mt_set(b0, "updatedAt", "2026-04-15T12:00:00.001Z");
	char *a2 = mt_body(a, "\n## Decisions\n- d1\n- from ours\n");
	char *b2 = mt_body(b, "\n## Decisions\n- d1\n- from theirs\n");
	tm_merge_result r = mt_merge("", a2, b2, NULL);
	tm_thread *t = mt_parse(r.data, r.len);

	ck_assert_str_eq(t->title, "Added by theirs");
	ck_assert_str_eq(t->created_at, "2026-04-15T10:00:00.000Z");
	/* the same added section: its new items are united */
	ck_assert(!r.conflicted);
	ck_assert(mt_has_line(r.data, "- from ours"));
	ck_assert(mt_has_line(r.data, "- from theirs"));
	ck_assert_uint_eq(mt_count(r.data, "- d1"), 1);
	tm_thread_free(t);
	tm_merge_result_clear(&r);
	free(a);
	free(b0);
	free(b);
	free(a2);
	free(b2);
}
END_TEST

START_TEST(test_merge_unchanged_side_gives_other_verbatim)
{
	char *a = mt_set(mt_base, "title", "Only ours");
	char *odd = mt_body(a, "not canonical\r\n");
	tm_merge_result r = mt_merge(mt_base, mt_base, odd, NULL);

	ck_assert_str_eq(r.data, odd);
	ck_assert(!r.conflicted);
	tm_merge_result_clear(&r);
	free(a);
	free(odd);
}
END_TEST

START_TEST(test_merge_crlf_of_ours_kept)
{
	char *oc = mt_crlf(mt_base);
	char *a = mt_set(mt_base, "title", "Ours");
	char *ac = mt_crlf(a);
	char *b = mt_body(mt_base, "\n## Decisions\n- d1\n- d2\n- d3\n");
	tm_merge_result r = mt_merge(oc, ac, b, NULL);
	tm_merge_result s = mt_merge(mt_base, b, ac, NULL);
	tm_thread *t = mt_parse(r.data, r.len);
	size_t i;

	ck_assert(t->crlf);
	ck_assert_str_eq(t->title, "Ours");
	ck_assert(mt_has_line(r.data, "- d3"));
	for (i = 0; i < r.len; i++)
		if (r.data[i] == '\n')
			ck_assert_msg(i > 0 && r.data[i - 1] == '\r',
				      "bare LF at %zu", i);
	/* ours LF, theirs CRLF: LF everywhere */
	ck_assert_ptr_null(strchr(s.data, '\r'));
	ck_assert(mt_has_line(s.data, "title: Ours"));
	tm_thread_free(t);
	tm_merge_result_clear(&r);
	tm_merge_result_clear(&s);
	free(oc);
	free(a);
	free(ac);
	free(b);
}
END_TEST

START_TEST(test_merge_fallback_not_a_thread)
{
	const char *a = "just some notes\nline two\n";
	char *b = mt_set(mt_base, "title", "Theirs");
	tm_merge_result r = mt_merge(mt_base, a, b, NULL);

	ck_assert_int_eq(r.kind, TM_MERGE_KIND_TEXT);
	ck_assert(r.conflicted);
	ck_assert_ptr_nonnull(r.note);
	ck_assert_msg(strstr(r.note, "ours is not a thread file"), "%s",
		      r.note);
	ck_assert(mt_has_line(r.data, "just some notes"));
	ck_assert(mt_has_line(r.data, "title: Theirs"));
	ck_assert(mt_has_line(r.data, "<<<<<<< ours"));
	tm_merge_result_clear(&r);
	free(b);
}
END_TEST

START_TEST(test_merge_body_markers_are_text)
{
	/* marker-looking lines in the body, alike on all sides: text */
	char *o = mt_body(mt_base, "\n## Decisions\n<<<<<<< Temporary merge "
				   "branch 1\n- x\n=======\n- y\n>>>>>>> "
				   "Temporary merge branch 2\n");
	char *a0 = mt_set(o, "title", "A");
	char *a = mt_set(a0, "updatedAt", "2026-04-15T12:00:00.001Z");
	char *b = mt_set(o, "updatedAt", "2026-04-15T12:00:00.002Z");
	tm_merge_result r = mt_merge(o, a, b, NULL);
	tm_thread *t;

	ck_assert_int_eq(r.kind, TM_MERGE_KIND_THREAD);
	ck_assert(!r.conflicted);
	ck_assert(!mt_header_has_markers(r.data, r.len));
	t = mt_parse(r.data, r.len);
	ck_assert_str_eq(t->title, "A");
	ck_assert_str_eq(t->updated_at, "2026-04-15T12:00:00.002Z");
	tm_thread_free(t);
	ck_assert(mt_has_line(r.data, "<<<<<<< Temporary merge branch 1"));
	tm_merge_result_clear(&r);
	free(o);
	free(a0);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_markers_in_ours_frontmatter_fall_back)
{
	const char *a = "---\nid: t\ntitle: Thread\nparentId: main\n"
			"<<<<<<< HEAD\nupdatedAt: 2026-04-15T12:00:00.001Z\n"
			"=======\nupdatedAt: 2026-04-15T12:00:00.002Z\n"
			">>>>>>> other\n---\n\n## Decisions\n- d1\n";
	char *b = mt_set(mt_base, "title", "Theirs");
	tm_merge_result r = mt_merge(mt_base, a, b, NULL);

	ck_assert_int_eq(r.kind, TM_MERGE_KIND_TEXT);
	ck_assert_ptr_nonnull(r.note);
	ck_assert_msg(strstr(r.note, "ours already holds conflict markers"),
		      "%s", r.note);
	/* the markers stay: the merge is not clean */
	ck_assert(mt_has_line(r.data, "<<<<<<< HEAD"));
	ck_assert(mt_has_line(r.data, "title: Theirs"));
	ck_assert(r.conflicted);
	tm_merge_result_clear(&r);
	free(b);
}
END_TEST

START_TEST(test_merge_criss_cross_ancestor_read_as_empty)
{
	/* git's virtual ancestor of a criss-cross merge: markers in its
	 * frontmatter and in a section */
	const char *o = "---\nid: t\ntitle: Thread\nparentId: main\n"
			"<<<<<<< Temporary merge branch 1\n"
			"updatedAt: 2026-04-15T12:00:00.001Z\n=======\n"
			"updatedAt: 2026-04-15T12:00:00.002Z\n"
			">>>>>>> Temporary merge branch 2\n---\n\n"
			"## Decisions\n- d1\n- d2\n\n## State\n"
			"<<<<<<< Temporary merge branch 1\nOne.\n=======\n"
			"Two.\n>>>>>>> Temporary merge branch 2\n";
	char *a1 = mt_body(mt_base, "\n## Decisions\n- d1\n- d2\n\n"
				    "## State\nOurs prose.\n- s1\n");
	char *a0 = mt_set(a1, "title", "A");
	char *a = mt_set(a0, "updatedAt", "2026-04-15T12:00:00.003Z");
	char *b0 = mt_body(mt_base, "\n## Decisions\n- d1\n- d2\n- d3\n\n"
				    "## State\nSome prose about the state.\n"
				    "- s1\n");
	char *b = mt_set(b0, "updatedAt", "2026-04-15T12:00:00.004Z");
	tm_merge_result r = mt_merge(o, a, b, NULL);
	tm_thread *t;
	char *body;

	ck_assert_int_eq(r.kind, TM_MERGE_KIND_THREAD);
	ck_assert(!mt_header_has_markers(r.data, r.len));
	t = mt_parse(r.data, r.len);
	/* both sides "added" every field: the later updatedAt leads */
	ck_assert_str_eq(t->updated_at, "2026-04-15T12:00:00.004Z");
	ck_assert_str_eq(t->title, "Thread");
	tm_thread_free(t);
	/* Decisions merges against the ancestor's; the conflict stays in
	 * State only */
	body = mt_body_of(r.data, r.len);
	ck_assert_msg(r.conflicted, "%s", r.data);
	ck_assert(strstr(body, "## Decisions\n- d1\n- d2\n- d3\n\n## State\n"));
	ck_assert_uint_eq(mt_count(body, "\n<<<<<<< "), 1);
	free(body);
	tm_merge_result_clear(&r);
	free(a1);
	free(a0);
	free(a);
	free(b0);
	free(b);
}
END_TEST

START_TEST(test_merge_fallback_binary)
{
	const char o[] = "base\n", a[] = "ours\0bin", b[] = "theirs\n";
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_merge_result r;
	const char want[] = "<<<<<<< ours\nours\0bin\n=======\ntheirs\n"
			    ">>>>>>> theirs\n";

	opts.path = MT_PATH;
	ck_assert_int_eq(tm_merge_files(&r, o, 5, a, 8, b, 7, &opts), 0);
	ck_assert(r.conflicted);
	ck_assert_int_eq(r.kind, TM_MERGE_KIND_TEXT);
	ck_assert_uint_eq(r.len, sizeof(want) - 1);
	ck_assert_mem_eq(r.data, want, r.len);
	ck_assert(strstr(r.note, "ours holds a NUL byte"));
	tm_merge_result_clear(&r);
}
END_TEST

START_TEST(test_merge_plain_option)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	char *a = mt_set(mt_base, "updatedAt", "2026-04-15T13:00:00.000Z");
	char *b = mt_set(mt_base, "updatedAt", "2026-04-15T14:00:00.000Z");
	tm_merge_result r;

	opts.plain = true;
	r = mt_merge(mt_base, a, b, &opts);
	ck_assert(r.conflicted);
	ck_assert_int_eq(r.kind, TM_MERGE_KIND_TEXT);
	ck_assert_ptr_null(r.note);
	ck_assert(mt_header_has_markers(r.data, r.len));
	tm_merge_result_clear(&r);
	opts.plain = false;
	r = mt_merge(mt_base, a, b, &opts);
	ck_assert(!r.conflicted);
	tm_merge_result_clear(&r);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_merge_text_path_merged_as_text)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_merge_result r;

	opts.path = "notes.txt";
	r = mt_merge("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n", &opts);
	ck_assert_str_eq(r.data, "A\nb\nC\n");
	ck_assert(!r.conflicted);
	ck_assert_int_eq(r.kind, TM_MERGE_KIND_TEXT);
	tm_merge_result_clear(&r);
	/* the thread merge would unite these; a text merge does not */
	r = mt_merge("x\n", "x\n- a\n", "x\n- b\n", &opts);
	ck_assert(r.conflicted);
	tm_merge_result_clear(&r);
}
END_TEST

/* Same id born on two branches: two threads, never fused. */
START_TEST(test_merge_two_threads_keeps_ours)
{
	char *a0 = mt_set(mt_base, "title", "Search");
	char *a = mt_body(a0, "\n## Decisions\n- ours decided\n");
	char *b0 = mt_set(a, "createdAt", "2026-04-15T09:00:00.000Z");
	char *b = mt_body(b0, "\n## Decisions\n- theirs decided\n");
	char *c = mt_set(a, "author", "au-zzzz");
	tm_merge_result r = mt_merge("", a, b, NULL);

	ck_assert(r.conflicted);
	ck_assert(r.two_threads);
	ck_assert_uint_eq(r.len, strlen(a));
	ck_assert_mem_eq(r.data, a, r.len);
	ck_assert_ptr_nonnull(strstr(r.note, "two threads 't'"));
	/* named by title and author; HEAD's side keeps the id */
	ck_assert_ptr_nonnull(strstr(r.note, "'Search' by au-1a2b, already in "
					     "HEAD, keeps the id"));
	ck_assert_ptr_nonnull(strstr(r.note, "git threadmind resolve"));
	ck_assert_ptr_null(strstr(r.note, "ours"));
	tm_merge_result_clear(&r);
	/* ours keeps the id, whichever was created first */
	ck_assert_int_eq(
		tm_merge_two_threads("", 0, a, strlen(a), b, strlen(b), "t"),
		1);
	ck_assert_int_eq(
		tm_merge_two_threads("", 0, b, strlen(b), a, strlen(a), "t"),
		1);
	/* same instant, another author */
	ck_assert_int_eq(
		tm_merge_two_threads("", 0, c, strlen(c), a, strlen(a), "t"),
		1);
	r = mt_merge("", c, a, NULL);
	ck_assert(r.two_threads);
	tm_merge_result_clear(&r);
	/* git's %Y label names the incoming side */
	{
		tm_merge_options o = TM_MERGE_OPTIONS_INIT;

		o.path = MT_PATH;
		o.their_label = "ana/search";
		r = mt_merge("", a, b, &o);
		ck_assert_ptr_nonnull(strstr(r.note, "'Search' by au-1a2b "
						     "(from 'ana/search') "
						     "takes"));
		tm_merge_result_clear(&r);
	}
	/* with an ancestor it is not an add/add */
	ck_assert_int_eq(tm_merge_two_threads(mt_base, strlen(mt_base), a,
					      strlen(a), b, strlen(b), "t"),
			 0);
	free(a0);
	free(a);
	free(b0);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_merge_two_threads_same_creation_is_one)
{
	char *a = mt_set(mt_base, "createdAt", "2026-04-15T10:00:00Z");
	char *b = mt_body(mt_base, "\n## Decisions\n- other\n");
	char *c = mt_set(b, "author", NULL);
	tm_merge_result r;

	/* the same instant written differently, the same author */
	ck_assert_int_eq(
		tm_merge_two_threads("", 0, a, strlen(a), b, strlen(b), "t"),
		0);
	r = mt_merge("", a, b, NULL);
	ck_assert(!r.two_threads);
	ck_assert(mt_has_line(r.data, "- other"));
	tm_merge_result_clear(&r);
	/* an author absent on one side does not count */
	ck_assert_int_eq(
		tm_merge_two_threads("", 0, a, strlen(a), c, strlen(c), "t"),
		0);
	/* a side that is not a thread file: no split */
	ck_assert_int_eq(
		tm_merge_two_threads("", 0, "x\n", 2, b, strlen(b), "t"), 0);
	free(a);
	free(b);
	free(c);
}
END_TEST

static tm_merge_identity identity(const char *o, const char *a, const char *b,
				  const char *id)
{
	return tm_merge_thread_identity(o, strlen(o), a, strlen(a), b,
					strlen(b), id);
}

/* An earlier split gave the id to another thread on one side. */
START_TEST(test_merge_identity_kinds)
{
	char *edit = mt_body(mt_base, "\n## Decisions\n- d1\n- d3\n");
	char *other0 = mt_set(mt_base, "author", "carol-9f9f");
	char *other = mt_set(other0, "title", "Other");
	char *later = mt_set(mt_base, "createdAt", "2026-04-16T10:00:00.000Z");
	char *both = mt_body(other, "\n## Decisions\n- carol\n");

	ck_assert_int_eq(identity(mt_base, edit, mt_base, "t"),
			 TM_MERGE_ONE_THREAD);
	ck_assert_int_eq(identity(mt_base, other, edit, "t"),
			 TM_MERGE_OURS_OTHER);
	ck_assert_int_eq(identity(mt_base, edit, other, "t"),
			 TM_MERGE_THEIRS_OTHER);
	/* another createdAt instant is another thread too */
	ck_assert_int_eq(identity(mt_base, later, edit, "t"),
			 TM_MERGE_OURS_OTHER);
	ck_assert_int_eq(identity(mt_base, other, later, "t"),
			 TM_MERGE_TWO_THREADS);
	ck_assert_int_eq(identity(mt_base, other, both, "t"),
			 TM_MERGE_BOTH_OTHER);
	ck_assert_int_eq(identity("", other, edit, "t"), TM_MERGE_TWO_THREADS);
	ck_assert_int_eq(identity("", edit, mt_base, "t"), TM_MERGE_ONE_THREAD);
	/* the root is one thread; a side that does not parse is not judged */
	ck_assert_int_eq(identity(mt_base, other, edit, "main"),
			 TM_MERGE_ONE_THREAD);
	ck_assert_int_eq(identity(mt_base, "x\n", edit, "t"),
			 TM_MERGE_ONE_THREAD);
	/* an ancestor that does not parse (criss-cross): the sides decide */
	ck_assert_int_eq(identity("<<<<<<< a\n", other, edit, "t"),
			 TM_MERGE_TWO_THREADS);
	ck_assert_int_eq(identity("<<<<<<< a\n", edit, mt_base, "t"),
			 TM_MERGE_ONE_THREAD);
	free(edit);
	free(other0);
	free(other);
	free(later);
	free(both);
}
END_TEST

/* The driver never merges an edit into another thread's file. */
START_TEST(test_merge_identity_never_fused)
{
	char *edit = mt_body(mt_base, "\n## Decisions\n- d1\n- alice\n");
	char *other0 = mt_set(mt_base, "author", "carol-9f9f");
	char *other1 = mt_set(other0, "title", "Other");
	char *other = mt_body(other1, "\n## Decisions\n- carol\n");
	char *both = mt_body(other1, "\n## Decisions\n- carol too\n");
	tm_merge_result r = mt_merge(mt_base, other, edit, NULL);
	tm_thread *t;

	ck_assert(r.conflicted);
	ck_assert(r.two_threads);
	ck_assert_str_eq(r.data, other);
	ck_assert_ptr_nonnull(strstr(r.note, "'t' is 'Other' by carol-9f9f "
					     "in HEAD, but the incoming edit "
					     "is to 'Thread' by au-1a2b"));
	ck_assert_ptr_nonnull(strstr(r.note, "git threadmind resolve"));
	tm_merge_result_clear(&r);
	r = mt_merge(mt_base, edit, other, NULL);
	ck_assert(r.two_threads);
	ck_assert_str_eq(r.data, edit);
	ck_assert_ptr_nonnull(strstr(r.note, "'t' is 'Other' by carol-9f9f "
					     "on the incoming side, but "
					     "HEAD's edit is to 'Thread' by "
					     "au-1a2b"));
	tm_merge_result_clear(&r);
	/* the same new thread on both sides: merged as an add/add */
	r = mt_merge(mt_base, other, both, NULL);
	ck_assert(!r.two_threads);
	t = mt_parse(r.data, r.len);
	ck_assert_str_eq(t->author, "carol-9f9f");
	tm_thread_free(t);
	ck_assert(mt_has_line(r.data, "- carol"));
	ck_assert(mt_has_line(r.data, "- carol too"));
	ck_assert(!mt_has_line(r.data, "- d1"));
	tm_merge_result_clear(&r);
	free(edit);
	free(other0);
	free(other1);
	free(other);
	free(both);
}
END_TEST

START_TEST(test_merge_has_conflict_markers)
{
	static const char conflict[] = "a\n<<<<<<< ours\nx\n=======\ny\n"
				       ">>>>>>> theirs\n";
	static const char fenced[] = "a\n```\n<<<<<<< ours\nx\n=======\n"
				     ">>>>>>> theirs\n```\n";
	static const char big[] = "<<<<<<<<< ours\nx\n>>>>>>>>> theirs";

	ck_assert(tm_conflict_markers_left(conflict, strlen(conflict)));
	ck_assert(tm_conflict_markers_left(big, strlen(big)));
	/* a fenced example is text */
	ck_assert(!tm_conflict_markers_left(fenced, strlen(fenced)));
	/* an opening alone, a closing of another size, a longer word */
	ck_assert(!tm_conflict_markers_left("<<<<<<< a\nb\n", 12));
	ck_assert(!tm_conflict_markers_left("<<<<<<< a\n>>>>>>>> b\n", 21));
	ck_assert(!tm_conflict_markers_left("<<<<<<<x\n>>>>>>>\n", 17));
	ck_assert(!tm_conflict_markers_left("", 0));
}
END_TEST

START_TEST(test_merge_markers_in_fields)
{
	static const struct {
		const char *text;
		bool json, found;
	} cases[] = {
		/* in the frontmatter: each kind of marker line */
		{"---\nid: a\n<<<<<<< ours\ntitle: A\n---\n", false, true},
		{"---\nid: a\n=======\n---\n", false, true},
		{"---\nid: a\n>>>>>>> theirs\n---\n", false, true},
		{"---\nid: a\n||||||| base\n---\n", false, true},
		{"---\r\nid: a\r\n=========\r\n---\r\n", false, true},
		{"\xef\xbb\xbf---\nid: a\n<<<<<<<\n---\n", false, true},
		/* the whole file in a conflict: its first line */
		{"<<<<<<< ours\n---\nid: a\n---\n", false, true},
		/* no closing fence: to the end */
		{"---\nid: a\nbody\n>>>>>>> x\n", false, true},
		/* in the body only, or not markers */
		{"---\nid: a\n---\n<<<<<<< o\na\n=======\nb\n>>>>>>> t\n",
		 false, false},
		{"---\ntitle: <<<<<<< x\n---\n", false, false},
		{"---\nid: a\n<<<<<<<x\n======= x\n======\n---\n", false,
		 false},
		{"no frontmatter\n<<<<<<< x\n", false, false},
		{"", false, false},
		/* a project file: anywhere */
		{"{\n  \"title\": \"x\",\n<<<<<<< ours\n}\n", true, true},
		{"{\n  \"title\": \"<<<<<<< x\"\n}\n", true, false},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		ck_assert_msg(tm_conflict_markers_in_fields(
				      cases[i].text, strlen(cases[i].text),
				      cases[i].json) == cases[i].found,
			      "case %zu", i);
}
END_TEST

/* An edit of a thread an earlier split moved: found by identity in the
 * same folder, merged there; none when no file carries the identity. */
START_TEST(test_merge_follow_worktree)
{
	static const char alice1[] =
		"---\nid: r\ntitle: R\nparentId: main\nauthor: alice-1\n"
		"createdAt: 2026-01-02T00:00:00.000Z\n---\n\n- one\n";
	static const char alice2[] =
		"---\nid: r\ntitle: R\nparentId: main\nauthor: alice-1\n"
		"createdAt: 2026-01-02T00:00:00.000Z\n---\n\n- one\n- two\n";
	static const char moved[] =
		"---\nid: r-2\ntitle: R\nparentId: main\nauthor: alice-1\n"
		"createdAt: 2026-01-02T00:00:00.000Z\n---\n\n- one\n";
	static const char carol[] =
		"---\nid: r\ntitle: R\nparentId: main\nauthor: carol-2\n"
		"createdAt: 2026-01-01T00:00:00.000Z\n---\n\n- c\n";
	char *tmp = tmt_mkdtemp(), *old = getcwd(NULL, 0), *to = NULL;
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_merge_result r;

	ck_assert_int_eq(chdir(tmp), 0);
	tmt_mkdirs(".threadmind/threads/p");
	tmt_write_file(".threadmind/threads/p/r.md", carol, strlen(carol));
	opts.path = ".threadmind/threads/p/r.md";
	ck_assert_int_eq(tm_merge_thread_identity(alice1, strlen(alice1), carol,
						  strlen(carol), alice2,
						  strlen(alice2), "r"),
			 TM_MERGE_OURS_OTHER);
	ck_assert_int_eq(tm_merge_follow_worktree(&to, &r, alice1,
						  strlen(alice1), alice2,
						  strlen(alice2), &opts),
			 0);
	tmt_write_file(".threadmind/threads/p/r-2.md", moved, strlen(moved));
	ck_assert_int_eq(tm_merge_follow_worktree(&to, &r, alice1,
						  strlen(alice1), alice2,
						  strlen(alice2), &opts),
			 1);
	ck_assert_str_eq(to, ".threadmind/threads/p/r-2.md");
	ck_assert(!r.conflicted);
	ck_assert_uint_eq(r.len, strlen(moved) + strlen("- two\n"));
	ck_assert(!memcmp(r.data, "---\nid: r-2\n", 12));
	ck_assert_ptr_nonnull(strstr(r.data, "- one\n- two\n"));
	tm_merge_result_clear(&r);
	free(to);
	ck_assert_int_eq(chdir(old), 0);
	tmt_rmtree(tmp);
	free(tmp);
	free(old);
}
END_TEST

Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc;

	tc = tcase_create("path");
	tcase_add_test(tc, test_merge_kind_of_thread_path);
	tcase_add_test(tc, test_merge_kind_of_other_paths);
	suite_add_tcase(s, tc);

	tc = tcase_create("fields");
	tcase_add_test(tc, test_merge_field_one_side_beats_later_updated_at);
	tcase_add_test(tc, test_merge_field_updated_at_later_instant);
	tcase_add_test(tc, test_merge_field_created_at_same_instant);
	tcase_add_test(tc, test_merge_field_branch_commit_follow_updated_at);
	tcase_add_test(tc, test_merge_field_others_follow_updated_at);
	tcase_add_test(tc, test_merge_field_tie_broken_by_bytes);
	tcase_add_test(tc, test_merge_field_id_from_file_name);
	tcase_add_test(tc, test_merge_field_paths_set_merge_order);
	tcase_add_test(tc, test_merge_field_paths_one_side);
	tcase_add_test(tc, test_merge_field_unknown_fields);
	tcase_add_test(tc, test_merge_field_empty_ancestor);
	suite_add_tcase(s, tc);

	tc = tcase_create("two-threads");
	tcase_add_test(tc, test_merge_two_threads_keeps_ours);
	tcase_add_test(tc, test_merge_two_threads_same_creation_is_one);
	tcase_add_test(tc, test_merge_identity_kinds);
	tcase_add_test(tc, test_merge_identity_never_fused);
	tcase_add_test(tc, test_merge_has_conflict_markers);
	tcase_add_test(tc, test_merge_markers_in_fields);
	suite_add_tcase(s, tc);

	tc = tcase_create("file");
	tcase_add_test(tc, test_merge_unchanged_side_gives_other_verbatim);
	tcase_add_test(tc, test_merge_crlf_of_ours_kept);
	suite_add_tcase(s, tc);

	tc = tcase_create("fallback");
	tcase_add_test(tc, test_merge_fallback_not_a_thread);
	tcase_add_test(tc, test_merge_body_markers_are_text);
	tcase_add_test(tc, test_merge_markers_in_ours_frontmatter_fall_back);
	tcase_add_test(tc, test_merge_criss_cross_ancestor_read_as_empty);
	tcase_add_test(tc, test_merge_fallback_binary);
	tcase_add_test(tc, test_merge_plain_option);
	tcase_add_test(tc, test_merge_text_path_merged_as_text);
	tcase_add_test(tc, test_merge_follow_worktree);
	suite_add_tcase(s, tc);
	return s;
}
