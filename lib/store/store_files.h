/*
 * The store layer's header for the layers above it (stale, ops, app:
 * never the CLI nor the driver): the folders and files inside .threadmind/
 * through the safe file layer, the project check, and the unlock at the
 * end of an operation.  Public callers use store.h.
 */
#ifndef TM_STORE_FILES_H
#define TM_STORE_FILES_H

#include "store.h"

#include <stdbool.h>

/* a + "/" + b, malloc'd. */
char *tm_store_path_join(const char *a, const char *b);
/* Open the folder `top` (e.g. "threads") of the store, or `top/project`
 * when project is not NULL; `create` makes missing folders. */
int tm_store_open_folder(int *out_fd, tm_store *s, const char *top,
			 const char *project, bool create);
/* A project's threads folder, to read: the id checked (tm_id_validate),
 * threads/{project} opened into *fd.  A project with no folder has no
 * threads yet: 0 and *fd = -1.  Errors: a bad id, the open's. */
int tm_store_open_threads(int *fd, tm_store *s, const char *project);
/* The path of a file for messages (malloc'd); top and project may be
 * NULL. */
char *tm_store_file_display(tm_store *s, const char *top, const char *project,
			    const char *name);
/* Set the error `code` about that file: "'<its path as above>' " then the
 * message `fmt`; returns `code`. */
int tm_store_file_error(tm_store *s, const char *top, const char *project,
			const char *name, int code, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Read / atomically write a file of the store (top NULL: .threadmind/). */
int tm_store_read_file(tm_buf *out, tm_store *s, const char *top,
		       const char *project, const char *name);
int tm_store_write_file(tm_store *s, const char *top, const char *project,
			const char *name, const tm_buf *data);
/* The valid ids (`what`: "thread", "project") of the files `*suffix` in
 * folder fd (named `display` in messages), added to `out`, sorted; dot
 * files are skipped and invalid names go to `bad` (may be NULL, sorted).
 * Errors: those of tm_fs_list_dir. */
int tm_store_list_names(tm_strv *out, tm_strv *bad, int fd, const char *display,
			const char *suffix, const char *what);
/* TM_ENOTFOUND "no project 'ID' (see 'git threadmind project list')". */
int tm_store_no_project(const char *id);
/* The store's project ids into `ids` (tm_store_list_projects), and
 * tm_store_no_project when `id` is not among them. */
int tm_store_require_project(tm_strv *ids, tm_store *s, const char *id);
/* tm_store_unlock at the end of an operation that returns `error`: the
 * unlock's error (TM_ELOCKED: the lock was taken over) wins only when the
 * operation itself succeeded. */
int tm_store_unlock_after(tm_store *s, int error);
#endif
