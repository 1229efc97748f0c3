/* The --json output of the commands (see json-out.h). */
#include "json-out.h"

#include "cli.h"
#include "threadmind/json_cjson.h"
#include "threadmind/text.h"

#include <stdio.h>
#include <string.h>

void cli_json_text(tm_buf *out, const cJSON *v)
{
	tm_buf raw = TM_BUF_INIT;

	tm_json_stringify(&raw, v);
	tm_text_json_escape(out, raw.ptr, raw.size);
	tm_buf_release(&raw);
}

void cli_json_begin(void)
{
	tm_buf key = TM_BUF_INIT;
	cJSON *name;

	cli.json_written = true;
	if (!cli.json_group)
		return;
	fputs(cli.json_members++ ? ",\n    " : "{\n  \"projects\": {\n    ",
	      stdout);
	name = cJSON_CreateString(cli.project);
	cli_json_text(&key, name);
	cJSON_Delete(name);
	tm_buf_puts(&key, ": ");
	fwrite(key.ptr, 1, key.size, stdout);
	tm_buf_release(&key);
}

static void put_spaces(size_t n)
{
	static const char spaces[] = "                                ";
	size_t chunk;

	while (n) {
		chunk = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		fwrite(spaces, 1, chunk, stdout);
		n -= chunk;
	}
}

void cli_json_put_indented(const char *text, size_t len, size_t indent)
{
	const char *end = text + len, *nl;

	if (cli.json_group)
		indent += 4;
	while (indent && (nl = memchr(text, '\n', (size_t)(end - text)))) {
		fwrite(text, 1, (size_t)(nl + 1 - text), stdout);
		put_spaces(indent);
		text = nl + 1;
	}
	fwrite(text, 1, (size_t)(end - text), stdout);
}

void cli_json_put(const char *text, size_t len)
{
	cli_json_put_indented(text, len, 0);
}

void cli_json_puts(const char *text)
{
	cli_json_put(text, strlen(text));
}

void cli_json_end(void)
{
	if (!cli.json_group)
		putchar('\n');
}

void cli_print_json(cJSON *doc)
{
	tm_buf out = TM_BUF_INIT;

	cli_json_text(&out, doc);
	cJSON_Delete(doc);
	cli_json_begin();
	cli_json_put(out.ptr, out.size);
	cli_json_end();
	tm_buf_release(&out);
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
		     {CLI_FLAG_STALE, "stale"},
		     {CLI_FLAG_UNREADABLE, "unreadable"},
		     {CLI_FLAG_UNINTEGRATED, "unintegrated"}};
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
