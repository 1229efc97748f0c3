/*
 * The units a Markdown text is merged by (a blank line, a prose line, a
 * list item with its continuation lines) and the diff of two unit
 * sequences (see merge_internal.h).
 *
 * Why not libgit2's xdiff (git_merge_file): a list item must be one unit
 * with its sub-items and compare without its number, which a line diff
 * cannot do, and the merge built on this diff must not depend on which
 * side is ours.  It also keeps libgit2 uninitialised in the driver: its
 * TLS and SSH set-up was most of the driver's start-up (docs/merge.md,
 * "Speed").
 */
#include "merge_internal.h"
#include "seq.h"
#include "hashmap.h"
#include "section.h"

#include <stdlib.h>
#include <string.h>

/* Gaps up to this many unit pairs are compared exactly at once. */
#define SMALL_CELLS (64u * 1024)
/* Gaps without anchors are compared exactly up to this many pairs. */
#define MAX_CELLS (4u * 1024 * 1024)
/* Anchors are looked for this many levels deep at most. */
#define MAX_DEPTH 48

/* The column of the first non-blank character (a tab to the next
 * multiple of 4). */
static size_t indent_of(const char *p, const char *e)
{
	size_t w = 0;

	for (; p < e && (*p == ' ' || *p == '\t'); p++)
		w = *p == '\t' ? (w / 4 + 1) * 4 : w + 1;
	return w;
}

/* A line's key: an ordered-list item's number made `#`. */
static void put_line_key(tm_buf *keys, const char *p, const char *e)
{
	const char *q = p, *d;

	if (tm_section_is_list_item(p, e)) {
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		for (d = q; d < e && *d >= '0' && *d <= '9'; d++)
			;
		if (d > q) {
			tm_buf_put(keys, p, (size_t)(q - p));
			tm_buf_putc(keys, '#');
			tm_buf_put(keys, d, (size_t)(e - d));
			return;
		}
	}
	tm_buf_put(keys, p, (size_t)(e - p));
}

static void add_unit(struct tm_merge__units *us, size_t *alloc, const char *p,
		     const char *q, const char *head_end,
		     enum tm_merge__kind kind)
{
	struct tm_merge__unit *u;
	const char *l, *e;

	tm_xgrow((void **)&us->u, alloc, us->n + 1, sizeof(*us->u));
	u = &us->u[us->n++];
	u->p = p;
	u->len = (size_t)(q - p);
	u->head = (size_t)(head_end - p);
	u->kind = kind;
	u->key = NULL;
	u->klen =
		us->keys.size; /* where it starts, until the keys are all in */
	if (kind == TM_MERGE__ITEM) {
		for (l = p; l < q; l = tm_section_next_line(l, q)) {
			if (l > p)
				tm_buf_putc(&us->keys, '\n');
			e = tm_section_line_end(l, q);
			put_line_key(&us->keys, l, e);
		}
	} else if (kind == TM_MERGE__PROSE) {
		tm_buf_put(&us->keys, p,
			   (size_t)(tm_section_line_end(p, q) - p));
	}
	u->klen = us->keys.size - u->klen;
}

/* The end of the item starting at `p` (whose line ends at `e`): past the
 * lines indented deeper than its marker and the blank lines among them. */
static const char *item_end(const char *p, const char *e, const char *end)
{
	size_t w = indent_of(p, e);
	const char *q = tm_section_next_line(p, end), *t;

	for (;;) {
		for (t = q; t < end && tm_section_line_blank(
					       t, tm_section_line_end(t, end));)
			t = tm_section_next_line(t, end);
		if (t >= end || indent_of(t, tm_section_line_end(t, end)) <= w)
			return q;
		q = tm_section_next_line(t, end);
	}
}

