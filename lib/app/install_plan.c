/*
 * install / uninstall, the I/O half (see install.h): planning the steps
 * from what is on disk and in git's config, then carrying them out through
 * the safe file layer and libgit2's config writer.
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

/* ---- the plan ---- */

static tm_install_step *add_step(tm_install_plan *p, tm_install_kind kind,
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

static void set_data(tm_install_step *st, const tm_buf *b)
{
	st->data = tm_xstrndup(b->ptr ? b->ptr : "", b->size);
	st->len = b->size;
}

static void set_old(tm_install_step *st, const tm_buf *b)
{
	st->existed = true;
	st->old = tm_xstrndup(b->ptr ? b->ptr : "", b->size);
	st->old_len = b->size;
}

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
		st = add_step(p,
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

static char *join(const char *dir, const char *name)
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

static int plan_attributes(tm_install_plan *p, const char *store_dir,
			   bool uninstall)
{
	tm_buf data = TM_BUF_INIT, next = TM_BUF_INIT;
	tm_install_step *st;
	char *path = join(store_dir, ".gitattributes");
	bool existed, change;
	int fd, error;

	if ((error = tm_fs_open_dir(&fd, store_dir)) < 0)
		goto done;
	error = tm_fs_read_at(&data, fd, ".gitattributes", path,
			      TM_MAX_FILE_SIZE);
	close(fd);
	existed = error == 0;
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		error = 0;
	}
	if (error < 0)
		goto done;
	if (uninstall) {
		change = existed &&
			 tm_install_attributes_remove(&next, tm_buf_cstr(&data),
						      data.size);
		if (change &&
		    tm_install_is_empty_script(tm_buf_cstr(&next), next.size)) {
			st = add_step(p, TM_INSTALL_DELETE_FILE, path);
			tm_install__set_what(st, "attributes: delete '%s'",
					     path);
		} else {
			st = add_step(p, TM_INSTALL_WRITE_FILE, path);
			tm_install__set_what(
				st,
				"attributes: remove the threadmind "
				"lines from '%s'",
				path);
			set_data(st, &next);
		}
	} else {
		change = tm_install_attributes_add(&next, tm_buf_cstr(&data),
						   data.size);
		st = add_step(p, TM_INSTALL_WRITE_FILE, path);
		tm_install__set_what(
			st, "attributes: %s '%s' (%s, %s)",
			existed ? "add or upgrade the threadmind lines in"
				: "create",
			path, TM_INSTALL_ATTR_THREADS,
			TM_INSTALL_ATTR_PROJECTS);
		set_data(st, &next);
	}
	st->done = !change;
	if (existed)
		set_old(st, &data);
done:
	tm_buf_release(&data);
	tm_buf_release(&next);
	free(path);
	return error;
}

bool tm_install_driver_missing(struct tm_git *g, const char *store_dir)
{
	tm_buf data = TM_BUF_INIT;
	bool set = true;
	int fd, error;

	if (!g || tm_fs_open_dir(&fd, store_dir) < 0)
		goto done;
	error = tm_fs_read_at(&data, fd, ".gitattributes", ".gitattributes",
			      TM_MAX_FILE_SIZE);
	close(fd);
	if (error < 0 ||
	    !tm_install_attributes_ask_driver(tm_buf_cstr(&data), data.size))
		goto done;
	if (tm_git_config_is_set(&set, g, TM_INSTALL_DRIVER_KEY) < 0)
		set = true;
done:
	tm_error_clear();
	tm_buf_release(&data);
	return !set;
}

/* Append everything `fd` holds (up to TM_MAX_FILE_SIZE + 1 bytes). */
static int read_all(int fd, tm_buf *out)
{
	for (;;) {
		ssize_t n;

		tm_buf_grow(out, 65536);
		n = read(fd, out->ptr + out->size, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		out->size += (size_t)n;
		if (out->size > TM_MAX_FILE_SIZE)
			break;
	}
	tm_buf_grow(out, 0);
	out->ptr[out->size] = '\0';
	return 0;
}

/* What is at a hook's path. */
enum hook_state {
	HOOK_MISSING,
	HOOK_FILE,  /* a regular file, read into data */
	HOOK_LINK,  /* a symbolic link; data holds the target's content when
		       readable */
	HOOK_OTHER, /* a folder, a FIFO, ... */
	HOOK_TOO_LARGE
};

static int read_hook(enum hook_state *state, bool *exec, tm_buf *data,
		     const char *path)
{
	struct stat st;
	int fd;

	*exec = false;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			*state = HOOK_MISSING;
			return 0;
		}
		return tm_error_set_errno(TM_ERROR, "cannot read '%s'", path);
	}
	if (S_ISLNK(st.st_mode)) {
		*state = HOOK_LINK;
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_size > TM_MAX_FILE_SIZE)
			return 0;
	} else if (!S_ISREG(st.st_mode)) {
		*state = HOOK_OTHER;
		return 0;
	} else if (st.st_size > TM_MAX_FILE_SIZE) {
		*state = HOOK_TOO_LARGE;
		return 0;
	} else {
		*state = HOOK_FILE;
	}
	*exec = (st.st_mode & 0111) != 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return tm_error_set_errno(TM_ERROR, "cannot read '%s'", path);
	if (read_all(fd, data) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return tm_error_set_errno(TM_ERROR, "cannot read '%s'", path);
	}
	close(fd);
	if (data->size > TM_MAX_FILE_SIZE && *state == HOOK_FILE)
		*state = HOOK_TOO_LARGE;
	return 0;
}

