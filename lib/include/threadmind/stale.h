/*
 * Staleness (DESIGN.md section 4): which threads' `paths` changed in HEAD
 * since their `commit`, computed for all threads in one revision walk.
 * The matching of `paths` is git's pathspecs' (pathspec.h).
 */
#ifndef TM_STALE_H
#define TM_STALE_H

#include "buf.h"
#include "git.h"
#include "model.h"
#include "pathspec.h" /* tm_pathspec_match, the matching of `paths` */

#include <stdbool.h>
#include <stddef.h>

/* One stale thread. */
typedef struct {
	char *id;        /* thread id */
	char *commit;    /* the thread's `commit` */
	tm_strv paths;   /* the thread's `paths` */
	tm_strv changed; /* repository paths changed since `commit` under
			    those paths, sorted, unique */
	char newest[41]; /* the newest commit (first met in the walk) that
			    changed them */
} tm_stale_entry;

typedef struct {
	tm_stale_entry *stale; /* in the order of the threads given */
	size_t n;
	tm_strv unknown_base; /* ids whose `commit` the repository does not
				 have (sorted) */
	bool shallow;         /* the repository is a shallow clone: commits
				 beyond its boundary are unknown bases */
	tm_strv warnings;     /* objects of the history that could not be
				 read, each counted as changing everything
				 under its folder (one line each, for the
				 user; given by the computation that first
				 met them and by the cached answer) */
} tm_stale_report;

/* clang-format off */
#define TM_STALE_REPORT_INIT {NULL, 0, TM_STRV_INIT, false, TM_STRV_INIT}
/* clang-format on */

/*
 * DESIGN.md section 4 for the `n` threads `threads`, whose files live in
 * `threads_dir` (relative to the repository root, with a trailing '/', e.g.
 * ".threadmind/threads/mon-app/"; NULL when the store is outside the
 * worktree: then no commit counts as changing a thread's file).
 *
 * Review points (DESIGN.md section 11): every version of a thread file of
 * `threads_dir` in HEAD's history belongs to the threads of its identity
 * (createdAt instant and author; without a valid createdAt, to its own
 * file's thread only), so that a thread renamed by a same-id split keeps
 * the versions of its old file.  A version's review point is its `commit`
 * when HEAD reaches that commit; when it does not (rebased, amended,
 * squashed or filtered away, whether or not the repository still has it),
 * the commits that introduced the version in HEAD's history (their file
 * differs from each parent's); a version that does not parse or names no
 * `commit` gives none.  The thread's own `commit` is one too when HEAD
 * reaches it, or when no version of its history names it (a review not
 * committed yet) and the repository has it.  A thread is stale when a
 * commit reachable from HEAD and from none of its review points changes
 * one of its `paths`: one of the commits that `git log HEAD --not <review
 * points> -- <paths>` lists, with git's default history simplification (a
 * merge that has the same content under the paths as one of its parents
 * is not listed, and only that parent's history is followed, unless git
 * already knows that parent to be reachable from a review point; see
 * stale.c), except commits that also change the thread's own file
 * (`threads_dir` + id + ".md") or add a version of it under another name.
 * What a commit changes is its diff against its first parent (a root
 * commit, or a shallow one whose parents are missing: against the empty
 * tree); `changed` is the union of those paths under `paths`, and
 * `newest` the first such commit in git log's order (newest first).
 * `paths` are pathspecs relative to the repository root
 * (tm_pathspec_match, pathspec.h).  One revision walk and one diff per
 * commit serve all threads.
 *
 * A tree of the history that cannot be read or does not parse (a clone
 * does not fsck) is skipped, its folder counted as changed in the commit
 * that holds it (treediff.h: a prefix), with a line in `warnings`; a commit
 * whose diff is past the bounds of treediff.h is known by its changed
 * folders the same way.  Both answer conservatively: a thread whose paths
 * may lie under such a folder counts that commit against it.
 *
 * Never stale, and not listed anywhere: threads without `paths` (absent or
 * empty), without `commit`, finished (status done or abandoned), or whose
 * summary is blank (tm_summary_blank: nothing to outdate).  Unknown bases
 * (`unknown_base`), not stale: a `commit` that is not 40 hex digits; a
 * review not committed whose commit the repository lacks; in a shallow
 * clone, a committed `commit` the repository lacks (beyond the boundary,
 * or rewritten: a shallow clone cannot tell); a thread left with no review
 * point at all.  An unborn HEAD makes no thread stale.
 *
 * *out (clear it with tm_stale_report_clear) is written only on success.
 * Errors: TM_ERROR when HEAD or an object of the history cannot be read
 * (a missing parent commit, as in a shallow clone, is not an error).
 */
