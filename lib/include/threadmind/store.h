/*
 * The store: the `.threadmind/` folder of a repository.  Finds it, lists
 * projects and threads, loads and saves threads, projects and config.json
 * through the safe file layer (no symlinks, 1 MiB cap, atomic writes), and
 * takes the cross-process lock for read-modify-write operations.
 *
 * Conventions for every function below: 0 or a negative TM_E* code with a
 * tm_error_set message naming the file; output parameters are written on
 * success only and belong to the caller (free them with the matching
 * _free / _clear); ids are checked (tm_id_validate: TM_EINVALID) before any
 * path is built.  Single-file loads and saves need no lock; a caller that
 * reads, changes and writes back must hold it (tm_store_lock), and the
 * read-modify-write operations of lib/include/threadmind/ops.h take it
 * themselves.
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

/*
 * Open the store of the folder `root` (which holds `.threadmind/`).  Free
 * *out with tm_store_free.  TM_ENOTFOUND (saying to run init) when there is
 * no `.threadmind`; TM_EINVALID when it is a symlink or not a folder.
 */
int tm_store_open(tm_store **out, const char *root);

/*
 * Where `init` would create the store when started from `start_dir`: the git
 * worktree root when inside one, else start_dir itself.  malloc'd; the
 * caller frees it.  Never fails.
 */
char *tm_store_init_root(const char *start_dir);

/*
 * Create `.threadmind/` in `root`: .gitignore, then a project
 * (tm_store_create_project: title = `title`, or the folder name when NULL)
 * and config.json with that project and `main` active (also for the current
 * branch).  `mode` is "solo" (NULL) or "team".  *out (optional) receives
 * the open store.  TM_EEXISTS when `.threadmind` already exists (nothing
 * is touched); TM_EINVALID for another mode; TM_ERROR when a file cannot
 * be written.  Takes the lock itself.
 */
int tm_store_init(tm_store **out, const char *root, const char *title,
		  const char *mode);

/*
 * Create a project: id = slug of `title` with a -2, -3, ... suffix when a
 * project file or a non-empty threads/{id}/ folder has it; writes
 * threads/{id}/main.md (the root thread "Main", author from config.json or
 * git) and then projects/{id}.json (title, `mode` when not NULL: "solo" or
 * "team"), and config.json when it had no author yet.  The thread comes
 * first so that a project never shows without its root; when the project
 * file cannot be written, the thread file (and the folder, when created
 * here) are removed again.  *out_id receives the id (malloc'd; the caller
 * frees it).  Takes the lock itself, refreshing it between writes.
 * Errors: TM_EINVALID for a bad mode; TM_EPARSE when config.json does not
 * parse; TM_ELOCKED; TM_ERROR on I/O.
 */
int tm_store_create_project(char **out_id, tm_store *s, const char *title,
			    const char *mode);

/* Close the store, releasing a lock still held.  NULL is allowed. */
void tm_store_free(tm_store *s);

/* The folder holding .threadmind (no trailing slash); owned by the store. */
const char *tm_store_root(const tm_store *s);
/* The .threadmind folder path; owned by the store. */
const char *tm_store_dir(const tm_store *s);
/* The .threadmind folder, open (O_DIRECTORY) since tm_store_open: what
 * reads of its files start from instead of opening it again; owned by the
 * store. */
int tm_store_dirfd(const tm_store *s);

/*
 * The repository of the store, opened on first use (honouring GIT_DIR and
 * GIT_WORK_TREE as git sets them for hooks).  NULL outside git (no error
 * is left set).  Owned by the store.
 */
struct tm_git *tm_store_git(tm_store *s);

/*
 * Current branch (NULL outside git / detached HEAD) and HEAD (NULL when
 * unborn or outside git); owned by the store, computed once.  The branch
 * is the name as threadmind stores it (branchThreads keys, a thread's
 * `branch`): tm_config_branch_key, the name itself unless it is not UTF-8;
 * tm_store_branch_ref is the name as git has it, for asking git.
 */
