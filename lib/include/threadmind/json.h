/*
 * JSON writers for strings and numbers exactly as JavaScript's
 * JSON.stringify writes them (also used by the YAML and lock formats).  The
 * cJSON side of the codec (strict parse, stringify) is json_cjson.h; the
 * store's JSON files are config.h.
 */
#ifndef TM_JSON_H
#define TM_JSON_H

#include "buf.h"

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

#endif
