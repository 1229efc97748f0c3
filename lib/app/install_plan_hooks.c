/*
 * install / uninstall, the hooks' steps (see install.h): what is at each
 * hook's path, and the step that installs our call there, adds our block,
 * or takes it away (docs/hooks.md).
 */
#include "install.h"
#include "install_internal.h"

#include "error.h"
#include "fs.h"
#include "git_libgit2.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Append everything `fd` holds (up to TM_MAX_FILE_SIZE + 1 bytes). */
int tm_install__read_all(int fd, tm_buf *out)
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
	if (tm_install__read_all(fd, data) < 0) {
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
	tm_install_step *st = tm_install__add_step(p, TM_INSTALL_MANUAL, path);
	tm_buf line = TM_BUF_INIT;

	st->refused = refused;
	tm_install__set_what(st, "hook '%s': '%s' %s", name, path, why);
	tm_install_call_line(&line, name);
	tm_install__set_data(st, &line);
	tm_buf_release(&line);
}

/* A hook that calls us already: nothing to do (`link`: through a
 * symbolic link; else a call added by hand). */
static void already_calls(tm_install_plan *p, const char *path,
			  const char *name, bool link)
{
	tm_install_step *st = tm_install__add_step(p, TM_INSTALL_MANUAL, path);

	st->done = true;
	if (link)
		tm_install__set_what(st,
				     "hook '%s': '%s' (a symbolic link) "
				     "already calls git-threadmind",
				     name, path);
	else
		tm_install__set_what(st,
				     "hook '%s': '%s' already calls "
				     "git-threadmind (added by hand; left "
				     "alone)",
				     name, path);
}

/* Why a hook with a broken block of ours is refused (install). */
#define UNCLOSED_BLOCK                                                   \
	"has a '" TM_INSTALL_BEGIN "' line without its '" TM_INSTALL_END \
	"' line; fix it by hand, or add this line to it:"

/* A step that rewrites the file at `path` from `data` to `next` (released
 * here); the caller says what it does. */
static tm_install_step *rewrite_step(tm_install_plan *p, const char *path,
				     const tm_buf *data, tm_buf *next)
{
	tm_install_step *st =
		tm_install__add_step(p, TM_INSTALL_WRITE_FILE, path);

	tm_install__set_data(st, next);
	tm_install__set_old(st, data);
	tm_buf_release(next);
	return st;
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
		st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE, path);
		tm_install__set_what(st, "hook '%s': create '%s'", name, path);
		tm_install_stub(&next, name);
		tm_install__set_data(st, &next);
		st->mode = 0755;
		st->make_dir = access(p->hooks_dir, F_OK) < 0;
		tm_buf_release(&next);
		return;
	case HOOK_LINK:
		if (data->size && (tm_install_has_block(d, data->size) ||
				   tm_install_calls_us(d, data->size))) {
			already_calls(p, path, name, true);
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
		st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE, path);
		st->done = true;
		tm_install__set_what(st, "hook '%s': '%s' is installed", name,
				     path);
		return;
	}
	if (tm_install_is_old_stub(d, data->size, name)) {
		tm_install_stub(&next, name);
		st = rewrite_step(p, path, data, &next);
		tm_install__set_what(st, "hook '%s': update the stub '%s'",
				     name, path);
		return;
	}
	if (tm_install_has_block(d, data->size)) {
		if (tm_install_insert(&next, d, data->size, name) < 0) {
			tm_error_clear();
			refuse(p, path, name, true, UNCLOSED_BLOCK);
			return;
		}
		st = rewrite_step(p, path, data, &next);
		st->done = st->len == data->size &&
			   !memcmp(st->data, d, data->size);
		tm_install__set_what(
			st, "hook '%s': %s the threadmind block in '%s'", name,
			st->done ? "found" : "update", path);
		return;
	}
	if (tm_install_calls_us(d, data->size)) {
		already_calls(p, path, name, false);
		return;
	}
	if (!tm_install_is_shell(d, data->size)) {
		const char *lang = tm_install_hook_language(d, data->size);

		/* Not a reason to install nothing: the one step left. */
		st = tm_install__add_step(p, TM_INSTALL_MANUAL, path);
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
		tm_install__set_data(st, &next);
		tm_buf_release(&next);
		return;
	}
	tm_install_insert(&next, d, data->size, name);
	st = rewrite_step(p, path, data, &next);
	tm_install__set_what(st, "hook '%s': add the threadmind block to '%s'",
			     name, path);
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
		already_calls(p, path, name, false);
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
		refuse(p, path, name, true, UNCLOSED_BLOCK);
		return;
	}
	st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE, path);
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
		tm_install__set_old(st, data);
	}
	tm_install__set_data(st, &next);
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
		st = tm_install__add_step(p, TM_INSTALL_DELETE_FILE, path);
		tm_install__set_what(st, "hook '%s': delete '%s'", name, path);
		tm_install__set_old(st, data);
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
			st = tm_install__add_step(p, TM_INSTALL_DELETE_FILE,
						  path);
			tm_install__set_what(
				st,
				"hook '%s': delete '%s' (nothing but the "
				"threadmind block was left in it)",
				name, path);
		} else {
			st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE,
						  path);
			tm_install__set_what(
				st,
				"hook '%s': remove the threadmind block from "
				"'%s'",
				name, path);
			tm_install__set_data(st, &next);
		}
		tm_install__set_old(st, data);
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
	st = tm_install__add_step(p, TM_INSTALL_DELETE_FILE, path);
	st->done = true;
	tm_install__set_what(st, "hook '%s': nothing of threadmind in '%s'",
			     name, path);
}

int tm_install__plan_hooks(tm_install_plan *p, tm_git *g, bool uninstall,
			   const char *home)
{
	char *hooks_path = NULL;
	size_t i;
	int error;

	error = tm_git_config_string(&hooks_path, g, "core.hooksPath");
	error = tm_error_ignore(error, TM_ENOTFOUND);
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
		char *path = tm_install__join(p->hooks_dir, name);
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
