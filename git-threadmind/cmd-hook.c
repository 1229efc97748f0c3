/*
 * git threadmind hook <name> [args…]: what the hook stubs run (DESIGN.md
 * section 7).  Never makes git fail: always exits 0, says at most two short
 * lines on stderr, and gives up quietly past its time budget.
 */
#include "builtin.h"
#include "cli.h"

#include "lib/install.h"
#include "lib/stale.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Seconds a hook may take before it gives up quietly. */
#define BUDGET 2.0
/* The longest a hook waits for the store lock, in seconds. */
#define LOCK_WAIT_MAX 1.0
/* Lines a hook may print, and ids per line. */
#define MAX_LINES 2
#define MAX_IDS   10
/* The most post-rewrite reads from stdin. */
#define REWRITE_MAX (64u * 1024 * 1024)

static const char *const hook_usage[] = {
        "git threadmind hook <name> [<args>…]",
        NULL,
};

struct hook {
	const char *name;
	tm_store *s;
	char *project;
	struct timespec start;
	int lines;
};

static double elapsed(const struct hook *h)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - h->start.tv_sec) +
	       (double)(now.tv_nsec - h->start.tv_nsec) / 1e9;
}

static bool over_budget(const struct hook *h)
{
	return elapsed(h) > BUDGET;
}

