/*
 * `paths` entries typed on the command line: normalised from the current
 * folder to the repository root (pure), and checked against HEAD, the
 * index and the work tree (see paths.h).
 */
#include "paths.h"

#include "error.h"
#include "git_internal.h"
#include "pathspec.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- normalisation (pure) ---- */

/* `s` without its trailing '/' (but "/" stays "/"): its length. */
static size_t trimmed_len(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

char *tm_paths_prefix(const char *root, const char *cwd)
{
	size_t rn = trimmed_len(root), cn = trimmed_len(cwd);
	tm_buf b = TM_BUF_INIT;

	if (rn == 1 && root[0] == '/')
		rn = 0; /* the tree is "/": every folder is in it */
	if (cn < rn || memcmp(root, cwd, rn) || (cn > rn && cwd[rn] != '/'))
		return NULL;
	if (cn > rn + 1) {
		tm_buf_put(&b, cwd + rn + 1, cn - rn - 1);
		tm_buf_putc(&b, '/');
	}
	return tm_buf_detach(&b);
}

bool tm_paths_is_magic(const char *entry)
{
	return entry && entry[0] == ':';
}

bool tm_paths_is_glob(const char *entry)
{
	return entry && strpbrk(entry, "*?[\\") != NULL;
}

/* Push the components of `p` (separated by '/') onto `parts`, resolving
 * "." and "..": false when ".." climbs above the start. */
static bool push_components(tm_strv *parts, const char *p)
{
	while (*p) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (!parts->n)
				return false;
			free(parts->items[--parts->n]);
		} else if (len && !(len == 1 && p[0] == '.')) {
			tm_strv_push_owned(parts, tm_xstrndup(p, len));
		}
		p += len;
		while (*p == '/')
			p++;
	}
	return true;
}

int tm_paths_normalize(char **out, const char *root, const char *prefix,
		       const char *typed)
{
	tm_strv parts = TM_STRV_INIT, base = TM_STRV_INIT;
	tm_buf b = TM_BUF_INIT;
	size_t i, tn = strlen(typed);
	bool ok = true, dir = tn && typed[tn - 1] == '/';
	int error = 0;

	if (!tn)
		return tm_error_set(TM_EINVALID, "an empty path names nothing");
	if (tm_paths_is_magic(typed)) {
		*out = tm_xstrdup(typed);
		return 0;
	}
	if (typed[0] == '/') {
		/* Absolute: it must lie in the tree, after normalisation. */
		ok = push_components(&parts, typed) &&
		     push_components(&base, root);
		for (i = 0; ok && i < base.n; i++)
			ok = i < parts.n &&
			     !strcmp(parts.items[i], base.items[i]);
		if (ok) {
			tm_strv rest = TM_STRV_INIT;

			for (i = base.n; i < parts.n; i++)
				tm_strv_push(&rest, parts.items[i]);
			tm_strv_clear(&parts);
			parts = rest;
		}
	} else {
		ok = push_components(&parts, prefix ? prefix : "") &&
		     push_components(&parts, typed);
	}
	if (!ok) {
		error = tm_error_set(TM_EINVALID,
				     "'%s' is outside the repository at '%s'",
				     typed, root);
		goto done;
	}
	for (i = 0; i < parts.n; i++)
		tm_buf_printf(&b, "%s%s", i ? "/" : "", parts.items[i]);
	if (!parts.n)
		tm_buf_putc(&b, '.');
	else if (dir)
		tm_buf_putc(&b, '/');
	*out = tm_buf_detach(&b);
done:
	tm_buf_release(&b);
	tm_strv_clear(&parts);
	tm_strv_clear(&base);
	return error;
}

/* ---- matching against a repository ---- */

struct specs {
	tm_pathspec *items;
	bool *matched;
	size_t n, left; /* entries, entries not matched yet */
};

