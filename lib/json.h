/*
 * JSON: the store's JSON files (config.json, projects/{id}.json) through
 * cJSON, written the way JavaScript's JSON.stringify(value, null, 2) writes
 * them, plus JSON string quoting for the frontmatter writer.
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

#endif
