/*
 * The few things threadmind asks of git, through libgit2: finding the
 * repository, HEAD and the current branch, config values, the user.
 * libgit2 types stay inside git.c.
 */
#ifndef TM_GIT_H
#define TM_GIT_H

#include "buf.h"
#include "conflict.h"

#include <stdbool.h>
#include <stddef.h>

/* An open repository (opaque). */
typedef struct tm_git tm_git;

/*
 * Open the repository containing `path`, walking up its parent folders,
 * into *out (free it with tm_git_free).  libgit2 is initialised on the
 * first call (once, thread-safe).
 *
 * With `from_env` false, only `path` counts.  With `from_env` true this
 * function READS THE ENVIRONMENT the way git does: GIT_DIR (then `path`
 * is not searched: GIT_DIR is the git dir, relative to the current
 * directory), GIT_WORK_TREE, GIT_CEILING_DIRECTORIES,
 * GIT_DISCOVERY_ACROSS_FILESYSTEM, GIT_INDEX_FILE and GIT_NAMESPACE (and,
 * without GIT_WORK_TREE, GIT_OBJECT_DIRECTORY and
 * GIT_ALTERNATE_OBJECT_DIRECTORIES); `path` may then be NULL for the
 * current directory.
 *
 * Errors: TM_ENOTFOUND when `path` is not inside a repository, TM_ERROR
 * when a repository was found but could not be opened.
 */
int tm_git_open(tm_git **out, const char *path, bool from_env);

/* Close the repository.  NULL is allowed. */
void tm_git_free(tm_git *g);

/*
 * The root of the worktree with a trailing '/', or NULL for a bare
 * repository.  Owned by `g`.
 */
const char *tm_git_workdir(const tm_git *g);

/*
 * This worktree's git dir (".git/" or ".git/worktrees/<name>/"), with a
 * trailing '/'.  Owned by `g`.
 */
const char *tm_git_gitdir(const tm_git *g);

/*
 * The git dir shared by all worktrees (the same as tm_git_gitdir outside a
 * linked worktree), with a trailing '/'.  Owned by `g`.
 */
const char *tm_git_commondir(const tm_git *g);

/*
 * Where folder `dir` is in g's work tree, as git names paths: "" for the
 * top, else "sub/dir/" (both resolved with realpath first); malloc'd.  NULL
 * when `dir` is outside the work tree, or when there is none (or no `g`).
 */
char *tm_git_path_in_workdir(tm_git *g, const char *dir);

/*
 * The current branch's short name ("feature/auth-ui") into *out
 * (malloc'd; the caller frees it), or *out = NULL when HEAD is detached.
 * A branch without a commit yet (unborn) still has its name.
 * Errors: TM_ERROR when HEAD cannot be read.
 */
int tm_git_current_branch(char **out, tm_git *g);

/*
 * The commit HEAD points at, as 40 lower-case hex digits and a NUL, into
 * `out_hex41`.  Errors: TM_ENOTFOUND when the branch is unborn (no commit
 * yet), TM_ERROR when HEAD cannot be read.
 */
int tm_git_head(char *out_hex41, tm_git *g);

/*
 * The value of config `key` ("user.name") into *out (malloc'd; the caller
 * frees it), read as git reads it: the repository's config and the
 * global, XDG and system files (libgit2 finds these from HOME and
 * XDG_CONFIG_HOME as it read them when it was initialised).  With g ==
 * NULL, only the global, XDG and system files.  A key given without a value
 * ("[core] key") reads as "".  Settings given with `git -c key=value` win:
 * this reads GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n /
 * GIT_CONFIG_VALUE_n from the environment, where git puts them for
 * subcommands and hooks.
 *
 * Errors: TM_ENOTFOUND when unset, TM_EINVALID for a malformed key name,
 * TM_ERROR when a config file cannot be read.
 */
int tm_git_config_string(char **out, tm_git *g, const char *key);

/*
 * Let the config readers answer `spec` without starting libgit2: a section
 * ("color": its keys without a subsection) or a key ("merge.conflictStyle").
 * A repository found by the fast path (tm_git_open) then reads such a key
 * as unset (TM_ENOTFOUND) when no config file libgit2 would read mentions
 * the section (or the key's name) at all; else libgit2 answers as usual.
 * threadmind.* and merge.conflictStyle are always such keys.  For the
 * whole process, for repositories opened from then on: a caller names its
 * keys before it opens one (the CLI: color.*).  TM_EINVALID for a spec
 * with a subsection, or beyond 16 keys.
 */
int tm_git_config_fast(const char *spec);

/*
 * Whether `key` is set at all (whatever its value, an empty one too), into
 * *out, as tm_git_config_string would find it.  For merge.threadmind.driver
 * in a repository the fast path found, the answer comes from the config
 * files it scanned, without starting libgit2.  Errors as
 * tm_git_config_string, except that unset is not one.
 */
int tm_git_config_is_set(bool *out, tm_git *g, const char *key);

/*
 * Whether `git -c` (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT) sets `key`
 * for this command: its value then is not the config files'.
 */
bool tm_git_config_on_command_line(const char *key);

/*
 * The boolean config `key` into *out, with git's spellings (true/yes/on,
 * false/no/off/"", integers; a key without a value is true); `dflt` when
 * unset.  Config files as tm_git_config_string.
 *
 * Errors: TM_EINVALID when the value is not a boolean (the message names
 * the key and the value), or as tm_git_config_string.
 */
int tm_git_config_bool(bool *out, tm_git *g, const char *key, bool dflt);

