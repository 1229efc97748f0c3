/*
 * What every command shares: opening the store (with the automatic 0.4
 * upgrade), the project worked on, resolving thread arguments; and, through
 * the headers included here, the options (opt.h), messages (usage.h),
 * colours (color.h) and JSON output (json-out.h).
 */
#ifndef TM_CLI_H
#define TM_CLI_H

#include "threadmind/threadmind.h"
#include "color.h"
#include "json-out.h"
#include "opt.h"
#include "usage.h"

#include <stdbool.h>
#include <stdio.h>

/* The store, project and config of the command being run. */
struct cli_state {
	tm_store *store;
	char *project; /* the project worked on */
	/* A JSON document was begun (cli_json_begin): no hint after it. */
	bool json_written;
	/* While a read command runs once per project with --json (main.c):
	 * each document is written as the member named cli.project of
	 * {"projects": {…}}; json_members counts those begun
	 * (json-out.c). */
	bool json_group;
	size_t json_members;
	/* While a read command runs once per project (main.c): every
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

/* The projects of a store with several and none active (and no
 * --project), sorted: what a command that runs once per project (main.c)
 * runs for.  False in every other case, errors included: the command
 * itself then reports them. */
bool cli_unchosen_projects(tm_strv *ids);

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
/* Load every thread of the project; warns once per unreadable file
 * (cli_warn_load_errors). */
void cli_load_all(tm_thread_list *out);
/* "warning: skipping FILE…" for each file that could not be read, saying
 * what to run when a merge left it conflicted. */
void cli_warn_load_errors(const tm_load_errors *errors);
/* The active thread config.json named moved (a same-id split gave its id
 * to someone else, DESIGN.md section 11): say so, and record `id`, where
 * that thread went (or the fallback), as the active one. */
void cli_follow_moved(const tm_active_moved *m, const char *id);
/* The active thread id of the project (section 3); malloc'd. */
char *cli_active_thread(const tm_thread *const *threads, size_t n);

/* A tm_store_warn_cb: "warning: skipping MSG" for an unreadable thread
 * file left out of an operation. */
void cli_warn_skipping(const char *msg, void *payload);

#endif
