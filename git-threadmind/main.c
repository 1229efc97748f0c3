/*
 * git-threadmind: the `git threadmind <command>` entry point.  Global
 * options, then the command table; each command lives in cmd-<name>.c.
 */
#include "builtin.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;
};

static const struct command commands[] = {
        {"init", cmd_init, "create .threadmind/ in this repository"},
        {"status", cmd_status, "project, active thread, counts, stale, lock"},
        {"tree", cmd_tree, "show the thread tree"},
        {"list", cmd_list, "one line per thread"},
        {"show", cmd_show, "a thread's frontmatter and summary"},
        {"new", cmd_new, "create a thread"},
        {"switch", cmd_switch, "make a thread the active one"},
        {"summary", cmd_summary, "replace a thread's summary from a file"},
        {"edit", cmd_edit, "edit a thread's summary in your editor"},
        {"set", cmd_set, "change a thread's title, paths or branch"},
        {"touch", cmd_touch, "mark a thread's summary as reviewed at HEAD"},
        {"move", cmd_move, "give a thread a new parent"},
        {"done", cmd_done, "mark a thread done"},
        {"abandon", cmd_abandon, "mark a thread abandoned"},
        {"reopen", cmd_reopen, "make a finished thread active again"},
        {"merge", cmd_merge, "integrate a thread into its parent"},
        {"rm", cmd_rm, "delete a thread (children move up)"},
        {"project", cmd_project, "list, create or pick projects"},
        {"migrate", cmd_migrate, "upgrade a ThreadMind 0.4 store"},
        {"doctor", cmd_doctor, "check the store, repair what is safe"},
        {"install", cmd_install, "set up the merge driver, attributes, hooks"},
        {"uninstall", cmd_uninstall, "remove what install added"},
        {"prompt", cmd_prompt, "the active thread's id, for a shell prompt"},
        {"resolve", cmd_resolve, "re-merge conflicted .threadmind/ files"},
        {"stale", cmd_stale, "threads whose paths changed since their commit"},
        {"hook", cmd_hook, "entry point of the git hook stubs"},
};

static const char *const main_usage[] = {
        "git threadmind [--project <id>] [--no-color] [-q] <command> [<args>]",
        NULL,
};

static void print_commands(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s\n\ncommands:\n", main_usage[0]);
	for (i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		fprintf(f, "    %-10s %s\n", commands[i].name,
		        commands[i].summary);
	fprintf(f, "\n'git threadmind <command> -h' shows a command's "
	           "options.\n");
}

int main(int argc, const char **argv)
{
	static const struct option globals[] = {OPT_GLOBALS, OPT_END_()};
	const char *name;
	size_t i;
	int first = 1;

	/* Global options before the command name. */
	while (first < argc && argv[first][0] == '-') {
		const char *a = argv[first];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_commands(stdout);
			return EXIT_USAGE;
		}
		if (!strcmp(a, "--version")) {
			printf("git-threadmind version %s\n", TM_VERSION);
			return 0;
		}
		if (!strcmp(a, "--project") && first + 1 < argc) {
			global_opts.project = argv[first + 1];
			first += 2;
		} else if (!strncmp(a, "--project=", 10)) {
			global_opts.project = a + 10;
			first++;
		} else if (!strcmp(a, "--no-color")) {
			global_opts.no_color = true;
			first++;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			global_opts.quiet = true;
			first++;
		} else if (!strcmp(a, "--ascii")) {
			global_opts.ascii = true;
			first++;
		} else {
			fprintf(stderr, "error: unknown option '%s'\n", a);
			usage_with_options(main_usage, globals, false);
		}
	}
	name = first < argc ? argv[first] : "status";
	for (i = 0; i < sizeof(commands) / sizeof(*commands); i++) {
		if (strcmp(commands[i].name, name))
			continue;
		if (first < argc)
			return commands[i].fn(argc - first, argv + first);
		else {
			const char *only[] = {"status", NULL};

			return commands[i].fn(1, only);
		}
	}
	fprintf(stderr, "git threadmind: '%s' is not a threadmind command.\n\n",
	        name);
	print_commands(stderr);
	return EXIT_USAGE;
}
