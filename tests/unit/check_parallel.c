/*
 * Unit tests of lib/util/parallel.c: every index once, on the threads asked
 * for, and the caller's deadline taken over by them.
 */
#include "parallel.h"
#include "threadmind/deadline.h"
#include "test_util.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Until another thread than `caller` sets *other (about 10 s at most):
 * false when none did. */
static bool wait_other(atomic_bool *other)
{
	struct timespec ms = {0, 1000000};
	unsigned i;

	for (i = 0; !atomic_load(other) && i < 10000; i++)
		nanosleep(&ms, NULL);
	return atomic_load(other);
}

/* What a loop of the tests saw: each index's visits and thread. */
struct seen {
	unsigned *visits;
	pthread_t *by;
	size_t chunk;
	atomic_uint calls;
	atomic_bool bad_range;
};

static void count(void *ctx, size_t from, size_t to)
{
	struct seen *x = ctx;
	size_t i;

	atomic_fetch_add(&x->calls, 1);
	if (from >= to || (to - from > x->chunk) || from % x->chunk)
		atomic_store(&x->bad_range, true);
	for (i = from; i < to; i++) {
		x->visits[i]++;
		x->by[i] = pthread_self();
	}
}

START_TEST(test_parallel_every_index_once)
{
	static const size_t ns[] = {0, 1, 5, 63, 64, 65, 1000, 4099};
	static const size_t chunks[] = {1, 7, 64};
	static const unsigned threads[] = {1, 2, 4};
	size_t a, b, c, i;

	for (a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
		for (b = 0; b < sizeof(chunks) / sizeof(chunks[0]); b++)
			for (c = 0; c < sizeof(threads) / sizeof(threads[0]);
			     c++) {
				size_t n = ns[a];
				struct seen x;
				unsigned ran;

				memset(&x, 0, sizeof(x));
				x.visits = calloc(n + 1, sizeof(*x.visits));
				x.by = calloc(n + 1, sizeof(*x.by));
				x.chunk = chunks[b];
				ran = tm_parallel_for(n, x.chunk, threads[c],
						      count, &x);
				for (i = 0; i < n; i++)
					ck_assert_uint_eq(x.visits[i], 1);
				if (threads[c] > 1 && n > x.chunk) {
					/* chunks, on all the threads asked
					   for */
					ck_assert(!atomic_load(&x.bad_range));
					ck_assert_uint_eq(atomic_load(&x.calls),
							  (n + x.chunk - 1) /
								  x.chunk);
					ck_assert_uint_eq(ran, threads[c]);
				} else {
					/* one call, on the caller */
					ck_assert_uint_eq(atomic_load(&x.calls),
							  n ? 1 : 0);
					ck_assert_uint_eq(ran, 1);
					for (i = 0; i < n; i++)
						ck_assert(pthread_equal(
							x.by[i],
							pthread_self()));
				}
				free(x.visits);
				free(x.by);
			}
}
END_TEST

/* A chunk that waits until another thread has done one: passes only when
 * the loop really runs on more than one thread. */
struct two {
	pthread_t caller;
	atomic_bool other_done;
	atomic_bool waited_out;
};

static void on_two(void *ctx, size_t from, size_t to)
{
	struct two *w = ctx;

	(void)from;
	(void)to;
	if (!pthread_equal(pthread_self(), w->caller))
		atomic_store(&w->other_done, true);
	else if (!wait_other(&w->other_done))
		atomic_store(&w->waited_out, true);
}

START_TEST(test_parallel_runs_on_other_threads)
{
	struct two w;

	memset(&w, 0, sizeof(w));
	w.caller = pthread_self();
	/* two chunks of one: while the caller is in one, the other thread
	   takes the other */
	ck_assert_uint_eq(tm_parallel_for(2, 1, 2, on_two, &w), 2);
	ck_assert(atomic_load(&w.other_done));
	ck_assert(!atomic_load(&w.waited_out));
}
END_TEST

/* Each index: did its thread have a deadline, and how far was it; the
 * caller's chunks wait for another thread's (struct two). */
struct deadlines {
	bool *set;
	double *at;
	struct two two;
};

static void note_deadline(void *ctx, size_t from, size_t to)
{
	struct deadlines *d = ctx;
	size_t i;

	for (i = from; i < to; i++) {
		d->set[i] = tm_deadline_is_set();
		d->at[i] = tm_deadline_left();
	}
	on_two(&d->two, from, to);
}

START_TEST(test_parallel_deadline_taken_over)
{
	enum { N = 16 };
	static const double budgets[] = {-1, 100, 0};
	struct deadlines d;
	size_t i, k;

	d.set = calloc(N, sizeof(*d.set));
	d.at = calloc(N, sizeof(*d.at));
	for (k = 0; k < sizeof(budgets) / sizeof(budgets[0]); k++) {
		tm_deadline_clear();
		if (budgets[k] >= 0)
			tm_deadline_set(budgets[k]);
		memset(&d.two, 0, sizeof(d.two));
		d.two.caller = pthread_self();
		tm_parallel_for(N, 1, 4, note_deadline, &d);
		ck_assert(atomic_load(&d.two.other_done));
		for (i = 0; i < N; i++) {
			ck_assert(d.set[i] == (budgets[k] >= 0));
			if (budgets[k] > 0)
				ck_assert(d.at[i] > 90 && d.at[i] <= 100);
			else if (budgets[k] == 0)
				ck_assert(d.at[i] <= 0);
		}
		/* the caller's own deadline is as it was */
		ck_assert(tm_deadline_is_set() == (budgets[k] >= 0));
	}
	tm_deadline_clear();
	free(d.set);
	free(d.at);
}
END_TEST

/* One thread per `cost` items, at least one, at most the CPUs (faked)
 * and the maximum asked. */
START_TEST(test_parallel_threads_count)
{
	tm_parallel__cpus(4);
	ck_assert_uint_eq(tm_parallel_cpus(), 4);
	ck_assert_uint_eq(tm_parallel_threads(0, 512, 8), 1);
	ck_assert_uint_eq(tm_parallel_threads(511, 512, 8), 1);
	ck_assert_uint_eq(tm_parallel_threads(1024, 512, 8), 2);
	ck_assert_uint_eq(tm_parallel_threads(1535, 512, 8), 2);
	ck_assert_uint_eq(tm_parallel_threads(100000, 512, 8), 4); /* CPUs */
	ck_assert_uint_eq(tm_parallel_threads(100000, 512, 3), 3); /* most */
	tm_parallel__cpus(64);
	ck_assert_uint_eq(tm_parallel_threads(100000, 512, 8), 8);
	ck_assert_uint_eq(tm_parallel_threads(100000, 512, 20), 20);
	tm_parallel__cpus(0);
	ck_assert_uint_ge(tm_parallel_cpus(), 1);
}
END_TEST

Suite *parallel_suite(void)
{
	Suite *s = suite_create("parallel");
	TCase *tc = tcase_create("loop");

	tcase_add_test(tc, test_parallel_every_index_once);
	tcase_add_test(tc, test_parallel_runs_on_other_threads);
	tcase_add_test(tc, test_parallel_deadline_taken_over);
	tcase_add_test(tc, test_parallel_threads_count);
	suite_add_tcase(s, tc);
	return s;
}
