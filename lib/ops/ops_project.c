/* Project edits: set a field, rename, remove (ops_project.h). */
#include "ops_project.h"
#include "ops_internal.h"
#include "store_files.h"

#include "config.h"
#include "error.h"
#include "fs.h"
#include "model.h"
#include "slug.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_VALUE (64 * 1024)

/* ---- set ---- */

/* The value as it will be stored, or an error. */
static int clean_value(char **out, const char *key, const char *value)
{
	bool title = !strcmp(key, "title");
	size_t i, n = strlen(value);
	char *v;

	if (n > MAX_VALUE)
		return tm_error_set(TM_EINVALID,
				    "the %s is over 64 KiB; shorten it", key);
	v = tm_xstrdup(value);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		if (title && (c == '\n' || c == '\r' || c == '\t')) {
			v[i] = ' ';
			continue;
		}
		if (!title && (c == '\n' || c == '\t'))
			continue;
		if (c < 0x20 || c == 0x7f) {
			free(v);
			return tm_error_set(TM_EINVALID,
					    "the %s holds a control character "
					    "(0x%02x); remove it",
					    key, c);
		}
	}
	if (title && !*v) {
		free(v);
		return tm_error_set(TM_EINVALID, "a project title cannot be "
						 "empty");
	}
	*out = v;
	return 0;
}

int tm_ops_project_set_field(bool *changed, tm_store *s, const char *project,
			     const char *key, const char *value)
{
	tm_project *p = NULL;
	char *v = NULL;
	const char *old;
	int error;

	if (changed)
		*changed = false;
	if ((error = tm_id_validate(project, "project")) < 0)
		return error;
	if (strcmp(key, "title") && strcmp(key, "systemContext") &&
	    strcmp(key, "mode"))
		return tm_error_set(TM_EINVALID,
				    "unknown project field '%s' (title, "
				    "systemContext or mode)",
				    key);
	if (!strcmp(key, "mode") && strcmp(value, "solo") &&
	    strcmp(value, "team"))
		return tm_error_set(TM_EINVALID,
				    "invalid mode '%s' (solo or team)", value);
	if ((error = clean_value(&v, key, value)) < 0)
		return error;
	if ((error = tm_store_lock(s)) < 0)
		goto out;
	if ((error = tm_store_load_project(&p, s, project)) < 0)
		goto done;
	old = tm_project_get(p, key);
	if (old && !strcmp(old, v))
		goto done;
	tm_project_set(p, key, v);
	if ((error = tm_store_save_project(s, p)) == 0 && changed)
		*changed = true;
done:
	error = tm_store_unlock_after(s, error);
out:
	tm_project_free(p);
	free(v);
	return error;
}

/* ---- rename ---- */

static bool exists_at(int dirfd, const char *name, struct stat *st)
{
	return fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Is the project id `id` taken (a project file or a threads/ folder)? */
static bool id_taken(tm_store *s, const char *id)
{
	tm_strv ids = TM_STRV_INIT;
	struct stat st;
	int fd;
	bool taken = false;

	if (tm_store_list_projects(&ids, s) == 0)
		taken = tm_strv_contains(&ids, id);
	tm_strv_clear(&ids);
	if (!taken &&
	    tm_store_open_folder(&fd, s, "threads", NULL, false) == 0) {
		taken = exists_at(fd, id, &st);
		close(fd);
	}
	tm_error_clear();
	return taken;
}

static char *json_name(const char *id)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_printf(&b, "%s.json", id);
	return tm_buf_detach(&b);
}

int tm_ops_project_rename(tm_store *s, const char *from, const char *to)
{
	tm_project *p = NULL;
	tm_config *cfg = NULL;
	struct stat st;
	char *from_json = json_name(from), *display = NULL;
	int tfd = -1, pfd = -1, error;
	bool moved = false;

	if ((error = tm_id_validate(from, "project")) < 0 ||
	    (error = tm_id_validate(to, "project")) < 0)
		goto out;
	if (!strcmp(from, to)) {
		error = tm_error_set(TM_EINVALID,
				     "project '%s' already has that id", from);
		goto out;
	}
	if ((error = tm_store_lock(s)) < 0)
		goto out;
	if ((error = tm_store_load_project(&p, s, from)) < 0)
		goto done;
	if (id_taken(s, to)) {
		error = tm_error_set(TM_EEXISTS,
				     "project id '%s' is taken; pick another "
				     "one (see 'git threadmind project list')",
				     to);
		goto done;
	}
	/* config.json first: one that cannot be read stops it all here. */
	if ((error = tm_store_load_config(&cfg, s)) < 0)
		goto done;
	if ((error = tm_store_open_folder(&pfd, s, "projects", NULL, false)) <
	    0)
		goto done;
	error = tm_store_open_folder(&tfd, s, "threads", NULL, false);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		error = 0;
	} else if (error < 0) {
		goto done;
	} else if (exists_at(tfd, from, &st)) {
		if (!S_ISDIR(st.st_mode)) {
			error = tm_store_file_error(
				s, "threads", NULL, from, TM_EINVALID,
				"is not a folder (a symbolic link?); fix it "
				"first");
			goto done;
		}
		display = tm_store_file_display(s, "threads", NULL, from);
		if ((error = tm_store_lock_refresh(s)) < 0)
			goto done;
		if (renameat(tfd, from, tfd, to) < 0) {
			error = tm_error_set_errno(
				TM_ERROR, "cannot rename '%s'", display);
			goto done;
		}
		moved = true;
	}
	tm_project_set(p, "id", to);
	if ((error = tm_store_lock_refresh(s)) < 0 ||
	    (error = tm_store_save_project(s, p)) < 0)
		goto done;
	if ((error = tm_fs_unlink_at(pfd, from_json, from_json)) < 0)
		goto done;
	moved = false; /* done: no way back now */
	tm_config_rename_project(cfg, from, to);
	error = tm_store_save_config(s, cfg);
