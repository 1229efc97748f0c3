/* What every command shares: the store, its project, thread arguments
 * (see cli.h). */
#include "cli.h"

#include "threadmind/resolve.h"
#include "threadmind/paths.h"
#include "threadmind/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cli_state cli;

static void config_warning(const char *msg, void *payload)
{
	(void)payload;
	warning("%s", msg);
}

static void auto_migrate(void)
{
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	size_t i;

	if (!tm_migrate_needed(cli.store, false))
		return;
	/* Never a dead end: what cannot be upgraded is a warning, and the
	 * command goes on with the thread files as they are. */
	if (tm_migrate_run(&report, &left, cli.store, false, false) < 0) {
		warning("upgrade from 0.4 not done: %s; run 'git threadmind "
			"migrate' once it is fixed",
			tm_error_last());
	} else if (report.n && !global_opts.quiet) {
		fprintf(stderr, "threadmind: upgraded .threadmind/ from "
				"ThreadMind 0.4:\n");
		for (i = 0; i < report.n; i++)
			fprintf(stderr, "  %s\n", report.items[i]);
		fprintf(stderr, "%s\n", tm_migrate_closing_line());
	}
	for (i = 0; i < left.n; i++)
		warning("%s", left.items[i]);
	tm_error_clear();
	tm_strv_clear(&report);
	tm_strv_clear(&left);
}

char *cli_work_tree(bool need)
{
	char *cwd = getcwd(NULL, 0), *top;
	tm_git *g = NULL;
	size_t len;
	int error;

	if (!cwd)
		die("cannot read the current folder: %s", strerror(errno));
	if (!need && !getenv("GIT_DIR") && !getenv("GIT_WORK_TREE"))
		return cwd;
	error = tm_git_open(&g, cwd, true);
	if (error == TM_ENOTFOUND && !getenv("GIT_DIR")) {
		tm_error_clear();
		return cwd; /* a store outside git */
	}
	if (error < 0)
		die_lib();
	if (!tm_git_workdir(g)) {
		tm_git_free(g);
		if (need)
			die("this operation must be run in a work tree");
		return cwd;
	}
	if (!getenv("GIT_WORK_TREE")) {
		char *wt = NULL;
		bool set = getenv("GIT_DIR") &&
			   tm_git_config_string(&wt, g, "core.worktree") == 0;

		tm_error_clear();
		free(wt);
		/* Found from here up as the store is; or GIT_DIR alone,
		 * where git takes the current folder as the top. */
		if (!set) {
			tm_git_free(g);
			return cwd;
		}
	}
	top = tm_xstrdup(tm_git_workdir(g));
	len = strlen(top);
	if (len > 1 && top[len - 1] == '/')
		top[len - 1] = '\0';
	tm_git_free(g);
	free(cwd);
	return top;
}

/* The store unchosen_projects found, and where from: the command's
 * cli_open takes it when it looks from there too (config.json is then
 * read once in the run). */
static tm_store *peeked;
static char *peeked_from;

static void keep_peeked(tm_store *s, char *from)
{
	tm_store_free(peeked);
	free(peeked_from);
	peeked = s;
	peeked_from = from;
}

bool cli_open_flags(unsigned flags)
{
	char *cwd = cli_work_tree(false);
	int error = 0;

	if (peeked && cwd && !strcmp(cwd, peeked_from)) {
		cli.store = peeked;
		peeked = NULL;
	} else {
		error = tm_store_discover(&cli.store, cwd);
	}
	keep_peeked(NULL, NULL);
	free(cwd);
	if (error == TM_ENOTFOUND && (flags & CLI_OPEN_QUIET_MISSING))
		return false;
	if (error < 0)
		die_lib();
	/* config.json is per-user state: read commands warn and go on. */
	tm_store_config_fallback(cli.store, config_warning, NULL);
	if (!(flags & CLI_OPEN_NO_UPGRADE))
		auto_migrate();
	if (!(flags & CLI_OPEN_NO_PROJECT) &&
	    tm_store_current_project(&cli.project, cli.store,
				     global_opts.project) < 0)
		die_lib();
	return true;
}

void cli_open(void)
{
	cli_open_flags(0);
}

