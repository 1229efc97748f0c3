/* git threadmind move: give a thread a new parent (never making a cycle). */
#include "builtin.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char *const move_usage[] = {
        "git threadmind move <thread> <new-parent>",
        NULL,
};

/* Would the move make a cycle?  Decided on the files as they are now,
 * under the lock (unreadable files are left out with a warning). */
static bool would_cycle(const char *id, const char *parent)
{
	tm_thread_list list;
	tm_tree *tree = NULL;
	bool cycle;

	cli_load_all(&list);
	if (tm_tree_build(&tree, (const tm_thread *const *)list.threads,
	                  list.n) < 0)
		die_lib();
	cycle = tm_tree_would_cycle(tree, id, parent);
	tm_tree_free(tree);
	tm_thread_list_clear(&list);
	return cycle;
}

int cmd_move(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_END_()};
	char *id, *parent, *old;
	tm_thread *t;

	if (parse_options(argc, argv, opts, move_usage) != 2)
		usage_msg(move_usage, opts,
		          "move takes a thread and its new parent");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	parent = cli_resolve_thread(argv[1]);
	if (!strcmp(id, TM_ROOT_THREAD_ID))
		die("cannot move '%s': it is the project's root thread",
		    TM_ROOT_THREAD_ID);
	if (!strcmp(id, parent))
		die("cannot move '%s' under itself", id);
	cli_lock();
	t = cli_load_thread(id);
	if (would_cycle(id, parent))
		die("cannot move '%s' under '%s': '%s' is a descendant of "
		    "'%s', that would make a cycle (move '%s' elsewhere first)",
		    id, parent, parent, id, parent);
	if (t->parent_id && !strcmp(t->parent_id, parent)) {
		cli_unlock();
		note("Thread '%s' is already under '%s'", id, parent);
		goto out;
	}
	old = tm_xstrdup_or_null(t->parent_id);
	tm_thread_set(&t->parent_id, parent);
	cli_touch_thread(t, false);
	cli_save_thread(t);
	cli_unlock();
	note("Moved thread '%s' under '%s' (was %s%s%s)", id, parent,
	     old ? "under '" : "a root", old ? old : "", old ? "'" : "");
	free(old);
out:
	tm_thread_free(t);
	free(id);
	free(parent);
	return 0;
}
