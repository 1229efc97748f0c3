/*
 * What the git hooks do to the store (DESIGN.md section 7), for `git
 * threadmind hook`: the active thread that follows the branch, the
 * branchThreads entry a commit records, the checks after a merge, and the
 * commits re-anchored after a rewrite.  Each call keeps to the calling
 * thread's deadline (deadline.h; the CLI sets it to TM_HOOK_BUDGET): it
 * gives up (quietly, returning 0 with nothing done) when it has passed
 * between steps; inside a long read it returns TM_ETIMEOUT, nothing done.
 * With no deadline set nothing is cut short.
 */
#ifndef TM_HOOKS_H
#define TM_HOOKS_H

#include "buf.h"
#include "paths.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>

/* Seconds a hook may take before it gives up quietly. */
#define TM_HOOK_BUDGET 2.0
/* Of those, what the deadline leaves for the process's start and exit (a
 * hook that gave up exits at once), so that git waits no more than the
 * budget in all. */
#define TM_HOOK_MARGIN 0.15
/* The longest a hook waits for the store lock, in seconds. */
#define TM_HOOK_LOCK_WAIT_MAX 1.0
/*
 * The note, under a worktree's git dir, that says threadmind.hooks is
 * false in the config files: the stubs (hooks/) see it and start nothing
 * while no config file is newer (post-checkout asks `git config` once).
 * tm_hook_open writes it and removes it.
 */
#define TM_HOOK_OFF_NOTE "threadmind/hooks-off"

/*
 * Open the store as git's hooks see it: the repository from GIT_DIR /
 * GIT_WORK_TREE as git sets them (else the current folder), then the store
 * at its worktree root and the project to work on.  *out_store NULL (and 0
 * returned, no error set) when there is nothing to do: not in a repository,
 * no worktree, threadmind.hooks false, no .threadmind folder at the root,
 * or several projects and none active (a fresh clone: hooks stay silent).
 * `out_project` NULL: no project is needed (pre-commit looks at every
 * project's files), and a store with several projects is opened too.
 * Keeps TM_HOOK_OFF_NOTE in step with threadmind.hooks.  *out_store
 * (tm_store_free) and *out_project (malloc'd) belong to the caller.
 * Errors of tm_store_open and tm_store_current_project.
 */
int tm_hook_open(tm_store **out_store, char **out_project);

/*
 * Take the store lock for a hook (tm_store_lock_within): wait at most
 * min(threadmind.lockTimeout, TM_HOOK_LOCK_WAIT_MAX) and never past the
 * deadline.  Library calls made while it is held nest inside it without
 * waiting.  Release it with tm_store_unlock.  Errors of tm_store_lock
 * (TM_ELOCKED naming the holder).
 */
int tm_hook_lock(tm_store *s);

/* ---- post-checkout ---- */

/* What tm_hook_follow_branch did. */
typedef struct {
	char *id;           /* the active thread now, or NULL when nothing
			       written */
	char *title;        /* its title, or NULL (unreadable, untitled) */
	bool switched;      /* the active thread changed from the one shown
			       before the checkout (not only the records) */
	char *renamed_from; /* the branch's name before `git branch -m`, whose
			       branchThreads entry it took over, or NULL */
} tm_hook_follow;

void tm_hook_follow_clear(tm_hook_follow *f);

/*
 * After a branch checkout: make the thread of the new branch the active
 * one of `project`, and record it in branchThreads, under the lock.  The
 * thread is the one tm_store_active_thread chooses (DESIGN.md section 3),
 * with two additions:
 *   - a branch with no branchThreads entry that `git branch -m` renamed
 *     (its reflog says "Branch: renamed refs/heads/OLD to ...") takes the
 *     entry of OLD when no branch is named OLD any more; the entry moves
 *     to the new name (OLD's is removed);
 *   - in place of activeThreadId, the thread shown on the branch checked
 *     out before (the newest "checkout: moving from OLD to NEW" of HEAD's
 *     reflog) as tm_active_resolve chooses it there: the thread `status`
 *     showed, even in a fresh clone where nothing was stored yet.
 * Nothing is written when config.json already says so, outside a branch,
 * or past the deadline (then out->id is NULL).  *out is cleared first;
 * tm_hook_follow_clear it.  Errors: of config.json (TM_EPARSE), of the
 * lock, of tm_store_set_active and of writing config.json.
 */
