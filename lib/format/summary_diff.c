/*
 * Two versions of a summary compared by `## ` section and, inside a
 * section, by item (see summary_diff.h).
 */
#include "summary_diff.h"
#include "buf.h"
#include "hashmap.h"
#include "seq.h"
#include "section.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Past this many item pairs a section's middle is not aligned. */
#define MAX_LCS_CELLS (4u * 1024 * 1024)
/* Past this many unpaired section pairs, no pairing by content. */
#define MAX_CONTENT_PAIRS (1024u * 1024)

#define NONE SIZE_MAX

struct unit {
	const char *text; /* lines joined with LF, in the side's pool */
	size_t off;       /* where, while the pool grows */
	bool item;
};

struct sec {
	char *heading; /* NULL: the preamble */
	char *key;     /* tm_section_heading_key (computed when pairing) */
	struct unit *u;
	size_t n;
	char *content; /* every unit's text, for pairing by content (computed
			  then) */
	size_t pair;   /* the index of its section on the other side */
	bool done;     /* emitted (old side) */
};

struct side {
	struct sec *s;
	size_t n;
	tm_buf pool; /* every unit's text, each ending in NUL */
};

static bool blank(const char *p, const char *e)
{
	for (; p < e; p++)
		if (*p != ' ' && *p != '\t')
			return false;
	return true;
}

/* Split [p, e) (a section without its heading) into items, their texts
 * appended to `pool`. */
