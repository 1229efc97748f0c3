/* YAML scalar quoting and libyaml entry reading (see yaml.h). */
#include "yaml.h"
#include "error.h"
#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>
#include <yaml.h>

#define TAG_NULL "tag:yaml.org,2002:null"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A hex digit of a YAML 0x integer (a character class, not an object id
 * check: that is tm_git_is_hex_oid). */
static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* Skip a run of characters accepted by `ok`; true when at least one. */
static bool skip_run(const char **p, bool (*ok)(char))
{
	const char *start = *p;

	while (ok(**p))
		(*p)++;
	return *p != start;
}

static bool is_null_word(const char *s)
{
	return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* YAML 1.2 core booleans and YAML 1.1 ones, in any case. */
static bool is_bool_word(const char *s)
{
	static const char *const words[] = {"true", "false", "yes", "no",
					    "on",   "off",   "y",   "n"};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcasecmp(s, words[i]))
			return true;
	return false;
}

/* [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+ (upper-case O and X too). */
static bool is_int_word(const char *s)
{
	const char *p = s;

	if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) {
		p += 2;
		return skip_run(&p, is_octal) && !*p;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		return skip_run(&p, is_hex) && !*p;
	}
	if (*p == '+' || *p == '-')
		p++;
	return skip_run(&p, is_digit) && !*p;
}

/*
 * [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, [-+]?\.inf and
 * \.nan (those two in any case).
 */
static bool is_float_word(const char *s)
{
	const char *p = s;

	if (!strcasecmp(p, ".nan"))
		return true;
	if (*p == '+' || *p == '-')
		p++;
	if (!strcasecmp(p, ".inf"))
		return true;
	if (*p == '.') {
		p++;
		if (!skip_run(&p, is_digit))
			return false;
	} else {
		if (!skip_run(&p, is_digit))
			return false;
		if (*p == '.') {
			p++;
			skip_run(&p, is_digit);
		}
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!skip_run(&p, is_digit))
			return false;
	}
	return !*p;
}

/* C0 controls (line breaks and tabs included), DEL, C1 controls. */
static bool has_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return true;
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return true;
	}
	return false;
}

