/*
 * install / uninstall through a hook manager, the I/O half (see install.h):
 * which manager runs the hooks, and the steps that put our calls in its
 * files (husky's scripts, lefthook's or pre-commit's config), take ours
 * out of the files it writes itself or moved aside (`<hook>.old`,
 * `<hook>.legacy`), and tell what is left to run (`lefthook install`,
 * `pre-commit install`, `npx husky`).
 */
#include "install.h"
#include "install_internal.h"

#include "error.h"
#include "git.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* The file's text, empty when it cannot be read (best effort). */
static void slurp(tm_buf *out, const char *path)
{
	bool there, regular;

	if (tm_install__read_file(out, &there, &regular, path) < 0 || !regular)
		tm_buf_clear(out);
	tm_error_clear();
}

void tm_install_manager_info_clear(tm_install_manager_info *info)
{
	free(info->file);
	free(info->hooks_dir);
	memset(info, 0, sizeof(*info));
}

/* core.hooksPath naming husky's folder. */
static bool husky_by_hooks_path(tm_install_manager_info *out)
{
	const char *dir = out->hooks_dir, *base = base_name(dir);
	char *parent, *h;
	tm_buf data = TM_BUF_INIT;
	bool husky;

	if (!strcmp(base, ".husky")) {
		/* husky 4 to 8: git runs .husky/<hook> itself */
		out->kind = TM_INSTALL_MANAGER_HUSKY;
		out->active = out->plain = true;
		out->file = tm_xstrdup(dir);
		out->file_exists = is_dir(dir);
		return true;
	}
	if (strcmp(base, "_") || base == dir)
		return false;
	parent = tm_xstrndup(dir, (size_t)(base - dir - 1));
	h = tm_install__join(dir, "h");
	slurp(&data, h);
	husky = !strcmp(base_name(parent), ".husky") ||
		memmem(tm_buf_cstr(&data), data.size, "husky", 5);
	if (husky) {
		out->kind = TM_INSTALL_MANAGER_HUSKY;
		/* husky writes `_` in each worktree where it runs */
		out->active = is_dir(dir);
		out->file = parent;
		out->file_exists = is_dir(parent);
	} else {
		free(parent);
	}
	free(h);
	tm_buf_release(&data);
	return husky;
}

/* A stub of lefthook or pre-commit among our hooks in the hooks folder. */
static void by_stub(tm_install_manager_info *out, const char *workdir)
{
	size_t i;

	for (i = 0; !out->kind && tm_install_hook_names[i]; i++) {
		char *path = tm_install__join(out->hooks_dir,
					      tm_install_hook_names[i]);
		tm_buf data = TM_BUF_INIT;
		tm_install_manager m;

		slurp(&data, path);
		m = tm_install_manager_stub(tm_buf_cstr(&data), data.size);
		if (m == TM_INSTALL_MANAGER_PRE_COMMIT) {
			char *config = tm_install_pre_commit_stub_config(
				tm_buf_cstr(&data), data.size);

			out->kind = m;
			out->active = true;
			if (config && config[0] != '/')
				out->file = tm_install__join(workdir, config);
			else if (config)
				out->file = tm_xstrdup(config);
			free(config);
		} else if (m == TM_INSTALL_MANAGER_LEFTHOOK) {
			out->kind = m;
			out->active = true;
		}
		tm_buf_release(&data);
		free(path);
	}
}

/* lefthook's config files, in the order they are looked for. */
static const char *const lefthook_configs[] = {
	"lefthook.yml",
	".lefthook.yml",
	"lefthook.yaml",
	".lefthook.yaml",
	"lefthook.toml",
	".lefthook.toml",
	"lefthook.json",
	".lefthook.json",
	"lefthook.jsonc",
	".lefthook.jsonc",
	".config/lefthook.yml",
	".config/lefthook.yaml",
	".config/lefthook.toml",
	".config/lefthook.json",
	NULL,
};

static tm_install_config_format format_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcmp(dot, ".toml"))
		return TM_INSTALL_CONFIG_TOML;
	if (dot && (!strcmp(dot, ".json") || !strcmp(dot, ".jsonc")))
		return TM_INSTALL_CONFIG_JSON;
	return TM_INSTALL_CONFIG_YAML;
}

