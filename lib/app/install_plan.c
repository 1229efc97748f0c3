/*
 * install / uninstall, the I/O half (see install.h): planning the steps
 * from what is on disk and in git's config (the merge driver's config, the
 * store's .gitattributes; the hooks in install_plan_hooks.c and through a
 * manager in install_manager_plan.c).  install_apply.c carries them out.
 */
#include "install.h"
#include "install_internal.h"

#include "fs.h"
#include "error.h"
#include "git_libgit2.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the steps ---- */

tm_install_step *tm_install__add_step(tm_install_plan *p, tm_install_kind kind,
				      const char *path)
{
	tm_install_step *st;

	tm_xgrow((void **)&p->steps, &p->alloc, p->n + 1, sizeof(*p->steps));
	st = &p->steps[p->n++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->path = tm_xstrdup_or_null(path);
	return st;
}

void tm_install__set_data(tm_install_step *st, const tm_buf *b)
{
	st->data = tm_xstrndup(b->ptr ? b->ptr : "", b->size);
	st->len = b->size;
}

void tm_install__set_old(tm_install_step *st, const tm_buf *b)
{
	st->existed = true;
	st->old = tm_xstrndup(b->ptr ? b->ptr : "", b->size);
	st->old_len = b->size;
}

void tm_install__set_what(tm_install_step *st, const char *fmt, ...)
{
	va_list ap;

	free(st->what);
	va_start(ap, fmt);
	st->what = tm_xstrvfmt(fmt, ap);
	va_end(ap);
}

char *tm_install__join(const char *dir, const char *name)
{
	tm_buf b = TM_BUF_INIT;
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	tm_buf_put(&b, dir, n);
	tm_buf_putc(&b, '/');
	tm_buf_puts(&b, name);
	return tm_buf_detach(&b);
}

/* ---- the plan ---- */

/* The global config file as git picks it for writing. */
static int global_config_path(char **out)
{
	git_buf buf = GIT_BUF_INIT;
	tm_buf b = TM_BUF_INIT;
	const char *sep;

	if (git_config_find_global(&buf) == 0 ||
	    git_config_find_xdg(&buf) == 0) {
		*out = tm_xstrdup(buf.ptr);
		git_buf_dispose(&buf);
		return 0;
	}
	git_buf_dispose(&buf);
	if (git_libgit2_opts(GIT_OPT_GET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL,
			     &buf) < 0 ||
	    !buf.ptr || !*buf.ptr) {
		git_buf_dispose(&buf);
		return tm_error_set(TM_ERROR,
				    "cannot find the global git config file; "
				    "is HOME set?");
	}
	/* a search path may list several folders: git writes to the first */
	sep = strchr(buf.ptr, GIT_PATH_LIST_SEPARATOR);
	tm_buf_put(&b, buf.ptr, sep ? (size_t)(sep - buf.ptr) : buf.size);
	git_buf_dispose(&buf);
	while (b.size > 1 && b.ptr[b.size - 1] == '/')
		tm_buf_truncate(&b, b.size - 1);
	tm_buf_puts(&b, "/.gitconfig");
	*out = tm_buf_detach(&b);
	return 0;
}

/* The value of `key` in the config file `path` alone (NULL when unset). */
static int read_config(char **out, const char *path, const char *key)
{
	git_config *cfg = NULL;
	git_config_entry *e = NULL;
	int error;

	*out = NULL;
	if (git_config_open_ondisk(&cfg, path) < 0)
		return tm_git_error(TM_ERROR, "cannot read the git config '%s'",
				    path);
	error = git_config_get_entry(&e, cfg, key);
	if (error == 0)
		*out = tm_xstrdup(e->value ? e->value : "");
	else if (error != GIT_ENOTFOUND)
		error = tm_git_error(TM_ERROR,
				     "cannot read the git config '%s'", path);
	if (error == GIT_ENOTFOUND)
		error = 0;
	git_config_entry_free(e);
	git_config_free(cfg);
	return error;
}

static int plan_config(tm_install_plan *p, const char *path, bool global,
		       bool uninstall)
{
	static const char *const keys[][2] = {
		{TM_INSTALL_NAME_KEY, TM_INSTALL_NAME},
		{TM_INSTALL_DRIVER_KEY, TM_INSTALL_DRIVER},
	};
	size_t i;
	int error;

	for (i = 0; i < 2; i++) {
		tm_install_step *st;
		char *cur = NULL;

		if ((error = read_config(&cur, path, keys[i][0])) < 0)
			return error;
		st = tm_install__add_step(p,
					  uninstall ? TM_INSTALL_UNSET_CONFIG
						    : TM_INSTALL_SET_CONFIG,
					  path);
		st->global = global;
		st->key = tm_xstrdup(keys[i][0]);
		if (uninstall) {
			st->done = cur == NULL;
			tm_install__set_what(
				st, "merge driver: remove %s from '%s'",
				keys[i][0], path);
		} else {
			st->value = tm_xstrdup(keys[i][1]);
			st->done = cur && !strcmp(cur, keys[i][1]);
			if (i == 1 && tm_install_driver_is_old(cur))
				tm_install__set_what(
					st,
					"merge driver: upgrade %s in '%s' "
					"to fall back to git merge-file "
					"when git-threadmind-merge is not "
					"on the PATH",
					keys[i][0], path);
			else
				tm_install__set_what(
					st,
					"merge driver: set %s = '%s' in '%s'",
					keys[i][0], keys[i][1], path);
		}
		free(cur);
	}
	return 0;
}

static int plan_attributes(tm_install_plan *p, const char *store_dir,
			   bool uninstall)
{
	tm_buf data = TM_BUF_INIT, next = TM_BUF_INIT;
	tm_install_step *st;
	char *path = tm_install__join(store_dir, ".gitattributes");
	bool existed, change;
	int fd, error;

	if ((error = tm_fs_open_dir(&fd, store_dir)) < 0)
		goto done;
	error = tm_fs_read_at(&data, fd, ".gitattributes", path,
			      TM_MAX_FILE_SIZE);
	close(fd);
	existed = error == 0;
	error = tm_error_ignore(error, TM_ENOTFOUND);
	if (error < 0)
		goto done;
	if (uninstall) {
		change = existed &&
			 tm_install_attributes_remove(&next, tm_buf_cstr(&data),
						      data.size);
		if (change &&
		    tm_install_is_empty_script(tm_buf_cstr(&next), next.size)) {
			st = tm_install__add_step(p, TM_INSTALL_DELETE_FILE,
						  path);
			tm_install__set_what(st, "attributes: delete '%s'",
					     path);
		} else {
			st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE,
						  path);
			tm_install__set_what(
				st,
				"attributes: remove the threadmind "
				"lines from '%s'",
				path);
			tm_install__set_data(st, &next);
		}
	} else {
		change = tm_install_attributes_add(&next, tm_buf_cstr(&data),
						   data.size);
		st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE, path);
		tm_install__set_what(
			st, "attributes: %s '%s' (%s, %s)",
			existed ? "add or upgrade the threadmind lines in"
				: "create",
			path, TM_INSTALL_ATTR_THREADS,
			TM_INSTALL_ATTR_PROJECTS);
		tm_install__set_data(st, &next);
	}
	st->done = !change;
	if (existed)
		tm_install__set_old(st, &data);
