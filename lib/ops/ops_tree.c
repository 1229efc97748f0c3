/*
 * The operations of ops.h that work on the tree of a project: rm (children
 * moved up or the subtree deleted), move (no cycle) and rename (children
 * re-pointed); merge is in ops_integrate.c.
 */
#include "ops.h"
#include "ops_internal.h"

#include "error.h"
#include "frontmatter.h"
#include "slug.h"
#include "tree.h"

#include <stdlib.h>
#include <string.h>

/* Every readable thread of `project`, the others told to `warn`. */
static int load_all(tm_thread_list *out, tm_store *s, const char *project,
		    tm_store_warn_cb warn, void *payload)
{
	size_t i;
	int error = tm_store_load_all(out, s, project);

	if (error < 0)
		return error;
	for (i = 0; warn && i < out->errors.n; i++)
		warn(out->errors.items[i], payload);
	return 0;
}

/* Touch `t` and write it. */
/* ---- rm ---- */

void tm_remove_result_clear(tm_remove_result *r)
{
	tm_strv_clear(&r->removed);
	free(r->new_parent);
	memset(r, 0, sizeof(*r));
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

/* The nodes to delete in pre-order: `root`, and with `recursive` its
 * descendants in the tree.  TM_EINVALID when `main` is among them. */
static int doomed_nodes(struct doomed *d, const tm_tree *tree, size_t root,
			bool recursive)
{
	size_t k;

	d->root = root;
	d->nodes = tm_xcalloc(tree->n, sizeof(size_t));
	d->n = 0;
	if (!recursive) {
		d->nodes[d->n++] = root;
		return 0;
	}
	tm_tree_walk(tree, collect, d);
	for (k = 0; k < d->n; k++)
		if (!strcmp(tree->nodes[d->nodes[k]].thread->id,
			    TM_ROOT_THREAD_ID))
			return tm_error_set(
				TM_EINVALID,
				"cannot remove '%s' recursively: the "
				"root thread '%s' is below it (fix "
				"its parentId first)",
				tree->nodes[root].thread->id,
				TM_ROOT_THREAD_ID);
	return 0;
}

/* The node of `id`, or the reason its file could not be read. */
static int find_node(size_t *out, const tm_tree *tree, tm_store *s,
		     const char *project, const char *id)
{
	long i = tm_tree_find(tree, id);
	tm_thread *t = NULL;
	int error;

	if (i >= 0) {
		*out = (size_t)i;
		return 0;
	}
	error = tm_store_load_thread(&t, s, project, id);
	tm_thread_free(t);
	if (error < 0)
		return error;
	return tm_error_set(TM_ERROR, "thread '%s' could not be read", id);
}

/* Give every child (by its file's parentId) of `id` the parent `to`. */
static int reparent_children(size_t *moved, tm_store *s, const char *project,
			     tm_thread_list *list, const char *id,
			     const char *to)
{
	size_t i;
	int error;

	*moved = 0;
	for (i = 0; i < list->n; i++) {
		tm_thread *c = list->threads[i];

		if (!c->parent_id || strcmp(c->parent_id, id) ||
		    !strcmp(c->id, id))
			continue;
		/* In a two-thread cycle the child would become its own
		 * parent: make it a root instead. */
		tm_thread_set(&c->parent_id,
			      to && strcmp(to, c->id) ? to : NULL);
		if ((error = tm_store_lock_refresh(s)) < 0 ||
		    (error = tm_ops_touch_save(s, project, c, false)) < 0)
			return error;
		(*moved)++;
	}
	return 0;
}

/* config.json: forget the deleted threads (branchThreads and the active
 * thread of this project).  Written only when something changed. */
static int forget_threads(tm_store *s, tm_config *cfg, const char *project,
			  const tm_strv *ids)
{
	const char *active_project =
		tm_config_get_string(cfg, "activeProjectId");
	bool changed = false;
	size_t i;
	int error;

	for (i = 0; i < ids->n; i++) {
		const char *active =
			tm_config_get_string(cfg, "activeThreadId");

		if (tm_config_forget_thread(cfg, project, ids->items[i]))
			changed = true;
		if (active && !strcmp(active, ids->items[i]) &&
		    (!active_project || !strcmp(active_project, project))) {
			tm_config_set_string(cfg, "activeThreadId", NULL);
			changed = true;
		}
	}
	if (!changed)
		return 0;
	if ((error = tm_store_lock_refresh(s)) < 0)
		return error;
	return tm_store_save_config(s, cfg);
}

int tm_ops_remove_thread(tm_remove_result *out, tm_store *s,
			 const char *project, const char *id,
			 const tm_remove_options *opts)
{
	tm_remove_options defaults = TM_REMOVE_OPTIONS_INIT;
	tm_remove_result r = {TM_STRV_INIT, 0, NULL};
	tm_thread_list list = {NULL, 0, TM_STRV_INIT, TM_STRV_INIT,
			       TM_STRV_INIT};
	struct doomed doomed = {0, NULL, 0};
	tm_tree *tree = NULL;
	tm_config *cfg = NULL;
	size_t node = 0, k;
	int error;

	if (!opts)
		opts = &defaults;
	if ((error = tm_ops_check_ids(project, id)) < 0)
		return error;
	if (!strcmp(id, TM_ROOT_THREAD_ID))
		return tm_error_set(TM_EINVALID,
				    "cannot remove '%s': it is the project's "
				    "root thread",
				    id);
	if ((error = tm_store_lock(s)) < 0)
		return error;
	/* Everything is read, and config.json checked, before any change. */
	if ((error = tm_store_load_config(&cfg, s)) < 0 ||
	    (error = load_all(&list, s, project, opts->warn, opts->payload)) <
		    0 ||
	    (error = tm_tree_build(&tree,
				   (const tm_thread *const *)list.threads,
				   list.n)) < 0 ||
	    (error = find_node(&node, tree, s, project, id)) < 0 ||
	    (error = doomed_nodes(&doomed, tree, node, opts->recursive)) < 0)
		goto done;
	r.new_parent = tm_xstrdup_or_null(tree->nodes[node].thread->parent_id);
	if (!opts->recursive &&
	    (error = reparent_children(&r.moved, s, project, &list, id,
				       r.new_parent)) < 0)
		goto done;
	/* Deepest first: an interrupted rm never leaves orphans behind. */
	for (k = doomed.n; k-- > 0;) {
		const char *gone = tree->nodes[doomed.nodes[k]].thread->id;

		if ((error = tm_store_lock_refresh(s)) < 0 ||
		    (error = tm_store_delete_thread(s, project, gone)) < 0)
			goto done;
		tm_strv_push(&r.removed, gone);
	}
	error = forget_threads(s, cfg, project, &r.removed);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0)
		TM_MOVE(out, r);
	tm_remove_result_clear(&r);
	tm_config_free(cfg);
	free(doomed.nodes);
	tm_tree_free(tree);
	tm_thread_list_clear(&list);
	return error;
}

