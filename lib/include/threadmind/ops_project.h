/*
 * Changing a project (DESIGN.md section 11): its fields, its id, its
 * removal, with the safety of the thread edits: ids validated before any
 * path is built, the store lock held, every file written atomically, and
 * config.json's references (activeProjectId, branchThreads) kept in step.
 */
#ifndef TM_OPS_PROJECT_H
#define TM_OPS_PROJECT_H

#include "store.h"

#include <stdbool.h>

/*
 * Set `key` of projects/{project}.json to `value`: "title" (newlines become
 * one space, not empty), "systemContext" (newlines and tabs kept; may be
 * empty) or "mode" ("solo" or "team").  Other control characters, and a
 * value over 64 KiB, are refused.  *changed (may be NULL) says whether the
 * file was rewritten (an equal value writes nothing).
 *
 * Errors: TM_EINVALID (bad id, unknown key, bad value); TM_ENOTFOUND (no
 * such project); TM_EPARSE (the project file does not parse); TM_ELOCKED;
 * TM_ERROR.
 */
int tm_ops_project_set_field(bool *changed, tm_store *s, const char *project,
			     const char *key, const char *value);

/*
 * Rename project `from` to `to`: threads/{from}/ becomes threads/{to}/,
 * projects/{from}.json becomes projects/{to}.json (with `id` = to), and
 * config.json's activeProjectId and branchThreads[from] follow.  config.json
 * is read first, so that one that cannot be read stops everything before a
 * file changes.  A failure after the folder moved moves it back.
 *
 * Errors: TM_EINVALID (bad ids, from == to, threads/{from} not a folder);
 * TM_ENOTFOUND (no project `from`); TM_EEXISTS (`to` is taken by a
 * project file or a threads/ folder); TM_EPARSE (config.json); TM_ELOCKED;
 * TM_ERROR.
 */
int tm_ops_project_rename(tm_store *s, const char *from, const char *to);

/*
 * Remove project `project`: its thread files, threads/{project}/,
 * projects/{project}.json, and its config.json references.  Without
 * `force`, the only project and the current one (tm_store_current_project
 * without --project) are refused.  A threads/{project}/ folder holding
 * anything but thread files is refused (nothing is removed: those files are
 * not ours to delete).
 *
 * Errors: TM_EINVALID (bad id, refused without force, foreign files);
 * TM_ENOTFOUND; TM_EPARSE (config.json); TM_ELOCKED; TM_ERROR.
 */
int tm_ops_project_remove(tm_store *s, const char *project, bool force);

#endif