int tm_stale_compute(tm_stale_report *out, tm_git *g, const char *threads_dir,
		     const tm_thread *const *threads, size_t n);

/*
 * Progress of long work: `what` ("indexing history"), `done` of `total`
 * steps (total 0: unknown).  Called often; the caller decides what to show
 * (the CLI prints git-style progress on a terminal).
 */
typedef void (*tm_progress_fn)(void *data, const char *what, size_t done,
			       size_t total);

typedef struct {
	bool no_cache;           /* neither read nor write the cache */
	tm_progress_fn progress; /* NULL: none */
	void *progress_data;
	bool from_cache; /* set: the answer came from the cache */
} tm_stale_options;

/*
 * tm_stale_compute with options (opts NULL: the defaults, the cache on).
 * The staleness cache (DESIGN.md section 11) is in
 * $GIT_COMMON_DIR/threadmind/: commits/ (a chain of layers), what each commit
 * that a computation needed changed (against each parent) and the review
 * points of the thread file versions it adds, computed once ever: only the
 * commits from HEAD that some review point does not reach, extended when a
 * later computation needs more (lib/stale/stale_cidx_*.c); `progress` hears of
 * "indexing history" while they are described; and stale.cache, the last answer
 * with everything it depends on (HEAD, the shallow boundary, `threads_dir`,
 * each thread that can be stale).  When that is unchanged the answer is read
 * back; when only HEAD moved forward by commits of one parent that touch no
 * thread file, it is carried forward over them (from_cache is set too); else it
 * is computed from the index.  The cache is only a speed-up: a missing,
 * corrupt, truncated, foreign or outdated file is ignored and rewritten
 * (atomically); failing to write it is no error.  Same answers and errors
 * as tm_stale_compute.
 */
int tm_stale_compute_opts(tm_stale_report *out, tm_git *g,
			  const char *threads_dir,
			  const tm_thread *const *threads, size_t n,
			  tm_stale_options *opts);

/*
 * The ids of the stale threads (appended to `out`, in the report's order)
 * when stale.cache holds the answer for exactly these inputs, the case in
 * which tm_stale_compute_opts reads it back: then 1.  Else 0, `out`
 * unchanged, nothing read from the history (ask tm_stale_compute_opts).
 * For status, tree and list, which flag threads and print no paths: the
 * cached paths of every stale thread are checked, not copied.
 */
int tm_stale_cached_ids(tm_strv *out, tm_git *g, const char *threads_dir,
			const tm_thread *const *threads, size_t n);

/*
 * Whether staleness would watch thread t but for its blank summary (it has
 * `paths`, is not finished, and its summary is blank): status and tree say
 * "no summary yet" for it instead of ever flagging it stale.
 */
bool tm_stale_awaits_summary(const tm_thread *t);

/* Free what a report holds and reset it to empty.  NULL is allowed. */
void tm_stale_report_clear(tm_stale_report *r);

/*
 * For the post-commit hook: the ids (sorted, into *out_ids, which the
 * caller clears) of the threads with `paths` that commit `hex` (40 hex
 * digits) changes, by its diff against its first parent (a root commit, or
 * one whose parent is missing: against the empty tree), without changing
 * the thread's own file (`threads_dir` + id + ".md"; NULL: no such file).
 * Finished threads and threads whose `commit` is `hex` itself are left out;
 * the caller leaves out those whose summary is blank (tm_summary_blank: the
 * threads may come without their body, as the paths index of the hooks
 * gives them).  Only one tree diff.
 *
 * Errors: TM_EINVALID when `hex` is not 40 hex digits, TM_ENOTFOUND when the
 * repository has no such commit, TM_ERROR when its trees cannot be read.
 */
int tm_stale_commit_touches(tm_strv *out_ids, tm_git *g, const char *hex,
			    const char *threads_dir,
			    const tm_thread *const *threads, size_t n);

/*
 * The folder of `project`'s thread files relative to the root of g's
 * worktree, as tm_stale_compute wants it:
 * "<store root relative to the worktree>/.threadmind/threads/<project>/"
 * ("" before ".threadmind" when the store is at the root).  `store_root` is
 * the folder holding `.threadmind`.  Returns a malloc'd string, or NULL when
 * g has no worktree or `store_root` is not inside it.
 */
char *tm_stale_threads_dir(tm_git *g, const char *store_root,
			   const char *project);

/*
 * The abbreviated hash (as git abbreviates it: at least core.abbrev or 7
 * digits, unique in the repository) and the subject line of commit `hex`,
 * for messages.  Both malloc'd, written only on success.  Errors:
 * TM_EINVALID for a malformed `hex`, TM_ENOTFOUND when there is no such
 * commit.
 */
int tm_stale_describe_commit(char **out_short, char **out_subject, tm_git *g,
			     const char *hex);

#endif
