/*
 * doctor's view of interrupted writes: every *.tmp in .threadmind/ judged
 * by recover.h's rule (a recovery, a stray safe to remove, a stray kept),
 * the .broken files a restore keeps, and the two repairs.
 */
#include "doctor.h"
#include "doctor_internal.h"
#include "store_files.h"

#include "error.h"
#include "fs.h"
#include "recover.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A problem about `file`, with the project (and thread) its place names. */
static tm_doctor_problem *add(tm_doctor_report *out, const char *kind,
			      const char *file, const char *rel_dir,
			      const char *target, bool fixable,
			      const char *message)
{
	tm_doctor_problem *p =
		tm_doctor_add(out, kind, file, fixable, "%s", message);
	const char *threads = "threads/";
	size_t tl = strlen(threads);

	if (!strncmp(rel_dir, threads, tl) && rel_dir[tl]) {
		p->project = tm_xstrdup(rel_dir + tl);
		if (target && tm_doctor_ends_with(target, ".md"))
			p->thread = tm_xstrndup(target,
						strlen(target) - strlen(".md"));
	} else if ((!strcmp(rel_dir, "projects") ||
		    !strcmp(rel_dir, "trees")) &&
		   target && tm_doctor_ends_with(target, ".json")) {
		p->project =
			tm_xstrndup(target, strlen(target) - strlen(".json"));
	}
	return p;
}

/* The problem a temp file `name` of `dirfd` (folder `rel_dir`) is. */
static void report_tmp(tm_doctor_report *out, tm_doctor_ctx *c, int dirfd,
		       const char *rel_dir, const char *file, const char *name)
{
	tm_recover_item it;
	tm_buf msg = TM_BUF_INIT;
	char *target = NULL;
	const char *kind = TM_DOCTOR_STRAY_TMP;
	bool fixable = false, young;

	if (tm_recover_check_at(&it, dirfd, rel_dir, name) < 0) {
		tm_error_clear();
		return;
	}
	young = it.age <= c->o->tmp_min_age;
	if (it.target)
		target = tm_doctor_rel(*rel_dir ? rel_dir : NULL, it.target,
				       NULL);
	if (!it.target) {
		tm_buf_printf(&msg,
			      "'%s' ends in .tmp but is not named as "
			      "threadmind ({name}.{uuid}.tmp) or ThreadMind "
			      "0.4 ({name}.{8 hex}.tmp) name their temporary "
			      "files, so --fix keeps it: delete it if nothing "
			      "uses it",
			      file);
	} else if (it.verdict == TM_RECOVER_RESTORE &&
		   it.format == TM_RECOVER_INDEX) {
		/* the upgrade reads it; doctor never moves it */
		if (it.state == TM_RECOVER_TARGET_MISSING) {
			kind = TM_DOCTOR_LEFTOVER;
			tm_buf_printf(&msg,
				      "'%s' is the complete 0.4 index an "
				      "interrupted write left, which the "
				      "upgrade applied in place of the empty "
				      "or broken '%s'; delete it once the "
				      "parents look right (--fix keeps it)",
				      file, target);
		} else {
			kind = TM_DOCTOR_UPGRADE;
			tm_buf_printf(&msg,
				      "'%s' is the complete 0.4 index that "
				      "'%s' lacks (it %s): the upgrade (--fix "
				      "or 'git threadmind migrate') applies "
				      "it instead, and keeps it",
				      file, target,
				      tm_recover_state_text(it.state));
		}
	} else if (it.verdict == TM_RECOVER_RESTORE) {
		kind = TM_DOCTOR_RECOVERY;
		fixable = !young;
		tm_buf_printf(&msg,
			      "'%s' is the only complete copy of '%s', which "
			      "%s (an interrupted write); ",
			      file, target, tm_recover_state_text(it.state));
		if (young)
			tm_buf_printf(&msg,
				      "it was written %.0f s ago (a write may "
				      "be in progress): --fix puts it in "
				      "place once it is %.0f s old",
				      it.age, c->o->tmp_min_age);
		else if (it.state == TM_RECOVER_TARGET_MISSING ||
			 it.state == TM_RECOVER_TARGET_EMPTY)
			tm_buf_printf(&msg, "--fix puts it in place of '%s'",
				      target);
		else
			tm_buf_printf(&msg,
				      "--fix puts it in place of '%s' and "
				      "keeps the old file as '%s.broken'",
				      target, target);
	} else if (it.verdict == TM_RECOVER_STRAY_OLD && young) {
		tm_buf_printf(&msg,
			      "'%s' is a temporary file from %.0f s ago (a "
			      "write may be in progress); --fix removes it "
			      "once it is %.0f s old",
			      file, it.age, c->o->tmp_min_age);
	} else if (it.verdict == TM_RECOVER_STRAY_OLD) {
		fixable = true;
		tm_buf_printf(&msg,
			      "'%s' is a temporary file left by an "
			      "interrupted write, older than '%s' and no "
			      "larger; --fix removes it",
			      file, target);
	} else if (it.state == TM_RECOVER_TARGET_MISSING) {
		tm_buf_printf(&msg,
			      "'%s' is a temporary file left by an "
			      "interrupted write; '%s' is missing and this is "
			      "no complete copy of it, so --fix keeps it: look "
			      "at it, then delete it",
			      file, target);
	} else {
		tm_buf_printf(
			&msg,
			"'%s' is a temporary file left by an "
			"interrupted write, %s%s%s %s '%s'; --fix removes "
			"only one older than its file and no larger, so "
			"it is kept: compare the two, then delete it",
			file, it.newer ? "not older" : "",
			it.newer && it.larger ? " and " : "",
			it.larger ? "larger" : "",
			it.newer || it.larger ? "than" : "beside", target);
	}
	add(out, kind, file, rel_dir, it.target, fixable, tm_buf_cstr(&msg));
	tm_buf_release(&msg);
	free(target);
	tm_recover_item_clear(&it);
}

