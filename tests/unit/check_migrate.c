/* Unit tests of lib/ops/migrate.c: the 0.4 trees/{project}.json upgrade. */
#include "threadmind/migrate.h"
#include "threadmind/error.h"
#include "store_internal.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;

static void setup(void)
{
	tmp = tmt_mkdtemp();
}

static void teardown(void)
{
	tmt_rmtree(tmp);
	free(tmp);
}

static const char *parent_in(const tm_migrate_index *idx, const char *id)
{
	size_t i;

	for (i = 0; i < idx->n; i++)
		if (!strcmp(idx->links[i].id, id))
			return idx->links[i].parent ? idx->links[i].parent
						    : "(root)";
	return "(absent)";
}

static void parse_ok(tm_migrate_index *idx, const char *json)
{
	ck_assert_msg(tm_migrate_parse_index(idx, json, strlen(json),
					     "trees/p.json") == 0,
		      "%s: %s", json, tm_error_last());
}

/* Every accepted shape gives auth-ui → auth, auth → main, main root. */
static void check_seed_links(const char *json)
{
	tm_migrate_index idx;

	parse_ok(&idx, json);
	ck_assert_uint_eq(idx.n, 3);
	ck_assert_str_eq(parent_in(&idx, "auth-ui"), "auth");
	ck_assert_str_eq(parent_in(&idx, "auth"), "main");
	ck_assert_str_eq(parent_in(&idx, "main"), "(root)");
	tm_migrate_index_clear(&idx);
}

START_TEST(test_migrate_shape_map_of_parents)
{
	check_seed_links("{\"main\": null, \"auth\": \"main\", "
			 "\"auth-ui\": \"auth\"}");
}
END_TEST

START_TEST(test_migrate_shape_map_of_objects)
{
	check_seed_links("{\"main\": {\"parentId\": null}, \"auth\": "
			 "{\"parentId\": \"main\", \"title\": \"Auth\"}, "
			 "\"auth-ui\": {\"parent\": \"auth\"}}");
}
END_TEST

START_TEST(test_migrate_shape_nodes_wrapper)
{
	check_seed_links("{\"version\": 2, \"nodes\": {\"main\": null, "
			 "\"auth\": \"main\", \"auth-ui\": \"auth\"}}");
}
END_TEST

START_TEST(test_migrate_shape_threads_array)
{
	check_seed_links("{\"threads\": [{\"id\": \"main\", \"parentId\": "
			 "null}, {\"id\": \"auth\", \"parentId\": \"main\"}, "
			 "{\"id\": \"auth-ui\", \"parent\": \"auth\"}]}");
}
END_TEST

START_TEST(test_migrate_shape_nested_tree)
{
	check_seed_links("{\"id\": \"main\", \"children\": [{\"id\": "
			 "\"auth\", \"children\": [{\"id\": \"auth-ui\", "
			 "\"children\": []}]}]}");
	check_seed_links("{\"root\": {\"id\": \"main\", \"children\": "
			 "[{\"id\": \"auth\", \"children\": [{\"id\": "
			 "\"auth-ui\", \"children\": []}]}]}}");
}
END_TEST

START_TEST(test_migrate_skips_bad_ids)
{
	tm_migrate_index idx;

	parse_ok(&idx, "{\"main\": null, \"../evil\": \"main\", \"Bad\": "
		       "\"main\"}");
	ck_assert_uint_eq(idx.n, 1);
	ck_assert_uint_eq(idx.skipped.n, 2);
	tm_migrate_index_clear(&idx);
}
END_TEST

START_TEST(test_migrate_rejects_garbage)
{
	tm_migrate_index idx;

	ck_assert_int_eq(tm_migrate_parse_index(&idx, "{\"a\": ", 6, "t.json"),
			 TM_EPARSE);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "t.json"));
	ck_assert_int_eq(tm_migrate_parse_index(&idx, "{}", 2, "t.json"),
			 TM_EPARSE);
	ck_assert_int_eq(tm_migrate_parse_index(&idx, "42", 2, "t.json"),
			 TM_EPARSE);
}
END_TEST

/* A copy of the seed store with trees/ and stats/ from 0.4. */
static tm_store *old_store(const char *trees_json)
{
	char *repo = tmt_join(tmp, "repo"), *src = tmt_resource("seed-example");
	char cmd[4096], *p;
	tm_store *s = NULL;

	tmt_mkdirs(repo);
	snprintf(cmd, sizeof(cmd), "cp -R '%s/.threadmind' '%s/'", src, repo);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(tm_store_open(&s, repo), 0);
	p = tmt_join(tm_store_dir(s), "trees/mon-app.json");
	tmt_write_file(p, trees_json, strlen(trees_json));
	free(p);
	p = tmt_join(tm_store_dir(s), "stats/mon-app.json");
	tmt_write_file(p, "{\"tokens\": 1}\n", 14);
	free(p);
	free(src);
	free(repo);
	return s;
}

