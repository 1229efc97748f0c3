/* Re-merge conflicted index entries with the merge rules (see resolve.h). */
#include "resolve.h"

#include "fs.h"
#include "error.h"
#include "git_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void add_entry(tm_resolve_report *r, const char *path,
		      tm_resolve_outcome outcome, const char *note)
{
	tm_resolve_entry *e;

	tm_xgrow((void **)&r->items, &r->alloc, r->n + 1, sizeof(*e));
	e = &r->items[r->n++];
	e->path = tm_xstrdup(path);
	e->outcome = outcome;
	e->note = tm_xstrdup_or_null(note);
}

void tm_resolve_report_clear(tm_resolve_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->items[i].path);
		free(r->items[i].note);
	}
	free(r->items);
	memset(r, 0, sizeof(*r));
}

static bool under_threadmind(const char *path)
{
	return !strncmp(path, ".threadmind/", 12) ||
	       strstr(path, "/.threadmind/") != NULL;
}

/* One conflicted path: which stages exist and their blobs. */
struct conflict {
	char *path;
	bool has[3]; /* ancestor, ours, theirs */
	git_oid id[3];
};

/* Is a stage's blob over the size limit?  Asks the object database for
 * the header only, so that a huge blob is never loaded. */
static int blob_too_large(bool *out, git_repository *repo,
			  const struct conflict *c, int stage)
{
	git_odb *odb = NULL;
	git_object_t type;
	size_t size;
	int rc;

	*out = false;
	if (!c->has[stage])
		return 0;
	if (git_repository_odb(&odb, repo) < 0)
		return tm_git_error(TM_ERROR,
				    "cannot open the object database");
	rc = git_odb_read_header(&size, &type, odb, &c->id[stage]);
	git_odb_free(odb);
	if (rc < 0)
		return tm_git_error(TM_ERROR, "cannot read the blob of '%s'",
				    c->path);
	*out = size > TM_MAX_FILE_SIZE;
	return 0;
}

/* The content of a stage's blob (empty for a missing stage). */
static int blob_of(tm_buf *out, git_repository *repo, const struct conflict *c,
		   int stage)
{
	git_blob *blob = NULL;

	if (!c->has[stage])
		return 0;
	if (git_blob_lookup(&blob, repo, &c->id[stage]) < 0)
		return tm_git_error(TM_ERROR, "cannot read the blob of '%s'",
				    c->path);
	tm_buf_put(out, git_blob_rawcontent(blob),
		   (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return 0;
}

static int resolve_one(tm_resolve_report *out, git_repository *repo,
		       git_index *index, const struct conflict *c,
		       const tm_merge_options *base)
{
	tm_buf o = TM_BUF_INIT, a = TM_BUF_INIT, b = TM_BUF_INIT;
	tm_buf full = TM_BUF_INIT;
	tm_merge_options opts = *base;
	tm_merge_result res;
	bool large;
	int error, k;

	if (tm_merge_kind_of_path(c->path, NULL) == TM_MERGE_KIND_TEXT) {
		add_entry(out, c->path, TM_RESOLVE_SKIPPED,
			  "not a thread or project file");
		return 0;
	}
	if (!c->has[1] || !c->has[2]) {
		add_entry(out, c->path, TM_RESOLVE_SKIPPED,
			  "deleted on one side: keep it with 'git add' or "
			  "drop it with 'git rm'");
		return 0;
	}
	for (k = 0; k < 3; k++) {
		if ((error = blob_too_large(&large, repo, c, k)) < 0)
			return error;
		if (large) {
			add_entry(out, c->path, TM_RESOLVE_SKIPPED,
				  "a side is larger than 1 MiB, which "
				  "threadmind refuses: resolve it by hand");
			return 0;
		}
	}
	if ((error = blob_of(&o, repo, c, 0)) < 0 ||
	    (error = blob_of(&a, repo, c, 1)) < 0 ||
	    (error = blob_of(&b, repo, c, 2)) < 0)
		goto done;
	opts.path = c->path;
	error = tm_merge_files(&res, tm_buf_cstr(&o), o.size, tm_buf_cstr(&a),
			       a.size, tm_buf_cstr(&b), b.size, &opts);
	if (error < 0)
		goto done;
	if (res.len > TM_MAX_FILE_SIZE) {
		add_entry(out, c->path, TM_RESOLVE_SKIPPED,
			  "the merged file would be larger than 1 MiB, which "
			  "threadmind refuses: resolve it by hand");
		tm_merge_result_clear(&res);
		goto done;
	}
	tm_buf_printf(&full, "%s%s", git_repository_workdir(repo), c->path);
	error = tm_atomic_write(tm_buf_cstr(&full), res.data, res.len);
	if (error == 0 && !res.conflicted &&
	    git_index_add_bypath(index, c->path) < 0)
		error = tm_git_error(TM_ERROR, "cannot stage '%s'", c->path);
	if (error == 0)
		add_entry(out, c->path,
			  res.conflicted ? TM_RESOLVE_CONFLICTS
					 : TM_RESOLVE_CLEAN,
			  res.note);
	tm_merge_result_clear(&res);
done:
	tm_buf_release(&o);
	tm_buf_release(&a);
	tm_buf_release(&b);
	tm_buf_release(&full);
	return error;
}

/* Copy the conflicts out first: staging changes the index under an
 * iterator. */
static int list_conflicts(struct conflict **out, size_t *n, git_index *index)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *e[3];
	size_t alloc = 0;
	int rc, k;

	*out = NULL;
	*n = 0;
	if (git_index_conflict_iterator_new(&it, index) < 0)
		return tm_git_error(TM_ERROR, "cannot read the index");
	while ((rc = git_index_conflict_next(&e[0], &e[1], &e[2], it)) == 0) {
		struct conflict *c;

		tm_xgrow((void **)out, &alloc, *n + 1, sizeof(**out));
		c = &(*out)[(*n)++];
		memset(c, 0, sizeof(*c));
		for (k = 0; k < 3; k++) {
			if (!e[k])
				continue;
			c->has[k] = true;
			c->id[k] = e[k]->id;
			if (!c->path)
				c->path = tm_xstrdup(e[k]->path);
		}
	}
	git_index_conflict_iterator_free(it);
	if (rc != GIT_ITEROVER)
		return tm_git_error(TM_ERROR, "cannot read the index");
	return 0;
}

/* Is this path one that libgit2 reads rules from (.gitattributes,
 * .gitignore) or a .threadmind folder or entry? */
static bool guarded_path(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, ".gitattributes") || !strcmp(base, ".gitignore") ||
	       !strcmp(base, ".threadmind") || under_threadmind(path);
}

