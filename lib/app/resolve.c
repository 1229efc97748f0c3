/*
 * Re-merge conflicted index entries with the merge rules (see resolve.h):
 * the conflicts of the index, the sides' blobs, the file-by-file merge,
 * and the files' report.  resolve_identity.c splits two threads of one id,
 * resolve_pending.c lists what is waiting for resolve.
 */
#include "resolve.h"
#include "resolve_internal.h"

#include "fs.h"
#include "error.h"
#include "frontmatter.h"
#include "migrate.h"
#include "git_libgit2.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

tm_resolve_entry *tm_resolve__add_entry(tm_resolve_report *r, const char *path,
					tm_resolve_outcome outcome,
					const char *note)
{
	tm_resolve_entry *e;

	tm_xgrow((void **)&r->items, &r->alloc, r->n + 1, sizeof(*e));
	e = &r->items[r->n++];
	memset(e, 0, sizeof(*e));
	e->path = tm_xstrdup(path);
	e->outcome = outcome;
	e->note = tm_xstrdup_or_null(note);
	return e;
}

void tm_resolve_report_clear(tm_resolve_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		TM_FREE_ALL(r->items[i].path, r->items[i].note,
			    r->items[i].new_id, r->items[i].new_path,
			    r->items[i].kept_name, r->items[i].moved_name,
			    r->items[i].from);
		tm_strv_clear(&r->items[i].repointed);
	}
	free(r->items);
	memset(r, 0, sizeof(*r));
}

static bool under_threadmind(const char *path)
{
	return !strncmp(path, ".threadmind/", 12) ||
	       strstr(path, "/.threadmind/") != NULL;
}

/* Is a stage's blob over the size limit?  Asks the object database for
 * the header only, so that a huge blob is never loaded. */
