/*
 * The repairs of `doctor --fix`: one function per fixable kind in the table
 * `repairs`, run under the store lock (see doctor.h).
 */
#include "doctor.h"
#include "doctor_internal.h"
#include "store_files.h"

#include "fs.h"
#include "error.h"
#include "install.h"
#include "migrate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct fix_ctx {
	tm_store *s;
	const tm_doctor_options *o;
	int dirfd;
	tm_strv *failed;
};

static int repair_thread_id(tm_strv *done, struct fix_ctx *f,
			    const tm_doctor_problem *p)
{
	tm_thread *t = NULL;
	tm_buf line = TM_BUF_INIT;
	int error;

	error = tm_store_load_thread(&t, f->s, p->project, p->thread);
	if (error < 0 || (t->field_id && !strcmp(t->field_id, t->id)))
		goto done;
	/* The writer takes the id from the file name. */
	if ((error = tm_store_save_thread(f->s, p->project, t)) < 0)
		goto done;
	tm_buf_printf(&line, "rewrote the id field of '%s' (%s -> %s)", p->file,
		      t->field_id ? t->field_id : "none", t->id);
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_thread_free(t);
	return error;
}

static int repair_project_id(tm_strv *done, struct fix_ctx *f,
			     const tm_doctor_problem *p)
{
	tm_project *proj = NULL;
	tm_buf line = TM_BUF_INIT;
	const char *old;
	int error;

	error = tm_store_load_project(&proj, f->s, p->project);
	if (error < 0)
		return error;
	old = tm_project_get(proj, "id");
	if (old && !strcmp(old, p->project))
		goto done;
	tm_buf_printf(&line, "rewrote the id of '%s' (%s -> %s)", p->file,
		      old ? old : "none", p->project);
	tm_project_set(proj, "id", p->project);
	if ((error = tm_store_save_project(f->s, proj)) < 0)
		goto done;
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_buf_release(&line);
	tm_project_free(proj);
	return error;
}

static int repair_id(tm_strv *done, struct fix_ctx *f,
		     const tm_doctor_problem *p)
{
	if (!p->project)
		return 0;
	return p->thread ? repair_thread_id(done, f, p)
			 : repair_project_id(done, f, p);
}

static int repair_gitignore(tm_strv *done, struct fix_ctx *f,
			    const tm_doctor_problem *p)
{
	const char *display = TM_STORE_DIRNAME "/.gitignore";
	tm_buf data = TM_BUF_INIT, list = TM_BUF_INIT, line = TM_BUF_INIT;
	tm_strv missing = TM_STRV_INIT;
	size_t i;
	int error;
	bool crlf;

	(void)p;
	error = tm_store_read_file(&data, f->s, NULL, NULL, ".gitignore");
	error = tm_error_ignore(error, TM_ENOTFOUND);
	if (error < 0)
		goto done;
	tm_doctor_missing_ignores(&missing, tm_buf_cstr(&data));
	if (!missing.n)
		goto done;
	crlf = strstr(tm_buf_cstr(&data), "\r\n") != NULL;
	if (data.size && data.ptr[data.size - 1] != '\n')
		tm_buf_puts(&data, crlf ? "\r\n" : "\n");
	for (i = 0; i < missing.n; i++)
		tm_buf_printf(&data, "%s%s", missing.items[i],
			      crlf ? "\r\n" : "\n");
	error = tm_store_write_file(f->s, NULL, NULL, ".gitignore", &data);
	if (error < 0)
		goto done;
	tm_doctor_join(&list, &missing, ", ");
	tm_buf_printf(&line, "added %s to '%s'", tm_buf_cstr(&list), display);
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_strv_clear(&missing);
	tm_buf_release(&list);
	tm_buf_release(&data);
	return error;
}

