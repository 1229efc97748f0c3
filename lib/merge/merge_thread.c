/*
 * The merge of a thread file: frontmatter field by field against the
 * ancestor, body by section (DESIGN.md section 6).  The result is written
 * canonically, so its frontmatter never holds conflict markers.
 */
#include "merge_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "text.h"
#include "timestamp.h"
#include "yaml.h"

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
 * and on a tie the greater serialised frontmatter (then body), so that
 * swapping the sides (as a rebase does) gives the same result.
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
	/* equal frontmatter: the bodies decide (the body merge's leader) */
	tm_buf_put(&ha, a->body ? a->body : "", a->body_len);
	tm_buf_put(&hb, b->body ? b->body : "", b->body_len);
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
 * The three-way set merge of lists (`paths`, any list-valued field): an
 * item added on either side is in, one removed on either side is out;
 * ours' survivors in ours' order, then theirs' additions in theirs' order.
 * Items are looked up in sorted indexes: n log n.
 */
static void set_merge(tm_strv *r, const tm_strv *o, const tm_strv *a,
		      const tm_strv *b)
{
	tm_merge__index *io, *ib, *ic;
	const char **c;
	bool in_o;
	size_t i;

	/* candidates: ours' items, then theirs'; an item is written at its
	 * first candidate */
	c = tm_xcalloc(a->n + b->n + 1, sizeof(char *));
	for (i = 0; i < a->n; i++)
		c[i] = a->items[i];
	for (i = 0; i < b->n; i++)
		c[a->n + i] = b->items[i];
	io = tm_merge__index_new((const char *const *)o->items, o->n);
	ib = tm_merge__index_new((const char *const *)b->items, b->n);
	ic = tm_merge__index_new(c, a->n + b->n);
	for (i = 0; i < a->n + b->n; i++) {
		in_o = tm_merge__index_find(io, c[i]) >= 0;
		/* ours' item: kept unless theirs removed it; theirs': added */
		if (i < a->n ? in_o && tm_merge__index_find(ib, c[i]) < 0
			     : in_o)
			continue;
		if (tm_merge__index_find(ic, c[i]) == (long)i)
			tm_strv_push(r, c[i]);
	}
	tm_merge__index_free(io);
	tm_merge__index_free(ib);
	tm_merge__index_free(ic);
	free(c);
}