bool cli_unchosen_projects(tm_strv *ids)
{
	tm_store *s = NULL;
	char *cwd, *project = NULL;
	bool unchosen = false;

	if (global_opts.project)
		return false;
	cwd = getcwd(NULL, 0);
	if (cwd && tm_store_discover(&s, cwd) == 0 &&
	    tm_store_current_project(&project, s, NULL) == TM_EAMBIGUOUS)
		unchosen = tm_store_list_projects(ids, s) == 0 && ids->n > 1;
	tm_error_clear();
	keep_peeked(s, cwd);
	free(project);
	return unchosen;
}

void cli_open_for_thread(const char *arg)
{
	tm_strv ids = TM_STRV_INIT, found = TM_STRV_INIT;
	tm_buf names = TM_BUF_INIT;
	size_t i;

	if (!cli_unchosen_projects(&ids)) {
		cli_open();
		return;
	}
	cli_open_flags(CLI_OPEN_NO_PROJECT);
	if (tm_id_validate(arg, "thread") < 0)
		die_lib();
	for (i = 0; i < ids.n; i++) {
		tm_strv threads = TM_STRV_INIT;
		char *id = NULL;

		if (tm_store_list_threads(&threads, NULL, cli.store,
					  ids.items[i]) < 0)
			die_lib();
		if (tm_id_resolve(&id, arg, &threads, "thread") == 0)
			tm_strv_push(&found, ids.items[i]);
		tm_error_clear();
		free(id);
		tm_strv_clear(&threads);
	}
	for (i = 0; i < (found.n ? found.n : ids.n); i++)
		tm_buf_printf(&names, "%s%s", i ? ", " : "",
			      (found.n ? &found : &ids)->items[i]);
	if (found.n != 1)
		die("%s '%s' in projects %s (none active); pass "
		    "--project <id>",
		    found.n ? "thread" : "no thread", arg, tm_buf_cstr(&names));
	cli.project = tm_xstrdup(found.items[0]);
	tm_buf_release(&names);
	tm_strv_clear(&found);
	tm_strv_clear(&ids);
}

bool cli_names_thread(const char *arg)
{
	tm_strv ids = TM_STRV_INIT;
	tm_store *s = NULL;
	char *cwd = cli_work_tree(false), *project = NULL;
	bool found = false;
	size_t i;
	int error;

	if (tm_store_discover(&s, cwd) == 0) {
		/* a config.json that does not parse is the command's to
		 * report; here it only must not hide the threads */
		tm_store_config_fallback(s, NULL, NULL);
		error = tm_store_current_project(&project, s,
						 global_opts.project);
		if (error == 0)
			found = tm_store_thread_exists(s, project, arg);
		else if (error == TM_EAMBIGUOUS &&
			 tm_store_list_projects(&ids, s) == 0)
			for (i = 0; i < ids.n && !found; i++)
				found = tm_store_thread_exists(s, ids.items[i],
							       arg);
	}
	tm_error_clear();
	tm_strv_clear(&ids);
	tm_store_free(s);
	free(project);
	free(cwd);
	return found;
}

void cli_normalize_paths(tm_strv *paths)
{
	tm_git *g = tm_store_git(cli.store);
	const char *top = g && tm_git_workdir(g) ? tm_git_workdir(g)
						 : tm_store_root(cli.store);
	char *cwd = getcwd(NULL, 0), *root = realpath(top, NULL), *prefix;
	tm_strv unmatched = TM_STRV_INIT;
	size_t i;

	if (!cwd)
		die("cannot read the current folder: %s", strerror(errno));
	if (!root)
		root = tm_xstrdup(top);
	prefix = tm_paths_prefix(root, cwd);
	for (i = 0; i < paths->n; i++) {
		char *entry = NULL;

		if (tm_paths_normalize(&entry, root, prefix, paths->items[i]) <
		    0)
			die_lib();
		free(paths->items[i]);
		paths->items[i] = entry;
	}
	if (g &&
	    tm_paths_unmatched(&unmatched, g, (const char *const *)paths->items,
			       paths->n, true) < 0)
		die_lib();
	for (i = 0; i < unmatched.n; i++)
		warning("'%s' matches nothing in HEAD or the work tree; kept "
			"in paths",
			unmatched.items[i]);
	tm_strv_clear(&unmatched);
	free(prefix);
	free(root);
	free(cwd);
}

/*
 * die() for `arg`, which matches no thread of `ids`: the library's message
 * and, when some ids are close enough (cli_edit_distance), "did you mean"
 * with the closest ones.
 */
static void die_no_thread(const char *arg, const tm_strv *ids)
	__attribute__((noreturn));
