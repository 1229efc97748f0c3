/*
 * `git threadmind install` / `uninstall`: the hook stubs and the block added
 * to a user's hook script (install_hooks.c), the lines of the git files
 * (install_gitfiles.c) -- pure text functions -- and the plan of what to
 * write where: hooks, .threadmind/.gitattributes, the merge driver config
 * (install_plan.c).  Printing the plan is the CLI's (cmd-install.c).
 */
#ifndef TM_INSTALL_H
#define TM_INSTALL_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

struct tm_git;

/* The lines around our call in a hook script that is not ours. */
#define TM_INSTALL_BEGIN "# >>> threadmind >>>"
#define TM_INSTALL_END   "# <<< threadmind <<<"

/*
 * The merge driver as git is told about it (DESIGN.md sections 6 and 11).
 * git runs it with the shell, %O %A %B %P shell-quoted.  When
 * git-threadmind-merge cannot be run (not on the PATH of the process that
 * merges, or the shell's exit 127), `git merge-file` leaves both sides in %A
 * between markers of size %L and the merge is a conflict, so that no side
 * is lost; `git threadmind resolve` then merges the file by the rules.
 */
#define TM_INSTALL_DRIVER_KEY "merge.threadmind.driver"
#define TM_INSTALL_DRIVER                                                 \
	"if command -v git-threadmind-merge >/dev/null; then "            \
	"git-threadmind-merge %O %A %B %L %P; s=$?; test $s -ne 127 && "  \
	"exit $s; fi; echo git-threadmind-merge not found: %P merged as " \
	"text, run git threadmind resolve >&2; git merge-file "           \
	"--marker-size=%L -L ours -L base -L theirs %A %O %B; exit 1"
/* The registration of earlier versions: ours alone in %A when the binary
 * is missing. */
#define TM_INSTALL_DRIVER_OLD "git-threadmind-merge %O %A %B %L %P"
#define TM_INSTALL_NAME_KEY   "merge.threadmind.name"
#define TM_INSTALL_NAME       "threadmind thread and project files"

/*
 * The lines of .threadmind/.gitattributes, in order: our merge driver for
 * both, and git's built-in Markdown diff driver for thread files, so that
 * the hunk headers of `git diff` and `git log -p` name the `## ` section.
 */
#define TM_INSTALL_ATTR_THREADS  "threads/**/*.md merge=threadmind diff=markdown"
#define TM_INSTALL_ATTR_PROJECTS "projects/*.json merge=threadmind"
/* The thread line as earlier versions wrote it (upgraded in place). */
#define TM_INSTALL_ATTR_THREADS_OLD "threads/**/*.md merge=threadmind"

/*
 * Whether `value` of merge.threadmind.driver is an old-style registration:
 * it runs git-threadmind-merge through the PATH without the fallback of
 * TM_INSTALL_DRIVER (`install` upgrades it).
 */
bool tm_install_driver_is_old(const char *value);

/* The hooks threadmind installs, in order, NULL-terminated. */
extern const char *const tm_install_hook_names[];

/* True when `name` is one of tm_install_hook_names. */
bool tm_install_hook_known(const char *name);

/* ---- hook scripts (install_hooks.c) ---- */

/*
 * Append the stub file of hook `name` (a known hook name): a POSIX sh
 * script that runs `git-threadmind hook NAME "$@"` when git-threadmind is
 * on PATH and ends in `exit 0` (pre-commit: `exit 1` when the call exits 1,
 * its refusal).  Before that, in the shell alone (no process started), it
 * does nothing where the work tree has no .threadmind/, while
 * THREADMIND_HOOKS is off, while threadmind.hooks is false (`git -c`, or
 * the note TM_HOOK_OFF_NOTE of hooks.h while no config file is newer;
 * post-checkout asks `git config` once per checkout when the note is
 * there), and, for post-commit, while git replays commits (rebase,
 * cherry-pick or revert sequence, am).  hooks/NAME in the source tree
 * holds the same bytes.
 */
void tm_install_stub(tm_buf *out, const char *name);

/* True when `len` bytes at `data` are exactly the stub of hook `name`. */
bool tm_install_is_stub(const char *data, size_t len, const char *name);

