/*
 * Reading the thread files of a commit, of the index or of the work tree
 * (see git_threads.h), and the revisions `diff` takes.
 */
#include "git_threads_reader.h"
#include "error.h"
#include "fs.h"
#include "git_libgit2.h"
#include "slug.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- revisions ---- */

static int peel_commit(git_oid *out, git_object *obj)
{
	git_object *c = NULL;
	int error = git_object_peel(&c, obj, GIT_OBJECT_COMMIT);

	if (error == 0)
		git_oid_cpy(out, git_object_id(c));
	git_object_free(c);
	return error;
}

static int bad_revision(const char *rev)
{
	return tm_error_set(TM_ENOTFOUND, "bad revision '%s'", rev);
}

int tm_git_resolve_commit(char out_hex41[41], tm_git *g, const char *rev)
{
	git_repository *repo = tm_git_repository(g);
	git_object *obj = NULL;
	git_oid oid;
	int error;

	if (!repo)
		return tm_git_error(TM_ERROR, "cannot open the repository");
	if (!*rev || git_revparse_single(&obj, repo, rev) < 0)
		return bad_revision(rev);
	error = peel_commit(&oid, obj);
	git_object_free(obj);
	if (error < 0)
		return bad_revision(rev);
	git_oid_tostr(out_hex41, 41, &oid);
	return 0;
}

bool tm_git_is_revision(tm_git *g, const char *arg)
{
	git_repository *repo = tm_git_repository(g);
	git_revspec rs;
	git_oid oid;
	bool ok;

	if (!repo || !*arg)
		return false;
	if (arg[0] == '^')
		arg++;
	if (git_revparse(&rs, repo, arg) < 0) {
		tm_error_clear();
		return false;
	}
	ok = rs.from && peel_commit(&oid, rs.from) == 0 &&
	     (!rs.to || peel_commit(&oid, rs.to) == 0);
	git_object_free(rs.from);
	git_object_free(rs.to);
	return ok;
}

static void side_commit(tm_side *s, const git_oid *oid)
{
	s->kind = TM_SIDE_COMMIT;
	if (oid)
		git_oid_tostr(s->commit, sizeof(s->commit), oid);
	else
		s->commit[0] = '\0';
}

/* One revision argument: a commit (*range false) or a range. */
static int parse_spec(git_oid *from, git_oid *to, bool *range, tm_git *g,
		      const char *spec)
{
	git_repository *repo = tm_git_repository(g);
	git_revspec rs;
	int error = 0;

	if (!repo)
		return tm_git_error(TM_ERROR, "cannot open the repository");
	if (!*spec || git_revparse(&rs, repo, spec) < 0)
		return bad_revision(spec);
	*range = (rs.flags & GIT_REVSPEC_RANGE) != 0;
	if (peel_commit(from, rs.from) < 0 ||
	    (*range && peel_commit(to, rs.to) < 0))
		error = bad_revision(spec);
	else if (rs.flags & GIT_REVSPEC_MERGE_BASE) {
		git_oid base;

		if (git_merge_base(&base, repo, from, to) < 0)
			error = tm_error_set(TM_EINVALID,
					     "'%s': the two sides have no "
					     "merge base",
					     spec);
		else
			git_oid_cpy(from, &base);
	}
	git_object_free(rs.from);
	git_object_free(rs.to);
	return error;
}

