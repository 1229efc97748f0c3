/*
 * git threadmind touch: mark threads' summaries as reviewed at HEAD (the
 * active thread by default; --stale: every stale thread).
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/ops.h"

#include <stdlib.h>

static const char *const touch_usage[] = {
	"git threadmind touch [<thread>...]",
	"git threadmind touch --stale",
	NULL,
};

int cmd_touch(int argc, const char **argv)
{
	bool stale = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "stale", &stale,
			  "re-anchor every stale thread at HEAD"),
		OPT_GLOBALS,
		OPT_THREADS_(),
		OPT_END_(),
	};
	tm_strv ids = TM_STRV_INIT;
	const char *head;
	int i, n = parse_options(argc, argv, opts, touch_usage);

	if (stale && n)
		usage_msg(touch_usage, opts,
			  "--stale takes no threads: it touches every stale "
			  "one");
	cli_open();
	if (stale) {
		if (tm_ops_touch_stale(&ids, &head, cli.store, cli.project,
				       cli_warn_skipping, NULL) < 0)
			die_lib();
		if (!ids.n)
			note("No stale threads: nothing to touch");
	} else {
		if (!n)
			tm_strv_push_owned(&ids, cli_thread_arg(0, argv));
		for (i = 0; i < n; i++) {
			char *id = cli_resolve_thread(argv[i]);

			if (tm_strv_contains(&ids, id))
				free(id);
			else
				tm_strv_push_owned(&ids, id);
		}
		if (tm_ops_touch_threads(&head, cli.store, cli.project,
					 (const char *const *)ids.items,
					 ids.n) < 0)
			die_lib();
	}
	for (i = 0; i < (int)ids.n; i++)
		note("Marked '%s' as reviewed at %.7s", ids.items[i], head);
	tm_strv_clear(&ids);
	return 0;
}