void tm_merge__units_split(struct tm_merge__units *us, const char *text,
			   size_t len)
{
	const char *p = text, *end = text + len, *e, *q;
	size_t alloc = 0, flen = 0, n, off;
	bool fenced = false;
	char fch = 0, ch;

	memset(us, 0, sizeof(*us));
	while (p < end) {
		e = tm_section_line_end(p, end);
		q = tm_section_next_line(p, end);
		if (fenced) {
			if (tm_section_fence(p, e, &ch, &n, true) &&
			    ch == fch && n >= flen)
				fenced = false;
			add_unit(us, &alloc, p, q, q, TM_MERGE__PROSE);
		} else if (tm_section_fence(p, e, &fch, &flen, false)) {
			fenced = true;
			add_unit(us, &alloc, p, q, q, TM_MERGE__PROSE);
		} else if (tm_section_line_blank(p, e)) {
			add_unit(us, &alloc, p, q, q, TM_MERGE__BLANK);
		} else if (tm_section_is_list_item(p, e)) {
			add_unit(us, &alloc, p, item_end(p, e, end), q,
				 TM_MERGE__ITEM);
			q = us->u[us->n - 1].p + us->u[us->n - 1].len;
		} else {
			add_unit(us, &alloc, p, q, q, TM_MERGE__PROSE);
		}
		p = q;
	}
	/* the keys' buffer has stopped moving: point into it */
	for (n = 0, off = 0; n < us->n; n++) {
		us->u[n].key = us->keys.ptr ? us->keys.ptr + off : "";
		off += us->u[n].klen;
		us->u[n].hash = tm_hash_bytes(us->u[n].key, us->u[n].klen);
	}
}

void tm_merge__units_free(struct tm_merge__units *us)
{
	free(us->u);
	tm_buf_release(&us->keys);
	memset(us, 0, sizeof(*us));
}

bool tm_merge__unit_eq(const struct tm_merge__units *x, size_t i,
		       const struct tm_merge__units *y, size_t j)
{
	const struct tm_merge__unit *a = &x->u[i], *b = &y->u[j];

	return a->hash == b->hash && a->klen == b->klen &&
	       (!a->klen || !memcmp(a->key, b->key, a->klen));
}

struct differ {
	const struct tm_merge__units *o, *x;
	size_t *mo, *mx;
};

static void match(struct differ *d, size_t i, size_t j)
{
	d->mo[i] = j;
	d->mx[j] = i;
}

/* The exact LCS of o[lo, hi) and x[xlo, xhi) (its cells are bounded). */
static void lcs(struct differ *d, size_t lo, size_t hi, size_t xlo, size_t xhi)
{
	size_t n = hi - lo, m = xhi - xlo, i, j, w = m + 1;
	uint32_t *t = tm_xcalloc((n + 1) * w, sizeof(*t));

	for (i = n; i-- > 0;)
		for (j = m; j-- > 0;)
			t[i * w + j] =
				tm_merge__unit_eq(d->o, lo + i, d->x, xlo + j)
					? t[(i + 1) * w + j + 1] + 1
				: t[(i + 1) * w + j] >= t[i * w + j + 1]
					? t[(i + 1) * w + j]
					: t[i * w + j + 1];
	i = j = 0;
	while (i < n && j < m) {
		if (tm_merge__unit_eq(d->o, lo + i, d->x, xlo + j)) {
			match(d, lo + i, xlo + j);
			i++;
			j++;
		} else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
			i++;
		} else {
			j++;
		}
	}
	free(t);
}

/* A key of the range: how often each side has it, and where. */
struct slot {
	uint64_t hash;
	size_t io, ix, co, cx;
	bool used;
};

/* The slot of `hash` in t (mask + 1 slots, never full): its own, or the
 * free one where it would go. */
static struct slot *slot_of(struct slot *t, size_t mask, uint64_t hash)
{
	size_t k;

	for (k = hash & mask; t[k].used && t[k].hash != hash;
	     k = (k + 1) & mask)
		;
	return &t[k];
}

/*
 * The anchors of o[lo, hi) against x[xlo, xhi): the pairs of non-blank
 * units whose key each range holds once, in o's order, then the longest
 * run of them in order on x too.  Returns how many, in *ai / *aj.
 */