done:
	tm_buf_release(&data);
	tm_buf_release(&next);
	free(path);
	return error;
}

bool tm_install_driver_missing(struct tm_git *g, int store_dirfd)
{
	tm_buf data = TM_BUF_INIT;
	bool set = true;

	if (!g ||
	    tm_fs_read_at(&data, store_dirfd, ".gitattributes",
			  ".gitattributes", TM_MAX_FILE_SIZE) < 0 ||
	    !tm_install_attributes_ask_driver(tm_buf_cstr(&data), data.size))
		goto done;
	if (tm_git_config_is_set(&set, g, TM_INSTALL_DRIVER_KEY) < 0)
		set = true;
done:
	tm_error_clear();
	tm_buf_release(&data);
	return !set;
}

int tm_install_plan_make(tm_install_plan *out, struct tm_git *g,
			 const char *store_dir, const tm_install_options *opts)
{
	static const tm_install_options dflt = TM_INSTALL_OPTIONS_INIT;
	char *config = NULL;
	int error;

	if (!opts)
		opts = &dflt;
	tm_install_plan_clear(out);
	if (!g && !opts->global)
		return tm_error_set(TM_EINVALID,
				    "not in a git repository; outside one "
				    "only the --global merge driver config "
				    "can be changed");
	if ((error = tm_git_init()) < 0)
		return error;
	if (opts->global)
		error = global_config_path(&config);
	else {
		config = tm_install__join(tm_git_commondir(g), "config");
		error = 0;
	}
	if (error == 0)
		error = plan_config(out, config, opts->global, opts->uninstall);
	if (error == 0 && store_dir && (!opts->uninstall || opts->attributes))
		error = plan_attributes(out, store_dir, opts->uninstall);
	if (error == 0 && g)
		error = tm_install__plan_hooks(out, g, opts->uninstall,
					       opts->home);
	free(config);
	if (error < 0)
		tm_install_plan_clear(out);
	return error;
}

static void step_clear(tm_install_step *st)
{
	TM_FREE_ALL(st->what, st->path, st->key, st->value, st->data, st->old,
		    st->finding);
}

void tm_install_plan_clear(tm_install_plan *plan)
{
	TM_FREE_ITEMS(plan->steps, plan->n, step_clear);
	TM_FREE_ALL(plan->hooks_dir, plan->manager_file);
	memset(plan, 0, sizeof(*plan));
}

bool tm_install_plan_refused(const tm_install_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++)
		if (plan->steps[i].kind == TM_INSTALL_MANUAL &&
		    plan->steps[i].refused && !plan->steps[i].done)
			return true;
	return false;
}