int tm_git_diff_sides(tm_side *before, tm_side *after, tm_git *g,
		      const char *const *revs, size_t nrevs, bool cached)
{
	git_oid a, b, c;
	bool range_a = false, range_b = false;
	int error;

	if (nrevs > 2)
		return tm_error_set(TM_EINVALID,
				    "too many revisions: diff compares two");
	if (nrevs == 0) {
		char head[41];

		if (!cached) {
			before->kind = TM_SIDE_INDEX;
			after->kind = TM_SIDE_WORKTREE;
			return 0;
		}
		error = tm_git_head(head, g);
		if (error == TM_ENOTFOUND) {
			tm_error_clear();
			side_commit(before, NULL);
		} else if (error < 0) {
			return error;
		} else {
			before->kind = TM_SIDE_COMMIT;
			memcpy(before->commit, head, 41);
		}
		after->kind = TM_SIDE_INDEX;
		return 0;
	}
	if ((error = parse_spec(&a, &b, &range_a, g, revs[0])) < 0 ||
	    (nrevs == 2 &&
	     (error = parse_spec(&c, &c, &range_b, g, revs[1])) < 0))
		return error;
	if (range_b || (range_a && nrevs == 2))
		return tm_error_set(TM_EINVALID,
				    "a range ('%s') cannot be given with "
				    "another revision",
				    range_a ? revs[0] : revs[1]);
	if ((range_a || nrevs == 2) && cached)
		return tm_error_set(TM_EINVALID,
				    "--cached compares one commit with the "
				    "index");
	side_commit(before, &a);
	if (range_a)
		side_commit(after, &b);
	else if (nrevs == 2)
		side_commit(after, &c);
	else
		after->kind = cached ? TM_SIDE_INDEX : TM_SIDE_WORKTREE;
	return 0;
}

/* ---- a side's files ---- */

static int open_worktree(struct tm_reader *r, tm_git *g, const char *prefix)
{
	const char *wd = tm_git_workdir(g);
	tm_buf path = TM_BUF_INIT;
	int fd = -1, error;

	if (!wd)
		return tm_error_set(TM_EINVALID,
				    "this operation must be run in a work "
				    "tree");
	tm_buf_printf(&path, "%s%s%s", wd, prefix, ".threadmind");
	error = tm_fs_open_dir(&fd, tm_buf_cstr(&path));
	if (error == 0) {
		tm_buf_puts(&path, "/threads");
		error = tm_fs_open_subdir(&r->dirfd, fd, "threads",
					  tm_buf_cstr(&path), false);
		close(fd);
	}
	tm_buf_release(&path);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		return 0;
	}
	return error;
}

int tm_reader_open(struct tm_reader *r, tm_git *g, const char *prefix,
		   const tm_side *side)
{
	git_oid oid;
	git_commit *c = NULL;
	git_tree_entry *e = NULL;
	int error = 0;

	memset(r, 0, sizeof(*r));
	r->kind = side->kind;
	r->dirfd = r->project_fd = -1;
	r->repo = tm_git_repository(g);
	if (!r->repo)
		return tm_git_error(TM_ERROR, "cannot open the repository");
	r->threads_path = tm_xmalloc(strlen(prefix) + 21);
	strcpy(r->threads_path, prefix);
	strcat(r->threads_path, ".threadmind/threads/");
	if (side->kind == TM_SIDE_COMMIT) {
		if (!side->commit[0])
			return 0;
		memcpy(r->abbrev, side->commit, 7);
		if (git_oid_fromstr(&oid, side->commit) < 0 ||
		    git_commit_lookup(&c, r->repo, &oid) < 0 ||
		    git_commit_tree(&r->root, c) < 0) {
			error = tm_git_error(TM_ERROR, "cannot read commit %s",
					     side->commit);
			goto done;
		}
		r->threads_path[strlen(r->threads_path) - 1] = '\0';
		error = git_tree_entry_bypath(&e, r->root, r->threads_path);
		r->threads_path[strlen(r->threads_path)] = '/';
		if (error == GIT_ENOTFOUND ||
		    (e && git_tree_entry_type(e) != GIT_OBJECT_TREE)) {
			error = 0;
			goto done;
		}
		if (error < 0 || git_tree_lookup(&r->threads, r->repo,
						 git_tree_entry_id(e)) < 0)
			error = tm_git_error(TM_ERROR,
					     "cannot read '%s' in commit %s",
					     r->threads_path, side->commit);
		goto done;
	}
	/* The index as it is on disk now (the repository's copy is read
	 * once, and git may have written it since). */
	if ((error = tm_git_index_open(&r->index, r->repo)) < 0) {
		if (side->kind == TM_SIDE_INDEX || error == TM_EPARSE)
			return error; /* a damaged index: never to libgit2 */
		tm_error_clear();
		git_error_clear();
		error = 0;
	}
	if (side->kind == TM_SIDE_WORKTREE)
		error = open_worktree(r, g, prefix);
done:
	git_tree_entry_free(e);
	git_commit_free(c);
	return error;
}

