/*
 * git threadmind rm: delete a thread.  Its children move up to its parent,
 * or with --recursive its whole subtree goes; config.json forgets the
 * deleted threads.
 */
#include "builtin.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char *const rm_usage[] = {
        "git threadmind rm <thread> [--recursive]",
        NULL,
};

/* The node of `id` in the tree, or die (its file could not be read). */
static size_t find_node(const tm_tree *tree, const char *id)
{
	long i = tm_tree_find(tree, id);
	tm_thread *t;

	if (i >= 0)
		return (size_t)i;
	t = cli_load_thread(id); /* dies with the reason */
	tm_thread_free(t);
	die("thread '%s' could not be read", id);
}

struct doomed {
	size_t root, *nodes, n;
};

static int collect(const tm_tree *tree, size_t node, void *payload)
{
	struct doomed *d = payload;

	if (node == d->root || tm_tree_is_ancestor(tree, d->root, node))
		d->nodes[d->n++] = node;
	return 0;
}

/*
 * The nodes to delete in pre-order: `root`, and with `recursive` its
 * descendants in the tree.  Dies when `main` is among them.
 */
static void doomed_nodes(struct doomed *d, const tm_tree *tree, size_t root,
                         bool recursive)
{
	size_t k;

	d->root = root;
	d->nodes = tm_xcalloc(tree->n, sizeof(size_t));
	d->n = 0;
	if (!recursive) {
		d->nodes[d->n++] = root;
		return;
	}
	tm_tree_walk(tree, collect, d);
	for (k = 0; k < d->n; k++)
		if (!strcmp(tree->nodes[d->nodes[k]].thread->id,
		            TM_ROOT_THREAD_ID))
			die("cannot remove '%s' recursively: the root thread "
			    "'%s' is below it (fix its parentId first)",
			    tree->nodes[root].thread->id, TM_ROOT_THREAD_ID);
}

/* Give every child (by its file's parentId) of `id` the parent `to`. */
static size_t reparent_children(tm_thread_list *list, const char *id,
                                const char *to)
{
	size_t i, moved = 0;

	for (i = 0; i < list->n; i++) {
		tm_thread *c = list->threads[i];

		if (!c->parent_id || strcmp(c->parent_id, id) ||
		    !strcmp(c->id, id))
			continue;
		/* In a two-thread cycle the child would become its own
		 * parent: make it a root instead. */
		tm_thread_set(&c->parent_id,
		              to && strcmp(to, c->id) ? to : NULL);
		cli_touch_thread(c, false);
		cli_save_thread(c);
		moved++;
	}
	return moved;
}

/* config.json: forget the deleted threads (branchThreads and the active
 * thread of this project).  Written only when something changed. */
static void forget_threads(tm_config *cfg, const tm_strv *ids)
{
	const char *active_project =
	        tm_config_get_string(cfg, "activeProjectId");
	bool changed = false;
	size_t i;

	for (i = 0; i < ids->n; i++) {
		const char *active =
		        tm_config_get_string(cfg, "activeThreadId");

		if (tm_config_forget_thread(cfg, cli.project, ids->items[i]))
			changed = true;
		if (active && !strcmp(active, ids->items[i]) &&
		    (!active_project || !strcmp(active_project, cli.project))) {
			tm_config_set_string(cfg, "activeThreadId", NULL);
			changed = true;
		}
	}
	if (changed && tm_store_save_config(cli.store, cfg) < 0)
		die_lib();
}

int cmd_rm(int argc, const char **argv)
{
	bool recursive = false;
	const struct option opts[] = {
	        OPT_BOOL_('r', "recursive", &recursive,
	                  "remove the whole subtree (else children move up)"),
	        OPT_GLOBALS,
	        OPT_END_(),
	};
	tm_thread_list list;
	tm_tree *tree = NULL;
	tm_config *cfg = NULL;
	tm_strv ids = TM_STRV_INIT;
	struct doomed doomed;
	size_t node, moved = 0, k;
	char *id, *to;

	if (parse_options(argc, argv, opts, rm_usage) != 1)
		usage_msg(rm_usage, opts, "rm takes one thread");
	cli_open();
	id = cli_resolve_thread(argv[0]);
	if (!strcmp(id, TM_ROOT_THREAD_ID))
		die("cannot remove '%s': it is the project's root thread", id);
	cli_lock();
	/* Everything is read, and config.json checked, before any change. */
	if (tm_store_load_config(&cfg, cli.store) < 0)
		die_lib();
	cli_load_all(&list);
	if (tm_tree_build(&tree, (const tm_thread *const *)list.threads,
	                  list.n) < 0)
		die_lib();
	node = find_node(tree, id);
	doomed_nodes(&doomed, tree, node, recursive);
	to = tm_xstrdup_or_null(tree->nodes[node].thread->parent_id);
	if (!recursive)
		moved = reparent_children(&list, id, to);
	/* Deepest first: an interrupted rm never leaves orphans behind. */
	for (k = doomed.n; k-- > 0;) {
		const char *gone = tree->nodes[doomed.nodes[k]].thread->id;

		if (tm_store_delete_thread(cli.store, cli.project, gone) < 0)
			die_lib();
		tm_strv_push(&ids, gone);
	}
	forget_threads(cfg, &ids);
	cli_unlock();
	if (recursive)
		note("Removed %zu thread%s: '%s' and its subtree", doomed.n,
		     doomed.n == 1 ? "" : "s", id);
	else if (moved)
		note("Removed thread '%s'; %zu child%s moved to %s%s%s", id,
		     moved, moved == 1 ? "" : "ren", to ? "'" : "the top",
		     to ? to : "", to ? "'" : "");
	else
		note("Removed thread '%s'", id);
	tm_strv_clear(&ids);
	tm_config_free(cfg);
	free(doomed.nodes);
	free(to);
	tm_tree_free(tree);
	tm_thread_list_clear(&list);
	free(id);
	return 0;
}
