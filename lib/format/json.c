/*
 * The JSON codec (see json.h, json_cjson.h): cJSON for reading behind a
 * strict scanner that locates errors, our own writer for JSON.stringify's
 * exact output.
 */
#include "json.h"
#include "json_cjson.h"
#include "error.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Strings */

static void put_string(tm_buf *out, const char *s, size_t len, bool yaml)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i, start = 0;

	tm_buf_putc(out, '"');
	for (i = 0; i < len; i++) {
		unsigned c = p[i];
		const char *esc = NULL;
		char u[7];
		size_t skip = 1;

		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		default:
			if (c < 0x20 || (yaml && c == 0x7f)) {
				u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
				u[4] = hex[c >> 4], u[5] = hex[c & 15],
				u[6] = 0;
				esc = u;
			} else if (yaml && c == 0xc2 && i + 1 < len &&
				   p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
				/* U+0080..U+009F, encoded C2 80..C2 9F */
				unsigned cp = p[i + 1];

				u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
				u[4] = hex[cp >> 4], u[5] = hex[cp & 15],
				u[6] = 0;
				esc = u;
				skip = 2;
			}
		}
		if (esc) {
			tm_buf_put(out, s + start, i - start);
			tm_buf_puts(out, esc);
			i += skip - 1;
			start = i + 1;
		}
	}
	tm_buf_put(out, s + start, len - start);
	tm_buf_putc(out, '"');
}

void tm_json_put_string(tm_buf *out, const char *s, size_t len)
{
	put_string(out, s, len, true);
}

void tm_json_put_string_js(tm_buf *out, const char *s, size_t len)
{
	put_string(out, s, len, false);
}

/* Numbers */

/*
 * The double that the decimal d[0..k) x 10^e reads as.  Written without a
 * decimal point so that the locale's LC_NUMERIC cannot matter.
 */
static double read_back(const char *d, int k, int e)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.*se%d", k, d, e);
	return strtod(buf, NULL);
}

/* Step the k-digit decimal d x 10^e one unit of its last digit up or down. */
static void step(char *d, int k, int *e, bool up)
{
	int i = k - 1;

	if (up) {
		while (i >= 0 && d[i] == '9')
			d[i--] = '0';
		if (i >= 0) {
			d[i]++;
		} else {
			/* 99..9 + 1: one more digit, keep k of them */
			d[0] = '1';
			(*e)++;
		}
	} else {
		while (i >= 0 && d[i] == '0')
			d[i--] = '9';
		d[i]--; /* d[0] is never '0' */
		if (d[0] == '0') {
			/* 10..0 - 1 = 9..9, one digit shorter: refill */
			memset(d, '9', (size_t)k);
			(*e)--;
		}
	}
}

/*
 * The shortest decimal digits d[0..k) (returned k, no trailing zero) such
 * that 0.d x 10^*n reads back as `v` (finite, > 0), the closest to `v` when
 * several have that length, as ECMAScript's Number::toString asks.
 */
static int shortest_digits(double v, char *d, int *n)
{
	char buf[48];
	int p, k = 0, e = 0;
	double r = 0;

	for (p = 1; p <= 17; p++) {
		const char *s;

		/* correctly rounded to p digits: the closest candidate */
		snprintf(buf, sizeof(buf), "%.*e", p - 1, v);
		for (k = 0, s = buf; *s && *s != 'e'; s++)
			if (*s >= '0' && *s <= '9')
				d[k++] = *s;
		e = atoi(s + 1) - (k - 1);
		r = read_back(d, k, e);
		if (r == v)
			break;
		/* the candidate on the other side of v may still read back */
		step(d, k, &e, r < v);
		if (read_back(d, k, e) == v)
			break;
	}
	while (k > 1 && d[k - 1] == '0')
		k--, e++;
	*n = e + k;
	return k;
}

