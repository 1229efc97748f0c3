/*
 * Unit tests of lib/util/deadline.c and of the long reads that check it: the
 * folder listing, tm_store_load_all between files, the frontmatter and
 * YAML readers inside one file when given tm_deadline_check (and not
 * otherwise), the doctor's project load.  A fake clock
 * that moves on at every read makes "the budget ran out half-way" exact.
 */
#include "threadmind/deadline.h"
#include "threadmind/buf.h"
#include "threadmind/doctor.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "threadmind/fs.h"
#include "threadmind/store.h"
#include "threadmind/yaml.h"
#include "store_internal.h"
#include "test_util.h"

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fake clock: 1 ms per read, from any thread (tm_store_load_all reads
 * a large store on a few: each keeps the caller's deadline). */
static atomic_uint fake_reads;

static double fake_clock(void)
{
	return (atomic_fetch_add(&fake_reads, 1) + 1) * 0.001;
}

static void use_fake_clock(void)
{
	atomic_store(&fake_reads, 0);
	tm_deadline__set_clock(fake_clock);
}

static void clean(void)
{
	tm_deadline_clear();
	tm_deadline__set_clock(NULL);
	tm_error_clear();
}

/* A thread file with `nkeys` unknown keys (about 10 bytes each). */
static void many_keys(tm_buf *out, size_t nkeys)
{
	size_t i;

	tm_buf_puts(out, "---\nid: k\ntitle: K\nparentId: main\n");
	for (i = 0; i < nkeys; i++)
		tm_buf_printf(out, "k%zx: v\n", i);
	tm_buf_puts(out, "---\n\nbody\n");
}

/* ---- the deadline itself ---- */

START_TEST(test_deadline_none_always_passes)
{
	clean();
	ck_assert(!tm_deadline_is_set());
	ck_assert(isinf(tm_deadline_left()));
	ck_assert_int_eq(tm_deadline_check("x"), 0);
	ck_assert_int_eq(tm_deadline_every(0, "x"), 0);
	ck_assert_str_eq(tm_error_last(), "");
}
END_TEST

START_TEST(test_deadline_passed_names_what)
{
	clean();
	tm_deadline_set(0);
	ck_assert(tm_deadline_is_set());
	ck_assert(tm_deadline_left() <= 0);
	ck_assert_int_eq(tm_deadline_check("a/b.md"), TM_ETIMEOUT);
	ck_assert_int_eq(tm_error_last_code(), TM_ETIMEOUT);
	ck_assert_str_eq(tm_error_last(),
			 "time budget spent while reading 'a/b.md'");
	ck_assert_int_eq(tm_deadline_check(NULL), TM_ETIMEOUT);
	ck_assert_str_eq(tm_error_last(), "time budget spent");
	ck_assert_str_eq(tm_error_name(TM_ETIMEOUT), "timeout");
	/* negative: already passed too */
	tm_deadline_set(-5);
	ck_assert_int_eq(tm_deadline_check("x"), TM_ETIMEOUT);
	tm_deadline_clear();
	ck_assert_int_eq(tm_deadline_check("x"), 0);
	clean();
}
END_TEST

START_TEST(test_deadline_future_passes_then_runs_out)
{
	int i;

	clean();
	use_fake_clock();
	/* set at 1 ms: due at 11.5 ms, the clock's 11th read after it */
	tm_deadline_set(0.0105);
	ck_assert(tm_deadline_left() > 0);
	for (i = 0; i < 9; i++)
		ck_assert_int_eq(tm_deadline_check("x"), 0);
	ck_assert_int_eq(tm_deadline_check("x"), TM_ETIMEOUT);
	ck_assert_uint_eq(fake_reads, 12);
	clean();
}
END_TEST

START_TEST(test_deadline_every_reads_the_clock_rarely)
{
	size_t i;

	clean();
	use_fake_clock();
	tm_deadline_set(100);
	fake_reads = 0;
	for (i = 0; i < 10 * TM_DEADLINE_EVERY; i++)
		ck_assert_int_eq(tm_deadline_every(i, "x"), 0);
	ck_assert_uint_eq(fake_reads, 10);
	tm_deadline_set(0);
	ck_assert_int_eq(tm_deadline_every(1, "x"), 0); /* not a check */
	ck_assert_int_eq(tm_deadline_every(TM_DEADLINE_EVERY, "x"),
			 TM_ETIMEOUT);
	clean();
}
END_TEST

/* ---- inside one file ---- */

/* The frontmatter reader with the deadline as its check. */
#define PARSE(t, data, len, id, path) \
	tm_frontmatter_parse_checked(t, data, len, id, path, tm_deadline_check)

START_TEST(test_deadline_frontmatter_gives_up_inside_a_file)
{
	tm_buf data = TM_BUF_INIT;
	tm_thread *t = NULL;

	clean();
	many_keys(&data, 100000);
	ck_assert_uint_lt(data.size, 1024 * 1024);
	/* a deadline 50 clock reads away: the parse checks every 1,024
	 * lines and entries, about 200 times for this file */
	use_fake_clock();
	tm_deadline_set(0.0505);
	ck_assert_int_eq(PARSE(&t, data.ptr, data.size, "k", "threads/p/k.md"),
			 TM_ETIMEOUT);
	ck_assert_ptr_null(t);
	ck_assert_uint_gt(fake_reads, 40);
	ck_assert_str_eq(tm_error_last(),
			 "time budget spent while reading 'threads/p/k.md'");
	/* the same file with time to spare, and a small one, parse */
	tm_deadline_set(10);
	ck_assert_int_eq(PARSE(&t, data.ptr, data.size, "k", "threads/p/k.md"),
			 0);
	tm_thread_free(t);
	t = NULL;
	tm_buf_clear(&data);
	many_keys(&data, 100);
	tm_deadline_set(0.0035);
	ck_assert_int_eq(PARSE(&t, data.ptr, data.size, "k", "threads/p/k.md"),
			 0);
	tm_thread_free(t);
	t = NULL;
	/* past the deadline, not even a small file is read */
	tm_deadline_set(0);
	ck_assert_int_eq(PARSE(&t, data.ptr, data.size, "k", "threads/p/k.md"),
			 TM_ETIMEOUT);
	/* the reader knows no clock: unchecked, it reads the file */
	ck_assert_int_eq(tm_frontmatter_parse(&t, data.ptr, data.size, "k",
					      "threads/p/k.md"),
			 0);
	tm_thread_free(t);
	t = NULL;
	tm_buf_release(&data);
	clean();
}
END_TEST

START_TEST(test_deadline_yaml_gives_up_inside_a_long_list)
{
	tm_buf text = TM_BUF_INIT;
	tm_yaml_value v = TM_YAML_VALUE_INIT;
	size_t i;

	clean();
	tm_buf_puts(&text, "paths:\n");
	for (i = 0; i < 20000; i++)
		tm_buf_printf(&text, "  - src/f%zu\n", i);
	use_fake_clock();
	tm_deadline_set(0.0055);
	ck_assert_int_eq(tm_yaml_read_entry(&v, text.ptr, text.size, "paths",
					    "t.md", 4, tm_deadline_check),
			 TM_ETIMEOUT);
	ck_assert_uint_gt(fake_reads, 4);
	tm_yaml_value_clear(&v);
	tm_deadline_clear();
	ck_assert_int_eq(tm_yaml_read_entry(&v, text.ptr, text.size, "paths",
					    "t.md", 4, tm_deadline_check),
			 0);
	ck_assert_int_eq(v.kind, TM_YAML_LIST);
	ck_assert_uint_eq(v.items.n, 20000);
	tm_yaml_value_clear(&v);
	tm_buf_release(&text);
	clean();
}
END_TEST

/* ---- between files ---- */

/* More than TM_DEADLINE_EVERY (the listing's first check), few enough to
 * write quickly on a loaded machine. */
#define NFILES 1200

static char *tmp;
static tm_store *store;

static void store_setup(void)
{
	char path[4096];
	size_t i;

	clean();
	tmp = tmt_sandbox();
	ck_assert_int_eq(tm_store_init(&store, tmp, "App", NULL), 0);
	for (i = 0; i < NFILES; i++) {
		char data[128];
		int n = snprintf(data, sizeof(data),
				 "---\nid: t%zu\ntitle: T\nparentId: main\n"
				 "---\n",
				 i);

		snprintf(path, sizeof(path),
			 "%s/.threadmind/threads/app/t%zu.md", tmp, i);
		tmt_write_file(path, data, (size_t)n);
	}
}

static void store_teardown(void)
{
	clean();
	tm_store_free(store);
	store = NULL;
	tmt_sandbox_end(tmp);
	tmp = NULL;
}

START_TEST(test_deadline_load_all_stops_between_files)
{
	static const unsigned threads[] = {1, 4};
	tm_thread_list all;
	size_t k;

	for (k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
		tm_store__load_threads(threads[k]);
		/* no deadline: every file (and main) */
		ck_assert_int_eq(tm_store_load_all(&all, store, "app"), 0);
		ck_assert_uint_eq(all.n, NFILES + 1);
		tm_thread_list_clear(&all);
		/* a deadline a few files away: stops there, holds nothing */
		use_fake_clock();
		tm_deadline_set(0.0205);
		ck_assert_int_eq(tm_store_load_all(&all, store, "app"),
				 TM_ETIMEOUT);
		ck_assert_uint_eq(all.n, 0);
		ck_assert_ptr_null(all.threads);
		ck_assert_uint_eq(all.errors.n, 0);
		ck_assert_uint_eq(all.marked.n, 0);
		/* two reads a file (before it, on parsing it), and one a
		   thread to take the deadline over: far fewer than all */
		ck_assert_uint_lt(fake_reads, 40 + threads[k]);
		ck_assert_ptr_nonnull(strstr(tm_error_last(),
					     "time budget spent while "
					     "reading '"));
		ck_assert_ptr_nonnull(strstr(tm_error_last(), ".md'"));
		tm_thread_list_clear(&all);
		clean();
	}
	tm_store__load_threads(0);
}
END_TEST

START_TEST(test_deadline_listing_stops_in_a_long_folder)
{
	tm_strv ids = TM_STRV_INIT;
	tm_thread *t = NULL;

	use_fake_clock();
	tm_deadline_set(0.0005); /* the listing's first check is too late */
	ck_assert_int_eq(tm_store_list_threads(&ids, NULL, store, "app"),
			 TM_ETIMEOUT);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "threads"));
	tm_strv_clear(&ids);
	tm_deadline_set(0);
	ck_assert_int_eq(tm_store_load_thread(&t, store, "app", "t1"),
			 TM_ETIMEOUT);
	ck_assert_ptr_null(t);
	tm_deadline_clear();
	ck_assert_int_eq(tm_store_list_threads(&ids, NULL, store, "app"), 0);
	ck_assert_uint_eq(ids.n, NFILES + 1);
	tm_strv_clear(&ids);
}
END_TEST

