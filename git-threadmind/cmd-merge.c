/*
 * git threadmind merge: integrate a child into its parent.  The child's
 * `## ` sections go under the parent's same-named ones; the child becomes
 * done, with mergedInto naming the parent (tm_ops_integrate_thread).  With
 * --again, a merged child's lines that its parent lacks (a git merge
 * brought them after the merge) are added to the parent
 * (tm_ops_integrate_again).
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/ops.h"

#include <stdlib.h>

static const char *const merge_usage[] = {
	"git threadmind merge [--again] <thread>",
	NULL,
};

int cmd_merge(int argc, const char **argv)
{
	bool again = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "again", &again,
			  "add to the parent what a merged thread gained "
			  "since its merge"),
		OPT_GLOBALS,
		OPT_THREADS_(),
		OPT_END_(),
	};
	tm_integrate_result r;
	char *id;

	if (parse_options(argc, argv, opts, merge_usage) != 1)
		usage_msg(merge_usage, opts, "merge takes one thread");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	if (again) {
		if (tm_ops_integrate_again(&r, cli.store, cli.project, id) < 0)
			die_lib();
		if (r.changed)
			note("Merged %zu line%s of '%s' into '%s' again",
			     r.added, r.added == 1 ? "" : "s", id, r.parent);
		else
			note("'%s' has nothing that '%s' lacks", id, r.parent);
	} else {
		if (tm_ops_integrate_thread(&r, cli.store, cli.project, id) < 0)
			die_lib();
		note("Merged thread '%s' into '%s'%s", id, r.parent,
		     r.changed ? "" : " (its summary added nothing)");
	}
	tm_integrate_result_clear(&r);
	free(id);
	return 0;
}
