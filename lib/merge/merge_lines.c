/*
 * The three-way merge of texts cut into units (merge_diff.c): a section's
 * body, an item's continuation lines (DESIGN.md section 6).  Each side
 * against the ancestor is in merge_pair.c.
 *
 * Each side is compared with the ancestor on its own; an item it replaced
 * by another at the same place is a rewording of it, an item it deleted
 * and inserted elsewhere a move.  The changes of the two sides are then
 * put side by side: where they do not touch, each is taken; where they
 * touch, items are merged one by one (a removal, a rewording, an insertion
 * each taken; the same item reworded differently on both sides is a
 * conflict on that item) unless both sides changed prose there, which is
 * a conflict of the whole place, as git's.  Insertions of both sides at
 * the same place are both kept.  Nothing depends on which side is ours
 * except the order of what both inserted at one place and the marker
 * labels: every other choice goes to the leading side.
 */
#include "merge_internal.h"
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

#define NONE TM_MERGE__NONE
/* Sub-items nest this deep at most before their item conflicts whole. */
#define MAX_DEPTH 16
/* Copies of one added line compared with one of the other side at most. */
#define MAX_CHAIN 64

struct merger {
	struct tm_merge__units o;
	struct tm_merge__side s[3]; /* [1] ours, [2] theirs */
	const tm_merge_options *opts;
	tm_merge__lead lead;
	int depth;
	tm_buf *out;
	bool conflicted;
};

static bool bytes_eq(const struct tm_merge__unit *x,
		     const struct tm_merge__unit *y)
{
	return x->len == y->len && !memcmp(x->p, y->p, x->len);
}

static void put_unit(tm_buf *out, const struct tm_merge__unit *u)
{
	tm_buf_put(out, u->p, u->len);
	if (!u->len || u->p[u->len - 1] != '\n')
		tm_buf_putc(out, '\n');
}

/* The unit written for unit j of side x (its text, or the one it takes). */
static const struct tm_merge__unit *text_of(const struct merger *mg, int x,
					    size_t j)
{
	const struct tm_merge__side *s = &mg->s[x];

	return s->as[j] != NONE ? &mg->s[3 - x].u.u[s->as[j]] : &s->u.u[j];
}

/* What side x made of base unit i. */
enum state { KEPT, DELETED, REWORDED };

static enum state state_of(const struct tm_merge__side *x, size_t i)
{
	if (x->mo[i] != NONE)
		return KEPT;
	if (x->rep[i] != NONE && !x->drop[x->rep[i]])
		return REWORDED;
	return DELETED;
}

static bool inserts_at(const struct tm_merge__side *x, size_t g)
{
	size_t j;

	if (x->lo[g] == NONE)
		return false;
	for (j = x->lo[g]; j < x->hi[g]; j++)
		if (!x->drop[j])
			return true;
	return false;
}

/* ---- what the sides agree on ---- */

/*
 * A unit one side moved: kept where the other side left it alone; with
 * the other side's rewording when it reworded it (the rewording is then
 * written there only); dropped when the other side deleted it.  A unit
 * both moved is an item both inserted (agree).
 */
static void settle_moves(struct merger *mg)
{
	struct tm_merge__side *x, *y;
	size_t i, j;
	int k;

	for (k = 1; k <= 2; k++) {
		x = &mg->s[k];
		y = &mg->s[3 - k];
		for (i = 0; i < mg->o.n; i++) {
			if ((j = x->move[i]) == NONE || y->mo[i] != NONE)
				continue;
			if (y->rep[i] != NONE) {
				x->as[j] = y->rep[i];
				y->drop[y->rep[i]] = true;
			} else if (y->move[i] == NONE) {
				x->drop[j] = true;
			}
		}
	}
}

/* The key of what unit j of side x is written as. */
static void key_of(const struct merger *mg, int x, size_t j, const char **key,
		   size_t *len)
{
	const struct tm_merge__side *s = &mg->s[x];
	int from = s->as[j] != NONE ? 3 - x : x;
	size_t k = s->as[j] != NONE ? s->as[j] : j;

	*key = mg->s[from].u.u[k].key;
	*len = mg->s[from].u.u[k].klen;
}

