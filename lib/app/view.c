/* The read view of a project for status, tree and list (see view.h). */
#include "view.h"

#include "error.h"
#include "reintegrate.h"
#include "resolve.h"

#include <stdlib.h>
#include <string.h>

int tm_view_load_threads(tm_thread_list *out, tm_load_errors *errors,
			 tm_store *s, const char *project)
{
	tm_strv unmerged = TM_STRV_INIT, marked = TM_STRV_INIT;
	size_t i;
	int error;

	memset(errors, 0, sizeof(*errors));
	if ((error = tm_store_load_all(out, s, project)) < 0)
		return error;
	if (!out->errors.n)
		return 0;
	if (tm_resolve_pending_loaded(&unmerged, &marked, s, project, out) < 0)
		tm_error_clear(); /* the files it found still count */
	errors->items = tm_xcalloc(out->errors.n, sizeof(*errors->items));
	for (i = 0; i < out->errors.n; i++) {
		tm_load_error *e = &errors->items[errors->n++];

		e->path = out->error_paths.items[i];
		e->message = out->errors.items[i];
		e->kind = tm_strv_contains(&marked, e->path) ? TM_LOAD_MARKERS
			  : tm_strv_contains(&unmerged, e->path)
				  ? TM_LOAD_UNMERGED
				  : TM_LOAD_UNREADABLE;
	}
	tm_strv_clear(&unmerged);
	tm_strv_clear(&marked);
	return 0;
}

void tm_load_errors_clear(tm_load_errors *e)
{
	free(e->items);
	memset(e, 0, sizeof(*e));
}

static int collect(const tm_tree *tree, size_t node, void *payload)
{
	tm_view *v = payload;

	(void)tree;
	v->order[v->norder++] = node;
	return 0;
}

int tm_view_load(tm_view *v, tm_store *s, const char *project)
{
	const tm_thread *const *threads;
	tm_config *cfg = NULL;
	size_t i, n;
	int error;

	memset(v, 0, sizeof(*v));
	if ((error = tm_view_load_threads(&v->list, &v->errors, s, project)) <
		    0 ||
	    (error = tm_tree_build(&v->tree,
				   (const tm_thread *const *)v->list.threads,
				   v->list.n)) < 0)
		return error;
	threads = (const tm_thread *const *)v->list.threads;
	n = v->list.n;
	if ((error = tm_store_load_config(&cfg, s)) < 0 ||
	    (error = tm_store_active_thread_checked(
		     &v->active, &v->moved, s, project, cfg, threads, n)) < 0) {
		tm_config_free(cfg);
		return error;
	}
	tm_config_free(cfg);
	v->order = tm_xcalloc(n ? n : 1, sizeof(size_t));
	v->shown = tm_xcalloc(n ? n : 1, sizeof(bool));
	v->flags = tm_xcalloc(n ? n : 1, sizeof(unsigned));
	tm_tree_walk(v->tree, collect, v);
	for (i = 0; i < v->tree->n; i++) {
		v->flags[i] = v->tree->nodes[i].flags;
		if (tm_stale_awaits_summary(v->tree->nodes[i].thread))
			v->flags[i] |= TM_VIEW_NO_SUMMARY;
	}
	return 0;
}

/* Flag thread `id` (when the tree has it) with `flag`. */
static void flag_id(tm_view *v, const char *id, unsigned flag)
{
	long k = tm_tree_find(v->tree, id);

	if (k >= 0)
		v->flags[k] |= flag;
}

static void mark_stale(tm_view *v, tm_store *s, const char *project,
		       tm_stale_options *opts)
{
	const tm_thread *const *threads =
		(const tm_thread *const *)v->list.threads;
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_strv ids = TM_STRV_INIT;
	tm_git *g = tm_store_git(s);
	char *dir;
	size_t i;

	if (!g)
		return;
	dir = tm_stale_threads_dir(g, tm_store_root(s), project);
	if (tm_stale_cached_ids(&ids, g, dir, threads, v->list.n)) {
		/* the usual second run */
		for (i = 0; i < ids.n; i++)
			flag_id(v, ids.items[i], TM_VIEW_STALE);
		tm_strv_clear(&ids);
		free(dir);
		return;
	}
	if (tm_stale_compute_opts(&r, g, dir, threads, v->list.n, opts) < 0) {
		v->stale_error = tm_xstrdup(tm_error_last());
		tm_error_clear();
	}
	v->stale_warnings = r.warnings; /* taken over, not copied */
	r.warnings = (tm_strv)TM_STRV_INIT;
	for (i = 0; i < r.n; i++)
		flag_id(v, r.stale[i].id, TM_VIEW_STALE);
	tm_stale_report_clear(&r);
	free(dir);
}

void tm_view_mark(tm_view *v, tm_store *s, const char *project, bool all,
		  tm_stale_options *opts)
{
	tm_unintegrated_list l;
	size_t i, k;

	mark_stale(v, s, project, opts);
	/* shown even without --all: nothing is hidden that no parent holds */
	tm_find_unintegrated(&l, (const tm_thread *const *)v->list.threads,
			     v->list.n);
	for (i = 0; i < l.n; i++)
		flag_id(v, l.items[i].id, TM_VIEW_UNINTEGRATED);
	tm_unintegrated_list_clear(&l);
	/* Children come after their parent in pre-order: decide bottom-up. */
	for (k = v->norder; k-- > 0;) {
		const tm_tree_node *n = &v->tree->nodes[v->order[k]];
		bool shown = all || !tm_thread_is_finished(n->thread) ||
			     (v->flags[v->order[k]] & TM_VIEW_UNINTEGRATED);
		size_t c;

		for (c = 0; !shown && c < n->nchildren; c++)
			shown = v->shown[n->children[c]];
		v->shown[v->order[k]] = shown;
	}
}

bool tm_view_listed(const tm_view *v, size_t i, bool all)
{
	return all || !tm_thread_is_finished(v->list.threads[i]);
}

bool tm_view_is_active(const tm_view *v, size_t i)
{
	return v->active && !strcmp(v->tree->nodes[i].thread->id, v->active);
}

void tm_view_free(tm_view *v)
{
	tm_tree_free(v->tree);
	tm_thread_list_clear(&v->list);
	tm_load_errors_clear(&v->errors);
	free(v->active);
	tm_active_moved_clear(&v->moved);
	TM_FREE_ALL(v->order, v->shown, v->flags, v->stale_error);
	tm_strv_clear(&v->stale_warnings);
	memset(v, 0, sizeof(*v));
}
