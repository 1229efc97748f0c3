/*
 * Two versions of a project's threads compared (see thread_diff.h):
 * pairing by id and identity, field by field, the summary by section,
 * the result in tree order.
 */
#include "thread_diff.h"
#include "error.h"
#include "frontmatter.h"
#include "hashmap.h"
#include "timestamp.h"
#include "tree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#define NONE SIZE_MAX

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Both sides know the thread's identity, and it is not the same. */
static bool other_identity(const tm_thread *b, const tm_thread *a)
{
	return b->created_at && b->author && a->created_at && a->author &&
	       !tm_thread_same_identity(b->created_at, b->author, a->created_at,
					a->author);
}

/* The identity as a map key (NULL when a part is missing): the instant,
 * so that two spellings of one time are one identity. */
static char *identity_key(const tm_thread *t)
{
	tm_buf b = TM_BUF_INIT;
	int64_t ms;

	if (!t->created_at || !t->author)
		return NULL;
	if (tm_time_parse(&ms, t->created_at) == 0)
		tm_buf_printf(&b, "%" PRId64 "\n%s", ms, t->author);
	else
		tm_buf_printf(&b, "?%s\n%s", t->created_at, t->author);
	tm_error_clear();
	return tm_buf_detach(&b);
}

static tm_tdiff_field *add_field(tm_tdiff_entry *e, size_t *alloc,
				 const char *name, const char *old_value,
				 const char *new_value)
{
	tm_tdiff_field *f;

	tm_xgrow((void **)&e->fields, alloc, e->nfields + 1,
		 sizeof(*e->fields));
	f = &e->fields[e->nfields++];
	memset(f, 0, sizeof(*f));
	f->name = tm_xstrdup(name);
	f->old_value = tm_xstrdup_or_null(old_value);
	f->new_value = tm_xstrdup_or_null(new_value);
	return f;
}

static void text_field(tm_tdiff_entry *e, size_t *alloc, const char *name,
		       const char *o, const char *n)
{
	if (!str_eq(o, n))
		add_field(e, alloc, name, o, n);
}

static void time_field(tm_tdiff_entry *e, size_t *alloc, const char *name,
		       const char *o, const char *n)
{
	if (!str_eq(o, n) && (!o || !n || tm_time_cmp(o, n)))
		add_field(e, alloc, name, o, n);
}

static void paths_field(tm_tdiff_entry *e, size_t *alloc, const tm_thread *b,
			const tm_thread *a)
{
	tm_strv added = TM_STRV_INIT, removed = TM_STRV_INIT;
	tm_tdiff_field *f;
	size_t i;

	for (i = 0; i < a->paths.n; i++)
		if (!tm_strv_contains(&b->paths, a->paths.items[i]) &&
		    !tm_strv_contains(&added, a->paths.items[i]))
			tm_strv_push(&added, a->paths.items[i]);
	for (i = 0; i < b->paths.n; i++)
		if (!tm_strv_contains(&a->paths, b->paths.items[i]) &&
		    !tm_strv_contains(&removed, b->paths.items[i]))
			tm_strv_push(&removed, b->paths.items[i]);
	if (!added.n && !removed.n)
		return;
	f = add_field(e, alloc, "paths", NULL, NULL);
	f->added = added;
	f->removed = removed;
}

/* An unknown field's value as shown: its raw text trimmed. */
static char *raw_value(const char *raw)
{
	const char *s = raw, *e = raw + strlen(raw);

	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' ||
			 e[-1] == '\t'))
		e--;
	return tm_xstrndup(s, (size_t)(e - s));
}

static const tm_extra_field *extra_get(const tm_thread *t, const char *key)
{
	return tm_find_by_string(t->extra, t->nextra, sizeof(*t->extra),
				 offsetof(tm_extra_field, key), key);
}

