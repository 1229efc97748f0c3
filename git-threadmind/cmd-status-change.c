/*
 * git threadmind done / abandon / reopen: set or clear a thread's status.
 * The root thread `main` holds the project's tree: it cannot be finished.
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/ops.h"

#include <stdlib.h>

static const char *const done_usage[] = {
	"git threadmind done [<thread>]",
	NULL,
};

static const char *const abandon_usage[] = {
	"git threadmind abandon [<thread>]",
	NULL,
};

static const char *const reopen_usage[] = {
	"git threadmind reopen [<thread>]",
	NULL,
};

/* The status as a word for messages. */
static const char *status_word(const char *status)
{
	return status ? status : "active";
}

/*
 * Set the status of the thread argv[0] (default: the active one) to
 * `status` (NULL: reopen, which
 * also clears mergedInto).  Nothing is written when the thread already has
 * that status.
 */
static int change_status(int argc, const char **argv, const char *const *usage,
			 const char *name, const char *status)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_THREADS_(), OPT_END_()};
	tm_status_result r;
	char *id;
	int n = parse_options(argc, argv, opts, usage);

	if (n > 1)
		usage_msg(usage, opts, "%s takes one thread", name);
	cli_open();
	id = cli_thread_arg(n, argv);
	if (tm_ops_set_status(&r, cli.store, cli.project, id, status) < 0)
		die_lib();
	if (!r.changed) {
		note("Thread '%s' is already %s", id, status_word(status));
	} else {
		if (r.was_merged)
			note("Thread '%s' was merged into '%s': merging it "
			     "again appends its summary again",
			     id, r.was_merged);
		note("Thread '%s' is now %s", id, status_word(status));
	}
	tm_status_result_clear(&r);
	free(id);
	return 0;
}

int cmd_done(int argc, const char **argv)
{
	return change_status(argc, argv, done_usage, "done", TM_STATUS_DONE);
}

int cmd_abandon(int argc, const char **argv)
{
	return change_status(argc, argv, abandon_usage, "abandon",
			     TM_STATUS_ABANDONED);
}

int cmd_reopen(int argc, const char **argv)
{
	return change_status(argc, argv, reopen_usage, "reopen", NULL);
}