/*
 * The config `key` as a number of seconds (a decimal number >= 0, such as
 * "15" or "0.5") into *out; `dflt` when unset.  Config files as
 * tm_git_config_string.
 *
 * Errors: TM_EINVALID when the value is not such a number (the message
 * names the key and the value, as git's "bad numeric config value"), or as
 * tm_git_config_string.
 */
int tm_git_config_seconds(double *out, tm_git *g, const char *key, double dflt);

/*
 * The git blob id of `data` (what `git hash-object --stdin` prints) into
 * out_hex (41 bytes, NUL-terminated).  Errors: TM_ERROR when hashing fails.
 */
int tm_git_hash_blob(char *out_hex, const void *data, size_t len);

/*
 * The user as git knows them: user.name and user.email from g's config (or,
 * with g == NULL, from the global, XDG and system files) into *out_name and
 * *out_email (malloc'd, NULL when unset; the caller frees them).  Errors:
 * those of tm_git_config_string other than TM_ENOTFOUND (nothing written).
 */
int tm_git_user(char **out_name, char **out_email, tm_git *g);

/*
 * Set the error message "<fmt, formatted>: <libgit2's last message>" (or
 * "...: libgit2 error" when libgit2 left none) and return `code`: for a
 * libgit2 call that just failed.
 */
int tm_git_error(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Whether the `len` bytes at `s` are a commit id as the format stores it:
 * exactly 40 hex digits (SHA-1), either case.  64 digits (SHA-256) are not
 * accepted: thread files record 40-hex commits, and the libgit2 we build
 * against reads SHA-1 repositories only, so such an id could not be looked
 * up anyway.  `s` NULL is false.
 */
bool tm_git_is_hex_oid(const char *s, size_t len);

/*
 * merge.conflictStyle read from g's config (g NULL: the global, XDG and
 * system files) as a tm_conflict_style: "diff3", "zdiff3", anything else or
 * unset (or unreadable) TM_CONFLICT_STYLE_MERGE.  Never fails; leaves no error
 * message.
 */
tm_conflict_style tm_git_conflict_style(tm_git *g);

/* The operation that a conflict in the index comes from. */
typedef enum {
	TM_GIT_OP_NONE, /* none in progress (stash apply, merge-tree, ...) */
	TM_GIT_OP_MERGE,
	TM_GIT_OP_REBASE, /* rebase, pull --rebase: HEAD is the upstream */
	TM_GIT_OP_AM,     /* git am */
	TM_GIT_OP_CHERRY_PICK,
	TM_GIT_OP_REVERT
} tm_git_op;

/*
 * The operation in progress in g's worktree, from its git dir as git's
 * own status reads it: rebase-merge/ or rebase-apply/ (rebase-apply/applying:
 * am), else MERGE_HEAD, CHERRY_PICK_HEAD, REVERT_HEAD.  In every one of them
 * the index's stage 2 ("ours", %A) is HEAD, the branch being built on: in a
 * rebase that is the upstream and stage 3 the commit being replayed.
 * Never fails.
 */
tm_git_op tm_git_operation(tm_git *g);

/*
 * Whether `hex` (40 hex digits) names a commit present in the repository.
 * Anything else (malformed, missing, another type of object) is false.
 * Never sets an error message.
 */
bool tm_git_has_commit(tm_git *g, const char *hex);

/*
 * The newest commit reachable from HEAD (date order, as git log) that
 * deleted `path` (a file path from the top of the work tree): one of its
 * parents has it, it has not.  Returns 1 with its hex id in `out_hex41`,
 * 0 when there is none (or no commit yet), or TM_ERROR.
 */
int tm_git_last_deletion(char *out_hex41, tm_git *g, const char *path);

/* What tm_git_same_as_at found. */
#define TM_GIT_SAME        0 /* the file holds the blob the commit has */
#define TM_GIT_CHANGED     1 /* it differs (or cannot be read) */
#define TM_GIT_ABSENT_THEN 2 /* the commit has no `path` */

/*
 * Compare the file `file` (a file system path) with `path` (from the top of
 * the work tree) in commit `hex` (40 hex digits), by blob id, as `git
 * hash-object` sees the file (no filters).  Returns one of the codes above,
 * or TM_ERROR when the commit cannot be read.
 */
int tm_git_same_as_at(tm_git *g, const char *hex, const char *path,
		      const char *file);

/* ---- git's state (git_state.c) ---- */

/*
 * Whether git is replaying commits in g's worktree: a rebase (the
 * `rebase-merge/` or `rebase-apply/` folder of the git dir, the latter
 * also `git am`) or a cherry-pick or revert of several commits
 * (`sequencer/`).  A single cherry-pick is not a sequence.  Never fails.
 */
bool tm_git_sequence_in_progress(tm_git *g);

/*
 * The branch checked out just before the current one, from the newest
 * entry of HEAD's reflog when it is git's "checkout: moving from OLD to
 * NEW" with NEW the current branch and OLD another branch: *out = OLD
 * (malloc'd), else NULL (detached before or now, no reflog, the newest
 * entry of another kind).  Errors: TM_ERROR when HEAD or its reflog
 * cannot be read.
 */
int tm_git_previous_branch(char **out, tm_git *g);

/*
 * The names `branch` had before `git branch -m` renamed it, newest first,
 * appended to `out`: from the entries "Branch: renamed refs/heads/OLD to
 * refs/heads/NEW" of its reflog, following a chain of renames back (at
 * most 16).  Nothing without a reflog.  Errors: TM_ERROR when the reflog
 * cannot be read.
 */
int tm_git_branch_renamed_from(tm_strv *out, tm_git *g, const char *branch);

/*
 * Whether the branch refs/heads/`branch` exists, into *out.  Errors:
 * TM_ERROR when the references cannot be read.
 */
int tm_git_branch_exists(bool *out, tm_git *g, const char *branch);

#endif