/* The final check: libyaml reads "k: VALUE" as one plain scalar VALUE. */
static bool libyaml_reads_plain(const char *value)
{
	static const yaml_event_type_t want[] = {
		YAML_STREAM_START_EVENT,  YAML_DOCUMENT_START_EVENT,
		YAML_MAPPING_START_EVENT, YAML_SCALAR_EVENT,
		YAML_SCALAR_EVENT,        YAML_MAPPING_END_EVENT,
		YAML_DOCUMENT_END_EVENT,  YAML_STREAM_END_EVENT};
	yaml_parser_t parser;
	yaml_event_t ev;
	tm_buf doc = TM_BUF_INIT;
	size_t i, n = sizeof(want) / sizeof(*want), vlen = strlen(value);
	bool ok = true;

	tm_buf_puts(&doc, "k: ");
	tm_buf_puts(&doc, value);
	tm_buf_putc(&doc, '\n');
	if (!yaml_parser_initialize(&parser))
		abort();
	yaml_parser_set_input_string(&parser, (const unsigned char *)doc.ptr,
				     doc.size);
	for (i = 0; ok && i < n; i++) {
		if (!yaml_parser_parse(&parser, &ev))
			break;
		ok = ev.type == want[i];
		if (ok && i == 4)
			ok = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			     !ev.data.scalar.tag &&
			     ev.data.scalar.length == vlen &&
			     !memcmp(ev.data.scalar.value, value, vlen);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	tm_buf_release(&doc);
	return ok && i == n;
}

bool tm_yaml_plain_ok(const char *value)
{
	size_t len = strlen(value);

	if (!len || value[0] == ' ' || value[len - 1] == ' ')
		return false;
	if (strchr("-\"'#?:,[]{}&*!|>%@`", value[0]))
		return false;
	if (value[len - 1] == ':' || strstr(value, ": ") || strstr(value, " #"))
		return false;
	if (has_control(value))
		return false;
	if (is_null_word(value) || is_bool_word(value) || is_int_word(value) ||
	    is_float_word(value))
		return false;
	return libyaml_reads_plain(value);
}

/*
 * The character at `s` when it is one JSON.stringify leaves raw that YAML
 * cannot hold (U+FFFE and U+FFFF are not allowed, U+2028 and U+2029 are
 * line breaks, folded with the spaces around them inside a quoted scalar),
 * else 0.  Written as "\\uXXXX" instead.
 */
static utf8proc_int32_t yaml_escape_at(const char *s)
{
	unsigned char lead = (unsigned char)s[0];
	utf8proc_int32_t c;

	/* all four are three bytes led by 0xe2 or 0xef: most bytes stop here */
	if ((lead != 0xe2 && lead != 0xef) ||
	    utf8proc_iterate((const utf8proc_uint8_t *)s, 3, &c) != 3)
		return 0;
	return c == 0x2028 || c == 0x2029 || c == 0xfffe || c == 0xffff ? c : 0;
}

void tm_yaml_put_quoted(tm_buf *out, const char *value)
{
	size_t start = out->size, i;
	tm_buf json = TM_BUF_INIT;
	utf8proc_int32_t c = 0;

	tm_json_put_string(out, value, strlen(value));
	for (i = start; i < out->size && !c; i++)
		c = yaml_escape_at(out->ptr + i);
	if (!c)
		return;
	/* rare: redo the tail with those escaped (JSON escapes are ASCII,
	 * so these bytes can only be the characters themselves) */
	i--;
	tm_buf_put(&json, out->ptr + i, out->size - i);
	tm_buf_truncate(out, i);
	for (i = 0; i < json.size; i++) {
		if ((c = yaml_escape_at(json.ptr + i))) {
			tm_buf_printf(out, "\\u%04x", (unsigned)c);
			i += 2;
		} else {
			tm_buf_putc(out, json.ptr[i]);
		}
	}
	tm_buf_release(&json);
}

void tm_yaml_put_scalar(tm_buf *out, const char *value)
{
	if (tm_yaml_plain_ok(value))
		tm_buf_puts(out, value);
	else
		tm_yaml_put_quoted(out, value);
}

void tm_yaml_value_clear(tm_yaml_value *v)
{
	free(v->str);
	v->str = NULL;
	tm_strv_clear(&v->items);
	v->kind = TM_YAML_NULL;
}

/* What an entry is read for: names the file, line and field in errors. */
struct entry_ctx {
	yaml_parser_t parser;
	const char *key;
	const char *path;
	size_t first_line;
	size_t last;          /* index of the entry's last line */
	tm_parse_check check; /* the caller's, or NULL */
	size_t events;        /* read so far (a long list is checked) */
};

static int entry_fail(struct entry_ctx *c, size_t line, const char *what)
{
	/* libyaml puts "unexpected end of stream" past the final newline */
	if (line > c->last)
		line = c->last;
	return tm_error_set(TM_EPARSE,
			    "'%s' line %zu: cannot read field '%s': %s",
			    c->path, c->first_line + line, c->key, what);
}

/* The next event, or TM_EPARSE naming libyaml's problem. */
static int next_event(struct entry_ctx *c, yaml_event_t *ev)
{
	int error;

	if ((error = tm_parse_check_every(c->check, c->events++, c->path)) < 0)
		return error;
	if (yaml_parser_parse(&c->parser, ev))
		return 0;
	return entry_fail(c, c->parser.problem_mark.line,
			  c->parser.problem ? c->parser.problem
					    : "invalid YAML");
}

static int expect_event(struct entry_ctx *c, yaml_event_type_t type,
			const char *what)
{
	yaml_event_t ev;
	int error;

	if ((error = next_event(c, &ev)) < 0)
		return error;
	if (ev.type != type)
		error = entry_fail(c, ev.start_mark.line, what);
	yaml_event_delete(&ev);
	return error;
}

/* A scalar event's text as an owned string; TM_EPARSE when it holds NUL. */
static int scalar_text(char **out, struct entry_ctx *c, const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;

	if (memchr(v, 0, len))
		return entry_fail(c, ev->start_mark.line,
				  "the value holds a NUL character");
	*out = tm_xstrndup(v, len);
	return 0;
}

static bool scalar_is_null(const yaml_event_t *ev)
{
	const char *tag = (const char *)ev->data.scalar.tag;
	char *v = (char *)ev->data.scalar.value;

	if (tag)
		return !strcmp(tag, TAG_NULL);
	return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       strlen(v) == ev->data.scalar.length && is_null_word(v);
}

static int too_deep(struct entry_ctx *c, size_t line)
{
	char what[160];

	snprintf(what, sizeof(what),
		 "lists or mappings nested more than %d deep (a thread field "
		 "holds at most a list of strings)",
		 TM_YAML_MAX_DEPTH);
	return entry_fail(c, line, what);
}

/*
 * Skip the rest of a collection whose start event was just read, at
 * nesting `level` (1: the value itself).  Aliases are refused everywhere:
 * one entry has nothing worth an anchor.
 */
static int skip_collection(struct entry_ctx *c, int level)
{
	yaml_event_t ev;
	int error = 0, depth = 1;

	while (depth > 0) {
		if ((error = next_event(c, &ev)) < 0)
			return error;
		if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT) {
			if (level + depth > TM_YAML_MAX_DEPTH)
				error = too_deep(c, ev.start_mark.line);
			depth++;
		} else if (ev.type == YAML_SEQUENCE_END_EVENT ||
			   ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		else if (ev.type == YAML_ALIAS_EVENT)
			error = entry_fail(c, ev.start_mark.line,
					   "YAML aliases are not supported");
		yaml_event_delete(&ev);
		if (error < 0)
			return error;
	}
	return 0;
}

/*
 * An event `ev` that is not a scalar, read where a value or a list's item
 * was expected: a collection's start (skipped whole, at nesting `level` as
 * skip_collection counts it; the value becomes TM_YAML_OTHER) or an alias
 * (refused).
 */
static int not_scalar(struct entry_ctx *c, tm_yaml_value *v,
		      const yaml_event_t *ev, int level)
{
	if (ev->type != YAML_SEQUENCE_START_EVENT &&
	    ev->type != YAML_MAPPING_START_EVENT)
		return entry_fail(c, ev->start_mark.line,
				  "YAML aliases are not supported");
	v->kind = TM_YAML_OTHER;
	return skip_collection(c, level);
}

/* The items of a sequence whose start event was just read. */
static int read_sequence(struct entry_ctx *c, tm_yaml_value *v)
{
	yaml_event_t ev;
	char *item = NULL;
	int error = 0;

	v->kind = TM_YAML_LIST;
	for (;;) {
		if ((error = next_event(c, &ev)) < 0)
			return error;
		switch (ev.type) {
		case YAML_SEQUENCE_END_EVENT:
			yaml_event_delete(&ev);
			return 0;
		case YAML_SCALAR_EVENT:
			if ((error = scalar_text(&item, c, &ev)) == 0)
				tm_strv_push_owned(&v->items, item);
			break;
		default:
			error = not_scalar(c, v, &ev, 2);
		}
		yaml_event_delete(&ev);
		if (error < 0)
			return error;
	}
}

static int read_value(struct entry_ctx *c, tm_yaml_value *v)
{
	yaml_event_t ev;
	int error = 0;

	if ((error = next_event(c, &ev)) < 0)
		return error;
	switch (ev.type) {
	case YAML_SCALAR_EVENT:
		if (!scalar_is_null(&ev) &&
		    (error = scalar_text(&v->str, c, &ev)) == 0)
			v->kind = TM_YAML_STRING;
		break;
	case YAML_SEQUENCE_START_EVENT:
		error = read_sequence(c, v);
		break;
	default:
		error = not_scalar(c, v, &ev, 1);
	}
	yaml_event_delete(&ev);
	return error;
}

/* The events around an entry's value. */
static const struct {
	yaml_event_type_t type;
	const char *what;
} before_value[] =
	{
		{YAML_STREAM_START_EVENT, "no YAML"},
		{YAML_DOCUMENT_START_EVENT, "no YAML"},
		{YAML_MAPPING_START_EVENT, "not a 'key: value' entry"},
		{YAML_SCALAR_EVENT, "not a 'key: value' entry"},
},
  after_value[] = {
	  {YAML_MAPPING_END_EVENT, "the entry holds more than one key"},
	  {YAML_DOCUMENT_END_EVENT, "unexpected YAML after the value"},
	  {YAML_STREAM_END_EVENT, "unexpected YAML after the value"},
};

#define NBEFORE (sizeof(before_value) / sizeof(*before_value))
#define NAFTER  (sizeof(after_value) / sizeof(*after_value))

static bool is_break_or_end(const char *s, size_t len, size_t i)
{
	return i >= len || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	       s[i] == '\r';
}

/* Index just past the quoted scalar opening at s[i] (or `len`). */
static size_t skip_quoted(const char *s, size_t len, size_t i)
{
	char q = s[i];

	for (i++; i < len; i++) {
		if (q == '"' && s[i] == '\\')
			i++;
		else if (s[i] == q &&
			 !(q == '\'' && i + 1 < len && s[i + 1] == '\''))
			return i + 1;
		else if (s[i] == q)
			i++; /* '' in a single-quoted scalar */
	}
	return len;
}

/*
 * The flow nesting of the raw entry, before libyaml: the offset + 1 of the
 * first '[' or '{' that opens a collection deeper than TM_YAML_MAX_DEPTH,
 * or 0.  Brackets count where a collection may start (a token start, or
 * anywhere inside a flow collection); quoted scalars and comments are
 * skipped.  A misjudged case errs either way by a level or so; libyaml's
 * events are checked again after this.
 */
static size_t flow_too_deep(const char *s, size_t len)
{
	size_t i, depth = 0;
	bool token = true; /* may a token start here? */

	for (i = 0; i < len; i++) {
		char ch = s[i];

		if (ch == '\n') {
			token = true;
		} else if (ch == ' ' || ch == '\t' || ch == '\r') {
			if (i + 1 < len && s[i + 1] == '#')
				while (i + 1 < len && s[i + 1] != '\n')
					i++;
		} else if (token && (ch == '"' || ch == '\'')) {
			i = skip_quoted(s, len, i) - 1;
			token = false;
		} else if (ch == '[' || ch == '{') {
			if (depth || token) {
				if (++depth > TM_YAML_MAX_DEPTH)
					return i + 1;
				token = true;
			}
		} else if (ch == ']' || ch == '}') {
			if (depth)
				depth--;
			token = false;
		} else if (ch == ',' && depth) {
			token = true;
		} else if ((ch == ':' || ch == '-' || ch == '?') &&
			   is_break_or_end(s, len, i + 1)) {
			token = true;
		} else {
			token = false;
		}
	}
	return 0;
}

int tm_yaml_read_entry(tm_yaml_value *out, const char *text, size_t len,
		       const char *key, const char *path, size_t first_line,
		       tm_parse_check check)
{
	struct entry_ctx c;
	tm_yaml_value v = TM_YAML_VALUE_INIT;
	size_t i;
	int error = 0;

	c.key = key;
	c.path = path;
	c.first_line = first_line;
	c.last = 0;
	c.check = check;
	c.events = 0;
	for (i = 0; i < len; i++)
		if (text[i] == '\n' && i + 1 < len)
			c.last++;
	if ((i = flow_too_deep(text, len))) {
		size_t line = 0, k;

		for (k = 0; k + 1 < i; k++)
			line += text[k] == '\n';
		return too_deep(&c, line);
	}
	if (!yaml_parser_initialize(&c.parser))
		abort();
	yaml_parser_set_input_string(&c.parser, (const unsigned char *)text,
				     len);
	for (i = 0; i < NBEFORE && !error; i++)
		error = expect_event(&c, before_value[i].type,
				     before_value[i].what);
	if (!error)
		error = read_value(&c, &v);
	for (i = 0; i < NAFTER && !error; i++)
		error = expect_event(&c, after_value[i].type,
				     after_value[i].what);
	if (!error) {
		*out = v;
		v = (tm_yaml_value)TM_YAML_VALUE_INIT;
	}
	tm_yaml_value_clear(&v);
	yaml_parser_delete(&c.parser);
	return error;
}
