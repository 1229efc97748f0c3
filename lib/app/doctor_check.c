/*
 * The checks of `doctor`: each one function in the table `checks`, run in
 * order over the store loaded once (see doctor.h); the repairs are in
 * doctor_fix.c.
 */
#include "doctor.h"
#include "doctor_internal.h"
#include "store_files.h"

#include "fs.h"
#include "error.h"
#include "lock.h"
#include "migrate.h"
#include "slug.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- loading ---- */

static int load(tm_doctor_ctx *c)
{
	tm_strv ids = TM_STRV_INIT;
	size_t i;
	int error;

	if (c->o->project) {
		tm_buf name = TM_BUF_INIT;
		struct stat st;
		bool found;

		if ((error = tm_id_validate(c->o->project, "project")) < 0)
			return error;
		tm_buf_printf(&name, "%s.json", c->o->project);
		found = tm_doctor_stat(&st, c->s, "projects",
				       tm_buf_cstr(&name)) ||
			tm_doctor_stat(&st, c->s, "threads", c->o->project);
		tm_buf_release(&name);
		if (!found)
			return tm_store_no_project(c->o->project);
		tm_strv_push(&ids, c->o->project);
	} else if ((error = tm_store_list_projects(&ids, c->s)) < 0) {
		return error;
	}
	c->projects = tm_xcalloc(ids.n ? ids.n : 1, sizeof(*c->projects));
	for (i = 0; error == 0 && i < ids.n; i++) {
		error = tm_doctor_project_load(&c->projects[i], c->s,
					       ids.items[i]);
		c->nprojects++;
	}
	tm_strv_clear(&ids);
	return error;
}

static void unload(tm_doctor_ctx *c)
{
	TM_FREE_ITEMS(c->projects, c->nprojects, tm_doctor_project_clear);
}

/* ---- the checks: one function each, listed in `checks` below ---- */

static int check_upgrade(tm_doctor_report *out, tm_doctor_ctx *c)
{
	tm_strv names = TM_STRV_INIT, changes = TM_STRV_INIT,
		left = TM_STRV_INIT;
	tm_buf why = TM_BUF_INIT;
	size_t i;

	/* What the upgrade would do, and what stops it (a dry run). */
	if (tm_migrate_needed(c->s, false) &&
	    tm_migrate_run(&changes, &left, c->s, true, false) == 0) {
		tm_doctor_join(&why, &left, "; ");
		if (changes.n)
			tm_doctor_add(out, TM_DOCTOR_UPGRADE,
				      TM_STORE_DIRNAME "/trees", true,
				      "'%s/trees' holds a ThreadMind 0.4 tree "
				      "index; --fix (or 'git threadmind "
				      "migrate') applies it%s%s",
				      TM_STORE_DIRNAME, left.n ? ", but " : "",
				      tm_buf_cstr(&why));
		else
			tm_doctor_add(out, TM_DOCTOR_UPGRADE,
				      TM_STORE_DIRNAME "/trees", false,
				      "the ThreadMind 0.4 upgrade cannot "
				      "finish: %s",
				      tm_buf_cstr(&why));
	}
	tm_error_clear();
	tm_strv_clear(&changes);
	tm_strv_clear(&left);
	tm_buf_release(&why);
	/* Indexes the upgrade set aside: for a human to check, then delete. */
	if (tm_doctor_list(&names, c->s, "trees") < 0)
		tm_strv_clear(&names);
	tm_error_clear();
	for (i = 0; i < names.n; i++) {
		char *file;

		if (!strstr(names.items[i], ".json.invalid"))
			continue;
		file = tm_doctor_rel("trees", names.items[i], NULL);
		tm_doctor_add(out, TM_DOCTOR_UPGRADE, file, false,
			      "'%s' is a 0.4 tree index the upgrade could not "
			      "read and set aside; check the thread files' "
			      "parentId by hand, then delete it",
			      file);
		free(file);
	}
	tm_strv_clear(&names);
	return 0;
}

