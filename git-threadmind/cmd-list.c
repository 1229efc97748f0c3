/* git threadmind list: one line per thread (id, status, updatedAt, title). */
#include "builtin.h"
#include "view.h"

#include "threadmind/config.h"

#include <cjson/cJSON.h>
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

static bool list_has_status(const tm_thread_list *l, const char *status)
{
	size_t k;

	for (k = 0; k < l->n; k++)
		if (!strcmp(status, status_name(l->threads[k])))
			return true;
	return false;
}

/*
 * A status --status may name: ours, "all", or one a thread's file has.
 * When the command runs once per project (main.c), one a thread of any of
 * them has: each project lists the threads it has with it, maybe none.
 */
static bool known_status(const tm_view *v, const char *status)
{
	bool found = false;
	size_t i;

	if (!strcmp(status, "active") || !strcmp(status, TM_STATUS_DONE) ||
	    !strcmp(status, TM_STATUS_ABANDONED) || !strcmp(status, "all") ||
	    list_has_status(&v->list, status))
		return true;
	for (i = 0; cli.group && i < cli.group->n && !found; i++) {
		tm_thread_list l;

		if (!strcmp(cli.group->items[i], cli.project))
			continue;
		if (tm_store_load_all(&l, cli.store, cli.group->items[i]) < 0)
			tm_error_clear();
		found = list_has_status(&l, status);
		tm_thread_list_clear(&l);
	}
	return found;
}

/*
 * `list --json` written one thread object at a time, as
 * JSON.stringify(doc, null, 2) places them: memory stays one object however
 * many threads (a store of 100,000 threads would need hundreds of MiB as
 * one cJSON tree), grouped under several projects too (cli_json_begin).
 */
static tm_json_writer *json_open(void)
{
	tm_json_writer *w = cli_json_begin();

	tm_json_open(w, '{');
	tm_json_key(w, "project");
	tm_json_string(w, cli.project);
	tm_json_key(w, "threads");
	tm_json_open(w, '[');
	return w;
}

static void json_thread(tm_json_writer *w, cJSON *o)
{
	cli_json_value(w, o);
	cJSON_Delete(o);
	cli_json_flush();
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
	tm_buf branch_key = TM_BUF_INIT;
	tm_json_writer *w = NULL;
	tm_view v;
	size_t k, width = 2;

	if (parse_options(argc, argv, opts, list_usage) != 0)
		usage_msg(list_usage, opts, "list takes no arguments");
	if (branch) { /* as threads store it (a name that is not UTF-8) */
		tm_config_branch_key(&branch_key, branch);
		branch = tm_buf_cstr(&branch_key);
	}
	cli_open();
	/* --status picks finished threads by itself. */
	view_load(&v, all || status);
	if (status && !known_status(&v, status))
		usage_msg(list_usage, opts,
			  "--status must be active, done, abandoned or all "
			  "(or a status a thread has), not '%s'",
			  status);
	if (as_json)
		w = json_open();
	for (k = 0; k < v.list.n; k++)
		if (strlen(v.list.threads[k]->id) > width)
			width = strlen(v.list.threads[k]->id);
	/* Files are listed sorted by id (the store lists them so). */
	for (k = 0; k < v.list.n; k++) {
		const tm_thread *t = v.list.threads[k];
		bool active = tm_view_is_active(&v, k);

		if (!tm_view_listed(&v, k, all || status) ||
		    !wanted(t, status, branch))
			continue;
		if (as_json) {
			json_thread(w, cli_thread_json(t, active, v.flags[k]));
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
	if (w) {
		tm_json_close(w, ']');
		tm_json_close(w, '}');
		cli_json_end();
	}
	tm_view_free(&v);
	tm_buf_release(&branch_key);
	return 0;
}
