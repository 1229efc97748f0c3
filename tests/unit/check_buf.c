/* Unit tests of lib/util/buf.c and lib/util/error.c: buffers, vectors,
 * messages. */
#include "threadmind/buf.h"
#include "threadmind/error.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

START_TEST(test_buf_put_and_printf)
{
	tm_buf b = TM_BUF_INIT;
	char *s;

	ck_assert_str_eq(tm_buf_cstr(&b), "");
	tm_buf_puts(&b, "abc");
	tm_buf_putc(&b, '-');
	tm_buf_printf(&b, "%d/%s", 42, "x");
	ck_assert_str_eq(tm_buf_cstr(&b), "abc-42/x");
	ck_assert_uint_eq(b.size, 8);
	tm_buf_truncate(&b, 3);
	ck_assert_str_eq(tm_buf_cstr(&b), "abc");
	s = tm_buf_detach(&b);
	ck_assert_str_eq(s, "abc");
	ck_assert_ptr_null(b.ptr);
	free(s);
}
END_TEST

START_TEST(test_buf_grows_past_large_sizes)
{
	tm_buf b = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < 100000; i++)
		tm_buf_putc(&b, (char)('a' + i % 26));
	ck_assert_uint_eq(b.size, 100000);
	ck_assert_int_eq(b.ptr[99999], 'a' + 99999 % 26);
	ck_assert_int_eq(b.ptr[100000], '\0');
	tm_buf_clear(&b);
	ck_assert_uint_eq(b.size, 0);
	ck_assert_str_eq(tm_buf_cstr(&b), "");
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_buf_binary_bytes)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_put(&b, "a\0b", 3);
	ck_assert_uint_eq(b.size, 3);
	ck_assert_int_eq(memcmp(b.ptr, "a\0b", 3), 0);
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_buf_strv)
{
	tm_strv v = TM_STRV_INIT, w = TM_STRV_INIT;

	tm_strv_push(&v, "b");
	tm_strv_push(&v, "a");
	tm_strv_push(&v, "c");
	ck_assert_int_eq(tm_strv_find(&v, "a"), 1);
	ck_assert_int_eq(tm_strv_find(&v, "z"), -1);
	tm_strv_copy(&w, &v);
	ck_assert(tm_strv_equal(&v, &w));
	tm_strv_sort(&v);
	ck_assert_str_eq(v.items[0], "a");
	ck_assert_str_eq(v.items[2], "c");
	ck_assert(!tm_strv_equal(&v, &w));
	tm_strv_push(&v, "a");
	tm_strv_push(&v, "c");
	tm_strv_push(&v, "c");
	tm_strv_sort_unique(&v);
	ck_assert_uint_eq(v.n, 3);
	ck_assert_str_eq(v.items[0], "a");
	ck_assert_str_eq(v.items[1], "b");
	ck_assert_str_eq(v.items[2], "c");
	tm_strv_clear(&v);
	tm_strv_clear(&w);
	ck_assert_uint_eq(v.n, 0);
}
END_TEST

START_TEST(test_buf_utf8_validation)
{
	static const struct {
		const char *s;
		size_t prefix;
	} cases[] = {
		{"plain ascii", 11},
		{"C\xc5\x93ur m\xc3\xa9tier", 13}, /* Cœur métier */
		{"\xe8\xae\xa4\xe8\xaf\x81", 6},   /* 认证 */
		{"\xf0\x9f\x9a\x80!", 5},          /* 🚀! */
		{"ab\xff", 2},                     /* stray byte */
		{"ab\xc3", 2},                     /* truncated */
		{"a\xc0\xaf", 1},                  /* overlong '/' */
		{"a\xed\xa0\x80", 1},              /* surrogate */
		{"a\xf4\x90\x80\x80", 1},          /* past U+10FFFF */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		size_t len = strlen(cases[i].s);

		ck_assert_uint_eq(tm_utf8_valid_prefix(cases[i].s, len),
				  cases[i].prefix);
		ck_assert(tm_utf8_valid(cases[i].s, len) ==
			  (cases[i].prefix == len));
	}
}
END_TEST