static int check_config(tm_doctor_report *out, tm_doctor_ctx *c)
{
	tm_config *cfg = NULL;

	if (tm_store_load_config_strict(&cfg, c->s) < 0)
		tm_doctor_add(out, TM_DOCTOR_CONFIG,
			      TM_STORE_DIRNAME "/config.json", true,
			      "%s; it is per-user state (the active project "
			      "and thread): --fix renames it aside as "
			      "config.json.corrupt-<time> and the defaults "
			      "apply",
			      tm_error_last());
	tm_config_free(cfg);
	tm_error_clear();
	return 0;
}

static void bad_project_name(tm_doctor_report *out, const char *file)
{
	tm_doctor_add(out, TM_DOCTOR_BAD_ID, file, false,
		      "'%s': the name is not a valid project id (lower-case "
		      "letters, digits and dashes); rename it",
		      file);
}

/* Names in projects/ that are no ids (every project: not with a filter). */
static int check_project_names(tm_doctor_report *out, tm_doctor_ctx *c)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;

	if (c->o->project || tm_doctor_list(&names, c->s, "projects") < 0) {
		tm_error_clear();
		return 0;
	}
	for (i = 0; i < names.n; i++) {
		const char *n = names.items[i];
		char *id, *file;

		if (!tm_doctor_ends_with(n, ".json"))
			continue;
		id = tm_xstrndup(n, strlen(n) - strlen(".json"));
		if (tm_id_validate(id, "project") < 0) {
			file = tm_doctor_rel("projects", n, NULL);
			bad_project_name(out, file);
			free(file);
		}
		tm_error_clear();
		free(id);
	}
	tm_strv_clear(&names);
	return 0;
}

/* threads/NAME: a link, not an id, or without projects/NAME.json. */
static void check_thread_folder(tm_doctor_report *out, tm_doctor_ctx *c,
				const char *n)
{
	char *file = tm_doctor_rel("threads", n, NULL), *pname = NULL;
	tm_doctor_problem *p = NULL;
	struct stat st;

	if (!tm_doctor_stat(&st, c->s, "threads", n) ||
	    !(S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode)))
		goto done; /* a stray file: *.tmp are checked apart */
	if (tm_id_validate(n, "project") < 0) {
		tm_error_clear();
		bad_project_name(out, file);
		goto done;
	}
	pname = tm_doctor_project_file(n);
	if (S_ISLNK(st.st_mode))
		p = tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file, false,
				  "'%s' is a symbolic link; threadmind does "
				  "not follow links inside .threadmind/: "
				  "replace it with a folder",
				  file);
	else if (!tm_doctor_stat(&st, c->s, "projects",
				 strrchr(pname, '/') + 1))
		p = tm_doctor_add(out, TM_DOCTOR_NO_PROJECT, file, false,
				  "'%s' has no project file '%s', so its "
				  "threads are invisible; create the file or "
				  "move the folder away",
				  file, pname);
	if (p)
		p->project = tm_xstrdup(n);
done:
	free(pname);
	free(file);
}

static int check_thread_folders(tm_doctor_report *out, tm_doctor_ctx *c)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;

	if (c->o->project) {
		check_thread_folder(out, c, c->o->project);
		return 0;
	}
	if (tm_doctor_list(&names, c->s, "threads") < 0) {
		tm_error_clear();
		return 0;
	}
	for (i = 0; i < names.n; i++)
		check_thread_folder(out, c, names.items[i]);
	tm_strv_clear(&names);
	return 0;
}

