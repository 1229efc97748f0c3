/*
 * Merging Markdown by `## ` section (a thread's body, a JSON string's
 * lines), DESIGN.md sections 6 and 11: sections paired across the sides by
 * heading, by content when a heading repeats or was renamed; ordered as
 * the side that moved them left them; each merged by units
 * (merge_lines.c).  merge_section.c cuts the sides into sections and
 * pairs them.
 */
#include "merge_internal.h"
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

#define NONE TM_MERGE__NONE

/* ---- the merge of one section ---- */

static bool span_eq(const struct tm_merge__span *x,
		    const struct tm_merge__span *y)
{
	return tm_merge__span_eq(x, y);
}

/* A three-way choice of bytes: one side's change, else the leading
 * side's. */
static const struct tm_merge__span *pick(const struct tm_merge__span *o,
					 const struct tm_merge__span *a,
					 const struct tm_merge__span *b,
					 tm_merge__lead lead)
{
	if (span_eq(a, b) || span_eq(o, b))
		return a;
	if (span_eq(o, a))
		return b;
	return lead == TM_MERGE__OURS ? a : b;
}

static struct tm_merge__span head_of(const struct tm_merge__section *s)
{
	struct tm_merge__span h = {s ? s->text.p : "", s ? s->head : 0};

	return h;
}

static struct tm_merge__span body_of(const struct tm_merge__section *s)
{
	struct tm_merge__span b = {s ? s->text.p + s->head : "",
				   s ? s->text.len - s->head : 0};

	return b;
}

static const char *key_of(const struct tm_merge__section *s)
{
	return s ? s->key : "";
}

/* `len` bytes, then LF unless they end in one. */
static void put_line(tm_buf *out, const char *p, size_t len)
{
	tm_buf_put(out, p, len);
	if (len && p[len - 1] != '\n')
		tm_buf_putc(out, '\n');
}

/*
 * A section both sides have (`o` NULL: added on both sides): the heading
 * as one side renamed it (renamed differently on both: a conflict on the
 * heading), the body merged by units.
 */
static void merge_section(tm_buf *out, bool *conflicted,
			  const struct tm_merge__section *o,
			  const struct tm_merge__section *a,
			  const struct tm_merge__section *b,
			  const tm_merge_options *opts, tm_merge__lead lead)
{
	struct tm_merge__span h[3] = {head_of(o), head_of(a), head_of(b)};
	struct tm_merge__span t[3] = {body_of(o), body_of(a), body_of(b)};
	const char *ko = key_of(o), *ka = a->key, *kb = b->key;
	const struct tm_merge__span *h1;

	if (!strcmp(ka, kb))
		h1 = pick(&h[0], &h[1], &h[2], lead);
	else if (!strcmp(ko, kb))
		h1 = &h[1];
	else if (!strcmp(ko, ka))
		h1 = &h[2];
	else
		h1 = NULL;
	if (h1) {
		put_line(out, h1->p, h1->len);
	} else {
		/* renamed differently on both sides */
		tm_merge__put_marker(out, '<', opts->marker_size,
				     opts->our_label);
		put_line(out, h[1].p, h[1].len);
		if (opts->style != TM_CONFLICT_STYLE_MERGE) {
			tm_merge__put_marker(out, '|', opts->marker_size,
					     opts->ancestor_label);
			put_line(out, h[0].p, h[0].len);
		}
		tm_merge__put_marker(out, '=', opts->marker_size, NULL);
		put_line(out, h[2].p, h[2].len);
		tm_merge__put_marker(out, '>', opts->marker_size,
				     opts->their_label);
		*conflicted = true;
	}
	tm_merge__lines(out, conflicted, t, opts, lead, 0);
}

/*
 * A section one side deleted and the other (`x`) changed: merged as if
 * the deleting side had emptied it.  What `x` added or reworded stays,
 * under x's heading, with the blank lines between; the lines it left as
 * they were (moved ones too) stay deleted.  Nothing, heading included,
 * when nothing stays and x kept the heading.
 */
