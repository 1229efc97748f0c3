/*
 * What git's own state says about the work in a worktree (see git.h): a
 * rebase, cherry-pick or revert sequence under way (its folders under the
 * git dir), the branch checked out before (HEAD's reflog) and the names a
 * branch was renamed from (its reflog).
 */
#include "git.h"
#include "git_libgit2.h"
#include "git_priv.h"
#include "buf.h"
#include "error.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The longest chain of renames followed back (a loop guard). */
#define RENAMES_MAX 16

bool tm_git_sequence_in_progress(tm_git *g)
{
	static const char *const dirs[] = {"rebase-merge", "rebase-apply",
					   "sequencer"};
	const char *gitdir = tm_git_gitdir(g);
	struct stat st;
	size_t i;
	bool found = false;

	for (i = 0; gitdir && !found && i < sizeof(dirs) / sizeof(*dirs); i++) {
		char *p = tm_git__path_join(gitdir, dirs[i]);

		found = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
		free(p);
	}
	return found;
}

/* The reflog of `ref`, or *out NULL when it has none.  Errors: TM_ERROR. */
static int read_reflog(git_reflog **out, tm_git *g, const char *ref)
{
	int error;

	*out = NULL;
	if ((error = tm_git__need_repo(g)) < 0)
		return error;
	error = git_reflog_read(out, g->repo, ref);
	if (error == GIT_ENOTFOUND) {
		git_error_clear();
		*out = NULL;
		return 0;
	}
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot read the reflog of '%s'",
				    ref);
	return 0;
}

/*
 * In `msg`, the text between `before` (at its start) and `middle`, and
 * the text after `middle` up to the line end: *a and *b (malloc'd), or
 * false when `msg` has another form.
 */
static bool two_names(char **a, char **b, const char *msg, const char *before,
		      const char *middle)
{
	size_t n = strlen(before), m;
	const char *mid, *end;

	if (!msg || strncmp(msg, before, n))
		return false;
	msg += n;
	mid = strstr(msg, middle);
	if (!mid || mid == msg)
		return false;
	end = mid + strlen(middle);
	m = strcspn(end, "\n");
	if (!m)
		return false;
	*a = tm_xstrndup(msg, (size_t)(mid - msg));
	*b = tm_xstrndup(end, m);
	return true;
}

int tm_git_previous_branch(char **out, tm_git *g)
{
	git_reflog *log = NULL;
	const git_reflog_entry *e;
	char *from = NULL, *to = NULL, *branch = NULL;
	int error;

	*out = NULL;
	if ((error = tm_git_current_branch(&branch, g)) < 0 || !branch ||
	    (error = read_reflog(&log, g, "HEAD")) < 0 || !log)
		goto done;
	e = git_reflog_entry_byindex(log, 0); /* the newest */
	if (e &&
	    two_names(&from, &to, git_reflog_entry_message(e),
		      "checkout: moving from ", " to ") &&
	    !strcmp(to, branch) && strcmp(from, branch) &&
	    !tm_git_is_hex_oid(from, strlen(from)))
		TM_MOVE(out, from);
done:
	git_reflog_free(log);
	TM_FREE_ALL(from, to, branch);
	return error;
}

int tm_git_branch_renamed_from(tm_strv *out, tm_git *g, const char *branch)
{
	static const char refs[] = "refs/heads/";
	tm_buf ref = TM_BUF_INIT;
	git_reflog *log = NULL;
	char *name = tm_xstrdup(branch);
	size_t i, n, k;
	int error;

	tm_buf_printf(&ref, "%s%s", refs, branch);
	if ((error = read_reflog(&log, g, tm_buf_cstr(&ref))) < 0 || !log)
		goto done;
	n = git_reflog_entrycount(log);
	/* Newest first: "Branch: renamed refs/heads/A to refs/heads/NAME",
	 * then an older entry renaming something to A, and so on. */
	for (k = 0, i = 0; i < n && k < RENAMES_MAX; i++) {
		const git_reflog_entry *e = git_reflog_entry_byindex(log, i);
		char *from = NULL, *to = NULL;

		if (two_names(&from, &to, git_reflog_entry_message(e),
			      "Branch: renamed refs/heads/", " to ") &&
		    !strncmp(to, refs, sizeof(refs) - 1) &&
		    !strcmp(to + sizeof(refs) - 1, name) &&
		    strcmp(from, name) && !tm_strv_contains(out, from)) {
			tm_strv_push(out, from);
			free(name);
			name = tm_xstrdup(from);
			k++;
		}
		free(from);
		free(to);
	}
done:
	git_reflog_free(log);
	tm_buf_release(&ref);
	free(name);
	return error;
}

int tm_git_branch_exists(bool *out, tm_git *g, const char *branch)
{
	git_reference *ref = NULL;
	tm_buf name = TM_BUF_INIT;
	int error;

	*out = false;
	if ((error = tm_git__need_repo(g)) < 0)
		return error;
	tm_buf_printf(&name, "refs/heads/%s", branch);
	error = git_reference_lookup(&ref, g->repo, tm_buf_cstr(&name));
	if (error == 0) {
		*out = true;
	} else if (error == GIT_ENOTFOUND || error == GIT_EINVALIDSPEC) {
		git_error_clear();
		error = 0;
	} else {
		error = tm_git_error(TM_ERROR, "cannot read the branch '%s'",
				     branch);
	}
	git_reference_free(ref);
	tm_buf_release(&name);
	return error;
}
