/* HEAD and the current branch, read from the files when the fast path
 * found the repository, else through libgit2 (git.c opens it). */
#include "git.h"
#include "git_libgit2.h"
#include "git_priv.h"
#include "buf.h"
#include "error.h"

#include <git2.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether HEAD's target `name` (after "refs/heads/") is a plain ref name
 * that the fast path may look up as a file. */
static bool plain_ref_name(const char *name)
{
	const unsigned char *p;
	size_t len = strlen(name);

	if (!len || name[0] == '/' || name[len - 1] == '/' ||
	    name[len - 1] == '.' || strstr(name, "..") || strstr(name, "//") ||
	    strstr(name, "/.") || name[0] == '.' || strstr(name, "@{") ||
	    (len >= 5 && !strcmp(name + len - 5, ".lock")))
		return false;
	for (p = (const unsigned char *)name; *p; p++)
		if (*p <= ' ' || *p == 0x7f || strchr("~^:?*[\\", *p))
			return false;
	return true;
}

static bool hex40_line(const char *s, size_t len)
{
	return len == GIT_OID_HEXSZ + 1 && s[GIT_OID_HEXSZ] == '\n' &&
	       tm_git_is_hex_oid(s, GIT_OID_HEXSZ);
}

static void lower_hex(char *out41, const char *hex)
{
	size_t i;

	for (i = 0; i < GIT_OID_HEXSZ; i++)
		out41[i] = (char)tolower((unsigned char)hex[i]);
	out41[GIT_OID_HEXSZ] = '\0';
}

/*
 * HEAD of a fast-path repository: *branch (after "refs/heads/", pointing
 * into `b`) or, detached, *branch = NULL and the commit in `b`.
 * FAST_UNUSUAL for anything else (a symbolic link, another kind of
 * target, a malformed file).
 */
static int read_head(tm_buf *b, const char **branch, tm_git *g)
{
	char *p = tm_git__path_join(g->gitdir, "HEAD");
	struct stat st;
	bool missing;
	int rc = FAST_UNUSUAL;

	*branch = NULL;
	if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
	    tm_git__read_small(b, p, 4096, &missing) == FAST_OK) {
		if (hex40_line(b->ptr, b->size)) {
			rc = FAST_OK;
		} else if (b->size > 17 &&
			   !strncmp(b->ptr, "ref: refs/heads/", 16) &&
			   b->ptr[b->size - 1] == '\n') {
			b->ptr[--b->size] = '\0';
			*branch = b->ptr + 16;
			if (plain_ref_name(*branch))
				rc = FAST_OK;
		}
	}
	free(p);
	return rc;
}

/*
 * The commit of refs/heads/<branch>: the loose file, else packed-refs.
 * FAST_OK with *found false for an unborn branch.
 */