/* Whether unit j of side x is new there: inserted, or rewording a base
 * unit, and still to be written. */
static bool is_new(const struct merger *mg, int x, size_t j)
{
	const struct tm_merge__side *s = &mg->s[x];

	return (s->gap[j] != NONE || s->of[j] != NONE) && !s->drop[j] &&
	       text_of(mg, x, j)->kind != TM_MERGE__BLANK;
}

/*
 * What both sides added alike is written once.  Inserted at the same
 * place, the copies are united there (put_both).  An item both added at
 * different places is written once: where a side put it as the rewording
 * of a base item, else at the leading side's place.  The n-th copy on one
 * side pairs with the n-th on the other, those at the same place first.
 */
static void agree(struct merger *mg)
{
	struct tm_merge__side *a = &mg->s[1], *b = &mg->s[2], *loser;
	tm_hashmap map = TM_HASHMAP_INIT;
	size_t *next = tm_xcalloc(a->u.n + 1, sizeof(size_t)), *head, *prev;
	bool *paired = tm_xcalloc(b->u.n + 1, sizeof(bool)), fits;
	size_t j, k, len, lost, steps;
	const char *key;
	int pass;

	for (j = a->u.n; j-- > 0;) {
		if (!is_new(mg, 1, j))
			continue;
		key_of(mg, 1, j, &key, &len);
		head = tm_hashmap_put(&map, key, len, NONE);
		next[j] = *head;
		*head = j;
	}
	for (pass = 0; pass < 2 && map.n; pass++) {
		for (k = 0; k < b->u.n; k++) {
			if (!is_new(mg, 2, k) || paired[k] ||
			    (!pass && b->gap[k] == NONE) ||
			    (pass && text_of(mg, 2, k)->kind != TM_MERGE__ITEM))
				continue;
			key_of(mg, 2, k, &key, &len);
			if (!(head = tm_hashmap_get(&map, key, len)))
				continue;
			/* at most MAX_CHAIN copies looked at: thousands of
			 * one line inserted at many places stay linear */
			for (prev = head, steps = 0;
			     *prev != NONE && steps < MAX_CHAIN;
			     prev = &next[*prev], steps++) {
				j = *prev;
				/* the same rewording on both sides is no
				 * copy: it merges as one */
				fits = pass ? a->of[j] == NONE ||
						       a->of[j] != b->of[k]
					    : a->gap[j] == b->gap[k];
				if (fits)
					break;
			}
			if (*prev == NONE || steps == MAX_CHAIN)
				continue;
			*prev = next[j];
			paired[k] = true;
			if (!pass)
				continue;
			/* keep a rewording over an insertion, else the
			 * leading side's copy */
			if ((a->of[j] == NONE) != (b->of[k] == NONE))
				loser = a->of[j] == NONE ? a : b;
			else
				loser = mg->lead == TM_MERGE__OURS ? b : a;
			lost = loser == a ? j : k;
			loser->drop[lost] = true;
		}
	}
	tm_hashmap_release(&map);
	free(next);
	free(paired);
}

/* ---- writing ---- */

/* A unit both sides kept: one side's spelling when only it changed it,
 * else the leading side's. */
static void put_kept(struct merger *mg, size_t i)
{
	const struct tm_merge__unit *o = &mg->o.u[i];
	const struct tm_merge__unit *a = &mg->s[1].u.u[mg->s[1].mo[i]];
	const struct tm_merge__unit *b = &mg->s[2].u.u[mg->s[2].mo[i]];

	if (bytes_eq(a, b) || bytes_eq(o, b))
		put_unit(mg->out, a);
	else if (bytes_eq(o, a))
		put_unit(mg->out, b);
	else
		put_unit(mg->out, mg->lead == TM_MERGE__OURS ? a : b);
}