static void refuse(tm_install_plan *p, const char *path, const char *name,
		   bool refused, const char *why)
{
	tm_install_step *st = add_step(p, TM_INSTALL_MANUAL, path);
	tm_buf line = TM_BUF_INIT;

	st->refused = refused;
	tm_install__set_what(st, "hook '%s': '%s' %s", name, path, why);
	tm_install_call_line(&line, name);
	set_data(st, &line);
	tm_buf_release(&line);
}

static void plan_hook_install(tm_install_plan *p, const char *path,
			      const char *name, enum hook_state state,
			      bool exec, const tm_buf *data)
{
	const char *d = tm_buf_cstr(data);
	tm_install_step *st;
	tm_buf next = TM_BUF_INIT;

	switch (state) {
	case HOOK_MISSING:
		st = add_step(p, TM_INSTALL_WRITE_FILE, path);
		tm_install__set_what(st, "hook '%s': create '%s'", name, path);
		tm_install_stub(&next, name);
		set_data(st, &next);
		st->mode = 0755;
		st->make_dir = access(p->hooks_dir, F_OK) < 0;
		tm_buf_release(&next);
		return;
	case HOOK_LINK:
		if (data->size && (tm_install_has_block(d, data->size) ||
				   tm_install_calls_us(d, data->size))) {
			st = add_step(p, TM_INSTALL_MANUAL, path);
			st->done = true;
			tm_install__set_what(
				st,
				"hook '%s': '%s' (a symbolic link) already "
				"calls git-threadmind",
				name, path);
			return;
		}
		refuse(p, path, name, true,
		       "is a symbolic link; add this line to the script it "
		       "points to, then run install again:");
		return;
	case HOOK_OTHER:
		refuse(p, path, name, true,
		       "is not a regular file; make it a script with this "
		       "line, then run install again:");
		return;
	case HOOK_TOO_LARGE:
		refuse(p, path, name, true,
		       "is larger than 1 MiB; add this line to it by hand, "
		       "then run install again:");
		return;
	case HOOK_FILE:
		break;
	}
	if (!exec) {
		refuse(p, path, name, true,
		       "is not executable, so git does not run it; make it "
		       "executable (chmod +x) or remove it, then run install "
		       "again; or add this line to it by hand:");
		return;
	}
	if (tm_install_is_stub(d, data->size, name)) {
		st = add_step(p, TM_INSTALL_WRITE_FILE, path);
		st->done = true;
		tm_install__set_what(st, "hook '%s': '%s' is installed", name,
				     path);
		return;
	}
	if (tm_install_is_old_stub(d, data->size, name)) {
		st = add_step(p, TM_INSTALL_WRITE_FILE, path);
		tm_install__set_what(st, "hook '%s': update the stub '%s'",
				     name, path);
		tm_install_stub(&next, name);
		set_data(st, &next);
		set_old(st, data);
		tm_buf_release(&next);
		return;
	}
	if (tm_install_has_block(d, data->size)) {
		if (tm_install_insert(&next, d, data->size, name) < 0) {
			tm_error_clear();
			refuse(p, path, name, true,
			       "has a '" TM_INSTALL_BEGIN "' line without "
			       "its '" TM_INSTALL_END "' line; fix it by "
			       "hand, or add this line to it:");
			return;
		}
		st = add_step(p, TM_INSTALL_WRITE_FILE, path);
		st->done = next.size == data->size &&
			   !memcmp(next.ptr, d, data->size);
		tm_install__set_what(
			st, "hook '%s': %s the threadmind block in '%s'", name,
			st->done ? "found" : "update", path);
		set_data(st, &next);
		set_old(st, data);
		tm_buf_release(&next);
		return;
	}
	if (tm_install_calls_us(d, data->size)) {
		st = add_step(p, TM_INSTALL_MANUAL, path);
		st->done = true;
		tm_install__set_what(
			st,
			"hook '%s': '%s' already calls git-threadmind (added "
			"by hand; left alone)",
			name, path);
		return;
	}
	if (!tm_install_is_shell(d, data->size)) {
		const char *lang = tm_install_hook_language(d, data->size);

		/* Not a reason to install nothing: the one step left. */
		st = add_step(p, TM_INSTALL_MANUAL, path);
		if (lang)
			tm_install__set_what(
				st,
				"hook '%s': '%s' is a %s script, so "
				"threadmind cannot add its block; add this "
				"line to it:",
				name, path, lang);
		else
			tm_install__set_what(
				st,
				"hook '%s': '%s' is not a shell script, so "
				"threadmind cannot add its block; add the call "
				"by hand:",
				name, path);
		tm_install_call_line_in(&next, name, lang);
		set_data(st, &next);
		tm_buf_release(&next);
		return;
	}
	tm_install_insert(&next, d, data->size, name);
	st = add_step(p, TM_INSTALL_WRITE_FILE, path);
	tm_install__set_what(st, "hook '%s': add the threadmind block to '%s'",
			     name, path);
	set_data(st, &next);
	set_old(st, data);
	tm_buf_release(&next);
}

