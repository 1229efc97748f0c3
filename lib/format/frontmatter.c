/*
 * Thread files: the frontmatter block read into a tm_thread (see
 * frontmatter.h; written back in frontmatter_write.c).
 */
#include "frontmatter.h"
#include "error.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One line of the block, without its line end. */
struct line {
	const char *p;
	size_t len;
};

/* The block between the `---` lines; lines[i] is line i + 2 of the file. */
struct block {
	const char *path;
	tm_parse_check check; /* the caller's, or NULL */
	struct line *lines;
	size_t n;
	size_t alloc;
};

/* One entry or comment of the block, found before any value is read. */
struct item {
	size_t i, j;     /* lines[i..j) */
	const char *key; /* its first byte (the line's) */
	size_t colon;    /* where the key ends; 0 for a comment */
	bool dup;        /* the key was seen on an earlier line */
};

#define LINE_NO(i) ((i) + 2)

/* The frontmatter fields held in a `char *` of tm_thread. */
#define FIELD(k, f)                                      \
	{                                                \
		k, sizeof(k) - 1, offsetof(tm_thread, f) \
	}
static const struct {
	const char *key;
	size_t len;
	size_t offset;
} scalar_fields[] = {
	FIELD("id", field_id),          FIELD("title", title),
	FIELD("parentId", parent_id),   FIELD("author", author),
	FIELD("createdAt", created_at), FIELD("updatedAt", updated_at),
	FIELD("status", status),        FIELD("branch", branch),
	FIELD("commit", commit),        FIELD("mergedInto", merged_into),
};
#undef FIELD

static const char paths_key[] = "paths";

/* The field of `key`, which known_field returned (its very pointer),
 * NULL for "paths". */
static char **scalar_field(tm_thread *t, const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(scalar_fields) / sizeof(*scalar_fields); i++)
		if (scalar_fields[i].key == key)
			return (char **)((char *)t + scalar_fields[i].offset);
	return NULL;
}

/* The name of the known field (a scalar one or "paths") whose key is the
 * `len` bytes at `key`, NULL for any other key: no copy of the key for
 * the fields every file has. */
static const char *known_field(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(scalar_fields) / sizeof(*scalar_fields); i++)
		if (scalar_fields[i].len == len &&
		    !memcmp(scalar_fields[i].key, key, len))
			return scalar_fields[i].key;
	return len == 5 && !memcmp(key, paths_key, 5) ? paths_key : NULL;
}

/*
 * Split off the line at *pos; trailing CRs are dropped (*crlf tells).  All
 * of them: a lone CR is a line break to YAML, and a CR kept at the end of
 * a line we write back verbatim would be read as that line's CRLF next
 * time, so the file would not read back as itself (found by fuzzing).
 */
static bool next_line(const char **pos, const char *end, struct line *l,
		      bool *crlf)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return false;
	nl = memchr(p, '\n', end - p);
	l->p = p;
	l->len = (nl ? nl : end) - p;
	*crlf = false;
	while (l->len && p[l->len - 1] == '\r') {
		l->len--;
		*crlf = nl != NULL;
	}
	*pos = nl ? nl + 1 : end;
	return true;
}