/* Project files: readable, `id` = file name, a root thread. */
static int check_projects(tm_doctor_report *out, tm_doctor_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nprojects; i++) {
		const tm_doctor_project *pr = &c->projects[i];
		char *file = tm_doctor_project_file(pr->id);
		tm_project *proj = NULL;
		tm_doctor_problem *p = NULL;
		const char *id;
		struct stat st;

		if (!tm_doctor_stat(&st, c->s, "projects",
				    strrchr(file, '/') + 1)) {
			goto next; /* reported by check_thread_folders */
		} else if (tm_store_load_project(&proj, c->s, pr->id) < 0) {
			p = tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file,
					  false, "%s", tm_error_last());
		} else if (!(id = tm_project_get(proj, "id")) ||
			   strcmp(id, pr->id)) {
			if (id)
				p = tm_doctor_add(
					out, TM_DOCTOR_ID_MISMATCH, file, true,
					"'%s' has id '%s' but its file name "
					"says '%s' (the file name wins); "
					"--fix rewrites the id",
					file, id, pr->id);
			else
				p = tm_doctor_add(
					out, TM_DOCTOR_ID_MISMATCH, file, true,
					"'%s' has no string id; --fix "
					"writes '%s'",
					file, pr->id);
		}
		if (p)
			p->project = tm_xstrdup(pr->id);
		if (!pr->folder_error && !pr->folder_link &&
		    !tm_strv_contains(&pr->unreadable, TM_ROOT_THREAD_ID) &&
		    !tm_store_thread_exists(c->s, pr->id, TM_ROOT_THREAD_ID)) {
			char *main_file = tm_doctor_thread_file(
				pr->id, TM_ROOT_THREAD_ID);

			p = tm_doctor_add(out, TM_DOCTOR_NO_ROOT, main_file,
					  false,
					  "project '%s' has no root thread "
					  "'%s'; restore it from git or create "
					  "it (title Main, parentId null)",
					  pr->id, main_file);
			p->project = tm_xstrdup(pr->id);
			free(main_file);
		}
	next:
		tm_error_clear();
		tm_project_free(proj);
		free(file);
	}
	return 0;
}

/* Thread files, ids, orphans and cycles: the checks post-merge runs too. */
static int check_threads(tm_doctor_report *out, tm_doctor_ctx *c)
{
	tm_doctor_check_threads(out, c->projects, c->nprojects);
	return 0;
}

static int check_status(tm_doctor_report *out, tm_doctor_ctx *c)
{
	tm_buf msg = TM_BUF_INIT;
	size_t i, k;

	for (i = 0; i < c->nprojects; i++) {
		const tm_doctor_project *pr = &c->projects[i];

		for (k = 0; k < pr->n; k++) {
			const tm_thread *t = pr->threads[k];

			if (!t->status || !strcmp(t->status, TM_STATUS_DONE) ||
			    !strcmp(t->status, TM_STATUS_ABANDONED))
				continue;
			tm_buf_clear(&msg);
			tm_buf_printf(&msg,
				      "thread '%s' has an unknown status "
				      "'%s' (known: done, abandoned, or none "
				      "for active); set it with 'git "
				      "threadmind done|abandon|reopen %s'",
				      t->id, t->status, t->id);
			tm_doctor_add_thread(out, TM_DOCTOR_UNKNOWN_STATUS, pr,
					     t->id, false, tm_buf_cstr(&msg));
		}
	}
	tm_buf_release(&msg);
	return 0;
}

static int check_lock(tm_doctor_report *out, tm_doctor_ctx *c)
{
	const char *file = TM_STORE_DIRNAME "/" TM_DOCTOR_LOCK_NAME;
	char *holder = NULL;
	struct stat st;
	double age;
	bool fixable;

	if (fstatat(c->dirfd, TM_DOCTOR_LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) <
		    0 ||
	    tm_doctor_lock_is_tracked(c->s, c->o->git))
		return 0; /* a tracked lock: check_tracked says so */
	age = tm_doctor_age(&st);
	if (age <= c->o->lock_stale_after)
		return 0;
	if (tm_lock_holder_at(&holder, tm_store_dirfd(c->s),
			      tm_store_dir(c->s)) < 0)
		holder = tm_xstrdup("unknown holder");
	tm_error_clear();
	fixable = !S_ISDIR(st.st_mode) ||
		  tm_doctor_dir_is_empty(c->s, TM_DOCTOR_LOCK_NAME);
	if (fixable)
		tm_doctor_add(out, TM_DOCTOR_STALE_LOCK, file, true,
			      "'%s' (%s) has not been touched for %.0f s: it "
			      "is stale, its process is gone; --fix removes it",
			      file, holder, age);
	else
		tm_doctor_add(out, TM_DOCTOR_STALE_LOCK, file, false,
			      "'%s' is a folder with files in it, untouched "
			      "for %.0f s; remove it by hand if no program "
			      "uses it",
			      file, age);
	free(holder);
	return 0;
}

