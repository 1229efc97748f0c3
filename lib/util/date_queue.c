/*
 * The newest-first queue of commits (date_queue.h): a binary heap in an
 * array, each entry with its key, moved by a hole rather than swapped.
 */
#include "date_queue.h"
#include "buf.h"

#include <stdbool.h>
#include <stdlib.h>

/* Does a go out before b? */
static inline bool before(const struct tm_date_queue_entry *a,
			  const struct tm_date_queue_entry *b)
{
	if (a->time != b->time)
		return a->time > b->time;
	return a->tie < b->tie;
}

void tm_date_queue_push(tm_date_queue *q, int64_t time, size_t tie, size_t item)
{
	struct tm_date_queue_entry x = {time, tie, item};
	size_t i, up;

	tm_xgrow((void **)&q->v, &q->alloc, q->n + 1, sizeof(*q->v));
	for (i = q->n++; i > 0; i = up) {
		up = (i - 1) / 2;
		if (!before(&x, &q->v[up]))
			break;
		q->v[i] = q->v[up];
	}
	q->v[i] = x;
}

size_t tm_date_queue_pop(tm_date_queue *q)
{
	size_t top = q->v[0].item, i = 0, c;
	struct tm_date_queue_entry last = q->v[--q->n];

	for (;;) {
		c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->v[c + 1], &q->v[c]))
			c++;
		if (!before(&q->v[c], &last))
			break;
		q->v[i] = q->v[c];
		i = c;
	}
	if (q->n)
		q->v[i] = last;
	return top;
}

void tm_date_queue_release(tm_date_queue *q)
{
	free(q->v);
	q->v = NULL;
	q->n = q->alloc = 0;
}
