/* What every command shares (see cli.h). */
#include "cli.h"

#include "threadmind/json_cjson.h"
#include "threadmind/resolve.h"
#include "threadmind/paths.h"
#include "threadmind/text.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cli_state cli;

void cli_vreport(const char *prefix, const char *fmt, va_list ap)
{
	tm_buf out = TM_BUF_INIT;

	fflush(stdout);
	tm_text_vmessage(&out, prefix, fmt, ap);
	fwrite(out.ptr, 1, out.size, stderr);
	tm_buf_release(&out);
}

void cli_exec_signals(void)
{
	signal(SIGXFSZ, SIG_DFL);
}

const char *cli_safe(const char *s)
{
	static tm_buf ring[8];
	static unsigned next;
	tm_buf *b;

	if (!s)
		return "";
	if (!tm_text_needs_sanitize(s, strlen(s), 0))
		return s;
	b = &ring[next++ % 8];
	tm_buf_clear(b);
	tm_text_sanitize(b, s, strlen(s), 0);
	return tm_buf_cstr(b);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport("fatal: ", fmt, ap);
	va_end(ap);
	/* Freeing the store releases a lock still held: no stale .lock. */
	tm_store_free(cli.store);
	cli.store = NULL;
	exit(EXIT_FATAL);
}

void die_lib(void)
{
	const char *msg = tm_error_last();

	die("%s", *msg ? msg : "unknown error");
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport("warning: ", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (global_opts.quiet)
		return;
	va_start(ap, fmt);
	cli_vreport("", fmt, ap);
	va_end(ap);
}

void inform(const char *fmt, ...)
{
	va_list ap;

	if (global_opts.quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

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

/* The projects of a store with several and none active (and no
 * --project), sorted; false in every other case, errors included: the
 * command itself then reports them. */
static bool unchosen_projects(tm_strv *ids)
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

/* Is the long option `opt` among the options, spelled out or abbreviated
 * (parse_options rejects a prefix that is ambiguous for the command)? */
static bool has_option(int argc, const char **argv, const char *opt)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		size_t len = strlen(argv[i]);

		if (len > 2 && !strncmp(argv[i], opt, len))
			return true;
	}
	return false;
}

/* Set once a command has begun a JSON document: no hint then. */
static bool json_written;

/*
 * One hint line when this clone lacks the merge driver that the store's
 * .gitattributes asks for (install never ran here: git never runs setup
 * from a clone), at the end of an everyday command: not with -q, not after
 * JSON, not in `hook`, `prompt` (a shell prompt), `stale` (a CI gate: its
 * lines are the answer a script reads, in clones that never merge) and the
 * commands that set up or report it themselves.
 */
static void driver_hint(const char *name)
{
	static const char *const silent[] = {
		"hook",   "prompt", "init",    "install", "uninstall",
		"doctor", "help",   "migrate", "stale",
	};
	size_t i;

	if (global_opts.quiet || json_written || !cli.store)
		return;
	for (i = 0; i < sizeof(silent) / sizeof(*silent); i++)
		if (!strcmp(name, silent[i]))
			return;
	if (tm_install_driver_missing(tm_store_git(cli.store),
				      tm_store_dir(cli.store)))
		note("hint: this clone has no merge driver for .threadmind/ "
		     "(merge.threadmind.driver is not set), so merges leave "
		     "conflict markers in thread files; run 'git threadmind "
		     "install' once per clone");
}

static void print_group_header(size_t i)
{
	tm_project *p = NULL;
	const char *title;

	if (i)
		putchar('\n');
	if (tm_store_load_project(&p, cli.store, cli.project) < 0)
		tm_error_clear();
	title = p ? tm_project_get(p, "title") : NULL;
	printf("%sproject: %s%s (%s)\n", cli_c("bold"), cli.project,
	       cli_c("reset"), title ? title : "");
	tm_project_free(p);
}

int cli_run(const char *name, int (*fn)(int argc, const char **argv), int argc,
	    const char **argv)
{
	static const char *const readers[] = {"status", "tree", "list",
					      "stale"};
	tm_strv ids = TM_STRV_INIT;
	const char **copy;
	bool reader = false, as_json, header;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(readers) / sizeof(*readers); i++)
		reader |= !strcmp(name, readers[i]);
	/* -h and --help run once, with no project header */
	for (i = 1; reader && i < (size_t)argc && strcmp(argv[i], "--"); i++)
		reader = strcmp(argv[i], "-h") && strcmp(argv[i], "--help");
	if (!reader || !unchosen_projects(&ids)) {
		rc = fn(argc, argv);
		driver_hint(name);
		return rc;
	}
	as_json = has_option(argc, argv, "--json");
	header = !as_json && !has_option(argc, argv, "--dot");
	cli.json_group = as_json;
	cli.json_members = 0;
	cli.group = &ids;
	copy = tm_xmalloc(sizeof(*copy) * ((size_t)argc + 1));
	for (i = 0; i < ids.n; i++) {
		int one;

		/* Each run parses its own copy: options reorder argv. */
		memcpy(copy, argv, sizeof(*copy) * ((size_t)argc + 1));
		global_opts.project = ids.items[i];
		if (header && strcmp(name, "status")) {
			/* The header needs the store: open it as the
			 * command will, then let the command reopen it. */
			cli_open_flags(CLI_OPEN_NO_UPGRADE);
			print_group_header(i);
		} else if (header && i) {
			putchar('\n');
		}
		tm_store_free(cli.store);
		cli.store = NULL;
		free(cli.project);
		cli.project = NULL;
		fflush(stdout);
		one = fn(argc, copy);
		if (one > rc)
			rc = one;
		if (i + 1 == ids.n)
			driver_hint(name);
		tm_store_free(cli.store);
		cli.store = NULL;
		free(cli.project);
		cli.project = NULL;
	}
	global_opts.project = NULL;
	if (cli.json_group)
		fputs(cli.json_members ? "\n  }\n}\n"
				       : "{\n  \"projects\": {}\n}\n",
		      stdout);
	cli.json_group = false;
	cli.group = NULL;
	free(copy);
	tm_strv_clear(&ids);
	return rc;
}