int tm_resolve__blob_too_large(bool *out, git_repository *repo,
			       const struct tm_resolve__conflict *c, int stage)
{
	git_odb *odb = NULL;
	git_object_t type;
	size_t size;
	int rc;

	*out = false;
	if (!c->has[stage])
		return 0;
	if (c->given) {
		*out = c->given[stage].size > TM_MAX_FILE_SIZE;
		return 0;
	}
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
int tm_resolve__blob_of(tm_buf *out, git_repository *repo,
			const struct tm_resolve__conflict *c, int stage)
{
	git_blob *blob = NULL;

	if (!c->has[stage])
		return 0;
	if (c->given) {
		tm_buf_put(out, c->given[stage].ptr, c->given[stage].size);
		return 0;
	}
	if (git_blob_lookup(&blob, repo, &c->id[stage]) < 0)
		return tm_git_error(TM_ERROR, "cannot read the blob of '%s'",
				    c->path);
	tm_buf_put(out, git_blob_rawcontent(blob),
		   (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return 0;
}

/* ---- renamed differently on both sides ---- */

/* Whether blob `a` of `x` and blob `b` of `y` hold one thread: the same
 * blob, or the same identity (createdAt, author). */
static bool same_thread_blob(git_repository *repo,
			     const struct tm_resolve__conflict *x, int a,
			     const struct tm_resolve__conflict *y, int b)
{
	tm_buf t[2] = {TM_BUF_INIT, TM_BUF_INIT};
	tm_thread *th[2] = {NULL, NULL};
	bool same = git_oid_equal(&x->id[a], &y->id[b]);
	int k;

	if (!same && tm_resolve__blob_of(&t[0], repo, x, a) == 0 &&
	    tm_resolve__blob_of(&t[1], repo, y, b) == 0) {
		for (k = 0; k < 2; k++)
			if (tm_frontmatter_parse(&th[k], tm_buf_cstr(&t[k]),
						 t[k].size, "x", "merge") < 0)
				th[k] = NULL;
		same = th[0] && th[1] && (th[0]->created_at || th[0]->author) &&
		       tm_thread_same_identity(th[0]->created_at, th[0]->author,
					       th[1]->created_at,
					       th[1]->author);
	}
	for (k = 0; k < 2; k++) {
		tm_thread_free(th[k]);
		tm_buf_release(&t[k]);
	}
	tm_error_clear();
	return same;
}

/*
 * git's rename/rename conflict: a thread file renamed on both sides, to
 * two names.  git leaves the old path deleted on both sides (stage 1
 * only) and each new name added on one side (stage 2 only, stage 3 only).
 * Each of the three learns the others' paths, so that `resolve` says
 * what happened instead of "deleted on one side".
 */
static void find_renames(struct tm_resolve__conflict *list, size_t n,
			 git_repository *repo)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		struct tm_resolve__conflict *o = &list[i], *a = NULL, *b = NULL;

		if (!o->has[0] || o->has[1] || o->has[2] ||
		    tm_merge_kind_of_path(o->path, NULL) !=
			    TM_MERGE_KIND_THREAD)
			continue;
		for (j = 0; j < n && !a; j++)
			if (!list[j].has[0] && list[j].has[1] &&
			    !list[j].has[2] && !list[j].renamed[0] &&
			    same_thread_blob(repo, o, 0, &list[j], 1))
				a = &list[j];
		for (k = 0; k < n && a && !b; k++)
			if (!list[k].has[0] && list[k].has[2] &&
			    !list[k].has[1] && !list[k].renamed[0] &&
			    same_thread_blob(repo, o, 0, &list[k], 2))
				b = &list[k];
		if (!b)
			continue;
		o->renamed[0] = a->renamed[0] = b->renamed[0] = o->path;
		o->renamed[1] = a->renamed[1] = b->renamed[1] = a->path;
		o->renamed[2] = a->renamed[2] = b->renamed[2] = b->path;
	}
}

/* What happened to a path of a rename/rename, and the way out. */
static char *renamed_note(const struct tm_resolve__conflict *c)
{
	tm_buf b = TM_BUF_INIT;

	if (c->has[0])
		tm_buf_printf(&b,
			      "renamed on both sides: to '%s' in HEAD and to "
			      "'%s' on the other side",
			      c->renamed[1], c->renamed[2]);
	else
		tm_buf_printf(&b,
			      "'%s' was renamed to '%s' in HEAD and to '%s' "
			      "on the other side",
			      c->renamed[0], c->renamed[1], c->renamed[2]);
	tm_buf_printf(&b,
		      ": keep one name ('git add' it, 'git rm' the other) and "
		      "'git rm' '%s'",
		      c->renamed[0]);
	return tm_buf_detach(&b);
}

int tm_resolve__stage_path(git_index *index, const char *path)
{
	if (git_index_add_bypath(index, path) < 0)
		return tm_git_error(TM_ERROR, "cannot stage '%s'", path);
	return 0;
}
/*
 * A ThreadMind 0.4 index (trees/{project}.json) that a merge brought back
 * after the upgrade deleted it: the upgrade takes from it what it may
 * (migrate.h) and deletes it, then its deletion is staged.
 */
static int resolve_04_index(tm_resolve_report *out, git_repository *repo,
			    git_index *index,
			    const struct tm_resolve__conflict *c)
{
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	tm_buf file = TM_BUF_INIT, root = TM_BUF_INIT;
	const char *at = strstr(c->path, ".threadmind/trees/");
	tm_store *s = NULL;
	struct stat st;
	int error = 0;

	tm_buf_printf(&file, "%s%s", git_repository_workdir(repo), c->path);
	tm_buf_printf(&root, "%s%.*s", git_repository_workdir(repo),
		      (int)(at - c->path), c->path);
	if (lstat(tm_buf_cstr(&file), &st) == 0 &&
	    tm_store_open(&s, tm_buf_cstr(&root)) == 0)
		error = tm_migrate_run(&report, &left, s, false, false);
	tm_error_clear();
	if (error < 0)
		goto done;
	if (lstat(tm_buf_cstr(&file), &st) == 0) {
		tm_resolve__add_entry(
			out, c->path, TM_RESOLVE_SKIPPED,
			"ThreadMind 0.4's index is kept: 'git threadmind "
			"migrate' says why");
		goto done;
	}
	if (git_index_remove_bypath(index, c->path) < 0) {
		error = tm_git_error(TM_ERROR,
				     "cannot stage the deletion of "
				     "'%s'",
				     c->path);
		goto done;
	}
	tm_resolve__add_entry(
		out, c->path, TM_RESOLVE_DROPPED,
		"ThreadMind 0.4's index: the upgrade took what it may and "
		"deleted it; someone still runs 0.4, ask them to upgrade");
done:
	tm_store_free(s);
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	tm_buf_release(&file);
	tm_buf_release(&root);
	return error;
}
static int resolve_one(tm_resolve_report *out, git_repository *repo,
		       git_index *index, const struct tm_resolve__conflict *c,
		       const tm_merge_options *base)
{
	tm_buf side[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	tm_buf full = TM_BUF_INIT;
	tm_merge_options opts = *base;
	tm_merge_result res;
	tm_merge_kind kind;
	char *id = NULL;
	bool large, split;
	int error, keeper, k;

	if (tm_migrate_is_04_index(c->path))
		return resolve_04_index(out, repo, index, c);
	kind = tm_merge_kind_of_path(c->path, &id);
	if (kind == TM_MERGE_KIND_TEXT) {
		tm_resolve__add_entry(out, c->path, TM_RESOLVE_SKIPPED,
				      "not a thread or project file");
		return 0;
	}
	if (!c->has[1] || !c->has[2]) {
		char *note = c->renamed[0] ? renamed_note(c) : NULL;

		tm_resolve__add_entry(
			out, c->path, TM_RESOLVE_SKIPPED,
			note ? note
			     : "deleted on one side: keep it with 'git add' "
			       "or drop it with 'git rm'");
		free(note);
		free(id);
		return 0;
	}
	for (k = 0; k < 3; k++) {
		if ((error = tm_resolve__blob_too_large(&large, repo, c, k)) <
			    0 ||
		    large) {
			if (large)
				tm_resolve__add_entry(
					out, c->path, TM_RESOLVE_SKIPPED,
					"a side is larger than 1 MiB, which "
					"threadmind refuses: resolve it by "
					"hand");
			free(id);
			return error;
		}
	}
	if ((error = tm_resolve__blob_of(&side[0], repo, c, 0)) < 0 ||
	    (error = tm_resolve__blob_of(&side[1], repo, c, 1)) < 0 ||
	    (error = tm_resolve__blob_of(&side[2], repo, c, 2)) < 0)
		goto done;
	if (kind == TM_MERGE_KIND_THREAD &&
	    ((error = tm_resolve__identity(&split, out, repo, index, c, side,
					   id, base)) < 0 ||
	     split))
		goto done;
	opts.path = c->path;
	error = tm_merge_files(&res, tm_buf_cstr(&side[0]), side[0].size,
			       tm_buf_cstr(&side[1]), side[1].size,
			       tm_buf_cstr(&side[2]), side[2].size, &opts);
	if (error < 0)
		goto done;
	tm_buf_printf(&full, "%s%s", git_repository_workdir(repo), c->path);
	error = tm_atomic_write(tm_buf_cstr(&full), res.data, res.len);
	if (error == 0 && !res.conflicted)
		error = tm_resolve__stage_path(index, c->path);
	if (error == 0)
		tm_resolve__add_entry(out, c->path,
				      res.conflicted ? TM_RESOLVE_CONFLICTS
						     : TM_RESOLVE_CLEAN,
				      res.note);
	tm_merge_result_clear(&res);
done:
	for (keeper = 0; keeper < 3; keeper++)
		tm_buf_release(&side[keeper]);
	tm_buf_release(&full);
	free(id);
	return error;
}

/* Copy the conflicts out first: staging changes the index under an
 * iterator. */
int tm_resolve__list_conflicts(struct tm_resolve__conflict **out, size_t *n,
			       git_index *index)
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
		struct tm_resolve__conflict *c;

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

static bool wanted(const struct tm_resolve__conflict *c, const tm_strv *paths)
{
	if (paths && paths->n)
		return tm_strv_contains(paths, c->path);
	return under_threadmind(c->path);
}

/*
 * Re-merge working-tree file `path` from its conflict markers
 * (tm_resolve__marker_sides) as resolve_one does from the stages; markers
 * that do not pair up skip it with a note.
 */
static int resolve_marked(tm_resolve_report *out, git_repository *repo,
			  git_index *index, const char *path,
			  const tm_merge_options *opts)
{
	tm_buf side[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	struct tm_resolve__conflict c;
	char *from = NULL;
	size_t before = out->n;
	int error, k;

	memset(&c, 0, sizeof(c));
	error = tm_resolve__marker_sides(side, &c.has[0], &from, repo, path);
	if (error == TM_EPARSE) {
		tm_resolve__add_entry(out, path, TM_RESOLVE_SKIPPED,
				      tm_error_last());
		tm_error_clear();
		error = 0;
	} else if (error == 0) {
		c.path = (char *)path;
		c.has[1] = c.has[2] = true;
		c.given = side;
		error = resolve_one(out, repo, index, &c, opts);
		if (error == 0 && out->n > before) {
			out->items[before].from = from;
			from = NULL;
		}
	}
	for (k = 0; k < 3; k++)
		tm_buf_release(&side[k]);
	free(from);
	return error;
}

int tm_resolve_index(tm_resolve_report *out, tm_git *g, const tm_strv *paths,
		     const tm_merge_options *opts)
{
	return tm_resolve_files(out, g, paths, opts, TM_RESOLVE_FROM_ANY);
}

int tm_resolve_files(tm_resolve_report *out, tm_git *g, const tm_strv *paths,
		     const tm_merge_options *opts, tm_resolve_from from)
{
	git_repository *repo = tm_git_repository(g);
	git_index *index = NULL;
	struct tm_resolve__conflict *list = NULL;
	tm_strv unmerged = TM_STRV_INIT, marked = TM_STRV_INIT;
	size_t n = 0, i;
	int error;

	memset(out, 0, sizeof(*out));
	if (!git_repository_workdir(repo))
		return tm_error_set(TM_EINVALID,
				    "resolve needs a working tree");
	out->op = tm_git_operation(g);
	if ((error = tm_git_index_open(&index, repo)) < 0)
		return error;
	error = refuse_symlinks(index, git_repository_workdir(repo));
	if (error == 0)
		error = tm_resolve__list_conflicts(&list, &n, index);
	if (error == 0)
		find_renames(list, n, repo);
	for (i = 0; i < n; i++)
		tm_strv_push(&unmerged, list[i].path);
	/* Every named path must be a conflict, in the index or as markers
	 * in the file, before anything is written. */
	if (error == 0)
		error = tm_resolve__select(&marked, repo, index, &unmerged,
					   paths, from);
	for (i = 0; error == 0 && from == TM_RESOLVE_FROM_ANY && i < n; i++)
		if (wanted(&list[i], paths) &&
		    !tm_strv_contains(&marked, list[i].path))
			error = resolve_one(out, repo, index, &list[i], opts);
	for (i = 0; error == 0 && i < marked.n; i++)
		error = resolve_marked(out, repo, index, marked.items[i], opts);
	if (error == 0 && git_index_write(index) < 0)
		error = tm_git_error(TM_ERROR, "cannot write the index");
	for (i = 0; i < n; i++)
		free(list[i].path);
	free(list);
	tm_strv_clear(&unmerged);
	tm_strv_clear(&marked);
	git_index_free(index);
	return error;
}
