/*
 * The store operations of the git hooks (see hooks.h): each decides from
 * config.json and the thread files, writes under the lock, and keeps to the
 * calling thread's deadline (deadline.h).  Printing is the CLI's
 * (git-threadmind/cmd-hook.c).
 */
#include "hooks.h"

#include "active.h"
#include "deadline.h"
#include "doctor.h"
#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "git.h"
#include "git_libgit2.h"
#include "merge.h"
#include "json.h"
#include "migrate.h"
#include "paths_index.h"
#include "stale.h"
#include "store_files.h"
#include "hooks_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- store, lock ---- */

/* A boolean config value (`git -c` included); `dflt` when unset or bad. */
bool tm_hook__config_bool(struct tm_git *g, const char *key, bool dflt)
{
	bool v = dflt;

	if (!g || tm_git_config_bool(&v, g, key, dflt) < 0)
		v = dflt;
	tm_error_clear();
	return v;
}

/*
 * Keep the note the stubs read (TM_HOOK_OFF_NOTE under this worktree's git
 * dir) in step with threadmind.hooks as the config files say it: there
 * when false, gone when true.  A value given with `git -c` for one command
 * says nothing of the files, and changes nothing.  Best effort: a note
 * that cannot be written only costs the next hook a start.
 */
static void note_hooks_off(struct tm_git *g, bool off)
{
	const char *gitdir = tm_git_gitdir(g);
	tm_buf path = TM_BUF_INIT;
	int fd;

	if (!gitdir || tm_git_config_on_command_line("threadmind.hooks"))
		return;
	tm_buf_printf(&path, "%s%s%s", gitdir,
		      gitdir[strlen(gitdir) - 1] == '/' ? "" : "/",
		      TM_HOOK_OFF_NOTE);
	if (!off) {
		unlink(tm_buf_cstr(&path));
	} else {
		char *slash = strrchr(path.ptr, '/');

		*slash = '\0';
		mkdir(tm_buf_cstr(&path), 0777);
		*slash = '/';
		/* O_TRUNC marks the time even when the note was there: the
		 * stubs compare it with the config files' */
		fd = open(tm_buf_cstr(&path),
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
			  0666);
		tm_fs_close(fd);
	}
	tm_buf_release(&path);
}

int tm_hook_open(tm_store **out_store, char **out_project)
{
	struct tm_git *g = NULL;
	tm_store *s = NULL;
	const char *workdir;
	tm_buf dir = TM_BUF_INIT;
	char *root = NULL, *project = NULL;
	struct stat st;
	size_t len;
	bool on;
	int error = 0;

	*out_store = NULL;
	if (out_project)
		*out_project = NULL;
	if (tm_git_open(&g, NULL, true) < 0)
		goto quiet;
	workdir = tm_git_workdir(g);
	on = tm_hook__config_bool(g, "threadmind.hooks", true);
	note_hooks_off(g, !on);
	if (!on || !workdir)
		goto quiet;
	len = strlen(workdir);
	while (len > 1 && workdir[len - 1] == '/')
		len--;
	root = tm_xstrndup(workdir, len);
	tm_buf_printf(&dir, "%s/%s", root, TM_STORE_DIRNAME);
	if (lstat(tm_buf_cstr(&dir), &st) < 0)
		goto quiet;
	if ((error = tm_store_open(&s, root)) < 0 ||
	    (out_project &&
	     (error = tm_store_current_project(&project, s, NULL)) < 0)) {
		tm_store_free(s);
		/* A fresh clone of a store with several projects: no project
		 * is ours to follow yet, and nothing is wrong. */
		if (error == TM_EAMBIGUOUS) {
			error = 0;
			goto quiet;
		}
		goto done;
	}
	*out_store = s;
	if (out_project)
		*out_project = project;
	goto done;
quiet:
	tm_error_clear();
done:
	tm_git_free(g);
	free(root);
	tm_buf_release(&dir);
	return error;
}

int tm_hook_lock(tm_store *s)
{
	double left = tm_deadline_left(), wait = TM_HOOK_LOCK_WAIT_MAX;

	if (left < wait)
		wait = left > 0 ? left : 0;
	return tm_store_lock_within(s, wait);
}

int tm_hook__out_of_time(void)
{
	return tm_error_set(TM_ELOCKED, "no time left to take the store lock");
}

/* ---- post-checkout ---- */

