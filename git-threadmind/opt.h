/*
 * Option parsing shared by every command: a table of options, git-style
 * messages, `-h` prints the usage and exits 129, an unknown option is a
 * usage error (129).  Global options are part of every table (OPT_GLOBALS).
 */
#ifndef TM_CLI_OPT_H
#define TM_CLI_OPT_H

#include "threadmind/buf.h"

#include <stdbool.h>

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,   /* bool *value */
	OPT_STRING, /* const char **value */
	OPT_LIST,   /* tm_strv *value: repeatable, comma-separated */
	OPT_OPTARG, /* const char **value: `--x` stores defval, `--x=v` v
		       (only with an argh: without, `--x` takes no value) */
	OPT_GROUP,  /* a heading in the usage text */
	OPT_THREADS /* no option: the command's arguments name threads (an
		       unknown switch that is a thread's id is that thread) */
};

struct option {
	enum opt_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh; /* name of the argument in the usage */
	const char *help;
	const char *defval; /* OPT_OPTARG: the value of `--x` alone */
};

#define OPT_BOOL_(s, l, v, h)                            \
	{                                                \
		OPT_BOOL, (s), (l), (v), NULL, (h), NULL \
	}
#define OPT_STRING_(s, l, v, a, h)                        \
	{                                                 \
		OPT_STRING, (s), (l), (v), (a), (h), NULL \
	}
#define OPT_LIST_(s, l, v, a, h)                        \
	{                                               \
		OPT_LIST, (s), (l), (v), (a), (h), NULL \
	}
#define OPT_OPTARG_(l, v, a, h, d)                     \
	{                                              \
		OPT_OPTARG, 0, (l), (v), (a), (h), (d) \
	}
/* In the table of a command whose arguments are threads: see
 * parse_options. */
#define OPT_THREADS_()                                       \
	{                                                    \
		OPT_THREADS, 0, NULL, NULL, NULL, NULL, NULL \
	}
#define OPT_END_()                                       \
	{                                                \
		OPT_END, 0, NULL, NULL, NULL, NULL, NULL \
	}

/* Options accepted by every command (before or after its name). */
struct global_options {
	const char *project;
	const char *color; /* --color[=<when>] / --no-color: always, never,
			      auto; NULL: not given */
	bool quiet;
	bool ascii;
};
extern struct global_options global_opts;

#define OPT_GLOBALS                                                            \
	OPT_STRING_(0, "project", &global_opts.project, "id",                  \
		    "work on project <id>"),                                   \
		OPT_OPTARG_("color", &global_opts.color, "when",               \
			    "colour always (alone), never or auto", "always"), \
		OPT_OPTARG_("no-color", &global_opts.color, NULL,              \
			    "never use colour (--color=never)", "never"),      \
		OPT_BOOL_('q', "quiet", &global_opts.quiet,                    \
			  "say less on stderr"),                               \
		OPT_BOOL_(0, "ascii", &global_opts.ascii,                      \
			  "draw trees with ASCII characters")

/*
 * Parse argv[0..argc) (argv[0] is the command name and is skipped).
 * Options may come anywhere before `--`; every argument after `--` is a
 * positional one.  Positional arguments are moved to the front of argv.
 * Returns the number of positional arguments.
 *
 * A long option may be abbreviated to any prefix that names one option
 * (or one `--no-X` form of a boolean X) of the table, as git's
 * parse-options allows; an exact name always wins over an abbreviation,
 * and an ambiguous prefix is a usage error naming the candidates.
 *
 * `-h` prints the usage on stdout and exits 129; `--help` opens the
 * manual (open_manual).  An unknown option, a missing value or a bad
 * value prints an error and the usage on stderr and exits 129 -- except
 * in a table holding OPT_THREADS_(): there an unknown switch that is
 * exactly the id of a thread (cli_names_thread, decided once every
 * option, --project included, is parsed) is a positional argument, so
 * that ThreadMind 0.4's ids `-2`, `-3` work as `show -2`; when it names
 * no thread, the usage error adds a hint for `-- <id>`.
 */
int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage);

/* parse_options' ways (as git's PARSE_OPT_*): */
/* Stop at the first argument that is no option (after `--` too) and
 * return its index (argc when there is none); argv is left in order. */
#define PARSE_OPT_STOP_AT_NON_OPTION (1u << 0)
/* `-h` and `--help` are options like any other: the table's, if any. */
#define PARSE_OPT_NO_INTERNAL_HELP (1u << 1)
/*
 * parse_options with PARSE_OPT_* flags: main() parses the options before
 * the command name with the same rules as every command's (OPT_GLOBALS,
 * abbreviations, messages).  An option with no help text is accepted but
 * not listed in the usage.
 */
int parse_options_flags(int argc, const char **argv, const struct option *opts,
			const char *const *usage, unsigned flags);

/*
 * `<command> --help`: open the manual as `git <command> --help` does
 * (runs `git help git-threadmind`, which honours help.format and
 * man.viewer).  Exits 128 when git cannot be run.
 */
void open_manual(void) __attribute__((noreturn));

/* Print "usage: …" and the options on stderr (or stdout) and exit 129. */
void usage_with_options(const char *const *usage, const struct option *opts,
			bool to_stdout) __attribute__((noreturn));

/* usage error with a message: "error: …" then the usage, exit 129. */
void usage_msg(const char *const *usage, const struct option *opts,
	       const char *fmt, ...) __attribute__((noreturn))
__attribute__((format(printf, 3, 4)));

#endif
