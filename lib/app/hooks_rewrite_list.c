/*
 * post-rewrite's list read from git's own files (see hooks.h), for a hook
 * manager that starts the hook without git's stdin (the pre-commit
 * framework): the rebase's list, which git keeps until post-rewrite has
 * run, or the amend's reflog entry.
 */
#include "hooks.h"

#include "error.h"
#include "fs.h"
#include "git.h"
#include "git_libgit2.h"

#include <fcntl.h>
#include <git2.h>
#include <string.h>
#include <unistd.h>

/* Append `gitdir`/`dir`/`name` when it can be read; true when it could. */
static bool read_list(tm_buf *out, const char *gitdir, const char *dir,
		      const char *name)
{
	tm_buf path = TM_BUF_INIT;
	int fd, error;

	tm_buf_printf(&path, "%s/%s", gitdir, dir);
	error = tm_fs_open_dir(&fd, tm_buf_cstr(&path));
	tm_buf_release(&path);
	if (error < 0) {
		tm_error_clear();
		return false;
	}
	error = tm_fs_read_at(out, fd, name, name, TM_MAX_FILE_SIZE);
	close(fd);
	tm_error_clear();
	return error == 0;
}

/* The newest entry of HEAD's reflog, when an amend wrote it. */
static void amend_entry(tm_buf *out, tm_git *g)
{
	git_repository *repo = tm_git_repository(g);
	git_reflog *log = NULL;
	const git_reflog_entry *e;
	const char *msg;
	char old[GIT_OID_HEXSZ + 1], new[GIT_OID_HEXSZ + 1];

	if (!repo || git_reflog_read(&log, repo, "HEAD") < 0)
		return;
	e = git_reflog_entry_byindex(log, 0);
	msg = e ? git_reflog_entry_message(e) : NULL;
	if (msg && !strncmp(msg, "commit (amend): ", 16)) {
		git_oid_tostr(old, sizeof(old), git_reflog_entry_id_old(e));
		git_oid_tostr(new, sizeof(new), git_reflog_entry_id_new(e));
		tm_buf_printf(out, "%s %s\n", old, new);
	}
	git_reflog_free(log);
}

void tm_hook_rewrite_list_from_git(tm_buf *out, tm_store *s,
				   const char *command)
{
	tm_git *g = s ? tm_store_git(s) : NULL;
	const char *gitdir = g ? tm_git_gitdir(g) : NULL;

	if (!gitdir || !command)
		return;
	if (!strcmp(command, "rebase")) {
		if (!read_list(out, gitdir, "rebase-merge", "rewritten-list"))
			read_list(out, gitdir, "rebase-apply", "rewritten");
	} else if (!strcmp(command, "amend")) {
		amend_entry(out, g);
	}
	tm_error_clear();
}
