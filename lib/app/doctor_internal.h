/*
 * For doctor*.c only: the store as the checks see it, and the small helpers
 * the checks (doctor_check.c, doctor_git.c) and the repairs (doctor_fix.c)
 * share.
 */
#ifndef TM_DOCTOR_INTERNAL_H
#define TM_DOCTOR_INTERNAL_H

#include "doctor.h"

#include <stdbool.h>
#include <sys/stat.h>

/* The store as the checks see it, loaded once by tm_doctor_check. */
typedef struct {
	tm_store *s;
	const tm_doctor_options *o;
	int dirfd; /* the .threadmind folder */
	tm_doctor_project *projects;
	size_t nprojects;
} tm_doctor_ctx;

/* The checks of doctor_git.c (listed in doctor_check.c's table). */
int tm_doctor_check_merge_driver(tm_doctor_report *out, tm_doctor_ctx *c);
int tm_doctor_check_conflicts(tm_doctor_report *out, tm_doctor_ctx *c);
int tm_doctor_check_gitattributes(tm_doctor_report *out, tm_doctor_ctx *c);
int tm_doctor_check_hooks(tm_doctor_report *out, tm_doctor_ctx *c);
/* The check of doctor_paths.c: `paths` entries matching nothing in HEAD. */
int tm_doctor_check_paths(tm_doctor_report *out, tm_doctor_ctx *c);

/* doctor_store.c: .lock and config.json tracked by git. */
int tm_doctor_check_tracked(tm_doctor_report *out, tm_doctor_ctx *c);
/* Is .threadmind/.lock (or something under it) in git's index? */
bool tm_doctor_lock_is_tracked(tm_store *s, bool use_git);
/* Untrack p->file (and remove a tracked .lock from `dirfd`, the store). */
int tm_doctor_repair_tracked(tm_strv *done, tm_store *s, int dirfd,
			     const tm_doctor_problem *p);

/* doctor_tmp.c: *.tmp judged by recover.h's rule, and *.broken files. */
int tm_doctor_check_tmp(tm_doctor_report *out, tm_doctor_ctx *c);
/* Restore the recovery p->file from the store folder `dirfd`. */
int tm_doctor_repair_recovery(tm_strv *done, int dirfd,
			      const tm_doctor_problem *p, double min_age);
/* Remove the stray p->file if it is still safe to remove. */
int tm_doctor_repair_tmp(tm_strv *done, int dirfd, const tm_doctor_problem *p,
			 double min_age);

#define TM_DOCTOR_LOCK_NAME  ".lock"
#define TM_DOCTOR_TMP_SUFFIX ".tmp"

/* ".threadmind/A/B/C" for the parts that are not NULL (malloc'd). */
char *tm_doctor_rel(const char *a, const char *b, const char *c);
/* ".threadmind/threads/P/ID.md" and ".threadmind/projects/P.json". */
char *tm_doctor_thread_file(const char *project, const char *id);
char *tm_doctor_project_file(const char *project);

/* Append a problem about thread `id` of project `pr` (file, project and
 * thread set); `message` is copied as is. */
tm_doctor_problem *tm_doctor_add_thread(tm_doctor_report *out, const char *kind,
					const tm_doctor_project *pr,
					const char *id, bool fixable,
					const char *message);

bool tm_doctor_ends_with(const char *s, const char *suffix);
/* Seconds since the file's last modification. */
double tm_doctor_age(const struct stat *st);

/* The names in .threadmind/SUB (every name, sorted; not followed if SUB is
 * a link).  Errors of tm_store_open_folder. */
int tm_doctor_list(tm_strv *out, tm_store *s, const char *sub);
/* lstat of .threadmind/SUB/NAME (SUB NULL: .threadmind/NAME) without
 * following links; false when missing. */
bool tm_doctor_stat(struct stat *st, tm_store *s, const char *sub,
		    const char *name);
/* .threadmind/NAME is a folder with nothing in it. */
bool tm_doctor_dir_is_empty(tm_store *s, const char *name);

/* The lines of TM_STORE_GITIGNORE missing from `data`. */
void tm_doctor_missing_ignores(tm_strv *out, const char *data);
/* The items of `v` joined by `sep`, appended to `out`. */
void tm_doctor_join(tm_buf *out, const tm_strv *v, const char *sep);

#endif