/* A list of units to write (pointers), for conflicts and comparisons;
 * from[k]: the base unit that u[k] is a move of, or NONE. */
struct ulist {
	const struct tm_merge__unit **u;
	size_t *from;
	size_t n, alloc, falloc;
};

static void ulist_put(struct ulist *l, const struct tm_merge__unit *u,
		      size_t from)
{
	tm_xgrow((void **)&l->u, &l->alloc, l->n + 1, sizeof(*l->u));
	tm_xgrow((void **)&l->from, &l->falloc, l->n + 1, sizeof(*l->from));
	l->from[l->n] = from;
	l->u[l->n++] = u;
}

static void ulist_add(struct ulist *l, const struct tm_merge__unit *u)
{
	ulist_put(l, u, NONE);
}

static void ulist_free(struct ulist *l)
{
	free(l->u);
	free(l->from);
}

/* Side x's insertions at gap g, as written. */
static void insertions(struct ulist *l, const struct merger *mg, int x,
		       size_t g)
{
	const struct tm_merge__side *s = &mg->s[x];
	size_t j;

	if (s->lo[g] == NONE)
		return;
	for (j = s->lo[g]; j < s->hi[g]; j++)
		if (!s->drop[j])
			ulist_put(l, text_of(mg, x, j), s->from[j]);
}

static void put_list(tm_buf *out, const struct ulist *l, size_t from, size_t to)
{
	size_t k;

	for (k = from; k < to; k++)
		put_unit(out, l->u[k]);
}

static bool lists_eq(const struct ulist *x, const struct ulist *y)
{
	size_t k;

	if (x->n != y->n)
		return false;
	for (k = 0; k < x->n; k++)
		if (!bytes_eq(x->u[k], y->u[k]))
			return false;
	return true;
}

/* The first base unit that a list of insertions holds a move of (NONE,
 * the greatest, when it holds none). */
static size_t origin(const struct ulist *l)
{
	size_t k, min = NONE;

	for (k = 0; k < l->n; k++)
		if (l->from[k] < min)
			min = l->from[k];
	return min;
}

/*
 * Both sides' insertions at one place, both kept.  When they share units
 * (what both inserted alike), the leading side's order is followed, each
 * unit only the other has placed after the one it follows there.  Else
 * the one that continues what precedes it (no blank line first) comes
 * first, or ours; items that follow items stay one list (the blank lines
 * before the second are dropped then); prose that follows what the first
 * wrote is a paragraph of its own, unless both continue the paragraph
 * before the place (`in_para`).
 */
