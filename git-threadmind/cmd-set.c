/* git threadmind set: change a thread's title, paths or branch. */
#include "builtin.h"
#include "cli.h"

#include "lib/ops.h"

#include <stdlib.h>

static const char *const set_usage[] = {
	"git threadmind set <thread> [title=<title>] [paths=<path>,...] "
	"[branch=<branch>]",
	NULL,
};

int cmd_set(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_END_()};
	tm_assign *assigns;
	bool changed;
	char *id;
	int i, n;

	n = parse_options(argc, argv, opts, set_usage);
	if (n < 2)
		usage_msg(set_usage, opts,
			  "set takes a thread and at least one "
			  "<field>=<value>");
	assigns = tm_xcalloc((size_t)n - 1, sizeof(*assigns));
	for (i = 1; i < n; i++)
		if (tm_assign_parse(&assigns[i - 1], argv[i]) < 0)
			usage_msg(set_usage, opts, "%s", tm_error_last());
	cli_open();
	id = cli_resolve_thread(argv[0]);

	if (tm_store_set_fields(&changed, cli.store, cli.project, id, assigns,
				(size_t)n - 1) < 0)
		die_lib();

	if (changed)
		note("Updated thread '%s'", id);
	else
		note("Thread '%s' already has these values; nothing written",
		     id);
	free(assigns);
	free(id);
	return 0;
}
