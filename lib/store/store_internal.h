/*
 * For the store's own files (lib/store/store*.c) and their tests: the
 * clock of new timestamps, the lock's and the load's test seams; what the
 * layers above may use is in store_files.h.
 */
#ifndef TM_STORE_INTERNAL_H
#define TM_STORE_INTERNAL_H

#include "store_files.h"

/* Now as a canonical timestamp (TM_TIME_LEN + 1 bytes). */
void tm_store_now(char *out);

/*
 * FOR TESTS ONLY.  Call `hook` (NULL: none) at the start of every
 * tm_store_lock_refresh, that is between the writes of a long operation,
 * so that a test can take the lock over or inject a fault there; with
 * `eager`, locks taken from now on check that the lock file is still
 * theirs on every refresh (refresh_after 0) instead of every 5 seconds.
 */
void tm_store__set_refresh_hook(void (*hook)(tm_store *s, void *payload),
				void *payload, bool eager);

/*
 * FOR TESTS ONLY.  tm_store_load_all reads on `n` threads (0: as many as
 * the files are worth, up to the online CPUs), so that a test can compare
 * the threaded load with one thread's on a small store.
 */
void tm_store__load_threads(unsigned n);

#endif
