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

static bool fast_disabled; /* tm_git__set_fast_path(false) */

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
static const char *env(const char *name)
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
	const char *git_dir = env("GIT_DIR"), *ceiling = NULL, *v;
	unsigned flags = 0;
	int across = 0, error;

	if (env("GIT_COMMON_DIR"))
		return tm_error_set(
			TM_ERROR, "GIT_COMMON_DIR is not supported: unset it");
	if (git_dir) {
		path = git_dir;
		flags = GIT_REPOSITORY_OPEN_NO_SEARCH |
			GIT_REPOSITORY_OPEN_NO_DOTGIT;
	} else {
		ceiling = env("GIT_CEILING_DIRECTORIES");
		v = env("GIT_DISCOVERY_ACROSS_FILESYSTEM");
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
	if ((v = env("GIT_INDEX_FILE")) != NULL) {
		git_index *index = NULL;

		if (git_index_open(&index, v) < 0) {
			error = tm_git_error(TM_ERROR,
					     "cannot use GIT_INDEX_FILE");
			goto fail;
		}
		git_repository_set_index(repo, index);
		git_index_free(index);
	}
	if ((v = env("GIT_NAMESPACE")) != NULL &&
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
	const char *work_tree = env("GIT_WORK_TREE");
	int error;

	if (work_tree)
		return open_with_work_tree(out, path, work_tree);
	/* a NULL path is how libgit2 is told to use GIT_DIR */
	error = git_repository_open_ext(out, env("GIT_DIR") ? NULL : path,
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
		where = from_env && env("GIT_DIR") ? env("GIT_DIR")
						   : (path ? path : ".");
		return tm_error_set(TM_ENOTFOUND,
				    "not a git repository (or any of the "
				    "parent directories): '%s'",
				    where);
	}
	return error;
}

/* ---- the fast path: finding the repository without libgit2 ---- */

/* The most the fast path reads of a config file and of packed-refs. */

/* a + "/" + b (no second '/' when a ends with one), malloc'd. */
char *tm_git__path_join(const char *a, const char *b)
{
	tm_buf buf = TM_BUF_INIT;

	tm_buf_puts(&buf, a);
	if (!buf.size || buf.ptr[buf.size - 1] != '/')
		tm_buf_putc(&buf, '/');
	tm_buf_puts(&buf, b);
	return tm_buf_detach(&buf);
}

/* Outcome of a fast-path step: done, or "leave it to libgit2". */

/*
 * The content of the file `path` (NUL-terminated, at most `max` bytes)
 * into `out`: FAST_OK, ENOENT-like absence as -1 with *missing set, or
 * FAST_UNUSUAL for anything else (unreadable, too large, not a file).
 */
int tm_git__read_small(tm_buf *out, const char *path, size_t max, bool *missing)
{
	char chunk[4096];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	*missing = false;
	if (fd < 0) {
		*missing = errno == ENOENT || errno == ENOTDIR;
		return FAST_UNUSUAL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > max) {
		close(fd);
		return FAST_UNUSUAL;
	}
	tm_buf_clear(out);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || out->size + (size_t)n > max)
			break;
		tm_buf_put(out, chunk, (size_t)n);
	}
	close(fd);
	return n == 0 ? FAST_OK : FAST_UNUSUAL;
}

static bool is_kind(const char *dir, const char *name, mode_t kind)
{
	char *p = tm_git__path_join(dir, name);
	struct stat st;
	bool r = stat(p, &st) == 0 && (st.st_mode & S_IFMT) == kind;

	free(p);
	return r;
}

/* Whether `dir` holds what libgit2 checks for a git dir (common = dir). */
static bool looks_like_gitdir(const char *dir)
{
	return is_kind(dir, "HEAD", S_IFREG) &&
	       is_kind(dir, "objects", S_IFDIR) &&
	       is_kind(dir, "refs", S_IFDIR);
}

