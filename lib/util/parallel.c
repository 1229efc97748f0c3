/*
 * One loop shared by a few threads (parallel.h).
 */
#include "parallel.h"

#include "buf.h"
#include "deadline.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * The loop's state, shared by the caller and the threads it started: the
 * last one out frees it (a thread may start after the caller has left).
 */
struct loop {
	tm_parallel_fn fn;
	void *ctx;
	size_t n, chunk;
	double deadline;    /* the caller's: seconds left, or HUGE_VAL */
	atomic_size_t next; /* the first index not claimed */
	atomic_size_t done; /* indexes whose chunk is finished */
	atomic_int refs;    /* the caller and the threads started */
	pthread_mutex_t lock;
	pthread_cond_t all_done;
};

/* Claim and do chunks until none is left. */
static void run_chunks(struct loop *l)
{
	size_t from, to;

	while ((from = atomic_fetch_add(&l->next, l->chunk)) < l->n) {
		to = from + l->chunk < l->n ? from + l->chunk : l->n;
		l->fn(l->ctx, from, to);
		if (atomic_fetch_add(&l->done, to - from) + (to - from) ==
		    l->n) {
			pthread_mutex_lock(&l->lock);
			pthread_cond_broadcast(&l->all_done);
			pthread_mutex_unlock(&l->lock);
		}
	}
}

static void loop_unref(struct loop *l)
{
	if (atomic_fetch_sub(&l->refs, 1) == 1) {
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->all_done);
		free(l);
	}
}

static void *loop_thread(void *arg)
{
	struct loop *l = arg;

	/* the caller's deadline, made this (new) thread's */
	if (isfinite(l->deadline))
		tm_deadline_set(l->deadline);
	run_chunks(l);
	loop_unref(l);
	return NULL;
}

unsigned tm_parallel_for(size_t n, size_t chunk, unsigned threads,
			 tm_parallel_fn fn, void *ctx)
{
	struct loop *l;
	pthread_attr_t attr;
	pthread_t tid;
	unsigned k, ran = 1;

	if (!chunk)
		chunk = 1;
	if (threads <= 1 || n <= chunk) {
		if (n)
			fn(ctx, 0, n);
		return 1;
	}
	l = tm_xcalloc(1, sizeof(*l));
	l->fn = fn;
	l->ctx = ctx;
	l->n = n;
	l->chunk = chunk;
	l->deadline = tm_deadline_left();
	atomic_init(&l->next, 0);
	atomic_init(&l->done, 0);
	atomic_init(&l->refs, 1);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->all_done, NULL);
	if (pthread_attr_init(&attr) == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		for (k = 1; k < threads; k++) {
			atomic_fetch_add(&l->refs, 1);
			if (pthread_create(&tid, &attr, loop_thread, l) != 0) {
				atomic_fetch_sub(&l->refs, 1);
				break;
			}
			ran++;
		}
		pthread_attr_destroy(&attr);
	}
	run_chunks(l);
	pthread_mutex_lock(&l->lock);
	while (atomic_load(&l->done) < n)
		pthread_cond_wait(&l->all_done, &l->lock);
	pthread_mutex_unlock(&l->lock);
	loop_unref(l);
	return ran;
}

static unsigned fake_cpus; /* tm_parallel__cpus */

void tm_parallel__cpus(unsigned n)
{
	fake_cpus = n;
}

unsigned tm_parallel_cpus(void)
{
	long n = fake_cpus ? (long)fake_cpus : sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

unsigned tm_parallel_threads(size_t n, size_t cost, unsigned most)
{
	size_t t = cost ? n / cost : n, cpus = tm_parallel_cpus();

	if (t > cpus)
		t = cpus;
	if (t > most)
		t = most;
	return t < 1 ? 1 : (unsigned)t;
}