/* Add our lines to .threadmind/.gitattributes (upgrading old ones). */
static int repair_gitattributes(tm_strv *done, struct fix_ctx *f,
				const tm_doctor_problem *p)
{
	tm_buf data = TM_BUF_INIT, next = TM_BUF_INIT, line = TM_BUF_INIT;
	int error;

	(void)p;
	error = tm_store_read_file(&data, f->s, NULL, NULL, ".gitattributes");
	error = tm_error_ignore(error, TM_ENOTFOUND);
	if (error < 0 ||
	    !tm_install_attributes_add(&next, tm_buf_cstr(&data), data.size))
		goto done;
	error = tm_store_write_file(f->s, NULL, NULL, ".gitattributes", &next);
	if (error < 0)
		goto done;
	tm_buf_printf(&line,
		      "wrote the threadmind lines of '%s/.gitattributes'",
		      TM_STORE_DIRNAME);
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_buf_release(&data);
	tm_buf_release(&next);
	return error;
}

static int repair_recovery(tm_strv *done, struct fix_ctx *f,
			   const tm_doctor_problem *p)
{
	return tm_doctor_repair_recovery(done, f->dirfd, p, f->o->tmp_min_age);
}

static int repair_tmp(tm_strv *done, struct fix_ctx *f,
		      const tm_doctor_problem *p)
{
	return tm_doctor_repair_tmp(done, f->dirfd, p, f->o->tmp_min_age);
}

/* config.json that cannot be read → config.json.corrupt-<time>: never
 * overwritten, and a link is renamed itself (its target is not touched). */
static int repair_config(tm_strv *done, struct fix_ctx *f,
			 const tm_doctor_problem *p)
{
	tm_buf target = TM_BUF_INIT, line = TM_BUF_INIT;
	tm_config *cfg = NULL;
	struct tm tm;
	time_t now = time(NULL);
	char stamp[32], base[64];
	int error = 0;

	(void)p;
	if (tm_store_load_config_strict(&cfg, f->s) == 0) {
		tm_config_free(cfg); /* readable again: nothing to do */
		return 0;
	}
	tm_error_clear();
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(base, sizeof(base), "config.json.corrupt-%s", stamp);
	/* renameat would replace an existing target: link() does not. */
	if (!tm_fs_link_aside(&target, f->dirfd, "config.json", base) ||
	    unlinkat(f->dirfd, "config.json", 0) < 0) {
		error = tm_error_set_errno(TM_ERROR,
					   "cannot rename '%s/config.json' "
					   "aside; move it away by hand",
					   TM_STORE_DIRNAME);
		goto done;
	}
	tm_buf_printf(&line,
		      "renamed '%s/config.json' aside as '%s' (the defaults "
		      "apply: pick the project and thread again)",
		      TM_STORE_DIRNAME, tm_buf_cstr(&target));
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_buf_release(&target);
	return error;
}

/* The 0.4 upgrade, as `migrate` runs it: what it leaves for a human goes to
 * `failed` (the upgrade never stops on it). */
static int repair_upgrade(tm_strv *done, struct fix_ctx *f,
			  const tm_doctor_problem *p)
{
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	size_t i;
	int error;

	(void)p;
	error = tm_migrate_run(&report, &left, f->s, false, false);
	for (i = 0; i < report.n; i++)
		tm_strv_push(done, report.items[i]);
	for (i = 0; i < left.n; i++)
		tm_strv_push(f->failed, left.items[i]);
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	return error;
}

/*
 * The safe repairs, by kind.  A stale lock needs none: taking the store
 * lock takes it over (see tm_doctor_fix).
 */
static const struct {
	const char *kind;
	int (*run)(tm_strv *done, struct fix_ctx *f,
		   const tm_doctor_problem *p);
} repairs[] = {
	{TM_DOCTOR_ID_MISMATCH, repair_id},
	{TM_DOCTOR_GITIGNORE, repair_gitignore},
	{TM_DOCTOR_GITATTRIBUTES, repair_gitattributes},
	{TM_DOCTOR_RECOVERY, repair_recovery},
	{TM_DOCTOR_STRAY_TMP, repair_tmp},
	{TM_DOCTOR_UPGRADE, repair_upgrade},
	{TM_DOCTOR_CONFIG, repair_config},
};