static bool exists(tm_store *s, const char *rel)
{
	char *p = tmt_join(tm_store_dir(s), rel);
	struct stat st;
	bool r = lstat(p, &st) == 0;

	free(p);
	return r;
}

static const char old_index[] = "{\"main\": null, \"auth\": \"main\", "
				"\"auth-ui\": \"main\", \"gone\": \"main\"}";

START_TEST(test_migrate_run_aligns_and_deletes)
{
	tm_store *s = old_store(old_index);
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	tm_thread *t = NULL;

	ck_assert(tm_migrate_needed(s, false));
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth-ui"), 0);
	ck_assert_str_eq(t->parent_id, "main");
	/* A mechanical fix: updatedAt is not bumped. */
	ck_assert_str_eq(t->updated_at, "2026-04-15T12:30:00.000Z");
	ck_assert(!exists(s, "trees/mon-app.json"));
	ck_assert(!exists(s, "trees"));
	ck_assert(exists(s, "stats/mon-app.json"));
	ck_assert_uint_eq(report.n, 3);
	ck_assert_str_eq(report.items[0],
			 "mon-app/auth-ui: parent 'auth' -> 'main'");
	ck_assert_ptr_nonnull(strstr(report.items[1], "gone"));
	ck_assert_str_eq(report.items[2], "deleted trees/mon-app.json");
	ck_assert(!tm_migrate_needed(s, false));
	ck_assert(tm_migrate_needed(s, true));
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	tm_thread_free(t);
	tm_store_free(s);
}
END_TEST

START_TEST(test_migrate_dry_run_writes_nothing)
{
	tm_store *s = old_store(old_index);
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	tm_thread *t = NULL;

	ck_assert_int_eq(tm_migrate_run(&report, &left, s, true, true), 0);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth-ui"), 0);
	ck_assert_str_eq(t->parent_id, "auth");
	ck_assert(exists(s, "trees/mon-app.json"));
	ck_assert(exists(s, "stats/mon-app.json"));
	ck_assert_uint_eq(report.n, 4);
	ck_assert_str_eq(report.items[3], "would delete stats/mon-app.json");
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	tm_thread_free(t);
	tm_store_free(s);
}
END_TEST

START_TEST(test_migrate_prune_deletes_stats)
{
	tm_store *s = old_store(old_index);
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;

	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, true), 0);
	ck_assert(!exists(s, "stats"));
	ck_assert(!exists(s, "trees"));
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	tm_store_free(s);
}
END_TEST

START_TEST(test_migrate_keeps_index_when_a_thread_is_unreadable)
{
	tm_store *s = old_store(old_index);
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	char *p = tmt_join(tm_store_dir(s), "threads/mon-app/auth.md");
	tm_thread *t = NULL;

	tmt_write_file(p, "garbage\n", 8);
	/* Not an error: the rest is applied, the rest is reported. */
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	ck_assert_uint_eq(left.n, 1);
	ck_assert_ptr_nonnull(strstr(left.items[0], "auth.md"));
	ck_assert_ptr_nonnull(strstr(left.items[0], "git threadmind migrate"));
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth-ui"), 0);
	ck_assert_str_eq(t->parent_id, "main");
	tm_thread_free(t);
	/* The index is kept until the file is fixed. */
	ck_assert(exists(s, "trees/mon-app.json"));
	ck_assert(tm_migrate_needed(s, false));
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	free(p);
	tm_store_free(s);
}
END_TEST

START_TEST(test_migrate_unreadable_thread_not_in_index)
{
	tm_store *s = old_store("{\"main\": null, \"auth-ui\": \"main\"}");
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	char *p = tmt_join(tm_store_dir(s), "threads/mon-app/broken.md");

	tmt_write_file(p, "---\nid: broken\n", 15);
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	/* The index says nothing about it: the upgrade completes. */
	ck_assert_uint_eq(left.n, 0);
	ck_assert(!exists(s, "trees"));
	ck_assert(!tm_migrate_needed(s, false));
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	free(p);
	tm_store_free(s);
}
END_TEST

