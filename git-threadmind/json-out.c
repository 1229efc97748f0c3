/* The --json output of the commands (see json-out.h). */
#include "json-out.h"

#include "cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/* The document being written and what of it is not on stdout yet. */
static tm_json_writer writer;
static tm_buf pending = TM_BUF_INIT;

/* {"projects": { left open: the documents are its members. */
static void open_group(void)
{
	tm_json_writer_init(&writer, &pending,
			    TM_JSON_PRETTY | TM_JSON_ESCAPE_C1);
	tm_json_open(&writer, '{');
	tm_json_key(&writer, "projects");
	tm_json_open(&writer, '{');
}

tm_json_writer *cli_json_begin(void)
{
	cli.json_written = true;
	if (!cli.json_group) {
		tm_json_writer_init(&writer, &pending,
				    TM_JSON_PRETTY | TM_JSON_ESCAPE_C1);
		return &writer;
	}
	if (!cli.json_members++)
		open_group();
	tm_json_key(&writer, cli.project);
	return &writer;
}

void cli_json_flush(void)
{
	fwrite(pending.ptr, 1, pending.size, stdout);
	tm_buf_clear(&pending);
}

void cli_json_end(void)
{
	if (!cli.json_group)
		tm_buf_putc(&pending, '\n');
	cli_json_flush();
}

void cli_json_group_end(void)
{
	if (!cli.json_members)
		open_group();
	tm_json_close(&writer, '}');
	tm_json_close(&writer, '}');
	tm_buf_putc(&pending, '\n');
	cli_json_flush();
	tm_buf_release(&pending);
}

void cli_json_members(tm_json_writer *w, const cJSON *object)
{
	const cJSON *c;

	for (c = object->child; c; c = c->next) {
		tm_json_key(w, c->string ? c->string : "");
		cli_json_value(w, c);
	}
}

void cli_json_value(tm_json_writer *w, const cJSON *v)
{
	const cJSON *c;

	if (cJSON_IsObject(v)) {
		tm_json_open(w, '{');
		cli_json_members(w, v);
		tm_json_close(w, '}');
	} else if (cJSON_IsArray(v)) {
		tm_json_open(w, '[');
		for (c = v->child; c; c = c->next)
			cli_json_value(w, c);
		tm_json_close(w, ']');
	} else if (cJSON_IsString(v)) {
		tm_json_string(w, v->valuestring ? v->valuestring : "");
	} else if (cJSON_IsNumber(v)) {
		tm_json_number(w, v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		tm_json_bool(w, cJSON_IsTrue(v));
	} else if (cJSON_IsRaw(v)) {
		tm_json_raw(w, v->valuestring ? v->valuestring : "null");
	} else {
		tm_json_null(w);
	}
}

void cli_print_json(cJSON *doc)
{
	cli_json_value(cli_json_begin(), doc);
	cJSON_Delete(doc);
	cli_json_end();
}

static void add_string_or_null(cJSON *o, const char *key, const char *value)
{
	if (value)
		cJSON_AddStringToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *cli_thread_json(const tm_thread *t, bool active, unsigned flags)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {{TM_TREE_ORPHAN, "orphan"},
		     {TM_TREE_CYCLE, "cycle"},
		     {TM_VIEW_STALE, "stale"},
		     {TM_VIEW_UNREADABLE, "unreadable"},
		     {TM_VIEW_UNINTEGRATED, "unintegrated"}};
	cJSON *o = cJSON_CreateObject(), *arr;
	size_t i;

	add_string_or_null(o, "id", t->id);
	add_string_or_null(o, "title", t->title);
	add_string_or_null(o, "parentId", t->parent_id);
	add_string_or_null(o, "author", t->author);
	add_string_or_null(o, "createdAt", t->created_at);
	add_string_or_null(o, "updatedAt", t->updated_at);
	add_string_or_null(o, "status", t->status);
	add_string_or_null(o, "branch", t->branch);
	add_string_or_null(o, "commit", t->commit);
	arr = cJSON_AddArrayToObject(o, "paths");
	for (i = 0; i < t->paths.n; i++)
		cJSON_AddItemToArray(arr,
				     cJSON_CreateString(t->paths.items[i]));
	add_string_or_null(o, "mergedInto", t->merged_into);
	cJSON_AddBoolToObject(o, "active", active);
	arr = cJSON_AddArrayToObject(o, "flags");
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (flags & names[i].bit)
			cJSON_AddItemToArray(arr,
					     cJSON_CreateString(names[i].name));
	return o;
}