static int symlink_refused(const char *path)
{
	return tm_error_set(TM_EINVALID,
			    "'%s' is a symbolic link; threadmind does not "
			    "follow links (git does not either): replace it "
			    "with a regular file, or remove it with 'git rm "
			    "--cached %s'",
			    path, path);
}

/*
 * libgit2 reads .gitattributes and .gitignore files when it stages a path
 * or re-hashes a racily clean entry while writing the index, and it follows
 * symbolic links there; a cloned repository could make it open any file.
 * Refuse before any such call: an index entry that is a symbolic link and
 * a rules file or under .threadmind/, or such a link in the working tree
 * at the top or in .threadmind/.
 */
static int refuse_symlinks(git_index *index, const char *workdir)
{
	static const char *const top[] = {".gitattributes",
					  ".gitignore",
					  ".threadmind",
					  ".threadmind/.gitattributes",
					  ".threadmind/.gitignore",
					  NULL};
	size_t i, n = git_index_entrycount(index);
	tm_buf full = TM_BUF_INIT;
	struct stat st;
	int error = 0;

	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);

		if (e && (e->mode & 0170000) == 0120000 &&
		    guarded_path(e->path))
			return symlink_refused(e->path);
	}
	for (i = 0; top[i] && error == 0; i++) {
		tm_buf_clear(&full);
		tm_buf_printf(&full, "%s%s", workdir, top[i]);
		if (lstat(tm_buf_cstr(&full), &st) == 0 && S_ISLNK(st.st_mode))
			error = symlink_refused(top[i]);
	}
	tm_buf_release(&full);
	return error;
}

static bool wanted(const struct conflict *c, const tm_strv *paths)
{
	if (paths && paths->n)
		return tm_strv_contains(paths, c->path);
	return under_threadmind(c->path);
}

int tm_resolve_index(tm_resolve_report *out, tm_git *g, const tm_strv *paths,
		     const tm_merge_options *opts)
{
	git_repository *repo = tm_git_repository(g);
	git_index *index = NULL;
	struct conflict *list = NULL;
	size_t n = 0, i, k;
	int error;

	memset(out, 0, sizeof(*out));
	if (!git_repository_workdir(repo))
		return tm_error_set(TM_EINVALID,
				    "resolve needs a working tree");
	if (git_repository_index(&index, repo) < 0)
		return tm_git_error(TM_ERROR, "cannot read the index");
	error = refuse_symlinks(index, git_repository_workdir(repo));
	if (error == 0)
		error = list_conflicts(&list, &n, index);
	/* Every named path must be a conflict before anything is written. */
	for (k = 0; error == 0 && paths && k < paths->n; k++) {
		for (i = 0; i < n && strcmp(list[i].path, paths->items[k]); i++)
			;
		if (i == n)
			error = tm_error_set(TM_ENOTFOUND,
					     "'%s' has no conflict to resolve",
					     paths->items[k]);
	}
	for (i = 0; error == 0 && i < n; i++)
		if (wanted(&list[i], paths))
			error = resolve_one(out, repo, index, &list[i], opts);
	if (error == 0 && git_index_write(index) < 0)
		error = tm_git_error(TM_ERROR, "cannot write the index");
	for (i = 0; i < n; i++)
		free(list[i].path);
	free(list);
	git_index_free(index);
	return error;
}
