/* git threadmind switch: make a thread the active one (DESIGN.md §3). */
#include "builtin.h"
#include "cli.h"

#include <stdlib.h>

static const char *const switch_usage[] = {
	"git threadmind switch <thread>",
	NULL,
};

int cmd_switch(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_THREADS_(), OPT_END_()};
	tm_thread *t;
	char *id;

	if (parse_options(argc, argv, opts, switch_usage) != 1)
		usage_msg(switch_usage, opts, "switch takes one thread");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	t = cli_load_thread(id);
	if (tm_store_set_active(cli.store, cli.project, id) < 0)
		die_lib();
	note("Switched to thread '%s' (%s)", id, t->title ? t->title : "");
	tm_thread_free(t);
	free(id);
	return 0;
}
