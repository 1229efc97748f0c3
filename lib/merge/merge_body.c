/*
 * Merging Markdown by `## ` section (a thread's body, a JSON string's
 * lines), DESIGN.md sections 6 and 11: sections paired across the sides by
 * heading, by content when a heading repeats or was renamed; ordered as
 * the side that moved them left them; each merged by units
 * (merge_lines.c).
 */
#include "merge_internal.h"
#include "hashmap.h"
#include "section.h"

#include <stdlib.h>
#include <string.h>

#define NONE TM_MERGE__NONE
/* Past this many sections a side is merged as one block of lines. */
#define MAX_SECTIONS 20000
/* Sections of one heading (or left unpaired) compared by content at most
 * this many pairs; beyond, paired in order (or not at all). */
#define MAX_COMPARE 4096
/* A renamed section is this similar to the ancestor's (percent). */
#define RENAMED 50

/*
 * A section as the merge sees it: its heading line through its last
 * non-blank line, always ending in LF.  The blank lines that separate
 * sections belong to none of them (DESIGN.md section 11, "Section
 * bodies").
 */
struct section {
	struct tm_merge__span text; /* owned */
	size_t head;                /* bytes of the heading line (0: none) */
	char *key;                  /* heading without trailing blanks */
	char *heading; /* its text (tm_section_split), NULL: the preamble */
	char *fold;    /* heading folded (case, blanks), once asked for */
	uint64_t *hs;  /* the hashes of its non-blank lines' keys, sorted,
			  once asked for */
	size_t nh;
};

/*
 * A side split for the merge: the blank lines before anything else
 * (`lead`), the preamble (s[0], key "", maybe empty), one section per
 * `## ` heading, the blank lines after the last non-blank line (`tail`),
 * and whether the text ends in LF (or is empty).
 */
struct sections {
	struct section *s;
	size_t n;
	struct tm_merge__span lead, tail;
	bool nl_end;
};

static size_t line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
}

static bool blank_line(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
			return false;
	return true;
}

/* The length of [p, p + len) without its trailing blank lines. */
static size_t content_len(const char *p, size_t len)
{
	const char *q = p, *end = p + len;
	size_t keep = 0, l;

	while (q < end) {
		l = line_len(q, end);
		if (!blank_line(q, l))
			keep = (size_t)(q - p) + l;
		q += l;
	}
	return keep;
}

/* The length of the blank lines that start [p, p + len). */
static size_t lead_len(const char *p, size_t len)
{
	const char *q = p, *end = p + len;
	size_t l;

	while (q < end) {
		l = line_len(q, end);
		if (!blank_line(q, l) || q[l - 1] != '\n')
			break;
		q += l;
	}
	return (size_t)(q - p);
}

static int hash_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The sorted hashes of the body's non-blank units (for similarity),
 * computed when first asked for. */
static void fingerprint(struct section *s)
{
	struct tm_merge__units us;
	size_t i;

	if (s->hs)
		return;
	tm_merge__units_split(&us, s->text.p + s->head, s->text.len - s->head);
	s->hs = tm_xcalloc(us.n + 1, sizeof(uint64_t));
	for (i = 0; i < us.n; i++)
		if (us.u[i].kind != TM_MERGE__BLANK)
			s->hs[s->nh++] = us.u[i].hash;
	qsort(s->hs, s->nh, sizeof(uint64_t), hash_cmp);
	tm_merge__units_free(&us);
}

static void add_section(struct sections *ss, size_t *alloc, const char *p,
			size_t len, size_t hlen, const char *heading)
{
	struct section *s;
	char *text;
	size_t klen = hlen;

	tm_xgrow((void **)&ss->s, alloc, ss->n + 1, sizeof(*ss->s));
	s = &ss->s[ss->n++];
	memset(s, 0, sizeof(*s));
	/* every section ends in LF, so that the last one compares alike */
	text = tm_xmalloc(len + 2);
	memcpy(text, p, len);
	if (len && p[len - 1] != '\n')
		text[len++] = '\n';
	text[len] = '\0';
	s->text.p = text;
	s->text.len = len;
	s->head = hlen ? (hlen < len ? hlen + 1 : len) : 0;
	while (klen && (p[klen - 1] == ' ' || p[klen - 1] == '\t' ||
			p[klen - 1] == '\r'))
		klen--;
	s->key = tm_xstrndup(p, klen);
	s->heading = heading ? tm_xstrdup(heading) : NULL;
}

