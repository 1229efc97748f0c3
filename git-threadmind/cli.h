/*
 * What every command shares: fatal errors, opening the store (with the
 * automatic 0.4 upgrade), resolving thread arguments, colours, JSON output.
 */
#ifndef TM_CLI_H
#define TM_CLI_H

#include "threadmind/threadmind.h"
#include "opt.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define EXIT_NEGATIVE 1
#define EXIT_FATAL    128
#define EXIT_USAGE    129

/* Flags of a thread in output, beside TM_TREE_ORPHAN / TM_TREE_CYCLE. */
#define CLI_FLAG_STALE      (1u << 8)
#define CLI_FLAG_UNREADABLE (1u << 9)
/* Text output only: staleness awaits a summary (tm_stale_awaits_summary). */
#define CLI_FLAG_NO_SUMMARY (1u << 10)
/* merged, holding lines its parent lacks (lib/include/threadmind/reintegrate.h)
 */
#define CLI_FLAG_UNINTEGRATED (1u << 11)

/* git's weighted edit distance (with adjacent transpositions) from `typed`
 * to `name`, for "did you mean" suggestions; only scores below
 * CLI_SIMILARITY_FLOOR are close enough to suggest (git's help.c). */
#define CLI_SIMILARITY_FLOOR 7
int cli_edit_distance(const char *typed, const char *name);

/* The store, project and config of the command being run. */
struct cli_state {
	tm_store *store;
	char *project; /* the project worked on */
	/* While a read command runs once per project with --json (cli_run):
	 * each document is written as the member named cli.project of
	 * {"projects": {…}}; json_members counts those begun. */
	bool json_group;
	size_t json_members;
	/* While a read command runs once per project (cli_run): every
	 * project of the run, so that an option naming something one of them
	 * has (list --status <custom>) is checked against all; else NULL. */
	const tm_strv *group;
};
extern struct cli_state cli;

/* The one line `init` and `install` print for a teammate (DESIGN.md
 * section 11): the merge driver config and the hooks are per clone. */
#define CLI_TEAMMATE_HINT                                                 \
	"hint: after cloning, each teammate puts git-threadmind and "     \
	"git-threadmind-merge on PATH and runs 'git threadmind install' " \
	"(once per clone; 'git threadmind install --global' once per user)"

