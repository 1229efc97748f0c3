/*
 * JSON written exactly as JavaScript's JSON.stringify writes it: strings
 * and numbers (also used by the YAML and lock formats), and whole documents
 * value by value in its layout (tm_json_writer: the layout's one home).
 * The cJSON side of the codec (strict parse, stringify of a cJSON tree) is
 * lib/format/json_cjson.h, internal to the library; the store's JSON files
 * are config.h.
 */
#ifndef TM_JSON_H
#define TM_JSON_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Append `s` (`len` bytes of UTF-8) as a JSON string literal, quoted and
 * escaped as JSON.stringify does: \" \\ \b \f \n \r \t, other control
 * characters below 0x20 as \u00xx (lower-case hex); everything else as is.
 * Also escapes U+007F and the C1 controls U+0080..U+009F as \u00xx so that
 * the literal is valid YAML as well (YAML forbids them raw).
 */
void tm_json_put_string(tm_buf *out, const char *s, size_t len);

/*
 * Append `s` (`len` bytes) exactly as JSON.stringify quotes a string: like
 * tm_json_put_string but U+007F..U+009F are kept raw.  Bytes that are not
 * valid UTF-8 are copied as they are.
 */
void tm_json_put_string_js(tm_buf *out, const char *s, size_t len);

/*
 * Append `v` as JavaScript's Number#toString (and so JSON.stringify) writes
 * it: the shortest digits that read back as `v`, without exponent for
 * magnitudes in [1e-6, 1e21) ("1150", "1152921504606847000", "0.000001"),
 * otherwise "1e-7", "1.5e+300"; -0 as "0"; NaN and infinities as "null"
 * (what JSON.stringify writes for them).
 */
void tm_json_put_number(tm_buf *out, double v);

/* tm_json_writer's flags. */
/* JSON.stringify(v, null, 2): members on their own lines, two spaces a
 * level, `"key": value`; without it JSON.stringify(v): no blanks at all. */
#define TM_JSON_PRETTY (1u << 0)
/* Strings (keys too) as tm_json_put_string writes them: DEL and the C1
 * controls as \u00xx, so that no control character reaches a terminal (the
 * same JSON value). */
#define TM_JSON_ESCAPE_C1 (1u << 1)

/*
 * A JSON text written one value at a time in JSON.stringify's layout:
 * tm_json_open and tm_json_close around the members of an object or an
 * array, tm_json_key before each member of an object, a value function for
 * each value.  The writer places every value: the comma, the line break and
 * the indentation before it; an empty container is `{}` or `[]`.  So a
 * document too large to hold as a tree is written piece by piece, the
 * pieces taken out of `out` whenever the caller likes (list and tree
 * --json stream theirs).  Initialise with tm_json_writer_init; the fields
 * are the writer's own, except `out` (the caller may empty it between
 * values) and `outdent`.
 */
typedef struct {
	tm_buf *out;
	unsigned flags; /* TM_JSON_* */
	size_t depth;   /* containers open */
	/* Levels taken off the indentation of what is written next: a
	 * caller that caps how deep the text is indented (tree --json, whose
	 * parent chains may be 100,000 deep) sets it; whitespace only. */
	size_t outdent;
	bool first; /* the innermost open container has no member yet */
	bool keyed; /* a key was written: its value comes next */
} tm_json_writer;

/* Start a writer appending to `out`. */
void tm_json_writer_init(tm_json_writer *w, tm_buf *out, unsigned flags);
/* Open an object (`bracket` '{') or an array ('['), as a value. */
void tm_json_open(tm_json_writer *w, char bracket);
/* Close the innermost open container: `bracket` is '}' or ']'. */
void tm_json_close(tm_json_writer *w, char bracket);
/* The key of the next member of the open object. */
void tm_json_key(tm_json_writer *w, const char *key);
/* A string value (NUL-terminated); NULL writes null. */
void tm_json_string(tm_json_writer *w, const char *s);
/* A number, as tm_json_put_number writes it. */
void tm_json_number(tm_json_writer *w, double v);
void tm_json_bool(tm_json_writer *w, bool v);
void tm_json_null(tm_json_writer *w);
/* JSON text written as it is, as a value (the caller vouches for it). */
void tm_json_raw(tm_json_writer *w, const char *text);

#endif