static void extra_fields(tm_tdiff_entry *e, size_t *alloc, const tm_thread *b,
			 const tm_thread *a)
{
	size_t i;

	for (i = 0; i < a->nextra; i++) {
		const tm_extra_field *x = &a->extra[i];
		const tm_extra_field *y;
		char *nv, *ov;

		if (!x->key)
			continue;
		y = extra_get(b, x->key);
		nv = raw_value(x->raw);
		ov = y ? raw_value(y->raw) : NULL;
		if (!y || strcmp(ov, nv))
			add_field(e, alloc, x->key, ov, nv);
		free(nv);
		free(ov);
	}
	for (i = 0; i < b->nextra; i++) {
		const tm_extra_field *y = &b->extra[i];
		char *ov;

		if (!y->key || extra_get(a, y->key))
			continue;
		ov = raw_value(y->raw);
		add_field(e, alloc, y->key, ov, NULL);
		free(ov);
	}
}

static void compare_summaries(tm_sdiff *out, const tm_thread *b,
			      const tm_thread *a)
{
	char *os, *ns;

	if (b && a && b->body_len == a->body_len &&
	    (!b->body_len || !memcmp(b->body, a->body, b->body_len)))
		return;
	os = b ? tm_thread_summary(b) : tm_xstrdup("");
	ns = a ? tm_thread_summary(a) : tm_xstrdup("");
	tm_sdiff_summaries(out, os, strlen(os), ns, strlen(ns));
	free(os);
	free(ns);
}

/* The fields and summary of a pair; false when nothing changed. */
static bool compare(tm_tdiff_entry *e, const tm_thread *b, const tm_thread *a,
		    const tm_tdiff_options *opts)
{
	size_t alloc = 0;

	text_field(e, &alloc, "parentId", b->parent_id, a->parent_id);
	text_field(e, &alloc, "status", b->status, a->status);
	text_field(e, &alloc, "mergedInto", b->merged_into, a->merged_into);
	text_field(e, &alloc, "title", b->title, a->title);
	text_field(e, &alloc, "branch", b->branch, a->branch);
	paths_field(e, &alloc, b, a);
	text_field(e, &alloc, "commit", b->commit, a->commit);
	text_field(e, &alloc, "author", b->author, a->author);
	time_field(e, &alloc, "createdAt", b->created_at, a->created_at);
	if (opts->all_fields) {
		time_field(e, &alloc, "updatedAt", b->updated_at,
			   a->updated_at);
		text_field(e, &alloc, "id", b->field_id, a->field_id);
	}
	extra_fields(e, &alloc, b, a);
	compare_summaries(&e->summary, b, a);
	return e->nfields || tm_sdiff_changed(&e->summary);
}

/* Each node's place in the pre-order walk of its side's tree. */
struct walk {
	size_t *pos;
	size_t next;
};

static int visit(const tm_tree *tree, size_t node, void *payload)
{
	struct walk *w = payload;

	(void)tree;
	w->pos[node] = w->next++;
	return 0;
}

static int preorder(size_t **out, const tm_thread *const *t, size_t n)
{
	tm_tree *tree = NULL;
	struct walk w;
	int error;

	if ((error = tm_tree_build(&tree, t, n)) < 0)
		return error;
	w.pos = tm_xcalloc(n + 1, sizeof(size_t));
	w.next = 0;
	tm_tree_walk(tree, visit, &w);
	tm_tree_free(tree);
	*out = w.pos;
	return 0;
}

/* An entry and where it goes. */
struct pending {
	tm_tdiff_entry e;
	int side; /* 0: placed by the new side's tree, 1: the old side's */
	size_t pos;
};