/* realpath + "/" (malloc'd), NULL when it cannot be resolved. */
static char *real_dir(const char *path)
{
	char *r = realpath(path, NULL), *s;

	if (!r)
		return NULL;
	s = tm_git__path_join(r, "");
	free(r);
	return s;
}

/* Drop trailing newlines (and a CR before them) from `b`. */
static void chomp(tm_buf *b)
{
	while (b->size &&
	       (b->ptr[b->size - 1] == '\n' || b->ptr[b->size - 1] == '\r'))
		b->ptr[--b->size] = '\0';
}

/*
 * Set g's gitdir and commondir from the git dir `gitdir`: a linked
 * worktree's has a `commondir` file (relative to it).  FAST_UNUSUAL when
 * libgit2 would not take it as a repository.
 */
static int take_gitdir(tm_git *g, const char *gitdir)
{
	tm_buf link = TM_BUF_INIT;
	char *common_path;
	bool missing;
	int rc = FAST_UNUSUAL;

	if (!(g->gitdir = real_dir(gitdir)) ||
	    !is_kind(g->gitdir, "HEAD", S_IFREG))
		goto done;
	common_path = tm_git__path_join(g->gitdir, "commondir");
	if (tm_git__read_small(&link, common_path, 4096, &missing) == FAST_OK) {
		chomp(&link);
		free(common_path);
		common_path = link.ptr && link.ptr[0] == '/'
				      ? tm_xstrdup(link.ptr)
				      : tm_git__path_join(g->gitdir,
							  tm_buf_cstr(&link));
		g->commondir = real_dir(common_path);
	} else if (missing) {
		g->commondir = tm_xstrdup(g->gitdir);
	}
	free(common_path);
	if (g->commondir && is_kind(g->commondir, "objects", S_IFDIR) &&
	    is_kind(g->commondir, "refs", S_IFDIR))
		rc = FAST_OK;
done:
	tm_buf_release(&link);
	return rc;
}

/* "gitdir: <path>" of the .git file `file` in folder `dir`. */
static int follow_gitfile(tm_git *g, const char *dir, const char *file)
{
	tm_buf b = TM_BUF_INIT;
	char *target;
	bool missing;
	int rc = FAST_UNUSUAL;

	if (tm_git__read_small(&b, file, 4096, &missing) == FAST_OK &&
	    b.size > 8 && !strncmp(b.ptr, "gitdir: ", 8)) {
		chomp(&b);
		target = b.ptr[8] == '/' ? tm_xstrdup(b.ptr + 8)
					 : tm_git__path_join(dir, b.ptr + 8);
		rc = take_gitdir(g, target);
		free(target);
	}
	tm_buf_release(&b);
	return rc;
}

/*
 * Whether a config file's text (lower-cased) is one the fast path can
 * vouch for: nothing that could move the work tree or refuse the
 * repository (core.worktree, core.bare other than false, extensions, a
 * format version above 1, includes).  Notes in `g` which keys of
 * tm_git_config_fast it mentions.
 */
static bool config_text_plain(char *text, tm_git *g)
{
	char *line, *save = NULL, *p, *q;

	for (p = text; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	tm_git__note_mentions(g, text);
	if (strstr(text, "include") || strstr(text, "worktree") ||
	    strstr(text, "extensions"))
		return false;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, "bare") &&
		    !strstr(line, "repositoryformatversion"))
			continue;
		/* squeeze out blanks: "bare=false" */
		for (p = q = line; *p; p++)
			if (*p != ' ' && *p != '\t' && *p != '\r')
				*q++ = *p;
		*q = '\0';
		if (strcmp(line, "bare=false") &&
		    strcmp(line, "repositoryformatversion=0") &&
		    strcmp(line, "repositoryformatversion=1"))
			return false;
	}
	return true;
}

/*
 * Is the section header at `p` (after its '[', up to `close`, its ']')
 * [merge "threadmind"] or the old form [merge.threadmind]?  *unsure for a
 * header git would read otherwise than this does.
 */
