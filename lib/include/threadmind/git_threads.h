/*
 * The thread files of a commit, of the index or of the work tree, read from
 * git objects and files (no lock taken, nothing written), and what changed
 * between two of them, project by project: `git threadmind diff`, `log` and
 * `show <commit>:<thread>`.
 *
 * `prefix` below is where the store's folder is in the work tree, as
 * tm_git_path_in_workdir gives it ("" at the top, else "sub/dir/"): the
 * thread files are `<prefix>.threadmind/threads/<project>/<id>.md`.
 */
#ifndef TM_GIT_THREADS_H
#define TM_GIT_THREADS_H

#include "buf.h"
#include "git.h"
#include "thread_diff.h"

#include <stdbool.h>
#include <stddef.h>

/* Where one side of a comparison reads the thread files from. */
typedef enum {
	TM_SIDE_COMMIT,  /* a commit's tree (no commit: the empty tree) */
	TM_SIDE_INDEX,   /* the index (stage 0; stages 1-3: conflicted) */
	TM_SIDE_WORKTREE /* the files, as `git diff` sees them: tracked ones */
} tm_side_kind;

typedef struct {
	tm_side_kind kind;
	char commit[41]; /* TM_SIDE_COMMIT: 40 hex digits, or "": none */
} tm_side;

/*
 * The commit `rev` names (git_revparse_single, peeled to a commit:
 * "HEAD~2", "v1.0", a branch, an abbreviated id) as 40 hex digits.
 * Errors: TM_ENOTFOUND "bad revision 'REV'" when it names no commit.
 */
int tm_git_resolve_commit(char out_hex41[41], tm_git *g, const char *rev);

/* Whether `arg` names a commit or a range of commits ("A..B", "A...B",
 * "^A").  Sets no error. */
bool tm_git_is_revision(tm_git *g, const char *arg);

/*
 * The two sides `git diff` compares for these revision arguments
 * (`nrevs` of them): none, the index against the work tree; one commit C,
 * C against the work tree; "A..B" or two commits, A against B; "A...B",
 * their merge base against B.  With `cached`, the index replaces the work
 * tree: none is HEAD (none when unborn) against the index, one commit C
 * against the index.  Errors: those of tm_git_resolve_commit; TM_EINVALID
 * for more than two revisions, a range beside another revision or with
 * `cached`, and A...B without a merge base.
 */
int tm_git_diff_sides(tm_side *before, tm_side *after, tm_git *g,
		      const char *const *revs, size_t nrevs, bool cached);

/*
 * The bytes of thread file `id` of `project` on a side into `out`.
 * Errors: TM_ENOTFOUND when the side has no such file; TM_ECONFLICT when
 * the index holds it unmerged (INDEX and WORKTREE sides); TM_EINVALID for a
 * bad id or project, or a file over 1 MiB (or, in the work tree, a
 * symbolic link); TM_ERROR when git cannot read it.
 */
int tm_side_read_thread(tm_buf *out, tm_git *g, const char *prefix,
			const tm_side *side, const char *project,
			const char *id);

/* The thread ids of `project` on a side (valid ids, sorted), appended to
 * `out`; none when the side has no such folder.  Errors: TM_ERROR. */
int tm_side_list_threads(tm_strv *out, tm_git *g, const char *prefix,
			 const tm_side *side, const char *project);

/* One project's changes. */
typedef struct {
	char *project;     /* its id on the new side (the old one's when the
			      new side does not have it) */
	char *old_project; /* its id on the old side: NULL when new; another
			      id when the project was renamed */
	tm_tdiff diff;
	/* The threads read, which diff's entries borrow (owned). */
	tm_thread **threads;
	size_t nthreads;
	size_t alloc;
} tm_store_diff_project;

typedef struct {
	tm_store_diff_project *items; /* sorted by project id */
	size_t n;
	size_t alloc;
} tm_store_diff;

/* clang-format off */
#define TM_STORE_DIFF_INIT {NULL, 0, 0}
/* clang-format on */

typedef struct {
	unsigned version;
	const char *project; /* only this project (its id on either side);
				NULL: every project */
	const char *const *threads; /* only these thread ids (either side) */
	size_t nthreads;            /* 0: every thread */
	bool all_fields;            /* tm_tdiff_options.all_fields */
	/* Read only the threads named (and their parents), not every file
	 * that changed: a rename is then seen only when both of its ids are
	 * named (log, which knows them). */
	bool read_named_only;
} tm_store_diff_options;

#define TM_STORE_DIFF_OPTIONS_VERSION 1
#define TM_STORE_DIFF_OPTIONS_INIT                                         \
	{                                                                  \
		TM_STORE_DIFF_OPTIONS_VERSION, NULL, NULL, 0, false, false \
	}

/*
 * Compare the thread files of two sides into *out (TM_STORE_DIFF_INIT;
 * clear it with tm_store_diff_clear): the files git finds different (for
 * two commits by comparing trees, so that unchanged folders are not read;
 * otherwise as `git diff` and `git diff --cached` do, untracked files left
 * out) are read on both sides with their parents up to the root, parsed,
 * and compared with tm_tdiff_threads.  A file the index holds unmerged, or
 * one that does not parse and holds conflict markers, is CONFLICTED; one
 * that cannot be read or parsed otherwise is UNREADABLE (message naming
 * it); both come after the project's other entries, by id.  A project
 * folder only the old side has and one only the new side has whose root
 * threads (`main`) have the same identity are one project renamed.  Files
 * that are not `<project>/<id>.md` with valid ids are left out.  Projects
 * with no entry are left out, but for a renamed one.  opts may be NULL.
 *
 * Errors: TM_ERROR when git cannot compare or read; TM_EINVALID for a
 * side that cannot be used here (a work tree side on the left).
 */
int tm_store_diff_sides(tm_store_diff *out, tm_git *g, const char *prefix,
			const tm_side *before, const tm_side *after,
			const tm_store_diff_options *opts);

/* Whether *d holds no change at all. */
bool tm_store_diff_empty(const tm_store_diff *d);

/* Free what *d holds and make it empty. */
void tm_store_diff_clear(tm_store_diff *d);
void tm_store_diff_project_clear(tm_store_diff_project *p);

#endif
