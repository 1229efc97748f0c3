/* git threadmind show: a thread's frontmatter and summary. */
#include "builtin.h"
#include "cli.h"

#include "lib/json_cjson.h"
#include "lib/text.h"

#include <stdlib.h>
#include <string.h>

static const char *const show_usage[] = {
	"git threadmind show [<thread>] [--json | --summary-only]",
	NULL,
};

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
	char *id, *active;
	int n = parse_options(argc, argv, opts, show_usage);

	if (n > 1)
		usage_msg(show_usage, opts, "show takes one thread");
	if (as_json && summary_only)
		usage_msg(show_usage, opts,
			  "--json and --summary-only cannot be used together");
	/* Without --project in a fresh clone of several projects, the
	 * thread named says which project. */
	if (n)
		cli_open_for_thread(argv[0]);
	else
		cli_open();
	active = cli_active_thread(NULL, 0);
	id = n ? cli_resolve_thread(argv[0]) : tm_xstrdup(active);
	t = cli_load_thread(id);
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
