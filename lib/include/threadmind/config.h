/*
 * The store's JSON files: config.json (AppState) and projects/{id}.json
 * (ProjectConfig), read and written through the JSON codec (json.h) the
 * way JavaScript's JSON.stringify(value, null, 2) writes them.
 */
#ifndef TM_CONFIG_H
#define TM_CONFIG_H

#include "buf.h"

#include <stdbool.h>

#include <stddef.h>

/*
 * config.json (AppState): the whole JSON object, unknown keys and
 * `sessions` kept as read, in order.  Reading then writing changes only
 * what the calls in between changed.
 */
typedef struct tm_config tm_config;

/*
 * A new config holding the defaults, in this order: {"activeProjectId":
 * null, "activeThreadId": null, "version": 1, "branchThreads": {},
 * "sessions": []}.  (`author` is added by the store on first write.)  Free
 * with tm_config_free.
 */
tm_config *tm_config_new(void);

/*
 * Parse `len` bytes of config.json read from `path` (the name used in error
 * messages).  On success *out is owned by the caller (tm_config_free).
 * TM_EPARSE, *out untouched, when the bytes are not valid JSON (see
 * tm_json_parse: the message has the line and column) or the top level is
 * not an object ("'PATH' does not hold a JSON object (line L, column C):
 * ...", located at the value's first character).
 */
int tm_config_parse(tm_config **out, const char *data, size_t len,
		    const char *path);

/* Free `c` (NULL allowed). */
void tm_config_free(tm_config *c);

/* Append the config as JSON.stringify(value, null, 2) + "\n". */
void tm_config_write(tm_buf *out, const tm_config *c);

/*
 * The top-level string `key` (activeProjectId, activeThreadId, author, ...):
 * owned by `c`, valid until `c` changes; NULL when absent, null or not a
 * string.
 */
const char *tm_config_get_string(const tm_config *c, const char *key);

/*
 * Set the top-level `key` to the string `value` (NULL: JSON null).  An
 * existing key keeps its position (whatever its old type); a new key is
 * appended at the end, as a JavaScript object would do.
 */
void tm_config_set_string(tm_config *c, const char *key, const char *value);

/*
 * Append the branchThreads key of git branch `branch` to `out` (NUL-
 * terminated): the name itself when it is valid UTF-8, as always; else
 * each byte that is not part of valid UTF-8 written as the four characters
 * "\xHH" (lower-case hex), so that config.json stays UTF-8 JSON (git
 * allows any byte >= 0x80 in a ref name).  Reversible and unambiguous: a
 * git ref name never holds a backslash.  docs/format.md, "config.json".
 */
void tm_config_branch_key(tm_buf *out, const char *branch);

/*
 * branchThreads[project][branch] (the key as tm_config_branch_key makes
 * it): owned by `c`, valid until `c` changes; NULL when any level is
 * absent or of another type.
 */
const char *tm_config_branch_thread(const tm_config *c, const char *project,
				    const char *branch);

/*
 * Set branchThreads[project][branch] (the key as tm_config_branch_key
 * makes it) to `thread`, creating `branchThreads`
 * (appended at the end) and `branchThreads[project]` as empty objects when
 * absent or null; the key keeps its position when it exists.  With `thread`
 * NULL, remove every branchThreads[project][branch] member instead (absent
 * levels: nothing to do, nothing created; an emptied project object stays).
 * Returns 0, or TM_EPARSE ("'branchThreads' in 'PATH' is not an object:
 * fix it or delete it; it was not modified", or "'branchThreads.PROJECT'
 * ...") when a level that must be written into holds another type: `c` is
 * then unchanged.
 */
int tm_config_set_branch_thread(tm_config *c, const char *project,
				const char *branch, const char *thread);

/*
 * Remove every branchThreads[project][*] member whose value is the string
 * `thread` (when that thread is deleted), and activeThreadIdentity when it
 * is about that thread.  Returns how many branchThreads members were
 * removed.
 */