static char *lefthook_config(const char *workdir)
{
	size_t i;

	for (i = 0; lefthook_configs[i]; i++) {
		char *path = tm_install__join(workdir, lefthook_configs[i]);

		if (exists(path))
			return path;
		free(path);
	}
	return NULL;
}

int tm_install_manager_detect(tm_install_manager_info *out, struct tm_git *g,
			      const char *home)
{
	const char *workdir = tm_git_workdir(g);
	char *hooks_path = NULL, *path;
	int error;

	memset(out, 0, sizeof(*out));
	error = tm_git_config_string(&hooks_path, g, "core.hooksPath");
	error = tm_error_ignore(error, TM_ENOTFOUND);
	if (error == 0)
		error = tm_install_hooks_path(&out->hooks_dir, hooks_path,
					      workdir, tm_git_gitdir(g),
					      tm_git_commondir(g), home);
	if (error < 0 || !workdir)
		goto done;
	if (hooks_path && *hooks_path && husky_by_hooks_path(out))
		goto done;
	by_stub(out, workdir);
	if (!out->kind && !(hooks_path && *hooks_path)) {
		path = tm_install__join(workdir, ".husky");
		if (is_dir(path)) {
			out->kind = TM_INSTALL_MANAGER_HUSKY;
			out->file = path;
			out->file_exists = true;
			goto done;
		}
		free(path);
	}
	if (!out->kind || out->kind == TM_INSTALL_MANAGER_LEFTHOOK) {
		path = lefthook_config(workdir);
		if (path || out->kind) {
			out->kind = TM_INSTALL_MANAGER_LEFTHOOK;
			out->file = path ? path
					 : tm_install__join(workdir,
							    "lefthook.yml");
			goto found;
		}
	}
	if (!out->file) {
		path = tm_install__join(workdir, ".pre-commit-config.yaml");
		if (out->kind || exists(path))
			out->file = path;
		else
			free(path);
		if (out->file)
			out->kind = TM_INSTALL_MANAGER_PRE_COMMIT;
	}
found:
	if (out->file) {
		out->file_exists = exists(out->file);
		out->format = format_of(out->file);
	}
done:
	free(hooks_path);
	if (error < 0)
		tm_install_manager_info_clear(out);
	return error;
}

/* ---- the steps ---- */

/* Our hooks that the file does not call by hand, NULL-terminated. */
static void ours_to_add(const char **names, const tm_buf *data)
{
	size_t i, n = 0;

	for (i = 0; tm_install_hook_names[i]; i++)
		if (!tm_install_manager_calls(tm_buf_cstr(data), data->size,
					      tm_install_hook_names[i]))
			names[n++] = tm_install_hook_names[i];
	names[n] = NULL;
}

static void put_names(tm_buf *b, const char *const *names)
{
	size_t i;

	for (i = 0; names[i]; i++)
		tm_buf_printf(b, "%s%s", i ? ", " : "", names[i]);
}

/* A step for a human: refused (install stops) or a note. */
static tm_install_step *manual(tm_install_plan *p, const char *path,
			       bool refused, const tm_buf *lines)
{
	tm_install_step *st = tm_install__add_step(p, TM_INSTALL_MANUAL, path);

	st->refused = refused;
	st->manager = true;
	if (lines && lines->size) {
		tm_buf copy = TM_BUF_INIT;

		/* without its final line end: the CLI prints it as lines */
		tm_buf_put(&copy, lines->ptr, lines->size);
		while (copy.size && copy.ptr[copy.size - 1] == '\n')
			tm_buf_truncate(&copy, copy.size - 1);
		tm_install__set_data(st, &copy);
		tm_buf_release(&copy);
	}
	return st;
}