static void merge_emptied(tm_buf *out, const struct tm_merge__section *o,
			  const struct tm_merge__section *x)
{
	struct tm_merge__span bo = body_of(o), bx = body_of(x);
	struct tm_merge__units uo, ux;
	size_t *mo, *mx, i, *head;
	size_t start = out->size, blanks = 0;
	/* a renamed heading is a change too */
	bool any = strcmp(o->key, x->key) != 0, written = false;
	tm_hashmap gone = TM_HASHMAP_INIT;

	tm_merge__units_split(&uo, bo.p, bo.len);
	tm_merge__units_split(&ux, bx.p, bx.len);
	mo = tm_xcalloc(uo.n + 1, sizeof(size_t));
	mx = tm_xcalloc(ux.n + 1, sizeof(size_t));
	tm_merge__diff(mo, mx, &uo, &ux);
	/* the ancestor's lines x deleted here: one of them inserted
	 * elsewhere is a move, not a change */
	for (i = 0; i < uo.n; i++)
		if (mo[i] == NONE && uo.u[i].kind != TM_MERGE__BLANK)
			(*tm_hashmap_put(&gone, uo.u[i].key, uo.u[i].klen,
					 0))++;
	put_line(out, x->text.p, x->head);
	for (i = 0; i < ux.n; i++) {
		if (ux.u[i].kind == TM_MERGE__BLANK) {
			blanks++;
			continue;
		}
		if (mx[i] != NONE)
			continue;
		head = tm_hashmap_get(&gone, ux.u[i].key, ux.u[i].klen);
		if (head && *head) {
			(*head)--;
			continue;
		}
		if (blanks && written)
			tm_buf_putc(out, '\n');
		blanks = 0;
		tm_buf_put(out, ux.u[i].p, ux.u[i].len);
		any = written = true;
	}
	if (!any)
		tm_buf_truncate(out, start);
	tm_hashmap_release(&gone);
	tm_merge__units_free(&uo);
	tm_merge__units_free(&ux);
	free(mo);
	free(mx);
}

/* ---- the body ---- */

/* One section of the result: the ancestor's and each side's (NONE:
 * absent). */
struct node {
	size_t o, a, b;
	tm_buf text;
	int from; /* the side whose section it is alone (1, 2), else 0 */
};

/* Whether side x's sections that the ancestor has are in its order. */
static bool reordered(const struct tm_merge__pairing *pr, size_t n)
{
	size_t j, last = 0;

	for (j = 0; j < n; j++) {
		if (pr->of[j] == NONE)
			continue;
		if (pr->of[j] < last)
			return true;
		last = pr->of[j];
	}
	return false;
}

/*
 * Append a merged section: on a new line, after exactly one blank line
 * when a section came before it (`*any`).
 */
static void put_section(tm_buf *out, bool *any, const char *p, size_t len)
{
	if (!len)
		return;
	if (*any) {
		if (out->size && out->ptr[out->size - 1] != '\n')
			tm_buf_putc(out, '\n');
		tm_buf_putc(out, '\n');
	}
	tm_buf_put(out, p, len);
	*any = true;
}

/* The nodes: the ancestor's sections, then those added on each side
 * (the same heading added on both sides is one: the n-th with the n-th). */