/* The folded heading, computed when first asked for (NULL: none). */
static const char *fold_of(struct section *s)
{
	if (!s->fold && s->heading)
		s->fold = tm_section_heading_key(s->heading);
	return s->fold;
}

/*
 * Split into sections as `merge` does (tm_section_split): the preamble
 * (always there, maybe empty, key ""), then one per `## ` heading, keyed
 * by its line without trailing blanks, each without the blank lines that
 * follow it.  False when there are too many of them.
 */
static bool split(struct sections *ss, const struct tm_merge__span *t)
{
	tm_section_list l = TM_SECTION_LIST_INIT;
	size_t alloc = 0, at = 0, i, len, skip, last = 0, hlen;
	const char *p, *nl;

	memset(ss, 0, sizeof(*ss));
	ss->nl_end = !t->len || t->p[t->len - 1] == '\n';
	tm_section_split(&l, t->p, t->len);
	if (l.n > MAX_SECTIONS) {
		tm_section_list_clear(&l);
		return false;
	}
	for (i = 0; i < l.n; i++) {
		p = t->p + at;
		nl = memchr(p, '\n', l.items[i].len);
		hlen = !l.items[i].heading ? 0
		       : nl                ? (size_t)(nl - p)
					   : l.items[i].len;
		skip = 0;
		if (!i) {
			skip = lead_len(p, l.items[i].len);
			ss->lead.p = p;
			ss->lead.len = skip;
		}
		len = content_len(p + skip, l.items[i].len - skip);
		if (len)
			last = at + skip + len;
		add_section(ss, &alloc, p + skip, len, hlen,
			    l.items[i].heading);
		at += l.items[i].len;
	}
	tm_section_list_clear(&l);
	if (last < ss->lead.len)
		last = ss->lead.len;
	ss->tail.p = t->p + last;
	ss->tail.len = t->len - last;
	return true;
}

static void sections_free(struct sections *ss)
{
	size_t i;

	for (i = 0; i < ss->n; i++) {
		free(ss->s[i].key);
		free(ss->s[i].heading);
		free(ss->s[i].fold);
		free(ss->s[i].hs);
		free((char *)ss->s[i].text.p);
	}
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}

/* ---- pairing each side's sections with the ancestor's ---- */

/* How alike two sections' bodies are: their common non-blank lines, in
 * percent of all (Dice); 0 when both are empty. */
static unsigned similarity(struct section *x, struct section *y)
{
	size_t i = 0, j = 0, common = 0;

	fingerprint(x);
	fingerprint(y);
	if (!x->nh && !y->nh)
		return 0;
	while (i < x->nh && j < y->nh) {
		if (x->hs[i] == y->hs[j]) {
			common++;
			i++;
			j++;
		} else if (x->hs[i] < y->hs[j]) {
			i++;
		} else {
			j++;
		}
	}
	return (unsigned)(200 * common / (x->nh + y->nh));
}

/* Pairing state: to[i] the side's section paired with the ancestor's i,
 * of[j] the ancestor's paired with the side's j. */
struct pairing {
	size_t *to, *of;
};

struct cand {
	unsigned sim;
	size_t dist, i, j;
};

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->sim != b->sim)
		return a->sim > b->sim ? -1 : 1;
	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return a->j < b->j ? -1 : a->j > b->j;
}

/*
 * Pair the ancestor's sections oi[0..no) with the side's xj[0..nx) by
 * content: the most similar pairs first, then the nearest in rank.  With
 * `min` 0 every section is paired while both have some left; else only
 * pairs at least `min` similar.  Too many: paired in order when `min` is
 * 0, else not at all.
 */
