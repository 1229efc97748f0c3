/*
 * The paths index of the hooks (DESIGN.md sections 8 and 11): what the
 * post-commit and post-checkout hooks need from a project's thread files,
 * kept under $GIT_COMMON_DIR/threadmind/ (never in the work tree) so that
 * a hook does not open and parse every file of a large store.
 *
 * For each thread file of the folder the index keeps its stat data (size,
 * mtime and ctime in ns, inode, device, mode: what git's own index keeps)
 * and what a read of the file gave: whether it parses, whether its summary
 * is blank, and its `status`, `commit`, `branch`, `updatedAt` and `paths`.  A
 * load lists the folder (new and removed files), lstat()s every file and reads
 * again only those whose stat data changed, plus git's "racy" ones: a file
 * changed at or after the moment the index was built (its stamp) is read again,
 * so an edit in place of the same size within the same second is never missed.
 *
 * The index is only a speed-up: a missing, truncated, corrupt or foreign
 * file (or one of another folder) is ignored and rebuilt, failing to write
 * it is no error, and every answer is the one a read of every file gives
 * (tm_paths_index_options.no_index).  It is replaced atomically (a temp
 * file renamed over it, without fsync: a file lost or torn by a crash
 * fails its hash and is rebuilt); concurrent writers each rename a
 * complete, self-validating file.
 */
#ifndef TM_PATHS_INDEX_H
#define TM_PATHS_INDEX_H

#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What tm_paths_index_load returns. */
typedef enum {
	/* The threads whose frontmatter has a `paths` line and parses on
	 * its own (the frontmatter-only read of post-commit; a file without
	 * such a line is not parsed), and whose summary is not blank
	 * (tm_summary_blank): the threads a commit can make stale. */
	TM_PATHS_INDEX_WITH_PATHS,
	/* The threads whose whole file parses, as tm_store_load_all's
	 * `threads` (post-checkout's fallback). */
	TM_PATHS_INDEX_ALL
} tm_paths_index_what;

typedef struct {
	bool no_index; /* read every file; neither read nor write the index */
	/* Threads that lstat the files: 0 (the default) as git's
	 * preload-index, one per 500 files up to the online CPUs (at most
	 * 20), one when core.preloadIndex is false; else that many. */
	unsigned threads;
	/* Set by the load: */
	bool cut_short; /* the deadline (deadline.h) passed: incomplete;
			   what was read is written all the same (the reads
			   stop early enough for that), so that the next
			   load goes on from there */
	size_t reread;  /* files read (not answered by the index) */
	bool written;   /* the index file was (re)written */
	bool listed;    /* the folder was listed (not the index's names) */
	unsigned stat_threads; /* threads started for the lstat pass, the
				caller counted (each claims files in turn) */
} tm_paths_index_options;

#define TM_PATHS_INDEX_OPTIONS_INIT                 \
	{                                           \
		false, 0, false, 0, false, false, 0 \
	}

/*
 * A load's threads, read-only: their strings point into what `impl_`
 * holds (the mapped index, the entries read again), so never free or
 * change them; tm_paths_index_list_clear frees it all.
 */
typedef struct {
	const tm_thread *const *threads;
	size_t n;
	void *impl_;
} tm_paths_index_list;

/*
 * The threads `what` of `project` into *out (clear with
 * tm_paths_index_list_clear), in id order.  Each thread holds only id,
 * status, commit, branch, updated_at, has_paths and paths (the other
 * fields NULL, the body empty).  Unreadable files are left out, as is
 * every file when the project's folder is missing.  The index is used
 * when the store is in a git repository and `opts` (NULL: the defaults)
 * does not say no_index.
 *
 * Errors: TM_EINVALID for a bad project id; those of tm_store_open_folder
 * and tm_store_list_names (as tm_store_list_threads); *out is then empty.
 */
int tm_paths_index_load(tm_paths_index_list *out, tm_store *s,
			const char *project, tm_paths_index_what what,
			tm_paths_index_options *opts);

/* Free what a list holds and reset it to empty.  Cleared lists too. */
void tm_paths_index_list_clear(tm_paths_index_list *l);

/*
 * The path of the index file of `project`'s folder (malloc'd), or NULL
 * when the store is not in a git repository.  For tests and doctor-like
 * tools: the file may not exist.
 */
char *tm_paths_index_file(tm_store *s, const char *project);

/*
 * FOR TESTS ONLY.  With `on`, every time the index reads (the files', the
 * folder's, the stamp) is cut to whole seconds, as on a file system with
 * one-second timestamps: what the racy rule is for.
 */
void tm_paths_index__coarse_times(bool on);

#endif
