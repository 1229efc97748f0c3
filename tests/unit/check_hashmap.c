/* Unit tests of lib/util/hashmap.c: adding and finding keys, copies, growth. */
#include "threadmind/hashmap.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

START_TEST(test_hashmap_empty)
{
	tm_hashmap m = TM_HASHMAP_INIT;

	ck_assert_ptr_null(tm_hashmap_gets(&m, "a"));
	ck_assert_ptr_null(tm_hashmap_get(&m, "", 0));
	ck_assert_uint_eq(m.n, 0);
	tm_hashmap_release(&m);
	tm_hashmap_release(NULL);
}
END_TEST

START_TEST(test_hashmap_put_then_get)
{
	tm_hashmap m = TM_HASHMAP_INIT;
	size_t *v;

	v = tm_hashmap_puts(&m, "src/auth", 7);
	ck_assert_uint_eq(*v, 7);
	*v = 8;
	/* an existing key keeps its value: `init` is for new keys only */
	ck_assert_uint_eq(*tm_hashmap_puts(&m, "src/auth", 99), 8);
	ck_assert_uint_eq(*tm_hashmap_gets(&m, "src/auth"), 8);
	ck_assert_uint_eq(m.n, 1);
	ck_assert_ptr_null(tm_hashmap_gets(&m, "src/aut"));
	ck_assert_ptr_null(tm_hashmap_gets(&m, "src/auth/"));
	tm_hashmap_release(&m);
}
END_TEST

/* Prefixes of one another are different keys (stale_specs.c probes each
 * leading folder of a path). */
START_TEST(test_hashmap_prefixes)
{
	static const char path[] = "src/auth/login.c";
	tm_hashmap m = TM_HASHMAP_INIT;

	tm_hashmap_put(&m, path, 3, 1);
	tm_hashmap_put(&m, path, 8, 2);
	tm_hashmap_puts(&m, path, 3);
	ck_assert_uint_eq(m.n, 3);
	ck_assert_uint_eq(*tm_hashmap_gets(&m, "src"), 1);
	ck_assert_uint_eq(*tm_hashmap_gets(&m, "src/auth"), 2);
	ck_assert_uint_eq(*tm_hashmap_get(&m, path, sizeof(path) - 1), 3);
	ck_assert_ptr_null(tm_hashmap_get(&m, path, 4));
	tm_hashmap_release(&m);
}
END_TEST

/* Keys are copied: the caller's buffer can change afterwards. */
START_TEST(test_hashmap_copies_keys)
{
	tm_hashmap m = TM_HASHMAP_INIT;
	char key[16];

	strcpy(key, "first");
	tm_hashmap_puts(&m, key, 1);
	strcpy(key, "second");
	tm_hashmap_puts(&m, key, 2);
	memset(key, 'x', sizeof(key) - 1);
	ck_assert_uint_eq(*tm_hashmap_gets(&m, "first"), 1);
	ck_assert_uint_eq(*tm_hashmap_gets(&m, "second"), 2);
	ck_assert_uint_eq(m.n, 2);
	tm_hashmap_release(&m);
}
END_TEST

/* Any bytes: NULs inside a key (object ids), and the empty key. */
START_TEST(test_hashmap_binary_keys)
{
	tm_hashmap m = TM_HASHMAP_INIT;

	tm_hashmap_put(&m, "a\0b", 3, 1);
	tm_hashmap_put(&m, "a\0c", 3, 2);
	tm_hashmap_put(&m, "a", 1, 3);
	tm_hashmap_put(&m, "", 0, 4);
	ck_assert_uint_eq(m.n, 4);
	ck_assert_uint_eq(*tm_hashmap_get(&m, "a\0b", 3), 1);
	ck_assert_uint_eq(*tm_hashmap_get(&m, "a\0c", 3), 2);
	ck_assert_uint_eq(*tm_hashmap_gets(&m, "a"), 3);
	ck_assert_uint_eq(*tm_hashmap_get(&m, "", 0), 4);
	ck_assert_ptr_null(tm_hashmap_get(&m, "a\0", 2));
	tm_hashmap_release(&m);
}
END_TEST

/* Many keys: the table grows and every key keeps its value. */
START_TEST(test_hashmap_grows)
{
	tm_hashmap m = TM_HASHMAP_INIT;
	char key[32];
	size_t i;

	for (i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		ck_assert_uint_eq(*tm_hashmap_puts(&m, key, i), i);
	}
	ck_assert_uint_eq(m.n, 20000);
	/* at most half full, so that probes stay short */
	ck_assert_uint_ge(m.mask + 1, 2 * m.n);
	for (i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		ck_assert_ptr_nonnull(tm_hashmap_gets(&m, key));
		ck_assert_uint_eq(*tm_hashmap_gets(&m, key), i);
	}
	ck_assert_ptr_null(tm_hashmap_gets(&m, "k20000"));
	tm_hashmap_release(&m);
	ck_assert_uint_eq(m.n, 0);
	/* usable again after release */
	tm_hashmap_puts(&m, "again", 5);
	ck_assert_uint_eq(*tm_hashmap_gets(&m, "again"), 5);
	ck_assert_ptr_null(tm_hashmap_gets(&m, "k1"));
	tm_hashmap_release(&m);
}
END_TEST

/* The published FNV-1a 64-bit test vectors. */
START_TEST(test_hashmap_fnv1a)
{
	ck_assert_uint_eq(tm_hash_bytes("", 0), 0xcbf29ce484222325u);
	ck_assert_uint_eq(tm_hash_bytes("a", 1), 0xaf63dc4c8601ec8cu);
	ck_assert_uint_eq(tm_hash_bytes("foobar", 6), 0x85944171f73967e8u);
}
END_TEST

Suite *hashmap_suite(void)
{
	Suite *s = suite_create("hashmap");
	TCase *tc = tcase_create("keys");

	tcase_add_test(tc, test_hashmap_empty);
	tcase_add_test(tc, test_hashmap_put_then_get);
	tcase_add_test(tc, test_hashmap_prefixes);
	tcase_add_test(tc, test_hashmap_copies_keys);
	tcase_add_test(tc, test_hashmap_binary_keys);
	tcase_add_test(tc, test_hashmap_grows);
	tcase_add_test(tc, test_hashmap_fnv1a);
	suite_add_tcase(s, tc);
	return s;
}