void cli_open_for_thread(const char *arg)
{
	tm_strv ids = TM_STRV_INIT, found = TM_STRV_INIT;
	tm_buf names = TM_BUF_INIT;
	size_t i;

	if (!unchosen_projects(&ids)) {
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

/* Weights of git's suggestion distance: typed -> command name. */
#define W_SWAP   0
#define W_SUBST  2
#define W_INSERT 1
#define W_DELETE 3
#define MAX_NAME 128

static int min2(int a, int b)
{
	return a < b ? a : b;
}

int cli_edit_distance(const char *typed, const char *name)
{
	int rows[3][MAX_NAME + 1];
	int *before = rows[0], *prev = rows[1], *cur = rows[2], *t;
	size_t lt = strlen(typed), ln = strlen(name), i, j;

	if (ln > MAX_NAME)
		return CLI_SIMILARITY_FLOOR * 100;
	for (j = 0; j <= ln; j++)
		cur[j] = (int)j * W_INSERT;
	for (i = 1; i <= lt; i++) {
		t = before;
		before = prev;
		prev = cur;
		cur = t;
		cur[0] = (int)i * W_DELETE;
		for (j = 1; j <= ln; j++) {
			int c = prev[j - 1] +
				(typed[i - 1] == name[j - 1] ? 0 : W_SUBST);

			if (i > 1 && j > 1 && typed[i - 1] == name[j - 2] &&
			    typed[i - 2] == name[j - 1])
				c = min2(c, before[j - 2] + W_SWAP);
			c = min2(c, prev[j] + W_DELETE);
			c = min2(c, cur[j - 1] + W_INSERT);
			cur[j] = c;
		}
	}
	return cur[ln];
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
	int best = CLI_SIMILARITY_FLOOR;
	size_t i, n = 0, shown = 0;

	for (i = 0; i < ids->n; i++) {
		score[i] = cli_edit_distance(arg, ids->items[i]);
		if (score[i] < best)
			best = score[i];
	}
	for (i = 0; i < ids->n; i++)
		n += score[i] == best;
	for (i = 0; best < CLI_SIMILARITY_FLOOR && i < ids->n; i++) {
		if (score[i] != best)
			continue;
		shown++;
		tm_buf_printf(&hint, "%s'%s'",
			      shown == 1   ? "; did you mean "
			      : shown == n ? " or "
					   : ", ",
			      ids->items[i]);
	}
	if (shown)
		tm_buf_putc(&hint, '?');
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

/* The file of the store that `msg` (a load error) is about when it holds
 * conflict markers or is unmerged (NULL otherwise), as messages name it. */
static char *conflicted_file(const char *msg, const tm_strv *files)
{
	tm_buf b = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < files->n; i++) {
		tm_buf_clear(&b);
		tm_buf_printf(&b, "'%s/%s'", tm_store_root(cli.store),
			      files->items[i]);
		if (!strncmp(msg, b.ptr, b.size))
			return tm_buf_detach(&b);
	}
	tm_buf_release(&b);
	return NULL;
}

void cli_load_all(tm_thread_list *out)
{
	tm_strv unmerged = TM_STRV_INIT, marked = TM_STRV_INIT;
	size_t i;

	if (tm_store_load_all(out, cli.store, cli.project) < 0)
		die_lib();
	if (out->errors.n &&
	    tm_resolve_pending_loaded(&unmerged, &marked, cli.store,
				      cli.project, out) < 0)
		tm_error_clear();
	for (i = 0; i < out->errors.n; i++) {
		const char *msg = out->errors.items[i];
		char *file;

		if ((file = conflicted_file(msg, &marked)))
			warning("skipping %s: it holds merge conflict "
				"markers; run 'git threadmind resolve'",
				file);
		else if ((file = conflicted_file(msg, &unmerged)))
			warning("skipping %s: a merge left it conflicted; "
				"run 'git threadmind resolve'",
				file);
		else
			warning("skipping %s", msg);
		free(file);
	}
	tm_strv_clear(&unmerged);
	tm_strv_clear(&marked);
}

/*
 * The id config.json named for the active thread now holds another thread
 * (a same-id split gave it to someone else, DESIGN.md section 11): say so,
 * and make `id`, where that thread went (or the fallback), the active one.
 */
static void follow_moved(const tm_active_moved *m, const char *id)
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
		follow_moved(&moved, id);
	tm_active_moved_clear(&moved);
	return id;
}

void cli_warn_skipping(const char *msg, void *payload)
{
	(void)payload;
	warning("skipping %s", msg);
}

/* ---- colour ---- */

/* What a colour setting says: 1 always, 0 never, -1 auto, -2 not a word of
 * ours (a boolean then, as git's colorbool). */
static int color_word(const char *value)
{
	if (!strcasecmp(value, "always"))
		return 1;
	if (!strcasecmp(value, "never"))
		return 0;
	if (!strcasecmp(value, "auto"))
		return -1;
	return -2;
}

/*
 * The colour config `key` as git reads color.ui: always, never, auto, or a
 * boolean (true: auto).  -3 when unset; dies naming the key on a value that
 * is none of these.
 */
static int color_config(struct tm_git *g, const char *key)
{
	char *v = NULL;
	bool b;
	int w, error = tm_git_config_string(&v, g, key);

	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		return -3;
	}
	if (error < 0)
		die_lib();
	w = color_word(v);
	free(v);
	if (w != -2)
		return w;
	if (tm_git_config_bool(&b, g, key, false) < 0)
		die_lib();
	return b ? -1 : 0;
}

