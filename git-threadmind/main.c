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

/* What sets a command apart when it runs (struct command's flags). */
enum {
	/*
	 * A read command: in a store with several projects and none active (a
	 * fresh clone, DESIGN.md section 11) it runs once per project (run).
	 */
	CMD_EACH_PROJECT = 1u << 0,
	/* Under CMD_EACH_PROJECT, the command prints its own project header
	 * (status): run prints only the blank line between groups. */
	CMD_OWN_HEADER = 1u << 1,
	/*
	 * No hint after it when the clone lacks the merge driver
	 * (driver_hint): the hook, the shell prompt, `stale` (a CI gate: its
	 * lines are the answer a script reads, in clones that never merge)
	 * and the commands that set up or report it themselves.
	 */
	CMD_NO_DRIVER_HINT = 1u << 2,
};

struct command {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;
	unsigned flags; /* CMD_* */
};

#define EACH  CMD_EACH_PROJECT
#define QUIET CMD_NO_DRIVER_HINT

static const struct command commands[] = {
	{"init", cmd_init, "create .threadmind/ in this repository", QUIET},
	{"status", cmd_status, "project, active thread, counts, stale, lock",
	 EACH | CMD_OWN_HEADER},
	{"tree", cmd_tree, "show the thread tree", EACH},
	{"list", cmd_list, "one line per thread", EACH},
	{"show", cmd_show, "a thread's frontmatter and summary", 0},
	{"diff", cmd_diff, "what changed in the threads between versions", 0},
	{"log", cmd_log, "the commits that changed a thread, and how", 0},
	{"new", cmd_new, "create a thread", 0},
	{"switch", cmd_switch, "make a thread the active one", 0},
	{"summary", cmd_summary, "replace a thread's summary from a file", 0},
	{"edit", cmd_edit, "edit a thread's summary in your editor", 0},
	{"set", cmd_set, "change a thread's title, paths or branch", 0},
	{"touch", cmd_touch, "mark a thread's summary as reviewed at HEAD", 0},
	{"move", cmd_move, "give a thread a new parent", 0},
	{"done", cmd_done, "mark a thread done", 0},
	{"abandon", cmd_abandon, "mark a thread abandoned", 0},
	{"reopen", cmd_reopen, "make a finished thread active again", 0},
	{"merge", cmd_merge, "integrate a thread into its parent", 0},
	{"rm", cmd_rm, "delete a thread (children move up)", 0},
	{"project", cmd_project, "list, create or pick projects", 0},
	{"migrate", cmd_migrate, "upgrade a ThreadMind 0.4 store", QUIET},
	{"doctor", cmd_doctor, "check the store, repair what is safe", QUIET},
	{"install", cmd_install, "set up the merge driver, attributes, hooks",
	 QUIET},
	{"uninstall", cmd_uninstall, "remove what install added", QUIET},
	{"prompt", cmd_prompt, "the active thread's id, for a shell prompt",
	 QUIET},
	{"resolve", cmd_resolve, "re-merge conflicted .threadmind/ files", 0},
	{"stale", cmd_stale, "threads whose paths changed since their commit",
	 EACH | QUIET},
	{"hook", cmd_hook, "entry point of the git hook stubs", QUIET},
	{"help", cmd_help, "this list, or a command's usage", QUIET},
};
#undef EACH
#undef QUIET
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

/*
 * `name` is not a command: say so in one line, suggest the closest
 * commands (a command `name` is a prefix of scores best, then git's
 * weighted distance plus one), exit 1 as git does.
 */
static int unknown_command(const char *name)
{
	const char *names[NR_COMMANDS];
	int score[NR_COMMANDS];
	tm_buf closest = TM_BUF_INIT;
	size_t i, prefixes = 0;

	fprintf(stderr,
		"git threadmind: '%s' is not a threadmind command. "
		"See 'git threadmind help'.\n",
		cli_safe(name));
	for (i = 0; i < NR_COMMANDS; i++) {
		names[i] = commands[i].name;
		if (!strncmp(commands[i].name, name, strlen(name))) {
			score[i] = 0;
			prefixes++;
		} else
			score[i] =
				cli_edit_distance(name, commands[i].name) + 1;
	}
	if (prefixes != NR_COMMANDS &&
	    cli_closest(&closest, names, score, NR_COMMANDS))
		fprintf(stderr, "did you mean %s?\n", tm_buf_cstr(&closest));
	tm_buf_release(&closest);
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

/* Is the long option `opt` among the options, spelled out or abbreviated
 * (parse_options rejects a prefix that is ambiguous for the command)? */
static bool has_option(int argc, const char **argv, const char *opt)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		size_t len = strlen(argv[i]);

		if (len > 2 && !strncmp(argv[i], opt, len))
			return true;
	}
	return false;
}

/*
 * One hint line when this clone lacks the merge driver that the store's
 * .gitattributes asks for (install never ran here: git never runs setup
 * from a clone), at the end of an everyday command: not with -q, not after
 * JSON, not after a command flagged CMD_NO_DRIVER_HINT.
 */