void tm_json_put_number(tm_buf *out, double v)
{
	char d[24];
	int k, n, i;

	if (!isfinite(v)) {
		tm_buf_puts(out, "null");
		return;
	}
	if (v == 0) {
		tm_buf_putc(out, '0'); /* -0 too */
		return;
	}
	if (v < 0) {
		tm_buf_putc(out, '-');
		v = -v;
	}
	k = shortest_digits(v, d, &n);
	if (k <= n && n <= 21) {
		tm_buf_put(out, d, (size_t)k);
		for (i = k; i < n; i++)
			tm_buf_putc(out, '0');
	} else if (0 < n && n <= 21) {
		tm_buf_put(out, d, (size_t)n);
		tm_buf_putc(out, '.');
		tm_buf_put(out, d + n, (size_t)(k - n));
	} else if (-6 < n && n <= 0) {
		tm_buf_puts(out, "0.");
		for (i = n; i < 0; i++)
			tm_buf_putc(out, '0');
		tm_buf_put(out, d, (size_t)k);
	} else {
		tm_buf_putc(out, d[0]);
		if (k > 1) {
			tm_buf_putc(out, '.');
			tm_buf_put(out, d + 1, (size_t)(k - 1));
		}
		tm_buf_printf(out, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
	}
}

/* The writer */

void tm_json_writer_init(tm_json_writer *w, tm_buf *out, unsigned flags)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->flags = flags;
}

/* A line break and the indentation of the current depth (pretty only). */
static void newline(tm_json_writer *w)
{
	size_t n = w->depth;

	if (!(w->flags & TM_JSON_PRETTY))
		return;
	n = n > w->outdent ? n - w->outdent : 0;
	tm_buf_putc(w->out, '\n');
	while (n--)
		tm_buf_puts(w->out, "  ");
}

/* What comes before a value: after its key nothing; in an array the comma
 * after the member before it and the member's line. */
static void place(tm_json_writer *w)
{
	if (w->keyed) {
		w->keyed = false;
		return;
	}
	if (!w->depth)
		return;
	if (!w->first)
		tm_buf_putc(w->out, ',');
	newline(w);
	w->first = false;
}

static void put_text(tm_json_writer *w, const char *s)
{
	if (w->flags & TM_JSON_ESCAPE_C1)
		tm_json_put_string(w->out, s, strlen(s));
	else
		tm_json_put_string_js(w->out, s, strlen(s));
}

void tm_json_open(tm_json_writer *w, char bracket)
{
	place(w);
	tm_buf_putc(w->out, bracket);
	w->depth++;
	w->first = true;
}

void tm_json_close(tm_json_writer *w, char bracket)
{
	w->depth--;
	if (!w->first)
		newline(w);
	tm_buf_putc(w->out, bracket);
	w->first = false;
}

void tm_json_key(tm_json_writer *w, const char *key)
{
	place(w);
	put_text(w, key);
	tm_buf_puts(w->out, w->flags & TM_JSON_PRETTY ? ": " : ":");
	w->keyed = true;
}

void tm_json_string(tm_json_writer *w, const char *s)
{
	place(w);
	if (s)
		put_text(w, s);
	else
		tm_buf_puts(w->out, "null");
}

void tm_json_number(tm_json_writer *w, double v)
{
	place(w);
	tm_json_put_number(w->out, v);
}

void tm_json_bool(tm_json_writer *w, bool v)
{
	tm_json_raw(w, v ? "true" : "false");
}

void tm_json_null(tm_json_writer *w)
{
	tm_json_raw(w, "null");
}

void tm_json_raw(tm_json_writer *w, const char *text)
{
	place(w);
	tm_buf_puts(w->out, text);
}

/* Stringify: a cJSON tree through the writer */

static void put_value(tm_json_writer *w, const cJSON *v)
{
	const cJSON *c;
	bool object = (v->type & 0xff) == cJSON_Object;

	switch (v->type & 0xff) {
	case cJSON_False:
	case cJSON_True:
		tm_json_bool(w, (v->type & 0xff) == cJSON_True);
		return;
	case cJSON_Number:
		tm_json_number(w, v->valuedouble);
		return;
	case cJSON_String:
		tm_json_string(w, v->valuestring ? v->valuestring : "");
		return;
	case cJSON_Raw:
		tm_json_raw(w, v->valuestring ? v->valuestring : "null");
		return;
	case cJSON_Array:
	case cJSON_Object:
		break;
	default:
		tm_json_null(w);
		return;
	}
	tm_json_open(w, object ? '{' : '[');
	for (c = v->child; c; c = c->next) {
		if (object)
			tm_json_key(w, c->string ? c->string : "");
		put_value(w, c);
	}
	tm_json_close(w, object ? '}' : ']');
}