static void put_both(tm_buf *out, const struct ulist *a, const struct ulist *b,
		     tm_merge__lead lead, bool in_para)
{
	const struct ulist *first = a, *second = b, *l[2];
	char **keys[2], **ids[2];
	bool *keep[2], shared = false;
	size_t k = 0, f, n, *order;
	tm_buf key = TM_BUF_INIT;
	tm_merge__index *ix;
	int x;

	if (!a->n || !b->n || lists_eq(a, b)) {
		put_list(out, a->n ? a : b, 0, a->n ? a->n : b->n);
		return;
	}
	l[0] = lead == TM_MERGE__OURS ? a : b;
	l[1] = l[0] == a ? b : a;
	for (x = 0; x < 2; x++) {
		keys[x] = tm_xcalloc(l[x]->n + 1, sizeof(char *));
		keep[x] = tm_xcalloc(l[x]->n + 1, sizeof(bool));
		for (k = 0; k < l[x]->n; k++) {
			/* a blank line is never shared */
			if (l[x]->u[k]->kind == TM_MERGE__BLANK)
				tm_buf_printf(&key, "b%d:%zu", x, k);
			else
				tm_buf_put(&key, l[x]->u[k]->key,
					   l[x]->u[k]->klen);
			keys[x][k] = tm_buf_detach(&key);
			keep[x][k] = true;
		}
		ids[x] = tm_merge__ids((const char *const *)keys[x], l[x]->n);
	}
	ix = tm_merge__index_new((const char *const *)ids[0], l[0]->n);
	for (k = 0; k < l[1]->n && !shared; k++)
		shared = l[1]->u[k]->kind != TM_MERGE__BLANK &&
			 tm_merge__index_find(ix, ids[1][k]) >= 0;
	tm_merge__index_free(ix);
	if (shared) {
		order = tm_merge__order(
			&n, (const char *const *)ids[0], keep[0], l[0]->n,
			(const char *const *)ids[1], keep[1], l[1]->n);
		for (k = 0; k < n; k++)
			put_unit(out, order[k] < l[0]->n
					      ? l[0]->u[order[k]]
					      : l[1]->u[order[k] - l[0]->n]);
		free(order);
	}
	for (x = 0; x < 2; x++) {
		tm_merge__ids_free(keys[x], l[x]->n);
		tm_merge__ids_free(ids[x], l[x]->n);
		free(keep[x]);
	}
	if (shared)
		return;
	/* what continues the text before it first; then what holds what
	 * was there before (a move), in the ancestor's order; then ours */
	if ((a->u[0]->kind == TM_MERGE__BLANK) !=
	    (b->u[0]->kind == TM_MERGE__BLANK)) {
		if (a->u[0]->kind == TM_MERGE__BLANK) {
			first = b;
			second = a;
		}
	} else if (origin(b) < origin(a)) {
		first = b;
		second = a;
	}
	put_list(out, first, 0, first->n);
	for (f = 0; f < second->n && second->u[f]->kind == TM_MERGE__BLANK; f++)
		;
	k = 0;
	if (f < second->n && second->u[f]->kind == TM_MERGE__ITEM &&
	    first->u[first->n - 1]->kind == TM_MERGE__ITEM)
		k = f;
	else if (!f && second->u[0]->kind == TM_MERGE__PROSE &&
		 first->u[first->n - 1]->kind != TM_MERGE__BLANK && !in_para)
		tm_buf_putc(out, '\n');
	put_list(out, second, k, second->n);
}

/* Whether gap g follows a prose line of the ancestor (what is inserted
 * there without a blank line continues its paragraph). */
static bool in_para(const struct merger *mg, size_t g)
{
	return g && mg->o.u[g - 1].kind == TM_MERGE__PROSE;
}

static void put_both_at(struct merger *mg, size_t g)
{
	struct ulist a = {0}, b = {0};

	insertions(&a, mg, 1, g);
	insertions(&b, mg, 2, g);
	put_both(mg->out, &a, &b, mg->lead, in_para(mg, g));
	ulist_free(&a);
	ulist_free(&b);
}

/* Conflict markers around what each side has (and the ancestor's, in the
 * diff3 styles); but diff3, what both sides start or end with alike is
 * written outside them, as git's zealous merge does. */
static void put_conflict(struct merger *mg, const struct ulist *a,
			 const struct ulist *o, const struct ulist *b)
{
	const tm_merge_options *opts = mg->opts;
	size_t pre = 0, suf = 0;

	if (opts->style != TM_CONFLICT_STYLE_DIFF3) {
		while (pre < a->n && pre < b->n &&
		       bytes_eq(a->u[pre], b->u[pre]))
			pre++;
		while (suf < a->n - pre && suf < b->n - pre &&
		       bytes_eq(a->u[a->n - 1 - suf], b->u[b->n - 1 - suf]))
			suf++;
	}
	put_list(mg->out, a, 0, pre);
	tm_merge__put_marker(mg->out, '<', opts->marker_size, opts->our_label);
	put_list(mg->out, a, pre, a->n - suf);
	if (opts->style != TM_CONFLICT_STYLE_MERGE) {
		tm_merge__put_marker(mg->out, '|', opts->marker_size,
				     opts->ancestor_label);
		put_list(mg->out, o, 0, o->n);
	}
	tm_merge__put_marker(mg->out, '=', opts->marker_size, NULL);
	put_list(mg->out, b, pre, b->n - suf);
	tm_merge__put_marker(mg->out, '>', opts->marker_size,
			     opts->their_label);
	put_list(mg->out, a, a->n - suf, a->n);
	mg->conflicted = true;
}