/*
 * True when `len` bytes at `data` are exactly the stub an earlier version
 * wrote for hook `name` (one that always started git-threadmind):
 * install replaces it with the current stub, uninstall deletes it.
 */
bool tm_install_is_old_stub(const char *data, size_t len, const char *name);

/*
 * True when a hook file is a shell script that our block may go into: a
 * `#!` line naming sh, bash, dash, zsh, ksh, mksh, ash or posh (directly,
 * or through `/usr/bin/env [-S] NAME`), or text without a `#!` line (git
 * runs those with sh).  False for anything else (another interpreter, a
 * NUL byte, an ELF binary).
 */
bool tm_install_is_shell(const char *data, size_t len);

/*
 * True when the file holds a TM_INSTALL_BEGIN line (our block, complete or
 * not).
 */
bool tm_install_has_block(const char *data, size_t len);

/*
 * True when the file, outside our blocks, mentions `git-threadmind` or
 * `git threadmind`: a call added by hand (or a stub changed since install),
 * which install leaves alone.
 */
bool tm_install_calls_us(const char *data, size_t len);

/*
 * Append the one line a user adds by hand to call hook `name` from a
 * script (without a line end): `git-threadmind hook NAME "$@" || :`; for
 * pre-commit `git-threadmind hook pre-commit "$@" || [ $? -ne 1 ] || exit
 * 1`, so that its refusal (exit 1), and nothing else, stops the commit.
 */
void tm_install_call_line(tm_buf *out, const char *name);
/*
 * The language of a hook file, from its `#!` line: "sh" when
 * tm_install_is_shell, "python" (python, python3, …), "node" (node,
 * nodejs), directly or through `/usr/bin/env`; NULL when unknown.
 */
const char *tm_install_hook_language(const char *data, size_t len);
/*
 * Append the one line that calls hook `name` in language `lang` (as
 * tm_install_hook_language gives it): the sh line of tm_install_call_line,
 * a Python or a Node.js statement passing the hook's arguments (and stdin)
 * on and ignoring the exit status (pre-commit: exiting 1 when it exits 1);
 * for NULL (unknown) a plain instruction ("make it run 'git-threadmind
 * hook NAME' with the hook's arguments, …").
 */
void tm_install_call_line_in(tm_buf *out, const char *name, const char *lang);

/*
 * Why the threadmind block of hook `name` in `data` may not do its work
 * where it stands (a sentence, static), or NULL when it is where install
 * puts it or there is none: after a last command that may end the script
 * (an `exit` or `exec` in it), or, in post-rewrite, after the user's code
 * (which may read git's list on standard input first).  doctor's check:
 * the script is read (tm_install_insert's scanner), never run.
 */
const char *tm_install_block_misplaced(const char *data, size_t len,
				       const char *name);

/*
 * Insert our block for hook `name` into the shell script `data` (`len`
 * bytes); the whole new file goes to `out`.
 *
 * When the script's last top-level command (a list, a pipeline, a `case`
 * or `if` over several lines: tm_install__last_command) has `exit` or
 * `exec` in command position anywhere in it (`true; exit 0`, an `exit` in
 * a `case` branch, `exec cmd`), the block goes right above the first line
 * of that command, where it runs.  post-rewrite's block goes above the
 * script's code (after its `#!` line and the comment lines under it), so
 * that it reads git's list on stdin before the user's code can.  Otherwise it
 * is appended at the end, saving `$?` first and ending in `exit` with it, so
 * that the script's exit status is unchanged (git uses post-checkout's).  A
 * file that does not end in a line end gets one before the block, and the
 * block's last line then has none (so that tm_install_remove knows to take it
 * away again).  The block uses the file's line end (CRLF when its first line
 * ends so).  post-rewrite's block reads the rewritten list from stdin, passes
 * it to the hook and gives it back to the rest of the script on stdin;
 * pre-commit's exits 1 when the hook does (its refusal), and only then.
 *
 * A file that already holds our block is first taken back to what it was
 * without it (tm_install_remove), so that `out` is always the file with one
 * current block.  Errors: TM_EPARSE when a block has no end line.
 */