void tm_hook_follow_clear(tm_hook_follow *f)
{
	TM_FREE_ALL(f->id, f->title, f->renamed_from);
	memset(f, 0, sizeof(*f));
}

/*
 * tm_paths_index_load; a load cut short by the deadline is
 * TM_ETIMEOUT (the hook gives up quietly), never a partial list.
 */
static int index_load(tm_paths_index_list *out, tm_store *s,
		      const char *project, tm_paths_index_what want)
{
	tm_paths_index_options opts = TM_PATHS_INDEX_OPTIONS_INIT;
	int error;

	if ((error = tm_paths_index_load(out, s, project, want, &opts)) < 0)
		return error;
	if (opts.cut_short) {
		tm_paths_index_list_clear(out);
		return tm_error_set(TM_ETIMEOUT,
				    "time budget spent while reading the "
				    "threads of '%s'",
				    project);
	}
	return 0;
}

/* What post-checkout resolves for the new branch. */
struct resolved {
	char *id;      /* the thread */
	char *before;  /* the thread shown on the branch checked out before,
			  or NULL when that branch is not known */
	char *renamed; /* the old name of the branch whose branchThreads
			  entry `id` comes from, or NULL */
};

static void resolved_clear(struct resolved *r)
{
	TM_FREE_ALL(r->id, r->before, r->renamed);
	memset(r, 0, sizeof(*r));
}

/*
 * A branch renamed with `git branch -m` leaves its branchThreads entry
 * under the old name: the newest old name of `branch` (its reflog) that no
 * branch holds any more and whose entry names a thread of `project`, into
 * r->renamed and r->id.  Nothing found (or the reflog unreadable: this is
 * only a guess) leaves both NULL.
 */
static void renamed_entry(struct resolved *r, tm_store *s, const char *project,
			  tm_config *cfg, const char *branch)
{
	struct tm_git *g = tm_store_git(s);
	tm_strv old = TM_STRV_INIT;
	size_t i;

	if (!g || tm_git_branch_renamed_from(&old, g, branch) < 0)
		goto done;
	for (i = 0; i < old.n && !tm_deadline_passed(); i++) {
		const char *bt =
			tm_config_branch_thread(cfg, project, old.items[i]);
		bool exists = true;

		if (!bt || !tm_store_thread_exists(s, project, bt) ||
		    tm_git_branch_exists(&exists, g, old.items[i]) < 0 ||
		    exists)
			continue;
		r->renamed = tm_xstrdup(old.items[i]);
		r->id = tm_xstrdup(bt);
		break;
	}
done:
	tm_error_clear();
	tm_strv_clear(&old);
}

/*
 * The thread for the current branch (DESIGN.md section 3), its fallback
 * (the threads of the branch) read through the index of paths_index.h
 * rather than every file, with two additions of the checkout: the entry
 * of the name a renamed branch had, and, in place of activeThreadId, the
 * thread that was shown on the branch checked out before (HEAD's reflog),
 * which is the thread a fresh clone's `status` showed without storing it.
 */
static int active_thread(struct resolved *r, tm_store *s, const char *project,
			 tm_config *cfg)
{
	const char *branch = tm_store_branch(s);
	const char *bt = tm_config_branch_thread(cfg, project, branch);
	const char *active = tm_config_get_string(cfg, "activeThreadId");
	const tm_thread *const *threads;
	struct tm_git *g = tm_store_git(s);
	tm_paths_index_list list;
	char *prev = NULL;
	int error;

	if (bt && tm_store_thread_exists(s, project, bt))
		return tm_store_active_thread_entry_seen(&r->id, s, project,
							 cfg);
	renamed_entry(r, s, project, cfg, tm_store_branch_ref(s));
	if (r->id)
		return 0;
	if ((error = index_load(&list, s, project, TM_PATHS_INDEX_ALL)) < 0)
		return error;
	threads = (const tm_thread *const *)list.threads;
	if (g && tm_git_previous_branch(&prev, g) == 0 && prev) {
		tm_buf key = TM_BUF_INIT; /* as a thread's `branch` holds it */

		tm_config_branch_key(&key, prev);
		r->before = tm_active_resolve(
			tm_buf_cstr(&key),
			tm_config_branch_thread(cfg, project, prev), active,
			threads, list.n, NULL);
		tm_buf_release(&key);
	}
	tm_error_clear();
	r->id = tm_active_resolve(branch, bt, r->before ? r->before : active,
				  threads, list.n, NULL);
	free(prev);
	tm_paths_index_list_clear(&list);
	return 0;
}