START_TEST(test_buf_error_messages)
{
	int rc;

	tm_error_clear();
	ck_assert_str_eq(tm_error_last(), "");
	rc = tm_error_set(TM_ENOTFOUND, "no thread '%s'", "x");
	ck_assert_int_eq(rc, TM_ENOTFOUND);
	ck_assert_str_eq(tm_error_last(), "no thread 'x'");
	ck_assert_int_eq(tm_error_last_code(), TM_ENOTFOUND);
	errno = ENOENT;
	tm_error_set_errno(TM_ERROR, "cannot open '%s'", "f");
	ck_assert_str_eq(tm_error_last(),
			 "cannot open 'f': No such file or directory");
	ck_assert_int_eq(errno, ENOENT);
	/* errno kept by both halves: the caller may still report it */
	errno = EACCES;
	ck_assert_int_eq(tm_error_set(TM_EINVALID, "%s", "x"), TM_EINVALID);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_eq(tm_error_append_errno(TM_ERROR), TM_ERROR);
	ck_assert_str_eq(tm_error_last(), "x: Permission denied");
	ck_assert_int_eq(errno, EACCES);
	ck_assert_str_eq(tm_error_name(TM_ELOCKED), "locked");
}
END_TEST

static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	s = tm_xstrvfmt(f, ap);
	va_end(ap);
	return s;
}

/* tm_find_by_string against a plain loop, and TM_FREE_ALL/TM_FREE_ITEMS
 * on owned members (leaks show under valgrind and LeakSanitizer). */
struct named {
	int n;
	char *name;
	char *other;
};

static void named_clear(struct named *x)
{
	TM_FREE_ALL(x->name, x->other);
}

START_TEST(test_buf_find_and_free_items)
{
	static const char *const names[] = {"a", "b", NULL, "b", "c"};
	struct named *v = tm_xcalloc(5, sizeof(*v));
	const struct named *got;
	size_t i;

	for (i = 0; i < 5; i++) {
		v[i].n = (int)i;
		v[i].name = tm_xstrdup_or_null(names[i]);
		v[i].other = tm_xstrdup("x");
	}
	got = tm_find_by_string(v, 5, sizeof(*v), offsetof(struct named, name),
				"b");
	ck_assert_ptr_eq(got, &v[1]); /* the first of two */
	got = tm_find_by_string(v, 5, sizeof(*v), offsetof(struct named, name),
				"c");
	ck_assert_ptr_eq(got, &v[4]); /* past a NULL name */
	ck_assert_ptr_null(tm_find_by_string(
		v, 5, sizeof(*v), offsetof(struct named, name), "d"));
	ck_assert_ptr_null(tm_find_by_string(
		v, 4, sizeof(*v), offsetof(struct named, name), "c"));
	got = tm_find_by_string(v, 5, sizeof(*v), offsetof(struct named, other),
				"x");
	ck_assert_ptr_eq(got, &v[0]);
	ck_assert_ptr_null(tm_find_by_string(
		NULL, 0, sizeof(*v), offsetof(struct named, name), "a"));
	TM_FREE_ITEMS(v, 5, named_clear);
}
END_TEST

START_TEST(test_buf_xstrvfmt)
{
	char *s = fmt("'%s' has %d lines", "a.md", 3), *e = fmt("%s", "");

	ck_assert_str_eq(s, "'a.md' has 3 lines");
	ck_assert_str_eq(e, "");
	free(s);
	free(e);
}
END_TEST

START_TEST(test_buf_error_ignore)
{
	/* another code passes through, its message kept */
	tm_error_set(TM_EINVALID, "bad '%s'", "x");
	ck_assert_int_eq(tm_error_ignore(TM_EINVALID, TM_ENOTFOUND),
			 TM_EINVALID);
	ck_assert_str_eq(tm_error_last(), "bad 'x'");
	ck_assert_int_eq(tm_error_ignore(0, TM_ENOTFOUND), 0);
	ck_assert_str_eq(tm_error_last(), "bad 'x'");
	/* the code ignored: 0, the message forgotten */
	tm_error_set(TM_ENOTFOUND, "no thread '%s'", "x");
	ck_assert_int_eq(tm_error_ignore(TM_ENOTFOUND, TM_ENOTFOUND), 0);
	ck_assert_str_eq(tm_error_last(), "");
	ck_assert_int_eq(tm_error_last_code(), 0);
}
END_TEST

#ifdef __linux__
/* Whether the mapping that holds `p` may use transparent huge pages
 * ("THPeligible: 1" in /proc/self/smaps). */