static int resolve_branch(char *out41, bool *found, tm_git *g,
			  const char *branch)
{
	tm_buf b = TM_BUF_INIT, name = TM_BUF_INIT;
	char *p, *line, *save = NULL;
	bool missing;
	int rc;

	*found = false;
	tm_buf_printf(&name, "refs/heads/%s", branch);
	p = tm_git__path_join(g->commondir, tm_buf_cstr(&name));
	rc = tm_git__read_small(&b, p, 4096, &missing);
	free(p);
	if (rc == FAST_OK) {
		if (hex40_line(b.ptr, b.size)) {
			lower_hex(out41, b.ptr);
			*found = true;
		} else {
			rc = FAST_UNUSUAL; /* a symbolic ref, or damage */
		}
		goto done;
	}
	if (!missing)
		goto done;
	p = tm_git__path_join(g->commondir, "packed-refs");
	rc = tm_git__read_small(&b, p, TM_GIT_FAST_PACKED_MAX, &missing);
	free(p);
	if (rc != FAST_OK) {
		rc = missing ? FAST_OK : FAST_UNUSUAL;
		goto done;
	}
	for (line = strtok_r(b.ptr ? b.ptr : (char *)"", "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || line[0] == '^')
			continue;
		if (strlen(line) > GIT_OID_HEXSZ + 1 &&
		    tm_git_is_hex_oid(line, GIT_OID_HEXSZ) &&
		    line[GIT_OID_HEXSZ] == ' ' &&
		    !strcmp(line + GIT_OID_HEXSZ + 1, tm_buf_cstr(&name))) {
			lower_hex(out41, line);
			*found = true;
			break;
		}
	}
done:
	tm_buf_release(&b);
	tm_buf_release(&name);
	return rc;
}

int tm_git_current_branch(char **out, tm_git *g)
{
	git_reference *head = NULL;
	const char *target;
	tm_buf b = TM_BUF_INIT;
	int error;

	if (!g->repo && read_head(&b, &target, g) == FAST_OK) {
		*out = target ? tm_xstrdup(target) : NULL;
		tm_buf_release(&b);
		return 0;
	}
	tm_buf_release(&b);
	if ((error = tm_git__need_repo(g)) < 0)
		return error;
	if (git_reference_lookup(&head, g->repo, "HEAD") < 0)
		return tm_git_error(TM_ERROR, "cannot read HEAD");
	if (git_reference_type(head) != GIT_REFERENCE_SYMBOLIC) {
		*out = NULL;
	} else {
		/* not resolved further: an unborn branch has a name too */
		target = git_reference_symbolic_target(head);
		if (strncmp(target, "refs/heads/", 11) == 0)
			target += 11;
		*out = tm_xstrdup(target);
	}
	git_reference_free(head);
	return 0;
}

static int unborn(void)
{
	return tm_error_set(TM_ENOTFOUND,
			    "HEAD has no commit yet (unborn branch)");
}

int tm_git_head(char *out_hex41, tm_git *g)
{
	const char *branch;
	tm_buf b = TM_BUF_INIT;
	bool found;
	git_oid oid;
	int error;

	if (!g->repo && read_head(&b, &branch, g) == FAST_OK) {
		if (!branch) {
			lower_hex(out_hex41, b.ptr);
			tm_buf_release(&b);
			return 0;
		}
		error = resolve_branch(out_hex41, &found, g, branch);
		tm_buf_release(&b);
		if (error == FAST_OK)
			return found ? 0 : unborn();
	}
	tm_buf_release(&b);
	if ((error = tm_git__need_repo(g)) < 0)
		return error;
	error = git_reference_name_to_id(&oid, g->repo, "HEAD");
	if (error == GIT_ENOTFOUND)
		return unborn();
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot resolve HEAD");
	git_oid_tostr(out_hex41, GIT_OID_HEXSZ + 1, &oid);
	return 0;
}

/*
 * The value of `key` (malloc'd; "" for a key without a value, which sets
 * *valueless).
 */
/*
 * `git -c key=value` settings: git hands them to subcommands (and hooks) in
 * GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT/KEY_n/VALUE_n, which libgit2
 * does not read.  They win over every file; the last one wins.
 */

/* Whether `name` exists in g's git dir (a file or a folder). */
static bool in_gitdir(tm_git *g, const char *name)
{
	char *path = tm_git__path_join(tm_git_gitdir(g), name);
	struct stat st;
	bool r = lstat(path, &st) == 0;

	free(path);
	return r;
}

tm_git_op tm_git_operation(tm_git *g)
{
	if (in_gitdir(g, "rebase-merge"))
		return TM_GIT_OP_REBASE;
	if (in_gitdir(g, "rebase-apply"))
		return in_gitdir(g, "rebase-apply/applying") ? TM_GIT_OP_AM
							     : TM_GIT_OP_REBASE;
	if (in_gitdir(g, "MERGE_HEAD"))
		return TM_GIT_OP_MERGE;
	if (in_gitdir(g, "CHERRY_PICK_HEAD"))
		return TM_GIT_OP_CHERRY_PICK;
	if (in_gitdir(g, "REVERT_HEAD"))
		return TM_GIT_OP_REVERT;
	return TM_GIT_OP_NONE;
}
