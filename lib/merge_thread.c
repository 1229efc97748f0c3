/*
 * The merge of a thread file: frontmatter field by field against the
 * ancestor, body by section (DESIGN.md section 6).  The result is written
 * canonically, so its frontmatter never holds conflict markers.
 */
#include "merge_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "timestamp.h"

#include <stdlib.h>
#include <string.h>

/* How a field changed on both sides, differently, is decided. */
enum rule { LEADER, LATER, EARLIER };

static const struct {
	size_t offset;
	enum rule rule;
} scalars[] = {
	{offsetof(tm_thread, title), LEADER},
	{offsetof(tm_thread, parent_id), LEADER},
	{offsetof(tm_thread, author), LEADER},
	{offsetof(tm_thread, created_at), EARLIER},
	{offsetof(tm_thread, updated_at), LATER},
	{offsetof(tm_thread, status), LEADER},
	{offsetof(tm_thread, branch), LEADER},
	{offsetof(tm_thread, commit), LEADER},
	{offsetof(tm_thread, merged_into), LEADER},
};

#define FIELD(t, i) (*(char **)((char *)(t) + scalars[i].offset))

static bool str_eq(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

/* Bytewise order of two strings, NULL first. */
static int str_cmp(const char *x, const char *y)
{
	if (!x || !y)
		return x ? 1 : y ? -1 : 0;
	return strcmp(x, y);
}

/* Timestamps as instants; equal instants written differently by bytes. */
static int time_cmp(const char *x, const char *y)
{
	int c = tm_time_cmp(x, y);

	return c ? c : str_cmp(x, y);
}

/*
 * Three-way choice for one value: unchanged or changed alike → that
 * value; changed on one side → that side; else the rule.
 */
static const char *pick(const char *o, const char *a, const char *b,
			enum rule rule, bool a_leads)
{
	if (str_eq(a, b) || str_eq(o, b))
		return a;
	if (str_eq(o, a))
		return b;
	switch (rule) {
	case LATER:
		return time_cmp(a, b) >= 0 ? a : b;
	case EARLIER:
		/* a valid time is earlier than none */
		if (tm_time_valid(a ? a : "") != tm_time_valid(b ? b : ""))
			return tm_time_valid(a ? a : "") ? a : b;
		return time_cmp(a, b) <= 0 ? a : b;
	default:
		return a_leads ? a : b;
	}
}

/*
 * Whether `a` leads for the fields decided by side: the later updatedAt,
 * and on a tie the greater serialised frontmatter, so that swapping the
 * sides (as a rebase does) gives the same result.
 */
static bool a_leads(const tm_thread *a, const tm_thread *b)
{
	tm_buf ha = TM_BUF_INIT, hb = TM_BUF_INIT;
	size_t n;
	int c = time_cmp(a->updated_at, b->updated_at);

	if (c)
		return c > 0;
	tm_frontmatter_write_header(&ha, a);
	tm_frontmatter_write_header(&hb, b);
	n = ha.size < hb.size ? ha.size : hb.size;
	c = n ? memcmp(ha.ptr, hb.ptr, n) : 0;
	if (!c)
		c = ha.size < hb.size ? -1 : ha.size > hb.size;
	tm_buf_release(&ha);
	tm_buf_release(&hb);
	return c >= 0;
}

static bool paths_eq(const tm_thread *x, const tm_thread *y)
{
	return x->has_paths == y->has_paths &&
	       tm_strv_equal(&x->paths, &y->paths);
}

/*
 * `paths`: one-sided changes as any field; else a three-way set merge,
 * ours' survivors in ours' order, then theirs' additions in theirs' order.
 */
static void merge_paths(tm_thread *r, tm_thread *const t[3])
{
	const tm_thread *o = t[0], *a = t[1], *b = t[2], *from = NULL;
	tm_merge__index *io, *ib, *ic;
	const char **c;
	bool in_o;
	size_t i;

	if (paths_eq(a, b) || paths_eq(o, b))
		from = a;
	else if (paths_eq(o, a))
		from = b;
	if (from) {
		r->has_paths = from->has_paths;
		tm_strv_copy(&r->paths, &from->paths);
		return;
	}
	r->has_paths = a->has_paths || b->has_paths;
	/* candidates: ours' items, then theirs'; an item is written at its
	 * first candidate, looked up in sorted indexes (n log n) */
	c = tm_xcalloc(a->paths.n + b->paths.n + 1, sizeof(char *));
	for (i = 0; i < a->paths.n; i++)
		c[i] = a->paths.items[i];
	for (i = 0; i < b->paths.n; i++)
		c[a->paths.n + i] = b->paths.items[i];
	io = tm_merge__index_new((const char *const *)o->paths.items,
				 o->paths.n);
	ib = tm_merge__index_new((const char *const *)b->paths.items,
				 b->paths.n);
	ic = tm_merge__index_new(c, a->paths.n + b->paths.n);
	for (i = 0; i < a->paths.n + b->paths.n; i++) {
		in_o = tm_merge__index_find(io, c[i]) >= 0;
		/* ours' item: kept unless theirs removed it; theirs': added */
		if (i < a->paths.n ? in_o && tm_merge__index_find(ib, c[i]) < 0
				   : in_o)
			continue;
		if (tm_merge__index_find(ic, c[i]) == (long)i)
			tm_strv_push(&r->paths, c[i]);
	}
	tm_merge__index_free(io);
	tm_merge__index_free(ib);
	tm_merge__index_free(ic);
	free(c);
}

/* The unknown fields and comments of a thread, by identity. */
struct extras {
	char **ids;
	tm_merge__index *ix;
};

static void extras_init(struct extras *e, const tm_thread *t)
{
	char **keys = tm_xcalloc(t->nextra + 1, sizeof(char *));
	tm_buf b = TM_BUF_INIT;
	size_t i;

	/* a field is known by its key, a comment by its text */
	for (i = 0; i < t->nextra; i++) {
		tm_buf_printf(&b, "%c%s", t->extra[i].key ? 'k' : 'c',
			      t->extra[i].key ? t->extra[i].key
					      : t->extra[i].raw);
		keys[i] = tm_buf_detach(&b);
	}
	e->ids = tm_merge__ids((const char *const *)keys, t->nextra);
	e->ix = tm_merge__index_new((const char *const *)e->ids, t->nextra);
	tm_merge__ids_free(keys, t->nextra);
}

static const char *extra_value(const tm_thread *t, const struct extras *e,
			       const char *id)
{
	long i = tm_merge__index_find(e->ix, id);

	return i < 0 ? NULL : t->extra[i].raw;
}

/* The merged value of an unknown field or comment (NULL: absent). */
static const char *extra_merged(tm_thread *const t[3], const struct extras e[3],
				const char *id, bool a_first)
{
	const char *v[3];
	int x;

	for (x = 0; x < 3; x++)
		v[x] = extra_value(t[x], &e[x], id);
	return pick(v[0], v[1], v[2], LEADER, a_first);
}

/*
 * Unknown fields and comments: each merged as a field decided by side
 * (absent is a value), in the leading side's order with the other side's
 * additions in place, so that the order does not depend on which side is
 * ours.
 */
static void merge_extras(tm_thread *r, tm_thread *const t[3], bool a_first)
{
	int l = a_first ? 1 : 2, m = 3 - l, x, side;
	struct extras e[3];
	bool *keep[3] = {NULL, NULL, NULL};
	size_t *order, n, i, k;

	for (x = 0; x < 3; x++)
		extras_init(&e[x], t[x]);
	for (x = 1; x < 3; x++) {
		keep[x] = tm_xcalloc(t[x]->nextra + 1, sizeof(bool));
		for (i = 0; i < t[x]->nextra; i++)
			keep[x][i] = extra_merged(t, e, e[x].ids[i], a_first) !=
				     NULL;
	}
	order = tm_merge__order(&n, (const char *const *)e[l].ids, keep[l],
				t[l]->nextra, (const char *const *)e[m].ids,
				keep[m], t[m]->nextra);
	r->extra = tm_xcalloc(n + 1, sizeof(tm_extra_field));
	for (i = 0; i < n; i++) {
		side = order[i] < t[l]->nextra ? l : m;
		k = side == l ? order[i] : order[i] - t[l]->nextra;
		r->extra[i].key = tm_xstrdup_or_null(t[side]->extra[k].key);
		r->extra[i].raw =
			tm_xstrdup(extra_merged(t, e, e[side].ids[k], a_first));
	}
	r->nextra = n;
	free(order);
	for (x = 0; x < 3; x++) {
		free(keep[x]);
		tm_merge__ids_free(e[x].ids, t[x]->nextra);
		tm_merge__index_free(e[x].ix);
	}
}

/*
 * The body of an ancestor that does not parse: what follows its closing
 * `---` line, or nothing when there is none.
 */
static void base_body(tm_thread *t, const struct tm_merge__span *s)
{
	const char *p = s->p, *end = s->p + s->len, *nl, *line;
	bool first = true;

	while (p < end) {
		line = p;
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
		if (!first && (nl ? nl : end) - line == 3 &&
		    !memcmp(line, "---", 3)) {
			tm_thread_set_body(t, p, (size_t)(end - p));
			return;
		}
		first = false;
	}
}

static int parse_side(tm_thread **out, char **note,
		      const struct tm_merge__span *s, const char *id,
		      const char *path, int side)
{
	tm_buf msg = TM_BUF_INIT;

	if (side == TM_MERGE__BASE && !s->len) {
		/* added on both sides: no fields, no body */
		*out = tm_thread_new();
		(*out)->id = tm_xstrdup(id);
		return 0;
	}
	if (tm_frontmatter_parse(out, s->p, s->len, id,
				 path ? path : tm_merge__side_name[side]) < 0) {
		if (side == TM_MERGE__BASE) {
			/* a criss-cross virtual ancestor holding markers:
			 * no fields, its body (when found) still the base */
			*out = tm_thread_new();
			(*out)->id = tm_xstrdup(id);
			base_body(*out, s);
			return 0;
		}
		tm_buf_printf(&msg, "%s is not a thread file: %s",
			      tm_merge__side_name[side], tm_error_last());
		*note = tm_buf_detach(&msg);
		return TM_EPARSE;
	}
	return 0;
}

int tm_merge__thread(tm_buf *out, bool *conflicted, char **note,
		     const struct tm_merge__span s[3], const char *id,
		     const tm_merge_options *opts)
{
	tm_thread *t[3] = {NULL, NULL, NULL}, *r = NULL;
	struct tm_merge__span body[3];
	tm_buf merged = TM_BUF_INIT;
	bool lead_a;
	size_t i;
	int x, error = 0;

	for (x = 0; x < 3 && !error; x++)
		error = parse_side(&t[x], note, &s[x], id, opts->path, x);
	if (error)
		goto done;
	for (x = 0; x < 3; x++) {
		body[x].p = t[x]->body ? t[x]->body : "";
		body[x].len = t[x]->body_len;
	}
	if ((error = tm_merge__body(&merged, conflicted, body, opts)) < 0)
		goto done;
	lead_a = a_leads(t[1], t[2]);
	r = tm_thread_new();
	r->id = tm_xstrdup(id);
	for (i = 0; i < sizeof(scalars) / sizeof(*scalars); i++)
		FIELD(r, i) = tm_xstrdup_or_null(
			pick(FIELD(t[0], i), FIELD(t[1], i), FIELD(t[2], i),
			     scalars[i].rule, lead_a));
	merge_paths(r, t);
	merge_extras(r, t, lead_a);
	tm_thread_set_body(r, merged.ptr ? merged.ptr : "", merged.size);
	tm_frontmatter_write(out, r);
done:
	for (x = 0; x < 3; x++)
		tm_thread_free(t[x]);
	tm_thread_free(r);
	tm_buf_release(&merged);
	return error;
}

/* The order of creation of two threads: createdAt, then author. */
static int created_cmp(const tm_thread *a, const tm_thread *b)
{
	int c = tm_time_cmp(a->created_at, b->created_at);

	return c ? c : str_cmp(a->author, b->author);
}

int tm_merge_two_threads(const char *o, size_t olen, const char *a, size_t alen,
			 const char *b, size_t blen, const char *id)
{
	tm_thread *ta = NULL, *tb = NULL;
	int keeper = 0, c;

	(void)o;
	/* two roots `main` (two stores begun apart) are one root */
	if (olen || !id || !strcmp(id, TM_ROOT_THREAD_ID))
		return 0;
	if (tm_frontmatter_parse(&ta, a ? a : "", a ? alen : 0, id, "ours") ==
		    0 &&
	    tm_frontmatter_parse(&tb, b ? b : "", b ? blen : 0, id, "theirs") ==
		    0 &&
	    (c = created_cmp(ta, tb)) != 0)
		keeper = c < 0 ? 1 : 2;
	tm_error_clear();
	tm_thread_free(ta);
	tm_thread_free(tb);
	return keeper;
}