const char *tm_store_branch(tm_store *s);
const char *tm_store_branch_ref(tm_store *s);
const char *tm_store_head(tm_store *s);

/* ---- lock ---- */

/*
 * Take the store lock (threadmind.lockTimeout seconds, default 15).  Nested
 * calls in one process just count (tm_lock_acquire's nesting: the one
 * count); each needs its tm_store_unlock.  TM_ELOCKED naming the holder on
 * timeout; TM_EINVALID for a bad threadmind.lockTimeout; the errors of
 * tm_lock_acquire.
 */
int tm_store_lock(tm_store *s);
/* tm_store_lock waiting at most `max_wait` seconds (the hooks' bound;
 * a negative max_wait: no bound beyond threadmind.lockTimeout). */
int tm_store_lock_within(tm_store *s, double max_wait);
/* The seconds tm_store_lock waits into *out: threadmind.lockTimeout, 15
 * when unset (or outside git).  TM_EINVALID naming the key when it is not
 * a number of seconds (tm_git_config_seconds). */
int tm_store_lock_timeout(double *out, tm_store *s);
/*
 * Release one level of the lock (nothing when it is not held).  The last
 * level returns TM_ELOCKED when the lock was taken over while held (what
 * was written meanwhile may have crossed another writer) and TM_ERROR when
 * the lock file cannot be removed; the lock is released all the same.
 */
int tm_store_unlock(tm_store *s);
/*
 * Keep a long operation's lock fresh: call it between writes and stop on
 * an error.  TM_ELOCKED when the lock was taken over (another process
 * thought it stale): stop writing; TM_ERROR when it cannot be touched.
 * 0 when the lock is not held.
 */
int tm_store_lock_refresh(tm_store *s);

/* ---- config.json ---- */

/* Load config.json into *out (free with tm_config_free); a missing file
 * gives the defaults.  The file is read once per store: later loads find
 * it unchanged (same inode, size and times: one fstatat) and parse the
 * bytes kept from that read, or from the store's own last save.  TM_EPARSE
 * (line, column) for a file that does not parse: it is then never overwritten.
 * TM_EINVALID for a symlink or a file over 1 MiB; TM_ERROR on I/O.  No lock
 * needed. */
int tm_store_load_config(tm_config **out, tm_store *s);
/*
 * From now on, a config.json that does not parse, is a symlink or is over
 * 1 MiB (TM_EPARSE / TM_EINVALID above) makes tm_store_load_config return
 * the defaults instead when the store lock is not held (readers; a writer
 * still gets the error before it writes anything), after `warn` (may be NULL)
 * was called once with a message naming the file and the fix (config.json is
 * per-user state: read commands go on).  tm_store_save_config still refuses to
 * overwrite such a file (its load error).  tm_store_load_config_strict ignores
 * this.
 */
void tm_store_config_fallback(tm_store *s,
			      void (*warn)(const char *msg, void *payload),
			      void *payload);
/* tm_store_load_config without the fallback (doctor reports the error). */
int tm_store_load_config_strict(tm_config **out, tm_store *s);
/* Write config.json atomically, adding `author` to cfg when it is missing
 * (tm_store_author's errors).  The caller holds the lock.  A config.json
 * that cannot be read is never overwritten (TM_EPARSE / TM_EINVALID). */
int tm_store_save_config(tm_store *s, tm_config *cfg);

/* ---- projects ---- */

/* Project ids (projects/{id}.json with a valid id), sorted, appended to
 * *out (clear it with tm_strv_clear).  No projects/ folder: none.  TM_ERROR
 * when the folder cannot be listed. */
int tm_store_list_projects(tm_strv *out, tm_store *s);
/* Load projects/{id}.json (free with tm_project_free).  TM_ENOTFOUND for
 * no such project, TM_EPARSE when it does not parse. */
int tm_store_load_project(tm_project **out, tm_store *s, const char *id);
/* Write projects/{p's id}.json atomically.  The caller holds the lock when
 * it read the file first. */
