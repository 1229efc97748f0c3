/*
 * git threadmind prompt: the active thread's id for a shell prompt.  Fast
 * and silent: no upgrade, no lock, no warning, nothing at all on error.
 */
#include "builtin.h"
#include "cli.h"

#include <stdlib.h>
#include <unistd.h>

static const char *const prompt_usage[] = {
	"git threadmind prompt",
	NULL,
};

/* The active thread id, or NULL on any error.  In the usual case (a
 * branchThreads entry) only that thread file is looked at, with a stat. */
static char *active_thread(void)
{
	tm_store *s = NULL;
	tm_config *cfg = NULL;
	char *cwd = getcwd(NULL, 0), *project = NULL, *id = NULL;

	if (!cwd || tm_store_discover(&s, cwd) < 0)
		goto done;
	/* A corrupt config.json: the defaults, silently. */
	tm_store_config_fallback(s, NULL, NULL);
	if (tm_store_current_project(&project, s, global_opts.project) < 0 ||
	    tm_store_load_config(&cfg, s) < 0 ||
	    tm_store_active_thread(&id, s, project, cfg, NULL, 0) < 0)
		id = NULL;
done:
	tm_config_free(cfg);
	tm_store_free(s);
	free(project);
	free(cwd);
	return id;
}

int cmd_prompt(int argc, const char **argv)
{
	const struct option opts[] = {OPT_GLOBALS, OPT_END_()};
	char *id;

	if (parse_options(argc, argv, opts, prompt_usage) != 0)
		usage_msg(prompt_usage, opts, "prompt takes no arguments");
	id = active_thread();
	if (id)
		printf("%s\n", id);
	free(id);
	return 0;
}