/* The lines of a unit after its first one. */
static struct tm_merge__span rest_of(const struct tm_merge__unit *u)
{
	struct tm_merge__span s = {u->p + u->head, u->len - u->head};

	return s;
}

static bool span_is(const struct tm_merge__span *x,
		    const struct tm_merge__span *y)
{
	return tm_merge__span_eq(x, y);
}

/*
 * An item reworded on both sides: merged line by line when the sides
 * changed different parts of it (its first line on one side, its
 * sub-items, merged as a text, on the other or both), else a conflict on
 * that item alone.
 */
static void put_reworded(struct merger *mg, size_t i,
			 const struct tm_merge__unit *a,
			 const struct tm_merge__unit *b)
{
	const struct tm_merge__unit *o = &mg->o.u[i], *head;
	struct tm_merge__units h[3];
	struct tm_merge__span r[3];
	struct ulist la = {0}, lo = {0}, lb = {0};
	tm_buf sub = TM_BUF_INIT;
	bool c = false;
	int x;

	if (a->kind == TM_MERGE__ITEM && b->kind == TM_MERGE__ITEM &&
	    o->kind == TM_MERGE__ITEM && mg->depth < MAX_DEPTH) {
		/* the first lines, compared by key (numbers aside) */
		tm_merge__units_split(&h[0], o->p, o->head);
		tm_merge__units_split(&h[1], a->p, a->head);
		tm_merge__units_split(&h[2], b->p, b->head);
		if (tm_merge__unit_eq(&h[1], 0, &h[2], 0) ||
		    tm_merge__unit_eq(&h[0], 0, &h[2], 0))
			head = a;
		else if (tm_merge__unit_eq(&h[0], 0, &h[1], 0))
			head = b;
		else
			head = NULL;
		for (x = 0; x < 3; x++)
			tm_merge__units_free(&h[x]);
		r[0] = rest_of(o);
		r[1] = rest_of(a);
		r[2] = rest_of(b);
		if (head) {
			if (span_is(&r[1], &r[2]) || span_is(&r[0], &r[2]))
				tm_buf_put(&sub, r[1].p, r[1].len);
			else if (span_is(&r[0], &r[1]))
				tm_buf_put(&sub, r[2].p, r[2].len);
			else
				tm_merge__lines(&sub, &c, r, mg->opts, mg->lead,
						mg->depth + 1);
			if (!c) {
				tm_buf_put(mg->out, head->p, head->head);
				tm_buf_put(mg->out, sub.ptr, sub.size);
				tm_buf_release(&sub);
				return;
			}
		}
		tm_buf_release(&sub);
	}
	ulist_add(&la, a);
	ulist_add(&lo, o);
	ulist_add(&lb, b);
	put_conflict(mg, &la, &lo, &lb);
	ulist_free(&la);
	ulist_free(&lo);
	ulist_free(&lb);
}

/* What side x has in the place [lo, hi]: its own units, as they are. */
static void actual(struct ulist *l, const struct merger *mg, int x, size_t lo,
		   size_t hi)
{
	const struct tm_merge__side *s = &mg->s[x];
	size_t from = lo ? s->mo[lo - 1] + 1 : 0;
	size_t to = hi < mg->o.n ? s->mo[hi] : s->u.n, j;

	for (j = from; j < to; j++)
		ulist_add(l, &s->u.u[j]);
}

/* What side x makes of the place [lo, hi] once agreed and moved units
 * are settled. */
static void effective(struct ulist *l, const struct merger *mg, int x,
		      size_t lo, size_t hi)
{
	const struct tm_merge__side *s = &mg->s[x];
	size_t g;

	for (g = lo; g <= hi; g++) {
		insertions(l, mg, x, g);
		if (g == hi)
			break;
		if (state_of(s, g) == KEPT)
			ulist_add(l, &s->u.u[s->mo[g]]);
		else if (state_of(s, g) == REWORDED)
			ulist_add(l, &s->u.u[s->rep[g]]);
	}
}