/* Drop branchThreads[project][old], the entry a renamed branch had: its
 * thread now follows the new name (and a new branch of the old name is
 * not given it). */
static int forget_old_name(tm_store *s, const char *project, const char *old)
{
	tm_config *cfg = NULL;
	int error;

	if ((error = tm_store_load_config(&cfg, s)) == 0 &&
	    (error = tm_config_set_branch_thread(cfg, project, old, NULL)) == 0)
		error = tm_store_save_config(s, cfg);
	tm_config_free(cfg);
	return error;
}

int tm_hook_follow_branch(tm_hook_follow *out, tm_store *s, const char *project)
{
	struct resolved r = {NULL, NULL, NULL};
	tm_config *cfg = NULL;
	char *title = NULL;
	const char *branch = tm_store_branch(s), *bt, *active, *ap, *shown;
	bool changed, locked = false;
	int error;

	memset(out, 0, sizeof(*out));
	if (!branch || tm_deadline_passed())
		return 0;
	if ((error = tm_store_load_config(&cfg, s)) < 0 ||
	    (error = active_thread(&r, s, project, cfg)) < 0)
		goto done;
	active = tm_config_get_string(cfg, "activeThreadId");
	ap = tm_config_get_string(cfg, "activeProjectId");
	bt = tm_config_branch_thread(cfg, project, branch);
	changed = !active || strcmp(active, r.id) || !ap || strcmp(ap, project);
	if ((!changed && bt && !strcmp(bt, r.id)) || tm_deadline_passed())
		goto done;
	/* "changed" for the person: against what `status` showed before */
	shown = r.before ? r.before : active;
	out->switched = !shown || strcmp(shown, r.id);
	if ((error = tm_hook_lock(s)) == 0) {
		locked = true;
		if ((error = tm_store_set_active_title(s, project, r.id,
						       &title)) == 0 &&
		    r.renamed)
			error = forget_old_name(s, project, r.renamed);
	}
	if (error < 0) {
		out->switched = false;
		goto done;
	}
	if (out->switched) {
		out->title = title;
		title = NULL;
	}
	tm_error_clear();
	out->id = r.id;
	out->renamed_from = r.renamed;
	r.id = r.renamed = NULL;
done:
	if (locked)
		tm_store_unlock(s);
	free(title);
	tm_config_free(cfg);
	resolved_clear(&r);
	return error;
}

/* ---- post-commit ---- */

int tm_hook_record_branch_thread(bool *recorded, tm_store *s,
				 const char *project)
{
	const char *branch = tm_store_branch(s), *active = NULL, *ap, *bt;
	tm_config *cfg = NULL;
	bool locked = false;
	int pass, error = 0;

	if (recorded)
		*recorded = false;
	if (!branch)
		return 0;
	/* Pass 0 looks without the lock; pass 1 looks again and writes. */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1 && tm_deadline_passed()) {
			error = tm_hook__out_of_time();
			goto done;
		}
		if (pass == 1 && (error = tm_hook_lock(s)) < 0)
			goto done;
		locked = pass == 1;
		tm_config_free(cfg);
		cfg = NULL;
		if ((error = tm_store_load_config(&cfg, s)) < 0)
			goto done;
		active = tm_config_get_string(cfg, "activeThreadId");
		ap = tm_config_get_string(cfg, "activeProjectId");
		bt = tm_config_branch_thread(cfg, project, branch);
		if (!active || (ap && strcmp(ap, project)) ||
		    (bt && !strcmp(bt, active)) ||
		    !tm_store_thread_exists(s, project, active))
			goto done;
	}
	if ((error = tm_config_set_branch_thread(cfg, project, branch,
						 active)) < 0 ||
	    (error = tm_store_save_config(s, cfg)) < 0)
		goto done;
	if (recorded)
		*recorded = true;
done:
	if (locked)
		tm_store_unlock(s);
	tm_config_free(cfg);
	if (error == 0)
		tm_error_clear();
	return error;
}

int tm_hook__load_with_paths(tm_paths_index_list *out, tm_store *s,
			     const char *project)
{
	return index_load(out, s, project, TM_PATHS_INDEX_WITH_PATHS);
}

