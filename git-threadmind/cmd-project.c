/* git threadmind project: list, create and pick the store's projects. */
#include "builtin.h"
#include "cli.h"

#include "threadmind/ops.h"
#include "threadmind/ops_project.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const project_usage[] = {
	"git threadmind project [list] [--json]",
	"git threadmind project new <title> [--mode solo|team]",
	"git threadmind project use <project>",
	"git threadmind project rename <old> <new>",
	"git threadmind project rm [--force] <project>",
	"git threadmind project set <key>=<value>...",
	NULL,
};

static bool as_json, force;
static const char *mode;
static const struct option project_opts[] = {
	OPT_BOOL_(0, "json", &as_json, "list: print JSON (docs/json.md)"),
	OPT_STRING_(0, "mode", &mode, "mode", "new: solo (default) or team"),
	OPT_BOOL_('f', "force", &force,
		  "rm: also the only or the current project"),
	OPT_GLOBALS,
	OPT_END_(),
};

static void list_projects(tm_strv *ids)
{
	if (tm_store_list_projects(ids, cli.store) < 0)
		die_lib();
}

/* The project commands work on without --project (NULL: none). */
static char *current_project(void)
{
	char *id = NULL;

	if (tm_store_current_project(&id, cli.store, NULL) < 0) {
		/* A config.json that does not parse is a refusal. */
		if (tm_error_last_code() == TM_EPARSE)
			die_lib();
		tm_error_clear();
		return NULL;
	}
	return id;
}

static void add_string_or_null(cJSON *o, const char *key, const char *value)
{
	if (value)
		cJSON_AddStringToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
}

static int project_list(void)
{
	tm_strv ids = TM_STRV_INIT;
	cJSON *doc = NULL, *arr = NULL;
	char *current;
	size_t i, width = 2;

	list_projects(&ids);
	current = current_project();
	if (as_json) {
		doc = cJSON_CreateObject();
		add_string_or_null(doc, "activeProjectId", current);
		arr = cJSON_AddArrayToObject(doc, "projects");
	}
	for (i = 0; i < ids.n; i++)
		if (strlen(ids.items[i]) > width)
			width = strlen(ids.items[i]);
	for (i = 0; i < ids.n; i++) {
		const char *id = ids.items[i];
		bool active = current && !strcmp(current, id);
		tm_project *p = NULL;
		const char *title;

		if (tm_store_load_project(&p, cli.store, id) < 0) {
			warning("skipping %s", tm_error_last());
			continue;
		}
		title = tm_project_get(p, "title");
		if (as_json) {
			cJSON *o = cJSON_CreateObject();

			/* The id is the file name's, as for threads. */
			cJSON_AddStringToObject(o, "id", id);
			add_string_or_null(o, "title", title);
			add_string_or_null(o, "systemContext",
					   tm_project_get(p, "systemContext"));
			add_string_or_null(o, "mode",
					   tm_project_get(p, "mode"));
			add_string_or_null(o, "rootThreadId",
					   tm_project_get(p, "rootThreadId"));
			cJSON_AddBoolToObject(o, "active", active);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("%s%s%s%-*s  %s\n", active ? cli_c("green") : "",
			       active ? "* " : "  ",
			       active ? cli_c("reset") : "", (int)width, id,
			       cli_safe(title));
		}
		tm_project_free(p);
	}
	if (as_json)
		cli_print_json(doc);
	free(current);
	tm_strv_clear(&ids);
	return 0;
}