static bool is_fence(const struct line *l)
{
	return l->len == 3 && !memcmp(l->p, "---", 3);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_blank(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (!is_space(l->p[i]))
			return false;
	return true;
}

/*
 * A line that continues the entry above it: indented, or a block sequence
 * item at column 0 (`paths:` then `- a`, as some YAML writers do).
 */
static bool is_continuation(const struct line *l)
{
	if (is_blank(l))
		return false;
	if (is_space(l->p[0]))
		return true;
	return l->p[0] == '-' && (l->len == 1 || is_space(l->p[1]));
}

static size_t line_of(const char *data, const char *at)
{
	size_t no = 1;
	const char *p;

	for (p = data; p < at; p++)
		no += *p == '\n';
	return no;
}

/* Where the key of an entry line ends: its first ':' before a blank or
 * the end of the line; 0 when the line has none (or an empty key). */
static size_t key_end(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (l->p[i] == ':' &&
		    (i + 1 == l->len || is_space(l->p[i + 1])))
			return i;
	return 0;
}

/* Index just past the last line of the entry starting at lines[i]. */
static size_t entry_end(const struct block *b, size_t i)
{
	size_t j = i + 1, k;

	while (j < b->n) {
		if (is_continuation(&b->lines[j])) {
			j++;
			continue;
		}
		if (!is_blank(&b->lines[j]))
			break;
		/* blank lines belong to the entry when it goes on after them */
		for (k = j; k < b->n && is_blank(&b->lines[k]); k++)
			;
		if (k == b->n || !is_continuation(&b->lines[k]))
			break;
		j = k;
	}
	return j;
}

/* A power of two or 0: when the extra array is full (it grows by doubling,
 * so that 100,000 unknown keys cost no quadratic copying). */
static bool is_full(size_t n)
{
	return !(n & (n - 1));
}

static void add_extra(tm_thread *t, char *key, char *raw)
{
	if (is_full(t->nextra))
		t->extra =
			tm_xrealloc(t->extra, (t->nextra ? 2 * t->nextra : 1) *
						      sizeof(*t->extra));
	t->extra[t->nextra].key = key;
	t->extra[t->nextra].raw = raw;
	t->nextra++;
}

static bool is_null_word(const char *s, size_t len)
{
	return !len || (len == 1 && *s == '~') ||
	       (len == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) ||
			     !memcmp(s, "NULL", 4)));
}

/* Printable ASCII but `"` and `\`: a double-quoted scalar means as is. */
static bool is_simple_quoted(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
			return false;
	return true;
}

/*
 * The fast path for what the writer itself writes: `"text"` and
 * `["a","b"]` with simple quoted strings.  Anything else, even when valid,
 * is left to libyaml (false).
 */
static bool read_simple(tm_yaml_value *v, const char *s, size_t len)
{
	size_t i, start;

	if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
		if (!is_simple_quoted(s + 1, len - 2))
			return false;
		v->kind = TM_YAML_STRING;
		v->str = tm_xstrndup(s + 1, len - 2);
		return true;
	}
	if (len < 2 || s[0] != '[' || s[len - 1] != ']')
		return false;
	v->kind = TM_YAML_LIST;
	for (i = 1; i < len - 1; i++) {
		if (s[i] != '"')
			goto other;
		start = ++i;
		while (i < len - 1 && s[i] != '"')
			i++;
		if (i == len - 1 || !is_simple_quoted(s + start, i - start))
			goto other;
		tm_strv_push_owned(&v->items,
				   tm_xstrndup(s + start, i - start));
		if (++i < len - 1 && s[i] != ',')
			goto other;
		if (i == len - 2)
			goto other; /* a trailing comma */
	}
	return true;
other:
	tm_yaml_value_clear(v);
	return false;
}

/*
 * Index just past the quoted scalar that opens `s` (`len` bytes, s[0] a
 * quote), or 0 when it is not closed: `\x` escapes in double quotes, `''`
 * in single quotes.
 */
static size_t quoted_end(const char *s, size_t len)
{
	size_t i;

	for (i = 1; i < len; i++) {
		if (s[0] == '"' && s[i] == '\\')
			i++;
		else if (s[i] == s[0] && s[0] == '\'' && i + 1 < len &&
			 s[i + 1] == '\'')
			i++;
		else if (s[i] == s[0])
			return i + 1;
	}
	return 0;
}

/* Whether the quoted scalar `s` (`len` bytes, quotes included) escapes a
 * character: `\` in double quotes, `''` in single quotes. */
static bool has_escape(const char *s, size_t len)
{
	size_t i;

	for (i = 1; i + 1 < len; i++)
		if (s[i] == (s[0] == '"' ? '\\' : '\''))
			return true;
	return false;
}

/*
 * The value of a one-line scalar field: absent when empty (for parentId
 * the empty id, the parent 0.4 wrote so for a child of its thread with an
 * empty id; a root when plain null or ~); YAML only when the whole value is one
 * quoted scalar; otherwise the raw text, so that what ThreadMind 0.4 wrote
 * unquoted (`"Quick" fix`,
 * `[WIP] Auth`, `null`, `&amp`, `> note`) is the text it showed.  A title
 * quoted although it needs no quoting (`"quoted"`, `'single'`) was not
 * written by a quoting writer (ours and the seed's quote only what YAML
 * would misread), nor escapes anything in it: it is 0.4's raw text,
 * quotes included.
 */
