/* git threadmind init: create .threadmind/ with a project and `main`. */
#include "builtin.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const init_usage[] = {
	"git threadmind init [--title <title>] [--mode solo|team]",
	NULL,
};

int cmd_init(int argc, const char **argv)
{
	const char *title = NULL, *mode = NULL;
	const struct option opts[] = {
		OPT_STRING_(0, "title", &title, "title",
			    "project title (default: the folder's name)"),
		OPT_STRING_(0, "mode", &mode, "mode", "solo (default) or team"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	tm_store *s = NULL;
	tm_project *p = NULL;
	char *cwd, *root;
	const char *id;

	if (parse_options(argc, argv, opts, init_usage) != 0)
		usage_msg(init_usage, opts, "init takes no arguments");
	if (mode && strcmp(mode, "solo") && strcmp(mode, "team"))
		usage_msg(init_usage, opts,
			  "--mode must be 'solo' or 'team', not '%s'", mode);
	/* A bare repository is fatal; GIT_DIR / GIT_WORK_TREE name the root. */
	cwd = cli_work_tree(true);
	root = getenv("GIT_DIR") || getenv("GIT_WORK_TREE")
		       ? tm_xstrdup(cwd)
		       : tm_store_init_root(cwd);
	if (tm_store_init(&s, root, title, mode) < 0)
		die_lib();
	if (tm_store_current_project((char **)&id, s, NULL) < 0 ||
	    tm_store_load_project(&p, s, id) < 0)
		die_lib();
	if (!global_opts.quiet)
		printf("Initialized ThreadMind project '%s' (%s) in %s/\n", id,
		       tm_project_get(p, "title"), tm_store_dir(s));
	note("hint: commit .threadmind/ to share the threads with your team");
	note("%s", CLI_TEAMMATE_HINT);
	free((char *)id);
	tm_project_free(p);
	tm_store_free(s);
	free(root);
	free(cwd);
	return 0;
}