/* The config of lefthook or pre-commit, with our entries. */
static int plan_config(tm_install_plan *p, const tm_install_manager_info *m,
		       tm_strv *types_left)
{
	const char *mname = tm_install_manager_name(m->kind);
	const char *names[8];
	tm_buf data = TM_BUF_INIT, next = TM_BUF_INIT, lines = TM_BUF_INIT;
	tm_buf list = TM_BUF_INIT;
	tm_install_step *st;
	bool there = false, regular = true, pre;
	int error;

	pre = m->kind == TM_INSTALL_MANAGER_PRE_COMMIT;
	if (m->file_exists && (error = tm_install__read_file(
				       &data, &there, &regular, m->file)) < 0)
		goto done;
	ours_to_add(names, &data);
	put_names(&list, names);
	if (pre)
		tm_install_pre_commit_snippet(&lines, names, tm_buf_cstr(&data),
					      data.size);
	else
		tm_install_lefthook_snippet(&lines, names, m->format);
	if (there && !regular) {
		st = manual(p, m->file, true, &lines);
		tm_install__set_what(st,
				     "%s: '%s' is not a regular file (a "
				     "symbolic link?); add these lines to "
				     "the file it stands for, then run "
				     "install again:",
				     mname, m->file);
		error = 0;
		goto done;
	}
	if (!pre && m->format == TM_INSTALL_CONFIG_JSON && names[0]) {
		st = manual(p, m->file, true, &lines);
		tm_install__set_what(st,
				     "lefthook: threadmind does not edit JSON; "
				     "add these members to the top-level "
				     "object of '%s', then run install again:",
				     m->file);
		error = 0;
		goto done;
	}
	if (pre)
		error = tm_install_pre_commit_add(&next, types_left,
						  tm_buf_cstr(&data), data.size,
						  names);
	else if (m->format == TM_INSTALL_CONFIG_TOML)
		error = tm_install_lefthook_toml_add(&next, tm_buf_cstr(&data),
						     data.size, names);
	else
		error = tm_install_lefthook_add(&next, tm_buf_cstr(&data),
						data.size, names);
	if (error < 0) {
		st = manual(p, m->file, true, &lines);
		tm_install__set_what(st,
				     "%s: '%s' cannot be edited safely (%s); "
				     "add these lines to it by hand, then run "
				     "install again:",
				     mname, m->file, tm_error_last());
		tm_error_clear();
		error = 0;
		goto done;
	}
	st = tm_install__add_step(p, TM_INSTALL_WRITE_FILE, m->file);
	st->manager = true;
	st->done = next.size == data.size &&
		   (!data.size || !memcmp(next.ptr, data.ptr, data.size));
	if (!names[0])
		tm_install__set_what(st,
				     "%s: '%s' already calls git-threadmind "
				     "for every hook (added by hand; left "
				     "alone)",
				     mname, m->file);
	else
		tm_install__set_what(st, "%s: %s threadmind's %s in '%s' (%s)",
				     mname, st->done ? "found" : "add",
				     pre ? "hooks" : "commands", m->file,
				     tm_buf_cstr(&list));
	{
		tm_buf f = TM_BUF_INIT;

		tm_buf_printf(&f,
			      "%s runs the hooks, but '%s' does not call "
			      "threadmind (%s); run 'git threadmind install'",
			      mname, m->file, tm_buf_cstr(&list));
		st->finding = tm_buf_detach(&f);
	}
	tm_install__set_data(st, &next);
	if (there)
		tm_install__set_old(st, &data);
	else
		st->mode = 0644;
done:
	tm_buf_release(&data);
	tm_buf_release(&next);
	tm_buf_release(&lines);
	tm_buf_release(&list);
	return error;
}

/* Ours out of the hooks folder: `<hook>` and what managers moved aside. */
static int plan_cleanup(tm_install_plan *p, const char *dir, const char *suffix)
{
	size_t i;
	int error = 0;

	for (i = 0; error == 0 && tm_install_hook_names[i]; i++) {
		const char *name = tm_install_hook_names[i];
		tm_buf file = TM_BUF_INIT;
		char *path;

		tm_buf_printf(&file, "%s%s", name, suffix);
		path = tm_install__join(dir, tm_buf_cstr(&file));
		error = tm_install__plan_hook_file(p, path, name,
						   TM_INSTALL__CLEAN);
		free(path);
		tm_buf_release(&file);
	}
	return error;
}

/*
 * Whether the manager's stub of each hook is in the hooks folder; a note
 * naming the command that puts the missing ones there.
 */