/* Whether side x's insertions at gap g hold prose. */
static bool inserts_prose(const struct merger *mg, int x, size_t g)
{
	const struct tm_merge__side *s = &mg->s[x];
	size_t j;

	if (s->lo[g] == NONE)
		return false;
	for (j = s->lo[g]; j < s->hi[g]; j++)
		if (!s->drop[j] && text_of(mg, x, j)->kind == TM_MERGE__PROSE)
			return true;
	return false;
}

/*
 * Whether the sides' changes of the place [lo, hi] meet on prose, which
 * is a conflict as in git: both changed prose there (inserted a prose
 * line, or deleted one the other side kept), or both inserted at one gap
 * and one of them prose.  A prose line both deleted is agreed.
 */
static bool prose_meets(const struct merger *mg, size_t lo, size_t hi)
{
	bool p[3] = {false, false, false};
	enum state st[3];
	size_t g;
	int x;

	for (g = lo; g <= hi; g++) {
		for (x = 1; x <= 2; x++)
			p[x] = p[x] || inserts_prose(mg, x, g);
		if (inserts_at(&mg->s[1], g) && inserts_at(&mg->s[2], g) &&
		    (inserts_prose(mg, 1, g) || inserts_prose(mg, 2, g)))
			return true;
		if (g == hi || mg->o.u[g].kind != TM_MERGE__PROSE)
			continue;
		st[1] = state_of(&mg->s[1], g);
		st[2] = state_of(&mg->s[2], g);
		for (x = 1; x <= 2; x++)
			p[x] = p[x] || (st[x] != KEPT && st[3 - x] == KEPT);
	}
	return p[1] && p[2];
}

/* A place both sides changed: base units [lo, hi) and the gaps around. */
static void put_place(struct merger *mg, size_t lo, size_t hi)
{
	struct ulist a = {0}, b = {0}, o = {0};
	enum state sa, sb;
	size_t g;

	effective(&a, mg, 1, lo, hi);
	effective(&b, mg, 2, lo, hi);
	if (lists_eq(&a, &b)) {
		put_list(mg->out, &a, 0, a.n);
	} else if (lo == hi) {
		put_both(mg->out, &a, &b, mg->lead, in_para(mg, lo));
	} else if (prose_meets(mg, lo, hi)) {
		a.n = b.n = 0;
		actual(&a, mg, 1, lo, hi);
		actual(&b, mg, 2, lo, hi);
		for (g = lo; g < hi; g++)
			ulist_add(&o, &mg->o.u[g]);
		put_conflict(mg, &a, &o, &b);
	} else {
		for (g = lo; g <= hi; g++) {
			put_both_at(mg, g);
			if (g == hi)
				break;
			sa = state_of(&mg->s[1], g);
			sb = state_of(&mg->s[2], g);
			if (sa == REWORDED && sb == REWORDED &&
			    !bytes_eq(&mg->s[1].u.u[mg->s[1].rep[g]],
				      &mg->s[2].u.u[mg->s[2].rep[g]]))
				put_reworded(mg, g,
					     &mg->s[1].u.u[mg->s[1].rep[g]],
					     &mg->s[2].u.u[mg->s[2].rep[g]]);
			else if (sa == REWORDED)
				put_unit(mg->out,
					 &mg->s[1].u.u[mg->s[1].rep[g]]);
			else if (sb == REWORDED)
				put_unit(mg->out,
					 &mg->s[2].u.u[mg->s[2].rep[g]]);
			else if (sa == KEPT && sb == KEPT)
				put_kept(mg, g);
		}
	}
	ulist_free(&a);
	ulist_free(&b);
	ulist_free(&o);
}

/* The places side x changed, in half-positions (gap g is 2g, base unit i
 * spans 2i to 2i + 2): whether it changed the point `at`. */