static void driver_hint(const struct command *c)
{
	if (global_opts.quiet || cli.json_written || !cli.store ||
	    (c->flags & CMD_NO_DRIVER_HINT))
		return;
	if (tm_install_driver_missing(tm_store_git(cli.store),
				      tm_store_dirfd(cli.store)))
		note("hint: this clone has no merge driver for .threadmind/ "
		     "(merge.threadmind.driver is not set), so merges leave "
		     "conflict markers in thread files; run 'git threadmind "
		     "install' once per clone");
}

static void print_group_header(size_t i)
{
	tm_project *p = NULL;
	const char *title;

	if (i)
		putchar('\n');
	if (tm_store_load_project(&p, cli.store, cli.project) < 0)
		tm_error_clear();
	title = p ? tm_project_get(p, "title") : NULL;
	printf("%sproject: %s%s (%s)\n", cli_c("bold"), cli.project,
	       cli_c("reset"), title ? title : "");
	tm_project_free(p);
}

/*
 * Run command `c`.  A CMD_EACH_PROJECT command in a store with several
 * projects and none active (a fresh clone, DESIGN.md section 11) runs once
 * per project, sorted by id: each group headed by "project: <id>
 * (<title>)" (a CMD_OWN_HEADER command prints its own), one blank line
 * between groups; with --json one document {"projects": {"<id>": <the
 * command's document>, ...}}, streamed (see cli_json_begin).  Returns the
 * highest exit code.  Every other case: c->fn(argc, argv).
 */
static int run(const struct command *c, int argc, const char **argv)
{
	tm_strv ids = TM_STRV_INIT;
	const char **copy;
	bool each = c->flags & CMD_EACH_PROJECT, as_json, header;
	size_t i;
	int rc = 0;

	/* -h and --help run once, with no project header */
	for (i = 1; each && i < (size_t)argc && strcmp(argv[i], "--"); i++)
		each = strcmp(argv[i], "-h") && strcmp(argv[i], "--help");
	if (!each || !cli_unchosen_projects(&ids)) {
		rc = c->fn(argc, argv);
		driver_hint(c);
		return rc;
	}
	as_json = has_option(argc, argv, "--json");
	header = !as_json && !has_option(argc, argv, "--dot");
	cli.json_group = as_json;
	cli.json_members = 0;
	cli.group = &ids;
	copy = tm_xmalloc(sizeof(*copy) * ((size_t)argc + 1));
	for (i = 0; i < ids.n; i++) {
		int one;

		/* Each run parses its own copy: options reorder argv. */
		memcpy(copy, argv, sizeof(*copy) * ((size_t)argc + 1));
		global_opts.project = ids.items[i];
		if (header && !(c->flags & CMD_OWN_HEADER)) {
			/* The header needs the store: open it as the
			 * command will, then let the command reopen it. */
			cli_open_flags(CLI_OPEN_NO_UPGRADE);
			print_group_header(i);
		} else if (header && i) {
			putchar('\n');
		}
		tm_store_free(cli.store);
		cli.store = NULL;
		free(cli.project);
		cli.project = NULL;
		fflush(stdout);
		one = c->fn(argc, copy);
		if (one > rc)
			rc = one;
		if (i + 1 == ids.n)
			driver_hint(c);
		tm_store_free(cli.store);
		cli.store = NULL;
		free(cli.project);
		cli.project = NULL;
	}
	global_opts.project = NULL;
	if (cli.json_group)
		cli_json_group_end();
	cli.json_group = false;
	cli.group = NULL;
	free(copy);
	tm_strv_clear(&ids);
	return rc;
}

int main(int argc, const char **argv)
{
	bool short_help = false, long_help = false, version = false;
	/* The global options, and three that only come before a command
	 * name (no help text: not in the usage's list of options). */
	const struct option globals[] = {
		OPT_GLOBALS,
		OPT_BOOL_('h', NULL, &short_help, NULL),
		OPT_BOOL_(0, "help", &long_help, NULL),
		OPT_BOOL_(0, "version", &version, NULL),
		OPT_END_(),
	};
	const struct command *c;
	int first;

	/*
	 * Over the file-size limit (ulimit -f) a write fails with EFBIG
	 * instead of killing us with SIGXFSZ: the temp file and the lock are
	 * then removed and the error is a plain 'fatal:' (docs/SECURITY.md).
	 * Children get the default back (cli_exec_signals).
	 */
	signal(SIGXFSZ, SIG_IGN);
	/* color.ui and color.threadmind, asked on every run (cli_color) */
	tm_git_config_fast("color");
	first = parse_options_flags(argc, argv, globals, main_usage,
				    PARSE_OPT_STOP_AT_NON_OPTION |
					    PARSE_OPT_NO_INTERNAL_HELP);
	if (short_help) {
		print_commands(stdout);
		return EXIT_USAGE;
	}
	if (long_help) {
		/* `git threadmind --help` opens the manual: git turns it
		 * into `git help threadmind`; run directly, the list. */
		print_commands(stdout);
		return 0;
	}
	if (version) {
		printf("git-threadmind version %s\n", TM_VERSION);
		return 0;
	}
	if (first < argc) {
		c = find_command(argv[first]);
		if (!c)
			return unknown_command(argv[first]);
		return run(c, argc - first, argv + first);
	} else {
		const char *only[] = {"status", NULL};

		return run(find_command("status"), 1, only);
	}
}