static bool header_is_driver(const char *p, const char *close, bool *unsure)
{
	static const char sub[] = "threadmind";
	const char *name = p;
	size_t n, k = 0;

	while (p < close &&
	       (isalnum((unsigned char)*p) || *p == '-' || *p == '.'))
		p++;
	n = (size_t)(p - name);
	if (p == close)
		return n == 16 && !strncasecmp(name, "merge.threadmind", 16);
	if (*p != ' ' && *p != '\t')
		goto unsure;
	while (p < close && (*p == ' ' || *p == '\t'))
		p++;
	if (p == close || *p++ != '"')
		goto unsure;
	/* the subsection, `\x` standing for x, compared as it goes */
	while (p < close && *p != '"') {
		if (*p == '\\' && ++p == close)
			goto unsure;
		if (k < sizeof(sub) - 1 && *p == sub[k])
			k++;
		else
			k = sizeof(sub); /* another name */
		p++;
	}
	if (p + 1 != close)
		goto unsure;
	return n == 5 && !strncasecmp(name, "merge", 5) && k == sizeof(sub) - 1;
unsure:
	*unsure = true;
	return false;
}

/*
 * Note in `g` whether the config text sets merge.threadmind.driver: a key
 * `driver` (any case) in a [merge "threadmind"] section, also on the
 * header's line as git allows.  False when a line could be read otherwise
 * by git (a value continued with a backslash, a header this does not
 * know): libgit2 reads the files then.
 */
