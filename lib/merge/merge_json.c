/*
 * The merge of a project file (projects/{id}.json): a JSON object merged
 * key by key against the ancestor; strings changed on both sides merged
 * as text; markers around a key that cannot be merged (DESIGN.md 6).
 */
#include "merge_internal.h"
#include "error.h"
#include "json_cjson.h"

#include <stdlib.h>
#include <string.h>

/* The members of one side's object. */
struct members {
	cJSON *root;
	size_t n;
	const char **names;
	cJSON **items;
	char **text; /* each value as written, to compare values */
	tm_merge__index *ix;
};

/* The merged value of one key. */
struct merged {
	const char *name;
	enum { ABSENT, VALUE, CONFLICT } state;
	cJSON *value;         /* VALUE: owned */
	const cJSON *side[3]; /* CONFLICT: each side's value or NULL */
};

static void members_free(struct members *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->text[i]);
	TM_FREE_ALL(m->names, m->items, m->text);
	tm_merge__index_free(m->ix);
	cJSON_Delete(m->root);
	memset(m, 0, sizeof(*m));
}

/* cJSON returns NULL when it cannot allocate: give up on the merge. */
static int no_memory(void)
{
	return tm_error_set(TM_ERROR,
			    "out of memory while merging a project file");
}

static void set_note(char **note, int side, const char *what, const char *msg)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_printf(&b, "%s %s%s%s", tm_merge__side_name[side], what,
		      msg ? ": " : "", msg ? msg : "");
	*note = tm_buf_detach(&b);
}

static int load(struct members *m, char **note, const struct tm_merge__span *s,
		const char *path, int side)
{
	tm_buf b = TM_BUF_INIT;
	cJSON *it;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (side == TM_MERGE__BASE && !s->len) {
		if (!(m->root = cJSON_CreateObject()))
			return no_memory();
	} else if (tm_json_parse(&m->root, s->p, s->len,
				 path ? path : tm_merge__side_name[side]) < 0) {
		set_note(note, side, "is not valid JSON", tm_error_last());
		return TM_EPARSE;
	}
	if (!cJSON_IsObject(m->root)) {
		set_note(note, side, "is not a JSON object", NULL);
		return TM_EPARSE;
	}
	/* cJSON cuts strings at \u0000: such a file is merged as text */
	if (memmem(s->p, s->len, "\\u0000", 6)) {
		set_note(note, side, "holds a \\u0000 escape", NULL);
		return TM_EPARSE;
	}
	for (it = m->root->child; it; it = it->next)
		m->n++;
	m->names = tm_xcalloc(m->n + 1, sizeof(char *));
	m->items = tm_xcalloc(m->n + 1, sizeof(cJSON *));
	m->text = tm_xcalloc(m->n + 1, sizeof(char *));
	for (i = 0, it = m->root->child; it; it = it->next, i++) {
		m->names[i] = it->string ? it->string : "";
		m->items[i] = it;
		tm_json_stringify(&b, it);
		m->text[i] = tm_buf_detach(&b);
	}
	m->ix = tm_merge__index_new(m->names, m->n);
	for (i = 0; i < m->n; i++)
		if (tm_merge__index_find(m->ix, m->names[i]) != (long)i) {
			set_note(note, side, "has a key twice", m->names[i]);
			return TM_EPARSE;
		}
	return 0;
}

static const char *text_of(const struct members *m, const char *name,
			   const cJSON **item)
{
	long i = tm_merge__index_find(m->ix, name);

	*item = i < 0 ? NULL : m->items[i];
	return i < 0 ? NULL : m->text[i];
}

