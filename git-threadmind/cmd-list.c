/* git threadmind list: one line per thread (id, status, updatedAt, title). */
#include "builtin.h"
#include "view.h"

#include "lib/json_cjson.h"

#include <stdlib.h>
#include <string.h>

static const char *const list_usage[] = {
	"git threadmind list [--all] [--status <status>] [--branch <branch>] "
	"[--json]",
	NULL,
};

static const char *status_name(const tm_thread *t)
{
	return t->status ? t->status : "active";
}

static bool wanted(const tm_thread *t, const char *status, const char *branch)
{
	if (status && strcmp(status, "all") && strcmp(status, status_name(t)))
		return false;
	if (branch && (!t->branch || strcmp(branch, t->branch)))
		return false;
	return true;
}

/* A status --status may name: ours, "all", or one a thread's file has. */
static bool known_status(const struct view *v, const char *status)
{
	size_t k;

	if (!strcmp(status, "active") || !strcmp(status, TM_STATUS_DONE) ||
	    !strcmp(status, TM_STATUS_ABANDONED) || !strcmp(status, "all"))
		return true;
	for (k = 0; k < v->list.n; k++)
		if (!strcmp(status, status_name(v->list.threads[k])))
			return true;
	return false;
}

/*
 * `list --json` written one thread object at a time, as
 * JSON.stringify(doc, null, 2) places them: memory stays one object however
 * many threads (a store of 100,000 threads would need hundreds of MiB as
 * one cJSON tree).  `any` says whether an object was written already.
 */
static void json_open(void)
{
	cJSON *head = cJSON_CreateObject();
	tm_buf text = TM_BUF_INIT;

	cJSON_AddStringToObject(head, "project", cli.project);
	cli_json_text(&text, head);
	cJSON_Delete(head);
	/* "{\n  \"project\": …\n}" without its end */
	tm_buf_truncate(&text, text.size - 2);
	fwrite(text.ptr, 1, text.size, stdout);
	fputs(",\n  \"threads\": [", stdout);
	tm_buf_release(&text);
}

static void json_thread(cJSON *o, bool *any)
{
	tm_buf text = TM_BUF_INIT;
	const char *p, *end, *nl;

	cli_json_text(&text, o);
	cJSON_Delete(o);
	fputs(*any ? ",\n    " : "\n    ", stdout);
	*any = true;
	for (p = text.ptr, end = p + text.size;
	     (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		fwrite(p, 1, (size_t)(nl + 1 - p), stdout);
		fputs("    ", stdout);
	}
	fwrite(p, 1, (size_t)(end - p), stdout);
	tm_buf_release(&text);
}

int cmd_list(int argc, const char **argv)
{
	bool all = false, as_json = false;
	const char *status = NULL, *branch = NULL;
	const struct option opts[] = {
		OPT_BOOL_('a', "all", &all, "also list done and abandoned"),
		OPT_STRING_(0, "status", &status, "status",
			    "only this status: active, done, abandoned, all"),
		OPT_STRING_(0, "branch", &branch, "branch",
			    "only threads of this git branch"),
		OPT_BOOL_(0, "json", &as_json, "print JSON (docs/json.md)"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	struct view v;
	cJSON *doc = NULL, *arr = NULL;
	bool any = false, group;
	size_t k, width = 2;

	if (parse_options(argc, argv, opts, list_usage) != 0)
		usage_msg(list_usage, opts, "list takes no arguments");
	cli_open();
	/* --status picks finished threads by itself. */
	view_load(&v, all || status);
	if (status && !known_status(&v, status))
		usage_msg(list_usage, opts,
			  "--status must be active, done, abandoned or all "
			  "(or a status a thread has), not '%s'",
			  status);
	/* Grouped under several projects (cli_run), the document is built
	 * whole and handed to cli_print_json; else it is streamed. */
	group = as_json && cli.json_group;
	if (group) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "project", cli.project);
		arr = cJSON_AddArrayToObject(doc, "threads");
	} else if (as_json) {
		json_open();
	}
	for (k = 0; k < v.list.n; k++)
		if (strlen(v.list.threads[k]->id) > width)
			width = strlen(v.list.threads[k]->id);
	/* Files are listed sorted by id (the store lists them so). */
	for (k = 0; k < v.list.n; k++) {
		const tm_thread *t = v.list.threads[k];
		bool active = view_is_active(&v, k);
		bool show = all || status ? true : !tm_thread_is_finished(t);

		if (!show || !wanted(t, status, branch))
			continue;
		if (group) {
			cJSON_AddItemToArray(
				arr, cli_thread_json(t, active, v.flags[k]));
			continue;
		}
		if (as_json) {
			json_thread(cli_thread_json(t, active, v.flags[k]),
				    &any);
			continue;
		}
		printf("%s%s%s%-*s  %s%-9s%s  %-24s  %s\n",
		       active ? cli_c("green") : "", active ? "* " : "  ",
		       active ? cli_c("reset") : "", (int)width, t->id,
		       tm_thread_is_finished(t) ? cli_c("dim") : "",
		       cli_safe(status_name(t)), cli_c("reset"),
		       t->updated_at ? cli_safe(t->updated_at) : "-",
		       cli_safe(t->title));
	}
	if (group)
		cli_print_json(doc);
	else if (as_json)
		fputs(any ? "\n  ]\n}\n" : "]\n}\n", stdout);
	view_free(&v);
	return 0;
}
