/*
 * cJSON helpers for the library's own files: parsing with a located error
 * message, and writing a cJSON tree as JavaScript's JSON.stringify does
 * (through json.h's tm_json_writer).  Internal to the library: cJSON types
 * stay out of the public headers (the CLI walks its own cJSON trees into a
 * tm_json_writer).
 */
#ifndef TM_JSON_CJSON_H
#define TM_JSON_CJSON_H

#include "buf.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/*
 * Parse `len` bytes of `data` (need not be NUL-terminated) into a cJSON
 * tree.  On success *out is the tree, owned by the caller (cJSON_Delete).
 * The text must be one JSON value (RFC 8259, as JSON.parse reads it) with
 * optional blanks around it; a leading UTF-8 byte order mark is skipped.
 * Anything else returns TM_EPARSE with "'PATH' is not valid JSON (line L,
 * column C): fix it or delete it; it was not modified" and leaves *out
 * untouched: an empty or blank input, junk after the value, and the laxities
 * cJSON alone would let through (leading zeros, "1.", raw control
 * characters in strings, bad \u escapes).  L and C are 1-based, lines end
 * with LF, columns count UTF-8 characters, and they point at the first
 * character that cannot continue a JSON text (one past the end for a
 * truncated one).  `path` names the file in the message (NULL: "JSON
 * input").  Duplicate keys are read as JSON.parse reads them: each
 * object holds a key once, with the value of its last occurrence at the
 * place of its first ({"a":1,"b":2,"a":3} reads as {"a":3,"b":2}), so
 * that writing the tree back keeps only that one.  cJSON's own limits: it
 * refuses a lone surrogate escape and nesting deeper than 1000 (TM_EPARSE too),
 * and a \u0000 escape ends its string there (C strings).
 */
int tm_json_parse(cJSON **out, const char *data, size_t len, const char *path);

/*
 * tm_json_parse for a file whose top level must be an object: the same
 * contract and errors, plus TM_EPARSE "'PATH' does not hold a JSON object
 * (line L, column C): fix it or delete it; it was not modified" (located at
 * the value's first character) for any other value.
 */
int tm_json_parse_object(cJSON **out, const char *data, size_t len,
			 const char *path);

/*
 * Append `v` as JSON.stringify(v, null, 2) writes it, without a final
 * newline: tm_json_writer's layout (TM_JSON_PRETTY), members in list order,
 * strings as tm_json_put_string_js, numbers as tm_json_put_number.  A
 * cJSON_Raw item is written verbatim.
 */
void tm_json_stringify(tm_buf *out, const cJSON *v);

/* Same as tm_json_stringify, on one line with no spaces (JSON.stringify(v)). */
void tm_json_stringify_compact(tm_buf *out, const cJSON *v);

#endif
