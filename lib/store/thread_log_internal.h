/*
 * For thread_log.c and thread_log_trees.c only: where a thread's file is
 * in the commits that a thread's history walks.
 */
#ifndef TM_THREAD_LOG_INTERNAL_H
#define TM_THREAD_LOG_INTERNAL_H

#include "hashmap.h"
#include "model.h"

#include <git2.h>
#include <stdbool.h>

/* The trees of the walk, their paths remembered (borrowed repo and odb;
 * clear with tm_log__trees_clear). */
struct tm_log__trees {
	git_repository *repo;
	git_odb *odb;
	const char *prefix; /* of the store in the repository, "" or "x/" */
	/* what a path is in a tree: tree id + path -> memo index */
	tm_hashmap memo;
	git_oid *memo_oid;
	bool *memo_present;
	size_t nmemo, amemo;
};

void tm_log__trees_clear(struct tm_log__trees *w);

/* "<prefix>.threadmind/threads/<project>[/<id>.md]", malloc'd. */
char *tm_log__path_of(const struct tm_log__trees *w, const char *project,
		      const char *id);

/*
 * What `path` is in tree `root`: *present true with its id in *out, false
 * when the tree has no such entry.  Remembered per tree and path.
 * Errors: TM_ERROR (a tree cannot be read).
 */
int tm_log__entry_at(bool *present, git_oid *out, struct tm_log__trees *w,
		     const git_oid *root, const char *path);

/* The thread in blob `oid` (its frontmatter, file id `id`), or NULL. */
tm_thread *tm_log__read_thread(struct tm_log__trees *w, const git_oid *oid,
			       const char *id);

/*
 * Where the parent's tree `ptree` has the thread `t` that the child's tree
 * `ctree` holds in `cur_project`: under the same id in another project (a
 * project renamed), else under an id of the project whose file differs
 * from the child's (a split by resolve); *project and *id malloc'd.
 * False when it has none.
 */
bool tm_log__find_thread(char **project, char **id, struct tm_log__trees *w,
			 const git_oid *ctree, const git_oid *ptree,
			 const char *cur_project, const tm_thread *t);

/* With every thread: the project folder of `ptree` whose root thread is
 * `root` (the project renamed), malloc'd, or NULL. */
char *tm_log__find_project(struct tm_log__trees *w, const git_oid *ptree,
			   const tm_thread *root);

#endif
