/*
 * Files whose conflict markers git no longer lists as a conflict (a merge
 * made without the driver, committed or staged): which ones, their two
 * sides from the markers and their ancestor from history (resolve.h,
 * tm_resolve_files).
 */
#include "resolve_internal.h"

#include "error.h"
#include "fs.h"
#include "git_libgit2.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the sides of the markers ---- */

void tm_resolve_sides_clear(tm_resolve_sides *s)
{
	tm_buf_release(&s->ours);
	tm_buf_release(&s->theirs);
	tm_buf_release(&s->base);
	memset(s, 0, sizeof(*s));
}

/* The run of `c` that line [p, e) starts with when it is a marker: 7 or
 * more (exactly `size` when not 0), then a blank or the end of the line;
 * else 0. */
static size_t marker(const char *p, const char *e, char c, size_t size)
{
	const char *q = p;

	while (q < e && *q == c)
		q++;
	if (q - p < 7 || (size && (size_t)(q - p) != size))
		return 0;
	if (q < e && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n')
		return 0;
	return (size_t)(q - p);
}

static bool is_fence(const char *p, const char *e)
{
	return e - p >= 3 && (!memcmp(p, "```", 3) || !memcmp(p, "~~~", 3));
}

int tm_resolve_split_markers(tm_resolve_sides *out, const char *data,
			     size_t len)
{
	enum { OUT, OURS, BASE, THEIRS } state = OUT;
	const char *p = data, *end = data + len, *nl, *e;
	size_t size = 0, line = 0, opened = 0;
	bool fenced = false, hunk_base = false;

	memset(out, 0, sizeof(*out));
	out->base_complete = true;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		e = nl ? nl + 1 : end;
		line++;
		switch (state) {
		case OUT:
			if (is_fence(p, e)) {
				fenced = !fenced;
			} else if (!fenced && (size = marker(p, e, '<', 0))) {
				state = OURS;
				opened = line;
				hunk_base = false;
				break;
			}
			tm_buf_put(&out->ours, p, (size_t)(e - p));
			tm_buf_put(&out->theirs, p, (size_t)(e - p));
			tm_buf_put(&out->base, p, (size_t)(e - p));
			break;
		case OURS:
			if (marker(p, e, '|', size)) {
				state = BASE;
				hunk_base = true;
			} else if (marker(p, e, '=', size)) {
				state = THEIRS;
			} else {
				tm_buf_put(&out->ours, p, (size_t)(e - p));
			}
			break;
		case BASE:
			if (marker(p, e, '=', size))
				state = THEIRS;
			else
				tm_buf_put(&out->base, p, (size_t)(e - p));
			break;
		case THEIRS:
			if (marker(p, e, '>', size)) {
				state = OUT;
				out->conflicts++;
				out->base_complete &= hunk_base;
			} else {
				tm_buf_put(&out->theirs, p, (size_t)(e - p));
			}
			break;
		}
		p = e;
	}
	if (state != OUT) {
		tm_resolve_sides_clear(out);
		return tm_error_set(TM_EPARSE,
				    "the conflict opened at line %zu is not "
				    "closed: a line of %zu '=' then one of "
				    "%zu '>' must follow it",
				    opened, size, size);
	}
	if (!out->conflicts)
		out->base_complete = false;
	return 0;
}

/* ---- the ancestor, from history ---- */

/* The blob of `path` in `commit`'s tree; false when it has none. */
static bool blob_in(git_oid *out, git_commit *commit, const char *path)
{
	return tm_git_commit_entry_id(out, commit, path, GIT_OBJECT_BLOB);
}

