/*
 * Option parsing shared by every command: a table of options, git-style
 * messages, `-h` prints the usage and exits 129, an unknown option is a
 * usage error (129).  Global options are part of every table (OPT_GLOBALS).
 */
#ifndef TM_CLI_OPT_H
#define TM_CLI_OPT_H

#include "lib/buf.h"

#include <stdbool.h>

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,   /* bool *value */
	OPT_STRING, /* const char **value */
	OPT_LIST,   /* tm_strv *value: repeatable, comma-separated */
	OPT_OPTARG, /* const char **value: `--x` stores defval, `--x=v` v
		       (only with an argh: without, `--x` takes no value) */
	OPT_GROUP   /* a heading in the usage text */
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
 * Options may come anywhere before `--`; positional arguments are moved to
 * the front of argv.  Returns the number of positional arguments.  On `-h`
 * / `--help` prints the usage on stdout and exits 129; on an unknown
 * option, a missing value or a bad value prints an error and the usage on
 * stderr and exits 129.
 */
int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage);

/*
 * Check the values of the global options once parsed (--color must be
 * always, never or auto): a usage error (129) otherwise.  parse_options
 * calls it; main() calls it for the options before the command name.
 */
void check_global_options(const char *const *usage, const struct option *opts);

/* Print "usage: …" and the options on stderr (or stdout) and exit 129. */
void usage_with_options(const char *const *usage, const struct option *opts,
			bool to_stdout) __attribute__((noreturn));

/* usage error with a message: "error: …" then the usage, exit 129. */
void usage_msg(const char *const *usage, const struct option *opts,
	       const char *fmt, ...) __attribute__((noreturn))
__attribute__((format(printf, 3, 4)));

#endif