/* One line "threadmind: …" on stderr, at most MAX_LINES per run. */
static void say(struct hook *h, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static void say(struct hook *h, const char *fmt, ...)
{
	va_list ap;

	if (global_opts.quiet || h->lines >= MAX_LINES)
		return;
	h->lines++;
	fputs("threadmind: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The library's last error as one line. */
static void say_error(struct hook *h)
{
	const char *msg = tm_error_last();

	say(h, "%s hook skipped: %s", h->name, *msg ? msg : "unknown error");
	tm_error_clear();
}

/* Append " id id …" (at most MAX_IDS, then "…"). */
static void put_ids(tm_buf *b, const tm_strv *ids)
{
	size_t i;

	for (i = 0; i < ids->n && i < MAX_IDS; i++)
		tm_buf_printf(b, " %s", ids->items[i]);
	if (ids->n > MAX_IDS)
		tm_buf_puts(b, " …");
}

static bool env_disabled(void)
{
	static const char *const off[] = {"0", "false", "no", "off"};
	const char *v = getenv("THREADMIND_HOOKS");
	size_t i;

	for (i = 0; v && i < sizeof(off) / sizeof(*off); i++)
		if (!strcasecmp(v, off[i]))
			return true;
	return false;
}

/* A boolean config value (`git -c` included); `dflt` when unset or bad. */
static bool config_bool(struct tm_git *g, const char *key, bool dflt)
{
	bool b = dflt;

	if (tm_git_config_bool(&b, g, key, dflt) < 0)
		b = dflt;
	tm_error_clear();
	return b;
}

/*
 * Take the store lock, waiting at most min(threadmind.lockTimeout,
 * LOCK_WAIT_MAX) and never past the budget.  Library calls made while it
 * is held nest inside it without waiting.
 */
static int lock(struct hook *h, tm_lock **out)
{
	tm_lock_options opts = TM_LOCK_OPTIONS_INIT;
	struct tm_git *g = tm_store_git(h->s);
	char *value = NULL, *end;
	double left = BUDGET - elapsed(h);

	opts.timeout = LOCK_WAIT_MAX;
	if (g &&
	    tm_git_config_string(&value, g, "threadmind.lockTimeout") == 0) {
		double v = strtod(value, &end);

		if (end != value && *end == '\0' && v >= 0 && v < opts.timeout)
			opts.timeout = v;
	}
	free(value);
	tm_error_clear();
	if (left < opts.timeout)
		opts.timeout = left > 0 ? left : 0;
	return tm_lock_acquire(out, tm_store_dir(h->s), &opts);
}

/* ---- post-checkout ---- */

static void post_checkout(struct hook *h, int argc, const char **argv)
{
	tm_config *cfg = NULL;
	tm_thread *t = NULL;
	tm_lock *lk = NULL;
	char *id = NULL, *old = NULL;
	const char *branch, *bt, *active, *active_project;
	bool changed;

	/* <old> <new> <flag>: flag 1 is a branch checkout */
	if (argc < 3 || strcmp(argv[2], "1"))
		return;
	branch = tm_store_branch(h->s);
	if (!branch)
		return;
	if (tm_store_load_config(&cfg, h->s) < 0 ||
	    tm_store_active_thread(&id, h->s, h->project, cfg, NULL, 0) < 0) {
		say_error(h);
		goto done;
	}
	active = tm_config_get_string(cfg, "activeThreadId");
	active_project = tm_config_get_string(cfg, "activeProjectId");
	bt = tm_config_branch_thread(cfg, h->project, branch);
	changed = !active || strcmp(active, id) || !active_project ||
	          strcmp(active_project, h->project);
	if ((!changed && bt && !strcmp(bt, id)) || over_budget(h))
		goto done;
	old = tm_xstrdup_or_null(active);
	if (lock(h, &lk) < 0 || tm_store_set_active(h->s, h->project, id) < 0) {
		say_error(h);
		goto done;
	}
	if (old && !strcmp(old, id))
		goto done;
	if (tm_store_load_thread(&t, h->s, h->project, id) == 0 && t->title)
		say(h, "active thread is now %s (%s)", id, t->title);
	else
		say(h, "active thread is now %s", id);
	tm_error_clear();
done:
	tm_lock_release(lk);
	tm_thread_free(t);
	tm_config_free(cfg);
	free(old);
	free(id);
}

/* ---- post-commit ---- */

/*
 * branchThreads[P][B] = activeThreadId, under the lock, when that thread
 * exists and the entry differs.  Only config.json is written.
 */
static void record_branch_thread(struct hook *h, const char *branch)
{
	tm_config *cfg = NULL;
	tm_lock *lk = NULL;
	const char *active, *ap, *bt;
	int pass;

	/* Pass 0 looks without the lock; pass 1 looks again and writes. */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1 && (over_budget(h) || lock(h, &lk) < 0))
			goto fail;
		tm_config_free(cfg);
		cfg = NULL;
		if (tm_store_load_config(&cfg, h->s) < 0)
			goto fail;
		active = tm_config_get_string(cfg, "activeThreadId");
		ap = tm_config_get_string(cfg, "activeProjectId");
		bt = tm_config_branch_thread(cfg, h->project, branch);
		if (!active || (ap && strcmp(ap, h->project)) ||
		    (bt && !strcmp(bt, active)) ||
		    !tm_store_thread_exists(h->s, h->project, active))
			goto done;
	}
	if (tm_config_set_branch_thread(cfg, h->project, branch, active) < 0 ||
	    tm_store_save_config(h->s, cfg) < 0)
		goto fail;
	goto done;
fail:
	if (!over_budget(h))
		say_error(h);
done:
	tm_lock_release(lk);
	tm_config_free(cfg);
	tm_error_clear();
}

/* "summaries may be outdated: <ids> (git threadmind stale)" */
static void say_stale(struct hook *h, const tm_strv *ids)
{
	tm_buf line = TM_BUF_INIT;

	if (!ids->n || over_budget(h))
		return;
	put_ids(&line, ids);
	say(h, "summaries may be outdated:%s (git threadmind stale)",
	    tm_buf_cstr(&line));
	tm_buf_release(&line);
}

/*
 * The threads whose `paths` the new commit changed without changing their
 * file: one tree diff.  Every thread file is read, as nothing tells which
 * threads have `paths` without reading them.
 */
static void commit_touches(struct hook *h)
{
	struct tm_git *g = tm_store_git(h->s);
	const char *head = tm_store_head(h->s);
	tm_strv ids = TM_STRV_INIT;
	tm_thread_list list;
	char *dir;

	if (!g || !head || over_budget(h))
		return;
	if (tm_store_load_all(&list, h->s, h->project) < 0) {
		say_error(h);
		return;
	}
	dir = tm_stale_threads_dir(g, tm_store_root(h->s), h->project);
	if (!over_budget(h) &&
	    tm_stale_commit_touches(&ids, g, head, dir,
	                            (const tm_thread *const *)list.threads,
	                            list.n) < 0)
		say_error(h);
	else
		say_stale(h, &ids);
	free(dir);
	tm_strv_clear(&ids);
	tm_thread_list_clear(&list);
}

static void post_commit(struct hook *h)
{
	const char *branch = tm_store_branch(h->s);

	if (branch)
		record_branch_thread(h, branch);
	commit_touches(h);
}

/* ---- post-merge ---- */

/* The stale threads after a merge (DESIGN.md section 4). */
static void merge_stale(struct hook *h, const tm_thread_list *list)
{
	tm_stale_report report = TM_STALE_REPORT_INIT;
	struct tm_git *g = tm_store_git(h->s);
	tm_strv ids = TM_STRV_INIT;
	char *dir;
	size_t i;

	if (!g || over_budget(h))
		return;
	dir = tm_stale_threads_dir(g, tm_store_root(h->s), h->project);
	if (tm_stale_compute(&report, g, dir,
	                     (const tm_thread *const *)list->threads,
	                     list->n) < 0) {
		say_error(h);
	} else {
		for (i = 0; i < report.n; i++)
			tm_strv_push(&ids, report.stale[i].id);
		say_stale(h, &ids);
	}
	free(dir);
	tm_strv_clear(&ids);
	tm_stale_report_clear(&report);
}

static void post_merge(struct hook *h)
{
	tm_thread_list list;
	tm_tree *tree = NULL;
	size_t i, problems;

	if (tm_migrate_needed(h->s, false))
		return; /* the next command upgrades the store first */
	if (tm_store_load_all(&list, h->s, h->project) < 0) {
		say_error(h);
		return;
	}
	problems = list.errors.n;
	if (tm_tree_build(&tree, (const tm_thread *const *)list.threads,
	                  list.n) < 0) {
		tm_error_clear();
		problems++;
	}
	for (i = 0; tree && i < tree->n; i++) {
		const tm_thread *t = tree->nodes[i].thread;

		if (tree->nodes[i].flags & (TM_TREE_ORPHAN | TM_TREE_CYCLE))
			problems++;
		if (t->field_id && strcmp(t->field_id, t->id))
			problems++;
	}
	if (problems)
		say(h,
		    "%zu problem%s in the thread tree (git threadmind doctor)",
		    problems, problems == 1 ? "" : "s");
	tm_tree_free(tree);
	merge_stale(h, &list);
	tm_thread_list_clear(&list);
}

/* ---- post-rewrite ---- */

struct rewrite {
	char old[65], new[65];
};

static int cmp_rewrite(const void *a, const void *b)
{
	return strcmp(((const struct rewrite *)a)->old,
	              ((const struct rewrite *)b)->old);
}

/* Read stdin to its end, never past the budget; false when cut short. */
static bool read_stdin(struct hook *h, tm_buf *out)
{
	char chunk[65536];

	if (isatty(STDIN_FILENO))
		return false;
	for (;;) {
		struct pollfd p = {STDIN_FILENO, POLLIN, 0};
		double left = BUDGET - elapsed(h);
		ssize_t n;
		int r;

		if (left <= 0)
			return false;
		r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		n = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		if (out->size + (size_t)n > REWRITE_MAX)
			return false;
		tm_buf_put(out, chunk, (size_t)n);
	}
}

static bool is_hex_id(const char *s, size_t n)
{
	return (n == 40 || n == 64) && strspn(s, "0123456789abcdef") >= n;
}

/* "old new [extra]" lines into a sorted array. */
static struct rewrite *parse_rewrites(size_t *out_n, const char *d)
{
	struct rewrite *r = NULL;
	size_t n = 0, alloc = 0;

	while (*d) {
		size_t lo, ln;
		const char *eol = strchr(d, '\n');
		const char *next = eol ? eol + 1 : d + strlen(d);

		lo = strcspn(d, " \n");
		if (d[lo] == ' ') {
			ln = strcspn(d + lo + 1, " \n");
			if (is_hex_id(d, lo) && is_hex_id(d + lo + 1, ln)) {
				tm_xgrow((void **)&r, &alloc, n + 1,
				         sizeof(*r));
				memcpy(r[n].old, d, lo);
				r[n].old[lo] = '\0';
				memcpy(r[n].new, d + lo + 1, ln);
				r[n].new[ln] = '\0';
				n++;
			}
		}
		d = next;
	}
	if (n)
		qsort(r, n, sizeof(*r), cmp_rewrite);
	*out_n = n;
	return r;
}

static const struct rewrite *find_rewrite(const struct rewrite *r, size_t n,
                                          const char *commit)
{
	struct rewrite key;
	size_t i, len = commit ? strlen(commit) : 0;

	if (!commit || len >= sizeof(key.old))
		return NULL;
	for (i = 0; i <= len; i++)
		key.old[i] = (char)(commit[i] >= 'A' && commit[i] <= 'F'
		                            ? commit[i] - 'A' + 'a'
		                            : commit[i]);
	return n ? bsearch(&key, r, n, sizeof(*r), cmp_rewrite) : NULL;
}

/* Set `commit` of each thread in `ids` that still names an old commit. */
static void rewrite_commits(struct hook *h, const tm_strv *ids,
                            const struct rewrite *r, size_t n)
{
	tm_strv done = TM_STRV_INIT;
	tm_buf line = TM_BUF_INIT;
	tm_lock *lk = NULL;
	size_t i;

	if (over_budget(h) || lock(h, &lk) < 0) {
		say_error(h);
		return;
	}
	for (i = 0; i < ids->n && !over_budget(h); i++) {
		const struct rewrite *w;
		tm_thread *t = NULL;

		if (tm_store_load_thread(&t, h->s, h->project, ids->items[i]) <
		    0) {
			tm_error_clear();
			continue;
		}
		w = find_rewrite(r, n, t->commit);
		if (w) {
			tm_thread_set(&t->commit, w->new);
			if (tm_store_save_thread(h->s, h->project, t) == 0)
				tm_strv_push(&done, t->id);
			tm_error_clear();
		}
		tm_thread_free(t);
	}
	tm_lock_release(lk);
	if (done.n) {
		put_ids(&line, &done);
		say(h, "re-anchored on the rewritten commits:%s",
		    tm_buf_cstr(&line));
	}
	tm_buf_release(&line);
	tm_strv_clear(&done);
}

static void post_rewrite(struct hook *h)
{
	tm_buf in = TM_BUF_INIT, line = TM_BUF_INIT;
	tm_thread_list list;
	tm_strv ids = TM_STRV_INIT;
	struct rewrite *r = NULL;
	size_t n = 0, i;
	bool rewrite;

	memset(&list, 0, sizeof(list));
	if (!read_stdin(h, &in))
		goto done;
	r = parse_rewrites(&n, tm_buf_cstr(&in));
	if (!n || over_budget(h))
		goto done;
	if (tm_store_load_all(&list, h->s, h->project) < 0) {
		say_error(h);
		goto done;
	}
	for (i = 0; i < list.n; i++)
		if (find_rewrite(r, n, list.threads[i]->commit))
			tm_strv_push(&ids, list.threads[i]->id);
	if (!ids.n)
		goto done;
	rewrite = config_bool(tm_store_git(h->s), "threadmind.rewriteCommits",
	                      false);
	if (rewrite) {
		rewrite_commits(h, &ids, r, n);
		goto done;
	}
	put_ids(&line, &ids);
	say(h, "re-anchor with git threadmind touch:%s", tm_buf_cstr(&line));
done:
	tm_thread_list_clear(&list);
	tm_strv_clear(&ids);
	tm_buf_release(&in);
	tm_buf_release(&line);
	free(r);
}

/* ---- entry point ---- */

/*
 * Open the repository as git's hooks see it, then the store at its
 * worktree root.  False (quietly) when the hook has nothing to do.
 */
static bool open_store(struct hook *h)
{
	struct tm_git *g = NULL;
	const char *workdir;
	char *root = NULL, *dir;
	bool enabled = true;
	struct stat st;
	size_t len;
	int error;

	if (tm_git_open(&g, NULL, true) < 0)
		goto quiet;
	enabled = config_bool(g, "threadmind.hooks", true);
	workdir = tm_git_workdir(g);
	if (!enabled || !workdir)
		goto quiet;
	len = strlen(workdir);
	while (len > 1 && workdir[len - 1] == '/')
		len--;
	root = tm_xstrndup(workdir, len);
	tm_git_free(g);
	g = NULL;
	dir = tm_xstrdup(root);
	dir = tm_xrealloc(dir, len + sizeof("/" TM_STORE_DIRNAME));
	memcpy(dir + len, "/" TM_STORE_DIRNAME, sizeof("/" TM_STORE_DIRNAME));
	error = lstat(dir, &st);
	free(dir);
	if (error < 0)
		goto quiet;
	if (tm_store_open(&h->s, root) < 0 ||
	    tm_store_current_project(&h->project, h->s, NULL) < 0) {
		say_error(h);
		free(root);
		return false;
	}
	free(root);
	return true;
quiet:
	tm_git_free(g);
	free(root);
	tm_error_clear();
	return false;
}

int cmd_hook(int argc, const char **argv)
{
	struct hook h;

	memset(&h, 0, sizeof(h));
	clock_gettime(CLOCK_MONOTONIC, &h.start);
	signal(SIGPIPE, SIG_IGN);
	/* asked by a person, like every command's -h; git never passes it */
	if (argc >= 2 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s\n", hook_usage[0]);
		return EXIT_USAGE;
	}
	if (argc < 2 || !tm_install_hook_known(argv[1]) || env_disabled())
		return 0;
	h.name = argv[1];
	argc -= 2;
	argv += 2;
	if (!open_store(&h))
		goto done;
	if (!strcmp(h.name, "post-checkout"))
		post_checkout(&h, argc, argv);
	else if (!strcmp(h.name, "post-commit"))
		post_commit(&h);
	else if (!strcmp(h.name, "post-merge"))
		post_merge(&h);
	else
		post_rewrite(&h);
done:
	tm_store_free(h.s);
	free(h.project);
	return 0;
}
