/*
 * The checks of `git threadmind doctor`: what can be wrong in a store, as a
 * list of problems, and the repairs that are safe to make without asking.
 */
#ifndef TM_DOCTOR_H
#define TM_DOCTOR_H

#include "buf.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Problem kinds: stable names, shown by the CLI and documented.  A kind
 * marked [fix] can be repaired by tm_doctor_fix (when `fixable` says so).
 */
#define TM_DOCTOR_UNREADABLE     "unreadable"  /* parse error, > 1 MiB, link */
#define TM_DOCTOR_BAD_ID         "bad-id"      /* a file name is no valid id */
#define TM_DOCTOR_ID_MISMATCH    "id-mismatch" /* [fix] id field != file name */
#define TM_DOCTOR_NO_PROJECT     "no-project"  /* threads/P/ without P.json */
#define TM_DOCTOR_NO_ROOT        "no-root"     /* a project without main.md */
#define TM_DOCTOR_ORPHAN         "orphan"      /* the parent file is missing */
#define TM_DOCTOR_CYCLE          "cycle"       /* a parent cycle */
#define TM_DOCTOR_UNKNOWN_STATUS "unknown-status"
#define TM_DOCTOR_STALE_LOCK     "stale-lock" /* [fix] .lock untouched > 10 s */
#define TM_DOCTOR_STRAY_TMP      "stray-tmp"  /* [fix] a *.tmp left behind */
#define TM_DOCTOR_RECOVERY       "recovery"   /* [fix] a *.tmp to restore */
#define TM_DOCTOR_LEFTOVER       "leftover"   /* for a human: *.broken, ... */
#define TM_DOCTOR_GITIGNORE      "gitignore"  /* [fix] .gitignore lines */
#define TM_DOCTOR_MERGE_DRIVER   "merge-driver"  /* merge.threadmind.driver */
#define TM_DOCTOR_GITATTRIBUTES  "gitattributes" /* [fix] our lines missing */
#define TM_DOCTOR_HOOKS          "hooks"   /* a hook missing or outdated */
#define TM_DOCTOR_TRACKED        "tracked" /* [fix] .lock, config.json in git */
#define TM_DOCTOR_CONFIG         "config"  /* [fix] config.json unreadable */
#define TM_DOCTOR_UPGRADE        "upgrade" /* [fix] a 0.4 trees/ index */
#define TM_DOCTOR_CONFLICT       "conflict" /* unmerged, or conflict markers */
#define TM_DOCTOR_UNMATCHED_PATH \
	"unmatched-path" /* paths entry: nothing in HEAD */
#define TM_DOCTOR_UNINTEGRATED \
	"unintegrated" /* merged, with lines its parent lacks */

/* The patterns .threadmind/.gitattributes must give merge=threadmind. */
#define TM_DOCTOR_ATTR_THREADS  "threads/**/*.md"
#define TM_DOCTOR_ATTR_PROJECTS "projects/*.json"

/* One problem found by a check. */
typedef struct {
	const char *kind; /* a TM_DOCTOR_* string (static) */
	/*
	 * The file or folder concerned, relative to the store root
	 * (".threadmind/threads/app/auth.md"); NULL when the problem is not
	 * about a file (git config).
	 */
	char *file;
	char *project; /* the project concerned, or NULL */
	char *thread;  /* the thread id concerned, or NULL */
	char *message; /* one line naming the file and what to do */
	bool fixable;  /* tm_doctor_fix can repair it */
} tm_doctor_problem;

/* The problems found, in the order of the checks. */
typedef struct {
	tm_doctor_problem *items;
	size_t n;
	size_t alloc;
} tm_doctor_report;

/* clang-format off */
#define TM_DOCTOR_REPORT_INIT {NULL, 0, 0}
/* clang-format on */

/* Free every problem and empty the report (it may be reused). */
void tm_doctor_report_clear(tm_doctor_report *r);

/*
 * Append a problem (for check functions): `kind` is kept as a pointer (a
 * static string); `file`, `project` and `thread` are copied and may be
 * NULL; the message is printf-formatted.  Returns the new problem (valid
 * until the next append).
 */