static void forget_project(struct tm_reader *r)
{
	free(r->project);
	r->project = NULL;
	git_tree_free(r->project_tree);
	r->project_tree = NULL;
	tm_fs_close(r->project_fd);
	r->project_fd = -1;
	r->project_found = false;
}

void tm_reader_close(struct tm_reader *r)
{
	forget_project(r);
	tm_buf_release(&r->display);
	git_tree_free(r->threads);
	git_tree_free(r->root);
	git_index_free(r->index);
	tm_fs_close(r->dirfd);
	free(r->threads_path);
	memset(r, 0, sizeof(*r));
	r->dirfd = r->project_fd = -1;
}

/* Make `project` the folder read (a commit's tree or the work tree's
 * folder); r->project_found tells whether the side has it. */
static int use_project(struct tm_reader *r, const char *project)
{
	const git_tree_entry *e;
	int error;

	if (r->project && !strcmp(r->project, project))
		return 0;
	forget_project(r);
	r->project = tm_xstrdup(project);
	if (r->kind == TM_SIDE_COMMIT && r->threads) {
		e = git_tree_entry_byname(r->threads, project);
		if (!e || git_tree_entry_type(e) != GIT_OBJECT_TREE)
			return 0;
		if (git_tree_lookup(&r->project_tree, r->repo,
				    git_tree_entry_id(e)) < 0)
			return tm_git_error(
				TM_ERROR, "cannot read '%s%s' in commit %s",
				r->threads_path, project, r->abbrev);
		r->project_found = true;
	} else if (r->kind == TM_SIDE_WORKTREE && r->dirfd >= 0) {
		char *display = tm_xmalloc(strlen(r->threads_path) +
					   strlen(project) + 1);

		strcpy(display, r->threads_path);
		strcat(display, project);
		error = tm_fs_open_subdir(&r->project_fd, r->dirfd, project,
					  display, false);
		free(display);
		if (error == TM_ENOTFOUND) {
			tm_error_clear();
			return 0;
		}
		if (error < 0)
			return error;
		r->project_found = true;
	}
	return 0;
}

const char *tm_reader_display(struct tm_reader *r, const char *project,
			      const char *id)
{
	tm_buf *b = &r->display;
	size_t plen = strlen(project);

	/* once per file read: the folder's part is kept from the last call
	 * (callgrind: building it all each time with printf was 8% of a
	 * diff of 10,000 threads) */
	if (!r->display_len || r->display_len <= plen ||
	    memcmp(b->ptr + r->display_len - plen - 1, project, plen) ||
	    b->ptr[r->display_len - plen - 2] != '/') {
		tm_buf_clear(b);
		if (r->kind == TM_SIDE_COMMIT) {
			tm_buf_puts(b, r->abbrev);
			tm_buf_putc(b, ':');
		} else if (r->kind == TM_SIDE_INDEX) {
			tm_buf_putc(b, ':');
		}
		tm_buf_puts(b, r->threads_path);
		tm_buf_puts(b, project);
		tm_buf_putc(b, '/');
		r->display_len = b->size;
	}
	tm_buf_truncate(b, r->display_len);
	tm_buf_puts(b, id);
	tm_buf_put(b, ".md", 3);
	return tm_buf_cstr(b);
}

/* The index's entry for a thread file (stage 0), and whether it holds the
 * file unmerged. */
static const git_index_entry *index_entry(bool *conflicted, struct tm_reader *r,
					  const char *project, const char *id)
{
	tm_buf path = TM_BUF_INIT;
	const git_index_entry *e = NULL;
	int stage;

	*conflicted = false;
	if (!r->index)
		return NULL;
	tm_buf_printf(&path, "%s%s/%s.md", r->threads_path, project, id);
	e = git_index_get_bypath(r->index, tm_buf_cstr(&path), 0);
	for (stage = 1; !e && stage <= 3 && !*conflicted; stage++)
		*conflicted = git_index_get_bypath(r->index, tm_buf_cstr(&path),
						   stage) != NULL;
	tm_buf_release(&path);
	return e;
}