static bool text_eq(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

static int take(struct merged *r, const cJSON *v)
{
	r->state = v ? VALUE : ABSENT;
	r->value = v ? cJSON_Duplicate(v, true) : NULL;
	return v && !r->value ? no_memory() : 0;
}

static int merge_key(struct merged *r, const struct members m[3],
		     const char *name, const tm_merge_options *opts)
{
	const cJSON *v[3];
	const char *t[3];
	struct tm_merge__span s[3];
	tm_buf b = TM_BUF_INIT;
	bool conflicted = false;
	int x;

	memset(r, 0, sizeof(*r));
	r->name = name;
	for (x = 0; x < 3; x++)
		t[x] = text_of(&m[x], name, &v[x]);
	if (text_eq(t[1], t[2]) || text_eq(t[0], t[2]))
		return take(r, v[1]);
	if (text_eq(t[0], t[1]))
		return take(r, v[2]);
	if (cJSON_IsString(v[1]) && cJSON_IsString(v[2]) &&
	    (!v[0] || cJSON_IsString(v[0]))) {
		for (x = 0; x < 3; x++) {
			s[x].p = v[x] ? v[x]->valuestring : "";
			s[x].len = strlen(s[x].p);
		}
		/* no updatedAt here: the greater string leads, whichever side
		 * it is on */
		tm_merge__body(&b, &conflicted, s, opts,
			       strcmp(s[1].p, s[2].p) >= 0 ? TM_MERGE__OURS
							   : TM_MERGE__THEIRS);
		if (!conflicted) {
			r->state = VALUE;
			r->value = cJSON_CreateString(tm_buf_cstr(&b));
			tm_buf_release(&b);
			return r->value ? 0 : no_memory();
		}
		tm_buf_release(&b);
	}
	r->state = CONFLICT;
	for (x = 0; x < 3; x++)
		r->side[x] = v[x];
	return 0;
}

/* `  "name": value` (with a comma when asked) and a newline. */
static int put_member(tm_buf *out, const char *name, const cJSON *v, bool comma)
{
	cJSON *one, *copy;
	tm_buf b = TM_BUF_INIT;

	if (!v)
		return 0;
	if (!(one = cJSON_CreateObject()))
		return no_memory();
	if (!(copy = cJSON_Duplicate(v, true)) ||
	    !cJSON_AddItemToObject(one, name, copy)) {
		cJSON_Delete(copy);
		cJSON_Delete(one);
		return no_memory();
	}
	tm_json_stringify(&b, one);
	/* "{\n" member "\n}" */
	if (b.size >= 4)
		tm_buf_put(out, b.ptr + 2, b.size - 4);
	if (comma)
		tm_buf_putc(out, ',');
	tm_buf_putc(out, '\n');
	tm_buf_release(&b);
	cJSON_Delete(one);
	return 0;
}

/* The object with markers around each key that did not merge. */
static int write_conflicted(tm_buf *out, const struct merged *r, size_t n,
			    const tm_merge_options *opts)
{
	size_t i;
	bool later;
	int error = 0;

	tm_buf_puts(out, "{\n");
	for (i = 0; i < n && !error; i++) {
		/* a comma whenever a key follows */
		later = i + 1 < n;
		if (r[i].state == VALUE) {
			error = put_member(out, r[i].name, r[i].value, later);
			continue;
		}
		tm_merge__put_marker(out, '<', opts->marker_size,
				     opts->our_label);
		error = put_member(out, r[i].name, r[i].side[1], later);
		if (!error && opts->style != TM_CONFLICT_STYLE_MERGE) {
			tm_merge__put_marker(out, '|', opts->marker_size,
					     opts->ancestor_label);
			error = put_member(out, r[i].name, r[i].side[0], later);
		}
		tm_merge__put_marker(out, '=', opts->marker_size, NULL);
		if (!error)
			error = put_member(out, r[i].name, r[i].side[2], later);
		tm_merge__put_marker(out, '>', opts->marker_size,
				     opts->their_label);
	}
	tm_buf_puts(out, "}\n");
	return error;
}

/* The merged object without conflicts, as JSON.stringify writes it. */
static int write_clean(tm_buf *out, const struct merged *r, size_t n)
{
	cJSON *obj = cJSON_CreateObject(), *copy;
	size_t i;

	if (!obj)
		return no_memory();
	for (i = 0; i < n; i++) {
		if (!(copy = cJSON_Duplicate(r[i].value, true)) ||
		    !cJSON_AddItemToObject(obj, r[i].name, copy)) {
			cJSON_Delete(copy);
			cJSON_Delete(obj);
			return no_memory();
		}
	}
	tm_json_stringify(out, obj);
	tm_buf_putc(out, '\n');
	cJSON_Delete(obj);
	return 0;
}

int tm_merge__project(tm_buf *out, bool *conflicted, char **note,
		      const struct tm_merge__span s[3],
		      const tm_merge_options *opts)
{
	struct members m[3];
	struct merged *r[3] = {NULL, NULL, NULL}, *res = NULL;
	bool *keep[3] = {NULL, NULL, NULL};
	size_t *order = NULL, n = 0, i, k;
	tm_buf text = TM_BUF_INIT;
	int x, error = 0;

	memset(m, 0, sizeof(m));
	for (x = 0; x < 3 && !error; x++)
		error = load(&m[x], note, &s[x], opts->path, x);
	/* merge each key of ours, then each key only theirs have */
	for (x = 1; x < 3 && !error; x++) {
		r[x] = tm_xcalloc(m[x].n + 1, sizeof(struct merged));
		keep[x] = tm_xcalloc(m[x].n + 1, sizeof(bool));
		for (i = 0; i < m[x].n && !error; i++) {
			if (x == 2 &&
			    tm_merge__index_find(m[1].ix, m[2].names[i]) >= 0)
				continue;
			error = merge_key(&r[x][i], m, m[x].names[i], opts);
			keep[x][i] = r[x][i].state != ABSENT;
		}
	}
	if (error)
		goto done;
	order = tm_merge__order(&n, m[1].names, keep[1], m[1].n, m[2].names,
				keep[2], m[2].n);
	res = tm_xcalloc(n + 1, sizeof(*res));
	for (i = 0; i < n; i++) {
		x = order[i] < m[1].n ? 1 : 2;
		k = x == 1 ? order[i] : order[i] - m[1].n;
		res[i] = r[x][k];
		*conflicted |= res[i].state == CONFLICT;
	}
	/* written aside: `out` stays as it was on failure */
	if (*conflicted)
		error = write_conflicted(&text, res, n, opts);
	else
		error = write_clean(&text, res, n);
	if (!error)
		tm_buf_put(out, text.ptr ? text.ptr : "", text.size);
done:
	tm_buf_release(&text);
	for (x = 1; x < 3; x++) {
		for (i = 0; r[x] && i < m[x].n; i++)
			cJSON_Delete(r[x][i].value);
		free(r[x]);
		free(keep[x]);
	}
	free(res);
	free(order);
	for (x = 0; x < 3; x++)
		members_free(&m[x]);
	return error;
}