/*
 * A husky script (`.husky/<hook>`): created as our block alone, or with
 * our block added (tm_install_husky_insert).  husky runs it with `sh -e`,
 * so it needs no `#!` line and no execute bit.
 */
static void plan_husky_install(tm_install_plan *p, const char *path,
			       const char *name, enum hook_state state,
			       const tm_buf *data)
{
	const char *d = tm_buf_cstr(data);
	tm_install_step *st;
	tm_buf next = TM_BUF_INIT;

	if (state == HOOK_FILE && !tm_install_has_block(d, data->size) &&
	    !tm_install_is_stub(d, data->size, name) &&
	    !tm_install_is_old_stub(d, data->size, name) &&
	    tm_install_calls_us(d, data->size)) {
		st = add_step(p, TM_INSTALL_MANUAL, path);
		st->done = true;
		tm_install__set_what(
			st,
			"hook '%s': '%s' already calls git-threadmind (added "
			"by hand; left alone)",
			name, path);
		return;
	}
	if (state == HOOK_FILE && !tm_install_is_shell(d, data->size)) {
		/* not a script sh can run: as for any hook */
		plan_hook_install(p, path, name, state, true, data);
		return;
	}
	/* our full stub there (written when husky 8 ran .husky/ as git's
	 * hooks): replaced by the block, which sh -e runs safely */
	if (state == HOOK_MISSING || tm_install_is_stub(d, data->size, name) ||
	    tm_install_is_old_stub(d, data->size, name))
		tm_install_husky_insert(&next, "", 0, name);
	else if (tm_install_husky_insert(&next, d, data->size, name) < 0) {
		tm_error_clear();
		refuse(p, path, name, true,
		       "has a '" TM_INSTALL_BEGIN
		       "' line without its '" TM_INSTALL_END
		       "' line; fix it by hand, or add this "
		       "line to it:");
		return;
	}
	st = add_step(p, TM_INSTALL_WRITE_FILE, path);
	if (state == HOOK_MISSING) {
		tm_install__set_what(
			st, "husky: create the script '%s' calling threadmind",
			path);
		st->mode = 0755;
		{
			char *dir = tm_xstrdup(path),
			     *slash = strrchr(dir, '/');

			if (slash)
				*slash = '\0';
			st->make_dir = access(dir, F_OK) < 0;
			free(dir);
		}
	} else {
		st->done = next.size == data->size &&
			   !memcmp(next.ptr, d, data->size);
		tm_install__set_what(st,
				     "husky: %s the threadmind block %s '%s'",
				     st->done ? "found" : "add",
				     st->done ? "in" : "to", path);
		set_old(st, data);
	}
	set_data(st, &next);
	tm_buf_release(&next);
}