/* Is the .lock stale now (and removable by a take-over)? */
static bool lock_is_stale(struct fix_ctx *f)
{
	struct stat st;

	return fstatat(f->dirfd, TM_DOCTOR_LOCK_NAME, &st,
		       AT_SYMLINK_NOFOLLOW) == 0 &&
	       tm_doctor_age(&st) > f->o->lock_stale_after &&
	       (!S_ISDIR(st.st_mode) ||
		tm_doctor_dir_is_empty(f->s, TM_DOCTOR_LOCK_NAME));
}

/* The upgrade the check found blocked (by an unreadable thread file). */
static bool blocked_upgrade(const tm_doctor_problem *p)
{
	return !strcmp(p->kind, TM_DOCTOR_UPGRADE) && p->file &&
	       !strcmp(p->file, TM_STORE_DIRNAME "/trees");
}

int tm_doctor_fix(tm_strv *done, tm_strv *failed, tm_store *s,
		  const tm_doctor_report *problems,
		  const tm_doctor_options *opts)
{
	tm_doctor_options defaults = TM_DOCTOR_OPTIONS_INIT;
	struct fix_ctx f;
	size_t i, k, n, before;
	bool stale, recovered = false;
	int error;

	if (!opts)
		opts = &defaults;
	if (!tm_doctor_count_fixable(problems))
		return 0;
	f.s = s;
	f.o = opts;
	f.failed = failed;
	if ((error = tm_fs_open_dir(&f.dirfd, tm_store_dir(s))) < 0)
		return error;
	/* A tracked .lock first: the store lock would wait for it. */
	for (i = 0; i < problems->n; i++) {
		const tm_doctor_problem *p = &problems->items[i];

		if (p->fixable && !strcmp(p->kind, TM_DOCTOR_TRACKED) &&
		    tm_doctor_repair_tracked(done, s, f.dirfd, p) < 0)
			tm_strv_push(failed, tm_error_last());
		tm_error_clear();
	}
	stale = lock_is_stale(&f);
	if ((error = tm_store_lock(s)) < 0) {
		close(f.dirfd);
		return error;
	}
	/*
	 * Two passes: the recoveries first, so that the other repairs (the
	 * upgrade, config.json) see the complete files; a recovery made
	 * runs the upgrade even if the check found it blocked (by the file
	 * just restored, maybe).
	 */
	before = done->n;
	for (n = 0; error == 0 && n < 2 * problems->n; n++) {
		const tm_doctor_problem *p = &problems->items[n % problems->n];
		bool first_pass = n < problems->n;

		if (n == problems->n)
			recovered = done->n > before;
		if (first_pass != !strcmp(p->kind, TM_DOCTOR_RECOVERY))
			continue;
		if (!p->fixable && !(recovered && blocked_upgrade(p)))
			continue;
		if (!strcmp(p->kind, TM_DOCTOR_STALE_LOCK) && stale) {
			tm_buf line = TM_BUF_INIT;

			tm_buf_printf(&line, "removed the stale lock '%s'",
				      p->file);
			tm_strv_push_owned(done, tm_buf_detach(&line));
			stale = false;
		}
		for (k = 0; k < sizeof(repairs) / sizeof(*repairs); k++) {
			if (strcmp(p->kind, repairs[k].kind))
				continue;
			if (repairs[k].run(done, &f, p) < 0)
				tm_strv_push(failed, tm_error_last());
			tm_error_clear();
		}
		/* the lock taken over: another process writes, stop here */
		error = tm_store_lock_refresh(s);
	}
	close(f.dirfd);
	return tm_store_unlock_after(s, error);
}
