/*
 * git threadmind install / uninstall: the merge driver config,
 * .threadmind/.gitattributes and the hooks (DESIGN.md section 7).  The
 * plan and the writing are lib/install*.c; this file prints the plan, as
 * shell commands with --manual.
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/install.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const install_usage[] = {
	"git threadmind install [--global] [--manual]",
	NULL,
};

static const char *const uninstall_usage[] = {
	"git threadmind uninstall [--global] [--attributes] [--manual]",
	NULL,
};

/* Open the repository (NULL outside one) and the store (NULL when none). */
static void open_repo(struct tm_git **g, tm_store **s)
{
	char *cwd = getcwd(NULL, 0);
	int error;

	if (!cwd)
		die("cannot read the current folder: %s", strerror(errno));
	*g = NULL;
	*s = NULL;
	error = tm_git_open(g, NULL, true);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		*g = NULL;
	} else if (error < 0) {
		die_lib();
	}
	if (*g && tm_git_workdir(*g)) {
		error = tm_store_discover(s, cwd);
		if (error == TM_ENOTFOUND) {
			tm_error_clear();
			*s = NULL;
		} else if (error < 0) {
			die_lib();
		}
	}
	free(cwd);
}

/* `data` line by line on stderr, each after `prefix`. */
static void print_lines(const char *prefix, const char *data)
{
	const char *p = data, *nl;

	for (; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			fprintf(stderr, "%s%s\n", prefix, p);
			break;
		}
		fprintf(stderr, "%s%.*s\n", prefix, (int)(nl - p), p);
	}
}

/* Print the refused steps with their line to add; how many. */
static size_t print_refusals(const tm_install_plan *plan)
{
	size_t i, n = 0;

	for (i = 0; i < plan->n; i++) {
		const tm_install_step *st = &plan->steps[i];

		if (st->kind != TM_INSTALL_MANUAL || st->done || !st->refused)
			continue;
		fprintf(stderr, "error: %s\n", st->what);
		print_lines("    ", st->data);
		n++;
	}
	return n;
}

/* ---- --manual: the plan as shell commands ---- */

/* `s` single-quoted for sh (`'it'\''s'`). */
static void sh_quote(tm_buf *out, const char *s)
{
	tm_buf_putc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			tm_buf_puts(out, "'\\''");
		else
			tm_buf_putc(out, *s);
	}
	tm_buf_putc(out, '\'');
}

#define HEREDOC "THREADMIND_EOF"

/*
 * Whether a here-document can carry the bytes exactly: text ending in a
 * line end, without a NUL, and without a line that reads HEREDOC (even
 * with a CR before its LF).
 */
static bool heredoc_ok(const char *d, size_t len)
{
	const size_t n = strlen(HEREDOC);
	const char *p = d, *end = d + len, *nl;
	size_t ll;

	if (len == 0 || d[len - 1] != '\n' || memchr(d, '\0', len))
		return false;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		ll = (size_t)(nl - p);
		if (ll && p[ll - 1] == '\r')
			ll--;
		if (ll == n && !memcmp(p, HEREDOC, n))
			return false;
	}
	return true;
}

static void script_write(tm_buf *out, const tm_install_step *st)
{
	const char *slash = strrchr(st->path, '/');

	if (st->make_dir && slash && slash != st->path) {
		char *dir = tm_xstrndup(st->path, (size_t)(slash - st->path));

		tm_buf_puts(out, "mkdir -p ");
		sh_quote(out, dir);
		tm_buf_putc(out, '\n');
		free(dir);
	}
	if (heredoc_ok(st->data, st->len)) {
		tm_buf_puts(out, "cat >");
		sh_quote(out, st->path);
		tm_buf_puts(out, " <<'" HEREDOC "'\n");
		tm_buf_put(out, st->data, st->len);
		tm_buf_puts(out, HEREDOC "\n");
	} else {
		tm_buf_puts(out, "printf '%s' ");
		sh_quote(out, st->data);
		tm_buf_puts(out, " >");
		sh_quote(out, st->path);
		tm_buf_putc(out, '\n');
	}
	if (!st->existed && st->mode) {
		tm_buf_printf(out, "chmod %o ", st->mode);
		sh_quote(out, st->path);
		tm_buf_putc(out, '\n');
	}
}

