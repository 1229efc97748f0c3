/* Unit tests of lib/format/thread_diff.c: pairing, fields, order, limits. */
#include "threadmind/thread_diff.h"
#include "threadmind/buf.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A side: threads parsed from file texts. */
struct side {
	tm_thread *t[16];
	size_t n;
};

static tm_thread *add(struct side *s, const char *id, const char *fmt, ...)
{
	char text[2048];
	tm_thread *t = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ck_assert_msg(tm_frontmatter_parse(&t, text, strlen(text), id, id) == 0,
		      "parse %s: %s", id, tm_error_last());
	ck_assert_uint_lt(s->n, 16);
	s->t[s->n++] = t;
	return t;
}

#define FM(parent, created, author)                            \
	"---\ntitle: T\nparentId: " parent "\nauthor: " author \
	"\ncreatedAt: " created "\nupdatedAt: 2026-04-15T10:00:00.000Z\n"

static void side_free(struct side *s)
{
	while (s->n)
		tm_thread_free(s->t[--s->n]);
}

static void run(tm_tdiff *d, struct side *b, struct side *a, bool all)
{
	tm_tdiff_options o = TM_TDIFF_OPTIONS_INIT;

	o.all_fields = all;
	memset(d, 0, sizeof(*d));
	ck_assert_int_eq(tm_tdiff_threads(d, (const tm_thread *const *)b->t,
					  b->n, (const tm_thread *const *)a->t,
					  a->n, &o),
			 0);
}

static void field(const tm_tdiff_entry *e, size_t i, const char *name,
		  const char *o, const char *n)
{
	ck_assert_uint_lt(i, e->nfields);
	ck_assert_str_eq(e->fields[i].name, name);
	if (o)
		ck_assert_str_eq(e->fields[i].old_value, o);
	else
		ck_assert_ptr_null(e->fields[i].old_value);
	if (n)
		ck_assert_str_eq(e->fields[i].new_value, n);
	else
		ck_assert_ptr_null(e->fields[i].new_value);
}

START_TEST(test_thread_diff_fields)
{
	struct side b = {{0}, 0}, a = {{0}, 0};
	tm_tdiff d;
	const tm_tdiff_entry *e;
	const tm_tdiff_field *f;

	add(&b, "main", FM("null", "2026-01-01T00:00:00Z", "ann-1234") "---\n");
	add(&b, "auth",
	    FM("main", "2026-01-02T00:00:00Z",
	       "ann-1234") "branch: a\n"
			   "paths: [\"src/a\", \"src/b\"]\ntags: [x]\n---\n\n"
			   "## Decisions\n- keep\n");
	add(&a, "main", FM("null", "2026-01-01T00:00:00Z", "ann-1234") "---\n");
	add(&a, "auth",
	    "---\ntitle: Auth v2\nparentId: null\nauthor: ann-1234\n"
	    "createdAt: 2026-01-02T00:00:00.000Z\n"
	    "updatedAt: 2026-05-01T00:00:00Z\nstatus: done\nbranch: b\n"
	    "commit: 0123456789abcdef0123456789abcdef01234567\n"
	    "paths: [\"src/b\", \"src/c\"]\nmergedInto: main\ntags: [y]\n"
	    "---\n\n## Decisions\n- keep\n- more\n");
	run(&d, &b, &a, false);
	ck_assert_uint_eq(d.n, 1);
	e = &d.items[0];
	ck_assert_int_eq(e->kind, TM_TDIFF_MODIFIED);
	ck_assert_str_eq(e->id, "auth");
	ck_assert_str_eq(e->old_id, "auth");
	field(e, 0, "parentId", "main", NULL);
	field(e, 1, "status", NULL, "done");
	field(e, 2, "mergedInto", NULL, "main");
	field(e, 3, "title", "T", "Auth v2");
	field(e, 4, "branch", "a", "b");
	f = &e->fields[5];
	ck_assert_str_eq(f->name, "paths");
	ck_assert_uint_eq(f->added.n, 1);
	ck_assert_str_eq(f->added.items[0], "src/c");
	ck_assert_uint_eq(f->removed.n, 1);
	ck_assert_str_eq(f->removed.items[0], "src/a");
	field(e, 6, "commit", NULL, "0123456789abcdef0123456789abcdef01234567");
	/* the same createdAt instant written otherwise is no change */
	field(e, 7, "tags", "[x]", "[y]");
	ck_assert_uint_eq(e->nfields, 8);
	ck_assert_ptr_null(tm_tdiff_field_get(e, "updatedAt"));
	ck_assert_uint_eq(e->summary.n, 1);
	ck_assert_uint_eq(e->summary.items[0].added, 1);
	tm_tdiff_clear(&d);
	run(&d, &b, &a, true);
	ck_assert_ptr_nonnull(tm_tdiff_field_get(&d.items[0], "updatedAt"));
	tm_tdiff_clear(&d);
	side_free(&b);
	side_free(&a);
}
END_TEST

