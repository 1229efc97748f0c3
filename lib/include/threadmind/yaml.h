/*
 * The YAML the frontmatter needs: when a scalar may be written plain, how to
 * write it otherwise (a JSON string), and reading one `key: value` entry
 * through libyaml.  libyaml types stay inside yaml.c.
 */
#ifndef TM_YAML_H
#define TM_YAML_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * What a long parse asks between steps whether to go on: called with the
 * file's name (as given for error messages) on entry and then once every
 * TM_PARSE_CHECK_EVERY lines, entries or YAML events; 0 goes on, a negative
 * TM_E* code (its message set) stops the parse, which returns it.  The
 * parsers know no clock: a caller with a time budget passes its check
 * (tm_deadline_check, deadline.h); NULL never stops.
 */
typedef int (*tm_parse_check)(const char *what);

/* Steps of a parse between two calls of its tm_parse_check. */
#define TM_PARSE_CHECK_EVERY 1024

/* A parse's step `i`: `check` (may be NULL) with `what` once every
 * TM_PARSE_CHECK_EVERY steps, from step 0; else 0. */
static inline int tm_parse_check_every(tm_parse_check check, size_t i,
				       const char *what)
{
	return check && i % TM_PARSE_CHECK_EVERY == 0 ? check(what) : 0;
}

/*
 * True when `value` can be written as a plain YAML scalar after "key: ":
 * a YAML reader (1.2 core schema, or 1.1 for booleans) and the frontmatter's
 * raw reader both read the plain form back as the same string.  False for
 * the empty string, leading or trailing spaces, ": " or " #", a trailing
 * ':', a leading indicator (- " ' # ? : , [ ] { } & * ! | > % @ `), control
 * characters (C0, DEL, C1) and line breaks, null/bool/int/float look-alikes
 * (null ~ true 2024 1.5 1e3 0x1F 0o17 .inf .nan, YAML 1.1 yes/no/on/off/y/n
 * in any case), and anything libyaml does not read back as the same plain
 * scalar.  `value` must be valid UTF-8.
 */
bool tm_yaml_plain_ok(const char *value);

/*
 * Append `value` as it is written after "key: ": as is when
 * tm_yaml_plain_ok, else as tm_yaml_put_quoted writes it.
 */
void tm_yaml_put_scalar(tm_buf *out, const char *value);

/*
 * Append `value` as a JSON string (tm_json_put_string, as JSON.stringify
 * writes it) that YAML reads back as the same string: the characters
 * JSON.stringify leaves raw and YAML does not keep -- U+2028 and U+2029
 * (line breaks to YAML), U+FFFE and U+FFFF (not allowed) -- are written as
 * \u2028, \u2029, \ufffe, \uffff.
 */
void tm_yaml_put_quoted(tm_buf *out, const char *value);

/* What a YAML entry's value turned out to be. */
typedef enum {
	TM_YAML_NULL,   /* absent: plain null, ~, Null, NULL or nothing */
	TM_YAML_STRING, /* a scalar (any style): `str` */
	TM_YAML_LIST,   /* a sequence of scalars: `items` */
	TM_YAML_OTHER   /* a mapping, or a sequence holding collections */
} tm_yaml_kind;

typedef struct {
	tm_yaml_kind kind;
	char *str;     /* TM_YAML_STRING only; owned */
	tm_strv items; /* TM_YAML_LIST only: each scalar's text, as a string */
} tm_yaml_value;

/* clang-format off */
#define TM_YAML_VALUE_INIT {TM_YAML_NULL, NULL, {NULL, 0, 0}}
/* clang-format on */

/*
 * The deepest nesting of flow or block collections an entry may hold: a
 * thread field is at most a list of strings (1); 2 still gets the "must be
 * a list of strings" error.  Deeper is refused before libyaml reads the
 * text (libyaml's time grows with the square of the depth).
 */
#define TM_YAML_MAX_DEPTH 2

/*
 * Read the value of one block-mapping entry with libyaml.  `text` (`len`
 * bytes, LF line ends) is the whole entry: "key: value" or "key:" and the
 * lines that continue it.  Sequence items are kept as strings whatever they
 * look like (`[1, true, null]` gives "1", "true", "null").  On success fills
 * *out (release it with tm_yaml_value_clear) and returns 0.  On a YAML
 * error, an alias, a NUL character in a value or an entry holding more than
 * one key, and on collections nested more than TM_YAML_MAX_DEPTH deep,
 * returns TM_EPARSE with a message "'PATH' line N: ..." where N counts from
 * `first_line` (the line of the key in the file) and `key` names the
 * field.  The depth is checked twice: first on the raw text, before libyaml
 * sees it (flow brackets outside quoted scalars and comments; bracket runs
 * such as `[[[[` are refused at once, whatever their length), then on
 * libyaml's events, which stops at the first collection too deep.
 * `check` (may be NULL) is called with `path` every TM_PARSE_CHECK_EVERY
 * events, the first before any: what it returns below 0 stops the read and
 * is returned.
 */
int tm_yaml_read_entry(tm_yaml_value *out, const char *text, size_t len,
		       const char *key, const char *path, size_t first_line,
		       tm_parse_check check);

/* Free what a tm_yaml_value holds and reset it to TM_YAML_NULL. */
void tm_yaml_value_clear(tm_yaml_value *v);

#endif