/* ---- move ---- */

void tm_move_result_clear(tm_move_result *r)
{
	free(r->old_parent);
	memset(r, 0, sizeof(*r));
}

/* Would the move make a cycle?  Decided on the files as they are now
 * (unreadable files are left out and told to `warn`). */
static int would_cycle(bool *out, tm_store *s, const char *project,
		       const char *id, const char *parent,
		       const tm_move_options *opts)
{
	tm_thread_list list;
	tm_tree *tree = NULL;
	int error = load_all(&list, s, project, opts->warn, opts->payload);

	if (error < 0)
		return error;
	error = tm_tree_build(&tree, (const tm_thread *const *)list.threads,
			      list.n);
	if (error == 0)
		*out = tm_tree_would_cycle(tree, id, parent);
	tm_tree_free(tree);
	tm_thread_list_clear(&list);
	return error;
}

int tm_ops_move_thread(tm_move_result *out, tm_store *s, const char *project,
		       const char *id, const char *parent,
		       const tm_move_options *opts)
{
	tm_move_options defaults = TM_MOVE_OPTIONS_INIT;
	tm_move_result r = {false, NULL};
	tm_thread *t = NULL;
	bool cycle = false;
	int error;

	if (!opts)
		opts = &defaults;
	if ((error = tm_ops_check_ids(project, id)) < 0 ||
	    (error = tm_id_validate(parent, "thread")) < 0)
		return error;
	if (!strcmp(id, TM_ROOT_THREAD_ID))
		return tm_error_set(
			TM_EINVALID,
			"cannot move '%s': it is the project's root "
			"thread",
			TM_ROOT_THREAD_ID);
	if (!strcmp(id, parent))
		return tm_error_set(TM_EINVALID,
				    "cannot move '%s' under itself", id);
	if ((error = tm_ops_lock_thread(&t, s, project, id)) < 0)
		return error;
	if ((error = would_cycle(&cycle, s, project, id, parent, opts)) < 0)
		goto done;
	if (cycle) {
		error = tm_error_set(TM_EINVALID,
				     "cannot move '%s' under '%s': '%s' is a "
				     "descendant of '%s', that would make a "
				     "cycle (move '%s' elsewhere first)",
				     id, parent, parent, id, parent);
		goto done;
	}
	r.old_parent = tm_xstrdup_or_null(t->parent_id);
	if (t->parent_id && !strcmp(t->parent_id, parent))
		goto done;
	r.changed = true;
	tm_thread_set(&t->parent_id, parent);
	error = tm_ops_touch_save(s, project, t, false);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0)
		TM_MOVE(out, r);
	tm_move_result_clear(&r);
	tm_thread_free(t);
	return error;
}