int tm_hook_follow_branch(tm_hook_follow *out, tm_store *s,
			  const char *project);

/* ---- post-commit ---- */

/*
 * After a commit on a branch: branchThreads[project][branch] =
 * activeThreadId, when the active thread belongs to `project`, its file
 * exists and the entry differs.  Looked at without the lock, then again
 * under it before writing config.json (only that file).  *recorded (may be
 * NULL) says whether it was written.  Errors: of config.json, of the lock
 * (also when the deadline passed before it was taken), of the write.
 */
int tm_hook_record_branch_thread(bool *recorded, tm_store *s,
				 const char *project);

/* What the HEAD commit did to the threads of a project. */
typedef struct {
	tm_strv ids; /* the threads it may have outdated, sorted */
	/* the `paths` entries of those threads it renamed (tm_paths_rename:
	   entry, new name, commit), with rename_ids[k] the thread of
	   renames[k] and follow[k] that thread's paths with its renamed
	   entries replaced */
	tm_paths_rename *renames;
	size_t nrenames;
	tm_strv rename_ids;
	tm_strv *follow;
} tm_hook_touches;

void tm_hook_touches_clear(tm_hook_touches *t);

/*
 * The threads of `project` whose `paths` the HEAD commit changed without
 * changing their file (one tree diff), into out->ids; a thread whose
 * summary is blank has nothing to outdate and is left out.  The threads
 * with `paths` and a summary come from the paths index (paths_index.h:
 * every thread file lstat-ed, only the changed ones read).  Of those, the
 * entries the commit renamed (tm_paths_find_renames of HEAD alone) into
 * out->renames.  *out is cleared first; tm_hook_touches_clear it.  Nothing
 * outside git, on an unborn HEAD, or past the deadline (TM_ETIMEOUT when
 * it passes during the reads).  Errors of tm_paths_index_load and
 * tm_stale_commit_touches.
 */
int tm_hook_commit_touches(tm_hook_touches *out, tm_store *s,
			   const char *project);

/*
 * Whether git is replaying commits (tm_git_sequence_in_progress: a
 * rebase, a cherry-pick or revert of several commits, `git am`):
 * post-commit then does nothing, and post-rewrite reports a rebase once.
 */
bool tm_hook_replaying(tm_store *s);

/* ---- pre-commit ---- */

/*
 * The staged thread and project files of the store (at the worktree root)
 * whose frontmatter holds conflict markers (tm_conflict_markers_in_fields):
 * the files the index adds or changes against HEAD (everything on an
 * unborn branch), each read from the index as the commit would record it,
 * as paths from the worktree root appended to `files`.  Files HEAD already
 * holds unchanged are not looked at: a commit of something else is never
 * refused for them.  Nothing past the deadline.  Errors: TM_ERROR when the
 * repository or its index cannot be read.
 */
int tm_hook_staged_markers(tm_strv *files, tm_store *s);

/* ---- post-merge ---- */

/* What tm_hook_merge_check found. */
typedef struct {
	bool upgrade;      /* a 0.4 store: nothing checked (migrate first) */
	size_t problems;   /* what tm_doctor_check_threads reports */
	tm_strv stale;     /* ids of the threads that may be stale */
	char *stale_error; /* why staleness could not be computed, or NULL */
} tm_hook_merge;

void tm_hook_merge_clear(tm_hook_merge *m);

