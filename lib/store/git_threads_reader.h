/*
 * The store layer's reader of a side's thread files (a commit's tree, the
 * index, the work tree), for the store's files that read sides: the
 * thread listings of git_threads.c, the diffs (store_diff.c) and a
 * thread's log (thread_log.c).  Not for the layers above: they use
 * git_threads.h.
 */
#ifndef TM_GIT_THREADS_READER_H
#define TM_GIT_THREADS_READER_H

#include "git_threads.h"

#include <git2.h>

struct tm_reader {
	tm_side_kind kind;
	git_repository *repo;
	char *threads_path; /* "<prefix>.threadmind/threads/" */
	char abbrev[8];     /* COMMIT: the commit, abbreviated, for messages */
	git_tree *root;     /* COMMIT: the commit's tree (NULL: none) */
	git_tree *threads;  /* COMMIT: the threads folder's tree, or NULL */
	git_index *index;   /* INDEX, WORKTREE: the index (or NULL) */
	int dirfd;          /* WORKTREE: the threads folder, or -1 */
	/* the project folder read last */
	char *project;
	git_tree *project_tree;
	int project_fd;
	bool project_found;
	tm_buf display;     /* tm_reader_display's */
	size_t display_len; /* its folder part ("…/<project>/") */
};

/* A thread file as read: a blob's bytes (borrowed from it: no copy, a
 * diff reads thousands) or a work tree file's. */
struct tm_reader_file {
	const char *data;
	size_t len;
	git_blob *blob; /* owns data when not NULL */
	tm_buf buf;     /* owns data otherwise */
	git_oid oid;    /* the blob's id, when has_oid */
	bool has_oid;
};

void tm_reader_file_release(struct tm_reader_file *f);

/* Open a side for reading.  Errors: TM_ERROR (git cannot read it),
 * TM_EINVALID (a work tree side in a bare repository, a symbolic link). */
int tm_reader_open(struct tm_reader *r, tm_git *g, const char *prefix,
		   const tm_side *side);
void tm_reader_close(struct tm_reader *r);

/*
 * Thread file `id` of `project` into *f (release it with
 * tm_reader_file_release; on error it holds nothing).  Errors as
 * tm_side_read_thread.
 */
int tm_reader_get(struct tm_reader_file *f, struct tm_reader *r,
		  const char *project, const char *id);

/* The path of thread `id` of `project` in messages ("abc1234:.threadmind/
 * threads/p/x.md" for a commit, ":…" for the index); owned by `r`, valid
 * until the next call. */
const char *tm_reader_display(struct tm_reader *r, const char *project,
			      const char *id);

/* Whether the side has the folder of `project`. */
bool tm_reader_has_project(struct tm_reader *r, const char *project);

/* The thread ids of `project` (valid ids, sorted unique). */
int tm_reader_list(tm_strv *out, struct tm_reader *r, const char *project);

/* The thread files the index holds unmerged, as "<project>/<id>.md"
 * (relative to the threads folder), appended to `out`. */
void tm_reader_conflicts(tm_strv *out, struct tm_reader *r);

/* "<project>/<id>.md" split into its parts (malloc'd) when both are valid
 * ids; false otherwise. */
bool tm_thread_file_split(const char *rel, char **project, char **id);

#endif
