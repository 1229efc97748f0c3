/* git threadmind touch: mark a thread's summary as reviewed at HEAD. */
#include "builtin.h"
#include "cli.h"

#include "lib/ops.h"

#include <stdlib.h>

static const char *const touch_usage[] = {
	"git threadmind touch <thread>",
	NULL,
};

int cmd_touch(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_END_()};
	const char *head;
	char *id;

	if (parse_options(argc, argv, opts, touch_usage) != 1)
		usage_msg(touch_usage, opts, "touch takes one thread");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	if (tm_store_touch(&head, cli.store, cli.project, id) < 0)
		die_lib();

	note("Marked '%s' as reviewed at %.7s", id, head);
	free(id);
	return 0;
}