static size_t anchors(const struct differ *d, size_t lo, size_t hi, size_t xlo,
		      size_t xhi, size_t **ai, size_t **aj)
{
	size_t cap = 16, mask, i, j, n = 0, len;
	struct slot *t, *s;
	size_t *pi, *pj, *run;

	while (cap < 2 * (hi - lo + xhi - xlo))
		cap *= 2;
	mask = cap - 1;
	t = tm_xcalloc(cap, sizeof(*t));
	for (i = lo; i < hi; i++) {
		if (d->o->u[i].kind == TM_MERGE__BLANK)
			continue;
		s = slot_of(t, mask, d->o->u[i].hash);
		if (!s->used) {
			s->used = true;
			s->hash = d->o->u[i].hash;
			s->io = i;
		}
		s->co++;
	}
	for (j = xlo; j < xhi; j++) {
		if (d->x->u[j].kind == TM_MERGE__BLANK)
			continue;
		s = slot_of(t, mask, d->x->u[j].hash);
		if (!s->used)
			continue;
		s->cx++;
		s->ix = j;
	}
	pi = tm_xcalloc(hi - lo + 1, sizeof(size_t));
	pj = tm_xcalloc(hi - lo + 1, sizeof(size_t));
	for (i = lo; i < hi; i++) {
		if (d->o->u[i].kind == TM_MERGE__BLANK)
			continue;
		s = slot_of(t, mask, d->o->u[i].hash); /* o's: used */
		/* a hash collision between different keys is no anchor */
		if (s->co == 1 && s->cx == 1 &&
		    tm_merge__unit_eq(d->o, i, d->x, s->ix)) {
			pi[n] = i;
			pj[n] = s->ix;
			n++;
		}
	}
	free(t);
	/* the longest increasing run of pj */
	run = tm_xcalloc(n + 1, sizeof(size_t));
	len = tm_seq_lis(run, pj, n, TM_MERGE__NONE);
	*ai = tm_xcalloc(len + 1, sizeof(size_t));
	*aj = tm_xcalloc(len + 1, sizeof(size_t));
	for (i = 0; i < len; i++) {
		(*ai)[i] = pi[run[i]];
		(*aj)[i] = pj[run[i]];
	}
	TM_FREE_ALL(run, pi, pj);
	return len;
}

static void diff_range(struct differ *d, size_t lo, size_t hi, size_t xlo,
		       size_t xhi, int depth)
{
	size_t *ai = NULL, *aj = NULL, n, k, cells;

	while (lo < hi && xlo < xhi && tm_merge__unit_eq(d->o, lo, d->x, xlo))
		match(d, lo++, xlo++);
	while (lo < hi && xlo < xhi &&
	       tm_merge__unit_eq(d->o, hi - 1, d->x, xhi - 1))
		match(d, --hi, --xhi);
	if (lo == hi || xlo == xhi)
		return;
	cells = (hi - lo) > MAX_CELLS / (xhi - xlo) ? MAX_CELLS + 1
						    : (hi - lo) * (xhi - xlo);
	if (cells <= SMALL_CELLS) {
		lcs(d, lo, hi, xlo, xhi);
		return;
	}
	n = depth < MAX_DEPTH ? anchors(d, lo, hi, xlo, xhi, &ai, &aj) : 0;
	if (!n) {
		/* no key once on each side: exact when small enough, else
		 * the whole gap is a change */
		if (cells <= MAX_CELLS)
			lcs(d, lo, hi, xlo, xhi);
	} else {
		for (k = 0; k < n; k++) {
			diff_range(d, lo, ai[k], xlo, aj[k], depth + 1);
			match(d, ai[k], aj[k]);
			lo = ai[k] + 1;
			xlo = aj[k] + 1;
		}
		diff_range(d, lo, hi, xlo, xhi, depth + 1);
	}
	free(ai);
	free(aj);
}