static void plan_reach(tm_install_plan *p, const tm_install_manager_info *m,
		       const tm_strv *types_left)
{
	const char *mname = tm_install_manager_name(m->kind);
	tm_buf missing = TM_BUF_INIT, cmd = TM_BUF_INIT;
	tm_install_step *st;
	size_t i, n = 0;

	for (i = 0; tm_install_hook_names[i]; i++) {
		char *path = tm_install__join(m->hooks_dir,
					      tm_install_hook_names[i]);
		tm_buf data = TM_BUF_INIT;

		slurp(&data, path);
		if (tm_install_manager_stub(tm_buf_cstr(&data), data.size) !=
		    m->kind)
			tm_buf_printf(&missing, "%s%s", n++ ? ", " : "",
				      tm_install_hook_names[i]);
		tm_buf_release(&data);
		free(path);
	}
	if (m->kind == TM_INSTALL_MANAGER_LEFTHOOK) {
		tm_buf_puts(&cmd, "lefthook install");
	} else {
		tm_buf_puts(&cmd, "pre-commit install");
		/* the types its config does not list need -t */
		for (i = 0; i < types_left->n; i++)
			tm_buf_printf(&cmd, " -t %s", types_left->items[i]);
		if (types_left->n)
			for (i = 0; tm_install_hook_names[i]; i++)
				if (!tm_strv_contains(types_left,
						      tm_install_hook_names[i]))
					tm_buf_printf(&cmd, " -t %s",
						      tm_install_hook_names[i]);
	}
	st = manual(p, m->hooks_dir, false, NULL);
	st->done = n == 0;
	if (n)
		tm_install__set_what(
			st,
			"%s has not installed its hook%s %s in '%s' yet: "
			"run '%s'",
			mname, n == 1 ? "" : "s", tm_buf_cstr(&missing),
			m->hooks_dir, tm_buf_cstr(&cmd));
	else
		tm_install__set_what(st, "%s runs every hook from '%s'", mname,
				     m->hooks_dir);
	tm_buf_release(&missing);
	tm_buf_release(&cmd);
}

static int plan_husky(tm_install_plan *p, const tm_install_manager_info *m)
{
	tm_install_step *st;
	size_t i;
	int error = 0;

	for (i = 0; error == 0 && tm_install_hook_names[i]; i++) {
		char *path =
			tm_install__join(m->file, tm_install_hook_names[i]);

		error = tm_install__plan_hook_file(
			p, path, tm_install_hook_names[i], TM_INSTALL__HUSKY);
		free(path);
	}
	/* ours in husky's own files (an install before this one) */
	if (error == 0 && m->active)
		error = plan_cleanup(p, m->hooks_dir, "");
	if (error < 0)
		return error;
	st = manual(p, m->file, false, NULL);
	st->done = m->active;
	if (m->active)
		tm_install__set_what(st, "husky runs the scripts of '%s'",
				     m->file);
	else if (!strcmp(base_name(m->hooks_dir), "_"))
		tm_install__set_what(st,
				     "husky's hooks folder '%s' is missing "
				     "here: run 'npx husky' (npm install runs "
				     "it through the \"prepare\" script)",
				     m->hooks_dir);
	else
		tm_install__set_what(st,
				     "husky is not set up in this clone "
				     "(core.hooksPath is not '%s/_'): run "
				     "'npx husky' (npm install runs it through "
				     "the \"prepare\" script)",
				     m->file);
	return 0;
}

static int plan_install(tm_install_plan *p, const tm_install_manager_info *m)
{
	tm_strv types_left = TM_STRV_INIT;
	tm_buf lines = TM_BUF_INIT;
	size_t i;
	int error;

	if (m->kind == TM_INSTALL_MANAGER_HUSKY)
		return plan_husky(p, m);
	if ((error = plan_config(p, m, &types_left)) < 0)
		goto done;
	if (types_left.n) {
		tm_install_step *st;

		for (i = 0; i < types_left.n; i++)
			tm_buf_printf(&lines, "%s%s", i ? ", " : "",
				      types_left.items[i]);
		st = manual(p, m->file, false, &lines);
		tm_install__set_what(st,
				     "pre-commit: threadmind does not edit "
				     "the form of default_install_hook_types "
				     "in '%s'; add these hook types to it:",
				     m->file);
	}
	/* ours where the manager keeps the hooks it replaced, or where its
	 * stub is to go */
	if ((error = plan_cleanup(p, m->hooks_dir, "")) == 0)
		error = plan_cleanup(p, m->hooks_dir,
				     m->kind == TM_INSTALL_MANAGER_LEFTHOOK
					     ? ".old"
					     : ".legacy");
	if (error == 0)
		plan_reach(p, m, &types_left);
done:
	tm_strv_clear(&types_left);
	tm_buf_release(&lines);
	return error;
}