START_TEST(test_thread_diff_updated_at_only)
{
	struct side b = {{0}, 0}, a = {{0}, 0};
	tm_tdiff d;

	add(&b, "x",
	    FM("null", "2026-01-01T00:00:00Z", "ann-1234") "---\n\nhi\n");
	add(&a, "x",
	    "---\ntitle: T\nparentId: null\nauthor: ann-1234\n"
	    "createdAt: 2026-01-01T00:00:00Z\n"
	    "updatedAt: 2026-09-09T00:00:00Z\n---\n\r\nhi\r\n");
	run(&d, &b, &a, false);
	ck_assert_uint_eq(d.n, 0);
	tm_tdiff_clear(&d);
	run(&d, &b, &a, true);
	ck_assert_uint_eq(d.n, 1);
	ck_assert_uint_eq(d.items[0].nfields, 1);
	field(&d.items[0], 0, "updatedAt", "2026-04-15T10:00:00.000Z",
	      "2026-09-09T00:00:00Z");
	tm_tdiff_clear(&d);
	side_free(&b);
	side_free(&a);
}
END_TEST

START_TEST(test_thread_diff_added_removed_order)
{
	struct side b = {{0}, 0}, a = {{0}, 0};
	tm_tdiff d;

	add(&b, "main", FM("null", "2026-01-01T00:00:00Z", "ann-1234") "---\n");
	add(&b, "gone", FM("main", "2026-01-05T00:00:00Z", "ann-1234") "---\n");
	add(&a, "main", FM("null", "2026-01-01T00:00:00Z", "ann-1234") "---\n");
	/* tree order: main's children by createdAt, each before its own */
	add(&a, "zeta", FM("main", "2026-01-02T00:00:00Z", "ann-1234") "---\n");
	add(&a, "alpha",
	    FM("main", "2026-01-03T00:00:00Z", "ann-1234") "---\n");
	add(&a, "sub",
	    FM("zeta", "2026-01-09T00:00:00Z",
	       "ann-1234") "---\n\n## Decisions\n- one\n");
	run(&d, &b, &a, false);
	ck_assert_uint_eq(d.n, 4);
	ck_assert_str_eq(d.items[0].id, "zeta");
	ck_assert_int_eq(d.items[0].kind, TM_TDIFF_ADDED);
	ck_assert_ptr_null(d.items[0].old_id);
	ck_assert_ptr_null(d.items[0].before);
	ck_assert_str_eq(d.items[1].id, "sub");
	ck_assert_uint_eq(d.items[1].summary.n, 1);
	ck_assert_int_eq(d.items[1].summary.items[0].change,
			 TM_SDIFF_SECTION_ADDED);
	ck_assert_str_eq(d.items[2].id, "alpha");
	ck_assert_str_eq(d.items[3].id, "gone");
	ck_assert_int_eq(d.items[3].kind, TM_TDIFF_REMOVED);
	ck_assert_ptr_null(d.items[3].after);
	tm_tdiff_clear(&d);
	side_free(&b);
	side_free(&a);
}
END_TEST