size_t tm_config_forget_thread(tm_config *c, const char *project,
			       const char *thread);

/*
 * A thread of `project` was renamed from `from` to `to`: every
 * branchThreads[project][*] equal to `from` becomes `to` (in place), and so
 * does activeThreadId when it is `from` and activeProjectId is `project` or
 * not a string (an activeThreadId of another project is left alone), and
 * the id of activeThreadIdentity when it is about `from` of `project`.
 */
void tm_config_rename_thread(tm_config *c, const char *project,
			     const char *from, const char *to);

/*
 * activeThreadIdentity (threadmind's own key, placed after activeThreadId):
 * which thread an id of config.json meant when it was written, so that a
 * later merge that gives the id to another thread (DESIGN.md section 11,
 * "Same id born on two branches") is noticed: {"project": P, "id": ID,
 * "createdAt": ..., "author": ...}.  It guards activeThreadId and the
 * branchThreads[P][*] entries that name ID in project P.  The pointers are
 * owned by the config, valid until it changes.
 */
typedef struct {
	const char *project;
	const char *id;
	const char *created_at; /* NULL when the thread has none */
	const char *author;     /* NULL when the thread has none */
} tm_config_identity;

/*
 * Read activeThreadIdentity into *out: true when it is an object with
 * string `project` and `id` and at least one of `createdAt` and `author`
 * as strings; false (and *out zeroed) otherwise.
 */
bool tm_config_active_identity(const tm_config *c, tm_config_identity *out);

/*
 * Record that thread `id` of `project` is the one created at `created_at`
 * by `author`: activeThreadIdentity is replaced in place, or added right
 * after activeThreadId (at the end when there is none).  With `project` or
 * `id` NULL, or both `created_at` and `author` NULL, the key is removed.
 */
void tm_config_set_active_identity(tm_config *c, const char *project,
				   const char *id, const char *created_at,
				   const char *author);

/*
 * Project `from` was renamed `to`: activeProjectId, the key
 * branchThreads[from] (an entry already under `to` is replaced) and the
 * project of activeThreadIdentity follow.
 */
void tm_config_rename_project(tm_config *c, const char *from, const char *to);
/* Project `project` was removed: branchThreads[project] goes, and so do
 * activeProjectId and activeThreadId when they were about it (null), and
 * activeThreadIdentity when it was. */
void tm_config_forget_project(tm_config *c, const char *project);

/* The number of `sessions` entries (0 when not an array); never changes them.
 */
size_t tm_config_session_count(const tm_config *c);

/*
 * The `version` number truncated to an int (clamped to INT_MIN..INT_MAX),
 * or 0 when absent or not a number.
 */
int tm_config_version(const tm_config *c);

/*
 * projects/{id}.json (ProjectConfig): the whole JSON object, unknown keys
 * kept as read, in order.
 */
typedef struct tm_project tm_project;

/*
 * A new project file: {"id": id, "title": title, "systemContext": "",
 * "mode": "solo", "rootThreadId": "main"} in that order.  Free with
 * tm_project_free.
 */
tm_project *tm_project_new(const char *id, const char *title);

/*
 * Parse `len` bytes of a project file read from `path`; same contract and
 * errors as tm_config_parse (*out owned by the caller, tm_project_free).
 */
int tm_project_parse(tm_project **out, const char *data, size_t len,
		     const char *path);

/* Free `p` (NULL allowed). */
void tm_project_free(tm_project *p);

/* Append the project as JSON.stringify(value, null, 2) + "\n". */
void tm_project_write(tm_buf *out, const tm_project *p);

/*
 * The top-level string `key` (id, title, systemContext, mode, rootThreadId,
 * or any other): owned by `p`, valid until `p` changes; NULL when absent or
 * not a string.
 */
const char *tm_project_get(const tm_project *p, const char *key);

/*
 * Set the top-level `key` to the string `value` (NULL: JSON null); an
 * existing key keeps its position, a new one is appended.
 */
void tm_project_set(tm_project *p, const char *key, const char *value);

#endif