static void plan_hook_uninstall(tm_install_plan *p, const char *path,
				const char *name, enum hook_state state,
				const tm_buf *data)
{
	const char *d = tm_buf_cstr(data);
	tm_install_step *st;
	tm_buf next = TM_BUF_INIT;

	if (state == HOOK_LINK) {
		if (data->size && (tm_install_has_block(d, data->size) ||
				   tm_install_calls_us(d, data->size)))
			refuse(p, path, name, false,
			       "is a symbolic link to a script that calls "
			       "git-threadmind; remove the call by hand:");
		else
			goto nothing;
		return;
	}
	if (state != HOOK_FILE)
		goto nothing;
	if (tm_install_is_stub(d, data->size, name) ||
	    tm_install_is_old_stub(d, data->size, name)) {
		st = add_step(p, TM_INSTALL_DELETE_FILE, path);
		tm_install__set_what(st, "hook '%s': delete '%s'", name, path);
		set_old(st, data);
		return;
	}
	if (tm_install_has_block(d, data->size)) {
		if (tm_install_remove(&next, d, data->size) < 0) {
			tm_error_clear();
			refuse(p, path, name, false,
			       "has a '" TM_INSTALL_BEGIN "' line without "
			       "its '" TM_INSTALL_END "' line; remove the "
			       "block by hand:");
			return;
		}
		if (tm_install_is_empty_script(tm_buf_cstr(&next), next.size)) {
			st = add_step(p, TM_INSTALL_DELETE_FILE, path);
			tm_install__set_what(
				st,
				"hook '%s': delete '%s' (nothing but the "
				"threadmind block was left in it)",
				name, path);
		} else {
			st = add_step(p, TM_INSTALL_WRITE_FILE, path);
			tm_install__set_what(
				st,
				"hook '%s': remove the threadmind block from "
				"'%s'",
				name, path);
			set_data(st, &next);
		}
		set_old(st, data);
		tm_buf_release(&next);
		return;
	}
	if (tm_install_calls_us(d, data->size)) {
		refuse(p, path, name, false,
		       "calls git-threadmind, but install did not add that "
		       "call (or the stub was changed since); remove it by "
		       "hand:");
		return;
	}
nothing:
	st = add_step(p, TM_INSTALL_DELETE_FILE, path);
	st->done = true;
	tm_install__set_what(st, "hook '%s': nothing of threadmind in '%s'",
			     name, path);
}