/* `paths`: one-sided changes as any field; else the set merge. */
static void merge_paths(tm_thread *r, tm_thread *const t[3])
{
	const tm_thread *o = t[0], *a = t[1], *b = t[2], *from = NULL;

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
	set_merge(&r->paths, &o->paths, &a->paths, &b->paths);
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

/*
 * The items of an unknown field's value `raw` (after "key:") when it is a
 * list, flow or block; an absent or null value is an empty list.  False
 * for anything else.
 */
static bool list_value(tm_strv *out, const char *key, const char *raw)
{
	tm_yaml_value v = TM_YAML_VALUE_INIT;
	tm_buf entry = TM_BUF_INIT;
	bool ok = true;

	if (!raw)
		return true;
	tm_buf_printf(&entry, "%s:%s", key, raw);
	if (tm_yaml_read_entry(&v, entry.ptr, entry.size, key, "merge", 1,
			       NULL) < 0) {
		tm_error_clear();
		ok = false;
	} else if (v.kind == TM_YAML_LIST) {
		tm_strv_copy(out, &v.items);
	} else {
		ok = v.kind == TM_YAML_NULL;
	}
	tm_yaml_value_clear(&v);
	tm_buf_release(&entry);
	return ok;
}

/*
 * An unknown field holding a list on every side (or absent), changed on
 * both: the set merge, written as `paths` is (JSON strings in brackets).
 * NULL when it does not apply.
 */
static char *merge_list_field(const char *key, const char *const v[3])
{
	tm_strv l[3] = {TM_STRV_INIT, TM_STRV_INIT, TM_STRV_INIT};
	tm_strv r = TM_STRV_INIT;
	tm_buf b = TM_BUF_INIT;
	bool ok = key != NULL && v[1] && v[2];
	size_t i;
	int x;

	for (x = 0; x < 3 && ok; x++)
		ok = list_value(&l[x], key, v[x]);
	if (ok) {
		set_merge(&r, &l[0], &l[1], &l[2]);
		tm_buf_puts(&b, " [");
		for (i = 0; i < r.n; i++) {
			if (i)
				tm_buf_putc(&b, ',');
			tm_yaml_put_quoted(&b, r.items[i]);
		}
		tm_buf_putc(&b, ']');
	}
	for (x = 0; x < 3; x++)
		tm_strv_clear(&l[x]);
	tm_strv_clear(&r);
	return ok ? tm_buf_detach(&b) : NULL;
}

/*
 * The merged value of an unknown field or comment (NULL: absent), as a
 * field decided by side; a list changed on both sides is set-merged
 * (malloc'd).
 */
static char *extra_merged(tm_thread *const t[3], const struct extras e[3],
			  const char *id, const char *key, bool a_first)
{
	const char *v[3];
	char *list;
	int x;

	for (x = 0; x < 3; x++)
		v[x] = extra_value(t[x], &e[x], id);
	if (!str_eq(v[1], v[2]) && !str_eq(v[0], v[1]) && !str_eq(v[0], v[2]) &&
	    (list = merge_list_field(key, v)))
		return list;
	return tm_xstrdup_or_null(pick(v[0], v[1], v[2], LEADER, a_first));
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
	char *v;

	for (x = 0; x < 3; x++)
		extras_init(&e[x], t[x]);
	for (x = 1; x < 3; x++) {
		keep[x] = tm_xcalloc(t[x]->nextra + 1, sizeof(bool));
		for (i = 0; i < t[x]->nextra; i++) {
			v = extra_merged(t, e, e[x].ids[i], t[x]->extra[i].key,
					 a_first);
			keep[x][i] = v != NULL;
			free(v);
		}
	}
	order = tm_merge__order(&n, (const char *const *)e[l].ids, keep[l],
				t[l]->nextra, (const char *const *)e[m].ids,
				keep[m], t[m]->nextra);
	r->extra = tm_xcalloc(n + 1, sizeof(tm_extra_field));
	for (i = 0; i < n; i++) {
		side = order[i] < t[l]->nextra ? l : m;
		k = side == l ? order[i] : order[i] - t[l]->nextra;
		r->extra[i].key = tm_xstrdup_or_null(t[side]->extra[k].key);
		r->extra[i].raw = extra_merged(t, e, e[side].ids[k],
					       t[side]->extra[k].key, a_first);
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

/* An ancestor with no identity: none (added on both sides), one that does
 * not parse, or a file written before threads had createdAt and author. */
static bool has_identity(const tm_thread *t)
{
	return t->created_at || t->author;
}

static bool same_thread(const tm_thread *x, const tm_thread *y)
{
	return tm_thread_same_identity(x->created_at, x->author, y->created_at,
				       y->author);
}

/* Which threads the parsed sides hold (tm_merge_thread_identity). */
static tm_merge_identity classify(tm_thread *const t[3], const char *id)
{
	bool so, st;

	/* two roots `main` (two stores begun apart) are one root */
	if (!id || !strcmp(id, TM_ROOT_THREAD_ID))
		return TM_MERGE_ONE_THREAD;
	if (!has_identity(t[0]))
		return same_thread(t[1], t[2]) ? TM_MERGE_ONE_THREAD
					       : TM_MERGE_TWO_THREADS;
	so = same_thread(t[0], t[1]);
	st = same_thread(t[0], t[2]);
	if (so && st)
		return TM_MERGE_ONE_THREAD;
	if (!so && !st)
		return same_thread(t[1], t[2]) ? TM_MERGE_BOTH_OTHER
					       : TM_MERGE_TWO_THREADS;
	return so ? TM_MERGE_THEIRS_OTHER : TM_MERGE_OURS_OTHER;
}

static void put_name(tm_buf *b, const tm_thread *t)
{
	tm_text_thread_name(b, t->title, t->author);
}

/*
 * Why the sides of `id` are not merged, naming the threads by title and
 * author: ours is what HEAD holds in every git operation (a rebase's
 * "ours" is the upstream), so it is named by that, never as "ours".
 */
static char *identity_note(tm_thread *const t[3], tm_merge_identity kind,
			   const char *id, const tm_merge_options *opts)
{
	tm_buf b = TM_BUF_INIT, from = TM_BUF_INIT;
	const char *label = opts->their_label;

	/* git's %Y label (a branch, or a replayed commit) when given */
	if (label && *label && strcmp(label, "theirs"))
		tm_buf_printf(&from, " (from '%s')", label);
	switch (kind) {
	case TM_MERGE_OURS_OTHER:
		tm_buf_printf(&b, "'%s' is ", id);
		put_name(&b, t[1]);
		tm_buf_puts(&b, " in HEAD, but the incoming edit");
		tm_buf_puts(&b, tm_buf_cstr(&from));
		tm_buf_puts(&b, " is to ");
		put_name(&b, t[2]);
		tm_buf_puts(&b, ", which HEAD holds under another id: run 'git "
				"threadmind resolve' to apply the edit there");
		break;
	case TM_MERGE_THEIRS_OTHER:
		tm_buf_printf(&b, "'%s' is ", id);
		put_name(&b, t[2]);
		tm_buf_printf(&b,
			      " on the incoming side%s, but HEAD's edit is "
			      "to ",
			      tm_buf_cstr(&from));
		put_name(&b, t[1]);
		tm_buf_puts(&b, ", which the incoming side holds under another "
				"id: run 'git threadmind resolve' to apply the "
				"edit there");
		break;
	default:
		if (has_identity(t[0]))
			tm_buf_printf(&b,
				      "'%s' holds a different thread on each "
				      "side: ",
				      id);
		else
			tm_buf_printf(&b,
				      "two threads '%s' were created on both "
				      "sides: ",
				      id);
		put_name(&b, t[1]);
		tm_buf_puts(&b, ", already in HEAD, keeps the id; ");
		put_name(&b, t[2]);
		tm_buf_puts(&b, tm_buf_cstr(&from));
		tm_buf_puts(&b, " takes the next free one: run 'git threadmind "
				"resolve' to keep both");
	}
	tm_buf_release(&from);
	return tm_buf_detach(&b);
}

/* Whether the field at `offset` differs from the ancestor's on both
 * sides. */
static bool changed_on_both(tm_thread *const t[3], size_t offset)
{
	const char *o = *(char **)((char *)t[0] + offset);

	return !str_eq(o, *(char **)((char *)t[1] + offset)) &&
	       !str_eq(o, *(char **)((char *)t[2] + offset));
}

int tm_merge__thread(tm_buf *out, bool *conflicted, char **note,
		     const struct tm_merge__span s[3], const char *id,
		     const tm_merge_options *opts)
{
	tm_thread *t[3] = {NULL, NULL, NULL}, *r = NULL;
	struct tm_merge__span body[3];
	tm_buf merged = TM_BUF_INIT;
	tm_merge_identity kind;
	bool lead_a;
	size_t i;
	int x, error = 0;

	for (x = 0; x < 3 && !error; x++)
		error = parse_side(&t[x], note, &s[x], id, opts->path, x);
	if (error)
		goto done;
	switch ((kind = classify(t, id))) {
	case TM_MERGE_ONE_THREAD:
		break;
	case TM_MERGE_BOTH_OTHER:
		/* the same new thread on both sides: an add/add of it */
		tm_thread_free(t[0]);
		t[0] = tm_thread_new();
		t[0]->id = tm_xstrdup(id);
		break;
	default:
		*note = identity_note(t, kind, id, opts);
		error = TM_ECONFLICT;
		goto done;
	}
	lead_a = a_leads(t[1], t[2]);
	for (x = 0; x < 3; x++) {
		body[x].p = t[x]->body ? t[x]->body : "";
		body[x].len = t[x]->body_len;
	}
	tm_merge__body(&merged, conflicted, body, opts,
		       lead_a ? TM_MERGE__OURS : TM_MERGE__THEIRS);
	r = tm_thread_new();
	r->id = tm_xstrdup(id);
	for (i = 0; i < sizeof(scalars) / sizeof(*scalars); i++)
		FIELD(r, i) = tm_xstrdup_or_null(
			pick(FIELD(t[0], i), FIELD(t[1], i), FIELD(t[2], i),
			     scalars[i].rule, lead_a));
	/* branch and commit are one review point: either changed on both
	 * sides, both come from the leading side */
	if (changed_on_both(t, offsetof(tm_thread, branch)) ||
	    changed_on_both(t, offsetof(tm_thread, commit))) {
		tm_thread_set(&r->branch, t[lead_a ? 1 : 2]->branch);
		tm_thread_set(&r->commit, t[lead_a ? 1 : 2]->commit);
	}
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

tm_merge_identity tm_merge_thread_identity(const char *o, size_t olen,
					   const char *a, size_t alen,
					   const char *b, size_t blen,
					   const char *id)
{
	const struct tm_merge__span s[3] = {{o ? o : "", o ? olen : 0},
					    {a ? a : "", a ? alen : 0},
					    {b ? b : "", b ? blen : 0}};
	tm_thread *t[3] = {NULL, NULL, NULL};
	tm_merge_identity kind = TM_MERGE_ONE_THREAD;
	char *note = NULL;
	int x, error = 0;

	for (x = 0; x < 3 && !error; x++)
		error = parse_side(&t[x], &note, &s[x], id ? id : "", NULL, x);
	if (!error)
		kind = classify(t, id);
	for (x = 0; x < 3; x++)
		tm_thread_free(t[x]);
	free(note);
	tm_error_clear();
	return kind;
}

int tm_merge_two_threads(const char *o, size_t olen, const char *a, size_t alen,
			 const char *b, size_t blen, const char *id)
{
	if (olen)
		return 0;
	return tm_merge_thread_identity(o, 0, a, alen, b, blen, id) ==
			       TM_MERGE_TWO_THREADS
		       ? 1
		       : 0;
}
