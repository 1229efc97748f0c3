/*
 * The store: the `.threadmind/` folder of a repository.  Finds it, lists
 * projects and threads, loads and saves threads, projects and config.json
 * through the safe file layer (no symlinks, 1 MiB cap, atomic writes), and
 * takes the cross-process lock for read-modify-write operations.
 */
#ifndef TM_STORE_H
#define TM_STORE_H

#include "buf.h"
#include "config.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>

#define TM_STORE_DIRNAME ".threadmind"
/* The content of .threadmind/.gitignore. */
#define TM_STORE_GITIGNORE "config.json\n.lock\n*.tmp\n"

typedef struct tm_store tm_store;
struct tm_git;

/*
 * Find the store from `start_dir`: walk up the folders; the first holding a
 * `.threadmind` folder wins.  The walk stops at the git worktree root (a
 * folder holding `.git`), or at `/` outside git.  A `.threadmind` that is a
 * symlink or not a folder is refused (TM_EINVALID).  TM_ENOTFOUND when there
 * is none, with a message saying to run `git threadmind init`.
 */
int tm_store_discover(tm_store **out, const char *start_dir);

/* Open the store of the folder `root` (which holds `.threadmind/`). */
int tm_store_open(tm_store **out, const char *root);

/*
 * Where `init` would create the store when started from `start_dir`: the git
 * worktree root when inside one, else start_dir itself.  malloc'd.
 */
char *tm_store_init_root(const char *start_dir);

/*
 * Create `.threadmind/` in `root`: .gitignore, projects/{id}.json (id = slug
 * of `title`, or of the folder name when title is NULL; title = that name),
 * threads/{id}/main.md (the root thread, title "Main"), config.json with
 * that project and `main` active.  `mode` is "solo" (NULL) or "team".
 * TM_EEXISTS when `.threadmind` already exists (nothing is touched).
 */
int tm_store_init(tm_store **out, const char *root, const char *title,
                  const char *mode);

void tm_store_free(tm_store *s);

/* The folder holding .threadmind (no trailing slash). */
const char *tm_store_root(const tm_store *s);
/* The .threadmind folder path. */
const char *tm_store_dir(const tm_store *s);

/*
 * The repository of the store, opened on first use (honouring GIT_DIR and
 * GIT_WORK_TREE as git sets them for hooks).  NULL outside git.  Owned by
 * the store.
 */
struct tm_git *tm_store_git(tm_store *s);

/* Current branch (NULL outside git / detached HEAD) and HEAD (NULL when
 * unborn or outside git); owned by the store, computed once. */
const char *tm_store_branch(tm_store *s);
const char *tm_store_head(tm_store *s);

/* ---- lock ---- */

/*
 * Take the store lock (threadmind.lockTimeout seconds, default 15).  Nested
 * calls in one process just count.  TM_ELOCKED naming the holder on
 * timeout.
 */
int tm_store_lock(tm_store *s);
/* Release one level of the lock. */
void tm_store_unlock(tm_store *s);
/* Keep a long operation's lock fresh (call between steps). */
void tm_store_lock_refresh(tm_store *s);

/* ---- config.json ---- */

/* Load config.json; a missing file gives the defaults.  TM_EPARSE (line,
 * column) for a file that does not parse: it is then never overwritten. */
int tm_store_load_config(tm_config **out, tm_store *s);
/* Write config.json atomically, adding `author` when it is missing.  The
 * caller holds the lock. */
int tm_store_save_config(tm_store *s, tm_config *cfg);

/* ---- projects ---- */

/* Project ids (projects/{id}.json with a valid id), sorted. */
int tm_store_list_projects(tm_strv *out, tm_store *s);
int tm_store_load_project(tm_project **out, tm_store *s, const char *id);
int tm_store_save_project(tm_store *s, const tm_project *p);
/*
 * The project a command works on: `requested` (--project) when given, else
 * config.json's activeProjectId when that project exists, else the only
 * project.  TM_ENOTFOUND / TM_EINVALID with a hint otherwise.  malloc'd.
 */
int tm_store_current_project(char **out, tm_store *s, const char *requested);

/* ---- threads ---- */

/* Thread ids of a project (threads/{project}/{id}.md with a valid id),
 * sorted.  Names that are not valid ids go to `bad` when it is not NULL. */
int tm_store_list_threads(tm_strv *out, tm_strv *bad, tm_store *s,
                          const char *project);
/* TM_ENOTFOUND when the thread does not exist; TM_EPARSE / TM_EINVALID when
 * it cannot be read. */
int tm_store_load_thread(tm_thread **out, tm_store *s, const char *project,
                         const char *id);
int tm_store_save_thread(tm_store *s, const char *project, const tm_thread *t);
int tm_store_delete_thread(tm_store *s, const char *project, const char *id);
bool tm_store_thread_exists(tm_store *s, const char *project, const char *id);

/* Every thread file of a project: readable ones in `threads`, the others
 * in `errors` (one message each, naming the file). */
typedef struct {
	tm_thread **threads;
	size_t n;
	tm_strv errors;
} tm_thread_list;

int tm_store_load_all(tm_thread_list *out, tm_store *s, const char *project);
void tm_thread_list_clear(tm_thread_list *l);

/* Options of tm_store_create_thread. */
typedef struct {
	unsigned version;
	const char *title;
	const char *parent;   /* NULL: the root thread `main` */
	const tm_strv *paths; /* NULL: no `paths` field */
	const char *branch;   /* NULL: none */
	const char *commit;   /* NULL: none */
	const char *summary;  /* NULL: empty body */
} tm_new_thread_options;

#define TM_NEW_THREAD_OPTIONS_VERSION 1
#define TM_NEW_THREAD_OPTIONS_INIT                                           \
	{                                                                    \
		TM_NEW_THREAD_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, \
		        NULL                                                 \
	}

/*
 * Create a thread under the lock: id = slug of the title with a -2, -3, …
 * suffix on collision (`main` always counts as taken), author from
 * config.json (set there when missing), createdAt = updatedAt = now.  The
 * parent must exist.  *out (optional) receives the new thread.
 */
int tm_store_create_thread(tm_thread **out, tm_store *s, const char *project,
                           const tm_new_thread_options *opts);

/* The author id for new threads: config.json's, else computed from git's
 * user.name / user.email. malloc'd. */
int tm_store_author(char **out, tm_store *s, tm_config *cfg);

/*
 * The active thread of `project` for the current branch (DESIGN.md section
 * 3).  malloc'd id; never fails for a readable config.json.
 */
int tm_store_active_thread(char **out, tm_store *s, const char *project,
                           tm_config *cfg, const tm_thread *const *threads,
                           size_t n);

/*
 * Make `thread` the active thread: activeProjectId, activeThreadId and
 * branchThreads[project][current branch] (when on a branch).  Takes the lock
 * and writes config.json.
 */
int tm_store_set_active(tm_store *s, const char *project, const char *thread);

#endif