START_TEST(test_migrate_sets_aside_index_that_does_not_parse)
{
	tm_store *s = old_store("{\"main\": null,,}");
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;

	/* A dry run says it would, and does not. */
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, true, false), 0);
	ck_assert_uint_eq(report.n, 1);
	ck_assert_str_eq(report.items[0], "would set aside trees/mon-app.json "
					  "as trees/mon-app.json.invalid");
	ck_assert_uint_eq(left.n, 1);
	ck_assert_ptr_nonnull(strstr(left.items[0], "would set it aside"));
	ck_assert(exists(s, "trees/mon-app.json"));
	tm_strv_clear(&report);
	tm_strv_clear(&left);

	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	ck_assert_str_eq(report.items[0], "set aside trees/mon-app.json as "
					  "trees/mon-app.json.invalid");
	ck_assert_ptr_nonnull(strstr(left.items[0], "not valid JSON"));
	ck_assert(!exists(s, "trees/mon-app.json"));
	ck_assert(exists(s, "trees/mon-app.json.invalid"));
	ck_assert(!tm_migrate_needed(s, false));
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	tm_store_free(s);
}
END_TEST

START_TEST(test_migrate_sets_aside_index_with_only_bad_entries)
{
	tm_store *s = old_store("{\"Bad Id\": null, \"../x\": \"main\"}");
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	char *p = tmt_join(tm_store_dir(s), "trees/mon-app.json.invalid");

	/* A name already taken: the next free one. */
	tmt_write_file(p, "{}", 2);
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	ck_assert_uint_eq(report.n, 3);
	ck_assert_str_eq(report.items[0], "trees/mon-app.json: entry 'Bad Id' "
					  "skipped (not a valid thread id)");
	ck_assert_str_eq(report.items[1], "trees/mon-app.json: entry '../x' "
					  "skipped (not a valid thread id)");
	ck_assert_str_eq(report.items[2], "set aside trees/mon-app.json as "
					  "trees/mon-app.json.invalid-2");
	ck_assert_uint_eq(left.n, 1);
	ck_assert_ptr_nonnull(strstr(left.items[0], "none of its 2 entries"));
	ck_assert(exists(s, "trees/mon-app.json.invalid-2"));
	ck_assert(!tm_migrate_needed(s, false));
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	free(p);
	tm_store_free(s);
}
END_TEST

static int refreshes;

/* On the second refresh (after the first write), another process takes
 * the lock over: its file is replaced. */
static void take_over(tm_store *s, void *payload)
{
	(void)payload;
	if (++refreshes == 2)
		tmt_take_over_lock(tm_store_dir(s));
}

START_TEST(test_migrate_stops_when_lock_taken_over)
{
	tm_store *s = old_store("{\"auth\": null, \"auth-ui\": null}");
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	tm_thread *t = NULL;

	tm_store__set_refresh_hook(take_over, NULL, true);
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false),
			 TM_ELOCKED);
	tm_store__set_refresh_hook(NULL, NULL, false);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "lost the lock"));
	/* The first thread was aligned, the second was not, and the index
	 * was kept. */
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth"), 0);
	ck_assert_ptr_null(t->parent_id);
	tm_thread_free(t);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth-ui"), 0);
	ck_assert_str_eq(t->parent_id, "auth");
	tm_thread_free(t);
	ck_assert(exists(s, "trees/mon-app.json"));
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	tm_store_free(s);
}
END_TEST

START_TEST(test_migrate_is_04_index)
{
	ck_assert(tm_migrate_is_04_index(".threadmind/trees/p.json"));
	ck_assert(tm_migrate_is_04_index("sub/.threadmind/trees/p.json"));
	ck_assert(!tm_migrate_is_04_index("x.threadmind/trees/p.json"));
	ck_assert(!tm_migrate_is_04_index(".threadmind/trees/p/q.json"));
	ck_assert(!tm_migrate_is_04_index(".threadmind/trees/p.json.x.tmp"));
	ck_assert(!tm_migrate_is_04_index(".threadmind/threads/p/t.md"));
}
END_TEST

/* 0.4's empty id: the file .md gets an id from its title; the index and
 * the children follow; the entry is applied once. */