static int plan_hooks(tm_install_plan *p, tm_git *g, bool uninstall,
		      const char *home)
{
	char *hooks_path = NULL;
	size_t i;
	int error;

	error = tm_git_config_string(&hooks_path, g, "core.hooksPath");
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		error = 0;
	}
	if (error == 0)
		error = tm_install_hooks_path(
			&p->hooks_dir, hooks_path, tm_git_workdir(g),
			tm_git_gitdir(g), tm_git_commondir(g), home);
	free(hooks_path);
	/* A hook manager runs the hooks: install goes through it
	 * (install_manager_plan.c); uninstall looks here too. */
	if (error == 0 &&
	    (error = tm_install__plan_manager(p, g, uninstall, home)) > 0) {
		if (!uninstall)
			return 0;
		error = 0;
	}
	for (i = 0; error == 0 && tm_install_hook_names[i]; i++) {
		const char *name = tm_install_hook_names[i];
		char *path = join(p->hooks_dir, name);
		tm_buf data = TM_BUF_INIT;
		enum hook_state state = HOOK_MISSING;
		bool exec;

		error = read_hook(&state, &exec, &data, path);
		if (error == 0 && uninstall)
			plan_hook_uninstall(p, path, name, state, &data);
		else if (error == 0)
			plan_hook_install(p, path, name, state, exec, &data);
		tm_buf_release(&data);
		free(path);
	}
	return error;
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
		config = join(tm_git_commondir(g), "config");
		error = 0;
	}
	if (error == 0)
		error = plan_config(out, config, opts->global, opts->uninstall);
	if (error == 0 && store_dir && (!opts->uninstall || opts->attributes))
		error = plan_attributes(out, store_dir, opts->uninstall);
	if (error == 0 && g)
		error = plan_hooks(out, g, opts->uninstall, opts->home);
	free(config);
	if (error < 0)
		tm_install_plan_clear(out);
	return error;
}

void tm_install_plan_clear(tm_install_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		tm_install_step *st = &plan->steps[i];

		free(st->what);
		free(st->path);
		free(st->key);
		free(st->value);
		free(st->data);
		free(st->old);
		free(st->finding);
	}
	free(plan->steps);
	free(plan->hooks_dir);
	free(plan->manager_file);
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

/* ---- carrying it out ---- */

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
	ok = fstat(fd, &st) == 0 && read_all(fd, &data) == 0;
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

/* ---- shared with install_manager_plan.c (install_internal.h) ---- */

tm_install_step *tm_install__add_step(tm_install_plan *p, tm_install_kind kind,
				      const char *path)
{
	return add_step(p, kind, path);
}

void tm_install__set_what(tm_install_step *st, const char *fmt, ...)
{
	tm_buf b = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(st->what);
	st->what = tm_buf_detach(&b);
}

void tm_install__set_data(tm_install_step *st, const tm_buf *b)
{
	set_data(st, b);
}

void tm_install__set_old(tm_install_step *st, const tm_buf *b)
{
	set_old(st, b);
}

int tm_install__read_file(tm_buf *data, bool *exists, bool *regular,
			  const char *path)
{
	enum hook_state state = HOOK_MISSING;
	bool exec;
	int error = read_hook(&state, &exec, data, path);

	*exists = state != HOOK_MISSING;
	*regular = state == HOOK_FILE;
	return error;
}

int tm_install__plan_hook_file(tm_install_plan *p, const char *path,
			       const char *name, enum tm_install__mode mode)
{
	tm_buf data = TM_BUF_INIT;
	enum hook_state state = HOOK_MISSING;
	size_t n = p->n;
	bool exec;
	int error = read_hook(&state, &exec, &data, path);

	if (error < 0)
		goto done;
	switch (mode) {
	case TM_INSTALL__HOOK:
		plan_hook_install(p, path, name, state, exec, &data);
		break;
	case TM_INSTALL__HUSKY:
		/* husky runs its scripts with sh, executable or not */
		if (state == HOOK_MISSING || state == HOOK_FILE) {
			plan_husky_install(p, path, name, state, &data);
			break;
		}
		plan_hook_install(p, path, name, state, exec, &data);
		break;
	case TM_INSTALL__UNHOOK:
	case TM_INSTALL__CLEAN:
		plan_hook_uninstall(p, path, name, state, &data);
		/* cleaning: nothing to say where nothing of ours is */
		if (mode == TM_INSTALL__CLEAN && p->n == n + 1 &&
		    p->steps[n].done) {
			free(p->steps[n].what);
			free(p->steps[n].path);
			p->n = n;
		}
		break;
	}
	while (n < p->n)
		p->steps[n++].manager =
			mode != TM_INSTALL__HOOK && mode != TM_INSTALL__UNHOOK;
done:
	tm_buf_release(&data);
	return error;
}
