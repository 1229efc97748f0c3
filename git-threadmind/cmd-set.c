/* git threadmind set: change a thread's title, paths or branch. */
#include "builtin.h"
#include "cli.h"

#include "threadmind/ops.h"

#include <stdlib.h>
#include <string.h>

static const char *const set_usage[] = {
	"git threadmind set <thread> [title=<title>] [paths=<path>,...] "
	"[branch=<branch>]",
	NULL,
};

int cmd_set(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_THREADS_(), OPT_END_()};
	tm_assign *assigns;
	tm_strv values = TM_STRV_INIT;
	bool changed;
	char *id;
	int i, n;

	n = parse_options(argc, argv, opts, set_usage);
	if (n < 2)
		usage_msg(set_usage, opts,
			  "set takes a thread and at least one "
			  "<field>=<value>");
	assigns = tm_xcalloc((size_t)n - 1, sizeof(*assigns));
	for (i = 1; i < n; i++)
		if (tm_assign_parse(&assigns[i - 1], argv[i]) < 0)
			usage_msg(set_usage, opts, "%s", tm_error_last());
	cli_open();
	id = cli_resolve_thread(argv[0]);
	/* Paths typed here are read from this folder: store them from the
	 * root (each paths= value rewritten, kept alive in `values`). */
	for (i = 0; i < n - 1; i++) {
		tm_strv items = TM_STRV_INIT;
		tm_buf joined = TM_BUF_INIT;
		const char *p = assigns[i].value;
		size_t k;

		if (assigns[i].field != TM_ASSIGN_PATHS)
			continue;
		while (*p) {
			size_t len = strcspn(p, ",");

			if (len)
				tm_strv_push_owned(&items, tm_xstrndup(p, len));
			p += len + (p[len] == ',');
		}
		cli_normalize_paths(&items);
		for (k = 0; k < items.n; k++)
			tm_buf_printf(&joined, "%s%s", k ? "," : "",
				      items.items[k]);
		tm_strv_push_owned(&values, tm_buf_detach(&joined));
		assigns[i].value = values.items[values.n - 1];
		tm_strv_clear(&items);
	}

	if (tm_ops_set_fields(&changed, cli.store, cli.project, id, assigns,
			      (size_t)n - 1) < 0)
		die_lib();

	if (changed)
		note("Updated thread '%s'", id);
	else
		note("Thread '%s' already has these values; nothing written",
		     id);
	free(assigns);
	tm_strv_clear(&values);
	free(id);
	return 0;
}