int tm_install_insert(tm_buf *out, const char *data, size_t len,
		      const char *name);

/*
 * Remove every block of ours (TM_INSTALL_BEGIN line to TM_INSTALL_END
 * line, both included, whatever is between) from `data` and append the
 * rest to `out`: the bytes as they were before tm_install_insert, exactly.
 * A file without a block is copied as is.  Errors: TM_EPARSE when a block
 * has no end line (nothing is appended).
 */
int tm_install_remove(tm_buf *out, const char *data, size_t len);

/*
 * True when nothing but a `#!` line, blank lines and line ends remains: a
 * hook file that was only our block, which uninstall deletes.
 */
bool tm_install_is_empty_script(const char *data, size_t len);

/* ---- git files (install_gitfiles.c) ---- */

/*
 * .threadmind/.gitattributes: append to `out` the file with our two lines
 * added where missing (at the end, after a line end when the file lacks
 * one).  A line of ours counts as present when lines with its pattern
 * (one or several, whatever else they set) set `merge=threadmind` and say
 * something of each other attribute of ours: `-diff` or `diff=other` is
 * the user's choice and stays.  A line that is exactly an old form
 * (TM_INSTALL_ATTR_THREADS_OLD) of a line not present is replaced in place
 * by the current line; other lines are never changed.  Returns true when
 * something was added or upgraded.
 */
bool tm_install_attributes_add(tm_buf *out, const char *data, size_t len);

/*
 * Whether a .gitattributes text asks for our merge driver: a line (not a
 * comment) giving some pattern `merge=threadmind`.
 */
bool tm_install_attributes_ask_driver(const char *data, size_t len);

/*
 * The opposite: append the file without the lines that are exactly ours,
 * current or old forms (attributes in any order, blanks between words
 * ignored).  Returns true when a line was removed.
 */
bool tm_install_attributes_remove(tm_buf *out, const char *data, size_t len);

/*
 * A git config file without an empty `[merge "threadmind"]` section header:
 * the line git and libgit2 leave behind once the last key of the section
 * is removed.  The header goes only when nothing but blank lines follows it
 * up to the next section or the end (a comment keeps it).  Appends the
 * file to `out`, and returns true when the header was dropped.
 */
bool tm_install_config_drop_section(tm_buf *out, const char *data, size_t len);

/* ---- where the hooks go (install_hooks.c) ---- */

/*
 * Where git runs the hooks, into *out (malloc'd, no trailing '/'):
 * `hooks_path` (core.hooksPath; NULL or "" when unset) with a leading `~/`
 * taken from `home` (and `~user/` from the password database), relative to
 * `workdir` (the worktree root, where git runs hooks) or, in a bare
 * repository (`workdir` NULL), to `gitdir`; unset: `commondir`/hooks, the
 * folder that every worktree of the repository shares.  Errors: TM_EINVALID
 * for a `~` that cannot be expanded.
 */
int tm_install_hooks_path(char **out, const char *hooks_path,
			  const char *workdir, const char *gitdir,
			  const char *commondir, const char *home);

/*
 * Whether this clone lacks the merge driver that the store asks for:
 * the .gitattributes of the store folder open as `store_dirfd` (not closed)
 * asks for it (tm_install_attributes_ask_driver)
 * and merge.threadmind.driver is not set in g's config, so that a
 * merge of thread files would leave conflict markers (the usual clone where
 * `install` never ran).  Cheap enough for every command: one small file
 * read, and the config only when the file asks.  False when anything cannot
 * be read; never fails, leaves no error.
 */
bool tm_install_driver_missing(struct tm_git *g, int store_dirfd);

/* ---- the plan: what install / uninstall would change ---- */

typedef enum {
	TM_INSTALL_SET_CONFIG,   /* set `key` = `value` in the config `path` */
	TM_INSTALL_UNSET_CONFIG, /* remove `key` from the config `path` */
	TM_INSTALL_WRITE_FILE,   /* create or replace `path` with `data` */
	TM_INSTALL_DELETE_FILE,  /* remove `path` */
	TM_INSTALL_MANUAL        /* cannot be done here: see `what`, `data` */
} tm_install_kind;