/*
 * After a merge: the problems of `project`'s thread tree, counted with the
 * rules of `doctor` (tm_doctor_check_threads: unreadable files, bad names,
 * id mismatches, orphans, cycles), and the threads that may be stale
 * (DESIGN.md section 4; skipped outside git or past the deadline).  Reads
 * only.  *out is cleared first; tm_hook_merge_clear it.  Errors: when the
 * project's threads folder cannot be listed, and of
 * tm_doctor_project_load.
 */
int tm_hook_merge_check(tm_hook_merge *out, tm_store *s, const char *project);

/* ---- post-rewrite ---- */

/* One line of the list git gives post-rewrite: old and new commit ids. */
typedef struct {
	char old[41], new[41]; /* 40 hex digits (SHA-1) */
} tm_hook_rewrite;

/* The rewrites, sorted by old id. */
typedef struct {
	tm_hook_rewrite *items;
	size_t n;
} tm_hook_rewrites;

void tm_hook_rewrites_clear(tm_hook_rewrites *r);

/*
 * Parse git's post-rewrite list "OLD NEW [EXTRA]\n…" into *out (cleared
 * first), sorted by old id.  Lines whose first two words are not both
 * commit ids as tm_git_is_hex_oid sees them (40 hex digits, either case,
 * kept in lower case) are skipped: the list comes from git, and the stores it
 * serves are SHA-1 repositories (libgit2 here has no SHA-256 object ids), so a
 * 64-digit id could never be looked up.  Pure; never fails.
 */
void tm_hook_rewrites_parse(tm_hook_rewrites *out, const char *data);

/* The rewrite of `commit` (case-insensitive), or NULL. */
const tm_hook_rewrite *tm_hook_rewrites_find(const tm_hook_rewrites *r,
					     const char *commit);

/*
 * After a rebase: the threads of `project` (sorted, appended to `ids`) that
 * the replayed commits flag as post-commit would have one by one, had it
 * run for each: the union, over the distinct new commits of `rw`, of
 * tm_stale_commit_touches (one tree diff each; the threads read once
 * through the paths index).  A new commit the repository no longer has is
 * skipped.  Nothing outside git or past the deadline (then nothing is
 * appended).  Errors of tm_paths_index_load and tm_stale_commit_touches.
 */
int tm_hook_rewrite_touches(tm_strv *ids, tm_store *s, const char *project,
			    const tm_hook_rewrites *rw);

/* What tm_hook_rewrite_commits did. */
typedef struct {
	tm_strv anchored;  /* threads whose `commit` names a rewritten commit */
	bool rewrite;      /* threadmind.rewriteCommits is true */
	tm_strv rewritten; /* those whose `commit` was set to the new id */
} tm_hook_rewrite_result;

void tm_hook_rewrite_result_clear(tm_hook_rewrite_result *r);

/*
 * After a rewrite (amend, rebase): find the threads of `project` anchored
 * on an old commit of `rw`.  With threadmind.rewriteCommits true, set their
 * `commit` field to the new id, under the lock (nothing else changes in
 * the file; a thread that cannot be read or written is skipped); else
 * change nothing (the caller suggests `touch`).  *out is cleared first;
 * tm_hook_rewrite_result_clear it.  Errors: of tm_store_load_all, of the
 * lock (also when the deadline passed before it was taken).
 */
int tm_hook_rewrite_commits(tm_hook_rewrite_result *out, tm_store *s,
			    const char *project, const tm_hook_rewrites *rw);

/*
 * The list post-rewrite gets on stdin, appended to `out` from git's own
 * files, for a hook manager that runs the hook without git's stdin (the
 * pre-commit framework, hooks_rewrite_list.c): after a rebase (`command`
 * "rebase"), `rebase-merge/rewritten-list` (or `rebase-apply/rewritten`)
 * under the worktree's git dir, which git removes only after post-rewrite
 * has run; after an amend, the old and new ids of HEAD's newest reflog
 * entry when it is "commit (amend): …".  Nothing when neither is there;
 * never fails.
 */
void tm_hook_rewrite_list_from_git(tm_buf *out, tm_store *s,
				   const char *command);

#endif
