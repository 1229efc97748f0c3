/*
 * The checks of `doctor` that ask git: the merge driver's config, the
 * attributes git gives the store's files, and the hooks `install` writes.
 */
#include "doctor.h"
#include "doctor_internal.h"
#include "migrate.h"
#include "install.h"
#include "store_files.h"
#include "resolve.h"

#include "error.h"
#include "git.h"
#include "git_libgit2.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tm_doctor_check_merge_driver(tm_doctor_report *out, tm_doctor_ctx *c)
{
	struct tm_git *g = c->o->git ? tm_store_git(c->s) : NULL;
	char *value = NULL;
	int error;

	if (!g)
		return 0;
	error = tm_git_config_string(&value, g, "merge.threadmind.driver");
	if (error == TM_ENOTFOUND || (error == 0 && !*value))
		tm_doctor_add(out, TM_DOCTOR_MERGE_DRIVER, NULL, false,
			      "git config merge.threadmind.driver is not "
			      "set, so thread files conflict with plain "
			      "markers; run 'git threadmind install'");
	else if (error == 0 && tm_install_driver_is_old(value))
		tm_doctor_add(out, TM_DOCTOR_MERGE_DRIVER, NULL, false,
			      "git config merge.threadmind.driver is an "
			      "old-style registration: where "
			      "git-threadmind-merge is not on the PATH, a "
			      "merge keeps only ours; run 'git threadmind "
			      "install' to upgrade it");
	tm_error_clear();
	free(value);
	return 0;
}

/* Files a merge left conflicted: unmerged in the index, or with markers. */
int tm_doctor_check_conflicts(tm_doctor_report *out, tm_doctor_ctx *c)
{
	tm_strv unmerged = TM_STRV_INIT, marked = TM_STRV_INIT;
	size_t i;

	/* a damaged .git/index (past index_file.h's bounds): a finding */
	if (tm_resolve_pending(&unmerged, &marked, c->s) == TM_EPARSE &&
	    c->o->git)
		tm_doctor_add(out, TM_DOCTOR_CONFLICT, NULL, false, "%s",
			      tm_error_last());
	tm_error_clear();
	if (!c->o->git)
		tm_strv_clear(&unmerged);
	for (i = 0; i < unmerged.n; i++)
		if (tm_migrate_is_04_index(unmerged.items[i]))
			tm_doctor_add(out, TM_DOCTOR_CONFLICT,
				      unmerged.items[i], false,
				      "'%s' is unmerged in the index: %s",
				      unmerged.items[i],
				      tm_migrate_came_back_advice());
		else
			tm_doctor_add(out, TM_DOCTOR_CONFLICT,
				      unmerged.items[i], false,
				      "'%s' is unmerged in the index (a merge "
				      "conflict); run 'git threadmind resolve'",
				      unmerged.items[i]);
	for (i = 0; i < marked.n; i++)
		if (!tm_strv_contains(&unmerged, marked.items[i]))
			tm_doctor_add(out, TM_DOCTOR_CONFLICT, marked.items[i],
				      false,
				      "'%s' holds merge conflict markers; run "
				      "'git threadmind resolve' (it re-merges "
				      "the file from them)",
				      marked.items[i]);
	tm_strv_clear(&unmerged);
	tm_strv_clear(&marked);
	return 0;
}

/* The hook name of a step: the last part of its path. */
static const char *hook_name(const tm_install_step *st)
{
	const char *slash = strrchr(st->path, '/');

	return slash ? slash + 1 : st->path;
}

/* One finding for a step `install` would carry out or leaves to a human,
 * read as a finding ("missing hook post-checkout (…)"). */
static void hook_finding(tm_doctor_report *out, const tm_install_step *st)
{
	const char *name = hook_name(st);
	const char *why;
	size_t n;

	if (st->finding) {
		tm_doctor_add(out, TM_DOCTOR_HOOKS, NULL, false, "%s",
			      st->finding);
		return;
	}
	if (st->kind == TM_INSTALL_WRITE_FILE && !st->existed) {
		tm_doctor_add(out, TM_DOCTOR_HOOKS, NULL, false,
			      "missing hook %s ('%s'); run 'git threadmind "
			      "install'",
			      name, st->path);
		return;
	}
	if (st->kind == TM_INSTALL_WRITE_FILE && st->old &&
	    (why = tm_install_block_misplaced(st->old, st->old_len, name))) {
		tm_doctor_add(out, TM_DOCTOR_HOOKS, NULL, false,
			      "the threadmind block in hook %s ('%s') %s; run "
			      "'git threadmind install' to move it",
			      name, st->path, why);
		return;
	}
	if (st->kind == TM_INSTALL_WRITE_FILE) {
		bool has =
			st->old && tm_install_has_block(st->old, st->old_len);
		bool old = st->old &&
			   tm_install_is_old_stub(st->old, st->old_len, name);

		tm_doctor_add(out, TM_DOCTOR_HOOKS, NULL, false,
			      "%s hook %s ('%s'); run 'git threadmind install'",
			      old   ? "an earlier threadmind stub is the"
			      : has ? "outdated threadmind block in"
				    : "threadmind is not called from",
			      name, st->path);
		return;
	}
	/* MANUAL: install's own sentence ends in ':' before the line. */
	n = strlen(st->what);
	if (st->data)
		tm_doctor_add(out, TM_DOCTOR_HOOKS, NULL, false, "%.*s: %s",
			      (int)(n && st->what[n - 1] == ':' ? n - 1 : n),
			      st->what, st->data);
	else
		tm_doctor_add(out, TM_DOCTOR_HOOKS, NULL, false, "%s",
			      st->what);
}

