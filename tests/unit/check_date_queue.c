/*
 * Unit tests of lib/util/date_queue.c: the queue against a linear scan for
 * the greatest key, over seeded random pushes and pops with many equal
 * times.
 */
#include "date_queue.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* The simple queue the tests trust: an array, scanned for the next out. */
struct slow {
	struct tm_date_queue_entry v[256];
	size_t n;
};

/* Does a go out before b? (greatest time, then smallest tie) */
static bool slow_before(const struct tm_date_queue_entry *a,
			const struct tm_date_queue_entry *b)
{
	return a->time != b->time ? a->time > b->time : a->tie < b->tie;
}

/* The position of the next entry out of s (not empty). */
static size_t slow_top(const struct slow *s)
{
	size_t i, best = 0;

	for (i = 1; i < s->n; i++)
		if (slow_before(&s->v[i], &s->v[best]))
			best = i;
	return best;
}

static unsigned next(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

/*
 * Pop one item of q and of s (the same entries): does q give the key s
 * gives (and, the keys being unique when `unique_ties`, the same item),
 * for an item still queued, and keep its count?  (Checked without Check's
 * asserts: each one costs a system call, and there are millions.)
 */
static bool pop_same(tm_date_queue *q, struct slow *s, bool unique_ties)
{
	size_t top = slow_top(s), item, i;

	if (q->n != s->n || q->v[0].time != s->v[top].time)
		return false;
	item = tm_date_queue_pop(q);
	for (i = 0; i < s->n && s->v[i].item != item; i++)
		;
	if (i == s->n || s->v[i].time != s->v[top].time ||
	    s->v[i].tie != s->v[top].tie ||
	    (unique_ties && item != s->v[top].item))
		return false;
	s->v[i] = s->v[--s->n];
	return q->n == s->n;
}

/*
 * Random rounds of pushes and pops from seed `seed` (pushes more likely in
 * a round that grows, pops in one that shrinks; times from `ntimes`
 * values, so that many are equal), each pop compared with the slow
 * queue's, the queue sometimes emptied by pops or by a release and used
 * again: false at the first pop that differs.
 */
static bool same_as_slow(unsigned seed, unsigned ntimes, bool unique_ties)
{
	tm_date_queue q = TM_DATE_QUEUE_INIT;
	struct slow s = {.n = 0};
	struct tm_date_queue_entry e;
	unsigned r, steps, k, pushes = 0;
	bool grow, ok = true;

	for (r = 0; ok && r < 6; r++) {
		steps = next(&seed) % 200;
		grow = next(&seed) % 2;
		for (k = 0; ok && k < steps; k++) {
			if (s.n && (s.n == 256 ||
				    next(&seed) % 10 >= (grow ? 7u : 3u))) {
				ok = pop_same(&q, &s, unique_ties);
				continue;
			}
			e.time = (int64_t)(next(&seed) % ntimes) - 2;
			e.tie = unique_ties ? pushes : next(&seed) % 4;
			e.item = pushes++;
			tm_date_queue_push(&q, e.time, e.tie, e.item);
			s.v[s.n++] = e;
		}
		switch (next(&seed) % 8) {
		case 0: /* released, then used again */
			tm_date_queue_release(&q);
			ok = ok && q.n == 0;
			s.n = 0;
			break;
		case 1: /* popped to the end */
			while (ok && s.n)
				ok = pop_same(&q, &s, unique_ties);
			break;
		}
	}
	tm_date_queue_release(&q);
	return ok;
}

START_TEST(test_date_queue_known_order)
{
	tm_date_queue q = TM_DATE_QUEUE_INIT;
	static const size_t want[] = {4, 1, 3, 0, 2, 5};
	size_t i;

	tm_date_queue_push(&q, 10, 7, 0);
	tm_date_queue_push(&q, 20, 9, 1);
	tm_date_queue_push(&q, 10, 8, 2);
	tm_date_queue_push(&q, 10, 3, 3);
	tm_date_queue_push(&q, INT64_MAX, SIZE_MAX, 4);
	tm_date_queue_push(&q, INT64_MIN, 0, 5);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_uint_gt(q.n, 0);
		ck_assert_uint_eq(tm_date_queue_pop(&q), want[i]);
	}
	ck_assert_uint_eq(q.n, 0);
	tm_date_queue_release(&q);
	tm_date_queue_release(&q); /* released twice: still empty */
	ck_assert_ptr_null(q.v);
}
END_TEST

START_TEST(test_date_queue_random_unique_ties)
{
	unsigned seed;

	for (seed = 1; seed <= 2000; seed++)
		ck_assert_msg(same_as_slow(seed, seed % 2 ? 5 : 1000, true),
			      "seed %u", seed);
}
END_TEST

START_TEST(test_date_queue_random_equal_keys)
{
	unsigned seed;

	for (seed = 1; seed <= 2000; seed++)
		ck_assert_msg(same_as_slow(seed * 7919u, seed % 3 + 1, false),
			      "seed %u", seed * 7919u);
}
END_TEST

Suite *date_queue_suite(void)
{
	Suite *s = suite_create("date_queue");
	TCase *tc = tcase_create("order");

	tcase_add_test(tc, test_date_queue_known_order);
	tcase_add_test(tc, test_date_queue_random_unique_ties);
	tcase_add_test(tc, test_date_queue_random_equal_keys);
	suite_add_tcase(s, tc);
	return s;
}