bool cli_color(void)
{
	static int decided = -2;
	const char *no_color = getenv("NO_COLOR"), *term;

	if (decided != -2)
		return decided;
	if (global_opts.color) {
		decided = color_word(global_opts.color);
	} else if (no_color && *no_color) {
		decided = 0;
	} else {
		struct tm_git *g = cli.store ? tm_store_git(cli.store) : NULL;

		decided = color_config(g, "color.threadmind");
		if (decided == -3)
			decided = color_config(g, "color.ui");
		if (decided == -3)
			decided = -1;
	}
	if (decided == -1) {
		term = getenv("TERM");
		decided = isatty(STDOUT_FILENO) && term && *term &&
			  strcmp(term, "dumb");
	}
	return decided;
}

const char *cli_c(const char *name)
{
	static const struct {
		const char *name, *seq;
	} colors[] = {
		{"red", "\033[31m"},    {"green", "\033[32m"},
		{"yellow", "\033[33m"}, {"blue", "\033[34m"},
		{"cyan", "\033[36m"},   {"dim", "\033[2m"},
		{"bold", "\033[1m"},    {"reset", "\033[m"},
	};
	size_t i;

	if (!cli_color())
		return "";
	for (i = 0; i < sizeof(colors) / sizeof(*colors); i++)
		if (!strcmp(colors[i].name, name))
			return colors[i].seq;
	return "";
}