static struct node *make_nodes(size_t *out_n,
			       const struct tm_merge__sections ss[3],
			       const struct tm_merge__pairing pr[3],
			       size_t *node_of[3])
{
	struct node *nodes;
	size_t n = 0, i, j, k, *idx;
	char **keys[3], **ids[3];
	tm_merge__index *ix;
	int x;

	nodes = tm_xcalloc(ss[0].n + ss[1].n + ss[2].n + 1, sizeof(*nodes));
	for (x = 1; x <= 2; x++) {
		node_of[x] = tm_xcalloc(ss[x].n + 1, sizeof(size_t));
		for (j = 0; j < ss[x].n; j++)
			node_of[x][j] = NONE;
	}
	for (i = 0; i < ss[0].n; i++, n++) {
		nodes[n].o = i;
		nodes[n].a = pr[1].to[i];
		nodes[n].b = pr[2].to[i];
		if (nodes[n].a != NONE)
			node_of[1][nodes[n].a] = n;
		if (nodes[n].b != NONE)
			node_of[2][nodes[n].b] = n;
	}
	/* new sections by heading, repeated ones in order */
	for (x = 1; x <= 2; x++) {
		keys[x] = tm_xcalloc(ss[x].n + 1, sizeof(char *));
		for (j = 0; j < ss[x].n; j++)
			keys[x][j] =
				node_of[x][j] == NONE ? ss[x].s[j].key : "\001";
		ids[x] = tm_merge__ids((const char *const *)keys[x], ss[x].n);
	}
	ix = tm_merge__index_new((const char *const *)ids[1], ss[1].n);
	for (j = 0; j < ss[1].n; j++) {
		if (node_of[1][j] != NONE)
			continue;
		nodes[n].o = nodes[n].b = NONE;
		nodes[n].a = j;
		node_of[1][j] = n++;
	}
	for (k = 0; k < ss[2].n; k++) {
		long at;

		if (node_of[2][k] != NONE)
			continue;
		at = tm_merge__index_find(ix, ids[2][k]);
		if (at >= 0 && nodes[node_of[1][at]].o == NONE &&
		    nodes[node_of[1][at]].b == NONE) {
			idx = &node_of[1][at];
			nodes[*idx].b = k;
			node_of[2][k] = *idx;
			continue;
		}
		nodes[n].o = nodes[n].a = NONE;
		nodes[n].b = k;
		node_of[2][k] = n++;
	}
	tm_merge__index_free(ix);
	for (x = 1; x <= 2; x++) {
		free(keys[x]);
		tm_merge__ids_free(ids[x], ss[x].n);
	}
	*out_n = n;
	return nodes;
}

/* Merge one node into its text. */
static void merge_node(struct node *nd, bool *conflicted,
		       const struct tm_merge__sections ss[3],
		       const tm_merge_options *opts, tm_merge__lead lead)
{
	const struct tm_merge__section *o =
		nd->o != NONE ? &ss[0].s[nd->o] : NULL;
	const struct tm_merge__section *a =
		nd->a != NONE ? &ss[1].s[nd->a] : NULL;
	const struct tm_merge__section *b =
		nd->b != NONE ? &ss[2].s[nd->b] : NULL;
	const struct tm_merge__section *x = a ? a : b;

	if (a && b) {
		if (span_eq(&a->text, &b->text) ||
		    (o && span_eq(&o->text, &b->text)))
			tm_buf_put(&nd->text, a->text.p, a->text.len);
		else if (o && span_eq(&o->text, &a->text))
			tm_buf_put(&nd->text, b->text.p, b->text.len);
		else
			merge_section(&nd->text, conflicted, o, a, b, opts,
				      lead);
	} else if (x && !o) {
		tm_buf_put(&nd->text, x->text.p, x->text.len);
		nd->from = a ? 1 : 2;
	} else if (x && !span_eq(&o->text, &x->text)) {
		/* deleted on one side, changed on the other */
		merge_emptied(&nd->text, o, x);
		nd->from = a ? 1 : 2;
	}
	nd->text.size = tm_merge__content_len(nd->text.ptr ? nd->text.ptr : "",
					      nd->text.size);
}

