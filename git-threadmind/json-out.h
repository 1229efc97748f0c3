/*
 * The --json output of the commands: documents laid out as
 * JSON.stringify(doc, null, 2) writes them (the library's tm_json_writer,
 * with DEL and the C1 controls escaped too: no control character reaches
 * the terminal, DESIGN.md section 11).  The commands build their values as
 * cJSON trees; this file writes them.  While a read command runs once per
 * project (main.c), each document becomes the member "<cli.project>" of
 * one document {"projects": {…}}, streamed as well.
 */
#ifndef TM_CLI_JSON_OUT_H
#define TM_CLI_JSON_OUT_H

#include "threadmind/json.h"
#include "threadmind/model.h"

#include <stdbool.h>

struct cJSON;

/* Print a JSON document (cJSON tree, consumed) on stdout with a newline. */
void cli_print_json(struct cJSON *doc);

/*
 * A document written piece by piece, as list and tree stream theirs (memory:
 * one piece at a time): cli_json_begin() gives the writer of the document,
 * cli_json_flush() puts what it holds so far on stdout, cli_json_end()
 * ends the document (under grouping it leaves the group open for the
 * next).
 */
tm_json_writer *cli_json_begin(void);
void cli_json_flush(void);
void cli_json_end(void);
/* The end of the grouped document {"projects": {…}} (main.c). */
void cli_json_group_end(void);

/* A cJSON value through the writer; cli_json_members the members of an
 * object alone, into an object the caller opened. */
void cli_json_value(tm_json_writer *w, const struct cJSON *v);
void cli_json_members(tm_json_writer *w, const struct cJSON *object);

/* A thread as the JSON object of docs/json.md (no children). */
struct cJSON *cli_thread_json(const tm_thread *t, bool active, unsigned flags);

#endif