static bool touches(const struct merger *mg, int x, size_t at)
{
	const struct tm_merge__side *s = &mg->s[x];

	if (at % 2 == 0 && inserts_at(s, at / 2))
		return true;
	/* unit i spans [2i, 2i + 2]: at touches units (at - 1) / 2 and at / 2
	 * when even, (at - 1) / 2 when odd */
	if (at % 2) {
		return state_of(s, at / 2) != KEPT;
	}
	return (at / 2 < mg->o.n && state_of(s, at / 2) != KEPT) ||
	       (at >= 2 && state_of(s, at / 2 - 1) != KEPT);
}

/*
 * Walk the ancestor: units both kept are written as they are; a place
 * only one side changed takes that side's text; a place both changed
 * (their changes overlap or touch, as in git) goes to put_place.  A place
 * starts and ends on a gap: a changed unit touches the gaps around it.
 */
static void walk(struct merger *mg)
{
	size_t end = 2 * mg->o.n, at, start;
	struct ulist l = {0};
	bool in[3];
	int x;

	for (at = 0; at <= end; at++) {
		in[1] = touches(mg, 1, at);
		in[2] = touches(mg, 2, at);
		if (!in[1] && !in[2]) {
			if (at % 2)
				put_kept(mg, at / 2);
			continue;
		}
		for (start = at; at < end && (touches(mg, 1, at + 1) ||
					      touches(mg, 2, at + 1));) {
			at++;
			for (x = 1; x <= 2; x++)
				in[x] = in[x] || touches(mg, x, at);
		}
		if (in[1] && in[2]) {
			put_place(mg, start / 2, at / 2);
			continue;
		}
		l.n = 0;
		effective(&l, mg, in[1] ? 1 : 2, start / 2, at / 2);
		put_list(mg->out, &l, 0, l.n);
	}
	ulist_free(&l);
}

void tm_merge__lines(tm_buf *out, bool *conflicted,
		     const struct tm_merge__span s[3],
		     const tm_merge_options *opts, tm_merge__lead lead,
		     int depth)
{
	struct merger mg;
	tm_buf lf[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	struct tm_merge__span t[3];
	size_t start = out->size;
	bool nl = false, numbered = true;
	int x;

	if (tm_merge__span_eq(&s[1], &s[2]) ||
	    tm_merge__span_eq(&s[0], &s[2])) {
		tm_buf_put(out, s[1].p, s[1].len);
		return;
	}
	if (tm_merge__span_eq(&s[0], &s[1])) {
		tm_buf_put(out, s[2].p, s[2].len);
		return;
	}
	/* every side ends in LF while merged */
	for (x = 0; x < 3; x++) {
		t[x] = s[x];
		if (s[x].len && s[x].p[s[x].len - 1] != '\n') {
			tm_buf_put(&lf[x], s[x].p, s[x].len);
			tm_buf_putc(&lf[x], '\n');
			t[x].p = lf[x].ptr;
			t[x].len = lf[x].size;
		} else if (x) {
			nl = true;
		}
		numbered = numbered &&
			   tm_merge__numbered_consecutively(t[x].p, t[x].len);
	}
	memset(&mg, 0, sizeof(mg));
	mg.opts = opts;
	mg.lead = lead;
	mg.depth = depth;
	mg.out = out;
	tm_merge__units_split(&mg.o, t[0].p, t[0].len);
	for (x = 1; x <= 2; x++)
		tm_merge__side_init(&mg.s[x], &mg.o, &t[x]);
	settle_moves(&mg);
	agree(&mg);
	walk(&mg);
	if (!mg.conflicted && numbered)
		tm_merge__renumber(out, start);
	/* no final newline when neither side had one */
	if (!nl && out->size > start && out->ptr[out->size - 1] == '\n')
		tm_buf_truncate(out, out->size - 1);
	*conflicted |= mg.conflicted;
	tm_merge__units_free(&mg.o);
	for (x = 1; x <= 2; x++)
		tm_merge__side_free(&mg.s[x]);
	for (x = 0; x < 3; x++)
		tm_buf_release(&lf[x]);
}
