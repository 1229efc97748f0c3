/*
 * install / uninstall, carrying out the plan (see install.h): each step
 * through the safe file layer (the file checked unchanged since it was
 * planned) or libgit2's config writer.
 */
#include "install.h"
#include "install_internal.h"

#include "fs.h"
#include "error.h"
#include "git_libgit2.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Drop the empty section header libgit2 leaves in `path`, with git's lock
 * protocol (`path`.lock created exclusively, renamed over `path`).  Best
 * effort: when the lock is taken or anything fails, the header stays.
 */
static void drop_empty_section(const char *path)
{
	tm_buf data = TM_BUF_INIT, next = TM_BUF_INIT, lock = TM_BUF_INIT;
	struct stat st;
	bool ok;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ok = fstat(fd, &st) == 0 && tm_install__read_all(fd, &data) == 0;
	close(fd);
	if (!ok || !tm_install_config_drop_section(&next, tm_buf_cstr(&data),
						   data.size))
		goto done;
	tm_buf_printf(&lock, "%s.lock", path);
	fd = open(tm_buf_cstr(&lock), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		  0600);
	if (fd < 0)
		goto done;
	ok = fchmod(fd, st.st_mode & 07777) == 0 &&
	     tm_fs_write_all(fd, tm_buf_cstr(&next), next.size) == 0 &&
	     fsync(fd) == 0;
	if (close(fd) < 0)
		ok = false;
	if (!ok || rename(tm_buf_cstr(&lock), path) < 0)
		unlink(tm_buf_cstr(&lock));
done:
	tm_buf_release(&data);
	tm_buf_release(&next);
	tm_buf_release(&lock);
}

static int apply_config(const tm_install_step *st)
{
	git_config *cfg = NULL;
	int error;

	if (git_config_open_ondisk(&cfg, st->path) < 0)
		return tm_git_error(TM_ERROR, "cannot open the git config '%s'",
				    st->path);
	if (st->kind == TM_INSTALL_SET_CONFIG)
		error = git_config_set_string(cfg, st->key, st->value);
	else
		error = git_config_delete_entry(cfg, st->key);
	if (error == GIT_ENOTFOUND)
		error = 0;
	if (error < 0)
		error = tm_git_error(
			TM_ERROR, "cannot write the git config '%s'", st->path);
	git_config_free(cfg);
	if (error == 0 && st->kind == TM_INSTALL_UNSET_CONFIG)
		drop_empty_section(st->path);
	return error;
}

/* mkdir -p `dir` (0777 less the umask). */
static int make_dirs(const char *dir)
{
	char *p = tm_xstrdup(dir), *s;
	int error = 0;

	for (s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		{
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST)
				error = tm_error_set_errno(
					TM_ERROR, "cannot create '%s'", p);
			*s = c;
		}
		if (error < 0 || *s == '\0')
			break;
	}
	free(p);
	return error;
}

/* Is the file still as it was planned? */
static int check_unchanged(int dirfd, const char *name,
			   const tm_install_step *st)
{
	tm_buf now = TM_BUF_INIT;
	int error =
		tm_fs_read_at(&now, dirfd, name, st->path, TM_MAX_FILE_SIZE);
	bool same;

	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		same = !st->existed;
	} else if (error < 0) {
		tm_buf_release(&now);
		return error;
	} else {
		same = st->existed && now.size == st->old_len &&
		       !memcmp(now.ptr, st->old, now.size);
	}
	tm_buf_release(&now);
	if (!same)
		return tm_error_set(TM_ECONFLICT,
				    "'%s' changed while it was being "
				    "installed; run the command again",
				    st->path);
	return 0;
}

static int apply_file(const tm_install_step *st)
{
	const char *slash = strrchr(st->path, '/');
	char *dir, *real;
	const char *name;
	int fd, error;

	if (!slash || !slash[1])
		return tm_error_set(TM_EINVALID, "'%s' is not a file path",
				    st->path);
	dir = slash == st->path
		      ? tm_xstrdup("/")
		      : tm_xstrndup(st->path, (size_t)(slash - st->path));
	name = slash + 1;
	if (st->kind == TM_INSTALL_WRITE_FILE && !st->existed &&
	    (error = make_dirs(dir)) < 0) {
		free(dir);
		return error;
	}
	/* The folder may be reached through links (core.hooksPath). */
	real = realpath(dir, NULL);
	error = tm_fs_open_dir(&fd, real ? real : dir);
	free(real);
	free(dir);
	if (error < 0)
		return error;
	if ((error = check_unchanged(fd, name, st)) < 0)
		goto done;
	if (st->kind == TM_INSTALL_DELETE_FILE) {
		error = tm_fs_unlink_at(fd, name, st->path);
		goto done;
	}
	error = tm_atomic_write_at(fd, name, st->path, st->data, st->len);
	if (error == 0 && !st->existed && st->mode &&
	    fchmodat(fd, name, st->mode, 0) < 0)
		error = tm_error_set_errno(TM_ERROR, "cannot chmod '%s'",
					   st->path);
done:
	close(fd);
	return error;
}

int tm_install_apply(tm_install_plan *plan)
{
	size_t i;
	int error = 0;

	if (tm_install_plan_refused(plan))
		return tm_error_set(TM_EINVALID,
				    "a hook cannot be changed; nothing was "
				    "installed");
	for (i = 0; i < plan->n && error == 0; i++) {
		tm_install_step *st = &plan->steps[i];

		if (st->done || st->kind == TM_INSTALL_MANUAL)
			continue;
		if (st->kind == TM_INSTALL_SET_CONFIG ||
		    st->kind == TM_INSTALL_UNSET_CONFIG)
			error = apply_config(st);
		else
			error = apply_file(st);
		if (error == 0)
			st->applied = true;
	}
	return error;
}