done:
	if (moved && error < 0)
		(void)renameat(tfd, to, tfd, from);
	error = tm_store_unlock_after(s, error);
out:
	tm_fs_close(tfd);
	tm_fs_close(pfd);
	free(display);
	free(from_json);
	tm_project_free(p);
	tm_config_free(cfg);
	return error;
}

/* ---- remove ---- */

/* The thread files of threads/{project}/ into `files`; an error for
 * anything else in it. */
static int thread_files(tm_strv *files, tm_store *s, int fd,
			const char *project)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;
	int error = tm_fs_list_dir(&names, fd, project);

	for (i = 0; error == 0 && i < names.n; i++) {
		const char *n = names.items[i];
		size_t len = strlen(n);
		char *id = len > 3 && !strcmp(n + len - 3, ".md")
				   ? tm_xstrndup(n, len - 3)
				   : NULL;
		struct stat st;

		if (id && tm_id_validate(id, "thread") == 0 &&
		    exists_at(fd, n, &st) && S_ISREG(st.st_mode)) {
			tm_strv_push(files, n);
		} else {
			error = tm_store_file_error(
				s, "threads", project, n, TM_EINVALID,
				"is not a thread file; move it away by hand "
				"first (nothing was removed)");
		}
		free(id);
	}
	tm_strv_clear(&names);
	return error;
}

int tm_ops_project_remove(tm_store *s, const char *project, bool force)
{
	tm_strv ids = TM_STRV_INIT, files = TM_STRV_INIT;
	tm_config *cfg = NULL;
	char *current = NULL, *json = json_name(project), *display = NULL;
	int tfd = -1, fd = -1, pfd = -1, error;
	size_t i;

	if ((error = tm_ops_lock_project(&ids, &cfg, s, project)) < 0)
		goto out;
	if (!force && ids.n == 1) {
		error = tm_error_set(TM_EINVALID,
				     "'%s' is the only project; use --force "
				     "to remove it anyway",
				     project);
		goto done;
	}
	if (tm_store_current_project(&current, s, NULL) < 0)
		tm_error_clear();
	if (!force && current && !strcmp(current, project)) {
		error = tm_error_set(TM_EINVALID,
				     "'%s' is the current project; switch to "
				     "another one first ('git threadmind "
				     "project use <id>') or use --force",
				     project);
		goto done;
	}
	if ((error = tm_store_open_threads(&fd, s, project)) < 0 ||
	    (fd >= 0 && (error = thread_files(&files, s, fd, project)) < 0))
		goto done;
	for (i = 0; fd >= 0 && i < files.n && error == 0; i++) {
		free(display);
		display = tm_store_file_display(s, "threads", project,
						files.items[i]);
		if ((error = tm_store_lock_refresh(s)) == 0)
			error = tm_fs_unlink_at(fd, files.items[i], display);
	}
	if (error < 0)
		goto done;
	if (fd >= 0) {
		free(display);
		display = tm_store_file_display(s, "threads", NULL, project);
		if ((error = tm_store_open_folder(&tfd, s, "threads", NULL,
						  false)) < 0)
			goto done;
		if (unlinkat(tfd, project, AT_REMOVEDIR) < 0) {
			error = tm_error_set_errno(
				TM_ERROR, "cannot remove '%s'", display);
			goto done;
		}
	}
	if ((error = tm_store_open_folder(&pfd, s, "projects", NULL, false)) <
		    0 ||
	    (error = tm_store_lock_refresh(s)) < 0 ||
	    (error = tm_fs_unlink_at(pfd, json, json)) < 0)
		goto done;
	tm_config_forget_project(cfg, project);
	error = tm_store_save_config(s, cfg);
done:
	error = tm_store_unlock_after(s, error);
out:
	tm_fs_close(fd);
	tm_fs_close(tfd);
	tm_fs_close(pfd);
	tm_strv_clear(&ids);
	tm_strv_clear(&files);
	tm_config_free(cfg);
	TM_FREE_ALL(current, json, display);
	return error;
}