static int read_text(tm_yaml_value *v, struct block *b, size_t i,
		     const char *key, const char *s, size_t len)
{
	tm_buf text = TM_BUF_INIT;
	int error;

	if (!strcmp(key, "parentId")) {
		if (len && is_null_word(s, len))
			return 0; /* a root */
		if (!len) {
			/* 0.4's child of its thread with an empty id */
			v->kind = TM_YAML_STRING;
			v->str = tm_xstrdup("");
			return 0;
		}
	}
	if (!len)
		return 0;
	if ((*s != '"' && *s != '\'') || quoted_end(s, len) != len)
		goto raw;
	if (!read_simple(v, s, len)) {
		tm_buf_puts(&text, "k: ");
		tm_buf_put(&text, s, len);
		tm_buf_putc(&text, '\n');
		error = tm_yaml_read_entry(v, text.ptr, text.size, key, b->path,
					   LINE_NO(i), b->check);
		tm_buf_release(&text);
		if (error == TM_ETIMEOUT)
			return error;
		tm_error_clear();
		if (error < 0 || v->kind != TM_YAML_STRING) {
			tm_yaml_value_clear(v);
			goto raw;
		}
	}
	if (!strcmp(key, "title") && !has_escape(s, len) &&
	    tm_yaml_plain_ok(v->str)) {
		tm_yaml_value_clear(v);
		goto raw;
	}
	return 0;
raw:
	v->kind = TM_YAML_STRING;
	v->str = tm_xstrndup(s, len);
	return 0;
}

/* Read the value of a known field from lines[i..j). */
static int read_value(tm_yaml_value *v, struct block *b, size_t i, size_t j,
		      const char *key, size_t colon)
{
	const struct line *l = &b->lines[i];
	const char *s = l->p + colon + 1;
	size_t len = l->len - colon - 1, k;
	tm_buf text = TM_BUF_INIT;
	int error;

	while (len && is_space(*s))
		s++, len--;
	while (len && is_space(s[len - 1]))
		len--;
	if (j == i + 1) {
		if (key != paths_key)
			return read_text(v, b, i, key, s, len);
		if (len && strchr("\"'[{|>&*!", *s)) {
			if (read_simple(v, s, len))
				return 0;
		} else {
			/* plain: the raw rest of the line (`Fix #12 login`) */
			if (!is_null_word(s, len)) {
				v->kind = TM_YAML_STRING;
				v->str = tm_xstrndup(s, len);
			}
			return 0;
		}
	}
	for (k = i; k < j; k++) {
		tm_buf_put(&text, b->lines[k].p, b->lines[k].len);
		tm_buf_putc(&text, '\n');
	}
	error = tm_yaml_read_entry(v, text.ptr, text.size, key, b->path,
				   LINE_NO(i), b->check);
	tm_buf_release(&text);
	return error;
}

/* Store the value of a known field. */
static int set_field(tm_thread *t, struct block *b, size_t i, const char *key,
		     tm_yaml_value *v)
{
	char **field = scalar_field(t, key);

	if (field) {
		if (v->kind == TM_YAML_LIST || v->kind == TM_YAML_OTHER)
			return tm_error_set(TM_EPARSE,
					    "'%s' line %zu: field '%s' must be "
					    "a single value, not a list or "
					    "mapping",
					    b->path, LINE_NO(i), key);
		TM_MOVE(field, v->str);
		return 0;
	}
	/* paths */
	switch (v->kind) {
	case TM_YAML_NULL:
		break;
	case TM_YAML_STRING:
		t->has_paths = true;
		tm_strv_push_owned(&t->paths, v->str);
		v->str = NULL;
		break;
	case TM_YAML_LIST:
		t->has_paths = true;
		t->paths = v->items;
		v->items = (tm_strv)TM_STRV_INIT;
		break;
	default:
		return tm_error_set(TM_EPARSE,
				    "'%s' line %zu: field 'paths' must be a "
				    "list of strings",
				    b->path, LINE_NO(i));
	}
	return 0;
}

