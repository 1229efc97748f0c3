/* The revision and thread arguments of diff and log (see revargs.h). */
#include "revargs.h"

#include <stdlib.h>
#include <string.h>

void revargs_dashdash(struct revargs *ra, int argc, const char **argv)
{
	int i;

	memset(ra, 0, sizeof(*ra));
	ra->after_dashdash = -1;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			ra->after_dashdash = argc - i - 1;
			break;
		}
}

tm_git *revargs_git(void)
{
	tm_git *g = tm_store_git(cli.store);

	if (!g)
		die("not a git repository: '%s'", tm_store_root(cli.store));
	return g;
}

const char *revargs_prefix(void)
{
	static char *prefix;

	if (!prefix)
		prefix = tm_git_path_in_workdir(revargs_git(),
						tm_store_root(cli.store));
	if (!prefix)
		die("'%s' is not inside the work tree of its repository",
		    tm_store_dir(cli.store));
	return prefix;
}

/* The ids of the threads of the project the command is about (none when
 * that project cannot be told). */
static void work_tree_ids(tm_strv *ids)
{
	char *project = NULL;

	if (tm_store_current_project(&project, cli.store,
				     global_opts.project) == 0)
		tm_store_list_threads(ids, NULL, cli.store, project);
	tm_error_clear();
	free(project);
}

/* `arg` resolved among the work tree's threads (an id or a unique
 * prefix): the id (malloc'd), or NULL when it names none. */
static char *named_thread(const char *arg)
{
	tm_strv ids = TM_STRV_INIT;
	char *id = NULL;

	if (tm_id_validate(arg, "thread") < 0) {
		tm_error_clear();
		return NULL;
	}
	work_tree_ids(&ids);
	if (tm_id_resolve(&id, arg, &ids, "thread") == TM_EAMBIGUOUS)
		die_lib();
	tm_error_clear();
	tm_strv_clear(&ids);
	return id;
}

/* A thread after `--`: resolved when it names one of the work tree, else
 * any valid id (a thread that only a commit has). */
static char *any_thread(const char *arg)
{
	char *id = named_thread(arg);

	if (id)
		return id;
	if (tm_id_validate(arg, "thread") < 0)
		die_lib();
	return tm_xstrdup(arg);
}

static void ambiguous(const char *arg) __attribute__((noreturn));
static void ambiguous(const char *arg)
{
	die("ambiguous argument '%s': unknown revision or thread; use '--' "
	    "to separate revisions from threads, as in 'git threadmind "
	    "diff [<revision>...] -- [<thread>...]'",
	    arg);
}

static void push_rev(struct revargs *ra, const char *arg)
{
	if (!tm_git_is_revision(revargs_git(), arg))
		die("bad revision '%s'", arg);
	tm_strv_push(&ra->revs, arg);
}

void revargs_split(struct revargs *ra, const char **argv, int n, bool log,
		   const char *const *usage, const struct option *opts)
{
	int before = ra->after_dashdash < 0 ? n : n - ra->after_dashdash;
	int i = 0;
	char *id;

	if (log && ra->after_dashdash < 0 && before > 0 &&
	    (id = named_thread(argv[0]))) {
		tm_strv_push_owned(&ra->threads, id);
		i = 1;
	}
	for (; i < before; i++) {
		if (ra->after_dashdash >= 0) {
			push_rev(ra, argv[i]); /* before `--`: revisions */
		} else if (!log && ra->threads.n) {
			/* diff: after a thread, threads only */
			if ((id = named_thread(argv[i])))
				tm_strv_push_owned(&ra->threads, id);
			else if (tm_git_is_revision(revargs_git(), argv[i]))
				die("a revision ('%s') comes after a thread; "
				    "revisions come first",
				    argv[i]);
			else
				ambiguous(argv[i]);
		} else if (tm_git_is_revision(revargs_git(), argv[i])) {
			tm_strv_push(&ra->revs, argv[i]);
		} else if (!log && (id = named_thread(argv[i]))) {
			tm_strv_push_owned(&ra->threads, id);
		} else {
			ambiguous(argv[i]);
		}
	}
	for (; i < n; i++)
		tm_strv_push_owned(&ra->threads, any_thread(argv[i]));
	if (log && ra->threads.n > 1)
		usage_msg(usage, opts, "log follows one thread");
}

void revargs_clear(struct revargs *ra)
{
	tm_strv_clear(&ra->revs);
	tm_strv_clear(&ra->threads);
}