/* ---- rename ---- */

void tm_rename_result_clear(tm_rename_result *r)
{
	tm_strv_clear(&r->repointed);
	memset(r, 0, sizeof(*r));
}

static int check_rename(const char *project, const char *from, const char *to)
{
	int error;

	if ((error = tm_ops_check_ids(project, from)) < 0 ||
	    (error = tm_id_validate(to, "thread")) < 0)
		return error;
	if (!strcmp(from, TM_ROOT_THREAD_ID) || !strcmp(to, TM_ROOT_THREAD_ID))
		return tm_error_set(TM_EINVALID,
				    "cannot rename '%s' to '%s': '%s' is the "
				    "project's root thread",
				    from, to, TM_ROOT_THREAD_ID);
	if (!strcmp(from, to))
		return tm_error_set(TM_EINVALID, "cannot rename '%s' to itself",
				    from);
	return 0;
}

/* Is `c` a child of `from` that the rename re-points? */
static bool repoints(const tm_thread *c, const char *from,
		     const tm_rename_options *opts)
{
	return c->parent_id && !strcmp(c->parent_id, from) &&
	       strcmp(c->id, from) &&
	       (!opts->children || tm_strv_contains(opts->children, c->id));
}

int tm_ops_rename_thread(tm_rename_result *out, tm_store *s,
			 const char *project, const char *from, const char *to,
			 const tm_rename_options *opts)
{
	tm_rename_options defaults = TM_RENAME_OPTIONS_INIT;
	tm_rename_result r = {TM_STRV_INIT, false};
	tm_thread_list list = {NULL, 0, TM_STRV_INIT, TM_STRV_INIT,
			       TM_STRV_INIT};
	tm_config *cfg = NULL;
	tm_thread *t = NULL;
	tm_buf before = TM_BUF_INIT, after = TM_BUF_INIT;
	size_t i;
	int error;

	if (!opts)
		opts = &defaults;
	if ((error = check_rename(project, from, to)) < 0)
		return error;
	if ((error = tm_store_lock(s)) < 0)
		return error;
	if ((error = tm_store_load_thread(&t, s, project, from)) < 0)
		goto done;
	if (tm_store_thread_exists(s, project, to)) {
		error = tm_error_set(TM_EEXISTS,
				     "cannot rename '%s' to '%s': "
				     "threads/%s/%s.md exists",
				     from, to, project, to);
		goto done;
	}
	if ((!opts->keep_config &&
	     (error = tm_store_load_config(&cfg, s)) < 0) ||
	    (error = load_all(&list, s, project, opts->warn, opts->payload)) <
		    0)
		goto done;
	tm_thread_set(&t->id, to);
	if ((error = tm_store_save_thread(s, project, t)) < 0)
		goto done;
	for (i = 0; i < list.n; i++) {
		tm_thread *c = list.threads[i];

		if (!repoints(c, from, opts))
			continue;
		tm_thread_set(&c->parent_id, to);
		if ((error = tm_store_lock_refresh(s)) < 0 ||
		    (error = tm_store_save_thread(s, project, c)) < 0)
			goto done;
		tm_strv_push(&r.repointed, c->id);
	}
	if (cfg) {
		tm_config_write(&before, cfg);
		tm_config_rename_thread(cfg, project, from, to);
		tm_config_write(&after, cfg);
		r.config = before.size != after.size ||
			   memcmp(before.ptr, after.ptr, before.size);
		if (r.config && ((error = tm_store_lock_refresh(s)) < 0 ||
				 (error = tm_store_save_config(s, cfg)) < 0))
			goto done;
	}
	if ((error = tm_store_lock_refresh(s)) == 0)
		error = tm_store_delete_thread(s, project, from);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0 && out)
		TM_MOVE(out, r);
	tm_rename_result_clear(&r);
	tm_buf_release(&before);
	tm_buf_release(&after);
	tm_thread_free(t);
	tm_config_free(cfg);
	tm_thread_list_clear(&list);
	return error;
}
