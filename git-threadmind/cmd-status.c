/* git threadmind status: project, active thread, counts, stale, lock. */
#include "builtin.h"
#include "view.h"

#include "threadmind/migrate.h"
#include "threadmind/reintegrate.h"
#include "threadmind/resolve.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_usage[] = {
	"git threadmind status [--json]",
	NULL,
};

struct counts {
	size_t active, done, abandoned, other;
};

static void count(struct counts *c, const tm_thread_list *l)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < l->n; i++) {
		const char *s = l->threads[i]->status;

		if (!s)
			c->active++;
		else if (!strcmp(s, TM_STATUS_DONE))
			c->done++;
		else if (!strcmp(s, TM_STATUS_ABANDONED))
			c->abandoned++;
		else
			c->other++;
	}
}

/* "no summary yet: <ids>" for the threads staleness awaits a summary of
 * (at most ten named), in tree order. */
static void print_no_summary(const tm_view *v)
{
	size_t k, i, n = 0;

	for (k = 0; k < v->norder; k++) {
		i = v->order[k];
		if (!(v->flags[i] & TM_VIEW_NO_SUMMARY))
			continue;
		if (++n <= 10)
			printf("%s %s", n == 1 ? "no summary yet:" : "",
			       v->tree->nodes[i].thread->id);
	}
	if (n > 10)
		printf(" …");
	if (n)
		printf(" (git threadmind summary <thread>)\n");
}

/* Threads flagged stale by view_load. */
static size_t count_stale(const tm_view *v)
{
	size_t i, n = 0;

	for (i = 0; i < v->tree->n; i++)
		n += (v->flags[i] & TM_VIEW_STALE) != 0;
	return n;
}

static const tm_thread *find(const tm_view *v, const char *id)
{
	long i = tm_tree_find(v->tree, id);

	return i < 0 ? NULL : v->tree->nodes[i].thread;
}

/* Files waiting for `git threadmind resolve`, on one line when any (the
 * project's thread files as the view's load read them). */
static void print_conflicts(const tm_view *v)
{
	tm_strv unmerged = TM_STRV_INIT, files = TM_STRV_INIT;
	size_t i, n = 0;

	if (tm_resolve_pending_loaded(&unmerged, &files, cli.store, cli.project,
				      &v->list) == TM_EPARSE)
		warning("%s", tm_error_last()); /* a damaged .git/index */
	tm_error_clear();
	for (i = 0; i < files.n; i++)
		if (!tm_strv_contains(&unmerged, files.items[i]))
			tm_strv_push(&unmerged, files.items[i]);
	for (i = 0; i < unmerged.n; i++)
		printf("%s%s%s%s", n++ ? ", " : "conflicts: ", cli_c("red"),
		       cli_safe(unmerged.items[i]), cli_c("reset"));
	if (n)
		printf(" (run 'git threadmind resolve')\n");
	for (i = 0; i < unmerged.n; i++)
		if (tm_migrate_is_04_index(unmerged.items[i]))
			printf("%s: %s\n", cli_safe(unmerged.items[i]),
			       tm_migrate_came_back_advice());
	tm_strv_clear(&unmerged);
	tm_strv_clear(&files);
}

/* Merged threads holding lines their parent lacks, one line each, with
 * the command that adds them (lib/include/threadmind/reintegrate.h). */
static void print_unintegrated(const tm_view *v)
{
	tm_unintegrated_list l;
	size_t i;

	tm_find_unintegrated(&l, (const tm_thread *const *)v->list.threads,
			     v->list.n);
	for (i = 0; i < l.n; i++) {
		const tm_unintegrated *u = &l.items[i];

		printf("merged: %s'%s'%s holds %zu line%s that '%s' lacks "
		       "(run 'git threadmind merge --again %s')\n",
		       cli_c("yellow"), u->id, cli_c("reset"), u->missing,
		       u->missing == 1 ? "" : "s", u->into, u->id);
	}
	tm_unintegrated_list_clear(&l);
}