/* Mark every entry that `path` matches; true when none is left. */
static bool mark(struct specs *sp, const char *path)
{
	size_t i, len = strlen(path);

	for (i = 0; i < sp->n; i++)
		if (!sp->matched[i] &&
		    tm_pathspec_matches(&sp->items[i], path, len)) {
			sp->matched[i] = true;
			sp->left--;
		}
	return sp->left == 0;
}

struct walk {
	struct specs *sp;
	tm_buf path;
};

static int walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct walk *w = payload;

	if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
		return 0;
	tm_buf_clear(&w->path);
	tm_buf_puts(&w->path, root);
	tm_buf_puts(&w->path, git_tree_entry_name(e));
	return mark(w->sp, tm_buf_cstr(&w->path)) ? 1 : 0;
}

/* Mark what HEAD's tree matches; 0 also with no HEAD. */
static int mark_head(struct specs *sp, git_repository *repo)
{
	git_object *obj = NULL;
	struct walk w = {sp, TM_BUF_INIT};
	int rc = git_revparse_single(&obj, repo, "HEAD^{tree}");

	if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH)
		return 0;
	if (rc < 0)
		return tm_git_error(TM_ERROR, "cannot read HEAD's tree");
	rc = git_tree_walk((git_tree *)obj, GIT_TREEWALK_PRE, walk_cb, &w);
	git_object_free(obj);
	tm_buf_release(&w.path);
	if (rc < 0 && rc != GIT_EUSER)
		return tm_git_error(TM_ERROR, "cannot walk HEAD's tree");
	return 0;
}

static int mark_index(struct specs *sp, git_repository *repo)
{
	git_index *idx = NULL;
	size_t i, n;

	if (git_repository_index(&idx, repo) < 0)
		return tm_git_error(TM_ERROR, "cannot read the index");
	n = git_index_entrycount(idx);
	for (i = 0; i < n && sp->left; i++)
		mark(sp, git_index_get_byindex(idx, i)->path);
	git_index_free(idx);
	return 0;
}

static void mark_worktree(struct specs *sp, const char *const *entries,
			  const char *workdir)
{
	tm_buf p = TM_BUF_INIT;
	struct stat st;
	size_t i;

	for (i = 0; workdir && i < sp->n; i++) {
		if (sp->matched[i] || tm_paths_is_glob(entries[i]) ||
		    sp->items[i].never)
			continue;
		tm_buf_clear(&p);
		tm_buf_printf(&p, "%s%s%.*s", workdir,
			      workdir[strlen(workdir) - 1] == '/' ? "" : "/",
			      (int)sp->items[i].len, sp->items[i].pattern);
		if (lstat(tm_buf_cstr(&p), &st) == 0 &&
		    (!sp->items[i].dir_only || S_ISDIR(st.st_mode))) {
			sp->matched[i] = true;
			sp->left--;
		}
	}
	tm_buf_release(&p);
}

int tm_paths_unmatched(tm_strv *unmatched, tm_git *g,
		       const char *const *entries, size_t n, bool worktree)
{
	git_repository *repo = tm_git_repository(g);
	struct specs sp;
	size_t i;
	int error;

	sp.items = tm_xcalloc(n ? n : 1, sizeof(*sp.items));
	sp.matched = tm_xcalloc(n ? n : 1, sizeof(*sp.matched));
	sp.n = n;
	sp.left = n;
	for (i = 0; i < n; i++) {
		tm_pathspec_parse(&sp.items[i], entries[i]);
		if (tm_paths_is_magic(entries[i])) {
			sp.matched[i] = true; /* not ours to judge */
			sp.left--;
		}
	}
	error = sp.left ? mark_head(&sp, repo) : 0;
	if (error == 0 && worktree && sp.left)
		error = mark_index(&sp, repo);
	if (error == 0 && worktree && sp.left)
		mark_worktree(&sp, entries, tm_git_workdir(g));
	for (i = 0; error == 0 && i < n; i++)
		if (!sp.matched[i])
			tm_strv_push(unmatched, entries[i]);
	for (i = 0; i < n; i++)
		tm_pathspec_free(&sp.items[i]);
	free(sp.items);
	free(sp.matched);
	return error;
}
