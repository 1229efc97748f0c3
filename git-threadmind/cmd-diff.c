/* git threadmind diff: what changed in the threads between two versions. */
#include "builtin.h"
#include "cli.h"
#include "diffview.h"
#include "revargs.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const diff_usage[] = {
	"git threadmind diff [<options>] [<commit> [<commit>]] "
	"[--] [<thread>...]",
	"git threadmind diff [<options>] --cached [<commit>] [--] "
	"[<thread>...]",
	"git threadmind diff [<options>] <commit>..<commit> [--] "
	"[<thread>...]",
	"git threadmind diff [<options>] <commit>...<commit> [--] "
	"[<thread>...]",
	NULL,
};

static cJSON *side_json(const tm_side *s)
{
	cJSON *o = cJSON_CreateObject();

	if (s->kind == TM_SIDE_COMMIT) {
		cJSON_AddStringToObject(o, "side", "commit");
		if (s->commit[0])
			cJSON_AddStringToObject(o, "commit", s->commit);
		else
			cJSON_AddNullToObject(o, "commit");
	} else {
		cJSON_AddStringToObject(o, "side",
					s->kind == TM_SIDE_INDEX ? "index"
								 : "worktree");
	}
	return o;
}

/* The markdown title: what was compared ("main...feature"). */
static char *title_for(const struct revargs *ra, bool cached)
{
	tm_buf b = TM_BUF_INIT;
	size_t i;

	tm_buf_puts(&b, "ThreadMind: ");
	if (!ra->revs.n)
		tm_buf_puts(&b, cached ? "staged changes" : "unstaged changes");
	for (i = 0; i < ra->revs.n; i++)
		tm_buf_printf(&b, "%s%s", i ? " " : "", ra->revs.items[i]);
	if (ra->revs.n == 1 && !strstr(ra->revs.items[0], ".."))
		tm_buf_puts(&b,
			    cached ? " and the index" : " and the work tree");
	return tm_buf_detach(&b);
}

int cmd_diff(int argc, const char **argv)
{
	bool cached = false, staged = false, stat = false, name_status = false;
	bool as_json = false, exit_code = false, all_fields = false;
	const char *format = NULL;
	const struct option opts[] = {
		OPT_BOOL_(0, "cached", &cached,
			  "compare with the index, not the work tree"),
		OPT_BOOL_(0, "staged", &staged, "the same as --cached"),
		OPT_BOOL_(0, "stat", &stat, "one line per thread"),
		OPT_BOOL_(0, "name-status", &name_status,
			  "a letter and the id per thread"),
		OPT_BOOL_(0, "json", &as_json, "print JSON (docs/json.md)"),
		OPT_STRING_(0, "format", &format, "format",
			    "text (the default) or markdown"),
		OPT_BOOL_(0, "exit-code", &exit_code,
			  "exit 1 when a thread changed"),
		OPT_BOOL_(0, "all-fields", &all_fields,
			  "also show updatedAt and the id field"),
		OPT_GLOBALS,
		OPT_THREADS_(),
		OPT_END_(),
	};
	tm_store_diff_options dopts = TM_STORE_DIFF_OPTIONS_INIT;
	tm_store_diff d = TM_STORE_DIFF_INIT;
	struct revargs ra;
	tm_side before, after;
	bool markdown, quiet;
	int n;

	revargs_dashdash(&ra, argc, argv);
	n = parse_options(argc, argv, opts, diff_usage);
	cached |= staged;
	if (format && strcmp(format, "text") && strcmp(format, "markdown"))
		usage_msg(diff_usage, opts,
			  "--format takes 'text' or 'markdown', not '%s'",
			  format);
	markdown = format && !strcmp(format, "markdown");
	if (stat + name_status + as_json + markdown > 1)
		usage_msg(diff_usage, opts,
			  "--stat, --name-status, --json and --format=markdown "
			  "cannot be used together");
	quiet = global_opts.quiet;
	cli_open_flags(CLI_OPEN_NO_PROJECT);
	revargs_split(&ra, argv, n, false, diff_usage, opts);
	if (tm_git_diff_sides(&before, &after, revargs_git(),
			      (const char *const *)ra.revs.items, ra.revs.n,
			      cached) < 0)
		die_lib();
	dopts.project = global_opts.project;
	dopts.threads = (const char *const *)ra.threads.items;
	dopts.nthreads = ra.threads.n;
	dopts.all_fields = all_fields;
	if (tm_store_diff_sides(&d, revargs_git(), revargs_prefix(), &before,
				&after, &dopts) < 0)
		die_lib();
	if (quiet) {
		/* as git diff --quiet: nothing printed, the answer in the
		 * exit code */
	} else if (as_json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddItemToObject(doc, "from", side_json(&before));
		cJSON_AddItemToObject(doc, "to", side_json(&after));
		cJSON_AddItemToObject(doc, "projects", dv_json_projects(&d));
		cli_print_json(doc);
	} else if (markdown) {
		char *title = title_for(&ra, cached);

		dv_print_markdown(&d, title);
		free(title);
	} else {
		dv_print(&d,
			 stat          ? DV_STAT
			 : name_status ? DV_NAME_STATUS
				       : DV_PATCH,
			 "");
	}
	n = (exit_code || quiet) && !tm_store_diff_empty(&d) ? EXIT_NEGATIVE
							     : 0;
	tm_store_diff_clear(&d);
	revargs_clear(&ra);
	return n;
}
