/*
 * The sections of a three-way merge of Markdown (merge_internal.h): each
 * side cut into its preamble and `## ` sections (tm_section_split), and
 * paired with the ancestor's by heading, by folded heading, then by
 * content (a heading that repeats, a section renamed).  merge_body.c
 * merges and orders them.
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

/* ---- cutting a side into sections ---- */

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
size_t tm_merge__content_len(const char *p, size_t len)
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
static void fingerprint(struct tm_merge__section *s)
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

static void add_section(struct tm_merge__sections *ss, size_t *alloc,
			const char *p, size_t len, size_t hlen,
			const char *heading)
{
	struct tm_merge__section *s;
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
static const char *fold_of(struct tm_merge__section *s)
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
bool tm_merge__sections_split(struct tm_merge__sections *ss,
			      const struct tm_merge__span *t)
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
		len = tm_merge__content_len(p + skip, l.items[i].len - skip);
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

void tm_merge__sections_free(struct tm_merge__sections *ss)
{
	size_t i;

	for (i = 0; i < ss->n; i++)
		TM_FREE_ALL(ss->s[i].key, ss->s[i].heading, ss->s[i].fold,
			    ss->s[i].hs, (char *)ss->s[i].text.p);
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}

/* ---- pairing a side's sections with the ancestor's ---- */

/* How alike two sections' bodies are: their common non-blank lines, in
 * percent of all (Dice); 0 when both are empty. */
static unsigned similarity(struct tm_merge__section *x,
			   struct tm_merge__section *y)
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
static void pair_by_content(struct tm_merge__pairing *pr,
			    struct tm_merge__sections *o,
			    struct tm_merge__sections *x, const size_t *oi,
			    size_t no, const size_t *xj, size_t nx,
			    unsigned min)
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
static const char *name_of(struct tm_merge__section *s, bool fold)
{
	return fold ? fold_of(s) : s->key;
}

/*
 * Pair the sections still unpaired by name (key, or folded heading): one
 * of a name on each side pair; several, by content.  Names are grouped
 * through a hash map: linear in the number of sections.
 */
static void pair_by_name(struct tm_merge__pairing *pr,
			 struct tm_merge__sections *o,
			 struct tm_merge__sections *x, bool fold)
{
	tm_hashmap map = TM_HASHMAP_INIT;
	struct tm_merge__sections *ss[2] = {o, x};
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
	TM_FREE_ALL(group[0], group[1], count, at, list);
}

/*
 * Pair the side `x`'s sections with the ancestor's: the preambles; then
 * by heading (a heading several sections have, by content); then the
 * ones left by heading with case and blanks folded; then by content, at
 * least RENAMED similar (a section renamed on that side).
 */
void tm_merge__sections_pair(struct tm_merge__pairing *pr,
			     struct tm_merge__sections *o,
			     struct tm_merge__sections *x)
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