static int read_blob(struct tm_reader_file *f, struct tm_reader *r,
		     const git_oid *oid, const char *project, const char *id)
{
	git_blob *blob = NULL;

	if (git_blob_lookup(&blob, r->repo, oid) < 0)
		return tm_git_error(TM_ERROR, "cannot read '%s'",
				    tm_reader_display(r, project, id));
	if (git_blob_rawsize(blob) > TM_MAX_FILE_SIZE) {
		git_blob_free(blob);
		return tm_error_set(TM_EINVALID,
				    "'%s' is larger than 1 MiB; threadmind "
				    "refuses files that large",
				    tm_reader_display(r, project, id));
	}
	f->blob = blob;
	f->data = git_blob_rawcontent(blob);
	f->len = (size_t)git_blob_rawsize(blob);
	git_oid_cpy(&f->oid, oid);
	f->has_oid = true;
	return 0;
}

void tm_reader_file_release(struct tm_reader_file *f)
{
	git_blob_free(f->blob);
	tm_buf_release(&f->buf);
	memset(f, 0, sizeof(*f));
}

int tm_reader_get(struct tm_reader_file *f, struct tm_reader *r,
		  const char *project, const char *id)
{
	const git_index_entry *ie;
	const git_tree_entry *te;
	tm_buf name = TM_BUF_INIT;
	bool conflicted;
	int error;

	memset(f, 0, sizeof(*f));
	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = tm_id_validate(id, "thread")) < 0)
		return error;
	if (r->kind == TM_SIDE_INDEX || r->kind == TM_SIDE_WORKTREE) {
		ie = index_entry(&conflicted, r, project, id);
		if (conflicted)
			return TM_ECONFLICT;
		if (r->kind == TM_SIDE_INDEX)
			return ie ? read_blob(f, r, &ie->id, project, id)
				  : TM_ENOTFOUND;
	}
	if ((error = use_project(r, project)) < 0)
		return error;
	if (!r->project_found)
		return TM_ENOTFOUND;
	tm_buf_puts(&name, id);
	tm_buf_puts(&name, ".md");
	if (r->kind == TM_SIDE_COMMIT) {
		te = git_tree_entry_byname(r->project_tree, tm_buf_cstr(&name));
		tm_buf_release(&name);
		if (!te || git_tree_entry_type(te) != GIT_OBJECT_BLOB)
			return TM_ENOTFOUND;
		return read_blob(f, r, git_tree_entry_id(te), project, id);
	}
	error = tm_fs_read_at(&f->buf, r->project_fd, tm_buf_cstr(&name),
			      tm_reader_display(r, project, id),
			      TM_MAX_FILE_SIZE);
	tm_buf_release(&name);
	if (error == TM_ENOTFOUND)
		tm_error_clear();
	if (error < 0) {
		tm_buf_release(&f->buf);
		return error;
	}
	f->data = f->buf.ptr ? f->buf.ptr : "";
	f->len = f->buf.size;
	return 0;
}

bool tm_reader_has_project(struct tm_reader *r, const char *project)
{
	tm_buf p = TM_BUF_INIT;
	size_t pos;
	bool found;

	if (r->kind == TM_SIDE_INDEX) {
		tm_buf_printf(&p, "%s%s/", r->threads_path, project);
		found = r->index && git_index_find_prefix(&pos, r->index,
							  tm_buf_cstr(&p)) == 0;
		tm_buf_release(&p);
		return found;
	}
	if (use_project(r, project) < 0) {
		tm_error_clear();
		return false;
	}
	return r->project_found;
}

/* "<id>.md" with a valid id: the id (malloc'd), else NULL. */
static char *id_of_name(const char *name, size_t len)
{
	char *id;

	if (len < 4 || memcmp(name + len - 3, ".md", 3))
		return NULL;
	id = tm_xstrndup(name, len - 3);
	if (strchr(id, '/') || tm_id_validate(id, "thread") < 0) {
		tm_error_clear();
		free(id);
		return NULL;
	}
	return id;
}

