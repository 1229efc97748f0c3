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

/* A hook's file: where, which hook, and what read_hook found there. */
struct hook_file {
	const char *path;
	const char *name;
	enum hook_state state;
	bool exec;   /* its execute bit (the link target's, for a link) */
	tm_buf data; /* its content (see enum hook_state) */
};

/* Read h->path into `h`. */
static int read_hook(struct hook_file *h)
{
	const char *path = h->path;
	struct stat st;
	int fd;

	h->exec = false;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			h->state = HOOK_MISSING;
			return 0;
		}
		return tm_error_set_errno(TM_ERROR, "cannot read '%s'", path);
	}
	if (S_ISLNK(st.st_mode)) {
		h->state = HOOK_LINK;
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_size > TM_MAX_FILE_SIZE)
			return 0;
	} else if (!S_ISREG(st.st_mode)) {
		h->state = HOOK_OTHER;
		return 0;
	} else if (st.st_size > TM_MAX_FILE_SIZE) {
		h->state = HOOK_TOO_LARGE;
		return 0;
	} else {
		h->state = HOOK_FILE;
	}
	h->exec = (st.st_mode & 0111) != 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return tm_error_set_errno(TM_ERROR, "cannot read '%s'", path);
	if (tm_install__read_all(fd, &h->data) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return tm_error_set_errno(TM_ERROR, "cannot read '%s'", path);
	}
	close(fd);
	if (h->data.size > TM_MAX_FILE_SIZE && h->state == HOOK_FILE)
		h->state = HOOK_TOO_LARGE;
	return 0;
}

static void refuse(tm_install_plan *p, const struct hook_file *h, bool refused,
		   const char *why)
{
	tm_install_step *st =
		tm_install__add_step(p, TM_INSTALL_MANUAL, h->path);
	tm_buf line = TM_BUF_INIT;

	st->refused = refused;
	tm_install__set_what(st, "hook '%s': '%s' %s", h->name, h->path, why);
	tm_install_call_line(&line, h->name);
	tm_install__set_data(st, &line);
	tm_buf_release(&line);
}

/* A hook that calls us already: nothing to do (`link`: through a
 * symbolic link; else a call added by hand). */
static void already_calls(tm_install_plan *p, const struct hook_file *h,
			  bool link)
{
	tm_install_step *st =
		tm_install__add_step(p, TM_INSTALL_MANUAL, h->path);

	st->done = true;
	if (link)
		tm_install__set_what(st,
				     "hook '%s': '%s' (a symbolic link) "
				     "already calls git-threadmind",
				     h->name, h->path);
	else
		tm_install__set_what(st,
				     "hook '%s': '%s' already calls "
				     "git-threadmind (added by hand; left "
				     "alone)",
				     h->name, h->path);
}

/* Why a hook with a broken block of ours is refused (install). */
#define UNCLOSED_BLOCK                                                   \
	"has a '" TM_INSTALL_BEGIN "' line without its '" TM_INSTALL_END \
	"' line; fix it by hand, or add this line to it:"

/* A step that rewrites the hook's file to `next` (released here); the
 * caller says what it does. */
static tm_install_step *rewrite_step(tm_install_plan *p,
				     const struct hook_file *h, tm_buf *next)
{
	tm_install_step *st =
		tm_install__add_step(p, TM_INSTALL_WRITE_FILE, h->path);

	tm_install__set_data(st, next);
	tm_install__set_old(st, &h->data);
	tm_buf_release(next);
	return st;
}

/* `exec`: whether the file runs as it is (its execute bit, or true where
 * the caller runs it with sh). */
