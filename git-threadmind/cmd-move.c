/* git threadmind move: give a thread a new parent (never making a cycle). */
#include "builtin.h"
#include "cli.h"

#include "threadmind/ops.h"

#include <stdlib.h>

static const char *const move_usage[] = {
	"git threadmind move <thread> <new-parent>",
	NULL,
};

int cmd_move(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_THREADS_(), OPT_END_()};
	tm_move_options o = TM_MOVE_OPTIONS_INIT;
	tm_move_result r;
	const char *old;
	char *id, *parent;

	if (parse_options(argc, argv, opts, move_usage) != 2)
		usage_msg(move_usage, opts,
			  "move takes a thread and its new parent");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	parent = cli_resolve_thread(argv[1]);
	o.warn = cli_warn_skipping;
	if (tm_ops_move_thread(&r, cli.store, cli.project, id, parent, &o) < 0)
		die_lib();
	old = r.old_parent;
	if (!r.changed)
		note("Thread '%s' is already under '%s'", id, parent);
	else
		note("Moved thread '%s' under '%s' (was %s%s%s)", id, parent,
		     old ? "under '" : "a root", old ? old : "",
		     old ? "'" : "");
	tm_move_result_clear(&r);
	free(id);
	free(parent);
	return 0;
}