static void report_broken(tm_doctor_report *out, const char *rel_dir,
			  const char *file, const char *name)
{
	char *of = NULL, *target;
	tm_buf msg = TM_BUF_INIT;

	if (!tm_recover_is_broken_name(&of, name))
		return;
	target = tm_doctor_rel(*rel_dir ? rel_dir : NULL, of, NULL);
	tm_buf_printf(&msg,
		      "'%s' is the old content of '%s', kept when --fix put "
		      "its complete temporary copy in its place; check that "
		      "nothing in it is missing from '%s', then delete it "
		      "(--fix keeps it)",
		      file, target, target);
	add(out, TM_DOCTOR_LEFTOVER, file, rel_dir, of, false,
	    tm_buf_cstr(&msg));
	tm_buf_release(&msg);
	free(target);
	free(of);
}

/* *.tmp and *.broken in `dirfd` (folder `rel_dir`), `depth` more down. */
static void walk(tm_doctor_report *out, tm_doctor_ctx *c, int dirfd,
		 const char *rel_dir, int depth)
{
	tm_strv names = TM_STRV_INIT;
	char *shown = tm_doctor_rel(*rel_dir ? rel_dir : NULL, NULL, NULL);
	size_t i;

	if (tm_fs_list_dir(&names, dirfd, shown) < 0) {
		tm_error_clear();
		goto done;
	}
	for (i = 0; i < names.n; i++) {
		const char *n = names.items[i];
		tm_buf file = TM_BUF_INIT, sub = TM_BUF_INIT;
		struct stat st;
		int fd;

		if (fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		tm_buf_printf(&file, "%s/%s", shown, n);
		tm_buf_printf(&sub, "%s%s%s", rel_dir, *rel_dir ? "/" : "", n);
		if (S_ISDIR(st.st_mode) && depth > 0 &&
		    tm_fs_open_subdir(&fd, dirfd, n, n, false) == 0) {
			walk(out, c, fd, tm_buf_cstr(&sub), depth - 1);
			close(fd);
		} else if (!S_ISDIR(st.st_mode) &&
			   tm_doctor_ends_with(n, TM_DOCTOR_TMP_SUFFIX)) {
			report_tmp(out, c, dirfd, rel_dir, tm_buf_cstr(&file),
				   n);
		} else if (!S_ISDIR(st.st_mode)) {
			report_broken(out, rel_dir, tm_buf_cstr(&file), n);
		}
		tm_error_clear();
		tm_buf_release(&file);
		tm_buf_release(&sub);
	}
done:
	tm_strv_clear(&names);
	free(shown);
}

int tm_doctor_check_tmp(tm_doctor_report *out, tm_doctor_ctx *c)
{
	walk(out, c, c->dirfd, "", 2);
	return 0;
}

/* ---- the repairs ---- */

/*
 * Open the folder of p->file (".threadmind/a/b.tmp") from the store folder
 * `dirfd` without following links: *rel_dir ("a") and *name ("b.tmp") are
 * malloc'd.  Errors of tm_fs_open_subdir; TM_EINVALID for another file.
 */
static int open_folder_of(int *out_fd, char **rel_dir, char **name, int dirfd,
			  const char *file)
{
	const char *prefix = TM_STORE_DIRNAME "/";
	char *path, *part, *next;
	int fd, sub, error = 0;

	if (strncmp(file, prefix, strlen(prefix)))
		return tm_error_set(TM_EINVALID, "'%s' is not in '%s'", file,
				    TM_STORE_DIRNAME);
	if ((fd = dup(dirfd)) < 0)
		return tm_error_set_errno(TM_ERROR, "cannot open '%s'",
					  TM_STORE_DIRNAME);
	path = tm_xstrdup(file + strlen(prefix));
	for (part = path; (next = strchr(part, '/')); part = next + 1) {
		*next = '\0';
		error = tm_fs_open_subdir(&sub, fd, part, file, false);
		close(fd);
		if (error < 0) {
			free(path);
			return error;
		}
		*next = '/';
		fd = sub;
	}
	*name = tm_xstrdup(part);
	*rel_dir =
		tm_xstrndup(path, part > path ? (size_t)(part - path - 1) : 0);
	*out_fd = fd;
	free(path);
	return 0;
}

int tm_doctor_repair_recovery(tm_strv *done, int dirfd,
			      const tm_doctor_problem *p, double min_age)
{
	char *rel_dir = NULL, *name = NULL, *broken = NULL, *target = NULL;
	char *shown = NULL;
	tm_buf line = TM_BUF_INIT;
	bool restored;
	int fd, error;

	if ((error = open_folder_of(&fd, &rel_dir, &name, dirfd, p->file)) < 0)
		goto done;
	error = tm_recover_restore_at(&restored, &broken, fd, rel_dir, name,
				      min_age);
	close(fd);
	if (error < 0 || !restored)
		goto done;
	target = tm_recover_target_name(name);
	shown = tm_doctor_rel(*rel_dir ? rel_dir : NULL, target, NULL);
	tm_buf_printf(&line, "restored '%s' from '%s'", shown, p->file);
	if (broken) {
		free(shown);
		shown = tm_doctor_rel(*rel_dir ? rel_dir : NULL, broken, NULL);
		tm_buf_printf(&line, "; its old content is kept as '%s'",
			      shown);
	}
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	error = tm_error_ignore(error, TM_ENOTFOUND);
	TM_FREE_ALL(rel_dir, name, broken, target, shown);
	return error;
}

int tm_doctor_repair_tmp(tm_strv *done, int dirfd, const tm_doctor_problem *p,
			 double min_age)
{
	char *rel_dir = NULL, *name = NULL;
	tm_buf line = TM_BUF_INIT;
	bool removed;
	int fd, error;

	if ((error = open_folder_of(&fd, &rel_dir, &name, dirfd, p->file)) < 0)
		goto done;
	error = tm_recover_remove_at(&removed, fd, rel_dir, name, min_age);
	close(fd);
	if (error < 0 || !removed)
		goto done;
	tm_buf_printf(&line, "removed '%s'", p->file);
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	error = tm_error_ignore(error, TM_ENOTFOUND);
	free(rel_dir);
	free(name);
	return error;
}
