/* The project as the read-only commands see it (see view.h). */
#include "view.h"

#include "threadmind/reintegrate.h"
#include "threadmind/stale.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>

static int collect(const tm_tree *tree, size_t node, void *payload)
{
	struct view *v = payload;

	(void)tree;
	v->order[v->norder++] = node;
	return 0;
}

/*
 * Flag the stale threads (DESIGN.md section 4), in one computation for the
 * whole project.  Outside git nothing is stale; a failure is one warning
 * (and v->stale_unknown), an object of the history skipped one each (and
 * v->stale_partial: the flags then count what could be counted).
 */
static void mark_stale(struct view *v)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_stale_options opts = {0};
	tm_strv ids = TM_STRV_INIT;
	struct cli_progress progress;
	tm_git *g = tm_store_git(cli.store);
	char *dir;
	size_t i;
	long k;
	int error;

	if (!g)
		return;
	dir = tm_stale_threads_dir(g, tm_store_root(cli.store), cli.project);
	if (tm_stale_cached_ids(&ids, g, dir,
				(const tm_thread *const *)v->list.threads,
				v->list.n)) { /* the usual second run */
		for (i = 0; i < ids.n; i++) {
			k = tm_tree_find(v->tree, ids.items[i]);
			if (k >= 0)
				v->flags[k] |= CLI_FLAG_STALE;
		}
		tm_strv_clear(&ids);
		free(dir);
		return;
	}
	cli_progress_init(&progress);
	opts.progress = cli_progress_report;
	opts.progress_data = &progress;
	error = tm_stale_compute_opts(&r, g, dir,
				      (const tm_thread *const *)v->list.threads,
				      v->list.n, &opts);
	cli_progress_end(&progress);
	if (error < 0) {
		warning("cannot tell which threads are stale: %s",
			tm_error_last());
		tm_error_clear();
		v->stale_unknown = true;
	}
	for (i = 0; i < r.warnings.n; i++)
		warning("%s", r.warnings.items[i]);
	v->stale_partial = r.warnings.n > 0;
	for (i = 0; i < r.n; i++) {
		k = tm_tree_find(v->tree, r.stale[i].id);
		if (k >= 0)
			v->flags[k] |= CLI_FLAG_STALE;
	}
	tm_stale_report_clear(&r);
	free(dir);
}

/* Flag the merged threads holding lines their parent lacks: shown even
 * without --all, nothing is hidden that no parent holds. */
static void mark_unintegrated(struct view *v)
{
	tm_unintegrated_list l;
	size_t i;
	long k;

	tm_find_unintegrated(&l, (const tm_thread *const *)v->list.threads,
			     v->list.n);
	for (i = 0; i < l.n; i++)
		if ((k = tm_tree_find(v->tree, l.items[i].id)) >= 0)
			v->flags[k] |= CLI_FLAG_UNINTEGRATED;
	tm_unintegrated_list_clear(&l);
}

void view_load(struct view *v, bool all)
{
	size_t i, k;

	memset(v, 0, sizeof(*v));
	cli_load_all(&v->list);
	if (tm_tree_build(&v->tree, (const tm_thread *const *)v->list.threads,
			  v->list.n) < 0)
		die_lib();
	v->active = cli_active_thread((const tm_thread *const *)v->list.threads,
				      v->list.n);
	v->order = tm_xcalloc(v->list.n ? v->list.n : 1, sizeof(size_t));
	v->shown = tm_xcalloc(v->list.n ? v->list.n : 1, sizeof(bool));
	v->flags = tm_xcalloc(v->list.n ? v->list.n : 1, sizeof(unsigned));
	tm_tree_walk(v->tree, collect, v);
	for (i = 0; i < v->tree->n; i++) {
		v->flags[i] = v->tree->nodes[i].flags;
		if (tm_stale_awaits_summary(v->tree->nodes[i].thread))
			v->flags[i] |= CLI_FLAG_NO_SUMMARY;
	}
	mark_stale(v);
	mark_unintegrated(v);
	/* Children come after their parent in pre-order: decide bottom-up. */
	for (k = v->norder; k-- > 0;) {
		const tm_tree_node *n = &v->tree->nodes[v->order[k]];
		bool shown = all || !tm_thread_is_finished(n->thread) ||
			     (v->flags[v->order[k]] & CLI_FLAG_UNINTEGRATED);
		size_t c;

		for (c = 0; !shown && c < n->nchildren; c++)
			shown = v->shown[n->children[c]];
		v->shown[v->order[k]] = shown;
	}
}

bool view_is_active(const struct view *v, size_t i)
{
	return v->active && !strcmp(v->tree->nodes[i].thread->id, v->active);
}

void view_free(struct view *v)
{
	tm_tree_free(v->tree);
	tm_thread_list_clear(&v->list);
	free(v->active);
	free(v->order);
	free(v->shown);
	free(v->flags);
	memset(v, 0, sizeof(*v));
}
