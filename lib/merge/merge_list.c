/*
 * Lists in a merge: identities for items that may repeat, lookups from
 * identity to position, and the order of a merged list (see
 * merge_internal.h).
 */
#include "merge_internal.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

/* An item of a list sorted by identity, for lookups. */
struct entry {
	const char *id;
	size_t idx;
};

struct tm_merge__index {
	struct entry *e;
	size_t n;
};

static int entry_cmp(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = strcmp(a->id, b->id);

	if (c)
		return c;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

tm_merge__index *tm_merge__index_new(const char *const *ids, size_t n)
{
	tm_merge__index *ix = tm_xmalloc(sizeof(*ix));
	size_t i;

	ix->e = tm_xcalloc(n ? n : 1, sizeof(*ix->e));
	ix->n = n;
	for (i = 0; i < n; i++) {
		ix->e[i].id = ids[i];
		ix->e[i].idx = i;
	}
	qsort(ix->e, n, sizeof(*ix->e), entry_cmp);
	return ix;
}

long tm_merge__index_find(const tm_merge__index *ix, const char *id)
{
	size_t lo = 0, hi = ix->n, mid;

	/* the first entry not below id: equal ids are sorted by index */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(ix->e[mid].id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->n && !strcmp(ix->e[lo].id, id))
		return (long)ix->e[lo].idx;
	return -1;
}

void tm_merge__index_free(tm_merge__index *ix)
{
	if (!ix)
		return;
	free(ix->e);
	free(ix);
}

char **tm_merge__ids(const char *const *keys, size_t n)
{
	tm_merge__index *ix = tm_merge__index_new(keys, n);
	struct entry *e = ix->e;
	char **ids = tm_xcalloc(n ? n : 1, sizeof(char *));
	size_t i, nth = 0;
	tm_buf b = TM_BUF_INIT;

	for (i = 0; i < n; i++) {
		/* equal keys are sorted in list order (ties on idx) */
		nth = i && !strcmp(e[i].id, e[i - 1].id) ? nth + 1 : 0;
		tm_buf_printf(&b, "%zu:%s", nth, e[i].id);
		ids[e[i].idx] = tm_buf_detach(&b);
	}
	tm_merge__index_free(ix);
	return ids;
}

void tm_merge__ids_free(char **ids, size_t n)
{
	size_t i;

	if (!ids)
		return;
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

size_t *tm_merge__order(size_t *out_n, const char *const *a, const bool *keep_a,
			size_t na, const char *const *b, const bool *keep_b,
			size_t nb)
{
	tm_merge__index *ia = tm_merge__index_new(a, na);
	tm_merge__index *ib = tm_merge__index_new(b, nb);
	size_t *res = tm_xcalloc(na + nb + 1, sizeof(size_t));
	/* bucket k + 1 holds the b-only items placed after a[k]; 0: first */
	size_t *head = tm_xcalloc(na + 1, sizeof(size_t));
	size_t *tail = tm_xcalloc(na + 1, sizeof(size_t));
	size_t *next = tm_xcalloc(nb + 1, sizeof(size_t));
	size_t *pending = tm_xcalloc(na + 1, sizeof(size_t));
	bool *anchor = tm_xcalloc(na + 1, sizeof(bool));
	size_t n = 0, npending = 0, i, j, k, bucket = 0;
	long pos;

	/* an anchor is an item of both lists that is kept */
	for (i = 0; i < na; i++)
		anchor[i] = keep_a[i] && tm_merge__index_find(ib, a[i]) >= 0;
	/* lists are 1-based so that 0 ends them */
	for (j = 0; j < nb; j++) {
		pos = tm_merge__index_find(ia, b[j]);
		if (pos >= 0) {
			if (anchor[pos])
				bucket = (size_t)pos + 1;
			continue;
		}
		if (!keep_b[j])
			continue;
		if (!head[bucket])
			head[bucket] = j + 1;
		else
			next[tail[bucket] - 1] = j + 1;
		tail[bucket] = j + 1;
	}
	pending[npending++] = 0;
	for (i = 0; i <= na; i++) {
		if (i == na || anchor[i]) {
			for (k = 0; k < npending; k++)
				for (j = head[pending[k]]; j; j = next[j - 1])
					res[n++] = na + j - 1;
			npending = 0;
		}
		if (i == na || !keep_a[i])
			continue;
		res[n++] = i;
		if (anchor[i])
			pending[npending++] = i + 1;
	}
	tm_merge__index_free(ia);
	tm_merge__index_free(ib);
	TM_FREE_ALL(head, tail, next, pending, anchor);
	*out_n = n;
	return res;
}
