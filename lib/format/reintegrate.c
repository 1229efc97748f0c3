/*
 * What a merged thread holds that its parent lacks: `merge` copied the
 * child's sections into the parent, then a git merge brought the child
 * lines written on another branch, which only the finished, hidden child
 * holds (issue 25, r06).  Pure functions over summaries and threads.
 */
#include "reintegrate.h"

#include "error.h"
#include "frontmatter.h"
#include "hashmap.h"
#include "section.h"

#include <stdlib.h>
#include <string.h>

/* The end of the line at `p` (its LF, or `e`). */
static const char *line_end(const char *p, const char *e)
{
	const char *nl = memchr(p, '\n', (size_t)(e - p));

	return nl ? nl : e;
}

/* A line [p, e) without its line end and its leading and trailing
 * blanks, as a key starting with `kind`. */
static void line_key(tm_buf *out, char kind, const char *p, const char *e)
{
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	tm_buf_clear(out);
	tm_buf_putc(out, kind);
	tm_buf_put(out, p, (size_t)(e - p));
}

static bool blank(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == e;
}

/*
 * The units of `text` (a summary): each list item (its line and its
 * continuation lines) and each other non-blank line outside headings.
 * `fn` is called with the unit's bytes and its key: 'i' and the item in
 * tm_section_item_key form, or 'l' and the line without its blanks at
 * either end.
 */
typedef void (*unit_fn)(const char *p, const char *e, const tm_buf *key,
			void *payload);

static void each_unit(const char *p, const char *e, unit_fn fn, void *payload)
{
	tm_buf key = TM_BUF_INIT, body = TM_BUF_INIT;

	while (p < e) {
		const char *le = line_end(p, e), *next = le < e ? le + 1 : e;

		if (tm_section_is_list_item(p, le)) {
			next = tm_section_item_end(p, e);
			tm_section_item_key(&body, p, next);
			tm_buf_clear(&key);
			tm_buf_putc(&key, 'i');
			tm_buf_put(&key, body.ptr, body.size);
			fn(p, next, &key, payload);
		} else if (!blank(p, le)) {
			line_key(&key, 'l', p, le);
			fn(p, next, &key, payload);
		}
		p = next;
	}
	tm_buf_release(&key);
	tm_buf_release(&body);
}

/* Every unit of a summary, and every non-blank line of it (an item's
 * lines too: a child's line may be part of the parent's item). */
static void add_unit(const char *p, const char *e, const tm_buf *key,
		     void *payload)
{
	tm_hashmap *m = payload;
	tm_buf line = TM_BUF_INIT;

	tm_hashmap_put(m, key->ptr, key->size, 0);
	while (key->ptr[0] == 'i' && p < e) {
		const char *le = line_end(p, e);

		if (!blank(p, le)) {
			line_key(&line, 'l', p, le);
			tm_hashmap_put(m, line.ptr, line.size, 0);
		}
		p = le < e ? le + 1 : e;
	}
	tm_buf_release(&line);
}

static void summary_keys(tm_hashmap *m, const char *text)
{
	tm_section_list l = TM_SECTION_LIST_INIT;
	size_t i;

	tm_section_split(&l, text, strlen(text));
	for (i = 0; i < l.n; i++)
		each_unit(l.items[i].text + l.items[i].body,
			  l.items[i].text + l.items[i].len, add_unit, m);
	tm_section_list_clear(&l);
}

struct missing {
	const tm_hashmap *keys;
	tm_buf *out; /* NULL: count only */
	size_t n;
};

static void check_unit(const char *p, const char *e, const tm_buf *key,
		       void *payload)
{
	struct missing *m = payload;

	if (tm_hashmap_get(m->keys, key->ptr, key->size))
		return;
	m->n++;
	if (!m->out)
		return;
	tm_buf_put(m->out, p, (size_t)(e - p));
	if (e > p && e[-1] != '\n')
		tm_buf_putc(m->out, '\n');
}

/* The units of summary `from` that `keys` lacks, counted and, with `out`,
 * appended under their sections' heading lines. */
static size_t missing_units(tm_buf *out, const tm_hashmap *keys,
			    const char *from)
{
	tm_section_list l = TM_SECTION_LIST_INIT;
	tm_buf units = TM_BUF_INIT;
	struct missing m = {keys, out ? &units : NULL, 0};
	size_t i, before;

	tm_section_split(&l, from, strlen(from));
	for (i = 0; i < l.n; i++) {
		const tm_section *sec = &l.items[i];

		before = m.n;
		tm_buf_clear(&units);
		each_unit(sec->text + sec->body, sec->text + sec->len,
			  check_unit, &m);
		if (!out || m.n == before)
			continue;
		if (out->size)
			tm_buf_putc(out, '\n');
		if (sec->heading) {
			tm_buf_put(out, sec->text, sec->body);
			if (!sec->body || sec->text[sec->body - 1] != '\n')
				tm_buf_putc(out, '\n');
		}
		tm_buf_put(out, units.ptr, units.size);
	}
	tm_section_list_clear(&l);
	tm_buf_release(&units);
	return m.n;
}