static void pair_by_content(struct pairing *pr, struct sections *o,
			    struct sections *x, const size_t *oi, size_t no,
			    const size_t *xj, size_t nx, unsigned min)
{
	struct cand *c;
	size_t n = 0, a, b;

	if (!no || !nx)
		return;
	if (no > MAX_COMPARE / nx) {
		for (a = 0; !min && a < no && a < nx; a++) {
			pr->to[oi[a]] = xj[a];
			pr->of[xj[a]] = oi[a];
		}
		return;
	}
	c = tm_xcalloc(no * nx, sizeof(*c));
	for (a = 0; a < no; a++)
		for (b = 0; b < nx; b++) {
			c[n].sim = similarity(&o->s[oi[a]], &x->s[xj[b]]);
			c[n].dist = a > b ? a - b : b - a;
			c[n].i = oi[a];
			c[n].j = xj[b];
			n += c[n].sim >= min;
		}
	qsort(c, n, sizeof(*c), cand_cmp);
	for (a = 0; a < n; a++) {
		if (pr->to[c[a].i] != NONE || pr->of[c[a].j] != NONE)
			continue;
		pr->to[c[a].i] = c[a].j;
		pr->of[c[a].j] = c[a].i;
	}
	free(c);
}

/* A section's name for a pairing round: its key, or its folded heading
 * (NULL: the preamble). */
static const char *name_of(struct section *s, bool fold)
{
	return fold ? fold_of(s) : s->key;
}

/*
 * Pair the sections still unpaired by name (key, or folded heading): one
 * of a name on each side pair; several, by content.  Names are grouped
 * through a hash map: linear in the number of sections.
 */
static void pair_by_name(struct pairing *pr, struct sections *o,
			 struct sections *x, bool fold)
{
	tm_hashmap map = TM_HASHMAP_INIT;
	struct sections *ss[2] = {o, x};
	size_t *done[2] = {pr->to, pr->of}, *group[2], *count, *at, *list;
	size_t ng = 0, i, g, k, *slot;
	const char *name;

	for (k = 0; k < 2; k++) {
		group[k] = tm_xcalloc(ss[k]->n + 1, sizeof(size_t));
		for (i = 1; i < ss[k]->n; i++) {
			group[k][i] = NONE;
			if (done[k][i] != NONE ||
			    !(name = name_of(&ss[k]->s[i], fold)))
				continue;
			slot = k ? tm_hashmap_gets(&map, name)
				 : tm_hashmap_puts(&map, name, ng);
			if (!slot)
				continue;
			ng += *slot == ng;
			group[k][i] = *slot;
		}
	}
	/* each group's sections, the ancestor's then the side's, in order */
	count = tm_xcalloc(2 * ng + 1, sizeof(size_t));
	at = tm_xcalloc(2 * ng + 2, sizeof(size_t));
	list = tm_xcalloc(o->n + x->n + 1, sizeof(size_t));
	for (k = 0; k < 2; k++)
		for (i = 1; i < ss[k]->n; i++)
			if (group[k][i] != NONE)
				count[2 * group[k][i] + k]++;
	for (g = 0; g < 2 * ng; g++)
		at[g + 1] = at[g] + count[g];
	memset(count, 0, (2 * ng + 1) * sizeof(size_t));
	for (k = 0; k < 2; k++)
		for (i = 1; i < ss[k]->n; i++)
			if ((g = group[k][i]) != NONE)
				list[at[2 * g + k] + count[2 * g + k]++] = i;
	for (g = 0; g < ng; g++) {
		size_t *oi = list + at[2 * g], no = count[2 * g];
		size_t *xj = list + at[2 * g + 1], nx = count[2 * g + 1];

		if (no == 1 && nx == 1) {
			pr->to[oi[0]] = xj[0];
			pr->of[xj[0]] = oi[0];
		} else {
			pair_by_content(pr, o, x, oi, no, xj, nx, 0);
		}
	}
	tm_hashmap_release(&map);
	free(group[0]);
	free(group[1]);
	free(count);
	free(at);
	free(list);
}

