/*
 * The newest-first queue of commits that the history walks share (the
 * staleness walk and its passes, a thread's log): a binary heap whose
 * entries carry their own key, so that ordering them reads no caller's
 * table.
 */
#ifndef TM_DATE_QUEUE_H
#define TM_DATE_QUEUE_H

#include <stddef.h>
#include <stdint.h>

/* An entry: the caller's `item`, ordered by `time` (greatest first), then
 * by `tie` (smallest first). */
struct tm_date_queue_entry {
	int64_t time;
	size_t tie;
	size_t item;
};

/*
 * The queue: `n` entries in v[0, n), v[0] the one tm_date_queue_pop takes
 * next (read its time there).  Zeroed (TM_DATE_QUEUE_INIT) it is empty;
 * tm_date_queue_release frees it.
 */
typedef struct {
	struct tm_date_queue_entry *v;
	size_t n, alloc;
} tm_date_queue;

#define TM_DATE_QUEUE_INIT \
	{                  \
		NULL, 0, 0 \
	}

/* Queue `item` with key (time, tie).  O(log n); aborts when out of memory,
 * as tm_xgrow does. */
void tm_date_queue_push(tm_date_queue *q, int64_t time, size_t tie,
			size_t item);

/*
 * Take the item with the greatest time, of those the one with the smallest
 * tie (of equal keys, any one).  The queue must not be empty.  O(log n).
 */
size_t tm_date_queue_pop(tm_date_queue *q);

/* Free the queue's entries and leave it empty (usable again). */
void tm_date_queue_release(tm_date_queue *q);

#endif