void tm_merge__body(tm_buf *out, bool *conflicted,
		    const struct tm_merge__span s[3],
		    const tm_merge_options *opts, tm_merge__lead lead)
{
	struct tm_merge__sections ss[3];
	struct tm_merge__pairing pr[3];
	struct node *nodes = NULL;
	const struct tm_merge__span *tail;
	bool *keep[3] = {NULL, NULL, NULL}, any = false, ra, rb;
	size_t *order = NULL, *node_of[3] = {NULL, NULL, NULL}, n = 0, nn = 0;
	size_t i, x, start = out->size, l, o;
	const char *const *ids[3] = {NULL, NULL, NULL};
	const char **v;
	char **names = NULL;
	int last = 0;

	memset(ss, 0, sizeof(ss));
	memset(pr, 0, sizeof(pr));
	if (tm_merge__span_eq(&s[1], &s[2]) ||
	    tm_merge__span_eq(&s[0], &s[1]) ||
	    tm_merge__span_eq(&s[0], &s[2])) {
		tm_merge__lines(out, conflicted, s, opts, lead, 0);
		return;
	}
	for (x = 0; x < 3; x++)
		if (!tm_merge__sections_split(&ss[x], &s[x]))
			break;
	if (x < 3) {
		tm_merge__lines(out, conflicted, s, opts, lead, 0);
		goto done;
	}
	for (x = 1; x <= 2; x++)
		tm_merge__sections_pair(&pr[x], &ss[0], &ss[x]);
	nodes = make_nodes(&nn, ss, pr, node_of);
	for (i = 0; i < nn; i++)
		merge_node(&nodes[i], conflicted, ss, opts, lead);
	/* the order: the side that moved sections leads, else the leading
	 * side (whose additions come first where both added) */
	ra = reordered(&pr[1], ss[1].n);
	rb = reordered(&pr[2], ss[2].n);
	l = ra == rb ? (size_t)lead : ra ? 1 : 2;
	o = 3 - l;
	names = tm_xcalloc(nn + 1, sizeof(char *));
	for (i = 0; i < nn; i++) {
		tm_buf b = TM_BUF_INIT;

		tm_buf_printf(&b, "%zu", i);
		names[i] = tm_buf_detach(&b);
	}
	for (x = 1; x <= 2; x++) {
		ids[x] = v = tm_xcalloc(ss[x].n + 1, sizeof(char *));
		keep[x] = tm_xcalloc(ss[x].n + 1, sizeof(bool));
		for (i = 0; i < ss[x].n; i++) {
			v[i] = names[node_of[x][i]];
			keep[x][i] = nodes[node_of[x][i]].text.size > 0;
		}
	}
	order = tm_merge__order(&n, ids[l], keep[l], ss[l].n, ids[o], keep[o],
				ss[o].n);
	tm_buf_put(out, pick(&ss[0].lead, &ss[1].lead, &ss[2].lead, lead)->p,
		   pick(&ss[0].lead, &ss[1].lead, &ss[2].lead, lead)->len);
	for (i = 0; i < n; i++) {
		struct node *nd =
			&nodes[order[i] < ss[l].n
				       ? node_of[l][order[i]]
				       : node_of[o][order[i] - ss[l].n]];

		put_section(out, &any, nd->text.ptr, nd->text.size);
		if (nd->text.size)
			last = nd->from;
	}
	/* the blank lines at the end: those of the side that wrote the last
	 * section alone, or merged as the lead when both did */
	tail = last ? &ss[last].tail
		    : pick(&ss[0].tail, &ss[1].tail, &ss[2].tail, lead);
	if (tail->len) {
		if (out->size > start && out->ptr[out->size - 1] != '\n')
			tm_buf_putc(out, '\n');
		tm_buf_put(out, tail->p, tail->len);
	} else if (!ss[1].nl_end && !ss[2].nl_end && out->size > start &&
		   out->ptr[out->size - 1] == '\n') {
		/* no final newline when neither side had one */
		tm_buf_truncate(out, out->size - 1);
	}
done:
	for (x = 0; x < 3; x++) {
		tm_merge__sections_free(&ss[x]);
		TM_FREE_ALL(keep[x], (void *)ids[x], node_of[x], pr[x].to,
			    pr[x].of);
	}
	for (i = 0; i < nn; i++)
		tm_buf_release(&nodes[i].text);
	tm_merge__ids_free(names, nn);
	free(nodes);
	free(order);
}