/* The hooks `install` would write or change (missing, outdated, not ours). */
int tm_doctor_check_hooks(tm_doctor_report *out, tm_doctor_ctx *c)
{
	tm_install_options opts = TM_INSTALL_OPTIONS_INIT;
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	struct tm_git *g = c->o->git ? tm_store_git(c->s) : NULL;
	size_t i, dlen;

	if (!g ||
	    tm_install_plan_make(&plan, g, tm_store_dir(c->s), &opts) < 0) {
		tm_error_clear();
		return 0;
	}
	dlen = plan.hooks_dir ? strlen(plan.hooks_dir) : 0;
	for (i = 0; i < plan.n; i++) {
		const tm_install_step *st = &plan.steps[i];

		/* the hooks, and what a hook manager needs for ours */
		if (st->done || !st->path ||
		    (!st->manager &&
		     (!dlen || strncmp(st->path, plan.hooks_dir, dlen))))
			continue;
		hook_finding(out, st);
	}
	tm_install_plan_clear(&plan);
	return 0;
}

/*
 * Does git give .threadmind/`rel` the attribute `name` = `want` (`want`
 * NULL: any state at all, set, unset or a value)?  Asked of git
 * (git_attr_get) rather than read from the file, so that every attribute
 * file counts as git would use it.  True when git cannot say (no worktree,
 * the store outside it): nothing to report then.
 */
static bool git_gives(git_repository *repo, const char *prefix, const char *rel,
		      const char *name, const char *want)
{
	tm_buf path = TM_BUF_INIT;
	const char *value = NULL;
	bool ours = true;

	tm_buf_printf(&path, "%s%s/%s", prefix, TM_STORE_DIRNAME, rel);
	if (git_attr_get(&value, repo, GIT_ATTR_CHECK_FILE_THEN_INDEX,
			 tm_buf_cstr(&path), name) == 0) {
		if (want)
			ours = git_attr_value(value) == GIT_ATTR_VALUE_STRING &&
			       !strcmp(value, want);
		else
			ours = git_attr_value(value) !=
			       GIT_ATTR_VALUE_UNSPECIFIED;
	}
	tm_buf_release(&path);
	return ours;
}

int tm_doctor_check_gitattributes(tm_doctor_report *out, tm_doctor_ctx *c)
{
	/* What each line of ours gives, asked of a path its pattern matches;
	 * the diff driver counts when the user chose another (or none). */
	static const struct {
		const char *pattern, *sample, *name, *value;
	} want[] = {
		{TM_DOCTOR_ATTR_THREADS, "threads/p/t.md", "merge",
		 "threadmind"},
		{TM_DOCTOR_ATTR_THREADS, "threads/p/t.md", "diff", NULL},
		{TM_DOCTOR_ATTR_PROJECTS, "projects/p.json", "merge",
		 "threadmind"},
	};
	const char *file = TM_STORE_DIRNAME "/.gitattributes";
	struct tm_git *g = c->o->git ? tm_store_git(c->s) : NULL;
	tm_buf list = TM_BUF_INIT, data = TM_BUF_INIT, next = TM_BUF_INIT;
	char *prefix;
	struct stat st;
	bool fixable;
	size_t i;
	int error;

	if (!g || !(prefix = tm_git_path_in_workdir(g, tm_store_root(c->s))))
		return 0;
	for (i = 0; i < sizeof(want) / sizeof(*want); i++)
		if (!git_gives(tm_git_repository(g), prefix, want[i].sample,
			       want[i].name, want[i].value))
			tm_buf_printf(
				&list, "%s'%s %s=%s'", list.size ? ", " : "",
				want[i].pattern, want[i].name,
				want[i].value ? want[i].value : "markdown");
	git_error_clear();
	tm_error_clear();
	if (!list.size)
		goto done;
	/* --fix writes our lines when the file lacks them (not when another
	 * attribute file overrides them: that one is the user's) */
	error = tm_store_read_file(&data, c->s, NULL, NULL, ".gitattributes");
	fixable =
		(error == 0 || error == TM_ENOTFOUND) &&
		tm_install_attributes_add(&next, tm_buf_cstr(&data), data.size);
	tm_error_clear();
	if (!tm_doctor_stat(&st, c->s, NULL, ".gitattributes"))
		tm_doctor_add(out, TM_DOCTOR_GITATTRIBUTES, file, fixable,
			      "'%s' is missing, so git does not use the "
			      "threadmind merge driver; --fix or 'git "
			      "threadmind install' writes it",
			      file);
	else
		tm_doctor_add(out, TM_DOCTOR_GITATTRIBUTES, file, fixable,
			      "'%s' lacks %s; %s", file, tm_buf_cstr(&list),
			      fixable ? "--fix or 'git threadmind install' "
					"adds the lines"
				      : "another attribute file overrides "
					"it, see 'git check-attr -a'");
done:
	tm_buf_release(&list);
	tm_buf_release(&data);
	tm_buf_release(&next);
	free(prefix);
	return 0;
}
