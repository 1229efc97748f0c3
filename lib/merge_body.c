/*
 * Merging Markdown by `## ` section (a thread's body, a JSON string's
 * lines), with the union of list items where both sides only added or
 * removed `- ` items (DESIGN.md section 6).
 */
#include "merge_internal.h"
#include "section.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Past this many sections a side is merged as one block of lines. */
#define MAX_SECTIONS 20000
/* Past this many line pairs the list union gives up (markers are left). */
#define MAX_LCS_CELLS (4u * 1024 * 1024)

/*
 * A section as the merge sees it: its heading through its last non-blank
 * line, always ending in LF.  The blank lines that separate sections
 * belong to none of them (DESIGN.md section 11, "Section bodies").
 */
struct section {
	struct tm_merge__span text; /* heading line included; owned */
	char *key;                  /* heading without trailing blanks */
};

/*
 * A side split for the merge: the blank lines before anything else
 * (`lead`), the text before the first heading without them (the preamble,
 * s[0], key "", maybe empty), one section per `## ` heading, the blank
 * lines after the last non-blank line (`tail`), and whether the text ends
 * in LF (or is empty).
 */
struct sections {
	struct section *s;
	size_t n;
	char **ids;
	tm_merge__index *ix;
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

static void add_section(struct sections *ss, size_t *alloc, const char *p,
			size_t len, const char *heading, size_t hlen)
{
	struct section *s;
	char *text;

	tm_xgrow((void **)&ss->s, alloc, ss->n + 1, sizeof(*ss->s));
	s = &ss->s[ss->n++];
	/* every section ends in LF, so that the last one compares alike */
	text = tm_xmalloc(len + 2);
	memcpy(text, p, len);
	if (len && p[len - 1] != '\n')
		text[len++] = '\n';
	text[len] = '\0';
	s->text.p = text;
	s->text.len = len;
	while (hlen && (heading[hlen - 1] == '\n' || heading[hlen - 1] == ' ' ||
			heading[hlen - 1] == '\t' || heading[hlen - 1] == '\r'))
		hlen--;
	s->key = tm_xstrndup(heading, hlen);
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
	size_t alloc = 0, at = 0, i, len, skip, last = 0;
	const char **keys;

	memset(ss, 0, sizeof(*ss));
	ss->nl_end = !t->len || t->p[t->len - 1] == '\n';
	tm_section_split(&l, t->p, t->len);
	if (l.n > MAX_SECTIONS) {
		tm_section_list_clear(&l);
		return false;
	}
	for (i = 0; i < l.n; i++) {
		const char *p = t->p + at;
		const char *nl = memchr(p, '\n', l.items[i].len);
		size_t hlen = nl ? (size_t)(nl - p) : l.items[i].len;

		skip = 0;
		if (!i) {
			skip = lead_len(p, l.items[i].len);
			ss->lead.p = p;
			ss->lead.len = skip;
		}
		len = content_len(p + skip, l.items[i].len - skip);
		if (len)
			last = at + skip + len;
		add_section(ss, &alloc, p + skip, len, p,
			    l.items[i].heading ? hlen : 0);
		at += l.items[i].len;
	}
	tm_section_list_clear(&l);
	if (last < ss->lead.len)
		last = ss->lead.len;
	ss->tail.p = t->p + last;
	ss->tail.len = t->len - last;
	keys = tm_xcalloc(ss->n, sizeof(char *));
	for (i = 0; i < ss->n; i++)
		keys[i] = ss->s[i].key;
	ss->ids = tm_merge__ids(keys, ss->n);
	ss->ix = tm_merge__index_new((const char *const *)ss->ids, ss->n);
	free(keys);
	return true;
}

static void sections_free(struct sections *ss)
{
	size_t i;

	for (i = 0; i < ss->n; i++) {
		free(ss->s[i].key);
		free((char *)ss->s[i].text.p);
	}
	free(ss->s);
	tm_merge__ids_free(ss->ids, ss->n);
	tm_merge__index_free(ss->ix);
	memset(ss, 0, sizeof(*ss));
}

/* The lines of a text; each span includes its newline (if any). */
struct lines {
	struct tm_merge__span *l;
	size_t n;
};

static void split_lines(struct lines *ls, const struct tm_merge__span *t)
{
	const char *p = t->p, *end = t->p + t->len;
	size_t alloc = 0, len;

	memset(ls, 0, sizeof(*ls));
	while (p < end) {
		len = line_len(p, end);
		tm_xgrow((void **)&ls->l, &alloc, ls->n + 1, sizeof(*ls->l));
		ls->l[ls->n].p = p;
		ls->l[ls->n].len = len;
		ls->n++;
		p += len;
	}
}

/* Lines compare without their newline. */
static bool line_eq(const struct tm_merge__span *x,
		    const struct tm_merge__span *y)
{
	size_t xl = x->len, yl = y->len;

	if (xl && x->p[xl - 1] == '\n')
		xl--;
	if (yl && y->p[yl - 1] == '\n')
		yl--;
	return xl == yl && (!xl || !memcmp(x->p, y->p, xl));
}

static bool is_list_item(const struct tm_merge__span *l)
{
	size_t i = 0;

	while (i < l->len && (l->p[i] == ' ' || l->p[i] == '\t'))
		i++;
	return l->len - i >= 2 && l->p[i] == '-' && l->p[i + 1] == ' ';
}

/*
 * How `x` differs from the ancestor `o`: kept[i] tells whether o's line i
 * is still there; ins_at[k] (k in 0..x->n) is the position in o before
 * which x's line k was inserted, or SIZE_MAX for a line matched to o.
 * False when the texts are too large to compare.
 */
static bool diff(bool *kept, size_t *ins_at, const struct lines *o,
		 const struct lines *x)
{
	size_t pre = 0, suf = 0, n, m, i, j;
	uint32_t *t;

	while (pre < o->n && pre < x->n && line_eq(&o->l[pre], &x->l[pre]))
		pre++;
	while (suf < o->n - pre && suf < x->n - pre &&
	       line_eq(&o->l[o->n - 1 - suf], &x->l[x->n - 1 - suf]))
		suf++;
	n = o->n - pre - suf;
	m = x->n - pre - suf;
	if (n && m && (n + 1) > MAX_LCS_CELLS / (m + 1))
		return false;
	for (i = 0; i < o->n; i++)
		kept[i] = i < pre || i >= pre + n;
	for (j = 0; j < x->n; j++)
		ins_at[j] = SIZE_MAX;
	/* t[i][j]: length of the LCS of o's middle from i and x's from j */
	t = tm_xcalloc((n + 1) * (m + 1), sizeof(*t));
	for (i = n; i-- > 0;)
		for (j = m; j-- > 0;)
			t[i * (m + 1) + j] =
				line_eq(&o->l[pre + i], &x->l[pre + j])
					? t[(i + 1) * (m + 1) + j + 1] + 1
				: t[(i + 1) * (m + 1) + j] >
						t[i * (m + 1) + j + 1]
					? t[(i + 1) * (m + 1) + j]
					: t[i * (m + 1) + j + 1];
	i = j = 0;
	while (i < n || j < m) {
		if (i < n && j < m && line_eq(&o->l[pre + i], &x->l[pre + j])) {
			kept[pre + i] = true;
			i++;
			j++;
		} else if (j < m &&
			   (i == n || t[i * (m + 1) + j + 1] >=
					      t[(i + 1) * (m + 1) + j])) {
			ins_at[pre + j] = pre + i;
			j++;
		} else {
			i++;
		}
	}
	free(t);
	return true;
}

/*
 * Pair the lines both sides inserted at the same place with the same text
 * (dup[1][k] for ours' line k, dup[2][j] for theirs' line j): they agree.
 * The lines a side inserted at one place are contiguous.  False when two
 * such runs are too long to compare.
 */
static bool mark_agreed(bool *dup[3], const struct lines l[3],
			size_t *const ins[3])
{
	size_t j = 0, k = 0, j2, k2, a, b, at;

	for (;;) {
		while (k < l[1].n && ins[1][k] == SIZE_MAX)
			k++;
		if (k == l[1].n)
			return true;
		at = ins[1][k];
		for (k2 = k; k2 < l[1].n && ins[1][k2] == at; k2++)
			;
		while (j < l[2].n && (ins[2][j] == SIZE_MAX || ins[2][j] < at))
			j++;
		for (j2 = j; j2 < l[2].n && ins[2][j2] == at; j2++)
			;
		if (j2 > j && k2 - k > MAX_LCS_CELLS / (j2 - j))
			return false;
		for (a = k; a < k2; a++)
			for (b = j; b < j2 && !dup[1][a]; b++)
				if (!dup[2][b] &&
				    line_eq(&l[1].l[a], &l[2].l[b]))
					dup[1][a] = dup[2][b] = true;
		k = k2;
		j = j2;
	}
}

/*
 * Pair the list items both sides inserted with the same text at different
 * places (a cherry-picked item, then an edit next to it on one side): the
 * item is written once, at ours' place.  Nothing is paired when there are
 * too many insertions to compare.
 */
static void mark_agreed_items(bool *dup[3], const struct lines l[3],
			      size_t *const ins[3])
{
	size_t na = 0, nb = 0, a, b;

	for (a = 0; a < l[1].n; a++)
		na += ins[1][a] != SIZE_MAX && !dup[1][a];
	for (b = 0; b < l[2].n; b++)
		nb += ins[2][b] != SIZE_MAX && !dup[2][b];
	if (nb && na > MAX_LCS_CELLS / nb)
		return;
	for (a = 0; a < l[1].n; a++) {
		if (ins[1][a] == SIZE_MAX || dup[1][a] ||
		    !is_list_item(&l[1].l[a]))
			continue;
		for (b = 0; b < l[2].n && !dup[1][a]; b++)
			if (ins[2][b] != SIZE_MAX && !dup[2][b] &&
			    line_eq(&l[1].l[a], &l[2].l[b]))
				dup[1][a] = dup[2][b] = true;
	}
}

/*
 * Whether side x only added or removed list items, lines both sides
 * removed or added alike aside.
 */
static bool only_list_items(const struct lines l[3], bool *const kept[3],
			    size_t *const ins[3], bool *const dup[3], size_t x)
{
	size_t i;

	for (i = 0; i < l[0].n; i++)
		if (!kept[x][i] && kept[3 - x][i] && !is_list_item(&l[0].l[i]))
			return false;
	for (i = 0; i < l[x].n; i++)
		if (ins[x][i] != SIZE_MAX && !dup[x][i] &&
		    !is_list_item(&l[x].l[i]))
			return false;
	return true;
}

static void put_line(tm_buf *out, const struct tm_merge__span *l)
{
	tm_buf_put(out, l->p, l->len);
	if (!l->len || l->p[l->len - 1] != '\n')
		tm_buf_putc(out, '\n');
}

static bool ends_in_newline(const struct tm_merge__span *s)
{
	return !s->len || s->p[s->len - 1] == '\n';
}

/*
 * The union of both sides' list items: o's lines that neither side
 * removed, with each side's insertions at their place (ours first; what
 * both inserted alike is written once).  False, with nothing written,
 * when it does not apply.
 */
static bool list_union(tm_buf *out, const struct tm_merge__span s[3])
{
	struct lines l[3];
	bool *kept[3] = {NULL, NULL, NULL}, *dup[3] = {NULL, NULL, NULL};
	size_t *ins[3] = {NULL, NULL, NULL};
	bool ok = false;
	size_t start = out->size, i, j, k, x;

	for (i = 0; i < 3; i++)
		split_lines(&l[i], &s[i]);
	for (x = 1; x < 3; x++) {
		kept[x] = tm_xcalloc(l[0].n + 1, sizeof(bool));
		ins[x] = tm_xcalloc(l[x].n + 1, sizeof(size_t));
		dup[x] = tm_xcalloc(l[x].n + 1, sizeof(bool));
		if (!diff(kept[x], ins[x], &l[0], &l[x]))
			goto done;
	}
	if (!mark_agreed(dup, l, ins))
		goto done;
	mark_agreed_items(dup, l, ins);
	if (!only_list_items(l, kept, ins, dup, 1) ||
	    !only_list_items(l, kept, ins, dup, 2))
		goto done;
	/* insertion places only grow along each side */
	j = k = 0;
	for (i = 0; i <= l[0].n; i++) {
		for (; j < l[1].n && (ins[1][j] == SIZE_MAX || ins[1][j] <= i);
		     j++)
			if (ins[1][j] == i)
				put_line(out, &l[1].l[j]);
		for (; k < l[2].n && (ins[2][k] == SIZE_MAX || ins[2][k] <= i);
		     k++)
			if (ins[2][k] == i && !dup[2][k])
				put_line(out, &l[2].l[k]);
		if (i < l[0].n && kept[1][i] && kept[2][i])
			put_line(out, &l[0].l[i]);
	}
	/* no final newline when neither side had one */
	if (!ends_in_newline(&s[1]) && !ends_in_newline(&s[2]) &&
	    out->size > start)
		tm_buf_truncate(out, out->size - 1);
	ok = true;
done:
	for (i = 0; i < 3; i++) {
		free(l[i].l);
		free(kept[i]);
		free(ins[i]);
		free(dup[i]);
	}
	return ok;
}

static int span_cmp(const void *x, const void *y)
{
	const struct tm_merge__span *a = x, *b = y;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = n ? memcmp(a->p, b->p, n) : 0;

	return c ? c : a->len < b->len ? -1 : a->len > b->len;
}

/* The list items of a text (LF dropped), sorted; *n of them. */
static struct tm_merge__span *sorted_items(const struct tm_merge__span *t,
					   size_t *n)
{
	struct lines ls;
	size_t i, k = 0;

	split_lines(&ls, t);
	for (i = 0; i < ls.n; i++) {
		if (!is_list_item(&ls.l[i]))
			continue;
		ls.l[k] = ls.l[i];
		if (ls.l[k].len && ls.l[k].p[ls.l[k].len - 1] == '\n')
			ls.l[k].len--;
		k++;
	}
	if (k)
		qsort(ls.l, k, sizeof(*ls.l), span_cmp);
	*n = k;
	return ls.l;
}

/* How many times the sorted items hold `it`. */
static size_t count_item(const struct tm_merge__span *items, size_t n,
			 const struct tm_merge__span *it)
{
	size_t lo = 0, hi = n, mid, c = 0;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (span_cmp(&items[mid], it) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + c < n && !span_cmp(&items[lo + c], it))
		c++;
	return c;
}

/*
 * Whether a merged text holds a list item more times than either side
 * does (git's clean merge of an item both sides added at different
 * places).
 */
static bool repeats_items(const char *p, size_t len,
			  const struct tm_merge__span s[3])
{
	struct tm_merge__span t = {p, len}, *r, *side[3] = {NULL, NULL, NULL};
	size_t nr, ns[3] = {0, 0, 0}, i, c, x;
	bool found = false;

	r = sorted_items(&t, &nr);
	for (i = 0; i < nr && !found; i += c) {
		c = count_item(r, nr, &r[i]);
		if (c < 2)
			continue;
		for (x = 1; x < 3 && !side[x]; x++)
			side[x] = sorted_items(&s[x], &ns[x]);
		found = c > count_item(side[1], ns[1], &r[i]) &&
			c > count_item(side[2], ns[2], &r[i]);
	}
	free(r);
	free(side[1]);
	free(side[2]);
	return found;
}

/*
 * Theirs without the list items that ours inserted too (at any place),
 * into `out`: merged against ours, such an item then appears once, at
 * ours' place, even where git would merge both copies cleanly.  False,
 * with nothing written, when there are none (or the texts are too large
 * to compare).
 */
static bool drop_agreed_items(tm_buf *out, const struct tm_merge__span s[3])
{
	struct lines l[3];
	bool *kept[3] = {NULL, NULL, NULL}, *dup[3] = {NULL, NULL, NULL};
	size_t *ins[3] = {NULL, NULL, NULL};
	bool any = false;
	size_t i, x;

	for (i = 0; i < 3; i++)
		split_lines(&l[i], &s[i]);
	for (x = 1; x < 3; x++) {
		kept[x] = tm_xcalloc(l[0].n + 1, sizeof(bool));
		ins[x] = tm_xcalloc(l[x].n + 1, sizeof(size_t));
		dup[x] = tm_xcalloc(l[x].n + 1, sizeof(bool));
		if (!diff(kept[x], ins[x], &l[0], &l[x]))
			goto done;
	}
	mark_agreed_items(dup, l, ins);
	for (i = 0; i < l[2].n && !any; i++)
		any = dup[2][i];
	for (i = 0; any && i < l[2].n; i++)
		if (!dup[2][i])
			tm_buf_put(out, l[2].l[i].p, l[2].l[i].len);
done:
	for (i = 0; i < 3; i++) {
		free(l[i].l);
		free(kept[i]);
		free(ins[i]);
		free(dup[i]);
	}
	return any;
}

/* One section (or a whole text): one-sided change, merge, union. */
static int merge_section(tm_buf *out, bool *conflicted,
			 const struct tm_merge__span s[3],
			 const tm_merge_options *opts)
{
	tm_buf tmp = TM_BUF_INIT, theirs = TM_BUF_INIT;
	struct tm_merge__span d[3];
	bool c = false;
	int error;

	if (tm_merge__span_eq(&s[1], &s[2]) || tm_merge__span_eq(&s[0], &s[2]))
		tm_buf_put(out, s[1].p, s[1].len);
	else if (tm_merge__span_eq(&s[0], &s[1]))
		tm_buf_put(out, s[2].p, s[2].len);
	else if (drop_agreed_items(&theirs, s)) {
		/* theirs' copies of the items ours added too left out */
		d[0] = s[0];
		d[1] = s[1];
		d[2].p = tm_buf_cstr(&theirs);
		d[2].len = theirs.size;
		error = merge_section(out, conflicted, d, opts);
		tm_buf_release(&theirs);
		return error;
	} else {
		if ((error = tm_merge__text(&tmp, &c, s, opts)) < 0)
			return error;
		if (!(c || repeats_items(tmp.ptr, tmp.size, s)) ||
		    !list_union(out, s)) {
			tm_buf_put(out, tmp.ptr, tmp.size);
			*conflicted |= c;
		}
		tm_buf_release(&tmp);
	}
	return 0;
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

static const struct section *find(const struct sections *ss, const char *id)
{
	long i = tm_merge__index_find(ss->ix, id);

	return i < 0 ? NULL : &ss->s[i];
}

/* A three-way choice of bytes: one side's change, else ours. */
static const struct tm_merge__span *pick(const struct tm_merge__span *o,
					 const struct tm_merge__span *a,
					 const struct tm_merge__span *b)
{
	return tm_merge__span_eq(o, a) ? b : a;
}

int tm_merge__body(tm_buf *out, bool *conflicted,
		   const struct tm_merge__span s[3],
		   const tm_merge_options *opts)
{
	struct sections ss[3];
	struct tm_merge__span empty = {"", 0}, m[3];
	const struct tm_merge__span *tail;
	const struct section *so, *other;
	bool *keep[3] = {NULL, NULL, NULL}, any = false;
	size_t *order = NULL, n = 0, i, x, start = out->size, last = 0;
	tm_buf sec = TM_BUF_INIT;
	int error = 0;

	memset(ss, 0, sizeof(ss));
	if (tm_merge__span_eq(&s[1], &s[2]) ||
	    tm_merge__span_eq(&s[0], &s[1]) || tm_merge__span_eq(&s[0], &s[2]))
		return merge_section(out, conflicted, s, opts);
	for (x = 0; x < 3; x++)
		if (!split(&ss[x], &s[x]))
			break;
	if (x < 3) {
		error = merge_section(out, conflicted, s, opts);
		goto done;
	}
	for (x = 1; x < 3; x++) {
		keep[x] = tm_xcalloc(ss[x].n, sizeof(bool));
		for (i = 0; i < ss[x].n; i++) {
			so = find(&ss[0], ss[x].ids[i]);
			other = find(&ss[3 - x], ss[x].ids[i]);
			/* deleted on the other side: kept when changed here */
			keep[x][i] =
				other || !so ||
				!tm_merge__span_eq(&so->text, &ss[x].s[i].text);
		}
	}
	order = tm_merge__order(&n, (const char *const *)ss[1].ids, keep[1],
				ss[1].n, (const char *const *)ss[2].ids,
				keep[2], ss[2].n);
	m[0] = *pick(&ss[0].lead, &ss[1].lead, &ss[2].lead);
	tm_buf_put(out, m[0].p, m[0].len);
	for (i = 0; i < n && !error; i++) {
		if (order[i] >= ss[1].n) {
			m[2] = ss[2].s[order[i] - ss[1].n].text;
			put_section(out, &any, m[2].p, m[2].len);
			last = m[2].len ? 2 : last;
			continue;
		}
		m[1] = ss[1].s[order[i]].text;
		other = find(&ss[2], ss[1].ids[order[i]]);
		if (!other) {
			put_section(out, &any, m[1].p, m[1].len);
			last = m[1].len ? 1 : last;
			continue;
		}
		so = find(&ss[0], ss[1].ids[order[i]]);
		m[0] = so ? so->text : empty;
		m[2] = other->text;
		tm_buf_clear(&sec);
		error = merge_section(&sec, conflicted, m, opts);
		put_section(out, &any, sec.ptr, sec.size);
		last = sec.size ? 0 : last;
	}
	/* the blank lines at the end: those of the side that wrote the last
	 * section, or merged as the lead when both did */
	tail = last ? &ss[last].tail
		    : pick(&ss[0].tail, &ss[1].tail, &ss[2].tail);
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
	}
	free(order);
	tm_buf_release(&sec);
	return error;
}