void tm_hook_touches_clear(tm_hook_touches *t)
{
	tm_strv_clear(&t->ids);
	tm_paths_renames_free(t->renames, t->nrenames);
	TM_FREE_ITEMS(t->follow, t->rename_ids.n, tm_strv_clear);
	tm_strv_clear(&t->rename_ids);
	memset(t, 0, sizeof(*t));
}

/* The entries of the threads out->ids (of `list`) that HEAD renamed: one
 * search for all of them. */
static void commit_renames(tm_hook_touches *out, struct tm_git *g,
			   const tm_paths_index_list *list)
{
	tm_strv entries = TM_STRV_INIT;
	tm_paths_rename *r = NULL, *mine;
	size_t i, k, j, n = 0, alloc = 0, nmine;

	for (i = 0; i < list->n; i++)
		if (tm_strv_contains(&out->ids, list->threads[i]->id))
			for (k = 0; k < list->threads[i]->paths.n; k++)
				tm_strv_push(&entries,
					     list->threads[i]->paths.items[k]);
	tm_strv_sort_unique(&entries);
	tm_paths_find_renames(&r, &n, g, &entries, 1);
	mine = tm_xcalloc(n + 1, sizeof(*mine));
	for (i = 0; n && i < list->n; i++) {
		const tm_thread *t = list->threads[i];

		if (!tm_strv_contains(&out->ids, t->id))
			continue;
		for (nmine = 0, j = 0; j < n; j++)
			if (tm_strv_contains(&t->paths, r[j].entry))
				mine[nmine++] = r[j];
		for (j = 0; j < nmine; j++) {
			tm_paths_rename *x;

			tm_xgrow((void **)&out->renames, &alloc,
				 out->nrenames + 1, sizeof(*out->renames));
			out->follow = tm_xrealloc(out->follow,
						  (out->nrenames + 1) *
							  sizeof(*out->follow));
			x = &out->renames[out->nrenames];
			x->entry = tm_xstrdup(mine[j].entry);
			x->to = tm_xstrdup(mine[j].to);
			memcpy(x->commit, mine[j].commit, sizeof(x->commit));
			memset(&out->follow[out->nrenames], 0,
			       sizeof(*out->follow));
			tm_paths_follow_renames(&out->follow[out->nrenames],
						&t->paths, mine, nmine);
			tm_strv_push(&out->rename_ids, t->id);
			out->nrenames++;
		}
	}
	free(mine);
	tm_paths_renames_free(r, n);
	tm_strv_clear(&entries);
}

int tm_hook_commit_touches(tm_hook_touches *out, tm_store *s,
			   const char *project)
{
	struct tm_git *g = tm_store_git(s);
	const char *head = tm_store_head(s);
	tm_paths_index_list list;
	char *dir;
	int error;

	memset(out, 0, sizeof(*out));
	if (!g || !head || tm_deadline_passed())
		return 0;
	if ((error = tm_hook__load_with_paths(&list, s, project)) < 0)
		return error;
	dir = tm_stale_threads_dir(g, tm_store_root(s), project);
	if (!tm_deadline_passed())
		error = tm_stale_commit_touches(&out->ids, g, head, dir,
						list.threads, list.n);
	if (!error && out->ids.n)
		commit_renames(out, g, &list);
	free(dir);
	tm_paths_index_list_clear(&list);
	return error;
}

bool tm_hook_replaying(tm_store *s)
{
	struct tm_git *g = tm_store_git(s);

	return g && tm_git_sequence_in_progress(g);
}

/* ---- pre-commit ---- */

/*
 * Is `path` (from the worktree root) a thread file (*json false) or a
 * project file (*json true) of the store at the root?
 */
static bool store_file(const char *path, bool *json)
{
	static const char threads[] = TM_STORE_DIRNAME "/threads/";
	static const char projects[] = TM_STORE_DIRNAME "/projects/";
	size_t n = strlen(path);

	if (!strncmp(path, threads, sizeof(threads) - 1) && n > 3 &&
	    !strcmp(path + n - 3, ".md")) {
		*json = false;
		return true;
	}
	if (!strncmp(path, projects, sizeof(projects) - 1) && n > 5 &&
	    !strcmp(path + n - 5, ".json") &&
	    !strchr(path + sizeof(projects) - 1, '/')) {
		*json = true;
		return true;
	}
	return false;
}

