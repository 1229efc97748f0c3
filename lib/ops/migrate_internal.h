/*
 * For lib/migrate*.c only: what the upgrade's run (migrate.c), its reading
 * of the 0.4 index (migrate_index.c) and its renaming of 0.4's empty id
 * (migrate_rename.c) share.
 */
#ifndef TM_MIGRATE_INTERNAL_H
#define TM_MIGRATE_INTERNAL_H

#include "buf.h"
#include "migrate.h"
#include "model.h"
#include "store.h"

#include <stdbool.h>

/* tm_migrate_parse_index, but `out->skipped` is kept on TM_EPARSE for a
 * shape with no valid link (the entries to name in the report). */
int tm_migrate__parse_index(tm_migrate_index *out, const char *data, size_t len,
			    const char *path);

/* The links of `idx` as an index 0.4 and the upgrade read: {"nodes": {id:
 * {"parentId": parent or null}}}, two-space JSON (the index kept while
 * some of its links wait: only those). */
void tm_migrate__write_index(tm_buf *out, const tm_migrate_index *idx);

/* 0.4's thread with the empty id (threads/{project}/.md) and its new id. */
typedef struct {
	char *project;
	char *to;
} tm_migrate_renamed;

/* What one run shares. */
typedef struct {
	tm_store *s;
	tm_strv *report;
	tm_strv *left;
	bool dry_run;
	int fd; /* trees/ or stats/, open */
	tm_migrate_renamed *renames;
	size_t nrenames, arenames;
	char *prefix; /* the store folder in the work tree ("x/.threadmind/"),
			 NULL outside git: no history to ask */
} tm_migrate_ctx;

/* Append a printf-formatted line to `v`. */
void tm_migrate__say(tm_strv *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Is `name` a folder of the store (not following a link)? */
bool tm_migrate__has_dir(tm_store *s, const char *name);

/* The names in the store's folder `name`, sorted, and that folder open in
 * *out_fd (the caller closes it). */
int tm_migrate__list_folder(tm_strv *out, tm_store *s, const char *name,
			    int *out_fd);

/* The projects whose folder holds threads/{project}/.md, sorted. */
void tm_migrate__empty_id_projects(tm_strv *out, tm_store *s);

/* Rename every project's `.md` thread (migrate_rename.c), remembering the
 * new ids in c->renames. */
int tm_migrate__rename_empty_ids(tm_migrate_ctx *c);

/* The new id of `project`'s empty-id thread, NULL when it has none. */
const char *tm_migrate__renamed_to(const tm_migrate_ctx *c,
				   const char *project);

/* An id as the upgrade sees it: "" is the empty-id thread's new id. */
const char *tm_migrate__mapped(const tm_migrate_ctx *c, const char *project,
			       const char *id);

/* Load thread `id`; with --dry-run the renamed thread is still in `.md`. */
int tm_migrate__load_thread(tm_thread **out, tm_migrate_ctx *c,
			    const char *project, const char *id);

#endif
