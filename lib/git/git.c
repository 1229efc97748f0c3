/* The libgit2 wrapper: repository, HEAD, branch, config, the user. */
#include "git.h"
#include "git_internal.h"
#include "git_priv.h"
#include "buf.h"
#include "error.h"
#include "index_file.h"
#include "slug.h"

#include <git2.h>
#include <git2/sys/repository.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status;

/*
 * libgit2 stays initialised until the process exits: tm_git objects can be
 * opened and freed in any order, from any thread.  Its object cache is
 * turned off: we read each commit once, and the index build's tree diffs
 * keep the few recent trees the next diff reads again themselves
 * (tm_treediffer, lib/git/treediff.c: bounded, where libgit2's cache would
 * keep every commit and tree of up to 4 KiB it reads, 256 MiB in all; the
 * staleness walk over 10,000 commits was both slower and 2.5 times larger
 * with it).
 */
static void init_libgit2(void)
{
	if (git_libgit2_init() < 0) {
		init_status = -1;
		return;
	}
	if (tm_git__alloc_install() < 0) {
		init_status = -1;
		return;
	}
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
	/*
	 * libgit2 re-hashes every object it reads by default; git does not.
	 * Off, the staleness walk runs 57% fewer instructions, with the same
	 * answers (docs/PERFORMANCE.md).
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}

int tm_git_init(void)
{
	pthread_once(&init_once, init_libgit2);
	if (init_status < 0)
		return tm_error_set(TM_ERROR, "cannot initialise libgit2");
	return 0;
}

int tm_git_index_open(git_index **out, git_repository *repo)
{
	tm_buf file = TM_BUF_INIT;
	int error;

	*out = NULL;
	tm_buf_printf(&file, "%sindex", git_repository_path(repo));
	error = tm_index_file_check(tm_buf_cstr(&file), NULL);
	tm_buf_release(&file);
	if (error < 0)
		return error;
	if (git_repository_index(out, repo) < 0 ||
	    git_index_read(*out, false) < 0) {
		git_index_free(*out);
		*out = NULL;
		return tm_git_error(TM_ERROR, "cannot read the index");
	}
	return 0;
}

int tm_git_error(int code, const char *fmt, ...)
{
	const git_error *e = git_error_last();
	tm_buf what = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_buf_vprintf(&what, fmt, ap);
	va_end(ap);
	code = tm_error_set(code, "%s: %s", tm_buf_cstr(&what),
			    e && e->message ? e->message : "libgit2 error");
	tm_buf_release(&what);
	return code;
}

bool tm_git_is_hex_oid(const char *s, size_t len)
{
	size_t i;

	if (!s || len != GIT_OID_HEXSZ)
		return false;
	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

tm_conflict_style tm_git_conflict_style(tm_git *g)
{
	tm_conflict_style style = TM_CONFLICT_STYLE_MERGE;
	char *v = NULL;

	if (tm_git_config_string(&v, g, "merge.conflictStyle") == 0) {
		if (!strcmp(v, "diff3"))
			style = TM_CONFLICT_STYLE_DIFF3;
		else if (!strcmp(v, "zdiff3"))
			style = TM_CONFLICT_STYLE_ZDIFF3;
	}
	free(v);
	tm_error_clear();
	return style;
}

/* An environment variable, NULL when unset or empty. */
const char *tm_git__env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/*
 * Is `work_tree` already the work tree libgit2 found for `repo`?  Setting
 * it again would be a no-op, but libgit2 1.5 leaks the path it built then.
 */
static bool same_workdir(git_repository *repo, const char *work_tree)
{
	const char *wd = git_repository_workdir(repo);
	char *real = realpath(work_tree, NULL);
	size_t len = real ? strlen(real) : 0;
	bool same = real && wd && !strncmp(wd, real, len) &&
		    (wd[len] == '\0' || (wd[len] == '/' && !wd[len + 1]));

	free(real);
	return same;
}

/*
 * libgit2 1.5 refuses GIT_WORK_TREE under GIT_REPOSITORY_OPEN_FROM_ENV, so
 * with a work tree in the environment the other variables git reads are
 * applied here.
 */
static int open_with_work_tree(git_repository **out, const char *path,
			       const char *work_tree)
{
	git_repository *repo = NULL;
	const char *git_dir = tm_git__env("GIT_DIR"), *ceiling = NULL, *v;
	unsigned flags = 0;
	int across = 0, error;

	if (tm_git__env("GIT_COMMON_DIR"))
		return tm_error_set(
			TM_ERROR, "GIT_COMMON_DIR is not supported: unset it");
	if (git_dir) {
		path = git_dir;
		flags = GIT_REPOSITORY_OPEN_NO_SEARCH |
			GIT_REPOSITORY_OPEN_NO_DOTGIT;
	} else {
		ceiling = tm_git__env("GIT_CEILING_DIRECTORIES");
		v = tm_git__env("GIT_DISCOVERY_ACROSS_FILESYSTEM");
		if (v && git_config_parse_bool(&across, v) == 0 && across)
			flags |= GIT_REPOSITORY_OPEN_CROSS_FS;
	}
	error = git_repository_open_ext(&repo, path ? path : ".", flags,
					ceiling);
	if (error == GIT_ENOTFOUND)
		return TM_ENOTFOUND;
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot open the repository");
	if (!same_workdir(repo, work_tree) &&
	    git_repository_set_workdir(repo, work_tree, 0) < 0) {
		error = tm_git_error(TM_ERROR, "cannot use GIT_WORK_TREE");
		goto fail;
	}
	if ((v = tm_git__env("GIT_INDEX_FILE")) != NULL) {
		git_index *index = NULL;

		if (git_index_open(&index, v) < 0) {
			error = tm_git_error(TM_ERROR,
					     "cannot use GIT_INDEX_FILE");
			goto fail;
		}
		git_repository_set_index(repo, index);
		git_index_free(index);
	}
	if ((v = tm_git__env("GIT_NAMESPACE")) != NULL &&
	    git_repository_set_namespace(repo, v) < 0) {
		error = tm_git_error(TM_ERROR, "cannot use GIT_NAMESPACE");
		goto fail;
	}
	*out = repo;
	return 0;
fail:
	git_repository_free(repo);
	return error;
}

static int open_from_env(git_repository **out, const char *path)
{
	const char *work_tree = tm_git__env("GIT_WORK_TREE");
	int error;

	if (work_tree)
		return open_with_work_tree(out, path, work_tree);
	/* a NULL path is how libgit2 is told to use GIT_DIR */
	error = git_repository_open_ext(out,
					tm_git__env("GIT_DIR") ? NULL : path,
					GIT_REPOSITORY_OPEN_FROM_ENV, NULL);
	if (error == GIT_ENOTFOUND)
		return TM_ENOTFOUND;
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot open the repository");
	return 0;
}

/* Open with libgit2: what tm_git_open did before the fast path. */
static int open_repo(git_repository **out, const char *path, bool from_env)
{
	const char *where;
	int error;

	if ((error = tm_git_init()) < 0)
		return error;
	if (from_env) {
		error = open_from_env(out, path);
	} else {
		error = git_repository_open_ext(out, path, 0, NULL);
		if (error == GIT_ENOTFOUND)
			error = TM_ENOTFOUND;
		else if (error < 0)
			error = tm_git_error(TM_ERROR,
					     "cannot open the repository");
	}
	if (error == TM_ENOTFOUND) {
		where = from_env && tm_git__env("GIT_DIR")
				? tm_git__env("GIT_DIR")
				: (path ? path : ".");
		return tm_error_set(TM_ENOTFOUND,
				    "not a git repository (or any of the "
				    "parent directories): '%s'",
				    where);
	}
	return error;
}

int tm_git_open(tm_git **out, const char *path, bool from_env)
{
	git_repository *repo = NULL;
	tm_git *g;
	int error;

	if (!from_env && !path)
		return tm_error_set(TM_EINVALID,
				    "no path to look for a repository from");
	g = tm_xcalloc(1, sizeof(*g));
	g->path = path ? tm_xstrdup(path) : NULL;
	g->from_env = from_env;
	if (tm_git__fast_discover(g, path, from_env) == FAST_OK) {
		*out = g;
		return 0;
	}
	tm_git__forget_fast(g);
	if ((error = open_repo(&repo, path, from_env)) < 0) {
		free(g->path);
		free(g);
		return error;
	}
	g->repo = repo;
	*out = g;
	return 0;
}

/* libgit2's repository behind g, opened now when the fast path found it. */
int tm_git__need_repo(tm_git *g)
{
	if (g->repo)
		return 0;
	return open_repo(&g->repo, g->path, g->from_env);
}

void tm_git_free(tm_git *g)
{
	if (!g)
		return;
	git_repository_free(g->repo);
	tm_git__forget_fast(g);
	free(g->path);
	free(g);
}

git_repository *tm_git_repository(tm_git *g)
{
	if (tm_git__need_repo(g) < 0)
		return NULL;
	return g->repo;
}

const char *tm_git_workdir(const tm_git *g)
{
	return g->gitdir ? g->workdir : git_repository_workdir(g->repo);
}

const char *tm_git_gitdir(const tm_git *g)
{
	return g->gitdir ? g->gitdir : git_repository_path(g->repo);
}

const char *tm_git_commondir(const tm_git *g)
{
	return g->gitdir ? g->commondir : git_repository_commondir(g->repo);
}

bool tm_git__libgit2_opened(const tm_git *g)
{
	return g->repo != NULL;
}

int tm_git_hash_blob(char *out_hex, const void *data, size_t len)
{
	git_oid oid;
	int error;

	if ((error = tm_git_init()) < 0)
		return error;
	if (git_odb_hash(&oid, len ? data : "", len, GIT_OBJECT_BLOB) < 0)
		return tm_git_error(TM_ERROR, "cannot hash a blob");
	git_oid_tostr(out_hex, GIT_OID_HEXSZ + 1, &oid);
	return 0;
}

int tm_git_user(char **out_name, char **out_email, tm_git *g)
{
	char *name = NULL, *email = NULL;
	int error;

	error = tm_git_config_string(&name, g, "user.name");
	if (error == TM_ENOTFOUND)
		error = 0;
	if (error == 0)
		error = tm_git_config_string(&email, g, "user.email");
	if (error == TM_ENOTFOUND)
		error = 0;
	if (error < 0) {
		free(name);
		free(email);
		return error;
	}
	tm_error_clear();
	*out_name = name;
	*out_email = email;
	return 0;
}

bool tm_git_has_commit(tm_git *g, const char *hex)
{
	git_commit *commit = NULL;
	git_oid oid;

	if (!g || !hex || !tm_git_is_hex_oid(hex, strlen(hex)))
		return false;
	if (tm_git__need_repo(g) < 0) {
		tm_error_clear();
		return false;
	}
	if (git_oid_fromstr(&oid, hex) < 0)
		return false;
	if (git_commit_lookup(&commit, g->repo, &oid) < 0)
		return false;
	git_commit_free(commit);
	return true;
}

char *tm_git_path_in_workdir(tm_git *g, const char *dir)
{
	const char *workdir = g ? tm_git_workdir(g) : NULL;
	char *top = workdir ? realpath(workdir, NULL) : NULL;
	char *real = dir && top ? realpath(dir, NULL) : NULL, *out = NULL;
	size_t n;

	if (top && real) {
		n = strlen(top);
		while (n > 1 && top[n - 1] == '/')
			n--;
		if (n == 1 && top[0] == '/')
			n = 0; /* the work tree is / */
		if (!strncmp(real, top, n) && (!real[n] || real[n] == '/')) {
			tm_buf b = TM_BUF_INIT;
			const char *rest = real + n + (real[n] == '/');

			tm_buf_puts(&b, rest);
			if (*rest)
				tm_buf_putc(&b, '/');
			out = tm_buf_detach(&b);
		}
	}
	free(top);
	free(real);
	return out;
}

int tm_git_commit_tree_id(git_oid *out, git_repository *repo,
			  const git_oid *commit)
{
	git_commit *c = NULL;

	if (git_commit_lookup(&c, repo, commit) < 0)
		return tm_git_error(TM_ERROR, "cannot read commit %s",
				    git_oid_tostr_s(commit));
	git_oid_cpy(out, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

bool tm_git_commit_entry_id(git_oid *out, const git_commit *c, const char *path,
			    git_object_t type)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	bool found = false;

	if (git_commit_tree(&tree, c) == 0 &&
	    git_tree_entry_bypath(&e, tree, path) == 0 &&
	    git_tree_entry_type(e) == type) {
		git_oid_cpy(out, git_tree_entry_id(e));
		found = true;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_error_clear();
	return found;
}