int tm_store_save_project(tm_store *s, const tm_project *p);
/*
 * The project a command works on: `requested` (--project) when given, else
 * config.json's activeProjectId when that project exists, else the only
 * project.  TM_ENOTFOUND with a hint when there is no project (or no such
 * `requested` one); TM_EAMBIGUOUS, naming the projects, when there are
 * several and none is active (a fresh clone: read commands then cover
 * every project, write commands ask for --project); TM_EPARSE for a
 * config.json that does not parse.  *out malloc'd; the caller frees it.
 */
int tm_store_current_project(char **out, tm_store *s, const char *requested);

/* ---- threads ---- */

/* Thread ids of a project (threads/{project}/{id}.md with a valid id),
 * sorted, appended to *out.  Names that are not valid ids go to `bad` when
 * it is not NULL.  No such folder: none.  TM_ERROR when it cannot be
 * listed. */
int tm_store_list_threads(tm_strv *out, tm_strv *bad, tm_store *s,
			  const char *project);
/* Load a thread (free with tm_thread_free).  TM_ENOTFOUND when the thread
 * does not exist; TM_EPARSE / TM_EINVALID when it cannot be read. */
int tm_store_load_thread(tm_thread **out, tm_store *s, const char *project,
			 const char *id);
/* Write threads/{project}/{t->id}.md atomically (creating the folders).
 * The caller holds the lock when it read the thread first. */
int tm_store_save_thread(tm_store *s, const char *project, const tm_thread *t);
/* Remove threads/{project}/{id}.md.  TM_ENOTFOUND when it is not there.
 * The caller holds the lock. */
int tm_store_delete_thread(tm_store *s, const char *project, const char *id);
/* The warning for a file of threads/{project}/ whose name is no thread id
 * (tm_store_list_threads's `bad`), naming it and what to do; ".md" is
 * ThreadMind 0.4's empty id, which the upgrade renames.  Malloc'd. */
char *tm_store_bad_name_message(tm_store *s, const char *project,
				const char *name);
/* The first of `base`, `base`-2, `base`-3 ... (tm_slug_unique) that is
 * not in `ids` (sorted in place) nor `main`: *out malloc'd.  Errors: those
 * of tm_slug_unique. */
int tm_store_unique_thread_id(char **out, tm_strv *ids, const char *base);
/* Is threads/{project}/{id}.md a regular file?  False for bad ids. */
bool tm_store_thread_exists(tm_store *s, const char *project, const char *id);

/* Every thread file of a project: readable ones in `threads`, the others
 * in `errors` (one message each, naming the file) and `error_paths` (the
 * same file, as `marked` names them: errors.items[i] is about
 * error_paths.items[i]); `marked` has the files
 * read whose content holds conflict markers (tm_conflict_markers_left,
 * parsed or not), as paths relative to the store's root
 * (".threadmind/threads/p/x.md"), in the order of the ids: what
 * tm_resolve_pending_loaded takes instead of reading them again.  *out is
 * always
 * initialised; clear it with tm_thread_list_clear.  Errors: those of
 * tm_store_list_threads (an unreadable file is not an error), and
 * TM_ETIMEOUT when the caller's deadline (deadline.h) passes before the
 * last file is read (then *out holds nothing).  tm_store_load_thread
 * and tm_store_list_threads return TM_ETIMEOUT likewise. */