int tm_reader_list(tm_strv *out, struct tm_reader *r, const char *project)
{
	tm_strv names = TM_STRV_INIT;
	tm_buf p = TM_BUF_INIT;
	size_t i, n, pos;
	int error = 0;

	if (r->kind == TM_SIDE_INDEX) {
		if (!r->index)
			return 0;
		tm_buf_printf(&p, "%s%s/", r->threads_path, project);
		n = git_index_entrycount(r->index);
		if (git_index_find_prefix(&pos, r->index, tm_buf_cstr(&p)) < 0)
			pos = n;
		for (; pos < n; pos++) {
			const git_index_entry *e =
				git_index_get_byindex(r->index, pos);
			char *id;

			if (strncmp(e->path, p.ptr, p.size))
				break;
			id = id_of_name(e->path + p.size,
					strlen(e->path + p.size));
			if (id)
				tm_strv_push_owned(&names, id);
		}
		tm_buf_release(&p);
	} else if ((error = use_project(r, project)) < 0 || !r->project_found) {
		return error;
	} else if (r->kind == TM_SIDE_COMMIT) {
		n = git_tree_entrycount(r->project_tree);
		for (i = 0; i < n; i++) {
			const git_tree_entry *e =
				git_tree_entry_byindex(r->project_tree, i);
			const char *name = git_tree_entry_name(e);
			char *id;

			if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
			    (id = id_of_name(name, strlen(name))))
				tm_strv_push_owned(&names, id);
		}
	} else {
		tm_strv all = TM_STRV_INIT;

		error = tm_fs_list_dir(&all, r->project_fd, project);
		for (i = 0; i < all.n; i++) {
			char *id =
				id_of_name(all.items[i], strlen(all.items[i]));

			if (id)
				tm_strv_push_owned(&names, id);
		}
		tm_strv_clear(&all);
	}
	tm_strv_sort_unique(&names);
	for (i = 0; i < names.n; i++)
		tm_strv_push(out, names.items[i]);
	tm_strv_clear(&names);
	return error;
}

void tm_reader_conflicts(tm_strv *out, struct tm_reader *r)
{
	size_t i, n, len = strlen(r->threads_path);

	if (!r->index || !git_index_has_conflicts(r->index))
		return;
	n = git_index_entrycount(r->index);
	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(r->index, i);

		if (git_index_entry_stage(e) &&
		    !strncmp(e->path, r->threads_path, len))
			tm_strv_push(out, e->path + len);
	}
}

bool tm_thread_file_split(const char *rel, char **project, char **id)
{
	const char *slash = strchr(rel, '/');

	if (!slash || slash == rel)
		return false;
	*id = id_of_name(slash + 1, strlen(slash + 1));
	if (!*id)
		return false;
	*project = tm_xstrndup(rel, (size_t)(slash - rel));
	if (tm_id_validate(*project, "project") < 0) {
		tm_error_clear();
		free(*project);
		free(*id);
		return false;
	}
	return true;
}

/* ---- one side, for show and log ---- */

int tm_side_read_thread(tm_buf *out, tm_git *g, const char *prefix,
			const tm_side *side, const char *project,
			const char *id)
{
	struct tm_reader r;
	struct tm_reader_file f;
	int error = tm_reader_open(&r, g, prefix, side);

	if (error == 0 && (error = tm_reader_get(&f, &r, project, id)) == 0) {
		tm_buf_put(out, f.data, f.len);
		tm_reader_file_release(&f);
	}
	tm_reader_close(&r);
	return error;
}

int tm_side_list_threads(tm_strv *out, tm_git *g, const char *prefix,
			 const tm_side *side, const char *project)
{
	struct tm_reader r;
	int error = tm_reader_open(&r, g, prefix, side);

	if (error == 0)
		error = tm_reader_list(out, &r, project);
	tm_reader_close(&r);
	return error;
}