static int pending_cmp(const void *x, const void *y)
{
	const struct pending *a = x, *b = y;

	if (a->side != b->side)
		return a->side - b->side;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static void entry_init(tm_tdiff_entry *e, tm_tdiff_kind kind, const char *id,
		       const char *old_id, const tm_thread *b,
		       const tm_thread *a)
{
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->id = tm_xstrdup(id);
	e->old_id = tm_xstrdup_or_null(old_id);
	e->before = b;
	e->after = a;
}

static void entry_free(tm_tdiff_entry *e)
{
	size_t i;

	for (i = 0; i < e->nfields; i++) {
		TM_FREE_ALL(e->fields[i].name, e->fields[i].old_value,
			    e->fields[i].new_value);
		tm_strv_clear(&e->fields[i].added);
		tm_strv_clear(&e->fields[i].removed);
	}
	TM_FREE_ALL(e->fields, e->id, e->old_id, e->message);
	tm_sdiff_clear(&e->summary);
}

/* A thread and its index in its side's array, sorted by id. */
struct ranked {
	const tm_thread *t;
	size_t i;
};

static int by_id(const void *x, const void *y)
{
	return strcmp(((const struct ranked *)x)->t->id,
		      ((const struct ranked *)y)->t->id);
}

static struct ranked *sorted_by_id(const tm_thread *const *t, size_t n)
{
	struct ranked *r = tm_xcalloc(n + 1, sizeof(*r));
	size_t i;

	for (i = 0; i < n; i++) {
		r[i].t = t[i];
		r[i].i = i;
	}
	qsort(r, n, sizeof(*r), by_id);
	return r;
}

/* pair_b[i]: the new side's thread paired with before[i] (NONE: none);
 * pair_a likewise; renamed pairs are those whose ids differ.  By id
 * (sorted, no map: a diff of 10,000 threads pays for every page), then the
 * rest by identity. */
static void pair_threads(size_t *pair_b, size_t *pair_a,
			 const tm_thread *const *before, size_t nb,
			 const tm_thread *const *after, size_t na)
{
	struct ranked *sb = sorted_by_id(before, nb);
	struct ranked *sa = sorted_by_id(after, na);
	tm_hashmap who = TM_HASHMAP_INIT;
	size_t i, j, left_b = 0, left_a = 0;

	for (i = 0; i < nb; i++)
		pair_b[i] = NONE;
	for (j = 0; j < na; j++)
		pair_a[j] = NONE;
	i = j = 0;
	while (i < nb && j < na) {
		int c = strcmp(sb[i].t->id, sa[j].t->id);

		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			if (!other_identity(sb[i].t, sa[j].t)) {
				pair_b[sb[i].i] = sa[j].i;
				pair_a[sa[j].i] = sb[i].i;
			}
			i++;
			j++;
		}
	}
	free(sb);
	free(sa);
	for (i = 0; i < nb; i++)
		left_b += pair_b[i] == NONE;
	for (j = 0; j < na; j++)
		left_a += pair_a[j] == NONE;
	if (!left_b || !left_a)
		return;
	for (i = 0; i < nb; i++) {
		char *k;

		if (pair_b[i] != NONE || !(k = identity_key(before[i])))
			continue;
		tm_hashmap_puts(&who, k, i);
		free(k);
	}
	for (j = 0; j < na && who.n; j++) {
		char *k;
		size_t *at;

		if (pair_a[j] != NONE || !(k = identity_key(after[j])))
			continue;
		at = tm_hashmap_gets(&who, k);
		if (at && *at != NONE && pair_b[*at] == NONE) {
			pair_a[j] = *at;
			pair_b[*at] = j;
			*at = NONE;
		}
		free(k);
	}
	tm_hashmap_release(&who);
}

