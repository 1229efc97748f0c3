/*
 * One loop over [0, n) shared by a few threads (the stat pass of the paths
 * index, the store's load of every thread file): each thread claims the
 * next chunk of indexes until none is left.
 */
#ifndef TM_PARALLEL_H
#define TM_PARALLEL_H

#include <stddef.h>

/* The work on indexes [from, to) of the loop; `ctx` is the caller's. */
typedef void (*tm_parallel_fn)(void *ctx, size_t from, size_t to);

/*
 * fn over [0, n) in chunks of `chunk` indexes, on `threads` threads, the
 * calling one included; returns once every chunk is done, the number of
 * threads it started plus one.  Each chunk runs once, on one thread, so fn
 * needs no lock for what belongs to its own indexes.  The caller waits only
 * for the chunks claimed, never for a thread to start: on a busy machine a
 * thread the scheduler runs late finds nothing left and leaves (detached;
 * the last one out frees the loop's state), so more threads never make the
 * loop slower than one by more than their start.  A thread that cannot be
 * started is not there.  With threads <= 1, or n <= chunk, fn runs once,
 * over [0, n), on the calling thread (not at all when n is 0).
 *
 * fn runs on other threads with none of the caller's thread-local state
 * but its deadline (deadline.h), which each thread takes over when it
 * starts (the few microseconds between the two reads of the clock given
 * away): no error message, so fn keeps its own, per index.
 */
unsigned tm_parallel_for(size_t n, size_t chunk, unsigned threads,
			 tm_parallel_fn fn, void *ctx);

/* The online CPUs (at least 1). */
unsigned tm_parallel_cpus(void);

/*
 * How many threads a loop over `n` items is worth: one per `cost` items,
 * at least 1, at most the online CPUs and `most`.
 */
unsigned tm_parallel_threads(size_t n, size_t cost, unsigned most);

/* FOR TESTS ONLY.  The online CPUs tm_parallel_cpus answers (0: sysconf's,
 * the default). */
void tm_parallel__cpus(unsigned n);

#endif