static int check_gitignore(tm_doctor_report *out, tm_doctor_ctx *c)
{
	const char *file = TM_STORE_DIRNAME "/.gitignore";
	tm_buf data = TM_BUF_INIT, list = TM_BUF_INIT;
	tm_strv missing = TM_STRV_INIT;
	int error = tm_store_read_file(&data, c->s, NULL, NULL, ".gitignore");

	if (error < 0 && error != TM_ENOTFOUND) {
		tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file, false, "%s",
			      tm_error_last());
		goto done;
	}
	tm_doctor_missing_ignores(&missing, tm_buf_cstr(&data));
	tm_doctor_join(&list, &missing, ", ");
	if (error == TM_ENOTFOUND)
		tm_doctor_add(out, TM_DOCTOR_GITIGNORE, file, true,
			      "'%s' is missing, so git would track the "
			      "per-user config.json; --fix writes it",
			      file);
	else if (missing.n)
		tm_doctor_add(out, TM_DOCTOR_GITIGNORE, file, true,
			      "'%s' does not ignore %s; --fix adds the "
			      "line%s",
			      file, tm_buf_cstr(&list),
			      missing.n > 1 ? "s" : "");
done:
	tm_error_clear();
	tm_strv_clear(&missing);
	tm_buf_release(&list);
	tm_buf_release(&data);
	return 0;
}

/*
 * Every check, in the order of the report.  To add one: write
 * `static int check_x(tm_doctor_report *out, tm_doctor_ctx *c)` (append
 * problems with tm_doctor_add; return 0, or an error that stops doctor) and
 * list it here; if it finds fixable problems, list a repair in `repairs`.
 */
/* clang-format off */
static int (*const checks[])(tm_doctor_report *, tm_doctor_ctx *) = {
	check_upgrade,
	check_config,
	check_project_names,
	check_thread_folders,
	check_projects,
	check_threads,
	check_status,
	tm_doctor_check_tracked,
	check_lock,
	tm_doctor_check_tmp,
	check_gitignore,
	tm_doctor_check_conflicts,
	tm_doctor_check_merge_driver,
	tm_doctor_check_gitattributes,
	tm_doctor_check_hooks,
	tm_doctor_check_paths,
};
/* clang-format on */

int tm_doctor_check(tm_doctor_report *out, tm_store *s,
		    const tm_doctor_options *opts)
{
	tm_doctor_options defaults = TM_DOCTOR_OPTIONS_INIT;
	tm_doctor_ctx c;
	size_t i;
	int error;

	if (!opts)
		opts = &defaults;
	if (opts->version != TM_DOCTOR_OPTIONS_VERSION)
		return tm_error_set(TM_EINVALID,
				    "doctor options of version %u, expected "
				    "%u",
				    opts->version, TM_DOCTOR_OPTIONS_VERSION);
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.o = opts;
	if ((error = tm_fs_open_dir(&c.dirfd, tm_store_dir(s))) < 0)
		return error;
	error = load(&c);
	for (i = 0; error == 0 && i < sizeof(checks) / sizeof(*checks); i++)
		error = checks[i](out, &c);
	unload(&c);
	close(c.dirfd);
	return error;
}
