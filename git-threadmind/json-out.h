/*
 * The --json output of the commands: documents laid out as
 * JSON.stringify(doc, null, 2) writes them, one after the other under
 * main.c's per-project grouping ({"projects": {…}}), streamed piece by piece.
 */
#ifndef TM_CLI_JSON_OUT_H
#define TM_CLI_JSON_OUT_H

#include "threadmind/buf.h"
#include "threadmind/model.h"

#include <stdbool.h>
#include <stddef.h>

/* Print a JSON document (cJSON tree, consumed) on stdout with a newline:
 * cli_json_begin, cli_json_put of its text, cli_json_end. */
struct cJSON;
void cli_print_json(struct cJSON *doc);
/*
 * A JSON document written piece by piece, as list and tree stream theirs:
 * cli_json_begin() first, cli_json_put() for each piece of the text
 * JSON.stringify(doc, null, 2) writes, cli_json_end() last.  Under cli_run's
 * grouping the document becomes the member "<cli.project>" of
 * {"projects": {…}}: begin writes the member's key, put indents every new
 * line two levels more, end leaves the newline to the group, so that the
 * group streams as well (memory: what the command holds, one project at a
 * time).
 */
void cli_json_begin(void);
void cli_json_put(const char *text, size_t len);
void cli_json_puts(const char *text);
/* cli_json_put with `indent` more spaces after each newline of `text` (a
 * nested value's JSON.stringify text placed at its depth). */
void cli_json_put_indented(const char *text, size_t len, size_t indent);
void cli_json_end(void);
/* `v` as JSON.stringify(v, null, 2) writes it, appended to `out`, with DEL
 * and the C1 controls escaped too (no control character reaches the
 * terminal: DESIGN.md section 11). */
void cli_json_text(tm_buf *out, const struct cJSON *v);
/* A thread as the JSON object of docs/json.md (no children). */
struct cJSON *cli_thread_json(const tm_thread *t, bool active, unsigned flags);

#endif