static int project_new(int n, const char **args)
{
	tm_buf title = TM_BUF_INIT;
	char *id, *c;
	int i;

	for (i = 0; i < n; i++)
		tm_buf_printf(&title, "%s%s", i ? " " : "", args[i]);
	/* Newlines in titles become spaces (DESIGN.md section 2). */
	for (c = title.ptr; c && *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	if (tm_store_create_project(&id, cli.store, tm_buf_cstr(&title), mode) <
	    0)
		die_lib();
	printf("%s\n", id);
	note("Created project '%s' (%s); switch to it with 'git threadmind "
	     "project use %s'",
	     id, tm_buf_cstr(&title), id);
	free(id);
	tm_buf_release(&title);
	return 0;
}

static int project_use(const char *arg)
{
	tm_strv ids = TM_STRV_INIT;
	tm_project *p = NULL;
	char *id = NULL, *thread = NULL;

	list_projects(&ids);
	if (tm_id_validate(arg, "project") < 0 ||
	    tm_id_resolve(&id, arg, &ids, "project") < 0 ||
	    tm_store_load_project(&p, cli.store, id) < 0)
		die_lib();
	if (tm_ops_use_project(&thread, cli.store, id) < 0)
		die_lib();
	note("Switched to project '%s' (%s), thread '%s'", id,
	     tm_project_get(p, "title") ? tm_project_get(p, "title") : "",
	     thread);
	tm_project_free(p);
	free(thread);
	free(id);
	tm_strv_clear(&ids);
	return 0;
}

static int project_rename(const char *from, const char *to)
{
	if (tm_ops_project_rename(cli.store, from, to) < 0)
		die_lib();
	note("Renamed project '%s' to '%s'; commit .threadmind/", from, to);
	return 0;
}

static int project_rm(const char *id)
{
	if (tm_ops_project_remove(cli.store, id, force) < 0)
		die_lib();
	note("Removed project '%s' and its threads", id);
	return 0;
}

/* project set key=value...: the current project (or --project). */
static int project_set(int n, const char **args)
{
	char *project = NULL;
	int i;

	for (i = 0; i < n; i++)
		if (!strchr(args[i], '=') || args[i][0] == '=')
			usage_msg(project_usage, project_opts,
				  "'%s' is not <key>=<value>", args[i]);
	if (tm_store_current_project(&project, cli.store, global_opts.project) <
	    0)
		die_lib();
	for (i = 0; i < n; i++) {
		const char *eq = strchr(args[i], '=');
		char *key = tm_xstrndup(args[i], (size_t)(eq - args[i]));
		bool changed = false;

		if (tm_ops_project_set_field(&changed, cli.store, project, key,
					     eq + 1) < 0)
			die_lib();
		note("%s: %s %s", project, key,
		     changed ? "set" : "unchanged (same value)");
		free(key);
	}
	free(project);
	return 0;
}

int cmd_project(int argc, const char **argv)
{
	const char *sub;
	int n = parse_options(argc, argv, project_opts, project_usage);

	sub = n ? argv[0] : "list";
	if (strcmp(sub, "list") && strcmp(sub, "new") && strcmp(sub, "use") &&
	    strcmp(sub, "rename") && strcmp(sub, "rm") && strcmp(sub, "set"))
		usage_msg(project_usage, project_opts,
			  "unknown project command '%s'", sub);
	if (force && strcmp(sub, "rm"))
		usage_msg(project_usage, project_opts,
			  "--force is for 'project rm'");
	if (!strcmp(sub, "rename") && n != 3)
		usage_msg(project_usage, project_opts,
			  "project rename takes <old> and <new>");
	if (!strcmp(sub, "rm") && n != 2)
		usage_msg(project_usage, project_opts,
			  "project rm takes one project");
	if (!strcmp(sub, "set") && n < 2)
		usage_msg(project_usage, project_opts,
			  "project set needs <key>=<value>");
	if (as_json && strcmp(sub, "list"))
		usage_msg(project_usage, project_opts,
			  "--json is for 'project list'");
	if (mode && strcmp(sub, "new"))
		usage_msg(project_usage, project_opts,
			  "--mode is for 'project new'");
	if (!strcmp(sub, "list") && n > 1)
		usage_msg(project_usage, project_opts,
			  "project list takes no arguments");
	if (!strcmp(sub, "new") && n < 2)
		usage_msg(project_usage, project_opts,
			  "project new needs a title");
	if (mode && strcmp(mode, "solo") && strcmp(mode, "team"))
		usage_msg(project_usage, project_opts,
			  "--mode must be 'solo' or 'team', not '%s'", mode);
	if (!strcmp(sub, "use") && n != 2)
		usage_msg(project_usage, project_opts,
			  "project use takes one project");
	/* No current project needed: these commands choose one. */
	cli_open_flags(CLI_OPEN_NO_PROJECT);
	if (!strcmp(sub, "list"))
		return project_list();
	if (!strcmp(sub, "new"))
		return project_new(n - 1, argv + 1);
	if (!strcmp(sub, "rename"))
		return project_rename(argv[1], argv[2]);
	if (!strcmp(sub, "rm"))
		return project_rm(argv[1]);
	if (!strcmp(sub, "set"))
		return project_set(n - 1, argv + 1);
	return project_use(argv[1]);
}
