/*
 * git threadmind hook <name> [args…]: what the hook stubs run (DESIGN.md
 * section 7).  Never makes git fail: exits 0, says at most two short lines
 * on stderr, and gives up quietly past its time budget.  The one exception
 * is pre-commit's refusal of conflict markers in a staged frontmatter
 * (exit 1, which its stub passes on to git).
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/deadline.h"
#include "threadmind/error.h"
#include "threadmind/hooks.h"
#include "threadmind/install.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
	int lines;
};

/* One line "threadmind: …" on stderr, at most MAX_LINES per run. */
static void say(struct hook *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct hook *h, const char *fmt, ...)
{
	va_list ap;

	if (global_opts.quiet || h->lines >= MAX_LINES)
		return;
	h->lines++;
	va_start(ap, fmt);
	cli_vreport("threadmind: ", fmt, ap);
	va_end(ap);
}

/* The library's last error as one line. */
static void say_error(struct hook *h)
{
	const char *msg = tm_error_last();

	/* past the budget the hook gives up quietly */
	if (tm_error_last_code() != TM_ETIMEOUT && !tm_deadline_passed())
		say(h, "%s hook skipped: %s", h->name,
		    *msg ? msg : "unknown error");
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

/* "summaries may be outdated: <ids> (git threadmind stale)" */
static void say_stale(struct hook *h, const tm_strv *ids)
{
	tm_buf line = TM_BUF_INIT;

	if (!ids->n || tm_deadline_passed())
		return;
	put_ids(&line, ids);
	say(h, "summaries may be outdated:%s (git threadmind stale)",
	    tm_buf_cstr(&line));
	tm_buf_release(&line);
}

/*
 * The pre-commit framework runs its hooks without git's arguments, and
 * gives them in its environment instead (PRE_COMMIT_FROM_REF,
 * PRE_COMMIT_TO_REF, PRE_COMMIT_CHECKOUT_TYPE for post-checkout,
 * PRE_COMMIT_REWRITE_COMMAND for post-rewrite): taken when git's are
 * missing.
 */
static const char *pre_commit_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static void post_checkout(struct hook *h, int argc, const char **argv)
{
	const char *env[3];
	tm_hook_follow f;

	if (argc == 0) {
		env[0] = pre_commit_env("PRE_COMMIT_FROM_REF");
		env[1] = pre_commit_env("PRE_COMMIT_TO_REF");
		env[2] = pre_commit_env("PRE_COMMIT_CHECKOUT_TYPE");
		if (env[0] && env[1] && env[2]) {
			argc = 3;
			argv = env;
		}
	}
	/* <old> <new> <flag>: flag 1 is a branch checkout */
	if (argc < 3 || strcmp(argv[2], "1"))
		return;
	if (tm_hook_follow_branch(&f, h->s, h->project) < 0)
		say_error(h);
	else if (f.switched && f.title)
		say(h, "active thread is now %s (%s)", f.id, f.title);
	else if (f.switched)
		say(h, "active thread is now %s", f.id);
	tm_hook_follow_clear(&f);
}

/* "'<entry>' of <id> was renamed '<to>': git threadmind set <id>
 * paths=<…>" for the first rename (and how many more). */
static void say_renamed(struct hook *h, const tm_hook_touches *t)
{
	tm_buf paths = TM_BUF_INIT;
	size_t k;

	if (!t->nrenames || tm_deadline_passed())
		return;
	for (k = 0; k < t->follow[0].n; k++)
		tm_buf_printf(&paths, "%s%s", k ? "," : "",
			      t->follow[0].items[k]);
	say(h, "%s: '%s' renamed to '%s'%s (git threadmind set %s paths=%s)",
	    t->rename_ids.items[0], t->renames[0].entry, t->renames[0].to,
	    t->nrenames > 1 ? ", and more" : "", t->rename_ids.items[0],
	    tm_buf_cstr(&paths));
	tm_buf_release(&paths);
}

static void post_commit(struct hook *h)
{
	tm_hook_touches t;

	/* each replayed commit of a rebase would say the same: post-rewrite
	 * says it once */
	if (tm_hook_replaying(h->s))
		return;
	if (tm_hook_record_branch_thread(NULL, h->s, h->project) < 0)
		say_error(h);
	if (tm_hook_commit_touches(&t, h->s, h->project) < 0) {
		say_error(h);
	} else {
		say_stale(h, &t.ids);
		say_renamed(h, &t);
	}
	tm_hook_touches_clear(&t);
}

static void post_merge(struct hook *h)
{
	tm_hook_merge m;

	if (tm_hook_merge_check(&m, h->s, h->project) < 0) {
		say_error(h);
		return;
	}
	if (m.problems)
		say(h,
		    "%zu problem%s in the thread tree (git threadmind doctor)",
		    m.problems, m.problems == 1 ? "" : "s");
	if (m.stale_error && !tm_deadline_passed())
		say(h, "%s hook skipped: %s", h->name, m.stale_error);
	else
		say_stale(h, &m.stale);
	tm_hook_merge_clear(&m);
}

/* Read stdin to its end, never past the budget; false when cut short. */
static bool read_stdin(tm_buf *out)
{
	char chunk[65536];

	if (isatty(STDIN_FILENO))
		return false;
	for (;;) {
		struct pollfd p = {STDIN_FILENO, POLLIN, 0};
		double left = tm_deadline_left();
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

static void post_rewrite(struct hook *h, int argc, const char **argv)
{
	tm_buf in = TM_BUF_INIT, line = TM_BUF_INIT;
	tm_hook_rewrites rw = {NULL, 0};
	tm_hook_rewrite_result r;
	tm_strv touched = TM_STRV_INIT;
	const char *command =
		argc >= 1 ? argv[0]
			  : pre_commit_env("PRE_COMMIT_REWRITE_COMMAND");

	memset(&r, 0, sizeof(r));
	/* never from a terminal: a person typing the command */
	if (!isatty(STDIN_FILENO) && !read_stdin(&in))
		goto done;
	tm_hook_rewrites_parse(&rw, tm_buf_cstr(&in));
	/* a manager that gives no stdin (pre-commit): git's own files */
	if (!rw.n) {
		tm_buf_clear(&in);
		tm_hook_rewrite_list_from_git(&in, h->s, command);
		tm_hook_rewrites_clear(&rw);
		tm_hook_rewrites_parse(&rw, tm_buf_cstr(&in));
	}
	/* post-commit was quiet for the replayed commits (an amend had its
	 * own post-commit) */
	if (command && !strcmp(command, "rebase")) {
		if (tm_hook_rewrite_touches(&touched, h->s, h->project, &rw) <
		    0)
			say_error(h);
		else
			say_stale(h, &touched);
	}
	if (tm_hook_rewrite_commits(&r, h->s, h->project, &rw) < 0) {
		say_error(h);
	} else if (r.rewritten.n) {
		put_ids(&line, &r.rewritten);
		say(h, "re-anchored on the rewritten commits:%s",
		    tm_buf_cstr(&line));
	} else if (r.anchored.n && !r.rewrite) {
		put_ids(&line, &r.anchored);
		say(h, "re-anchor with git threadmind touch:%s",
		    tm_buf_cstr(&line));
	}
done:
	tm_strv_clear(&touched);
	tm_hook_rewrite_result_clear(&r);
	tm_hook_rewrites_clear(&rw);
	tm_buf_release(&in);
	tm_buf_release(&line);
}

/*
 * Refuse a commit of thread or project files whose frontmatter holds
 * conflict markers: EXIT_NEGATIVE (the stub's `exit 1`) after two lines;
 * 0 in every other case, errors included (nothing else is ever blocked).
 */
static int pre_commit(struct hook *h)
{
	tm_strv files = TM_STRV_INIT;
	tm_buf names = TM_BUF_INIT;
	size_t i;
	int rc = 0;

	if (tm_hook_staged_markers(&files, h->s) < 0) {
		say_error(h);
		goto done;
	}
	if (!files.n)
		goto done;
	for (i = 0; i < files.n && i < MAX_IDS; i++)
		tm_buf_printf(&names, "%s'%s'", i ? " " : "", files.items[i]);
	if (files.n > MAX_IDS)
		tm_buf_puts(&names, " …");
	/* never silenced: it is why the commit did not happen */
	fprintf(stderr,
		"threadmind: commit refused: conflict markers in the "
		"frontmatter of %s\n",
		cli_safe(tm_buf_cstr(&names)));
	if (files.n == 1)
		fprintf(stderr,
			"threadmind: run 'git threadmind resolve %s', then "
			"commit again (--no-verify commits anyway)\n",
			cli_safe(files.items[0]));
	else
		fputs("threadmind: run 'git threadmind resolve <file>' for "
		      "each, then commit again (--no-verify commits "
		      "anyway)\n",
		      stderr);
	rc = EXIT_NEGATIVE;
done:
	tm_strv_clear(&files);
	tm_buf_release(&names);
	return rc;
}

/* ---- entry point ---- */

/*
 * The budget: TM_HOOK_BUDGET, or a shorter one from THREADMIND_HOOK_BUDGET
 * (seconds; for tests, docs/hooks.md), which can never make it longer.
 */
static double budget_seconds(void)
{
	const char *v = getenv("THREADMIND_HOOK_BUDGET");
	char *end;
	double d;

	if (!v || !*v)
		return TM_HOOK_BUDGET;
	errno = 0;
	d = strtod(v, &end);
	if (errno || *end || !(d >= 0) || d > TM_HOOK_BUDGET)
		return TM_HOOK_BUDGET;
	return d;
}

int cmd_hook(int argc, const char **argv)
{
	struct hook h;
	bool pre;
	int rc = 0;

	memset(&h, 0, sizeof(h));
	/* one clock for the steps (hooks.h) and inside long reads; what is
	   left past it is for the start-up before here and the exit */
	tm_deadline_set(budget_seconds() - TM_HOOK_MARGIN);
	signal(SIGPIPE, SIG_IGN);
	/* asked by a person, like every command's -h and --help; git never
	 * passes them */
	if (argc >= 2 && !strcmp(argv[1], "--help"))
		open_manual();
	if (argc >= 2 && !strcmp(argv[1], "-h")) {
		printf("usage: %s\n", hook_usage[0]);
		return EXIT_USAGE;
	}
	if (argc < 2 || !tm_install_hook_known(argv[1]) || env_disabled())
		return 0;
	h.name = argv[1];
	argc -= 2;
	argv += 2;
	pre = !strcmp(h.name, "pre-commit");
	if (tm_hook_open(&h.s, pre ? NULL : &h.project) < 0)
		say_error(&h);
	if (!h.s)
		goto done;
	if (pre)
		rc = pre_commit(&h);
	else if (!strcmp(h.name, "post-checkout"))
		post_checkout(&h, argc, argv);
	else if (!strcmp(h.name, "post-commit"))
		post_commit(&h);
	else if (!strcmp(h.name, "post-merge"))
		post_merge(&h);
	else
		post_rewrite(&h, argc, argv);
	/* gave up: git has waited long enough, no time spent freeing */
	if (tm_deadline_passed())
		exit(rc);
done:
	tm_store_free(h.s);
	free(h.project);
	return rc;
}