static void plan_hook_install(tm_install_plan *p, const struct hook_file *h,
			      bool exec)
{
	const char *d = tm_buf_cstr(&h->data);
	size_t len = h->data.size;
	tm_install_step *st;
	tm_buf next = TM_BUF_INIT;

	switch (h->state) {
	case HOOK_MISSING:
		st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE, h->path);
		tm_install__set_what(st, "hook '%s': create '%s'", h->name,
				     h->path);
		tm_install_stub(&next, h->name);
		tm_install__set_data(st, &next);
		st->mode = 0755;
		st->make_dir = access(p->hooks_dir, F_OK) < 0;
		tm_buf_release(&next);
		return;
	case HOOK_LINK:
		if (len && (tm_install_has_block(d, len) ||
			    tm_install_calls_us(d, len))) {
			already_calls(p, h, true);
			return;
		}
		refuse(p, h, true,
		       "is a symbolic link; add this line to the script it "
		       "points to, then run install again:");
		return;
	case HOOK_OTHER:
		refuse(p, h, true,
		       "is not a regular file; make it a script with this "
		       "line, then run install again:");
		return;
	case HOOK_TOO_LARGE:
		refuse(p, h, true,
		       "is larger than 1 MiB; add this line to it by hand, "
		       "then run install again:");
		return;
	case HOOK_FILE:
		break;
	}
	if (!exec) {
		refuse(p, h, true,
		       "is not executable, so git does not run it; make it "
		       "executable (chmod +x) or remove it, then run install "
		       "again; or add this line to it by hand:");
		return;
	}
	if (tm_install_is_stub(d, len, h->name)) {
		st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE, h->path);
		st->done = true;
		tm_install__set_what(st, "hook '%s': '%s' is installed",
				     h->name, h->path);
		return;
	}
	if (tm_install_is_old_stub(d, len, h->name)) {
		tm_install_stub(&next, h->name);
		st = rewrite_step(p, h, &next);
		tm_install__set_what(st, "hook '%s': update the stub '%s'",
				     h->name, h->path);
		return;
	}
	if (tm_install_has_block(d, len)) {
		if (tm_install_insert(&next, d, len, h->name) < 0) {
			tm_error_clear();
			refuse(p, h, true, UNCLOSED_BLOCK);
			return;
		}
		st = rewrite_step(p, h, &next);
		st->done = st->len == len && !memcmp(st->data, d, len);
		tm_install__set_what(
			st, "hook '%s': %s the threadmind block in '%s'",
			h->name, st->done ? "found" : "update", h->path);
		return;
	}
	if (tm_install_calls_us(d, len)) {
		already_calls(p, h, false);
		return;
	}
	if (!tm_install_is_shell(d, len)) {
		const char *lang = tm_install_hook_language(d, len);

		/* Not a reason to install nothing: the one step left. */
		st = tm_install__add_step(p, TM_INSTALL_MANUAL, h->path);
		if (lang)
			tm_install__set_what(
				st,
				"hook '%s': '%s' is a %s script, so "
				"threadmind cannot add its block; add this "
				"line to it:",
				h->name, h->path, lang);
		else
			tm_install__set_what(
				st,
				"hook '%s': '%s' is not a shell script, so "
				"threadmind cannot add its block; add the call "
				"by hand:",
				h->name, h->path);
		tm_install_call_line_in(&next, h->name, lang);
		tm_install__set_data(st, &next);
		tm_buf_release(&next);
		return;
	}
	tm_install_insert(&next, d, len, h->name);
	st = rewrite_step(p, h, &next);
	tm_install__set_what(st, "hook '%s': add the threadmind block to '%s'",
			     h->name, h->path);
}

/*
 * A husky script (`.husky/<hook>`): created as our block alone, or with
 * our block added (tm_install_husky_insert).  husky runs it with `sh -e`,
 * so it needs no `#!` line and no execute bit.
 */
static void plan_husky_install(tm_install_plan *p, const struct hook_file *h)
{
	const char *d = tm_buf_cstr(&h->data);
	size_t len = h->data.size;
	tm_install_step *st;
	tm_buf next = TM_BUF_INIT;

	if (h->state == HOOK_FILE && !tm_install_has_block(d, len) &&
	    !tm_install_is_stub(d, len, h->name) &&
	    !tm_install_is_old_stub(d, len, h->name) &&
	    tm_install_calls_us(d, len)) {
		already_calls(p, h, false);
		return;
	}
	if (h->state == HOOK_FILE && !tm_install_is_shell(d, len)) {
		/* not a script sh can run: as for any hook */
		plan_hook_install(p, h, true);
		return;
	}
	/* our full stub there (written when husky 8 ran .husky/ as git's
	 * hooks): replaced by the block, which sh -e runs safely */
	if (h->state == HOOK_MISSING || tm_install_is_stub(d, len, h->name) ||
	    tm_install_is_old_stub(d, len, h->name))
		tm_install_husky_insert(&next, "", 0, h->name);
	else if (tm_install_husky_insert(&next, d, len, h->name) < 0) {
		tm_error_clear();
		refuse(p, h, true, UNCLOSED_BLOCK);
		return;
	}
	st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE, h->path);
	if (h->state == HOOK_MISSING) {
		tm_install__set_what(
			st, "husky: create the script '%s' calling threadmind",
			h->path);
		st->mode = 0755;
		{
			char *dir = tm_xstrdup(h->path),
			     *slash = strrchr(dir, '/');

			if (slash)
				*slash = '\0';
			st->make_dir = access(dir, F_OK) < 0;
			free(dir);
		}
	} else {
		st->done = next.size == len && !memcmp(next.ptr, d, len);
		tm_install__set_what(st,
				     "husky: %s the threadmind block %s '%s'",
				     st->done ? "found" : "add",
				     st->done ? "in" : "to", h->path);
		tm_install__set_old(st, &h->data);
	}
	tm_install__set_data(st, &next);
	tm_buf_release(&next);
}

