/* git threadmind show: a thread's frontmatter and summary. */
#include "builtin.h"
#include "cli.h"

#include "threadmind/git_threads.h"
#include "threadmind/text.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const show_usage[] = {
	"git threadmind show [<thread>] [--json | --summary-only]",
	"git threadmind show <thread> <commit> [--json | --summary-only]",
	"git threadmind show <commit>:<thread> [--json | --summary-only]",
	NULL,
};

/*
 * Thread `arg` (an id or a unique prefix of one that commit `rev` has) as
 * it was in that commit, of the current project; *hex the commit.  Reads
 * git objects only.
 */
static tm_thread *load_at(char **id, char hex[41], const char *arg,
			  const char *rev)
{
	tm_strv ids = TM_STRV_INIT;
	tm_buf bytes = TM_BUF_INIT, display = TM_BUF_INIT;
	tm_thread *t = NULL;
	tm_git *g = tm_store_git(cli.store);
	tm_side side = {TM_SIDE_COMMIT, ""};
	char *prefix;
	int error;

	if (!g)
		die("not a git repository: '%s'", tm_store_root(cli.store));
	if (tm_git_resolve_commit(hex, g, rev) < 0)
		die_lib();
	memcpy(side.commit, hex, 41);
	prefix = tm_git_path_in_workdir(g, tm_store_root(cli.store));
	if (!prefix)
		die("'%s' is not inside the work tree of its repository",
		    tm_store_dir(cli.store));
	if (tm_id_validate(arg, "thread") < 0 ||
	    tm_side_list_threads(&ids, g, prefix, &side, cli.project) < 0)
		die_lib();
	error = tm_id_resolve(id, arg, &ids, "thread");
	if (error == TM_ENOTFOUND)
		die("no thread matches '%s' in project '%s' at %.7s", arg,
		    cli.project, hex);
	if (error < 0 ||
	    tm_side_read_thread(&bytes, g, prefix, &side, cli.project, *id) < 0)
		die_lib();
	tm_buf_printf(&display, "%.7s:%s.threadmind/threads/%s/%s.md", hex,
		      prefix, cli.project, *id);
	if (tm_frontmatter_parse(&t, bytes.ptr, bytes.size, *id,
				 tm_buf_cstr(&display)) < 0)
		die_lib();
	tm_buf_release(&bytes);
	tm_buf_release(&display);
	tm_strv_clear(&ids);
	free(prefix);
	return t;
}

int cmd_show(int argc, const char **argv)
{
	bool as_json = false, summary_only = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "json", &as_json, "print JSON (docs/json.md)"),
		OPT_BOOL_(0, "summary-only", &summary_only,
			  "print only the summary, as stored"),
		OPT_GLOBALS,
		OPT_THREADS_(),
		OPT_END_(),
	};
	tm_thread *t;
	char *id = NULL, *active, hex[41] = "";
	const char *colon = NULL, *rev = NULL, *arg;
	int n = parse_options(argc, argv, opts, show_usage);

	if (n > 2)
		usage_msg(show_usage, opts,
			  "show takes one thread (and a commit)");
	if (as_json && summary_only)
		usage_msg(show_usage, opts,
			  "--json and --summary-only cannot be used together");
	/* <commit>:<thread> (no id holds a ':') or <thread> <commit> */
	if (n == 1)
		colon = strrchr(argv[0], ':');
	if (colon) {
		if (colon == argv[0] || !colon[1])
			usage_msg(show_usage, opts,
				  "'%s': give <commit>:<thread>", argv[0]);
		rev = tm_xstrndup(argv[0], (size_t)(colon - argv[0]));
		arg = colon + 1;
	} else {
		rev = n == 2 ? tm_xstrdup(argv[1]) : NULL;
		arg = n ? argv[0] : NULL;
	}
	/* Without --project in a fresh clone of several projects, the
	 * thread named says which project. */
	if (arg && !rev)
		cli_open_for_thread(arg);
	else
		cli_open();
	active = cli_active_thread(NULL, 0);
	if (rev) {
		t = load_at(&id, hex, arg, rev);
		free((char *)rev);
	} else {
		id = arg ? cli_resolve_thread(arg) : tm_xstrdup(active);
		t = cli_load_thread(id);
	}
	if (summary_only) {
		char *summary = tm_thread_summary(t);
		size_t len = strlen(summary);

		/* The bytes `summary -F` would store back (a hand-written
		 * body may lack its final newline); nothing when empty. */
		fwrite(summary, 1, len, stdout);
		if (len && summary[len - 1] != '\n')
			putchar('\n');
		free(summary);
	} else if (as_json) {
		cJSON *o = cli_thread_json(t, !strcmp(id, active), 0);
		char *summary = tm_thread_summary(t);

		cJSON_AddStringToObject(o, "summary", summary);
		if (*hex)
			cJSON_AddStringToObject(o, "at", hex);
		free(summary);
		cli_print_json(o);
	} else {
		tm_buf out = TM_BUF_INIT, safe = TM_BUF_INIT;
		tm_thread *lf = tm_thread_dup(t);
		char *summary = tm_thread_summary(t);

		/* Show it with LF line ends whatever the file uses. */
		lf->crlf = false;
		tm_frontmatter_write_header(&out, lf);
		/* unknown fields are kept raw: no control character shown */
		tm_text_sanitize(&safe, out.ptr, out.size,
				 TM_TEXT_KEEP_LF | TM_TEXT_KEEP_TAB);
		fwrite(safe.ptr, 1, safe.size, stdout);
		if (*summary) {
			size_t len = strlen(summary);

			/* A hand-written body may lack its final newline. */
			printf("\n%s%s", summary,
			       summary[len - 1] == '\n' ? "" : "\n");
		}
		free(summary);
		tm_thread_free(lf);
		tm_buf_release(&out);
		tm_buf_release(&safe);
	}
	tm_thread_free(t);
	free(id);
	free(active);
	return 0;
}