size_t tm_summary_missing(tm_buf *out, const char *into, const char *from)
{
	tm_hashmap keys = TM_HASHMAP_INIT;
	size_t n;

	summary_keys(&keys, into);
	n = missing_units(out, &keys, from);
	tm_hashmap_release(&keys);
	return n;
}

static void unintegrated_clear(tm_unintegrated *u)
{
	TM_FREE_ALL(u->id, u->into);
}

void tm_unintegrated_list_clear(tm_unintegrated_list *l)
{
	TM_FREE_ITEMS(l->items, l->n, unintegrated_clear);
	memset(l, 0, sizeof(*l));
}

void tm_find_unintegrated(tm_unintegrated_list *out,
			  const tm_thread *const *threads, size_t n)
{
	tm_hashmap ids = TM_HASHMAP_INIT, done = TM_HASHMAP_INIT;
	tm_hashmap *keys = NULL; /* per parent, built once */
	size_t i, nkeys = 0, *at, *k;
	char *from;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		tm_hashmap_puts(&ids, threads[i]->id, i);
	for (i = 0; i < n; i++) {
		const tm_thread *t = threads[i];
		tm_unintegrated *u;
		size_t missing;

		if (!t->merged_into || !strcmp(t->merged_into, t->id) ||
		    !(at = tm_hashmap_gets(&ids, t->merged_into)))
			continue;
		k = tm_hashmap_puts(&done, t->merged_into, nkeys);
		if (*k == nkeys) {
			char *into = tm_thread_summary(threads[*at]);

			keys = tm_xrealloc(keys, (nkeys + 1) * sizeof(*keys));
			memset(&keys[nkeys], 0, sizeof(*keys));
			summary_keys(&keys[nkeys], into);
			free(into);
			nkeys++;
		}
		from = tm_thread_summary(t);
		missing = missing_units(NULL, &keys[*k], from);
		free(from);
		if (!missing)
			continue;
		tm_xgrow((void **)&out->items, &out->alloc, out->n + 1,
			 sizeof(*u));
		u = &out->items[out->n++];
		u->id = tm_xstrdup(t->id);
		u->into = tm_xstrdup(t->merged_into);
		u->missing = missing;
	}
	for (i = 0; i < nkeys; i++)
		tm_hashmap_release(&keys[i]);
	free(keys);
	tm_hashmap_release(&ids);
	tm_hashmap_release(&done);
}

/* Whether `len` bytes at `p` hold "mergedInto:" (a cheap first test). */
static bool mentions_merged(const char *p, size_t len)
{
	static const char key[] = "mergedInto:";
	const char *q, *end = p + len;

	while ((q = memchr(p, 'm', (size_t)(end - p)))) {
		if ((size_t)(end - q) >= sizeof(key) - 1 &&
		    !memcmp(q, key, sizeof(key) - 1))
			return true;
		p = q + 1;
	}
	return false;
}

static bool same(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

char *tm_reintegrate_note(const char *o, size_t olen, const char *a,
			  size_t alen, const char *b, size_t blen,
			  const char *id)
{
	tm_thread *t[3] = {NULL, NULL, NULL};
	const char *data[3] = {o, a, b}, *names[3] = {"base", "ours", "theirs"};
	size_t len[3] = {olen, alen, blen}, n = 0;
	char *note = NULL, *base = NULL, *gained = NULL;
	int x, y, k;

	if (!olen || !id ||
	    !(mentions_merged(a, alen) || mentions_merged(b, blen)))
		return NULL;
	for (k = 0; k < 3; k++)
		if (tm_frontmatter_parse(&t[k], data[k], len[k], id, names[k]) <
		    0)
			goto done;
	for (x = 1; x < 3 && !note; x++) {
		y = 3 - x;
		/* x merged the thread into its parent, y did not: what y
		 * added to the summary is in no parent */
		if (!t[x]->merged_into ||
		    same(t[x]->merged_into, t[0]->merged_into) ||
		    !same(t[y]->merged_into, t[0]->merged_into))
			continue;
		base = tm_thread_summary(t[0]);
		gained = tm_thread_summary(t[y]);
		n = tm_summary_missing(NULL, base, gained);
		if (n) {
			tm_buf b = TM_BUF_INIT;

			tm_buf_printf(
				&b,
				"'%s' was merged into '%s' on one side "
				"and gained %zu line%s on the other: "
				"once the merge is done, run 'git "
				"threadmind merge --again %s' to add "
				"%s to '%s'",
				id, t[x]->merged_into, n, n == 1 ? "" : "s", id,
				n == 1 ? "it" : "them", t[x]->merged_into);
			note = tm_buf_detach(&b);
		}
		free(base);
		free(gained);
	}
done:
	tm_error_clear();
	for (k = 0; k < 3; k++)
		tm_thread_free(t[k]);
	return note;
}