/* Append blob `id` to `out`; false when it cannot be read. */
static bool read_blob(tm_buf *out, git_repository *repo, const git_oid *id)
{
	git_blob *blob = NULL;

	if (git_blob_lookup(&blob, repo, id) < 0) {
		git_error_clear();
		return false;
	}
	tm_buf_put(out, git_blob_rawcontent(blob),
		   (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return true;
}

/* Whether `path` in `commit` holds conflict markers. */
static bool marked_in(git_repository *repo, git_commit *commit,
		      const char *path)
{
	tm_buf data = TM_BUF_INIT;
	git_oid id;
	bool marked;

	marked = blob_in(&id, commit, path) && read_blob(&data, repo, &id) &&
		 tm_conflict_markers_left(tm_buf_cstr(&data), data.size);
	tm_buf_release(&data);
	return marked;
}

/* The abbreviated id of a commit (as git shows it) into `out`. */
static void short_id(tm_buf *out, git_commit *c)
{
	git_buf b = GIT_BUF_INIT;

	if (git_object_short_id(&b, (git_object *)c) == 0)
		tm_buf_put(out, b.ptr, b.size);
	else
		tm_buf_printf(out, "%.7s", git_oid_tostr_s(git_commit_id(c)));
	git_buf_dispose(&b);
	git_error_clear();
}

/*
 * The commit of HEAD's history that introduced the markers of `path`:
 * from HEAD (whose version holds them), go to a parent with the same
 * version (git's history simplification), else to a parent whose version
 * still holds markers (the file was edited after the conflict); the first
 * commit with neither is the one.  NULL when HEAD's version holds none.
 */
static git_commit *introducer(git_repository *repo, git_commit *head,
			      const char *path)
{
	git_commit *c = NULL, *next, *p;
	git_oid here, there;
	unsigned i, n;

	if (!blob_in(&here, head, path) || !marked_in(repo, head, path))
		return NULL;
	if (git_commit_dup(&c, head) < 0)
		return NULL;
	for (;;) {
		next = NULL;
		n = git_commit_parentcount(c);
		for (i = 0; !next && i < n; i++) {
			if (git_commit_parent(&p, c, i) < 0) {
				git_error_clear(); /* a shallow boundary */
				continue;
			}
			if (blob_in(&there, p, path) &&
			    git_oid_equal(&here, &there))
				next = p;
			else
				git_commit_free(p);
		}
		for (i = 0; !next && i < n; i++) {
			if (git_commit_parent(&p, c, i) < 0) {
				git_error_clear();
				continue;
			}
			if (marked_in(repo, p, path) && blob_in(&here, p, path))
				next = p;
			else
				git_commit_free(p);
		}
		if (!next)
			return c;
		git_commit_free(c);
		c = next;
	}
}

/* The merge base of the parents of merge commit `m` (NULL: none). */
static git_commit *parents_base(git_repository *repo, git_commit *m)
{
	unsigned i, n = git_commit_parentcount(m);
	git_oid *ids = tm_xcalloc(n + 1, sizeof(git_oid)), base;
	git_commit *c = NULL;

	for (i = 0; i < n; i++)
		git_oid_cpy(&ids[i], git_commit_parent_id(m, i));
	if (n >= 2 && git_merge_base_many(&base, repo, n, ids) == 0 &&
	    git_commit_lookup(&c, repo, &base) < 0)
		c = NULL;
	git_error_clear();
	free(ids);
	return c;
}

/* The commit `spec` names (a ref of an operation in progress), or NULL. */
static git_commit *named(git_repository *repo, const char *spec)
{
	git_object *obj = NULL;
	git_commit *c = NULL;

	if (git_revparse_single(&obj, repo, spec) == 0 &&
	    git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT) < 0)
		c = NULL;
	git_object_free(obj);
	git_error_clear();
	return c;
}

/*
 * The ancestor while an operation that has not committed yet is in
 * progress: the merge base of HEAD and MERGE_HEAD, the parent of the
 * commit being picked (CHERRY_PICK_HEAD, REBASE_HEAD).  `what` says which.
 */
static git_commit *pending_base(git_repository *repo, git_commit *head,
				const char **what)
{
	git_commit *theirs, *c = NULL;
	git_oid base;

	if ((theirs = named(repo, "MERGE_HEAD"))) {
		*what = "the merge base of HEAD and MERGE_HEAD";
		if (git_merge_base(&base, repo, git_commit_id(head),
				   git_commit_id(theirs)) == 0 &&
		    git_commit_lookup(&c, repo, &base) < 0)
			c = NULL;
		git_commit_free(theirs);
		git_error_clear();
		return c;
	}
	if ((c = named(repo, "CHERRY_PICK_HEAD^")))
		*what = "the parent of CHERRY_PICK_HEAD";
	else if ((c = named(repo, "REBASE_HEAD^")))
		*what = "the parent of REBASE_HEAD";
	return c;
}

/*
 * The ancestor of `path` (resolve.h, tm_resolve_files) into `base`;
 * *found false when history gives none.  What was used is appended to
 * `from`.
 */
static void history_base(tm_buf *base, bool *found, tm_buf *from,
			 git_repository *repo, const char *path)
{
	git_commit *head = NULL, *intro = NULL, *anc = NULL;
	const char *what = NULL;
	git_oid id;

	*found = false;
	if (git_repository_head_unborn(repo) == 1 ||
	    (head = named(repo, "HEAD")) == NULL) {
		tm_buf_puts(from, "the conflict markers in the file");
		goto done;
	}
	if ((intro = introducer(repo, head, path))) {
		tm_buf_puts(from, "the conflict markers committed in ");
		short_id(from, intro);
		if (git_commit_parentcount(intro) < 2) {
			tm_buf_puts(from, ", which is not a merge");
			goto done;
		}
		anc = parents_base(repo, intro);
		what = "the merge base of its parents";
	} else {
		tm_buf_puts(from, "the conflict markers in the file");
		anc = pending_base(repo, head, &what);
	}
	if (!anc)
		goto done;
	tm_buf_printf(from, ", against %s (", what);
	short_id(from, anc);
	tm_buf_putc(from, ')');
	/* a merge base without the file: the empty ancestor of an add/add */
	if (!(blob_in(&id, anc, path) && read_blob(base, repo, &id)))
		tm_buf_puts(from, ", which has no such file: merged as a file "
				  "added on both sides");
	*found = true;
done:
	git_commit_free(anc);
	git_commit_free(intro);
	git_commit_free(head);
}

/* Read working-tree file `path` (a repository path) into `out`. */
static int read_worktree(tm_buf *out, git_repository *repo, const char *path)
{
	const char *slash = strrchr(path, '/');
	tm_buf dir = TM_BUF_INIT;
	int fd, error;

	tm_buf_puts(&dir, git_repository_workdir(repo));
	if (slash)
		tm_buf_put(&dir, path, (size_t)(slash - path));
	if ((error = tm_fs_open_dir(&fd, tm_buf_cstr(&dir))) == 0) {
		error = tm_fs_read_at(out, fd, slash ? slash + 1 : path, path,
				      TM_MAX_FILE_SIZE);
		close(fd);
	}
	tm_buf_release(&dir);
	return error;
}

int tm_resolve__marker_sides(tm_buf side[3], bool *has_base, char **from,
			     git_repository *repo, const char *path)
{
	tm_resolve_sides s;
	tm_buf data = TM_BUF_INIT, hist = TM_BUF_INIT, why = TM_BUF_INIT;
	bool found;
	int error;

	if ((error = read_worktree(&data, repo, path)) < 0)
		goto done;
	if ((error = tm_resolve_split_markers(&s, tm_buf_cstr(&data),
					      data.size)) < 0) {
		/* name the file: the caller skips it with this note */
		tm_buf_printf(&why, "%s: resolve it by hand", tm_error_last());
		error = tm_error_set(TM_EPARSE, "%s", tm_buf_cstr(&why));
		goto done;
	}
	history_base(&hist, &found, &why, repo, path);
	if (found) {
		tm_buf_put(&side[0], hist.ptr, hist.size);
	} else if (s.base_complete) {
		tm_buf_put(&side[0], s.base.ptr, s.base.size);
		tm_buf_puts(&why, ", against the ancestor blocks of its "
				  "diff3 markers");
		found = true;
	} else {
		tm_buf_puts(&why, "; no ancestor: merged as a file added on "
				  "both sides");
	}
	tm_buf_put(&side[1], s.ours.ptr, s.ours.size);
	tm_buf_put(&side[2], s.theirs.ptr, s.theirs.size);
	*has_base = found;
	*from = tm_buf_detach(&why);
	tm_resolve_sides_clear(&s);
done:
	tm_buf_release(&data);
	tm_buf_release(&hist);
	tm_buf_release(&why);
	return error;
}

/* ---- which files ---- */

/* Whether working-tree file `path` holds conflict markers. */
static bool holds_markers(git_repository *repo, const char *path)
{
	tm_buf data = TM_BUF_INIT;
	bool r = read_worktree(&data, repo, path) == 0 &&
		 tm_conflict_markers_left(tm_buf_cstr(&data), data.size);

	tm_error_clear();
	tm_buf_release(&data);
	return r;
}

static bool in_store(const char *path)
{
	return (!strncmp(path, ".threadmind/", 12) ||
		strstr(path, "/.threadmind/") != NULL) &&
	       tm_merge_kind_of_path(path, NULL) != TM_MERGE_KIND_TEXT;
}

/* The files of folder `rel` (a repository path) of the working tree that
 * are thread or project files, appended as repository paths; with
 * `subfolders`, those of its subfolders instead.  Symbolic links are not
 * followed (docs/SECURITY.md). */
static void list_worktree(tm_strv *out, git_repository *repo, const char *rel,
			  bool subfolders)
{
	tm_buf dir = TM_BUF_INIT, path = TM_BUF_INIT;
	struct dirent *d;
	struct stat st;
	DIR *D = NULL;

	tm_buf_printf(&dir, "%s%s", git_repository_workdir(repo), rel);
	if (lstat(tm_buf_cstr(&dir), &st) < 0 || !S_ISDIR(st.st_mode) ||
	    !(D = opendir(tm_buf_cstr(&dir)))) {
		tm_buf_release(&dir);
		return;
	}
	while ((d = readdir(D))) {
		if (d->d_name[0] == '.')
			continue;
		tm_buf_clear(&path);
		tm_buf_printf(&path, "%s/%s", rel, d->d_name);
		if (subfolders)
			list_worktree(out, repo, tm_buf_cstr(&path), false);
		else if (in_store(tm_buf_cstr(&path)))
			tm_strv_push(out, tm_buf_cstr(&path));
	}
	closedir(D);
	tm_buf_release(&dir);
	tm_buf_release(&path);
}

/* The thread and project files in the index (any stage) and in the
 * working tree's top-level store, sorted, each once. */
static void candidates(tm_strv *out, git_repository *repo, git_index *index)
{
	size_t i, n = git_index_entrycount(index);

	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);

		if (e && in_store(e->path))
			tm_strv_push(out, e->path);
	}
	list_worktree(out, repo, ".threadmind/threads", true);
	list_worktree(out, repo, ".threadmind/projects", false);
	tm_strv_sort_unique(out);
}

int tm_resolve__select(tm_strv *out, git_repository *repo, git_index *index,
		       const tm_strv *unmerged, const tm_strv *paths,
		       tm_resolve_from from)
{
	tm_strv all = TM_STRV_INIT;
	size_t i;

	if (paths && paths->n) {
		for (i = 0; i < paths->n; i++) {
			const char *p = paths->items[i];

			if (from == TM_RESOLVE_FROM_ANY &&
			    tm_strv_contains(unmerged, p))
				continue;
			if (!holds_markers(repo, p))
				return tm_error_set(
					TM_ENOTFOUND,
					"'%s' has no conflict to resolve", p);
			tm_strv_push(out, p);
		}
		return 0;
	}
	candidates(&all, repo, index);
	for (i = 0; i < all.n; i++)
		if (!(from == TM_RESOLVE_FROM_ANY &&
		      tm_strv_contains(unmerged, all.items[i])) &&
		    holds_markers(repo, all.items[i]))
			tm_strv_push(out, all.items[i]);
	tm_strv_clear(&all);
	return 0;
}