void tm_json_stringify(tm_buf *out, const cJSON *v)
{
	tm_json_writer w;

	tm_json_writer_init(&w, out, TM_JSON_PRETTY);
	put_value(&w, v);
}

void tm_json_stringify_compact(tm_buf *out, const cJSON *v)
{
	tm_json_writer w;

	tm_json_writer_init(&w, out, 0);
	put_value(&w, v);
}

/* Parse */

static size_t skip_blanks(const char *s, size_t at, size_t len)
{
	while (at < len && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' ||
			    s[at] == '\r'))
		at++;
	return at;
}

/*
 * A strict RFC 8259 scanner run before cJSON: cJSON accepts a little more
 * than JSON (leading zeros, raw control characters in strings, bad \u
 * escapes that cut a string short) and its error pointer is sometimes one
 * byte past the culprit.  The scanner finds the first byte that cannot
 * continue a JSON text (the end, for a truncated one).
 */
struct scan {
	const char *s;
	size_t len, at;
	int depth;
};

#define SCAN_MAX_DEPTH 1000 /* cJSON's nesting limit */

static int peek(const struct scan *sc)
{
	return sc->at < sc->len ? (unsigned char)sc->s[sc->at] : -1;
}

static bool eat(struct scan *sc, int c)
{
	if (peek(sc) != c)
		return false;
	sc->at++;
	return true;
}

static bool scan_digits(struct scan *sc)
{
	if (!isdigit(peek(sc)))
		return false;
	while (isdigit(peek(sc)))
		sc->at++;
	return true;
}

static bool scan_number(struct scan *sc)
{
	eat(sc, '-');
	if (!eat(sc, '0') && !scan_digits(sc))
		return false;
	if (eat(sc, '.') && !scan_digits(sc))
		return false;
	if (eat(sc, 'e') || eat(sc, 'E')) {
		if (!eat(sc, '+'))
			eat(sc, '-');
		return scan_digits(sc);
	}
	return true;
}

static bool scan_string(struct scan *sc)
{
	int c, i;

	if (!eat(sc, '"'))
		return false;
	while ((c = peek(sc)) != '"') {
		if (c < 0x20) /* the end, or a raw control character */
			return false;
		sc->at++;
		if (c != '\\')
			continue;
		c = peek(sc);
		if (c == 'u') {
			sc->at++;
			for (i = 0; i < 4; i++, sc->at++)
				if (!isxdigit(peek(sc)))
					return false;
		} else if (c > 0 && strchr("\"\\/bfnrt", c)) {
			sc->at++;
		} else {
			return false;
		}
	}
	sc->at++;
	return true;
}

static bool scan_value(struct scan *sc);

/* A '[' or '{' container, from its opening bracket. */
static bool scan_container(struct scan *sc, int close, bool object)
{
	if (++sc->depth > SCAN_MAX_DEPTH)
		return false;
	sc->at = skip_blanks(sc->s, sc->at + 1, sc->len);
	if (!eat(sc, close)) {
		for (;;) {
			if (object) {
				if (!scan_string(sc))
					return false;
				sc->at = skip_blanks(sc->s, sc->at, sc->len);
				if (!eat(sc, ':'))
					return false;
				sc->at = skip_blanks(sc->s, sc->at, sc->len);
			}
			if (!scan_value(sc))
				return false;
			sc->at = skip_blanks(sc->s, sc->at, sc->len);
			if (eat(sc, close))
				break;
			if (!eat(sc, ','))
				return false;
			sc->at = skip_blanks(sc->s, sc->at, sc->len);
		}
	}
	sc->depth--;
	return true;
}

static bool scan_word(struct scan *sc, const char *word)
{
	while (*word)
		if (!eat(sc, *word++))
			return false;
	return true;
}

static bool scan_value(struct scan *sc)
{
	switch (peek(sc)) {
	case '{':
		return scan_container(sc, '}', true);
	case '[':
		return scan_container(sc, ']', false);
	case '"':
		return scan_string(sc);
	case 't':
		return scan_word(sc, "true");
	case 'f':
		return scan_word(sc, "false");
	case 'n':
		return scan_word(sc, "null");
	default:
		return scan_number(sc);
	}
}