static bool scan_merge_driver(tm_git *g, const char *text)
{
	const char *p = text, *eol, *q, *name;
	bool in = false, unsure = false;

	for (; *p; p = *eol ? eol + 1 : eol) {
		eol = p + strcspn(p, "\n");
		q = eol;
		while (q > p &&
		       (q[-1] == '\r' || q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q > p && q[-1] == '\\')
			return false;
		for (q = p; q < eol && (*q == ' ' || *q == '\t'); q++)
			;
		if (q < eol && *q == '[') {
			const char *close = memchr(q, ']', (size_t)(eol - q));

			if (!close)
				return false;
			in = header_is_driver(q + 1, close, &unsure);
			if (unsure)
				return false;
			for (q = close + 1;
			     q < eol && (*q == ' ' || *q == '\t'); q++)
				;
		}
		if (!in || q == eol || !isalpha((unsigned char)*q))
			continue;
		for (name = q;
		     q < eol && (isalnum((unsigned char)*q) || *q == '-'); q++)
			;
		if (q - name == 6 && !strncasecmp(name, "driver", 6) &&
		    (q == eol || strchr(" \t\r=#;", *q)))
			g->config_merge_driver = true;
	}
	return true;
}

/* Scan one config file (absent is fine). */
static int scan_config(tm_git *g, const char *path)
{
	tm_buf b = TM_BUF_INIT;
	bool missing;
	int rc = tm_git__read_small(&b, path, TM_GIT_FAST_CONFIG_MAX, &missing);

	if (rc == FAST_OK)
		rc = scan_merge_driver(g, b.ptr ? b.ptr : "") &&
				     config_text_plain(
					     b.ptr ? b.ptr : (char *)"", g)
			     ? FAST_OK
			     : FAST_UNUSUAL;
	else if (missing)
		rc = FAST_OK;
	tm_buf_release(&b);
	return rc;
}

/* The config files libgit2 reads for this repository. */
static int scan_configs(tm_git *g)
{
	const char *home = env("HOME"), *xdg = env("XDG_CONFIG_HOME");
	char *paths[6];
	size_t i, n = 0;
	int rc = FAST_OK;

	if (!home)
		return FAST_UNUSUAL; /* libgit2 would ask getpwuid */
	paths[n++] = tm_git__path_join(g->commondir, "config");
	paths[n++] = tm_git__path_join(g->gitdir, "config.worktree");
	paths[n++] = tm_git__path_join(home, ".gitconfig");
	paths[n++] = tm_git__path_join(home, ".config/git/config");
	paths[n++] = xdg ? tm_git__path_join(xdg, "git/config")
			 : tm_xstrdup("/etc/gitconfig");
	paths[n++] = tm_xstrdup("/etc/gitconfig");
	for (i = 0; i < n; i++) {
		if (rc == FAST_OK)
			rc = scan_config(g, paths[i]);
		free(paths[i]);
	}
	return rc;
}

/* Owned by another user: libgit2 checks safe.directory. */
static bool owned_by_us(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_uid == geteuid();
}

/* Environment variables that change where or how git finds a repository. */
static const char *const env_unusual[] = {
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_COMMON_DIR",
	"GIT_CEILING_DIRECTORIES",
	"GIT_DISCOVERY_ACROSS_FILESYSTEM",
	"GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_NAMESPACE",
};

/*
 * Find the repository of `path` as libgit2 would, walking up: at each
 * folder `.git` (a folder, or a file "gitdir: …"), then the folder itself
 * (a bare repository, or the inside of a git dir: left to libgit2).  Into
 * g's workdir / gitdir / commondir.  FAST_UNUSUAL for anything else: an
 * environment variable of env_unusual, a crossed file system, a bare
 * repository, no repository, a config file it cannot vouch for.
 */
static int fast_discover(tm_git *g, const char *path, bool from_env)
{
	char *dir, *dotgit, *slash;
	struct stat st;
	dev_t dev = 0;
	bool have_dev = false;
	size_t i;
	int rc = FAST_UNUSUAL;

	if (fast_disabled)
		return FAST_UNUSUAL;
	for (i = 0; from_env && i < sizeof(env_unusual) / sizeof(*env_unusual);
	     i++)
		if (getenv(env_unusual[i]))
			return FAST_UNUSUAL;
	if (!(dir = realpath(path ? path : ".", NULL)))
		return FAST_UNUSUAL;
	for (;;) {
		dotgit = tm_git__path_join(dir, ".git");
		if (lstat(dotgit, &st) == 0) {
			if (have_dev && st.st_dev != dev)
				break;
			dev = st.st_dev;
			have_dev = true;
			if (S_ISDIR(st.st_mode) && looks_like_gitdir(dotgit) &&
			    !is_kind(dotgit, "commondir", S_IFREG))
				rc = take_gitdir(g, dotgit);
			else if (S_ISREG(st.st_mode))
				rc = follow_gitfile(g, dir, dotgit);
			if (rc == FAST_OK)
				g->workdir = tm_git__path_join(dir, "");
			break; /* found, or something for libgit2 */
		}
		free(dotgit);
		dotgit = NULL;
		if (stat(dir, &st) < 0 || (have_dev && st.st_dev != dev))
			break;
		dev = st.st_dev;
		have_dev = true;
		if (looks_like_gitdir(dir) || !strcmp(dir, "/"))
			break;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(dotgit);
	if (rc == FAST_OK &&
	    (!owned_by_us(g->workdir) || !owned_by_us(g->gitdir) ||
	     !owned_by_us(g->commondir)))
		rc = FAST_UNUSUAL;
	if (rc == FAST_OK)
		rc = scan_configs(g);
	free(dir);
	return rc;
}

static void forget_fast(tm_git *g)
{
	free(g->workdir);
	free(g->gitdir);
	free(g->commondir);
	g->workdir = g->gitdir = g->commondir = NULL;
	g->fast_scanned = g->fast_mentioned = 0;
	g->config_merge_driver = false;
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
	if (fast_discover(g, path, from_env) == FAST_OK) {
		*out = g;
		return 0;
	}
	forget_fast(g);
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
	forget_fast(g);
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

void tm_git__set_fast_path(bool on)
{
	fast_disabled = !on;
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