tm_doctor_problem *tm_doctor_add(tm_doctor_report *r, const char *kind,
				 const char *file, bool fixable,
				 const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* How many problems of the report are fixable. */
size_t tm_doctor_count_fixable(const tm_doctor_report *r);

typedef struct {
	unsigned version;
	const char *project; /* check only this project (NULL: every one) */
	bool git;            /* check the git setup (when in a repository) */
	double lock_stale_after; /* seconds: an older .lock is stale */
	double tmp_min_age;      /* seconds: an older *.tmp may be acted on */
} tm_doctor_options;

#define TM_DOCTOR_OPTIONS_VERSION 1
/* clang-format off */
#define TM_DOCTOR_OPTIONS_INIT {TM_DOCTOR_OPTIONS_VERSION, NULL, true, 10.0, 60.0}
/* clang-format on */

/*
 * Run every check on the store `s` and append what is wrong to `out`
 * (nothing appended: all is well).  Reads only; takes no lock.  `opts`
 * NULL means TM_DOCTOR_OPTIONS_INIT.
 *
 * The checks: config.json that cannot be read (a parse error, a symbolic
 * link, over 1 MiB: kind config, fixable), project files and thread files
 * that cannot be read (parse errors, over 1 MiB, symbolic links); file and
 * folder names that are not valid ids; thread `id` fields (and project `id`
 * keys) that are missing or differ from the file name; threads/P/ folders
 * without a projects/P.json; projects without a `main` thread; orphans (no file
 * for the parent at all: an unreadable parent is reported as unreadable);
 * parent cycles (one problem at the member where the cycle is broken);
 * statuses other than done/abandoned; with opts->git, a `.lock` or
 * `config.json` tracked by git (kind tracked, fixable; a tracked lock is
 * never a live one, so it is not a stale-lock too); a `.lock` untouched for
 * more than opts->lock_stale_after seconds (fixable unless it is a folder with
 * something inside); `*.tmp` files anywhere in .threadmind/ (at most two
 * folders deep), each judged by recover.h's rule against its target: a
 * recovery (the only complete copy of a file that is missing, empty, cut
 * short or unparseable: kind recovery, fixable), a stray older than its
 * target and no larger (stray-tmp, fixable), any other stray (stray-tmp,
 * kept); both fixable only once older than opts->tmp_min_age seconds, as a
 * younger one may be a write in progress; a trees/ tmp is the upgrade's
 * (upgrade while its index is pending, then leftover: never fixable); the
 * `*.broken` files a restore kept (leftover); the lines of TM_STORE_GITIGNORE
 * missing from .threadmind/.gitignore; a 0.4 `trees/` index (fixable) and
 * the `trees/{project}.json.invalid` indexes the upgrade set aside; and, with
 * opts->git in a git repository, `merge.threadmind.driver` unset and
 * `.threadmind/.gitattributes` without a line giving `merge=threadmind` to
 * each of TM_DOCTOR_ATTR_THREADS and TM_DOCTOR_ATTR_PROJECTS, or any `diff`
 * (install's `diff=markdown`) to TM_DOCTOR_ATTR_THREADS (as git sees it:
 * git_attr_get on a path each pattern matches, so attributes set elsewhere
 * count too; fixable when .threadmind/.gitattributes lacks our lines, which
 * --fix adds as install does); also with opts->git, every `paths` entry
 * (without magic) that matches no file of HEAD (unmatched-path), naming the new
 * name when one of the last 1000 commits renamed what it named.
 *
 * A check is one function in doctor_check.c's table: adding one is writing it
 * and listing it there.
 *
 * Errors: TM_EINVALID for an invalid opts->project or bad options;
 * TM_ENOTFOUND when opts->project has neither a project file nor a threads/
 * folder; TM_ERROR
 * when the .threadmind folder itself cannot be listed.  Files that cannot
 * be read are problems, not errors.  On error `out` may hold the problems
 * found so far.
 */
int tm_doctor_check(tm_doctor_report *out, tm_store *s,
		    const tm_doctor_options *opts);

/* ---- the thread checks, shared with the post-merge hook ---- */

/* One project's thread files as the checks see them, loaded once. */
typedef struct {
	char *id;
	tm_strv bad;         /* file names in threads/ID/ that are no ids */
	tm_strv unreadable;  /* ids whose file could not be read ... */
	tm_strv errors;      /* ... and why, in the same order */
	bool folder_link;    /* threads/ID is a symbolic link (not read) */
	char *folder_error;  /* why threads/ID/ could not be listed, or NULL */
	tm_thread **threads; /* the readable threads, sorted by id */
	size_t n;
} tm_doctor_project;

/*
 * Load every thread file of project `id` into *out (clear it with
 * tm_doctor_project_clear, also after an error).  A folder that is a link
 * or cannot be listed, and files that cannot be read, are recorded in *out,
 * not returned.  Reads only; takes no lock.  Errors: TM_EINVALID when `id`
 * is no valid project id; TM_ETIMEOUT when the caller's deadline
 * (deadline.h) passes before the last file is read.
 */
int tm_doctor_project_load(tm_doctor_project *out, tm_store *s, const char *id);
void tm_doctor_project_clear(tm_doctor_project *p);

/*
 * The checks of the thread files of `n` loaded projects, appended to `out`
 * in this order (each over every project): the threads/P/ folders that
 * cannot be listed and the files that cannot be read (unreadable), file
 * names that are no ids (bad-id), `id` fields that differ from the file
 * name or are missing (id-mismatch, fixable: the format gives every thread
 * an `id` equal to its file name), then from the tree of each project the
 * orphans (parentId names no file; a parent that exists but cannot be read
 * is reported once, as unreadable, not as the orphan's problem too) and
 * the members where a parent cycle is broken (cycle), then the merged
 * threads holding lines the thread they were merged into lacks
 * (unintegrated: tm_find_unintegrated; `merge --again` adds them).  Pure
 * over the loaded projects: no I/O.  tm_doctor_check runs it, and so does
 * the post-merge hook, which counts what it finds.
 */
void tm_doctor_check_threads(tm_doctor_report *out,
			     const tm_doctor_project *projects, size_t n);

/*
 * Repair the fixable problems of `problems` (as tm_doctor_check found
 * them), under the store lock (taken only when there is something to fix;
 * taking it over is what removes a stale lock):
 * id-mismatch → the file is rewritten with the id from its name
 * (`updatedAt` is left alone: no content changed); gitignore → the missing
 * lines are appended (the file is created when missing); recovery → the
 * tmp renamed over its target, the old target kept as {target}.broken when
 * not empty (tm_recover_restore_at), before any other repair, and then the
 * upgrade is run even if the check found it blocked (a restored thread file
 * may be what blocked it); stray-tmp → the file is removed if it is still
 * older than its target, no larger and older than opts->tmp_min_age
 * (tm_recover_remove_at); stale-lock →
 * taken over and removed; tracked → the paths are
 * removed from git's index (commit the removal) and a tracked `.lock` from
 * the disk too (before the store lock is taken: it would wait for it; a file
 * that differs from the tracked blob is left alone, it may be live);
 * config → config.json renamed
 * aside as config.json.corrupt-YYYYMMDDTHHMMSSZ (-2, … when taken; never
 * overwritten, never followed if a link); upgrade → tm_migrate_run (its changes
 * go to `done`, what it leaves for a human to `failed`).  Each repair checks
 * its problem again first, so a problem already gone is skipped silently.
 *
 * One line per repair made is appended to `done`, and one line per repair
 * that failed (naming the file and the reason) to `failed`.
 *
 * Errors: TM_ELOCKED (or another error of tm_store_lock) when the lock
 * cannot be taken: nothing is repaired.  TM_ELOCKED ("lost the lock") when
 * another process takes the lock over between two repairs: the repairs
 * left are not made (`done` lists those made), and its lock file stays.
 */
int tm_doctor_fix(tm_strv *done, tm_strv *failed, tm_store *s,
		  const tm_doctor_report *problems,
		  const tm_doctor_options *opts);

#endif
