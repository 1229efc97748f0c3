/*
 * The fast path of tm_git_open (see git_priv.h): finding the repository
 * as libgit2 would, without starting it, and scanning the config files it
 * would read for what the fast config readers need to know.
 */
#include "git.h"
#include "git_priv.h"
#include "buf.h"
#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static bool fast_disabled; /* tm_git__set_fast_path(false) */

void tm_git__set_fast_path(bool on)
{
	fast_disabled = !on;
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
	const char *home = tm_git__env("HOME"),
		   *xdg = tm_git__env("XDG_CONFIG_HOME");
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
int tm_git__fast_discover(tm_git *g, const char *path, bool from_env)
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

void tm_git__forget_fast(tm_git *g)
{
	TM_FREE_ALL(g->workdir, g->gitdir, g->commondir);
	g->workdir = g->gitdir = g->commondir = NULL;
	g->fast_scanned = g->fast_mentioned = 0;
	g->config_merge_driver = false;
}