/* Our block out of a config file: the file as it was, or deleted when
 * install created it (nothing else left). */
static int plan_config_removal(tm_install_plan *p, const char *path,
			       tm_install_manager manager)
{
	const char *mname = tm_install_manager_name(manager);
	tm_buf data = TM_BUF_INIT, next = TM_BUF_INIT;
	tm_install_step *st;
	bool there, regular;
	int error = tm_install__read_file(&data, &there, &regular, path);

	if (error < 0 || !there || !regular ||
	    !tm_install_has_block(tm_buf_cstr(&data), data.size))
		goto done;
	if (tm_install_remove(&next, tm_buf_cstr(&data), data.size) < 0) {
		tm_error_clear();
		st = manual(p, path, false, NULL);
		tm_install__set_what(st,
				     "%s: '%s' has a '" TM_INSTALL_BEGIN
				     "' line without its '" TM_INSTALL_END
				     "' line; remove the block by hand",
				     mname, path);
		goto done;
	}
	st = tm_install__add_step(
		p, next.size ? TM_INSTALL_WRITE_FILE : TM_INSTALL_DELETE_FILE,
		path);
	st->manager = true;
	tm_install__set_what(st, "%s: %s '%s'", mname,
			     next.size ? "remove threadmind's lines from"
				       : "delete (it held only threadmind's "
					 "lines)",
			     path);
	tm_install__set_data(st, &next);
	tm_install__set_old(st, &data);
done:
	tm_buf_release(&data);
	tm_buf_release(&next);
	return error;
}

/* Every place install may have put something through a manager. */
static int plan_uninstall(tm_install_plan *p, struct tm_git *g,
			  const tm_install_manager_info *m)
{
	const char *workdir = tm_git_workdir(g);
	size_t i;
	int error = 0;
	char *path;

	if (m->kind == TM_INSTALL_MANAGER_HUSKY && !m->plain)
		for (i = 0; error == 0 && tm_install_hook_names[i]; i++) {
			path = tm_install__join(m->file,
						tm_install_hook_names[i]);
			error = tm_install__plan_hook_file(
				p, path, tm_install_hook_names[i],
				TM_INSTALL__CLEAN);
			free(path);
		}
	for (i = 0; error == 0 && lefthook_configs[i]; i++) {
		path = tm_install__join(workdir, lefthook_configs[i]);
		error = plan_config_removal(p, path,
					    TM_INSTALL_MANAGER_LEFTHOOK);
		free(path);
	}
	if (error == 0 && m->kind == TM_INSTALL_MANAGER_PRE_COMMIT)
		error = plan_config_removal(p, m->file,
					    TM_INSTALL_MANAGER_PRE_COMMIT);
	else if (error == 0) {
		path = tm_install__join(workdir, ".pre-commit-config.yaml");
		error = plan_config_removal(p, path,
					    TM_INSTALL_MANAGER_PRE_COMMIT);
		free(path);
	}
	if (error == 0)
		error = plan_cleanup(p, m->hooks_dir, ".old");
	if (error == 0)
		error = plan_cleanup(p, m->hooks_dir, ".legacy");
	return error;
}

int tm_install__plan_manager(tm_install_plan *p, struct tm_git *g,
			     bool uninstall, const char *home)
{
	tm_install_manager_info m;
	int error;

	if (!tm_git_workdir(g))
		return 0;
	if ((error = tm_install_manager_detect(&m, g, home)) < 0)
		return error;
	p->manager = m.kind;
	p->manager_file = tm_xstrdup_or_null(m.file);
	if (uninstall)
		error = plan_uninstall(p, g, &m);
	else if (m.kind && !m.plain)
		error = plan_install(p, &m);
	if (error == 0)
		error = !uninstall && m.kind && !m.plain;
	tm_install_manager_info_clear(&m);
	return error;
}