int tm_tdiff_threads(tm_tdiff *out, const tm_thread *const *before,
		     size_t nbefore, const tm_thread *const *after,
		     size_t nafter, const tm_tdiff_options *opts)
{
	tm_tdiff_options defaults = TM_TDIFF_OPTIONS_INIT;
	size_t *pos_b = NULL, *pos_a = NULL, *pair_b, *pair_a, i, j, n = 0;
	struct pending *p;
	int error;

	if (!opts)
		opts = &defaults;
	if ((error = preorder(&pos_b, before, nbefore)) < 0 ||
	    (error = preorder(&pos_a, after, nafter)) < 0) {
		free(pos_b);
		return error;
	}
	pair_b = tm_xcalloc(nbefore + 1, sizeof(size_t));
	pair_a = tm_xcalloc(nafter + 1, sizeof(size_t));
	pair_threads(pair_b, pair_a, before, nbefore, after, nafter);
	p = tm_xcalloc(nbefore + nafter + 1, sizeof(*p));
	for (j = 0; j < nafter; j++) {
		const tm_thread *a = after[j], *b;

		p[n].side = 0;
		p[n].pos = pos_a[j];
		if (pair_a[j] == NONE) {
			entry_init(&p[n].e, TM_TDIFF_ADDED, a->id, NULL, NULL,
				   a);
			compare_summaries(&p[n].e.summary, NULL, a);
			n++;
			continue;
		}
		b = before[pair_a[j]];
		if (a == b)
			continue;
		entry_init(&p[n].e,
			   strcmp(a->id, b->id) ? TM_TDIFF_RENAMED
						: TM_TDIFF_MODIFIED,
			   a->id, b->id, b, a);
		if (compare(&p[n].e, b, a, opts) ||
		    p[n].e.kind == TM_TDIFF_RENAMED)
			n++;
		else
			entry_free(&p[n].e);
	}
	for (i = 0; i < nbefore; i++) {
		if (pair_b[i] != NONE)
			continue;
		p[n].side = 1;
		p[n].pos = pos_b[i];
		entry_init(&p[n].e, TM_TDIFF_REMOVED, before[i]->id,
			   before[i]->id, before[i], NULL);
		compare_summaries(&p[n].e.summary, before[i], NULL);
		n++;
	}
	qsort(p, n, sizeof(*p), pending_cmp);
	tm_xgrow((void **)&out->items, &out->alloc, out->n + n + 1,
		 sizeof(*out->items));
	for (i = 0; i < n; i++)
		out->items[out->n++] = p[i].e;
	TM_FREE_ALL(p, pair_b, pair_a, pos_b, pos_a);
	return 0;
}

void tm_tdiff_add_problem(tm_tdiff *d, tm_tdiff_kind kind, const char *id,
			  const tm_thread *before, const tm_thread *after,
			  const char *message)
{
	tm_tdiff_entry *e;

	tm_xgrow((void **)&d->items, &d->alloc, d->n + 1, sizeof(*d->items));
	e = &d->items[d->n++];
	entry_init(e, kind, id, before ? id : NULL, before, after);
	e->message = tm_xstrdup_or_null(message);
}

const tm_tdiff_entry *tm_tdiff_find(const tm_tdiff *d, const char *id)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->items[i].id, id) ||
		    str_eq(d->items[i].old_id, id))
			return &d->items[i];
	return NULL;
}

const tm_tdiff_field *tm_tdiff_field_get(const tm_tdiff_entry *e,
					 const char *name)
{
	return tm_find_by_string(e->fields, e->nfields, sizeof(*e->fields),
				 offsetof(tm_tdiff_field, name), name);
}

void tm_tdiff_limit(tm_tdiff *d, const char *const *ids, size_t nids)
{
	size_t i, k, n = 0;

	for (i = 0; i < d->n; i++) {
		bool keep = false;

		for (k = 0; k < nids && !keep; k++)
			keep = !strcmp(d->items[i].id, ids[k]) ||
			       str_eq(d->items[i].old_id, ids[k]);
		if (keep)
			d->items[n++] = d->items[i];
		else
			entry_free(&d->items[i]);
	}
	d->n = n;
}

void tm_tdiff_clear(tm_tdiff *d)
{
	TM_FREE_ITEMS(d->items, d->n, entry_free);
	memset(d, 0, sizeof(*d));
}