int cmd_status(int argc, const char **argv)
{
	bool as_json = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "json", &as_json, "print JSON (docs/json.md)"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	tm_view v;
	struct counts c;
	tm_project *p = NULL;
	const tm_thread *active;
	const char *branch;
	char *holder = NULL;
	bool in_git;
	size_t stale;

	if (parse_options(argc, argv, opts, status_usage) != 0)
		usage_msg(status_usage, opts, "status takes no arguments");
	cli_open();
	if (tm_store_load_project(&p, cli.store, cli.project) < 0)
		die_lib();
	view_load(&v, true);
	count(&c, &v.list);
	in_git = tm_store_git(cli.store) != NULL;
	stale = count_stale(&v);
	active = find(&v, v.active);
	branch = tm_store_branch(cli.store);
	if (tm_lock_holder_at(&holder, tm_store_dirfd(cli.store),
			      tm_store_dir(cli.store)) < 0)
		holder = NULL;
	tm_error_clear();
	if (as_json) {
		cJSON *doc = cJSON_CreateObject(), *o;

		cJSON_AddStringToObject(doc, "project", cli.project);
		cJSON_AddStringToObject(doc, "title",
					tm_project_get(p, "title")
						? tm_project_get(p, "title")
						: "");
		if (branch)
			cJSON_AddStringToObject(doc, "branch", branch);
		else
			cJSON_AddNullToObject(doc, "branch");
		cJSON_AddStringToObject(doc, "activeThreadId", v.active);
		o = cJSON_AddObjectToObject(doc, "counts");
		cJSON_AddNumberToObject(o, "active", (double)c.active);
		cJSON_AddNumberToObject(o, "done", (double)c.done);
		cJSON_AddNumberToObject(o, "abandoned", (double)c.abandoned);
		cJSON_AddNumberToObject(o, "other", (double)c.other);
		cJSON_AddNumberToObject(o, "unreadable",
					(double)v.list.errors.n);
		if (in_git && !v.stale_error && !v.stale_warnings.n)
			cJSON_AddNumberToObject(doc, "stale", (double)stale);
		else
			cJSON_AddNullToObject(doc, "stale");
		if (holder)
			cJSON_AddStringToObject(doc, "lock", holder);
		else
			cJSON_AddNullToObject(doc, "lock");
		cli_print_json(doc);
	} else {
		printf("project: %s (%s)\n", cli.project,
		       cli_safe(tm_project_get(p, "title")));
		printf("branch: %s\n", branch ? cli_safe(branch) : "(none)");
		printf("active thread: %s%s%s (%s)\n", cli_c("green"), v.active,
		       cli_c("reset"),
		       active && active->title ? cli_safe(active->title)
					       : "missing");
		printf("threads: %zu active, %zu done, %zu abandoned", c.active,
		       c.done, c.abandoned);
		if (c.other)
			printf(", %zu other", c.other);
		if (v.list.errors.n)
			printf(", %s%zu unreadable%s", cli_c("red"),
			       v.list.errors.n, cli_c("reset"));
		if (!in_git)
			printf("\nstale: n/a (not in a git repository)\n");
		else if (v.stale_error)
			printf("\nstale: unknown (see the warning above)\n");
		else if (v.stale_warnings.n)
			printf("\nstale: unknown, %s%zu%s counted (git "
			       "threadmind "
			       "stale; objects of the history could not be "
			       "read: see the warnings above)\n",
			       cli_c("yellow"), stale, cli_c("reset"));
		else if (stale)
			printf("\nstale: %s%zu%s (git threadmind stale)\n",
			       cli_c("yellow"), stale, cli_c("reset"));
		else
			printf("\nstale: 0\n");
		print_no_summary(&v);
		printf("lock: %s\n", holder ? cli_safe(holder) : "free");
		print_conflicts(&v);
		print_unintegrated(&v);
	}
	free(holder);
	tm_project_free(p);
	tm_view_free(&v);
	return 0;
}