/*
 * A step as shell commands a person can run instead: `git config
 * [--global] KEY 'VALUE'`, `git config [--global] --unset KEY`, `mkdir -p`
 * + `cat > FILE <<'EOF'` ... `EOF` (or `printf` when a here-document cannot
 * hold the bytes; + `chmod` for a new file's mode), `rm FILE`; a MANUAL
 * step as `#` comment lines with the line to add.  Every step starts with
 * `# ` + `what`; a done step is only that comment, saying it is done.
 * Paths and values are single-quoted for sh.
 */
static void step_script_body(tm_buf *out, const tm_install_step *st);

static void step_script(tm_buf *out, const tm_install_step *st)
{
	if (st->done) {
		tm_buf_printf(out, "# already done: %s\n", st->what);
		return;
	}
	tm_buf_printf(out, "# %s\n", st->what);
	step_script_body(out, st);
}

/* The commands of a step that is not done (step_script without its
 * first comment). */
static void step_script_body(tm_buf *out, const tm_install_step *st)
{
	const char *p, *nl;

	switch (st->kind) {
	case TM_INSTALL_SET_CONFIG:
	case TM_INSTALL_UNSET_CONFIG:
		tm_buf_puts(out, "git config ");
		if (st->global)
			tm_buf_puts(out, "--global ");
		if (st->kind == TM_INSTALL_UNSET_CONFIG)
			tm_buf_puts(out, "--unset ");
		tm_buf_puts(out, st->key);
		if (st->kind == TM_INSTALL_SET_CONFIG) {
			tm_buf_putc(out, ' ');
			sh_quote(out, st->value);
		}
		tm_buf_putc(out, '\n');
		break;
	case TM_INSTALL_WRITE_FILE:
		script_write(out, st);
		break;
	case TM_INSTALL_DELETE_FILE:
		tm_buf_puts(out, "rm ");
		sh_quote(out, st->path);
		tm_buf_putc(out, '\n');
		break;
	case TM_INSTALL_MANUAL:
		for (p = st->data; p && *p; p = nl + 1) {
			nl = strchr(p, '\n');
			tm_buf_printf(out, "#     %.*s\n",
				      (int)(nl ? nl - p : (ptrdiff_t)strlen(p)),
				      p);
			if (!nl)
				break;
		}
		break;
	}
}

/*
 * A manager's file that install edits: the lines it adds (those between
 * our comment lines), as comments, before the command that writes it.
 */
static void put_snippet(tm_buf *out, const tm_install_step *st)
{
	/* no data is no line (NULL + 0 is undefined, in C) */
	const char *p = st->data, *end = p ? p + st->len : p, *nl;
	bool in = false;

	if (st->kind != TM_INSTALL_WRITE_FILE || !st->manager || st->done)
		return;
	tm_buf_puts(out, "# the lines threadmind adds:\n");
	for (; p < end; p = nl + 1) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (n == strlen(TM_INSTALL_BEGIN) &&
		    !memcmp(p, TM_INSTALL_BEGIN, n))
			in = true;
		else if (n == strlen(TM_INSTALL_END) &&
			 !memcmp(p, TM_INSTALL_END, n))
			in = false;
		else if (in && !(n && p[0] == '#'))
			tm_buf_printf(out, "#   %.*s\n", (int)n, p);
	}
}

static void print_manual(const tm_install_plan *plan)
{
	tm_buf out = TM_BUF_INIT;
	size_t i;

	if (plan->manager && plan->manager_file)
		tm_buf_printf(&out,
			      "# %s runs the hooks: threadmind goes into "
			      "'%s'\n\n",
			      tm_install_manager_name(plan->manager),
			      plan->manager_file);
	for (i = 0; i < plan->n; i++) {
		if (i)
			tm_buf_putc(&out, '\n');
		if (!plan->steps[i].done) {
			tm_buf_printf(&out, "# %s\n", plan->steps[i].what);
			put_snippet(&out, &plan->steps[i]);
			step_script_body(&out, &plan->steps[i]);
			continue;
		}
		step_script(&out, &plan->steps[i]);
	}
	fwrite(out.ptr ? out.ptr : "", 1, out.size, stdout);
	tm_buf_release(&out);
}

