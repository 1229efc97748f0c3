/*
 * git threadmind merge: integrate a child into its parent.  The child's
 * `## ` sections go under the parent's same-named ones (lib/section.h); the
 * child becomes done, with mergedInto naming the parent.
 */
#include "builtin.h"
#include "cli.h"

#include "lib/section.h"

#include <stdlib.h>
#include <string.h>

static const char *const merge_usage[] = {
        "git threadmind merge <thread>",
        NULL,
};

/* Refuse what cannot be merged: a root, a finished or merged thread, a
 * thread whose parent is itself, invalid or missing. */
static void check_mergeable(const tm_thread *t)
{
	const char *id = t->id, *p = t->parent_id;

	if (!p)
		die("thread '%s' is a root: it has no parent to merge into",
		    id);
	if (t->merged_into)
		die("thread '%s' was already merged into '%s' (reopen it to "
		    "merge it again)",
		    id, t->merged_into);
	if (tm_thread_is_finished(t))
		die("thread '%s' is %s: reopen it first to merge it", id,
		    t->status);
	if (!strcmp(p, id))
		die("thread '%s' is its own parent: give it another parent "
		    "with 'git threadmind move' first",
		    id);
	if (tm_id_validate(p, "thread") < 0)
		die("thread '%s' has an invalid parentId: %s", id,
		    tm_error_last());
	if (!tm_store_thread_exists(cli.store, cli.project, p))
		die("the parent of thread '%s', '%s', does not exist: give it "
		    "a parent with 'git threadmind move' first",
		    id, p);
}

int cmd_merge(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_END_()};
	tm_thread *child, *parent;
	char *id, *from, *into;
	tm_buf merged = TM_BUF_INIT;
	bool changed;

	if (parse_options(argc, argv, opts, merge_usage) != 1)
		usage_msg(merge_usage, opts, "merge takes one thread");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	/* One lock around both writes: nobody sees half a merge. */
	cli_lock();
	child = cli_load_thread(id);
	check_mergeable(child);
	parent = cli_load_thread(child->parent_id);
	from = tm_thread_summary(child);
	into = tm_thread_summary(parent);
	tm_section_merge(&merged, into, strlen(into), from, strlen(from));
	changed = strcmp(tm_buf_cstr(&merged), into) != 0;
	/* The parent first: if the child's write failed, the child would
	 * still be open and nothing would claim a merge that did not land. */
	if (changed) {
		tm_thread_set_summary(parent, tm_buf_cstr(&merged),
		                      merged.size);
		cli_touch_thread(parent, true);
		cli_save_thread(parent);
	}
	tm_thread_set(&child->status, TM_STATUS_DONE);
	tm_thread_set(&child->merged_into, parent->id);
	cli_touch_thread(child, false);
	cli_save_thread(child);
	cli_unlock();
	note("Merged thread '%s' into '%s'%s", id, parent->id,
	     changed ? "" : " (its summary added nothing)");
	tm_buf_release(&merged);
	free(from);
	free(into);
	tm_thread_free(parent);
	tm_thread_free(child);
	free(id);
	return 0;
}