static bool huge_eligible(const void *p)
{
	char line[512];
	unsigned long a, b;
	bool in = false, yes = false;
	int e;
	FILE *f = fopen("/proc/self/smaps", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 &&
		    strchr(line, ' ') && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= a && (uintptr_t)p < b;
		else if (in && sscanf(line, "THPeligible: %d", &e) == 1)
			yes = e == 1;
	}
	fclose(f);
	return yes;
}

/* A block of 8 MiB, from tm_xmalloc, tm_xrealloc or tm_xgrow, is advised
 * for huge pages where the system gives them on request (buf.c); a small
 * one is left alone. */
START_TEST(test_buf_large_blocks_huge_pages)
{
	char *mode = NULL, *p, *q = NULL;
	size_t len = 0, alloc = 0;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");

	if (!f || getline(&mode, &len, f) < 0 || strstr(mode, "[never]")) {
		if (f)
			fclose(f);
		free(mode);
		return; /* no huge pages here: nothing to check */
	}
	fclose(f);
	p = tm_xmalloc((size_t)8 << 20);
	memset(p, 1, (size_t)8 << 20);
	ck_assert(huge_eligible(p + (4 << 20)));
	p = tm_xrealloc(p, (size_t)16 << 20);
	ck_assert(huge_eligible(p + (12 << 20)));
	free(p);
	tm_xgrow((void **)&q, &alloc, (size_t)8 << 20, 1);
	ck_assert(huge_eligible(q + (4 << 20)));
	free(q);
	if (strstr(mode, "[madvise]")) {
		p = tm_xmalloc(64 << 10);
		ck_assert(!huge_eligible(p));
		free(p);
	}
	free(mode);
}
END_TEST

/* Is p inside the brk heap ("[heap]" in /proc/self/maps)? */
static bool in_brk_heap(const void *p)
{
	char line[512];
	unsigned long a, b;
	bool in = false;
	FILE *f = fopen("/proc/self/maps", "re");

	ck_assert_ptr_nonnull(f);
	while (!in && fgets(line, sizeof(line), f))
		in = strstr(line, "[heap]") &&
		     sscanf(line, "%lx-%lx ", &a, &b) == 2 &&
		     (uintptr_t)p >= a && (uintptr_t)p < b;
	fclose(f);
	return in;
}

/* After tm_heap_huge_pages, the small blocks malloc takes from the brk
 * heap are advised for huge pages (buf.c), a second call changing
 * nothing; with an allocator that does not use the brk heap (the
 * sanitizers', valgrind's) there is nothing to check but the call. */
START_TEST(test_buf_heap_huge_pages)
{
	enum { N = 4096, SIZE = 2048 };
	char *mode = NULL, **v;
	size_t len = 0, i;
	void *probe = malloc(64);
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	bool here = in_brk_heap(probe);

	free(probe);
	if (!f || getline(&mode, &len, f) < 0 || strstr(mode, "[never]") ||
	    !here) {
		if (f)
			fclose(f);
		free(mode);
		tm_heap_huge_pages();
		return;
	}
	fclose(f);
	tm_heap_huge_pages();
	tm_heap_huge_pages();
	v = tm_xcalloc(N, sizeof(*v));
	for (i = 0; i < N; i++) {
		v[i] = tm_xmalloc(SIZE);
		memset(v[i], 1, SIZE);
	}
	/* 4 MiB in: past the first 2 MiB boundary of the heap */
	ck_assert(in_brk_heap(v[N / 2]));
	ck_assert(huge_eligible(v[N / 2]));
	for (i = 0; i < N; i++)
		free(v[i]);
	free(v);
	free(mode);
}
END_TEST
#endif

Suite *buf_suite(void)
{
	Suite *s = suite_create("buf");
	TCase *tc = tcase_create("buf");

	tcase_add_test(tc, test_buf_put_and_printf);
	tcase_add_test(tc, test_buf_grows_past_large_sizes);
	tcase_add_test(tc, test_buf_binary_bytes);
	tcase_add_test(tc, test_buf_strv);
	tcase_add_test(tc, test_buf_utf8_validation);
	tcase_add_test(tc, test_buf_error_messages);
	tcase_add_test(tc, test_buf_error_ignore);
	tcase_add_test(tc, test_buf_xstrvfmt);
	tcase_add_test(tc, test_buf_find_and_free_items);
#ifdef __linux__
	tcase_add_test(tc, test_buf_large_blocks_huge_pages);
	tcase_add_test(tc, test_buf_heap_huge_pages);
#endif
	suite_add_tcase(s, tc);
	return s;
}