bool cli_unicode(void)
{
	const char *cs;

	if (global_opts.ascii)
		return false;
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

/* ---- JSON ---- */

void cli_json_text(tm_buf *out, const cJSON *v)
{
	tm_buf raw = TM_BUF_INIT;

	tm_json_stringify(&raw, v);
	tm_text_json_escape(out, raw.ptr, raw.size);
	tm_buf_release(&raw);
}

void cli_json_begin(void)
{
	tm_buf key = TM_BUF_INIT;
	cJSON *name;

	json_written = true;
	if (!cli.json_group)
		return;
	fputs(cli.json_members++ ? ",\n    " : "{\n  \"projects\": {\n    ",
	      stdout);
	name = cJSON_CreateString(cli.project);
	cli_json_text(&key, name);
	cJSON_Delete(name);
	tm_buf_puts(&key, ": ");
	fwrite(key.ptr, 1, key.size, stdout);
	tm_buf_release(&key);
}

static void put_spaces(size_t n)
{
	static const char spaces[] = "                                ";
	size_t chunk;

	while (n) {
		chunk = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		fwrite(spaces, 1, chunk, stdout);
		n -= chunk;
	}
}

void cli_json_put_indented(const char *text, size_t len, size_t indent)
{
	const char *end = text + len, *nl;

	if (cli.json_group)
		indent += 4;
	while (indent && (nl = memchr(text, '\n', (size_t)(end - text)))) {
		fwrite(text, 1, (size_t)(nl + 1 - text), stdout);
		put_spaces(indent);
		text = nl + 1;
	}
	fwrite(text, 1, (size_t)(end - text), stdout);
}

void cli_json_put(const char *text, size_t len)
{
	cli_json_put_indented(text, len, 0);
}

void cli_json_puts(const char *text)
{
	cli_json_put(text, strlen(text));
}

void cli_json_end(void)
{
	if (!cli.json_group)
		putchar('\n');
}

void cli_print_json(cJSON *doc)
{
	tm_buf out = TM_BUF_INIT;

	cli_json_text(&out, doc);
	cJSON_Delete(doc);
	cli_json_begin();
	cli_json_put(out.ptr, out.size);
	cli_json_end();
	tm_buf_release(&out);
}

static void add_string_or_null(cJSON *o, const char *key, const char *value)
{
	if (value)
		cJSON_AddStringToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *cli_thread_json(const tm_thread *t, bool active, unsigned flags)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {{TM_TREE_ORPHAN, "orphan"},
		     {TM_TREE_CYCLE, "cycle"},
		     {CLI_FLAG_STALE, "stale"},
		     {CLI_FLAG_UNREADABLE, "unreadable"},
		     {CLI_FLAG_UNINTEGRATED, "unintegrated"}};
	cJSON *o = cJSON_CreateObject(), *arr;
	size_t i;

	add_string_or_null(o, "id", t->id);
	add_string_or_null(o, "title", t->title);
	add_string_or_null(o, "parentId", t->parent_id);
	add_string_or_null(o, "author", t->author);
	add_string_or_null(o, "createdAt", t->created_at);
	add_string_or_null(o, "updatedAt", t->updated_at);
	add_string_or_null(o, "status", t->status);
	add_string_or_null(o, "branch", t->branch);
	add_string_or_null(o, "commit", t->commit);
	arr = cJSON_AddArrayToObject(o, "paths");
	for (i = 0; i < t->paths.n; i++)
		cJSON_AddItemToArray(arr,
				     cJSON_CreateString(t->paths.items[i]));
	add_string_or_null(o, "mergedInto", t->merged_into);
	cJSON_AddBoolToObject(o, "active", active);
	arr = cJSON_AddArrayToObject(o, "flags");
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (flags & names[i].bit)
			cJSON_AddItemToArray(arr,
					     cJSON_CreateString(names[i].name));
	return o;
}