static void die_no_thread(const char *arg, const tm_strv *ids)
{
	char *msg = tm_xstrdup(tm_error_last());
	tm_buf hint = TM_BUF_INIT;
	int *score = tm_xcalloc(ids->n + 1, sizeof(*score));
	size_t i;

	for (i = 0; i < ids->n; i++)
		score[i] = cli_edit_distance(arg, ids->items[i]);
	tm_buf_puts(&hint, "; did you mean ");
	if (cli_closest(&hint, (const char *const *)ids->items, score, ids->n))
		tm_buf_putc(&hint, '?');
	else
		tm_buf_clear(&hint);
	free(score);
	die("%s%s", msg, tm_buf_cstr(&hint));
}

char *cli_resolve_thread(const char *arg)
{
	tm_strv ids = TM_STRV_INIT;
	char *id = NULL;
	int error;

	/* "../x" or "Foo" can name no thread: say why, not "no match". */
	if (tm_id_validate(arg, "thread") < 0 ||
	    tm_store_list_threads(&ids, NULL, cli.store, cli.project) < 0)
		die_lib();
	error = tm_id_resolve(&id, arg, &ids, "thread");
	if (error == TM_ENOTFOUND)
		die_no_thread(arg, &ids);
	if (error < 0)
		die_lib();
	tm_strv_clear(&ids);
	return id;
}

char *cli_thread_arg(int argc, const char **argv)
{
	if (argc)
		return cli_resolve_thread(argv[0]);
	return cli_active_thread(NULL, 0);
}

tm_thread *cli_load_thread(const char *id)
{
	tm_thread *t = NULL;

	if (tm_store_load_thread(&t, cli.store, cli.project, id) < 0)
		die_lib();
	return t;
}

void cli_warn_load_errors(const tm_load_errors *errors)
{
	const char *root = tm_store_root(cli.store);
	size_t i;

	for (i = 0; i < errors->n; i++) {
		const tm_load_error *e = &errors->items[i];

		if (e->kind == TM_LOAD_MARKERS)
			warning("skipping '%s/%s': it holds merge conflict "
				"markers; run 'git threadmind resolve'",
				root, e->path);
		else if (e->kind == TM_LOAD_UNMERGED)
			warning("skipping '%s/%s': a merge left it conflicted; "
				"run 'git threadmind resolve'",
				root, e->path);
		else
			warning("skipping %s", e->message);
	}
}

void cli_load_all(tm_thread_list *out)
{
	tm_load_errors errors;

	if (tm_view_load_threads(out, &errors, cli.store, cli.project) < 0)
		die_lib();
	cli_warn_load_errors(&errors);
	tm_load_errors_clear(&errors);
}

void cli_follow_moved(const tm_active_moved *m, const char *id)
{
	tm_buf now = TM_BUF_INIT, was = TM_BUF_INIT;

	tm_text_thread_name(&was, m->was_title, m->was_author);
	if (m->now_title || m->now_author) {
		tm_text_thread_name(&now, m->now_title, m->now_author);
		tm_buf_printf(&now, " (another thread with the same id)");
	} else {
		tm_buf_puts(&now, "gone");
	}
	if (m->to)
		warning("'%s' is now %s; the thread you had active, %s, is "
			"'%s': switched to it",
			m->from, tm_buf_cstr(&now), tm_buf_cstr(&was), m->to);
	else
		warning("'%s' is now %s; the thread you had active (by %s) is "
			"not in this project any more: the active thread is "
			"'%s'",
			m->from, tm_buf_cstr(&now),
			m->was_author ? m->was_author : "an unknown author",
			id);
	if (tm_store_set_active(cli.store, cli.project, id) < 0)
		warning("%s", tm_error_last());
	tm_buf_release(&now);
	tm_buf_release(&was);
}

char *cli_active_thread(const tm_thread *const *threads, size_t n)
{
	tm_active_moved moved;
	tm_config *cfg = NULL;
	char *id = NULL;

	if (tm_store_load_config(&cfg, cli.store) < 0 ||
	    tm_store_active_thread_checked(&id, &moved, cli.store, cli.project,
					   cfg, threads, n) < 0)
		die_lib();
	tm_config_free(cfg);
	if (moved.from)
		cli_follow_moved(&moved, id);
	tm_active_moved_clear(&moved);
	return id;
}

void cli_warn_skipping(const char *msg, void *payload)
{
	(void)payload;
	warning("skipping %s", msg);
}
