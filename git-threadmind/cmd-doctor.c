/* git threadmind doctor: check the store, and repair what is safe. */
#include "builtin.h"
#include "cli.h"

#include "lib/doctor.h"

#include <string.h>

static const char *const doctor_usage[] = {
	"git threadmind doctor [--fix]",
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

static void check(tm_doctor_report *r, const tm_doctor_options *o)
{
	if (tm_doctor_check(r, cli.store, o) < 0)
		die_lib();
}

int cmd_doctor(int argc, const char **argv)
{
	bool fix = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "fix", &fix, "repair what is safe to repair"),
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
		for (i = 0; i < done.n; i++)
			printf("%sfixed%s: %s\n", cli_c("green"),
			       cli_c("reset"), cli_safe(done.items[i]));
		for (i = 0; i < failed.n; i++)
			warning("could not repair: %s", failed.items[i]);
		tm_doctor_report_clear(&r);
		check(&r, &o);
	}
	print_problems(&r);
	fixable = tm_doctor_count_fixable(&r);
	if (!r.n)
		printf("%s\n",
		       done.n ? "no problems left" : "no problems found");
	else if (fixable && !fix)
		printf("%zu problem%s found; %zu can be repaired with 'git "
		       "threadmind doctor --fix'\n",
		       r.n, r.n == 1 ? "" : "s", fixable);
	else
		printf("%zu problem%s %s\n", r.n, r.n == 1 ? "" : "s",
		       fix ? "left" : "found");
	rc = r.n ? EXIT_NEGATIVE : 0;
	tm_doctor_report_clear(&r);
	tm_strv_clear(&done);
	tm_strv_clear(&failed);
	return rc;
}
