/*
 * Helpers shared by the store's own files (store.c, store_thread.c,
 * store_project.c, doctor*.c): folders and files inside .threadmind/
 * through the safe file layer.
 */
#ifndef TM_STORE_INTERNAL_H
#define TM_STORE_INTERNAL_H

#include "store.h"

/* a + "/" + b, malloc'd. */
char *tm_store_path_join(const char *a, const char *b);
/* Open the folder `top` (e.g. "threads") of the store, or `top/project`
 * when project is not NULL; `create` makes missing folders. */
int tm_store_open_folder(int *out_fd, tm_store *s, const char *top,
			 const char *project, bool create);
/* The path of a file for messages (malloc'd); top and project may be
 * NULL. */
char *tm_store_file_display(tm_store *s, const char *top, const char *project,
			    const char *name);
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
/* Now as a canonical timestamp (TM_TIME_LEN + 1 bytes). */
void tm_store_now(char *out);

/*
 * FOR TESTS ONLY.  Call `hook` (NULL: none) at the start of every
 * tm_store_lock_refresh, that is between the writes of a long operation,
 * so that a test can take the lock over or inject a fault there; with
 * `eager`, locks taken from now on check that the lock file is still
 * theirs on every refresh (refresh_after 0) instead of every 5 seconds.
 */
void tm_store__set_refresh_hook(void (*hook)(tm_store *s, void *payload),
				void *payload, bool eager);

#endif
