/* Unit tests of lib/ops/ops_project.c: project set, rename and remove. */
#include "threadmind/config.h"
#include "threadmind/error.h"
#include "threadmind/model.h"
#include "threadmind/ops_project.h"
#include "threadmind/store.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;
static tm_store *store;

static void setup(void)
{
	char *home, *repo;

	tmp = tmt_mkdtemp();
	home = tmt_join(tmp, "home");
	tmt_mkdirs(home);
	setenv("HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "T", 1);
	setenv("GIT_AUTHOR_EMAIL", "t@example.com", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	free(home);
	repo = tmt_join(tmp, "repo");
	tmt_mkdirs(repo);
	ck_assert_int_eq(tm_store_init(&store, repo, "Shop", NULL), 0);
	free(repo);
}

static void teardown(void)
{
	tm_store_free(store);
	store = NULL;
	tmt_rmtree(tmp);
	free(tmp);
	tmp = NULL;
}

static bool exists(const char *rel)
{
	char *p = tmt_join(tm_store_dir(store), rel);
	struct stat st;
	bool r = lstat(p, &st) == 0;

	free(p);
	return r;
}

/* The store file `rel` holds exactly `want`. */
static void check_file(const char *rel, const char *want)
{
	char *p = tmt_join(tm_store_dir(store), rel), *d;

	d = tmt_read_file(p, NULL);
	ck_assert_str_eq(d, want);
	free(d);
	free(p);
}

static void write_rel(const char *rel, const char *data)
{
	char *p = tmt_join(tm_store_dir(store), rel);

	tmt_write_file(p, data, strlen(data));
	free(p);
}

static const char *field(const char *id, const char *key)
{
	static char value[256];
	tm_project *p = NULL;
	const char *v;

	ck_assert_int_eq(tm_store_load_project(&p, store, id), 0);
	v = tm_project_get(p, key);
	snprintf(value, sizeof(value), "%s", v ? v : "(null)");
	tm_project_free(p);
	return value;
}

static char *other_project(void)
{
	char *id = NULL;

	ck_assert_int_eq(tm_store_create_project(&id, store, "Other", NULL), 0);
	return id;
}

START_TEST(test_project_set_fields)
{
	bool changed = true;

	ck_assert_int_eq(tm_ops_project_set_field(&changed, store, "shop",
						  "systemContext",
						  "Be brief.\n\tAlways."),
			 0);
	ck_assert(changed);
	ck_assert_str_eq(field("shop", "systemContext"),
			 "Be brief.\n\tAlways.");
	ck_assert_int_eq(tm_ops_project_set_field(&changed, store, "shop",
						  "systemContext",
						  "Be brief.\n\tAlways."),
			 0);
	ck_assert(!changed);
	ck_assert_int_eq(tm_ops_project_set_field(NULL, store, "shop", "title",
						  "New\nname"),
			 0);
	ck_assert_str_eq(field("shop", "title"), "New name");
	ck_assert_int_eq(
		tm_ops_project_set_field(NULL, store, "shop", "mode", "team"),
		0);
	ck_assert_str_eq(field("shop", "mode"), "team");
	ck_assert(!exists(".lock"));
}
END_TEST

START_TEST(test_project_set_refuses_bad_input)
{
	ck_assert_int_eq(
		tm_ops_project_set_field(NULL, store, "shop", "mode", "both"),
		TM_EINVALID);
	ck_assert_int_eq(
		tm_ops_project_set_field(NULL, store, "shop", "id", "x"),
		TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "systemContext"));
	ck_assert_int_eq(tm_ops_project_set_field(NULL, store, "shop", "title",
						  "a\x1b]0;pwned\x07"),
			 TM_EINVALID);
	ck_assert_int_eq(
		tm_ops_project_set_field(NULL, store, "shop", "title", ""),
		TM_EINVALID);
	ck_assert_int_eq(
		tm_ops_project_set_field(NULL, store, "../x", "title", "A"),
		TM_EINVALID);
	ck_assert_int_eq(
		tm_ops_project_set_field(NULL, store, "nope", "title", "A"),
		TM_ENOTFOUND);
	ck_assert_str_eq(field("shop", "title"), "Shop");
	ck_assert(!exists(".lock"));
}
END_TEST

START_TEST(test_project_rename_moves_everything)
{
	tm_config *cfg = NULL;

	write_rel("config.json",
		  "{\"activeProjectId\": \"shop\", \"activeThreadId\": "
		  "\"main\", \"branchThreads\": {\"shop\": {\"dev\": "
		  "\"main\"}}, \"author\": \"t\"}");
	ck_assert_int_eq(tm_ops_project_rename(store, "shop", "store"), 0);
	ck_assert(!exists("projects/shop.json"));
	ck_assert(!exists("threads/shop"));
	ck_assert(exists("threads/store/main.md"));
	ck_assert_str_eq(field("store", "id"), "store");
	ck_assert_str_eq(field("store", "title"), "Shop");
	ck_assert_int_eq(tm_store_load_config(&cfg, store), 0);
	ck_assert_str_eq(tm_config_get_string(cfg, "activeProjectId"), "store");
	ck_assert_str_eq(tm_config_branch_thread(cfg, "store", "dev"), "main");
	ck_assert_ptr_null(tm_config_branch_thread(cfg, "shop", "dev"));
	tm_config_free(cfg);
	ck_assert(!exists(".lock"));
}
END_TEST

START_TEST(test_project_rename_refusals_change_nothing)
{
	char *other = other_project();

	ck_assert_int_eq(tm_ops_project_rename(store, "shop", other),
			 TM_EEXISTS);
	ck_assert_int_eq(tm_ops_project_rename(store, "shop", "shop"),
			 TM_EINVALID);
	ck_assert_int_eq(tm_ops_project_rename(store, "shop", "Bad Id"),
			 TM_EINVALID);
	ck_assert_int_eq(tm_ops_project_rename(store, "nope", "x"),
			 TM_ENOTFOUND);
	/* A config.json that cannot be read stops it before any change. */
	write_rel("config.json", "{oops");
	ck_assert_int_eq(tm_ops_project_rename(store, "shop", "store"),
			 TM_EPARSE);
	ck_assert(exists("threads/shop/main.md"));
	ck_assert(exists("projects/shop.json"));
	ck_assert(!exists("projects/store.json"));
	check_file("config.json", "{oops");
	ck_assert(!exists(".lock"));
	free(other);
}
END_TEST

/* A project whose threads folder is a symbolic link: rename refuses,
 * naming it, and changes nothing. */
START_TEST(test_project_rename_refuses_linked_folder)
{
	char *other = other_project();
	char *dir = tmt_join(tm_store_dir(store), "threads/other");
	char *moved = tmt_join(tmp, "elsewhere");

	ck_assert_int_eq(rename(dir, moved), 0);
	ck_assert_int_eq(symlink(moved, dir), 0);
	ck_assert_int_eq(tm_ops_project_rename(store, other, "renamed"),
			 TM_EINVALID);
	ck_assert_int_eq(tm_error_last()[0], '\'');
	ck_assert_ptr_nonnull(strstr(tm_error_last(),
				     "/threads/other' is not a folder (a "
				     "symbolic link?); fix it first"));
	ck_assert(exists("projects/other.json"));
	ck_assert(!exists("projects/renamed.json"));
	ck_assert(!exists("threads/renamed"));
	ck_assert(!exists(".lock"));
	free(moved);
	free(dir);
	free(other);
}
END_TEST

START_TEST(test_project_remove)
{
	char *other = other_project();
	tm_config *cfg = NULL;

	/* The current one is refused without force. */
	write_rel("config.json",
		  "{\"activeProjectId\": \"shop\", \"branchThreads\": "
		  "{\"shop\": {\"dev\": \"main\"}}, \"author\": \"t\"}");
	ck_assert_int_eq(tm_ops_project_remove(store, "shop", false),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "current project"));
	ck_assert(exists("threads/shop/main.md"));
	/* A foreign file in the folder: nothing removed. */
	write_rel("threads/other/notes.txt", "mine");
	ck_assert_int_eq(tm_ops_project_remove(store, other, false),
			 TM_EINVALID);
	/* named as the user sees it, then what to do */
	ck_assert_int_eq(tm_error_last()[0], '\'');
	ck_assert_ptr_nonnull(strstr(
		tm_error_last(), "/threads/other/notes.txt' is not a thread "
				 "file; move it away by hand first"));
	ck_assert(exists("threads/other/main.md"));
	{
		char *p = tmt_join(tm_store_dir(store),
				   "threads/other/notes.txt");

		ck_assert_int_eq(unlink(p), 0);
		free(p);
	}
	ck_assert_int_eq(tm_ops_project_remove(store, other, false), 0);
	ck_assert(!exists("threads/other"));
	ck_assert(!exists("projects/other.json"));
	/* The only one left: refused without force, then removed. */
	ck_assert_int_eq(tm_ops_project_remove(store, "shop", false),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "only project"));
	ck_assert_int_eq(tm_ops_project_remove(store, "shop", true), 0);
	ck_assert(!exists("threads/shop"));
	ck_assert_int_eq(tm_store_load_config(&cfg, store), 0);
	ck_assert_ptr_null(tm_config_get_string(cfg, "activeProjectId"));
	ck_assert_ptr_null(tm_config_branch_thread(cfg, "shop", "dev"));
	tm_config_free(cfg);
	ck_assert_int_eq(tm_ops_project_remove(store, "shop", true),
			 TM_ENOTFOUND);
	ck_assert(!exists(".lock"));
	free(other);
}
END_TEST

/* A config.json that cannot be read stops remove before any change, and
 * leaves the store unlocked (tm_ops_lock_project reads it first). */
START_TEST(test_project_remove_broken_config_changes_nothing)
{
	char *other = other_project();

	write_rel("config.json", "{oops");
	ck_assert_int_eq(tm_ops_project_remove(store, other, true), TM_EPARSE);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "config.json"));
	ck_assert(exists("threads/other/main.md"));
	ck_assert(exists("projects/other.json"));
	check_file("config.json", "{oops");
	ck_assert(!exists(".lock"));
	free(other);
}
END_TEST

Suite *ops_project_suite(void)
{
	Suite *s = suite_create("ops_project");
	TCase *tc = tcase_create("project");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_project_set_fields);
	tcase_add_test(tc, test_project_set_refuses_bad_input);
	tcase_add_test(tc, test_project_rename_moves_everything);
	tcase_add_test(tc, test_project_rename_refusals_change_nothing);
	tcase_add_test(tc, test_project_rename_refuses_linked_folder);
	tcase_add_test(tc, test_project_remove);
	tcase_add_test(tc, test_project_remove_broken_config_changes_nothing);
	suite_add_tcase(s, tc);
	return s;
}