/* Read the entry in lines[i..j), whose key ends at `colon`. */
static int read_entry(tm_thread *t, struct block *b, size_t i, size_t j,
		      size_t colon)
{
	const struct line *l = &b->lines[i];
	tm_yaml_value v = TM_YAML_VALUE_INIT;
	tm_buf raw = TM_BUF_INIT;
	const char *key = known_field(l->p, colon);
	size_t k;
	int error = 0;

	if (!key) {
		tm_buf_put(&raw, l->p + colon + 1, l->len - colon - 1);
		for (k = i + 1; k < j; k++) {
			tm_buf_putc(&raw, '\n');
			tm_buf_put(&raw, b->lines[k].p, b->lines[k].len);
		}
		add_extra(t, tm_xstrndup(l->p, colon), tm_buf_detach(&raw));
		return 0;
	}
	if ((error = read_value(&v, b, i, j, key, colon)) == 0)
		error = set_field(t, b, i, key, &v);
	tm_yaml_value_clear(&v);
	return error;
}

/* What stops the walk of the block: a line that is no entry or comment. */
enum block_stop { STOP_END, STOP_INDENTED, STOP_NOT_ENTRY };

/*
 * Split the block into its entries and comments, up to the end or the first
 * line that is neither (*stop tells which, lines[*at] is that line).
 */
static struct item *split_block(const struct block *b, size_t *nitems,
				enum block_stop *stop, size_t *at)
{
	struct item *items = NULL;
	size_t n = 0, alloc = 0, i = 0, j, colon;

	*stop = STOP_END;
	while (i < b->n) {
		const struct line *l = &b->lines[i];

		if (is_blank(l)) {
			i++;
			continue;
		}
		if (l->p[0] == '#') {
			j = i + 1;
			colon = 0;
		} else if (is_continuation(l)) {
			*stop = STOP_INDENTED;
			break;
		} else if (!(colon = key_end(l))) {
			*stop = STOP_NOT_ENTRY;
			break;
		} else {
			j = entry_end(b, i);
		}
		tm_xgrow((void **)&items, &alloc, n + 1, sizeof(*items));
		items[n++] = (struct item){i, j, l->p, colon, false};
		i = j;
	}
	*at = i;
	*nitems = n;
	return items;
}

/* Up to this many entries and comments, duplicates are found pair by
 * pair. */
#define SMALL_BLOCK 32

