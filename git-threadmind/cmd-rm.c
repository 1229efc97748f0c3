/*
 * git threadmind rm: delete a thread.  Its children move up to its parent,
 * or with --recursive its whole subtree goes; config.json forgets the
 * deleted threads (tm_ops_remove_thread).
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/ops.h"

#include <stdlib.h>

static const char *const rm_usage[] = {
	"git threadmind rm <thread> [--recursive]",
	NULL,
};

int cmd_rm(int argc, const char **argv)
{
	bool recursive = false;
	const struct option opts[] = {
		OPT_BOOL_('r', "recursive", &recursive,
			  "remove the whole subtree (else children move up)"),
		OPT_GLOBALS,
		OPT_THREADS_(),
		OPT_END_(),
	};
	tm_remove_options o = TM_REMOVE_OPTIONS_INIT;
	tm_remove_result r;
	const char *to;
	char *id;

	if (parse_options(argc, argv, opts, rm_usage) != 1)
		usage_msg(rm_usage, opts, "rm takes one thread");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	o.recursive = recursive;
	o.warn = cli_warn_skipping;
	if (tm_ops_remove_thread(&r, cli.store, cli.project, id, &o) < 0)
		die_lib();
	to = r.new_parent;
	if (recursive)
		note("Removed %zu thread%s: '%s' and its subtree", r.removed.n,
		     r.removed.n == 1 ? "" : "s", id);
	else if (r.moved)
		note("Removed thread '%s'; %zu child%s moved to %s%s%s", id,
		     r.moved, r.moved == 1 ? "" : "ren", to ? "'" : "the top",
		     to ? to : "", to ? "'" : "");
	else
		note("Removed thread '%s'", id);
	tm_remove_result_clear(&r);
	free(id);
	return 0;
}