typedef struct {
	tm_install_kind kind;
	bool done;    /* already so: nothing to do */
	bool refused; /* MANUAL: install must not go on without it */
	bool applied; /* set by tm_install_apply when it did the step */
	char *what;   /* one line for people ("hook 'post-commit': …") */
	char *path;   /* the file (for config steps: the config file) */
	bool global;  /* config steps: the global file (`git config
			 --global`) */
	char *key;    /* config steps */
	char *value;  /* SET_CONFIG */
	char *data;   /* WRITE_FILE: the new content; MANUAL: the line to
			 add by hand (or NULL) */
	size_t len;
	unsigned mode; /* WRITE_FILE of a new file: its permission bits */
	bool make_dir; /* WRITE_FILE: its folder does not exist yet */
	bool existed;  /* WRITE_FILE / DELETE_FILE: the file existed when
			  planned, holding `old` */
	char *old;
	size_t old_len;
	/* A step about the hook manager (its config, its scripts, its
	 * hooks): `doctor` reports it when not done, as `finding` says
	 * (or `what`). */
	bool manager;
	char *finding;
} tm_install_step;

typedef struct {
	tm_install_step *steps;
	size_t n;
	size_t alloc;
	char *hooks_dir; /* where the hooks go (NULL without a repository) */
	/* The hook manager that runs the hooks (TM_INSTALL_MANAGER_NONE:
	 * git runs them from hooks_dir), and its config file or, for husky,
	 * the folder of its scripts (NULL for none). */
	int manager;
	char *manager_file;
} tm_install_plan;

#define TM_INSTALL_PLAN_INIT              \
	{                                 \
		NULL, 0, 0, NULL, 0, NULL \
	}

typedef struct {
	unsigned version;
	bool uninstall;   /* plan the removal instead */
	bool global;      /* the merge driver config in the global file */
	bool attributes;  /* uninstall: also remove the attribute lines */
	const char *home; /* HOME, for `~/` in core.hooksPath (may be NULL) */
} tm_install_options;

#define TM_INSTALL_OPTIONS_VERSION 1
#define TM_INSTALL_OPTIONS_INIT                                       \
	{                                                             \
		TM_INSTALL_OPTIONS_VERSION, false, false, false, NULL \
	}

/*
 * Plan install (or, with opts->uninstall, uninstall) into `out` (cleared
 * first; free with tm_install_plan_clear).  Reads only.
 *
 * Steps, in order: the two merge driver keys in the repository's config
 * (`commondir`/config) or, with opts->global, the global one (git's rules:
 * ~/.gitconfig unless only the XDG file exists); when `store_dir` (the
 * .threadmind folder) is given, .threadmind/.gitattributes (on uninstall
 * only with opts->attributes: the lines removed, the file deleted when
 * nothing else is left); with `g`, one step per hook in the folder of
 * tm_install_hooks_path.
 *
 * Hooks on install: missing → our stub (mode 0755); our stub → done; the
 * stub of an earlier version (tm_install_is_old_stub) → replaced; a
 * file calling us outside a block → done (left alone); a shell script →
 * our block inserted (done when the block is already current); a symbolic
 * link, a file that is not executable (git would not run it) or over
 * 1 MiB → a refused MANUAL step whose `data` is the line to add by hand; an
 * executable file that is not a shell script → a MANUAL step that is not
 * refused (everything else is installed), whose `data` is the line to add
 * in the hook's language (tm_install_call_line_in).  On uninstall: our stub
 * or an earlier one → deleted; a script with our block → the block removed (the
 * file deleted when only a `#!` line would be left); a file calling us by hand
 * → a MANUAL step (not refused); anything else → done.
 *
 * `g` NULL (outside a repository) plans only the config steps, and then
 * needs opts->global.  Errors: TM_EINVALID for that, or for a `~` in
 * core.hooksPath that cannot be expanded; TM_ERROR when a file or the
 * config cannot be read.
 */
int tm_install_plan_make(tm_install_plan *out, struct tm_git *g,
			 const char *store_dir, const tm_install_options *opts);

/* Free what the plan holds and empty it (it may be reused). */
void tm_install_plan_clear(tm_install_plan *plan);