/* Entries by key bytes, then by line. */
static int cmp_keys(const void *x, const void *y)
{
	const struct item *a = *(struct item *const *)x;
	const struct item *b = *(struct item *const *)y;
	size_t n = a->colon < b->colon ? a->colon : b->colon;
	int c = memcmp(a->key, b->key, n);

	if (c)
		return c;
	if (a->colon != b->colon)
		return a->colon < b->colon ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * Flag every entry whose key an earlier line already has: sorted by key
 * then line, each run of equal keys keeps its first.  O(n log n) whatever
 * the keys are (a hostile file cannot make it quadratic).
 */
static void mark_duplicates(struct item *items, size_t n)
{
	struct item **by_key;
	size_t k, m = 0;

	/* A block of the usual size: every pair, no sort, no allocation
	 * (the same flags: an entry is a duplicate when an earlier line has
	 * its key). */
	if (n <= SMALL_BLOCK) {
		for (k = 1; k < n; k++)
			for (m = 0; m < k && items[k].colon; m++)
				if (items[m].colon == items[k].colon &&
				    !memcmp(items[m].key, items[k].key,
					    items[k].colon)) {
					items[k].dup = true;
					break;
				}
		return;
	}
	by_key = tm_xcalloc(n, sizeof(*by_key));

	for (k = 0; k < n; k++)
		if (items[k].colon)
			by_key[m++] = &items[k];
	qsort(by_key, m, sizeof(*by_key), cmp_keys);
	for (k = 1; k < m; k++)
		by_key[k]->dup = by_key[k]->colon == by_key[k - 1]->colon &&
				 !memcmp(by_key[k]->key, by_key[k - 1]->key,
					 by_key[k]->colon);
	free(by_key);
}

static int read_block(tm_thread *t, struct block *b)
{
	enum block_stop stop;
	size_t n, k, at;
	struct item *items = split_block(b, &n, &stop, &at);
	int error = 0;

	mark_duplicates(items, n);
	for (k = 0; k < n && !error; k++) {
		const struct item *it = &items[k];
		const struct line *l = &b->lines[it->i];

		if ((error = tm_parse_check_every(b->check, k + 1, b->path)) <
		    0)
			break;
		if (!it->colon)
			add_extra(t, NULL, tm_xstrndup(l->p, l->len));
		else if (it->dup)
			error = tm_error_set(
				TM_EPARSE,
				"'%s' line %zu: duplicate key '%.*s'", b->path,
				LINE_NO(it->i), (int)it->colon, l->p);
		else
			error = read_entry(t, b, it->i, it->j, it->colon);
	}
	free(items);
	if (error < 0)
		return error;
	if (stop == STOP_INDENTED)
		return tm_error_set(TM_EPARSE,
				    "'%s' line %zu: indented line continues no "
				    "field",
				    b->path, LINE_NO(at));
	if (stop == STOP_NOT_ENTRY)
		return tm_error_set(TM_EPARSE,
				    "'%s' line %zu: expected 'key: value', a "
				    "comment or '---'",
				    b->path, LINE_NO(at));
	return 0;
}

int tm_frontmatter_parse(tm_thread **out, const char *data, size_t len,
			 const char *id, const char *path)
{
	return tm_frontmatter_parse_checked(out, data, len, id, path, NULL);
}

int tm_frontmatter_parse_checked(tm_thread **out, const char *data, size_t len,
				 const char *id, const char *path,
				 tm_parse_check check)
{
	struct block b = {path, check, NULL, 0, 0};
	const char *pos = data, *end = data + len, *nul;
	struct line l;
	tm_thread *t = NULL;
	bool crlf, open_crlf, closed = false;
	int error = 0;

	if (check && (error = check(path)) < 0)
		return error;
	if ((nul = memchr(data, 0, len)))
		return tm_error_set(TM_EPARSE,
				    "'%s' line %zu: NUL byte (not a text file)",
				    path, line_of(data, nul));
	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		pos += 3;
	if (!next_line(&pos, end, &l, &open_crlf) || !is_fence(&l))
		return tm_error_set(TM_EPARSE,
				    "'%s' does not start with a '---' "
				    "frontmatter line",
				    path);
	while (next_line(&pos, end, &l, &crlf)) {
		if ((error = tm_parse_check_every(b.check, b.n + 1, path)) < 0)
			goto done;
		if (is_fence(&l)) {
			closed = true;
			break;
		}
		if (tm_utf8_valid_prefix(l.p, l.len) != l.len) {
			error = tm_error_set(TM_EPARSE,
					     "'%s' line %zu: invalid UTF-8 in "
					     "the frontmatter",
					     path, LINE_NO(b.n));
			goto done;
		}
		tm_xgrow((void **)&b.lines, &b.alloc, b.n + 1, sizeof(l));
		b.lines[b.n++] = l;
	}
	if (!closed) {
		error = tm_error_set(TM_EPARSE,
				     "'%s': no closing '---' line after the "
				     "frontmatter",
				     path);
		goto done;
	}
	t = tm_thread_new();
	t->id = tm_xstrdup(id);
	t->crlf = open_crlf;
	if ((error = read_block(t, &b)) < 0)
		goto done;
	tm_thread_set_body(t, pos, end - pos);
	TM_MOVE(out, t);
done:
	tm_thread_free(t);
	free(b.lines);
	return error;
}

/* Where the block of `data` ends (past the closing line), NULL when it
 * has no opening or closing line; *first is its first line. */
static const char *block_end(const char *data, size_t len, const char **first)
{
	const char *pos = data, *end = data + len;
	struct line l;
	bool crlf;

	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		pos += 3;
	if (!next_line(&pos, end, &l, &crlf) || !is_fence(&l))
		return NULL;
	*first = pos;
	while (next_line(&pos, end, &l, &crlf))
		if (is_fence(&l))
			return pos;
	return NULL;
}

size_t tm_frontmatter_block_len(const char *data, size_t len)
{
	const char *first, *stop = block_end(data, len, &first);

	return stop ? (size_t)(stop - data) : 0;
}

bool tm_frontmatter_may_have(const char *data, size_t len, const char *key)
{
	const char *pos, *stop = block_end(data, len, &pos);
	size_t klen = strlen(key), i;
	struct line l;
	bool crlf;

	if (!stop)
		return true; /* let the parser say what is wrong */
	while (next_line(&pos, stop, &l, &crlf)) {
		for (i = 0; i < l.len && (is_space(l.p[i]) || l.p[i] == '"' ||
					  l.p[i] == '\'');
		     i++)
			;
		if (l.len - i >= klen && !memcmp(l.p + i, key, klen))
			return true;
	}
	return false;
}