static void plan_hook_uninstall(tm_install_plan *p, const struct hook_file *h)
{
	const char *d = tm_buf_cstr(&h->data);
	size_t len = h->data.size;
	tm_install_step *st;
	tm_buf next = TM_BUF_INIT;

	if (h->state == HOOK_LINK) {
		if (len && (tm_install_has_block(d, len) ||
			    tm_install_calls_us(d, len)))
			refuse(p, h, false,
			       "is a symbolic link to a script that calls "
			       "git-threadmind; remove the call by hand:");
		else
			goto nothing;
		return;
	}
	if (h->state != HOOK_FILE)
		goto nothing;
	if (tm_install_is_stub(d, len, h->name) ||
	    tm_install_is_old_stub(d, len, h->name)) {
		st = tm_install__add_step(p, TM_INSTALL_DELETE_FILE, h->path);
		tm_install__set_what(st, "hook '%s': delete '%s'", h->name,
				     h->path);
		tm_install__set_old(st, &h->data);
		return;
	}
	if (tm_install_has_block(d, len)) {
		if (tm_install_remove(&next, d, len) < 0) {
			tm_error_clear();
			refuse(p, h, false,
			       "has a '" TM_INSTALL_BEGIN "' line without "
			       "its '" TM_INSTALL_END "' line; remove the "
			       "block by hand:");
			return;
		}
		if (tm_install_is_empty_script(tm_buf_cstr(&next), next.size)) {
			st = tm_install__add_step(p, TM_INSTALL_DELETE_FILE,
						  h->path);
			tm_install__set_what(
				st,
				"hook '%s': delete '%s' (nothing but the "
				"threadmind block was left in it)",
				h->name, h->path);
		} else {
			st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE,
						  h->path);
			tm_install__set_what(
				st,
				"hook '%s': remove the threadmind block from "
				"'%s'",
				h->name, h->path);
			tm_install__set_data(st, &next);
		}
		tm_install__set_old(st, &h->data);
		tm_buf_release(&next);
		return;
	}
	if (tm_install_calls_us(d, len)) {
		refuse(p, h, false,
		       "calls git-threadmind, but install did not add that "
		       "call (or the stub was changed since); remove it by "
		       "hand:");
		return;
	}
nothing:
	st = tm_install__add_step(p, TM_INSTALL_DELETE_FILE, h->path);
	st->done = true;
	tm_install__set_what(st, "hook '%s': nothing of threadmind in '%s'",
			     h->name, h->path);
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
		struct hook_file h = {
			.path = path, .name = name, .data = TM_BUF_INIT};

		error = read_hook(&h);
		if (error == 0 && uninstall)
			plan_hook_uninstall(p, &h);
		else if (error == 0)
			plan_hook_install(p, &h, h.exec);
		tm_buf_release(&h.data);
		free(path);
	}
	return error;
}

int tm_install__read_file(tm_buf *data, bool *exists, bool *regular,
			  const char *path)
{
	struct hook_file h = {.path = path, .name = NULL, .data = TM_BUF_INIT};
	int error = read_hook(&h);

	*exists = h.state != HOOK_MISSING;
	*regular = h.state == HOOK_FILE;
	tm_buf_put(data, h.data.ptr, h.data.size);
	tm_buf_release(&h.data);
	return error;
}

int tm_install__plan_hook_file(tm_install_plan *p, const char *path,
			       const char *name, enum tm_install__mode mode)
{
	struct hook_file h = {.path = path, .name = name, .data = TM_BUF_INIT};
	size_t n = p->n;
	int error = read_hook(&h);

	if (error < 0)
		goto done;
	switch (mode) {
	case TM_INSTALL__HOOK:
		plan_hook_install(p, &h, h.exec);
		break;
	case TM_INSTALL__HUSKY:
		/* husky runs its scripts with sh, executable or not */
		if (h.state == HOOK_MISSING || h.state == HOOK_FILE) {
			plan_husky_install(p, &h);
			break;
		}
		plan_hook_install(p, &h, h.exec);
		break;
	case TM_INSTALL__UNHOOK:
	case TM_INSTALL__CLEAN:
		plan_hook_uninstall(p, &h);
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
	tm_buf_release(&h.data);
	return error;
}