/* True when a step is refused (install must change nothing). */
bool tm_install_plan_refused(const tm_install_plan *plan);

/*
 * Carry out the steps that are neither done nor MANUAL, in order, setting
 * `applied` on each.  Files are written atomically (a new file gets the
 * step's mode; a replaced one keeps its own); the hook folder is created
 * when missing.  Before each file step the file is checked to still be as
 * planned.  Stops at the first failure.
 *
 * Errors: TM_EINVALID when the plan holds a refused step (nothing is
 * done); TM_ECONFLICT when a file changed since it was planned ("run it
 * again"); TM_ERROR when a file or the config cannot be written.
 */
int tm_install_apply(tm_install_plan *plan);

/* ---- hook managers (install_managers.c, install_manager_plan.c) ---- */

/*
 * The hook managers install goes through (docs/hooks.md): husky (its
 * scripts `.husky/<hook>`), lefthook (its config file) and the pre-commit
 * framework (.pre-commit-config.yaml).  Their own hook files, which they
 * write again at will, are never ours to change.
 */
typedef enum {
	TM_INSTALL_MANAGER_NONE = 0,
	TM_INSTALL_MANAGER_HUSKY,
	TM_INSTALL_MANAGER_LEFTHOOK,
	TM_INSTALL_MANAGER_PRE_COMMIT
} tm_install_manager;

/* "husky", "lefthook", "pre-commit"; NULL for NONE. */
const char *tm_install_manager_name(tm_install_manager m);

/*
 * Which manager wrote the hook file `data` (its stub): pre-commit
 * ("File generated by pre-commit"), lefthook (`call_lefthook`, `lefthook
 * run`), husky (9: `. "$(dirname "$0")/h"`; 4 to 8: husky.sh); NONE.
 */
tm_install_manager tm_install_manager_stub(const char *data, size_t len);

/* The `--config=` file a pre-commit stub names (malloc'd), or NULL. */
char *tm_install_pre_commit_stub_config(const char *data, size_t len);

/*
 * Append the shell command a manager runs for hook `name`, `args` (may be
 * NULL) after the name: nothing when git-threadmind is not on PATH (a
 * teammate without it commits as before), else `git-threadmind hook NAME
 * ARGS`, its exit status ignored, except pre-commit's 1 (its refusal):
 * `command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook
 * NAME ARGS || :` (pre-commit: `|| [ $? -ne 1 ]`).
 */
void tm_install_manager_command(tm_buf *out, const char *name,
				const char *args);

/*
 * True when a config or script calls hook `name` by hand: the text outside
 * our blocks holds `threadmind hook NAME` (`git-threadmind hook NAME` or
 * `git threadmind hook NAME`); install leaves that hook alone.
 */
bool tm_install_manager_calls(const char *data, size_t len, const char *name);

/*
 * A husky script (`.husky/<hook>`, which husky 9 runs with `sh -e`): our
 * block inserted as tm_install_insert does, except that a block appended
 * at the end does not end the script (it gives back the status the script
 * had, `(exit $threadmind_status)`, so that lines added after it still
 * run), and pre-commit's call cannot be stopped half-way by `sh -e`.  An
 * empty `data` gives the file that is only our block.  Errors: as
 * tm_install_insert.
 */
int tm_install_husky_insert(tm_buf *out, const char *data, size_t len,
			    const char *name);

typedef enum {
	TM_INSTALL_CONFIG_YAML,
	TM_INSTALL_CONFIG_TOML,
	TM_INSTALL_CONFIG_JSON
} tm_install_config_format;

/*
 * lefthook's config (YAML) `data` with the command `threadmind` of each
 * hook of `names` (NULL-terminated), appended to `out`; our blocks already
 * there are first taken out, as tm_install_insert does.  A hook key that
 * is absent goes at the end, as a top-level key; one that is a block map
 * gets our command in its block map `commands` (added when it has neither
 * `commands` nor `jobs`), or our job at the head of its block list `jobs`.
 * Each insertion is a block between TM_INSTALL_BEGIN / TM_INSTALL_END
 * lines at column 0, so tm_install_remove restores the file byte for
 * byte.  The command: tm_install_manager_command with lefthook's `{1} {2}
 * {3}` (post-checkout), `{1}` (post-merge, post-rewrite, which also gets
 * `use_stdin: true`).  Errors: TM_EPARSE when it is not YAML; TM_EINVALID
 * when a key is in a form this cannot edit safely (a flow collection, an
 * alias, an anchor or a tag, a merge key, a `threadmind` command already
 * there, several documents, line breaks other than LF and CRLF): the
 * message says which; nothing is appended then.
 */