typedef struct {
	tm_thread **threads;
	size_t n;
	tm_strv errors;
	tm_strv error_paths;
	tm_strv marked;
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
 * Create a thread under the lock (taken here): id = slug of the title with
 * a -2, -3, … suffix on collision (`main` always counts as taken), author
 * from config.json (set there when missing), createdAt = updatedAt = now.
 * The parent must exist (TM_ENOTFOUND).  *out (optional) receives the new
 * thread (free with tm_thread_free).  TM_EPARSE for a config.json that does
 * not parse; TM_ELOCKED; TM_ERROR.
 */
int tm_store_create_thread(tm_thread **out, tm_store *s, const char *project,
			   const tm_new_thread_options *opts);

/*
 * The author id into *out (malloc'd; the caller frees it):
 * tm_slugify_or(name, "user") + "-" + the first 4 hex digits of the git
 * blob hash of `email`'s bytes (what `printf %s "$email" | git hash-object
 * --stdin` prints).  `name` NULL, empty or without any letter or digit
 * gives "user"; `email` NULL is taken as "".  The slug part is at most
 * TM_SLUG_MAX bytes, so the id at most TM_SLUG_MAX + 5.
 *
 * Errors: TM_ERROR when hashing fails.
 */
int tm_author_id(char **out, const char *name, const char *email);

/* The author id for new threads: cfg's (cfg may be NULL), else
 * tm_author_id of git's user (tm_git_user of the store's repository, or
 * of the user's files outside git).  *out malloc'd; the caller frees it.
 * No lock needed.  Errors: those of tm_git_user and tm_author_id. */
int tm_store_author(char **out, tm_store *s, tm_config *cfg);

/*
 * The active thread of `project` for the current branch (DESIGN.md section
 * 3), decided on `threads` when not NULL, else on the files.  *out is a
 * malloc'd id (the caller frees it); fails only when the threads cannot be
 * listed.  No lock needed.  Guarded by config.json's activeThreadIdentity
 * as tm_store_active_thread_checked says.
 */
int tm_store_active_thread(char **out, tm_store *s, const char *project,
			   tm_config *cfg, const tm_thread *const *threads,
			   size_t n);

/* The active thread config.json named went elsewhere (see below). */
typedef struct {
	char *from;       /* the id config.json named (NULL: nothing moved) */
	char *to;         /* the id of that thread now, NULL when it is gone */
	char *was_title;  /* that thread's title (NULL when it is gone) */
	char *was_author; /* its author, as config.json recorded it */
	char *now_title;  /* the thread that holds `from` now (NULL: none) */
	char *now_author;
} tm_active_moved;

void tm_active_moved_clear(tm_active_moved *m);

/*
 * tm_store_active_thread, with the guard of DESIGN.md section 11 ("Same id
 * born on two branches"): when activeThreadId or this branch's
 * branchThreads entry names the id that activeThreadIdentity is about, and
 * that id now holds another thread (a different createdAt or author) or no
 * file, the thread with the recorded identity is looked up among the
 * project's threads: the entry counts as naming its new id, or as absent
 * when there is none.  A file that cannot be read is left alone.  When
 * that happened and `moved` is not NULL, *moved says so (clear it with
 * tm_active_moved_clear; zeroed otherwise); config.json is not written.
 */
int tm_store_active_thread_checked(char **out, tm_active_moved *moved,
				   tm_store *s, const char *project,
				   tm_config *cfg,
				   const tm_thread *const *threads, size_t n);

/*
 * tm_store_active_thread (files, no list) for a caller that has just seen
 * the file of this branch's branchThreads entry: the same answer, without
 * looking for that file again (the hook's route: one look per run).
 */
int tm_store_active_thread_entry_seen(char **out, tm_store *s,
				      const char *project, tm_config *cfg);

/*
 * Set cfg's activeThreadIdentity to thread `id` of `project` as its file
 * says (tm_config_set_active_identity); removed when the file cannot be
 * read.  Writes nothing: the caller saves cfg.
 */
void tm_store_record_identity(tm_store *s, tm_config *cfg, const char *project,
			      const char *id);

/*
 * Make `thread` the active thread: activeProjectId, activeThreadId,
 * branchThreads[project][current branch] (when on a branch) and
 * activeThreadIdentity (tm_store_record_identity).  Takes the lock
 * and writes config.json.  TM_EPARSE for a config.json that does not parse
 * (left as it is); TM_ELOCKED; TM_ERROR.
 */
int tm_store_set_active(tm_store *s, const char *project, const char *thread);
/* tm_store_set_active, with *title (title not NULL) the thread's title
 * from the read that records its identity (malloc'd; NULL when it has none
 * or cannot be read; NULL on error): no second read for a message. */
int tm_store_set_active_title(tm_store *s, const char *project,
			      const char *thread, char **title);

#endif
