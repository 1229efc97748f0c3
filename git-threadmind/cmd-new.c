/* git threadmind new: create a thread (slug id, collision suffix). */
#include "builtin.h"
#include "cli.h"

#include <stdlib.h>

static const char *const new_usage[] = {
	"git threadmind new <title> [--parent <thread>] [--paths <path>,...] "
	"[--switch]",
	NULL,
};

int cmd_new(int argc, const char **argv)
{
	const char *parent_arg = NULL;
	bool do_switch = false;
	tm_strv paths = TM_STRV_INIT;
	const struct option opts[] = {
		OPT_STRING_(0, "parent", &parent_arg, "thread",
			    "parent thread (default: the active thread)"),
		OPT_LIST_(0, "paths", &paths, "path,...",
			  "paths the summary covers (repeatable)"),
		OPT_BOOL_(0, "switch", &do_switch,
			  "make the new thread the active one"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	tm_new_thread_options o = TM_NEW_THREAD_OPTIONS_INIT;
	tm_buf title = TM_BUF_INIT;
	tm_thread *t = NULL;
	char *parent;
	int i, n;

	n = parse_options(argc, argv, opts, new_usage);
	if (n < 1)
		usage_msg(new_usage, opts, "new needs a title");
	for (i = 0; i < n; i++) {
		if (i)
			tm_buf_putc(&title, ' ');
		tm_buf_puts(&title, argv[i]);
	}
	cli_open();
	parent = parent_arg ? cli_resolve_thread(parent_arg)
			    : cli_active_thread(NULL, 0);
	o.title = tm_buf_cstr(&title);
	o.parent = parent;
	cli_normalize_paths(&paths);
	o.paths = paths.n ? &paths : NULL;
	o.branch = tm_store_branch(cli.store);
	o.commit = tm_store_head(cli.store);
	if (tm_store_create_thread(&t, cli.store, cli.project, &o) < 0)
		die_lib();
	if (do_switch && tm_store_set_active(cli.store, cli.project, t->id) < 0)
		die_lib();
	printf("%s\n", t->id);
	note("Created thread '%s' under '%s'%s", t->id, parent,
	     do_switch ? " and switched to it" : "");
	tm_thread_free(t);
	free(parent);
	tm_strv_clear(&paths);
	tm_buf_release(&title);
	return 0;
}