/*
 * Set *at to the offset of the first error in s[0..len) and return true, or
 * return false when the scanner finds none (or gives up: nesting deeper than
 * cJSON allows).
 */
static bool find_error(const char *s, size_t len, size_t *at)
{
	struct scan sc = {s, len, 0, 0};

	if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		sc.at = 3; /* cJSON skips a byte order mark */
	sc.at = skip_blanks(s, sc.at, len);
	if (scan_value(&sc)) {
		sc.at = skip_blanks(s, sc.at, len);
		if (sc.at == len)
			return false;
	} else if (sc.depth > SCAN_MAX_DEPTH) {
		return false;
	}
	*at = sc.at;
	return true;
}

/* 1-based line (LF-ended) and column (in UTF-8 characters) of byte `at`. */
static void locate(const char *s, size_t at, size_t *line, size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < at; i++) {
		if (s[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)s[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

/* Duplicate keys, as JSON.parse reads them */

struct member {
	cJSON *item;
	size_t pos;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->item->string, y->item->string);

	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * Make every object of `v` hold each key once, as JSON.parse builds it:
 * the value of the key's last occurrence, at the place of its first.
 * Sorting the members once keeps this O(n log n) whatever the keys.
 */
static void dedupe_keys(cJSON *v)
{
	struct member *m = NULL;
	size_t alloc = 0, n, i, j;
	cJSON *c;

	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return;
	for (c = v->child; c; c = c->next)
		dedupe_keys(c);
	if (!cJSON_IsObject(v))
		return;
	for (n = 0, c = v->child; c; c = c->next, n++) {
		tm_xgrow((void **)&m, &alloc, n + 1, sizeof(*m));
		m[n].item = c;
		m[n].pos = n;
	}
	if (n > 1)
		qsort(m, n, sizeof(*m), cmp_member);
	for (i = 0; i < n; i = j) {
		for (j = i + 1;
		     j < n && !strcmp(m[i].item->string, m[j].item->string);
		     j++)
			;
		if (j - i < 2)
			continue;
		/* the last value takes the first one's place */
		cJSON_ReplaceItemViaPointer(
			v, m[i].item,
			cJSON_DetachItemViaPointer(v, m[j - 1].item));
		while (++i < j - 1)
			cJSON_Delete(cJSON_DetachItemViaPointer(v, m[i].item));
	}
	free(m);
}

int tm_json_parse(cJSON **out, const char *data, size_t len, const char *path)
{
	const char *end = NULL;
	size_t at, line, col;
	char *copy;
	cJSON *v;

	/* NUL-terminated, so that no cJSON version reads past the input */
	copy = tm_xmalloc(len + 1);
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	if (!find_error(copy, len, &at)) {
		v = cJSON_ParseWithLengthOpts(copy, len, &end, false);
		at = end ? (size_t)(end - copy) : 0;
		if (v && skip_blanks(copy, at, len) == len) {
			free(copy);
			dedupe_keys(v);
			*out = v;
			return 0;
		}
		/* valid JSON that cJSON refuses (a lone surrogate escape) */
		cJSON_Delete(v);
	}
	locate(copy, at, &line, &col);
	free(copy);
	return tm_error_set(TM_EPARSE,
			    "'%s' is not valid JSON (line %zu, column %zu): "
			    "fix it or delete it; it was not modified",
			    path ? path : "JSON input", line, col);
}

int tm_json_parse_object(cJSON **out, const char *data, size_t len,
			 const char *path)
{
	size_t at = 0, line, col;
	cJSON *root;
	int error;

	if ((error = tm_json_parse(&root, data, len, path)) < 0)
		return error;
	if (cJSON_IsObject(root)) {
		*out = root;
		return 0;
	}
	cJSON_Delete(root);
	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		at = 3; /* cJSON skips a byte order mark */
	at = skip_blanks(data, at, len);
	locate(data, at, &line, &col);
	return tm_error_set(TM_EPARSE,
			    "'%s' does not hold a JSON object (line %zu, "
			    "column %zu): fix it or delete it; it was not "
			    "modified",
			    path, line, col);
}
