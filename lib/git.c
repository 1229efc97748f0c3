/* The libgit2 wrapper: repository, HEAD, branch, config, author id. */
#include "git.h"
#include "git_internal.h"
#include "buf.h"
#include "error.h"
#include "slug.h"

#include <git2.h>
#include <git2/sys/repository.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct tm_git {
	git_repository *repo;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status;

/*
 * libgit2 stays initialised until the process exits: tm_git objects can be
 * opened and freed in any order, from any thread.  Its object cache is
 * turned off: we read each tree and commit once (the staleness walk over
 * 10,000 commits was both slower and 2.5 times larger with it).
 */
static void init_libgit2(void)
{
	if (git_libgit2_init() < 0)
		init_status = -1;
	else
		git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
}

int tm_git_init(void)
{
	pthread_once(&init_once, init_libgit2);
	if (init_status < 0)
		return tm_error_set(TM_ERROR, "cannot initialise libgit2");
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

tm_merge_style tm_git_conflict_style(tm_git *g)
{
	tm_merge_style style = TM_MERGE_STYLE_MERGE;
	char *v = NULL;

	if (tm_git_config_string(&v, g, "merge.conflictStyle") == 0) {
		if (!strcmp(v, "diff3"))
			style = TM_MERGE_STYLE_DIFF3;
		else if (!strcmp(v, "zdiff3"))
			style = TM_MERGE_STYLE_ZDIFF3;
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

int tm_git_open(tm_git **out, const char *path, bool from_env)
{
	git_repository *repo = NULL;
	const char *where;
	tm_git *g;
	int error;

	if ((error = tm_git_init()) < 0)
		return error;
	if (from_env) {
		error = open_from_env(&repo, path);
	} else if (!path) {
		return tm_error_set(TM_EINVALID,
				    "no path to look for a repository from");
	} else {
		error = git_repository_open_ext(&repo, path, 0, NULL);
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
	if (error < 0)
		return error;
	g = tm_xcalloc(1, sizeof(*g));
	g->repo = repo;
	*out = g;
	return 0;
}

void tm_git_free(tm_git *g)
{
	if (!g)
		return;
	git_repository_free(g->repo);
	free(g);
}

git_repository *tm_git_repository(tm_git *g)
{
	return g->repo;
}

const char *tm_git_workdir(const tm_git *g)
{
	return git_repository_workdir(g->repo);
}

const char *tm_git_gitdir(const tm_git *g)
{
	return git_repository_path(g->repo);
}

const char *tm_git_commondir(const tm_git *g)
{
	return git_repository_commondir(g->repo);
}

int tm_git_current_branch(char **out, tm_git *g)
{
	git_reference *head = NULL;
	const char *target;

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

int tm_git_head(char *out_hex41, tm_git *g)
{
	git_oid oid;
	int error;

	error = git_reference_name_to_id(&oid, g->repo, "HEAD");
	if (error == GIT_ENOTFOUND)
		return tm_error_set(TM_ENOTFOUND,
				    "HEAD has no commit yet (unborn branch)");
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

/* Section and name compare without case, a subsection exactly. */
static bool key_equal(const char *a, const char *b)
{
	const char *a1 = strchr(a, '.'), *b1 = strchr(b, '.');
	const char *a2 = strrchr(a, '.'), *b2 = strrchr(b, '.');

	if (!a1 || !b1 || a1 - a != b1 - b || a2 - a1 != b2 - b1)
		return false;
	return !strncasecmp(a, b, (size_t)(a1 - a)) &&
	       !strncmp(a1, b1, (size_t)(a2 - a1)) && !strcasecmp(a2, b2);
}

/* Read one sh single-quoted word ('it'\''s') at *p into out. */
static bool sq_word(const char **p, tm_buf *out)
{
	const char *s = *p;

	tm_buf_clear(out);
	if (*s != '\'')
		return false;
	for (;;) {
		const char *end = strchr(s + 1, '\'');

		if (!end)
			return false;
		tm_buf_put(out, s + 1, (size_t)(end - s - 1));
		s = end + 1;
		if (s[0] == '\\' && s[1] == '\'' && s[2] == '\'') {
			tm_buf_putc(out, '\'');
			s += 2;
			continue;
		}
		break;
	}
	*p = s;
	return true;
}

static void take(char **out, bool *valueless, bool *found, const char *value)
{
	free(*out);
	*out = tm_xstrdup(value ? value : "");
	*valueless = value == NULL;
	*found = true;
}

static bool command_line_value(char **out, bool *valueless, const char *key)
{
	const char *p = getenv("GIT_CONFIG_PARAMETERS"), *count;
	tm_buf k = TM_BUF_INIT, v = TM_BUF_INIT;
	bool found = false;

	*out = NULL;
	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!*p || !sq_word(&p, &k))
			break;
		if (p[0] == '=' && p[1] == '\'') {
			p++;
			if (!sq_word(&p, &v))
				break;
			if (key_equal(tm_buf_cstr(&k), key))
				take(out, valueless, &found, tm_buf_cstr(&v));
		} else {
			char *eq = strchr(k.ptr ? k.ptr : "", '=');

			if (eq)
				*eq = '\0';
			if (key_equal(tm_buf_cstr(&k), key))
				take(out, valueless, &found,
				     eq ? eq + 1 : NULL);
		}
	}
	count = getenv("GIT_CONFIG_COUNT");
	if (count) {
		long i, n = strtol(count, NULL, 10);

		for (i = 0; i < n && i < 1000; i++) {
			char name[40];
			const char *ki, *vi;

			snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
			ki = getenv(name);
			snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%ld", i);
			vi = getenv(name);
			if (ki && key_equal(ki, key))
				take(out, valueless, &found, vi ? vi : "");
		}
	}
	tm_buf_release(&k);
	tm_buf_release(&v);
	return found;
}

static int config_value(char **out, bool *valueless, tm_git *g, const char *key)
{
	git_config *cfg = NULL;
	git_config_entry *entry = NULL;
	int error;

	if (!key || !*key)
		return tm_error_set(TM_EINVALID, "empty config key");
	if (command_line_value(out, valueless, key))
		return 0;
	if ((error = tm_git_init()) < 0)
		return error;
	if (g)
		error = git_repository_config(&cfg, g->repo);
	else
		error = git_config_open_default(&cfg);
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot read the git config");
	error = git_config_get_entry(&entry, cfg, key);
	if (error == GIT_ENOTFOUND) {
		error = tm_error_set(TM_ENOTFOUND, "config '%s' is not set",
				     key);
	} else if (error == GIT_EINVALIDSPEC) {
		error = tm_error_set(TM_EINVALID,
				     "invalid config key '%s': use "
				     "section.name",
				     key);
	} else if (error < 0) {
		error = tm_git_error(TM_ERROR, "cannot read the git config");
	} else {
		*valueless = entry->value == NULL;
		*out = tm_xstrdup(entry->value ? entry->value : "");
		error = 0;
	}
	git_config_entry_free(entry);
	git_config_free(cfg);
	return error;
}

int tm_git_config_string(char **out, tm_git *g, const char *key)
{
	bool valueless;

	return config_value(out, &valueless, g, key);
}

int tm_git_config_bool(bool *out, tm_git *g, const char *key, bool dflt)
{
	char *value = NULL;
	bool valueless = false;
	int b = 0, error;

	error = config_value(&value, &valueless, g, key);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		*out = dflt;
		return 0;
	}
	if (error < 0)
		return error;
	if (valueless)
		b = 1;
	else if (git_config_parse_bool(&b, value) < 0)
		error = tm_error_set(TM_EINVALID,
				     "bad boolean config value '%s' for '%s'",
				     value, key);
	free(value);
	if (error < 0)
		return error;
	*out = b != 0;
	return 0;
}

int tm_git_config_seconds(double *out, tm_git *g, const char *key, double dflt)
{
	char *value = NULL, *end = NULL;
	bool valueless = false;
	double v = 0;
	int error;

	error = config_value(&value, &valueless, g, key);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		*out = dflt;
		return 0;
	}
	if (error < 0)
		return error;
	errno = 0;
	if (!valueless && *value)
		v = strtod(value, &end);
	if (valueless || !*value || *end || errno || !(v >= 0) || v > 1e9)
		error = tm_error_set(TM_EINVALID,
				     "bad numeric config value '%s' for '%s': "
				     "expected a number of seconds (such as "
				     "15 or 0.5); fix it with 'git config %s "
				     "<seconds>'",
				     value, key, key);
	free(value);
	if (error < 0)
		return error;
	*out = v;
	return 0;
}

int tm_author_id(char **out, const char *name, const char *email)
{
	char hex[GIT_OID_HEXSZ + 1];
	tm_buf id = TM_BUF_INIT;
	git_oid oid;
	char *slug;
	int error;

	if (!email)
		email = "";
	if ((error = tm_git_init()) < 0)
		return error;
	if (git_odb_hash(&oid, email, strlen(email), GIT_OBJECT_BLOB) < 0)
		return tm_git_error(TM_ERROR, "cannot hash the e-mail address");
	git_oid_tostr(hex, sizeof(hex), &oid);
	slug = tm_slugify_or(name, "user");
	tm_buf_printf(&id, "%s-%.4s", slug, hex);
	free(slug);
	*out = tm_buf_detach(&id);
	return 0;
}

int tm_git_author_id(char **out, tm_git *g)
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
	if (error == 0) {
		tm_error_clear();
		error = tm_author_id(out, name, email);
	}
	free(name);
	free(email);
	return error;
}

bool tm_git_has_commit(tm_git *g, const char *hex)
{
	git_commit *commit = NULL;
	git_oid oid;

	if (!g || !hex || !tm_git_is_hex_oid(hex, strlen(hex)))
		return false;
	if (git_oid_fromstr(&oid, hex) < 0)
		return false;
	if (git_commit_lookup(&commit, g->repo, &oid) < 0)
		return false;
	git_commit_free(commit);
	return true;
}
