/* git threadmind touch: mark a thread's summary as reviewed at HEAD. */
#include "builtin.h"
#include "cli.h"

#include <stdlib.h>

static const char *const touch_usage[] = {
        "git threadmind touch <thread>",
        NULL,
};

int cmd_touch(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_END_()};
	tm_thread *t = NULL;
	const char *head;
	char *id;

	if (parse_options(argc, argv, opts, touch_usage) != 1)
		usage_msg(touch_usage, opts, "touch takes one thread");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	if (!tm_store_git(cli.store))
		die("cannot mark '%s' as reviewed at HEAD: not in a git "
		    "repository",
		    id);
	head = tm_store_head(cli.store);
	if (!head)
		die("cannot mark '%s' as reviewed at HEAD: HEAD has no commit "
		    "yet (commit first)",
		    id);

	cli_lock();
	if (tm_store_load_thread(&t, cli.store, cli.project, id) < 0)
		die_lib();
	cli_touch_thread(t, true);
	if (tm_store_save_thread(cli.store, cli.project, t) < 0)
		die_lib();
	cli_unlock();

	note("Marked '%s' as reviewed at %.7s", id, head);
	tm_thread_free(t);
	free(id);
	return 0;
}
