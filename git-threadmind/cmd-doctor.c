/* git threadmind doctor: check the store, and repair what is safe. */
#include "builtin.h"
#include "cli.h"

#include "threadmind/doctor.h"
#include "threadmind/install.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const doctor_usage[] = {
	"git threadmind doctor [--fix] [--json]",
	NULL,
};

static void print_problems(const tm_doctor_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		const tm_doctor_problem *p = &r->items[i];

		printf("%s%s%s: %s\n", cli_c(p->fixable ? "yellow" : "red"),
		       p->kind, cli_c("reset"), cli_safe(p->message));
	}
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *strv_json(const tm_strv *v)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < v->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v->items[i]));
	return a;
}

/* The document of docs/json.md ("doctor --json"). */
static void print_json(const tm_doctor_report *r, const tm_strv *done,
		       const tm_strv *failed)
{
	cJSON *doc = cJSON_CreateObject(), *problems = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < r->n; i++) {
		const tm_doctor_problem *p = &r->items[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToObject(o, "kind", cJSON_CreateString(p->kind));
		cJSON_AddItemToObject(o, "file", str_or_null(p->file));
		cJSON_AddItemToObject(o, "project", str_or_null(p->project));
		cJSON_AddItemToObject(o, "thread", str_or_null(p->thread));
		cJSON_AddItemToObject(o, "message",
				      cJSON_CreateString(p->message));
		cJSON_AddItemToObject(o, "fixable",
				      cJSON_CreateBool(p->fixable));
		cJSON_AddItemToArray(problems, o);
	}
	cJSON_AddItemToObject(doc, "problems", problems);
	cJSON_AddItemToObject(doc, "fixed", strv_json(done));
	cJSON_AddItemToObject(doc, "failed", strv_json(failed));
	cli_print_json(doc);
}

/* Which hook manager runs the hooks, when one does (informational). */
static void print_manager(void)
{
	tm_install_manager_info m;
	struct tm_git *g = cli.store ? tm_store_git(cli.store) : NULL;

	if (!g || tm_install_manager_detect(&m, g, getenv("HOME")) < 0) {
		tm_error_clear();
		return;
	}
	if (m.kind && m.file)
		inform("the hooks are run by %s ('%s')",
		       tm_install_manager_name(m.kind), cli_safe(m.file));
	tm_install_manager_info_clear(&m);
}

static void check(tm_doctor_report *r, const tm_doctor_options *o)
{
	if (tm_doctor_check(r, cli.store, o) < 0)
		die_lib();
}

int cmd_doctor(int argc, const char **argv)
{
	bool fix = false, as_json = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "fix", &fix, "repair what is safe to repair"),
		OPT_BOOL_(0, "json", &as_json, "print JSON (docs/json.md)"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	tm_doctor_options o = TM_DOCTOR_OPTIONS_INIT;
	tm_doctor_report r = TM_DOCTOR_REPORT_INIT;
	tm_strv done = TM_STRV_INIT, failed = TM_STRV_INIT;
	size_t i, fixable;
	int rc;

	if (parse_options(argc, argv, opts, doctor_usage) != 0)
		usage_msg(doctor_usage, opts, "doctor takes no arguments");
	/* Check the store as it is: no upgrade, a broken config.json is
	 * a finding, not a reason to stop. */
	cli_open_flags(CLI_OPEN_NO_UPGRADE | CLI_OPEN_NO_PROJECT);
	o.project = global_opts.project;
	check(&r, &o);
	if (fix && tm_doctor_count_fixable(&r)) {
		if (tm_doctor_fix(&done, &failed, cli.store, &r, &o) < 0)
			die_lib();
		for (i = 0; i < done.n && !as_json; i++)
			inform("%sfixed%s: %s", cli_c("green"), cli_c("reset"),
			       cli_safe(done.items[i]));
		for (i = 0; i < failed.n && !as_json; i++)
			warning("could not repair: %s", failed.items[i]);
		tm_doctor_report_clear(&r);
		check(&r, &o);
	}
	rc = r.n ? EXIT_NEGATIVE : 0;
	if (as_json) {
		print_json(&r, &done, &failed);
		goto done;
	}
	print_problems(&r);
	print_manager();
	fixable = tm_doctor_count_fixable(&r);
	/* the findings are the output; the count is informational (-q) */
	if (!r.n)
		inform("%s", done.n ? "no problems left" : "no problems found");
	else if (fixable && !fix)
		inform("%zu problem%s found; %zu can be repaired with 'git "
		       "threadmind doctor --fix'",
		       r.n, r.n == 1 ? "" : "s", fixable);
	else
		inform("%zu problem%s %s", r.n, r.n == 1 ? "" : "s",
		       fix ? "left" : "found");
done:
	tm_doctor_report_clear(&r);
	tm_strv_clear(&done);
	tm_strv_clear(&failed);
	return rc;
}