/* "fatal: …" on stderr, exit 128. */
void die(const char *fmt, ...) __attribute__((noreturn))
__attribute__((format(printf, 1, 2)));
/* die() with the library's last error message. */
void die_lib(void) __attribute__((noreturn));
/* "warning: …" on stderr (always: warnings are not silenced by -q). */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * -q silences what git's -q does: the informational lines that are not the
 * command's output.  note() is such a line on stderr ("Created thread …",
 * hints); inform() one on stdout, where a command reports what it did
 * (install's steps, migrate's changes, resolve's "resolved FILE", doctor's
 * repairs).  Errors, warnings and what a command was asked to print (a
 * list, a tree, an id, --manual's script, --dry-run's report, doctor's
 * findings) are never silenced.
 */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void inform(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* PREFIX, the formatted message and a newline on stderr, control
 * characters shown as '?' (what die, warning and note print with). */
void cli_vreport(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* In a child about to exec another program: the signal dispositions
 * main() changed (SIGXFSZ ignored) back to their defaults. */
void cli_exec_signals(void);
/*
 * `s` as human-readable output shows it: control characters as '?'
 * (DESIGN.md section 11, "Titles"; NULL gives "").  The text lives in one
 * of 8 buffers used in turn: valid until 8 more calls, enough for one
 * printf.
 */
const char *cli_safe(const char *s);

/*
 * Find the store from the current folder and pick the project (--project,
 * else the active one).  Runs the 0.4 upgrade first when needed (one line on
 * stderr).  Dies when there is no store.
 */
void cli_open(void);

/*
 * Where to look for the store from (malloc'd): the current folder, or,
 * with GIT_DIR / GIT_WORK_TREE in the environment, the root of the work
 * tree git would use.  With `need` (init), a bare repository is fatal
 * ("this operation must be run in a work tree", as git says).
 */
char *cli_work_tree(bool need);

/* What cli_open_flags leaves out. */
#define CLI_OPEN_QUIET_MISSING (1u << 0) /* no store: return false */
#define CLI_OPEN_NO_UPGRADE    (1u << 1) /* leave a 0.4 store as it is */
#define CLI_OPEN_NO_PROJECT    (1u << 2) /* cli.project stays NULL */
/*
 * cli_open with parts left out (CLI_OPEN_* flags): `migrate --dry-run`
 * must not upgrade, `doctor` and `project` must work without a current
 * project (or with a config.json that does not parse).  Returns false only
 * with CLI_OPEN_QUIET_MISSING and no store; dies on every other error.
 */
bool cli_open_flags(unsigned flags);

/*
 * Run command `name` (its cmd_<name> is `fn`).  A read command (status,
 * tree, list, stale) in a store with several projects and none active (a
 * fresh clone, DESIGN.md section 11) runs once per project, sorted by id:
 * each group headed by "project: <id> (<title>)" (status prints its own),
 * one blank line between groups; with --json one document
 * {"projects": {"<id>": <the command's document>, ...}}, streamed (see
 * cli_json_begin).  Returns the highest exit code.  Every other case:
 * fn(argc, argv).
 */
int cli_run(const char *name, int (*fn)(int argc, const char **argv), int argc,
	    const char **argv);

/*
 * cli_open for a command naming one thread (`show <thread>`): with several
 * projects and none active, the project is the only one holding a thread
 * `arg` resolves to; dies naming the projects when none or several do.
 */
void cli_open_for_thread(const char *arg);

/*
 * The `paths` entries typed by the user (`new --paths`, `set paths=`),
 * rewritten in place as stored: relative to the current folder, from the
 * repository root (tm_paths_normalize).  Dies (128) on a path outside the
 * work tree; warns for each entry that matches nothing in HEAD, the index
 * or the work tree (kept).  Needs cli_open first.
 */
void cli_normalize_paths(tm_strv *paths);

/*
 * Is `arg` exactly the id of a thread of the project the command will work
 * on (--project, else the current one; with several projects and none
 * active, of any of them)?  What parse_options asks about an unknown
 * switch in a command taking threads (ThreadMind 0.4's ids `-2`, `-3`).
 * Opens the store on its own; false when there is none or it cannot be
 * read.
 */
bool cli_names_thread(const char *arg);

/* Resolve a thread argument (id or unique prefix) in cli.project; dies on
 * an invalid, unknown (suggesting the closest ids) or ambiguous one.
 * malloc'd id. */
char *cli_resolve_thread(const char *arg);
/* The thread a command works on: argv[0] resolved (when argc > 0), else
 * the active thread, as `show` does.  malloc'd id. */
char *cli_thread_arg(int argc, const char **argv);
/* Load a thread by (resolved) id; dies when it cannot be read. */
tm_thread *cli_load_thread(const char *id);
/* Load every thread of the project; warns once per unreadable file. */
void cli_load_all(tm_thread_list *out);
/* The active thread id of the project (section 3); malloc'd. */
char *cli_active_thread(const tm_thread *const *threads, size_t n);

/* A tm_store_warn_cb: "warning: skipping MSG" for an unreadable thread
 * file left out of an operation. */
void cli_warn_skipping(const char *msg, void *payload);

/* Colour: decided once from --color / --no-color, NO_COLOR,
 * color.threadmind, color.ui (a bad value is fatal, naming the key) and,
 * for auto, whether stdout is a terminal whose TERM is not "dumb". */
bool cli_color(void);
/* The escape sequence for a colour name ("red", "green", "yellow", "dim",
 * "bold", "cyan", "reset") or "" when colour is off. */
const char *cli_c(const char *name);
/* Draw trees with box-drawing characters (UTF-8 locale and no --ascii)? */
bool cli_unicode(void);

/* Print a JSON document (cJSON tree, consumed) on stdout with a newline:
 * cli_json_begin, cli_json_put of its text, cli_json_end. */
struct cJSON;
void cli_print_json(struct cJSON *doc);
/*
 * A JSON document written piece by piece, as list and tree stream theirs:
 * cli_json_begin() first, cli_json_put() for each piece of the text
 * JSON.stringify(doc, null, 2) writes, cli_json_end() last.  Under cli_run's
 * grouping the document becomes the member "<cli.project>" of
 * {"projects": {…}}: begin writes the member's key, put indents every new
 * line two levels more, end leaves the newline to the group, so that the
 * group streams as well (memory: what the command holds, one project at a
 * time).
 */
void cli_json_begin(void);
void cli_json_put(const char *text, size_t len);
void cli_json_puts(const char *text);
/* cli_json_put with `indent` more spaces after each newline of `text` (a
 * nested value's JSON.stringify text placed at its depth). */
void cli_json_put_indented(const char *text, size_t len, size_t indent);
void cli_json_end(void);
/* `v` as JSON.stringify(v, null, 2) writes it, appended to `out`, with DEL
 * and the C1 controls escaped too (no control character reaches the
 * terminal: DESIGN.md section 11). */
void cli_json_text(tm_buf *out, const struct cJSON *v);
/* A thread as the JSON object of docs/json.md (no children). */
struct cJSON *cli_thread_json(const tm_thread *t, bool active, unsigned flags);

#endif