int tm_install_lefthook_add(tm_buf *out, const char *data, size_t len,
			    const char *const *names);

/*
 * The same for lefthook.toml: the tables `[NAME.commands.threadmind]`
 * appended in one block.  TM_EINVALID when NAME is given in a form such a
 * table cannot be added to (a value, an inline table, dotted keys on the
 * way) or ours is there already.
 */
int tm_install_lefthook_toml_add(tm_buf *out, const char *data, size_t len,
				 const char *const *names);

/* The lines a person adds to lefthook's config for `names`, in `format`
 * (top-level keys; JSON: members of the top-level object). */
void tm_install_lefthook_snippet(tm_buf *out, const char *const *names,
				 tm_install_config_format format);

/*
 * pre-commit's config `data` with one `repo: local` entry holding a hook
 * `threadmind-NAME` per hook of `names` (`language: system`, `stages:
 * [NAME]`, `always_run: true`, `pass_filenames: false`, `verbose: true`
 * so that its lines are shown; its entry `sh -c '…'` of
 * tm_install_manager_command), at the head of the block list `repos` (or
 * a new top-level `repos`), and `default_install_hook_types` given every
 * hook type of ours: a block list gets the missing ones, an absent key is
 * added with them and `pre-commit`, pre-commit's own default.  When that
 * key is in another form (a flow list `[…]`), the types it lacks are
 * pushed to `types_left` and the rest is still done.  The pre-commit
 * hook's stage is `commit` (pre-commit before 3.2 knows no other) unless
 * minimum_pre_commit_version asks for 3.2 or later.  `names` may be empty
 * (every hook called by hand): only the types then.  Errors: as
 * tm_install_lefthook_add (`repos` not a block list).
 */
int tm_install_pre_commit_add(tm_buf *out, tm_strv *types_left,
			      const char *data, size_t len,
			      const char *const *names);

/* The lines a person adds to pre-commit's config `data` for `names`. */
void tm_install_pre_commit_snippet(tm_buf *out, const char *const *names,
				   const char *data, size_t len);

/* What runs the hooks of a repository (tm_install_manager_detect). */
typedef struct {
	tm_install_manager kind;
	/* git runs the manager's hooks: husky's folder is core.hooksPath,
	 * lefthook's or pre-commit's stubs are in the hooks folder */
	bool active;
	/* husky 4 to 8: core.hooksPath is the scripts' folder itself, whose
	 * files git runs as hooks (installed as plain hooks) */
	bool plain;
	/* husky: the folder of its scripts; lefthook, pre-commit: the
	 * config file (the default name when there is none yet) */
	char *file;
	bool file_exists;
	tm_install_config_format format;
	char *hooks_dir; /* where git runs the hooks */
} tm_install_manager_info;

void tm_install_manager_info_clear(tm_install_manager_info *info);

/*
 * Find the hook manager of repository `g` (`home` for `~/` in
 * core.hooksPath), in this order: core.hooksPath naming husky's folder
 * (`…/.husky/_`, or a `_` folder holding husky's `h`; `…/.husky`: husky 4
 * to 8); a stub of lefthook or pre-commit among our hooks in the hooks
 * folder; then the work tree's files: a `.husky/` folder (when
 * core.hooksPath is unset), a lefthook config (`lefthook.yml`, `.yaml`,
 * `.toml`, `.json`, also with a leading dot or under `.config/`), a
 * `.pre-commit-config.yaml`.  NONE in a bare repository.  Errors: as
 * tm_install_hooks_path; TM_ERROR when a file cannot be read.
 */
int tm_install_manager_detect(tm_install_manager_info *out, struct tm_git *g,
			      const char *home);

#endif