START_TEST(test_deadline_doctor_load_stops)
{
	tm_doctor_project p;

	use_fake_clock();
	tm_deadline_set(0.0205);
	ck_assert_int_eq(tm_doctor_project_load(&p, store, "app"), TM_ETIMEOUT);
	/* stopped early, and not a file reported unreadable */
	ck_assert_uint_lt(p.n, 20);
	ck_assert_uint_eq(p.unreadable.n, 0);
	ck_assert_ptr_null(p.folder_error);
	tm_doctor_project_clear(&p);
	tm_deadline_clear();
	ck_assert_int_eq(tm_doctor_project_load(&p, store, "app"), 0);
	ck_assert_uint_eq(p.n, NFILES + 1);
	tm_doctor_project_clear(&p);
}
END_TEST

Suite *deadline_suite(void)
{
	Suite *s = suite_create("deadline");
	TCase *tc = tcase_create("clock");

	tcase_add_test(tc, test_deadline_none_always_passes);
	tcase_add_test(tc, test_deadline_passed_names_what);
	tcase_add_test(tc, test_deadline_future_passes_then_runs_out);
	tcase_add_test(tc, test_deadline_every_reads_the_clock_rarely);
	suite_add_tcase(s, tc);

	tc = tcase_create("one-file");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_deadline_frontmatter_gives_up_inside_a_file);
	tcase_add_test(tc, test_deadline_yaml_gives_up_inside_a_long_list);
	suite_add_tcase(s, tc);

	tc = tcase_create("store");
	tcase_add_checked_fixture(tc, store_setup, store_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_deadline_load_all_stops_between_files);
	tcase_add_test(tc, test_deadline_listing_stops_in_a_long_folder);
	tcase_add_test(tc, test_deadline_doctor_load_stops);
	suite_add_tcase(s, tc);
	return s;
}
