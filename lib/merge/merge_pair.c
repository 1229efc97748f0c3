/*
 * One side of a three-way merge of units against the ancestor
 * (merge_internal.h, tm_merge__side_init): its diff, the items it
 * reworded (paired with the base items they replace), the units it moved,
 * and the gap of the ancestor each insertion goes to.  merge_lines.c puts
 * the two sides side by side.
 */
#include "merge_internal.h"
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

#define NONE TM_MERGE__NONE
/* An item pairs with one of another count when this similar (percent). */
#define SIMILAR 50
/* Hunks larger than this many pairs of items pair none of them. */
#define MAX_PAIRS 4096

/* How much two item lines agree: their common prefix and suffix, in
 * percent of the longer one. */
static unsigned similarity(const struct tm_merge__unit *x,
			   const struct tm_merge__unit *y)
{
	size_t a = x->head, b = y->head, n = a < b ? a : b, pre = 0, suf = 0;

	while (pre < n && x->p[pre] == y->p[pre])
		pre++;
	while (suf < n - pre && x->p[a - 1 - suf] == y->p[b - 1 - suf])
		suf++;
	return (unsigned)(100 * (pre + suf) / (a > b ? a : b));
}

static void pair(struct tm_merge__side *x, size_t i, size_t j)
{
	x->rep[i] = j;
	x->of[j] = i;
}

/*
 * In a hunk (base [i0, i1) replaced by this side's [j0, j1)), the items
 * that reword base items: one for one in order when the counts agree,
 * else each base item with the most similar later one, when similar.
 */
static void pair_hunk(const struct tm_merge__units *o, struct tm_merge__side *x,
		      size_t i0, size_t i1, size_t j0, size_t j1)
{
	size_t nd = 0, ni = 0, i, j, best, from = j0;
	unsigned sim, top;

	for (i = i0; i < i1; i++)
		nd += o->u[i].kind == TM_MERGE__ITEM && x->move[i] == NONE;
	for (j = j0; j < j1; j++)
		ni += x->u.u[j].kind == TM_MERGE__ITEM && x->from[j] == NONE;
	if (!nd || !ni || nd * ni > MAX_PAIRS)
		return;
	for (i = i0; i < i1; i++) {
		if (o->u[i].kind != TM_MERGE__ITEM || x->move[i] != NONE)
			continue;
		best = NONE;
		top = 0;
		for (j = from; j < j1; j++) {
			if (x->u.u[j].kind != TM_MERGE__ITEM ||
			    x->from[j] != NONE)
				continue;
			if (nd == ni) {
				best = j;
				break;
			}
			sim = similarity(&o->u[i], &x->u.u[j]);
			if (sim >= SIMILAR && sim > top) {
				top = sim;
				best = j;
			}
		}
		if (best != NONE) {
			pair(x, i, best);
			from = best + 1;
		}
	}
}

/* The length of a key's first line. */
static size_t head_len(const struct tm_merge__unit *u)
{
	const char *nl = memchr(u->key, '\n', u->klen);

	return nl ? (size_t)(nl - u->key) : u->klen;
}

/*
 * A unit this side deleted and inserted elsewhere, unchanged, is a move
 * (pass 0): move[i] is where it went, from[j] where it came from.  Found
 * before rewordings are paired, so that an item moved away is never the
 * base of the one inserted in its place.  Then (pass 1, once rewordings
 * are paired) an item inserted with the first line of one it deleted (its
 * sub-items changed) comes from there too, which orders it among
 * insertions at one place (put_both).  Blank lines are never moved.
 */
static void find_moves(const struct tm_merge__units *o,
		       struct tm_merge__side *x, int pass)
{
	tm_hashmap map = TM_HASHMAP_INIT;
	size_t *next = tm_xcalloc(x->u.n + 1, sizeof(size_t)), *head, i, j;

	for (j = x->u.n; j-- > 0;) {
		if (x->mx[j] != NONE || x->of[j] != NONE ||
		    x->from[j] != NONE || x->u.u[j].kind == TM_MERGE__BLANK)
			continue;
		head = tm_hashmap_put(
			&map, x->u.u[j].key,
			pass ? head_len(&x->u.u[j]) : x->u.u[j].klen, NONE);
		next[j] = *head;
		*head = j;
	}
	for (i = 0; i < o->n && map.n; i++) {
		if (x->mo[i] != NONE || x->rep[i] != NONE ||
		    x->move[i] != NONE || o->u[i].kind == TM_MERGE__BLANK)
			continue;
		head = tm_hashmap_get(&map, o->u[i].key,
				      pass ? head_len(&o->u[i]) : o->u[i].klen);
		if (!head || *head == NONE)
			continue;
		if (!pass)
			x->move[i] = *head;
		x->from[*head] = i;
		*head = next[*head];
	}
	tm_hashmap_release(&map);
	free(next);
}

void tm_merge__side_init(struct tm_merge__side *x,
			 const struct tm_merge__units *o,
			 const struct tm_merge__span *text)
{
	size_t n = o->n, m, i, j, i1, j1, at;

	tm_merge__units_split(&x->u, text->p, text->len);
	m = x->u.n;
	x->mo = tm_xcalloc(n + 1, sizeof(size_t));
	x->rep = tm_xcalloc(n + 1, sizeof(size_t));
	x->move = tm_xcalloc(n + 1, sizeof(size_t));
	x->lo = tm_xcalloc(n + 1, sizeof(size_t));
	x->hi = tm_xcalloc(n + 1, sizeof(size_t));
	x->mx = tm_xcalloc(m + 1, sizeof(size_t));
	x->of = tm_xcalloc(m + 1, sizeof(size_t));
	x->gap = tm_xcalloc(m + 1, sizeof(size_t));
	x->as = tm_xcalloc(m + 1, sizeof(size_t));
	x->from = tm_xcalloc(m + 1, sizeof(size_t));
	x->drop = tm_xcalloc(m + 1, sizeof(bool));
	tm_merge__diff(x->mo, x->mx, o, &x->u);
	for (i = 0; i <= n; i++) {
		x->rep[i] = x->move[i] = x->lo[i] = NONE;
		x->hi[i] = 0;
	}
	for (j = 0; j < m; j++)
		x->of[j] = x->gap[j] = x->as[j] = x->from[j] = NONE;
	find_moves(o, x, 0);
	/* each hunk: base [i, i1) against this side's [j, j1) */
	for (i = j = 0; i < n || j < m;) {
		if (i < n && j < m && x->mo[i] == j) {
			i++;
			j++;
			continue;
		}
		for (i1 = i; i1 < n && x->mo[i1] == NONE; i1++)
			;
		for (j1 = j; j1 < m && x->mx[j1] == NONE; j1++)
			;
		pair_hunk(o, x, i, i1, j, j1);
		i = i1;
		j = j1;
	}
	/* an insertion's gap: right after the base unit that the unit
	 * before it matches or rewords */
	for (j = 0, at = 0; j < m; j++) {
		if (x->mx[j] != NONE) {
			at = x->mx[j] + 1;
		} else if (x->of[j] != NONE) {
			at = x->of[j] + 1;
		} else {
			x->gap[j] = at;
			if (x->lo[at] == NONE)
				x->lo[at] = j;
			x->hi[at] = j + 1;
		}
	}
	find_moves(o, x, 1);
}

void tm_merge__side_free(struct tm_merge__side *x)
{
	tm_merge__units_free(&x->u);
	TM_FREE_ALL(x->mo, x->mx, x->rep, x->of, x->gap, x->lo, x->hi, x->move,
		    x->as, x->from, x->drop);
}