/* Does the staged blob of `d` hold markers in its fields? */
static bool blob_has_markers(git_repository *repo, const git_diff_delta *d,
			     bool json)
{
	git_blob *blob = NULL;
	bool found;

	if ((d->new_file.mode != GIT_FILEMODE_BLOB &&
	     d->new_file.mode != GIT_FILEMODE_BLOB_EXECUTABLE) ||
	    git_blob_lookup(&blob, repo, &d->new_file.id) < 0) {
		git_error_clear();
		return false;
	}
	found = tm_conflict_markers_in_fields(git_blob_rawcontent(blob),
					      (size_t)git_blob_rawsize(blob),
					      json);
	git_blob_free(blob);
	return found;
}

int tm_hook_staged_markers(tm_strv *files, tm_store *s)
{
	char *specs[] = {TM_STORE_DIRNAME "/threads",
			 TM_STORE_DIRNAME "/projects"};
	git_diff_options opts;
	struct tm_git *g = tm_store_git(s);
	git_repository *repo = g ? tm_git_repository(g) : NULL;
	git_object *tree = NULL;
	git_index *index = NULL;
	git_diff *diff = NULL;
	size_t i, n;
	int error = 0;

	if (!g || tm_deadline_passed())
		return 0;
	if (!repo)
		return tm_error_last_code() ? tm_error_last_code() : TM_ERROR;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (git_revparse_single(&tree, repo, "HEAD^{tree}") < 0)
		tree = NULL; /* no commit yet: everything is staged */
	git_error_clear();
	opts.pathspec.strings = specs;
	opts.pathspec.count = sizeof(specs) / sizeof(*specs);
	/* read again when the file changed since libgit2 loaded it */
	if ((error = tm_git_index_open(&index, repo)) < 0)
		goto done;
	if (git_diff_tree_to_index(&diff, repo, (git_tree *)tree, index,
				   &opts) < 0) {
		error = tm_git_error(TM_ERROR, "cannot compare the index "
					       "with HEAD");
		goto done;
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n && !tm_deadline_passed(); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		bool json;

		if (d->status != GIT_DELTA_DELETED &&
		    store_file(d->new_file.path, &json) &&
		    blob_has_markers(repo, d, json))
			tm_strv_push(files, d->new_file.path);
	}
done:
	git_diff_free(diff);
	git_index_free(index);
	git_object_free(tree);
	return error;
}

/* ---- post-merge ---- */

void tm_hook_merge_clear(tm_hook_merge *m)
{
	tm_strv_clear(&m->stale);
	free(m->stale_error);
	memset(m, 0, sizeof(*m));
}

/* The stale threads after a merge (DESIGN.md section 4) into out->stale. */
static void merge_stale(tm_hook_merge *out, tm_store *s, const char *project,
			const tm_doctor_project *p)
{
	tm_stale_report report = TM_STALE_REPORT_INIT;
	struct tm_git *g = tm_store_git(s);
	char *dir;
	size_t i;

	if (!g || tm_deadline_passed())
		return;
	dir = tm_stale_threads_dir(g, tm_store_root(s), project);
	if (tm_stale_compute(&report, g, dir,
			     (const tm_thread *const *)p->threads, p->n) < 0) {
		out->stale_error = tm_xstrdup(tm_error_last());
		tm_error_clear();
	} else {
		for (i = 0; i < report.n; i++)
			tm_strv_push(&out->stale, report.stale[i].id);
	}
	free(dir);
	tm_stale_report_clear(&report);
}

int tm_hook_merge_check(tm_hook_merge *out, tm_store *s, const char *project)
{
	tm_doctor_report report = TM_DOCTOR_REPORT_INIT;
	tm_doctor_project p;
	int error;

	memset(out, 0, sizeof(*out));
	if (tm_migrate_needed(s, false)) {
		out->upgrade = true; /* the next command upgrades it first */
		return 0;
	}
	if ((error = tm_doctor_project_load(&p, s, project)) < 0)
		goto done;
	if (p.folder_error) {
		error = tm_error_set(TM_ERROR, "%s", p.folder_error);
		goto done;
	}
	tm_doctor_check_threads(&report, &p, 1);
	out->problems = report.n;
	merge_stale(out, s, project, &p);
done:
	tm_doctor_report_clear(&report);
	tm_doctor_project_clear(&p);
	return error;
}