START_TEST(test_thread_diff_identity)
{
	struct side b = {{0}, 0}, a = {{0}, 0};
	tm_tdiff d;

	/* a split by resolve: carol's `search` is now `search-2`, and
	 * `search` holds ann's thread */
	add(&b, "search",
	    FM("null", "2026-01-02T00:00:00Z",
	       "carol-9999") "---\n\n## Decisions\n- carol\n");
	add(&a, "search",
	    FM("null", "2026-01-01T00:00:00Z",
	       "ann-1234") "---\n\n## Decisions\n- ann\n");
	add(&a, "search-2",
	    FM("null", "2026-01-02T00:00:00.000Z",
	       "carol-9999") "---\n\n## Decisions\n- carol\n");
	run(&d, &b, &a, false);
	ck_assert_uint_eq(d.n, 2);
	ck_assert_int_eq(d.items[0].kind, TM_TDIFF_ADDED);
	ck_assert_str_eq(d.items[0].id, "search");
	ck_assert_int_eq(d.items[1].kind, TM_TDIFF_RENAMED);
	ck_assert_str_eq(d.items[1].id, "search-2");
	ck_assert_str_eq(d.items[1].old_id, "search");
	/* renamed and nothing else changed: still listed */
	ck_assert_uint_eq(d.items[1].nfields, 0);
	ck_assert_uint_eq(d.items[1].summary.n, 0);
	ck_assert_ptr_nonnull(tm_tdiff_find(&d, "search-2"));
	tm_tdiff_clear(&d);
	/* a side that does not know the identity pairs by id */
	side_free(&a);
	add(&a, "search",
	    "---\ntitle: T\nparentId: null\n---\n\n## Decisions\n- carol\n");
	run(&d, &b, &a, false);
	ck_assert_uint_eq(d.n, 1);
	ck_assert_int_eq(d.items[0].kind, TM_TDIFF_MODIFIED);
	field(&d.items[0], 0, "author", "carol-9999", NULL);
	tm_tdiff_clear(&d);
	side_free(&b);
	side_free(&a);
}
END_TEST

START_TEST(test_thread_diff_shared_and_limit)
{
	struct side b = {{0}, 0}, a = {{0}, 0};
	tm_thread *shared;
	tm_tdiff d;
	const char *only[] = {"two"};

	shared = add(&b, "main",
		     FM("null", "2026-01-01T00:00:00Z", "ann-1234") "---\n");
	add(&b, "one", FM("main", "2026-01-02T00:00:00Z", "ann-1234") "---\n");
	add(&b, "two", FM("main", "2026-01-03T00:00:00Z", "ann-1234") "---\n");
	/* the after side borrows the unchanged parent (same pointer) */
	a.t[a.n++] = shared;
	add(&a, "one",
	    FM("main", "2026-01-02T00:00:00Z",
	       "ann-1234") "status: done\n---\n");
	add(&a, "two", FM("one", "2026-01-03T00:00:00Z", "ann-1234") "---\n");
	run(&d, &b, &a, false);
	ck_assert_uint_eq(d.n, 2);
	ck_assert_str_eq(d.items[0].id, "one");
	ck_assert_str_eq(d.items[1].id, "two");
	field(&d.items[1], 0, "parentId", "main", "one");
	tm_tdiff_limit(&d, only, 1);
	ck_assert_uint_eq(d.n, 1);
	ck_assert_str_eq(d.items[0].id, "two");
	tm_tdiff_add_problem(&d, TM_TDIFF_CONFLICTED, "three", NULL, NULL,
			     "conflicted");
	ck_assert_uint_eq(d.n, 2);
	ck_assert_str_eq(d.items[1].message, "conflicted");
	ck_assert_ptr_null(d.items[1].old_id);
	tm_tdiff_clear(&d);
	a.t[0] = NULL;
	side_free(&a);
	side_free(&b);
}
END_TEST

START_TEST(test_thread_diff_duplicate_id)
{
	struct side b = {{0}, 0}, a = {{0}, 0};
	tm_tdiff d = TM_TDIFF_INIT;

	add(&a, "x", FM("null", "2026-01-01T00:00:00Z", "ann-1234") "---\n");
	add(&a, "x", FM("null", "2026-01-01T00:00:00Z", "ann-1234") "---\n");
	ck_assert_int_eq(tm_tdiff_threads(&d, NULL, 0,
					  (const tm_thread *const *)a.t, a.n,
					  NULL),
			 TM_EINVALID);
	ck_assert_uint_eq(d.n, 0);
	side_free(&a);
	side_free(&b);
}
END_TEST

Suite *thread_diff_suite(void)
{
	Suite *s = suite_create("thread_diff");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, test_thread_diff_fields);
	tcase_add_test(tc, test_thread_diff_updated_at_only);
	suite_add_tcase(s, tc);
	tc = tcase_create("threads");
	tcase_add_test(tc, test_thread_diff_added_removed_order);
	tcase_add_test(tc, test_thread_diff_identity);
	tcase_add_test(tc, test_thread_diff_shared_and_limit);
	tcase_add_test(tc, test_thread_diff_duplicate_id);
	suite_add_tcase(s, tc);
	return s;
}
