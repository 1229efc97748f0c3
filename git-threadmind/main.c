/*
 * git-threadmind: the `git threadmind <command>` entry point.  Global
 * options, then the command table; each command lives in cmd-<name>.c.
 */
#include "builtin.h"
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmd_help(int argc, const char **argv);

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
	{"diff", cmd_diff, "what changed in the threads between versions"},
	{"log", cmd_log, "the commits that changed a thread, and how"},
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
	{"help", cmd_help, "this list, or a command's usage"},
};
#define NR_COMMANDS (sizeof(commands) / sizeof(*commands))

static const char *const main_usage[] = {
	"git threadmind [--project <id>] [--color[=<when>] | --no-color] [-q] "
	"[--ascii] <command> [<args>]",
	"git threadmind --version",
	NULL,
};

static const char *const help_usage[] = {
	"git threadmind help [<command>]",
	NULL,
};

static void print_commands(FILE *f)
{
	size_t i;

	for (i = 0; main_usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "   or: " : "usage: ", main_usage[i]);
	fputs("\ncommands:\n", f);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "    %-10s %s\n", commands[i].name,
			commands[i].summary);
	fputs("\n'git threadmind help <command>' shows a command's usage and "
	      "options;\n'git help threadmind' opens the manual.\n",
	      f);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Scores below this are similar enough to suggest (as git's help.c). */
#define SIMILARITY_FLOOR CLI_SIMILARITY_FLOOR

/*
 * `name` is not a command: say so in one line, suggest the closest
 * commands (a command `name` is a prefix of scores best, then git's
 * weighted distance plus one), exit 1 as git does.
 */
static int unknown_command(const char *name)
{
	int score[NR_COMMANDS], best = SIMILARITY_FLOOR;
	size_t i, n = 0, shown = 0, prefixes = 0;

	fprintf(stderr,
		"git threadmind: '%s' is not a threadmind command. "
		"See 'git threadmind help'.\n",
		cli_safe(name));
	for (i = 0; i < NR_COMMANDS; i++) {
		if (!strncmp(commands[i].name, name, strlen(name))) {
			score[i] = 0;
			prefixes++;
		} else
			score[i] =
				cli_edit_distance(name, commands[i].name) + 1;
		if (score[i] < best)
			best = score[i];
	}
	if (prefixes == NR_COMMANDS || best >= SIMILARITY_FLOOR)
		return EXIT_NEGATIVE;
	for (i = 0; i < NR_COMMANDS; i++)
		n += score[i] == best;
	fputs("did you mean ", stderr);
	for (i = 0; i < NR_COMMANDS; i++) {
		if (score[i] != best)
			continue;
		shown++;
		fprintf(stderr, "%s'%s'",
			shown == 1   ? ""
			: shown == n ? " or "
				     : ", ",
			commands[i].name);
	}
	fputs("?\n", stderr);
	return EXIT_NEGATIVE;
}

/*
 * `help <command>`: what `<command> -h` prints, with exit 0.  Commands
 * print their usage and exit 129 from inside their option parsing, so the
 * command runs in a child and its 129 becomes 0 here.
 */
static int command_usage(const struct command *c)
{
	const char *argv[] = {c->name, "-h", NULL};
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fatal: cannot fork");
		return EXIT_FATAL;
	}
	if (!pid)
		exit(c->fn(2, argv));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("fatal: waitpid");
			return EXIT_FATAL;
		}
	if (!WIFEXITED(status))
		return EXIT_FATAL;
	return WEXITSTATUS(status) == EXIT_USAGE ? 0 : WEXITSTATUS(status);
}

static int cmd_help(int argc, const char **argv)
{
	static const struct option opts[] = {OPT_GLOBALS, OPT_END_()};
	const struct command *c;

	argc = parse_options(argc, argv, opts, help_usage);
	if (argc > 1)
		usage_msg(help_usage, opts, "too many arguments");
	if (!argc) {
		print_commands(stdout);
		return 0;
	}
	c = find_command(argv[0]);
	if (!c)
		return unknown_command(argv[0]);
	return command_usage(c);
}

int main(int argc, const char **argv)
{
	static const struct option globals[] = {OPT_GLOBALS, OPT_END_()};
	const struct command *c;
	const char *name;
	int first = 1;

	/*
	 * Over the file-size limit (ulimit -f) a write fails with EFBIG
	 * instead of killing us with SIGXFSZ: the temp file and the lock are
	 * then removed and the error is a plain 'fatal:' (docs/SECURITY.md).
	 * Children get the default back (cli_exec_signals).
	 */
	signal(SIGXFSZ, SIG_IGN);
	/* color.ui and color.threadmind, asked on every run (cli_color) */
	tm_git_config_fast("color");
	/* Global options before the command name. */
	while (first < argc && argv[first][0] == '-') {
		const char *a = argv[first];

		if (!strcmp(a, "-h")) {
			print_commands(stdout);
			return EXIT_USAGE;
		}
		if (!strcmp(a, "--help")) {
			/* `git threadmind --help` opens the manual: git turns
			 * it into `git help threadmind`; run directly, the
			 * list. */
			print_commands(stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			printf("git-threadmind version %s\n", TM_VERSION);
			return 0;
		}
		if (!strcmp(a, "--project")) {
			if (first + 1 >= argc)
				usage_msg(main_usage, globals,
					  "option '--project' requires a "
					  "value");
			global_opts.project = argv[first + 1];
			first += 2;
		} else if (!strncmp(a, "--project=", 10)) {
			global_opts.project = a + 10;
			first++;
		} else if (!strcmp(a, "--color")) {
			global_opts.color = "always";
			first++;
		} else if (!strncmp(a, "--color=", 8)) {
			global_opts.color = a + 8;
			first++;
		} else if (!strcmp(a, "--no-color")) {
			global_opts.color = "never";
			first++;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			global_opts.quiet = true;
			first++;
		} else if (!strcmp(a, "--ascii")) {
			global_opts.ascii = true;
			first++;
		} else {
			usage_msg(main_usage, globals, "unknown option '%s'",
				  a);
		}
	}
	check_global_options(main_usage, globals);
	name = first < argc ? argv[first] : "status";
	c = find_command(name);
	if (!c)
		return unknown_command(name);
	if (first < argc)
		return cli_run(c->name, c->fn, argc - first, argv + first);
	else {
		const char *only[] = {"status", NULL};

		return cli_run(c->name, c->fn, 1, only);
	}
}
