/*
 * git threadmind resolve: re-merge conflicted .threadmind/ files from the
 * index stages, or from the conflict markers a merge made without the
 * driver committed, with the merge driver's rules (lib/app/resolve.c).
 */
#include "builtin.h"
#include "cli.h"

#include "threadmind/resolve.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const resolve_usage[] = {
	"git threadmind resolve [--committed] [<file>...]",
	NULL,
};

/* `arg` (relative to the current folder) as a repository path. */
static char *repo_path(const char *workdir, const char *arg)
{
	tm_buf b = TM_BUF_INIT;
	char *cwd = getcwd(NULL, 0), *real;
	size_t wlen = strlen(workdir);
	const char *p;

	if (!cwd)
		die("cannot read the current folder: %s", strerror(errno));
	real = realpath(cwd, NULL);
	tm_buf_puts(&b, real ? real : cwd);
	tm_buf_putc(&b, '/');
	free(cwd);
	free(real);
	if (strncmp(b.ptr, workdir, wlen))
		die("'%s' is outside the repository", arg);
	p = b.size >= wlen ? b.ptr + wlen : "";
	{
		tm_buf out = TM_BUF_INIT;
		char *prefix = tm_xstrdup(p);
		char *tok, *save = NULL, *joined;

		tm_buf_printf(&out, "%s%s", prefix, arg);
		joined = tm_buf_detach(&out);
		/* Normalise "a/./b", "a/../b" and "//". */
		for (tok = strtok_r(joined, "/", &save); tok;
		     tok = strtok_r(NULL, "/", &save)) {
			if (!strcmp(tok, "."))
				continue;
			if (!strcmp(tok, "..")) {
				char *slash;

				if (!out.size)
					die("'%s' is outside the repository",
					    arg);
				slash = strrchr(out.ptr, '/');
				tm_buf_truncate(
					&out,
					slash ? (size_t)(slash - out.ptr) : 0);
				continue;
			}
			if (out.size)
				tm_buf_putc(&out, '/');
			tm_buf_puts(&out, tok);
		}
		free(joined);
		free(prefix);
		tm_buf_release(&b);
		return tm_buf_detach(&out);
	}
}

/* Where HEAD's side (stage 2) comes from in operation `op`: the branch
 * being merged into, which git calls "ours" except in a rebase. */
static const char *head_side(tm_git_op op)
{
	return op == TM_GIT_OP_REBASE || op == TM_GIT_OP_AM ? "upstream"
							    : "in HEAD";
}

/* Where the incoming side (stage 3) comes from in operation `op`. */
static const char *incoming_side(tm_git_op op)
{
	switch (op) {
	case TM_GIT_OP_MERGE:
		return "from the merged branch";
	case TM_GIT_OP_REBASE:
	case TM_GIT_OP_AM:
		return "from the commit being replayed";
	case TM_GIT_OP_CHERRY_PICK:
		return "from the picked commit";
	case TM_GIT_OP_REVERT:
		return "from the reverted commit";
	default:
		return "incoming";
	}
}

/* The id of thread file `path` (its name without ".md"). */
static void put_id(tm_buf *b, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	tm_buf_put(b, base, strlen(base) - 3);
}

/* Two threads of one id were kept apart: say which took which id, naming
 * them by title and author (git's "ours" is the upstream in a rebase). */
static void print_split(const tm_resolve_entry *e, tm_git_op op)
{
	tm_buf id = TM_BUF_INIT;
	size_t i;

	put_id(&id, e->path);
	inform("split %s: two threads were created as '%s'; %s, %s, keeps "
	       "it; %s, %s, became '%s' (%s)",
	       e->path, id.ptr, cli_safe(e->kept_name), head_side(op),
	       cli_safe(e->moved_name), incoming_side(op), e->new_id,
	       e->new_path);
	for (i = 0; i < e->repointed.n; i++)
		inform("  re-pointed '%s' to parent '%s'",
		       e->repointed.items[i], e->new_id);
	tm_buf_release(&id);
}

/* An edit was sent to its thread's id after an earlier split. */
static void print_followed(const tm_resolve_entry *e, tm_git_op op)
{
	tm_buf id = TM_BUF_INIT;

	put_id(&id, e->path);
	inform("followed %s: the edit %s is to %s, which is '%s' here: merged "
	       "into %s; '%s' holds %s",
	       e->path,
	       strcmp(e->moved_side, "theirs") ? "made in HEAD"
					       : incoming_side(op),
	       cli_safe(e->moved_name), e->new_id, e->new_path, id.ptr,
	       cli_safe(e->kept_name));
	if (e->conflicted)
		printf("conflicts left in %s\n", e->new_path);
	tm_buf_release(&id);
}

int cmd_resolve(int argc, const char **argv)
{
	bool committed = false;
	const struct option opts[] = {
		OPT_BOOL_(0, "committed", &committed,
			  "re-merge from the conflict markers in the files, "
			  "even when the index has stages"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	tm_merge_options mopts = TM_MERGE_OPTIONS_INIT;
	tm_resolve_report report;
	tm_strv paths = TM_STRV_INIT;
	tm_git *g = NULL;
	char *cwd;
	size_t i, left = 0;
	int n = parse_options(argc, argv, opts, resolve_usage);

	cwd = getcwd(NULL, 0);
	if (!cwd || tm_git_open(&g, cwd, true) < 0)
		die("not in a git repository: resolve works on the index");
	free(cwd);
	if (!tm_git_workdir(g))
		die("resolve needs a working tree");
	for (i = 0; i < (size_t)n; i++)
		tm_strv_push_owned(&paths,
				   repo_path(tm_git_workdir(g), argv[i]));
	mopts.style = tm_git_conflict_style(g);
	mopts.our_label = "ours";
	mopts.their_label = "theirs";
	if (tm_resolve_files(&report, g, &paths, &mopts,
			     committed ? TM_RESOLVE_FROM_MARKERS
				       : TM_RESOLVE_FROM_ANY) < 0)
		die_lib();
	for (i = 0; i < report.n; i++) {
		const tm_resolve_entry *e = &report.items[i];

		switch (e->outcome) {
		case TM_RESOLVE_CLEAN:
			inform("resolved %s", e->path);
			break;
		case TM_RESOLVE_CONFLICTS:
			printf("conflicts left in %s%s\n", e->path,
			       e->from ? ": edit the sections between the "
					 "markers, then 'git add' it"
				       : "");
			left++;
			break;
		case TM_RESOLVE_SKIPPED:
			printf("skipped %s: %s\n", e->path, e->note);
			left++;
			break;
		case TM_RESOLVE_SPLIT:
			print_split(e, report.op);
			break;
		case TM_RESOLVE_FOLLOWED:
			print_followed(e, report.op);
			left += e->conflicted;
			break;
		case TM_RESOLVE_DROPPED:
			inform("dropped %s: %s", e->path, e->note);
			break;
		}
		if (e->from && e->outcome != TM_RESOLVE_SKIPPED &&
		    e->outcome != TM_RESOLVE_DROPPED)
			note("  (re-merged from %s)", e->from);
		if (e->outcome != TM_RESOLVE_SKIPPED &&
		    e->outcome != TM_RESOLVE_DROPPED && e->note)
			note("  (%s)", e->note);
	}
	if (!report.n)
		note("nothing to resolve");
	tm_resolve_report_clear(&report);
	tm_strv_clear(&paths);
	tm_git_free(g);
	return left ? EXIT_NEGATIVE : 0;
}