/*
 * Pair the side `x`'s sections with the ancestor's: the preambles; then
 * by heading (a heading several sections have, by content); then the
 * ones left by heading with case and blanks folded; then by content, at
 * least RENAMED similar (a section renamed on that side).
 */
static void pair_with_base(struct pairing *pr, struct sections *o,
			   struct sections *x)
{
	size_t *oi = tm_xcalloc(o->n + 1, sizeof(size_t));
	size_t *xj = tm_xcalloc(x->n + 1, sizeof(size_t));
	size_t i, no, nx;

	pr->to = tm_xcalloc(o->n + 1, sizeof(size_t));
	pr->of = tm_xcalloc(x->n + 1, sizeof(size_t));
	for (i = 0; i < o->n; i++)
		pr->to[i] = NONE;
	for (i = 0; i < x->n; i++)
		pr->of[i] = NONE;
	pr->to[0] = 0;
	pr->of[0] = 0;
	pair_by_name(pr, o, x, false);
	pair_by_name(pr, o, x, true);
	for (i = 1, no = 0; i < o->n; i++)
		if (pr->to[i] == NONE)
			oi[no++] = i;
	for (i = 1, nx = 0; i < x->n; i++)
		if (pr->of[i] == NONE)
			xj[nx++] = i;
	pair_by_content(pr, o, x, oi, no, xj, nx, RENAMED);
	free(oi);
	free(xj);
}

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

static struct tm_merge__span head_of(const struct section *s)
{
	struct tm_merge__span h = {s ? s->text.p : "", s ? s->head : 0};

	return h;
}

static struct tm_merge__span body_of(const struct section *s)
{
	struct tm_merge__span b = {s ? s->text.p + s->head : "",
				   s ? s->text.len - s->head : 0};

	return b;
}

static const char *key_of(const struct section *s)
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
			  const struct section *o, const struct section *a,
			  const struct section *b, const tm_merge_options *opts,
			  tm_merge__lead lead)
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
static void merge_emptied(tm_buf *out, const struct section *o,
			  const struct section *x)
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
static bool reordered(const struct pairing *pr, size_t n)
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
static struct node *make_nodes(size_t *out_n, const struct sections ss[3],
			       const struct pairing pr[3], size_t *node_of[3])
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
		       const struct sections ss[3],
		       const tm_merge_options *opts, tm_merge__lead lead)
{
	const struct section *o = nd->o != NONE ? &ss[0].s[nd->o] : NULL;
	const struct section *a = nd->a != NONE ? &ss[1].s[nd->a] : NULL;
	const struct section *b = nd->b != NONE ? &ss[2].s[nd->b] : NULL;
	const struct section *x = a ? a : b;

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
	nd->text.size =
		content_len(nd->text.ptr ? nd->text.ptr : "", nd->text.size);
}

void tm_merge__body(tm_buf *out, bool *conflicted,
		    const struct tm_merge__span s[3],
		    const tm_merge_options *opts, tm_merge__lead lead)
{
	struct sections ss[3];
	struct pairing pr[3];
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
		if (!split(&ss[x], &s[x]))
			break;
	if (x < 3) {
		tm_merge__lines(out, conflicted, s, opts, lead, 0);
		goto done;
	}
	for (x = 1; x <= 2; x++)
		pair_with_base(&pr[x], &ss[0], &ss[x]);
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
		sections_free(&ss[x]);
		free(keep[x]);
		free((void *)ids[x]);
		free(node_of[x]);
		free(pr[x].to);
		free(pr[x].of);
	}
	for (i = 0; i < nn; i++)
		tm_buf_release(&nodes[i].text);
	tm_merge__ids_free(names, nn);
	free(nodes);
	free(order);
}