START_TEST(test_migrate_renames_empty_id)
{
	tm_store *s = old_store("{\"nodes\": {\"\": {\"parentId\": "
				"\"main\"}, \"auth\": {\"parentId\": \"\"}}}");
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	char *p = tmt_join(tm_store_dir(s), "threads/mon-app/.md");
	char *q = tmt_join(tm_store_dir(s), "threads/mon-app/auth-ui.md");
	static const char file[] =
		"---\nid: \ntitle: \xe8\xaa\x8d\xe8\xa8\xbc\n"
		"parentId: auth\nauthor: a\n---\n\nbody";
	static const char kid[] = "---\nid: auth-ui\ntitle: UI\nparentId: \n"
				  "author: a\n---\n";
	tm_thread *t = NULL;

	tmt_write_file(p, file, strlen(file));
	tmt_write_file(q, kid, strlen(kid));
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, true, false), 0);
	ck_assert(exists(s, "threads/mon-app/.md"));
	ck_assert_ptr_nonnull(strstr(report.items[0],
				     "would be renamed "
				     "threads/mon-app/thread.md"));
	tm_strv_clear(&report);
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	ck_assert_uint_eq(left.n, 0);
	ck_assert(!exists(s, "threads/mon-app/.md"));
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "thread"), 0);
	ck_assert_str_eq(t->parent_id, "main"); /* the index's */
	ck_assert_str_eq(t->body, "\nbody");
	tm_thread_free(t);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth"), 0);
	ck_assert_str_eq(t->parent_id, "thread");
	tm_thread_free(t);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth-ui"), 0);
	ck_assert_str_eq(t->parent_id, "thread");
	tm_thread_free(t);
	ck_assert(!exists(s, "trees/mon-app.json"));
	ck_assert(!tm_migrate_needed(s, false));
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	free(p);
	free(q);
	tm_store_free(s);
}
END_TEST

/* The kept index holds only what waits: a later run never applies an
 * entry twice (a move made meanwhile stays). */
START_TEST(test_migrate_applies_each_entry_once)
{
	tm_store *s = old_store(old_index);
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	char *p = tmt_join(tm_store_dir(s), "threads/mon-app/auth.md");
	char *idx = tmt_join(tm_store_dir(s), "trees/mon-app.json"), *data;
	tm_thread *t = NULL;

	tmt_write_file(p, "garbage\n", 8);
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	data = tmt_read_file(idx, NULL);
	ck_assert_str_eq(data, "{\n  \"nodes\": {\n    \"auth\": {\n      "
			       "\"parentId\": \"main\"\n    }\n  }\n}");
	free(data);
	/* a move after it, then the upgrade again */
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth-ui"), 0);
	tm_thread_set(&t->parent_id, "auth");
	ck_assert_int_eq(tm_store_save_thread(s, "mon-app", t), 0);
	tm_thread_free(t);
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	ck_assert_uint_eq(report.n, 0);
	ck_assert_uint_eq(left.n, 1);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth-ui"), 0);
	ck_assert_str_eq(t->parent_id, "auth");
	tm_thread_free(t);
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	free(idx);
	free(p);
	tm_store_free(s);
}
END_TEST

START_TEST(test_migrate_string_null_parent_is_root)
{
	tm_store *s = old_store("{\"main\": \"null\", \"auth\": \"null\"}");
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	tm_thread *t = NULL;

	ck_assert_int_eq(tm_migrate_run(&report, &left, s, false, false), 0);
	ck_assert_int_eq(tm_store_load_thread(&t, s, "mon-app", "auth"), 0);
	ck_assert_ptr_null(t->parent_id);
	tm_thread_free(t);
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	tm_store_free(s);
}
END_TEST

Suite *migrate_suite(void)
{
	Suite *s = suite_create("migrate");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_migrate_shape_map_of_parents);
	tcase_add_test(tc, test_migrate_shape_map_of_objects);
	tcase_add_test(tc, test_migrate_shape_nodes_wrapper);
	tcase_add_test(tc, test_migrate_shape_threads_array);
	tcase_add_test(tc, test_migrate_shape_nested_tree);
	tcase_add_test(tc, test_migrate_skips_bad_ids);
	tcase_add_test(tc, test_migrate_rejects_garbage);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_migrate_run_aligns_and_deletes);
	tcase_add_test(tc, test_migrate_dry_run_writes_nothing);
	tcase_add_test(tc, test_migrate_prune_deletes_stats);
	tcase_add_test(tc,
		       test_migrate_keeps_index_when_a_thread_is_unreadable);
	tcase_add_test(tc, test_migrate_unreadable_thread_not_in_index);
	tcase_add_test(tc, test_migrate_sets_aside_index_that_does_not_parse);
	tcase_add_test(tc, test_migrate_sets_aside_index_with_only_bad_entries);
	tcase_add_test(tc, test_migrate_string_null_parent_is_root);
	tcase_add_test(tc, test_migrate_is_04_index);
	tcase_add_test(tc, test_migrate_renames_empty_id);
	tcase_add_test(tc, test_migrate_applies_each_entry_once);
	tcase_add_test(tc, test_migrate_stops_when_lock_taken_over);
	suite_add_tcase(s, tc);
	return s;
}