/* Steps left to the user (uninstall): warnings with the line to remove. */
static void print_notes(const tm_install_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		const tm_install_step *st = &plan->steps[i];

		if (st->kind != TM_INSTALL_MANUAL || st->done || st->refused)
			continue;
		warning("%s", st->what);
		print_lines("    ", st->data);
	}
}

static int run(bool uninstall, bool global, bool manual, bool attributes)
{
	tm_install_options opts = TM_INSTALL_OPTIONS_INIT;
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	struct tm_git *g;
	tm_store *s;
	size_t i, applied = 0;
	int error;

	open_repo(&g, &s);
	if (!g && !global)
		die("not a git repository; run 'git threadmind %s' inside "
		    "one (or use --global for the merge driver config alone)",
		    uninstall ? "uninstall" : "install");
	if (g && !s && !uninstall && !global)
		die("not a ThreadMind repository (no .threadmind folder); run "
		    "'git threadmind init' first");
	if (!s && !uninstall && !manual)
		note("no .threadmind folder here: only the %s",
		     g ? "merge driver config and the hooks are installed"
		       : "global merge driver config is installed");
	opts.uninstall = uninstall;
	opts.global = global;
	opts.attributes = attributes;
	opts.home = getenv("HOME");
	if (tm_install_plan_make(&plan, g, s ? tm_store_dir(s) : NULL, &opts) <
	    0)
		die_lib();
	if (!uninstall && tm_install_plan_refused(&plan)) {
		size_t n = print_refusals(&plan);

		die("nothing was installed: see the hook%s above, then run "
		    "'git threadmind install' again",
		    n == 1 ? "" : "s");
	}
	if (manual) {
		print_manual(&plan);
		goto done;
	}
	error = tm_install_apply(&plan);
	for (i = 0; i < plan.n; i++)
		if (plan.steps[i].applied) {
			inform("%s", plan.steps[i].what);
			applied++;
		}
	if (error < 0)
		die_lib();
	print_notes(&plan);
	if (!applied && uninstall)
		inform("nothing to uninstall");
	else if (!applied && plan.manager && plan.manager_file)
		inform("ThreadMind is already installed (hooks run by %s "
		       "from '%s')",
		       tm_install_manager_name(plan.manager),
		       plan.manager_file);
	else if (!applied && plan.hooks_dir)
		inform("ThreadMind is already installed (hooks in '%s')",
		       plan.hooks_dir);
	else if (!applied)
		inform("ThreadMind's merge driver is already installed");
	/* What this clone needed, every other clone needs too (on stdout,
	 * with the steps: stderr stays for problems). */
	if (!uninstall && s && !global)
		inform("%s", CLI_TEAMMATE_HINT);
done:
	tm_install_plan_clear(&plan);
	tm_store_free(s);
	tm_git_free(g);
	return 0;
}

int cmd_install(int argc, const char **argv)
{
	bool global = false, manual = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "global", &global,
			  "merge driver config in the global git config"),
		OPT_BOOL_(0, "manual", &manual,
			  "write nothing; print every step instead"),
		OPT_GLOBALS,
		OPT_END_(),
	};

	if (parse_options(argc, argv, opts, install_usage) != 0)
		usage_msg(install_usage, opts, "install takes no arguments");
	return run(false, global, manual, false);
}

int cmd_uninstall(int argc, const char **argv)
{
	bool global = false, manual = false, attributes = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "global", &global,
			  "remove the merge driver config from the global git "
			  "config"),
		OPT_BOOL_(
			0, "attributes", &attributes,
			"also remove the lines of .threadmind/.gitattributes"),
		OPT_BOOL_(0, "manual", &manual,
			  "change nothing; print every step instead"),
		OPT_GLOBALS,
		OPT_END_(),
	};

	if (parse_options(argc, argv, opts, uninstall_usage) != 0)
		usage_msg(uninstall_usage, opts,
			  "uninstall takes no arguments");
	return run(true, global, manual, attributes);
}