static void units_of(struct sec *s, tm_buf *pool, const char *p, const char *e)
{
	size_t alloc = 0;
	bool in_item = false;

	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *end = nl ? nl : e, *next = nl ? nl + 1 : e;
		bool item;

		while (end > p &&
		       (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (blank(p, end)) {
			in_item = false;
			p = next;
			continue;
		}
		item = tm_section_is_list_item(p, end);
		if (in_item && !item && (*p == ' ' || *p == '\t')) {
			/* the unit is the last text of the pool: its NUL
			 * becomes the LF before this line */
			pool->ptr[pool->size - 1] = '\n';
		} else {
			tm_xgrow((void **)&s->u, &alloc, s->n + 1,
				 sizeof(*s->u));
			s->u[s->n].off = pool->size;
			s->u[s->n].item = item;
			s->n++;
			in_item = item;
		}
		tm_buf_put(pool, p, (size_t)(end - p));
		tm_buf_putc(pool, '\0');
		p = next;
	}
}

static void side_split(struct side *sd, const char *text, size_t len)
{
	tm_section_list l = TM_SECTION_LIST_INIT;
	size_t i;

	tm_section_split(&l, text, len);
	sd->n = l.n;
	sd->s = tm_xcalloc(l.n + 1, sizeof(*sd->s));
	tm_buf_init(&sd->pool);
	/* at most the text and a NUL per line: one allocation */
	tm_buf_grow(&sd->pool, len + len / 8 + 16);
	for (i = 0; i < l.n; i++) {
		struct sec *s = &sd->s[i];
		const tm_section *t = &l.items[i];

		s->heading = tm_xstrdup_or_null(t->heading);
		units_of(s, &sd->pool, t->text + t->body, t->text + t->len);
		s->pair = NONE;
	}
	for (i = 0; i < l.n; i++) {
		struct sec *s = &sd->s[i];
		size_t k;

		for (k = 0; k < s->n; k++)
			s->u[k].text = sd->pool.ptr + s->u[k].off;
	}
	tm_section_list_clear(&l);
}

/* Every unit's text of a section, each ending in LF (malloc'd). */
static char *content_of(const struct sec *s)
{
	tm_buf c = TM_BUF_INIT;
	size_t k;

	for (k = 0; k < s->n; k++) {
		tm_buf_puts(&c, s->u[k].text);
		tm_buf_putc(&c, '\n');
	}
	return tm_buf_detach(&c);
}

static void side_free(struct side *sd)
{
	size_t i;

	for (i = 0; i < sd->n; i++)
		TM_FREE_ALL(sd->s[i].u, sd->s[i].heading, sd->s[i].key,
			    sd->s[i].content);
	free(sd->s);
	tm_buf_release(&sd->pool);
}

/* "<occurrence>\n<key>": the n-th section with a heading key. */
static char *occurrence_key(tm_hashmap *seen, struct sec *s)
{
	size_t *count, len;
	char num[24], *out;
	int n;

	if (!s->key)
		s->key = tm_section_heading_key(s->heading);
	count = tm_hashmap_puts(seen, s->key, 0);
	n = snprintf(num, sizeof(num), "%zu\n", (*count)++);
	len = strlen(s->key);
	out = tm_xmalloc((size_t)n + len + 1);
	memcpy(out, num, (size_t)n);
	memcpy(out + n, s->key, len + 1);
	return out;
}

/* Pair the sections of both sides: the preambles, then by heading, then
 * the rest by content (a renamed heading). */
static void pair_sections(struct side *o, struct side *n)
{
	tm_hashmap seen = TM_HASHMAP_INIT, by_key = TM_HASHMAP_INIT;
	size_t i, j, unpaired_o = 0, unpaired_n = 0;

	if (o->n && n->n) {
		o->s[0].pair = 0;
		n->s[0].pair = 0;
	}
	if (o->n < 2 || n->n < 2)
		return; /* a side with no headed section: nothing to pair */
	for (i = 1; i < o->n; i++) {
		char *k = occurrence_key(&seen, &o->s[i]);

		tm_hashmap_puts(&by_key, k, i);
		free(k);
	}
	tm_hashmap_release(&seen);
	for (j = 1; j < n->n; j++) {
		char *k = occurrence_key(&seen, &n->s[j]);
		size_t *at = tm_hashmap_gets(&by_key, k);

		if (at) {
			n->s[j].pair = *at;
			o->s[*at].pair = j;
		}
		free(k);
	}
	tm_hashmap_release(&seen);
	tm_hashmap_release(&by_key);
	for (i = 1; i < o->n; i++)
		unpaired_o += o->s[i].pair == NONE;
	for (j = 1; j < n->n; j++)
		unpaired_n += n->s[j].pair == NONE;
	if (!unpaired_o || !unpaired_n ||
	    unpaired_o > MAX_CONTENT_PAIRS / unpaired_n)
		return;
	for (i = 1; i < o->n; i++)
		if (o->s[i].pair == NONE)
			o->s[i].content = content_of(&o->s[i]);
	for (j = 1; j < n->n; j++) {
		if (n->s[j].pair != NONE || !n->s[j].n)
			continue;
		n->s[j].content = content_of(&n->s[j]);
		for (i = 1; i < o->n; i++)
			if (o->s[i].pair == NONE &&
			    !strcmp(o->s[i].content, n->s[j].content)) {
				n->s[j].pair = i;
				o->s[i].pair = j;
				break;
			}
	}
}

/*
 * moved[j] for each new section j: paired, but outside the longest run of
 * paired sections whose old indexes increase (O(k log k)).
 */
static void mark_moved(bool *moved, const struct side *n)
{
	size_t *v = tm_xcalloc(n->n + 1, sizeof(size_t));
	size_t *run = tm_xcalloc(n->n + 1, sizeof(size_t));
	size_t len, j;

	for (j = 0; j < n->n; j++) {
		v[j] = n->s[j].pair;
		moved[j] = v[j] != NONE;
	}
	len = tm_seq_lis(run, v, n->n, NONE);
	for (j = 0; j < len; j++)
		moved[run[j]] = false;
	free(v);
	free(run);
}

/* ---- items ---- */

enum op { KEEP, DEL, INS };

struct step {
	enum op op;
	size_t i, j;
};

static bool unit_eq(const struct unit *a, const struct unit *b)
{
	return !strcmp(a->text, b->text);
}

/* The edit script from a[0..n) to b[0..m): common start and end, a
 * longest common subsequence of the middle when small enough. */
static struct step *align(size_t *out_n, const struct unit *a, size_t n,
			  const struct unit *b, size_t m)
{
	size_t pre = 0, suf = 0, mn, mm, i, j, k = 0;
	struct step *st = tm_xcalloc(n + m + 1, sizeof(*st));
	uint32_t *t = NULL;

	while (pre < n && pre < m && unit_eq(&a[pre], &b[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre &&
	       unit_eq(&a[n - 1 - suf], &b[m - 1 - suf]))
		suf++;
	mn = n - pre - suf;
	mm = m - pre - suf;
	for (i = 0; i < pre; i++)
		st[k++] = (struct step){KEEP, i, i};
	if (mn && mm && (mn + 1) <= MAX_LCS_CELLS / (mm + 1)) {
		t = tm_xcalloc((mn + 1) * (mm + 1), sizeof(*t));
		for (i = mn; i-- > 0;)
			for (j = mm; j-- > 0;) {
				uint32_t down = t[(i + 1) * (mm + 1) + j];
				uint32_t right = t[i * (mm + 1) + j + 1];

				t[i * (mm + 1) + j] =
					unit_eq(&a[pre + i], &b[pre + j])
						? t[(i + 1) * (mm + 1) + j +
						    1] + 1
					: down > right ? down
						       : right;
			}
	}
	i = j = 0;
	while (i < mn || j < mm) {
		if (t && i < mn && j < mm &&
		    unit_eq(&a[pre + i], &b[pre + j])) {
			st[k++] = (struct step){KEEP, pre + i, pre + j};
			i++;
			j++;
		} else if (i < mn && (j == mm || !t ||
				      t[(i + 1) * (mm + 1) + j] >=
					      t[i * (mm + 1) + j + 1])) {
			st[k++] = (struct step){DEL, pre + i, 0};
			i++;
		} else {
			st[k++] = (struct step){INS, 0, pre + j};
			j++;
		}
	}
	for (i = 0; i < suf; i++)
		st[k++] = (struct step){KEEP, n - suf + i, m - suf + i};
	free(t);
	*out_n = k;
	return st;
}

/* The words of an item (its list marker left out), lower-cased ASCII,
 * sorted: letters, digits and non-ASCII bytes. */
static size_t words(char ***out, const char *text)
{
	const char *p = text;
	char **w = NULL;
	size_t n = 0, alloc = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (tm_section_is_list_item(p, p + strlen(p)))
		p += strcspn(p, " \t");
	while (*p) {
		const char *s;
		char *word;
		size_t i;

		while (*p &&
		       !((unsigned char)*p >= 0x80 ||
			 (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9')))
			p++;
		for (s = p;
		     *p &&
		     ((unsigned char)*p >= 0x80 || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'));
		     p++)
			;
		if (p == s)
			break;
		word = tm_xstrndup(s, (size_t)(p - s));
		for (i = 0; word[i]; i++)
			if (word[i] >= 'A' && word[i] <= 'Z')
				word[i] = (char)(word[i] - 'A' + 'a');
		tm_xgrow((void **)&w, &alloc, n + 1, sizeof(*w));
		w[n++] = word;
	}
	*out = w;
	return n;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void words_free(char **w, size_t n)
{
	while (n)
		free(w[--n]);
	free(w);
}

/* How alike two items are: 2 x the words they share / all their words. */
static double similarity(const char *x, const char *y)
{
	char **a, **b;
	size_t na = words(&a, x), nb = words(&b, y), i = 0, j = 0, common = 0;
	double sim;

	if (na)
		qsort(a, na, sizeof(*a), str_cmp);
	if (nb)
		qsort(b, nb, sizeof(*b), str_cmp);
	while (i < na && j < nb) {
		int c = strcmp(a[i], b[j]);

		if (!c) {
			common++;
			i++;
			j++;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	sim = na + nb ? 2.0 * (double)common / (double)(na + nb) : 1.0;
	words_free(a, na);
	words_free(b, nb);
	return sim;
}

static void push_unit(tm_sdiff_section *s, size_t *alloc,
		      tm_sdiff_change change, const struct unit *o,
		      const struct unit *n)
{
	tm_sdiff_unit *u;

	tm_xgrow((void **)&s->units, alloc, s->nunits + 1, sizeof(*s->units));
	u = &s->units[s->nunits++];
	u->change = change;
	u->item = (n ? n : o)->item;
	u->old_text = o ? o->text : NULL;
	u->new_text = n && change != TM_SDIFF_MOVED ? n->text : NULL;
	switch (change) {
	case TM_SDIFF_ADDED:
		s->added++;
		break;
	case TM_SDIFF_REMOVED:
		s->removed++;
		break;
	case TM_SDIFF_REWORDED:
		s->reworded++;
		break;
	case TM_SDIFF_MOVED:
		s->moved_units++;
		break;
	}
}

/* Pair the removed and added items of one run (between two kept ones):
 * with[d] is the added item (index in ins) reworded from dels[d]. */
static void pair_run(size_t *with, const struct unit *a, const size_t *dels,
		     size_t nd, const struct unit *b, const size_t *ins,
		     size_t ni, const bool *taken_b)
{
	size_t d, k, from = 0, free_d = 0, free_i = 0, fd = 0, fi = 0;

	for (d = 0; d < nd; d++)
		with[d] = NONE;
	for (d = 0; d < nd; d++)
		if (dels[d] != NONE)
			free_d++, fd = d;
	for (k = 0; k < ni; k++)
		if (!taken_b[ins[k]])
			free_i++, fi = k;
	if (free_d == 1 && free_i == 1) {
		if (a[dels[fd]].item == b[ins[fi]].item)
			with[fd] = fi;
		return;
	}
	for (d = 0; d < nd; d++) {
		size_t best = NONE;
		double best_sim = 0.5;

		if (dels[d] == NONE)
			continue;
		for (k = from; k < ni; k++) {
			double sim;

			if (taken_b[ins[k]] ||
			    a[dels[d]].item != b[ins[k]].item)
				continue;
			sim = similarity(a[dels[d]].text, b[ins[k]].text);
			if (sim >= best_sim &&
			    (best == NONE || sim > best_sim)) {
				best = k;
				best_sim = sim;
			}
		}
		if (best != NONE) {
			with[d] = best;
			from = best + 1;
		}
	}
}

/* The items of a section on both sides compared into s->units. */
static void diff_units(tm_sdiff_section *s, const struct sec *o,
		       const struct sec *n)
{
	size_t nsteps, k, r, alloc = 0;
	struct step *st = align(&nsteps, o->u, o->n, n->u, n->n);
	bool *moved_a = tm_xcalloc(o->n + 1, sizeof(bool));
	bool *taken_b = tm_xcalloc(n->n + 1, sizeof(bool));
	size_t *moved_from = tm_xcalloc(n->n + 1, sizeof(size_t));
	tm_hashmap dels = TM_HASHMAP_INIT;

	for (k = 0; k < n->n; k++)
		moved_from[k] = NONE;
	/* an item removed here and added there: moved */
	for (k = 0; k < nsteps; k++)
		if (st[k].op == DEL) {
			size_t *at = tm_hashmap_puts(&dels, o->u[st[k].i].text,
						     NONE);

			if (*at == NONE)
				*at = st[k].i;
		}
	for (k = 0; k < nsteps; k++) {
		size_t *at;

		if (st[k].op != INS)
			continue;
		at = tm_hashmap_gets(&dels, n->u[st[k].j].text);
		if (!at || *at == NONE)
			continue;
		moved_a[*at] = true;
		taken_b[st[k].j] = true;
		moved_from[st[k].j] = *at;
		*at = NONE;
		/* a second copy removed elsewhere pairs with the next one */
		for (r = 0; r < nsteps; r++)
			if (st[r].op == DEL && !moved_a[st[r].i] &&
			    !strcmp(o->u[st[r].i].text, n->u[st[k].j].text)) {
				*tm_hashmap_puts(&dels, o->u[st[r].i].text,
						 NONE) = st[r].i;
				break;
			}
	}
	tm_hashmap_release(&dels);
	for (k = 0; k < nsteps;) {
		size_t end = k, nd = 0, ni = 0, d, i;
		size_t *dl, *il, *with;

		if (st[k].op == KEEP) {
			k++;
			continue;
		}
		while (end < nsteps && st[end].op != KEEP)
			end++;
		dl = tm_xcalloc(end - k + 1, sizeof(size_t));
		il = tm_xcalloc(end - k + 1, sizeof(size_t));
		with = tm_xcalloc(end - k + 1, sizeof(size_t));
		for (r = k; r < end; r++) {
			if (st[r].op == DEL)
				dl[nd++] = moved_a[st[r].i] ? NONE : st[r].i;
			else
				il[ni++] = st[r].j;
		}
		pair_run(with, o->u, dl, nd, n->u, il, ni, taken_b);
		for (d = 0; d < nd; d++)
			if (dl[d] != NONE && with[d] == NONE)
				push_unit(s, &alloc, TM_SDIFF_REMOVED,
					  &o->u[dl[d]], NULL);
		for (i = 0; i < ni; i++) {
			size_t j = il[i], from = NONE;

			for (d = 0; d < nd; d++)
				if (with[d] == i)
					from = dl[d];
			if (from != NONE)
				push_unit(s, &alloc, TM_SDIFF_REWORDED,
					  &o->u[from], &n->u[j]);
			else if (moved_from[j] != NONE)
				push_unit(s, &alloc, TM_SDIFF_MOVED,
					  &o->u[moved_from[j]], &n->u[j]);
			else
				push_unit(s, &alloc, TM_SDIFF_ADDED, NULL,
					  &n->u[j]);
		}
		TM_FREE_ALL(dl, il, with);
		k = end;
	}
	TM_FREE_ALL(st, moved_a, taken_b, moved_from);
}

static bool same_units(const struct sec *o, const struct sec *n)
{
	size_t k;

	if (o->n != n->n)
		return false;
	for (k = 0; k < o->n; k++)
		if (!unit_eq(&o->u[k], &n->u[k]) ||
		    o->u[k].item != n->u[k].item)
			return false;
	return true;
}

static tm_sdiff_section *push_section(tm_sdiff *out,
				      tm_sdiff_section_change change,
				      const struct sec *o, const struct sec *n)
{
	tm_sdiff_section *s;

	tm_xgrow((void **)&out->items, &out->alloc, out->n + 1,
		 sizeof(*out->items));
	s = &out->items[out->n++];
	memset(s, 0, sizeof(*s));
	s->change = change;
	s->preamble = !(o ? o : n)->heading;
	s->old_heading = o ? tm_xstrdup_or_null(o->heading) : NULL;
	s->new_heading = n ? tm_xstrdup_or_null(n->heading) : NULL;
	return s;
}

/* A section added or removed whole. */
static void whole(tm_sdiff *out, struct sec *s, bool added)
{
	tm_sdiff_section *d = push_section(
		out, added ? TM_SDIFF_SECTION_ADDED : TM_SDIFF_SECTION_REMOVED,
		added ? NULL : s, added ? s : NULL);
	size_t k, alloc = 0;

	for (k = 0; k < s->n; k++)
		push_unit(d, &alloc, added ? TM_SDIFF_ADDED : TM_SDIFF_REMOVED,
			  added ? NULL : &s->u[k], added ? &s->u[k] : NULL);
}

static void removed_before(tm_sdiff *out, struct side *o, size_t *lo,
			   size_t upto)
{
	size_t k;

	for (k = *lo; k < upto && k < o->n; k++)
		if (o->s[k].pair == NONE && !o->s[k].done) {
			o->s[k].done = true;
			/* an empty preamble is no section */
			if (k || o->s[k].n)
				whole(out, &o->s[k], false);
		}
	while (*lo < o->n && (o->s[*lo].done || o->s[*lo].pair != NONE))
		(*lo)++;
}

/*
 * Give back what the arrays grew past their items: a diff of 10,000 added
 * threads keeps 10,000 of them, and tm_xgrow's first 8 slots per array
 * were half of its peak memory (massif).
 */
static void fit(tm_sdiff *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		tm_sdiff_section *s = &d->items[i];

		if (s->nunits) {
			s->units = tm_xrealloc(s->units,
					       s->nunits * sizeof(*s->units));
		} else {
			free(s->units);
			s->units = NULL;
		}
	}
	if (d->n) {
		d->items = tm_xrealloc(d->items, d->n * sizeof(*d->items));
		d->alloc = d->n;
	}
}

/*
 * The pool of side k (0 old, 1 new) shrunk to its texts, given to `d`:
 * the units' texts of that side (old_text for side 0, new_text for side
 * 1) are moved with it, as realloc may move the block.
 */
static char *keep_pool(tm_sdiff *d, tm_buf *pool, int k)
{
	uintptr_t from = (uintptr_t)pool->ptr, to;
	char *kept = tm_xrealloc(pool->ptr, pool->size + 1);
	size_t i, j;

	to = (uintptr_t)kept;
	tm_buf_init(pool);
	for (i = 0; from != to && i < d->n; i++)
		for (j = 0; j < d->items[i].nunits; j++) {
			const char **t = k ? &d->items[i].units[j].new_text
					   : &d->items[i].units[j].old_text;

			if (*t)
				*t = kept + ((uintptr_t)*t - from);
		}
	return kept;
}

void tm_sdiff_summaries(tm_sdiff *out, const char *old, size_t old_len,
			const char *new_text, size_t new_len)
{
	struct side o, n;
	bool *moved;
	size_t j, lo = 0;

	side_split(&o, old, old_len);
	side_split(&n, new_text, new_len);
	pair_sections(&o, &n);
	moved = tm_xcalloc(n.n + 1, sizeof(bool));
	mark_moved(moved, &n);
	for (j = 0; j < n.n; j++) {
		struct sec *ns = &n.s[j];
		size_t i = ns->pair;
		bool renamed;
		tm_sdiff_section *d;

		if (i == NONE) {
			if (j || ns->n)
				whole(out, ns, true);
			continue;
		}
		removed_before(out, &o, &lo, i);
		o.s[i].done = true;
		renamed = (o.s[i].heading && ns->heading &&
			   strcmp(o.s[i].heading, ns->heading));
		if (same_units(&o.s[i], ns)) {
			if (!renamed && !moved[j])
				continue;
			d = push_section(out, TM_SDIFF_SECTION_KEPT, &o.s[i],
					 ns);
		} else {
			d = push_section(out, TM_SDIFF_SECTION_CHANGED, &o.s[i],
					 ns);
			diff_units(d, &o.s[i], ns);
		}
		d->renamed = renamed;
		d->moved = moved[j];
	}
	removed_before(out, &o, &lo, o.n);
	fit(out);
	if (out->n) {
		/* the units point into the pools: they go with the diff */
		out->pools[0] = keep_pool(out, &o.pool, 0);
		out->pools[1] = keep_pool(out, &n.pool, 1);
	}
	free(moved);
	side_free(&o);
	side_free(&n);
}

bool tm_sdiff_changed(const tm_sdiff *d)
{
	return d->n > 0;
}

void tm_sdiff_totals(const tm_sdiff *d, size_t *added, size_t *removed,
		     size_t *reworded, size_t *moved)
{
	size_t i, a = 0, r = 0, w = 0, m = 0;

	for (i = 0; i < d->n; i++) {
		a += d->items[i].added;
		r += d->items[i].removed;
		w += d->items[i].reworded;
		m += d->items[i].moved_units;
	}
	if (added)
		*added = a;
	if (removed)
		*removed = r;
	if (reworded)
		*reworded = w;
	if (moved)
		*moved = m;
}

void tm_sdiff_clear(tm_sdiff *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		tm_sdiff_section *s = &d->items[i];

		TM_FREE_ALL(s->units, s->old_heading, s->new_heading);
	}
	TM_FREE_ALL(d->items, d->pools[0], d->pools[1]);
	memset(d, 0, sizeof(*d));
}