void tm_merge__diff(size_t *mo, size_t *mx, const struct tm_merge__units *o,
		    const struct tm_merge__units *x)
{
	struct differ d = {o, x, mo, mx};
	size_t i;

	for (i = 0; i < o->n; i++)
		mo[i] = TM_MERGE__NONE;
	for (i = 0; i < x->n; i++)
		mx[i] = TM_MERGE__NONE;
	diff_range(&d, 0, o->n, 0, x->n, 0);
}

/* ---- ordered lists ---- */

/* An ordered item line: its indent, number, where its digits are, and
 * its delimiter; false for any other line. */
struct ordered {
	size_t indent;
	unsigned long num;
	const char *digits, *digits_end;
	char delim;
};

static bool ordered_item(struct ordered *it, const char *p, const char *e)
{
	const char *q = p;

	if (!tm_section_is_list_item(p, e))
		return false;
	while (q < e && (*q == ' ' || *q == '\t'))
		q++;
	if (q >= e || *q < '0' || *q > '9')
		return false;
	it->indent = indent_of(p, e);
	it->digits = q;
	it->num = 0;
	for (; q < e && *q >= '0' && *q <= '9'; q++)
		it->num = it->num * 10 + (unsigned long)(*q - '0');
	it->digits_end = q;
	it->delim = *q;
	return true;
}

/* The lists open at a line: their indents, delimiters, next numbers. */
struct run {
	size_t indent;
	unsigned long next;
	char delim;
};

struct runs {
	struct run r[64];
	size_t n;
};

/*
 * Feed one line to the open runs: a line at a shallower or equal indent
 * that is not the next item closes the runs it passes.  Returns the run
 * the line is an item of (its `next` not yet advanced), or NULL.
 */
static struct run *feed(struct runs *rs, const char *p, const char *e,
			struct ordered *it)
{
	size_t w;
	bool item;

	if (tm_section_line_blank(p, e))
		return NULL;
	w = indent_of(p, e);
	item = ordered_item(it, p, e);
	while (rs->n && rs->r[rs->n - 1].indent > w)
		rs->n--;
	if (rs->n && rs->r[rs->n - 1].indent == w &&
	    (!item || rs->r[rs->n - 1].delim != it->delim))
		rs->n--;
	if (!item)
		return NULL;
	if (rs->n && rs->r[rs->n - 1].indent == w)
		return &rs->r[rs->n - 1];
	if (rs->n == sizeof(rs->r) / sizeof(*rs->r))
		return NULL;
	rs->r[rs->n].indent = w;
	rs->r[rs->n].delim = it->delim;
	rs->r[rs->n].next = it->num;
	return &rs->r[rs->n++];
}

bool tm_merge__numbered_consecutively(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *e;
	struct runs rs = {.n = 0};
	struct ordered it;
	struct run *r;

	for (; p < end; p = tm_section_next_line(p, end)) {
		e = tm_section_line_end(p, end);
		if ((r = feed(&rs, p, e, &it))) {
			if (it.num != r->next)
				return false;
			r->next++;
		}
	}
	return true;
}

void tm_merge__renumber(tm_buf *b, size_t from)
{
	tm_buf out = TM_BUF_INIT;
	const char *p, *end, *e;
	struct runs rs = {.n = 0};
	struct ordered it;
	struct run *r;

	if (from >= b->size)
		return;
	p = b->ptr + from;
	end = b->ptr + b->size;
	tm_buf_put(&out, b->ptr, from);
	for (; p < end; p = tm_section_next_line(p, end)) {
		e = tm_section_line_end(p, end);
		r = feed(&rs, p, e, &it);
		if (r && it.num != r->next) {
			tm_buf_put(&out, p, (size_t)(it.digits - p));
			tm_buf_printf(&out, "%lu", r->next);
			tm_buf_put(&out, it.digits_end,
				   (size_t)(tm_section_next_line(p, end) -
					    it.digits_end));
		} else {
			tm_buf_put(&out, p,
				   (size_t)(tm_section_next_line(p, end) - p));
		}
		if (r)
			r->next++;
	}
	tm_buf_release(b);
	*b = out;
}
