/* git threadmind stale: threads whose paths changed since their commit. */
#include "builtin.h"
#include "cli.h"
#include "progress.h"

#include "threadmind/paths.h"
#include "threadmind/stale.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const stale_usage[] = {
	"git threadmind stale [--json] [--exit-code]",
	NULL,
};

static cJSON *strv_json(const tm_strv *v)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < v->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v->items[i]));
	return arr;
}

static void print_json(const tm_stale_report *r)
{
	cJSON *doc = cJSON_CreateObject(), *arr, *o;
	size_t i;

	/* like list, tree and status: a grouped member says its project */
	cJSON_AddStringToObject(doc, "project", cli.project);
	arr = cJSON_AddArrayToObject(doc, "stale");
	for (i = 0; i < r->n; i++) {
		const tm_stale_entry *e = &r->stale[i];

		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", e->id);
		cJSON_AddStringToObject(o, "commit", e->commit);
		cJSON_AddItemToObject(o, "paths", strv_json(&e->paths));
		cJSON_AddItemToObject(o, "changed", strv_json(&e->changed));
		cJSON_AddStringToObject(o, "newestCommit", e->newest);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON_AddItemToObject(doc, "unknownBase", strv_json(&r->unknown_base));
	cli_print_json(doc);
}

/* The abbreviated hash and subject of each newest commit, read once. */
struct described {
	const char *hex;
	char *abbrev, *subject;
};

static int described_cmp(const void *a, const void *b)
{
	return strcmp(((const struct described *)a)->hex,
		      ((const struct described *)b)->hex);
}

static struct described *describe_all(const tm_stale_report *r, tm_git *g)
{
	struct described *d = tm_xcalloc(r->n + 1, sizeof(*d));
	size_t i;

	for (i = 0; i < r->n; i++)
		d[i].hex = r->stale[i].newest;
	qsort(d, r->n, sizeof(*d), described_cmp);
	for (i = 0; i < r->n; i++) {
		if (i && !strcmp(d[i].hex, d[i - 1].hex))
			continue;
		if (tm_stale_describe_commit(&d[i].abbrev, &d[i].subject, g,
					     d[i].hex) < 0) {
			tm_error_clear();
			d[i].abbrev = tm_xstrndup(d[i].hex, 7);
			d[i].subject = tm_xstrdup("");
		}
	}
	return d;
}

static const struct described *find_described(const struct described *d,
					      size_t n, const char *hex)
{
	struct described key = {hex, NULL, NULL};
	const struct described *f =
		bsearch(&key, d, n, sizeof(*d), described_cmp);

	/* the first of equal entries holds the description */
	while (f && f > d && !strcmp(f[-1].hex, hex))
		f--;
	return f;
}

/* The renames of the stale threads' `paths` entries in the recent history
 * (one search for all of them). */
static void find_renames(tm_paths_rename **out, size_t *n,
			 const tm_stale_report *r, tm_git *g)
{
	tm_strv entries = TM_STRV_INIT;
	size_t i, k;

	for (i = 0; i < r->n; i++)
		for (k = 0; k < r->stale[i].paths.n; k++)
			tm_strv_push(&entries, r->stale[i].paths.items[k]);
	tm_strv_sort_unique(&entries);
	tm_paths_find_renames(out, n, g, &entries, TM_PATHS_RENAME_DEPTH);
	tm_strv_clear(&entries);
}

/* "renamed:" lines for the entries of e that `r` (n) renamed, and the
 * `set` that follows them. */
static void print_renames(const tm_stale_entry *e, const tm_paths_rename *r,
			  size_t n)
{
	tm_paths_rename *mine = tm_xcalloc(n + 1, sizeof(*mine));
	tm_strv follow = TM_STRV_INIT;
	size_t k, m = 0;

	for (k = 0; k < n; k++)
		if (tm_strv_contains(&e->paths, r[k].entry))
			mine[m++] = r[k];
	for (k = 0; k < m; k++)
		printf("    renamed: %s -> %s in %.7s\n",
		       cli_safe(mine[k].entry), cli_safe(mine[k].to),
		       mine[k].commit);
	if (m) {
		tm_paths_follow_renames(&follow, &e->paths, mine, m);
		printf("    follow it: git threadmind set %s paths=", e->id);
		for (k = 0; k < follow.n; k++)
			printf("%s%s", k ? "," : "", cli_safe(follow.items[k]));
		putchar('\n');
	}
	tm_strv_clear(&follow);
	free(mine);
}

static void print_human(const tm_stale_report *r, const tm_thread_list *l,
			tm_git *g)
{
	struct described *d = describe_all(r, g);
	const struct described *f;
	tm_paths_rename *ren = NULL;
	size_t i, k, j = 0, nren = 0, nu = r->unknown_base.n;

	find_renames(&ren, &nren, r, g);
	for (i = 0; i < r->n; i++) {
		const tm_stale_entry *e = &r->stale[i];

		/* the report follows the order of the list */
		while (j < l->n && strcmp(l->threads[j]->id, e->id))
			j++;
		if (j == l->n) /* not in order after all: search it all */
			for (j = 0;
			     j < l->n && strcmp(l->threads[j]->id, e->id); j++)
				;
		f = find_described(d, r->n, e->newest);
		printf("%s%s%s  %s\n", cli_c("yellow"), e->id, cli_c("reset"),
		       j < l->n ? cli_safe(l->threads[j]->title) : "");
		printf("    newest: %s%s%s %s\n", cli_c("cyan"), f->abbrev,
		       cli_c("reset"), cli_safe(f->subject));
		for (k = 0; k < e->changed.n; k++)
			printf("    changed: %s\n",
			       cli_safe(e->changed.items[k]));
		print_renames(e, ren, nren);
	}
	if (nu) {
		printf("%sunknown base commit%s (not in this repository):",
		       cli_c("red"), cli_c("reset"));
		for (k = 0; k < nu; k++)
			printf(" %s", r->unknown_base.items[k]);
		putchar('\n');
	}
	/* what the answer is, last: never "no stale threads" when some
	   thread could not be checked */
	if (r->n)
		note("%zu stale thread%s: review the summary, then run 'git "
		     "threadmind touch <thread>'",
		     r->n, r->n == 1 ? "" : "s");
	if (nu && r->shallow)
		note("%zu thread%s with an unknown base: this clone is shallow "
		     "and the commit%s reviewed may lie beyond its boundary; "
		     "deepen it with 'git fetch --unshallow' (GitHub Actions: "
		     "actions/checkout with 'fetch-depth: 0')",
		     nu, nu == 1 ? "" : "s", nu == 1 ? "" : "s");
	else if (nu)
		note("%zu thread%s with an unknown base: %s 'commit' names a "
		     "commit this repository does not have; fetch it, or "
		     "review the summary and run 'git threadmind touch "
		     "<thread>'",
		     nu, nu == 1 ? "" : "s", nu == 1 ? "its" : "their");
	else if (r->shallow)
		note("this clone is shallow: commits beyond its boundary are "
		     "unknown bases; deepen it with 'git fetch --unshallow' "
		     "(GitHub Actions: actions/checkout with 'fetch-depth: "
		     "0')");
	if (r->warnings.n)
		note("objects of the history could not be read (see the "
		     "warnings above): their folders count as changed, so "
		     "this answer is not known to be exact; check the "
		     "repository with 'git fsck'");
	else if (!r->n && !nu)
		note("no stale threads");
	for (i = 0; i < r->n; i++) {
		free(d[i].abbrev);
		free(d[i].subject);
	}
	free(d);
	tm_paths_renames_free(ren, nren);
}

int cmd_stale(int argc, const char **argv)
{
	bool as_json = false, exit_code = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "json", &as_json, "print JSON (docs/json.md)"),
		OPT_BOOL_(0, "exit-code", &exit_code,
			  "exit with 1 when a thread is stale or has an "
			  "unknown base"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_stale_options sopts = {0};
	struct cli_progress progress;
	tm_thread_list list;
	char *dir;
	tm_git *g;
	size_t i;
	int stale, error;

	if (parse_options(argc, argv, opts, stale_usage) != 0)
		usage_msg(stale_usage, opts, "stale takes no arguments");
	cli_open();
	g = tm_store_git(cli.store);
	if (!g)
		die("'%s' is not in a git repository: staleness needs its "
		    "history",
		    tm_store_root(cli.store));
	cli_load_all(&list);
	dir = tm_stale_threads_dir(g, tm_store_root(cli.store), cli.project);
	cli_progress_init(&progress);
	sopts.progress = cli_progress_report;
	sopts.progress_data = &progress;
	error = tm_stale_compute_opts(&r, g, dir,
				      (const tm_thread *const *)list.threads,
				      list.n, &sopts);
	cli_progress_end(&progress);
	if (error < 0)
		die_lib();
	for (i = 0; i < r.warnings.n; i++)
		warning("%s", r.warnings.items[i]);
	if (as_json) {
		print_json(&r);
		if (r.shallow)
			note("this clone is shallow: commits beyond its "
			     "boundary are unknown bases; deepen it with 'git "
			     "fetch --unshallow' (GitHub Actions: "
			     "actions/checkout with 'fetch-depth: 0')");
	} else {
		print_human(&r, &list, g);
	}
	/* a gate must not pass without knowing (DESIGN.md section 11) */
	stale = r.n > 0 || r.unknown_base.n > 0 || r.warnings.n > 0;
	tm_stale_report_clear(&r);
	free(dir);
	tm_thread_list_clear(&list);
	return exit_code && stale ? EXIT_NEGATIVE : 0;
}
