/* Re-merge conflicted index entries with the merge rules (see resolve.h). */
#include "resolve.h"
#include "resolve_internal.h"

#include "fs.h"
#include "error.h"
#include "frontmatter.h"
#include "index_file.h"
#include "migrate.h"
#include "git_libgit2.h"
#include "ops.h"
#include "slug.h"
#include "store.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static tm_resolve_entry *add_entry(tm_resolve_report *r, const char *path,
				   tm_resolve_outcome outcome, const char *note)
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
		free(r->items[i].path);
		free(r->items[i].note);
		free(r->items[i].new_id);
		free(r->items[i].new_path);
		free(r->items[i].kept_name);
		free(r->items[i].moved_name);
		free(r->items[i].from);
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

/* One conflicted path: which stages exist and their blobs. */
struct conflict {
	char *path;
	bool has[3]; /* ancestor, ours, theirs */
	git_oid id[3];
	const tm_buf *given; /* the sides themselves, instead of blobs */
	/* a thread renamed differently on both sides (find_renames): the
	 * old path [0] and the new ones, in HEAD [1] and on the other side
	 * [2]; NULL when it is not */
	const char *renamed[3];
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
static int blob_of(tm_buf *out, git_repository *repo, const struct conflict *c,
		   int stage)
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
static bool same_thread_blob(git_repository *repo, const struct conflict *x,
			     int a, const struct conflict *y, int b)
{
	tm_buf t[2] = {TM_BUF_INIT, TM_BUF_INIT};
	tm_thread *th[2] = {NULL, NULL};
	bool same = git_oid_equal(&x->id[a], &y->id[b]);
	int k;

	if (!same && blob_of(&t[0], repo, x, a) == 0 &&
	    blob_of(&t[1], repo, y, b) == 0) {
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
static void find_renames(struct conflict *list, size_t n, git_repository *repo)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		struct conflict *o = &list[i], *a = NULL, *b = NULL;

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
static char *renamed_note(const struct conflict *c)
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

/* ---- same id born on two branches ---- */

/* Where a thread file lives: "<prefix>.threadmind/threads/<project>/". */
struct place {
	char *root;    /* the store's root folder (workdir + prefix) */
	char *dir;     /* repository path of the project's folder, with '/' */
	char *project; /* the project id */
};

static void place_clear(struct place *pl)
{
	free(pl->root);
	free(pl->dir);
	free(pl->project);
}

/* `path` is a thread file (tm_merge_kind_of_path): split its parts. */
static void place_of(struct place *pl, git_repository *repo, const char *path)
{
	const char *file = strrchr(path, '/'), *proj;
	size_t dirlen = (size_t)(file - path) + 1, pfx;
	tm_buf b = TM_BUF_INIT;

	for (proj = file; proj > path && proj[-1] != '/'; proj--)
		;
	pl->project = tm_xstrndup(proj, (size_t)(file - proj));
	pl->dir = tm_xstrndup(path, dirlen);
	/* ".threadmind/threads/<project>/": what comes before is the prefix */
	pfx = (size_t)(proj - path) - strlen(TM_STORE_DIRNAME "/threads/");
	tm_buf_puts(&b, git_repository_workdir(repo));
	tm_buf_put(&b, path, pfx);
	pl->root = tm_buf_detach(&b);
}

struct taken_ctx {
	tm_store *s;
	git_index *index;
	const struct place *pl;
};

/* An id is taken when its file is in the working tree or the index. */
static int id_taken(const char *id, void *payload)
{
	const struct taken_ctx *t = payload;
	tm_buf path = TM_BUF_INIT;
	bool taken = !strcmp(id, TM_ROOT_THREAD_ID) ||
		     tm_store_thread_exists(t->s, t->pl->project, id);
	int stage;

	tm_buf_printf(&path, "%s%s.md", t->pl->dir, id);
	for (stage = 0; !taken && stage < 4; stage++)
		taken = git_index_get_bypath(t->index, tm_buf_cstr(&path),
					     stage) != NULL;
	tm_buf_release(&path);
	return taken ? 1 : 0;
}

/* Whether HEAD's version of thread `c` has parentId `id`. */
static bool head_has_parent(git_repository *repo, const struct place *pl,
			    const tm_thread *c, const char *id)
{
	git_object *obj = NULL;
	tm_buf spec = TM_BUF_INIT;
	tm_thread *t = NULL;
	bool r = false;

	tm_buf_printf(&spec, "HEAD:%s%s.md", pl->dir, c->id);
	if (git_revparse_single(&obj, repo, tm_buf_cstr(&spec)) == 0 &&
	    git_object_type(obj) == GIT_OBJECT_BLOB &&
	    tm_frontmatter_parse(&t, git_blob_rawcontent((git_blob *)obj),
				 (size_t)git_blob_rawsize((git_blob *)obj),
				 c->id, tm_buf_cstr(&spec)) == 0)
		r = t->parent_id && !strcmp(t->parent_id, id);
	git_error_clear();
	tm_error_clear();
	tm_thread_free(t);
	git_object_free(obj);
	tm_buf_release(&spec);
	return r;
}

/* The children of `id` (in the working tree) added on the side that is
 * renamed: ours when `ours`, else theirs. */
static int side_children(tm_strv *out, git_repository *repo, tm_store *s,
			 const struct place *pl, const char *id, bool ours)
{
	tm_thread_list list;
	size_t i;
	int error = tm_store_load_all(&list, s, pl->project);

	if (error < 0)
		return error;
	for (i = 0; i < list.n; i++) {
		const tm_thread *c = list.threads[i];

		if (c->parent_id && !strcmp(c->parent_id, id) &&
		    strcmp(c->id, id) &&
		    head_has_parent(repo, pl, c, id) == ours)
			tm_strv_push(out, c->id);
	}
	tm_thread_list_clear(&list);
	return 0;
}

/* A side's thread, parsed (NULL when it does not parse). */
static tm_thread *side_thread(const tm_buf *side, const char *id,
			      const char *path)
{
	tm_thread *t = NULL;

	if (tm_frontmatter_parse(&t, tm_buf_cstr(side), side->size, id, path) <
	    0)
		t = NULL;
	tm_error_clear();
	return t;
}

/* "'<title>' by <author>" of a side's thread, malloc'd. */
static char *side_name(const tm_buf *side, const char *id, const char *path)
{
	tm_thread *t = side_thread(side, id, path);
	tm_buf b = TM_BUF_INIT;

	tm_text_thread_name(&b, t ? t->title : id, t ? t->author : NULL);
	tm_thread_free(t);
	return tm_buf_detach(&b);
}

/*
 * Whether config.json follows thread `id` of side `renamed` to its new id:
 * when its activeThreadIdentity is about `id`, if that is the renamed
 * thread; without one, during a rebase (it replays this clone's commits
 * as theirs).
 */
static bool config_follows(tm_store *s, const char *project, const char *id,
			   const tm_buf *renamed, const char *path,
			   tm_git_op op)
{
	tm_config *cfg = NULL;
	tm_config_identity r;
	tm_thread *t;
	bool follow = op == TM_GIT_OP_REBASE;

	if (tm_store_load_config(&cfg, s) == 0 &&
	    tm_config_active_identity(cfg, &r) && !strcmp(r.project, project) &&
	    !strcmp(r.id, id)) {
		t = side_thread(renamed, id, path);
		follow = t && tm_thread_same_identity(t->created_at, t->author,
						      r.created_at, r.author);
		tm_thread_free(t);
	}
	tm_error_clear();
	tm_config_free(cfg);
	return follow;
}

static int stage_path(git_index *index, const char *path)
{
	if (git_index_add_bypath(index, path) < 0)
		return tm_git_error(TM_ERROR, "cannot stage '%s'", path);
	return 0;
}

/*
 * Split the two threads of conflict `c`: ours, already in the branch being
 * merged into, keeps the id and the file; theirs is renamed.
 */
static int split_one(tm_resolve_report *out, git_repository *repo,
		     git_index *index, const struct conflict *c,
		     const tm_buf side[3], const char *id)
{
	const int keeper = 1;
	tm_rename_options ro = TM_RENAME_OPTIONS_INIT;
	tm_rename_result rr = {TM_STRV_INIT, false};
	struct place pl = {NULL, NULL, NULL};
	tm_strv kids = TM_STRV_INIT;
	tm_store *s = NULL;
	tm_buf full = TM_BUF_INIT, newpath = TM_BUF_INIT;
	struct taken_ctx tc;
	tm_resolve_entry *e;
	char *new_id = NULL;
	int loser = 3 - keeper, error;
	size_t i;

	place_of(&pl, repo, c->path);
	if ((error = tm_store_open(&s, pl.root)) < 0)
		goto done;
	tc.s = s;
	tc.index = index;
	tc.pl = &pl;
	if ((error = tm_slug_unique(&new_id, id, id_taken, &tc)) < 0)
		goto done;
	if ((error = side_children(&kids, repo, s, &pl, id, loser == 1)) < 0)
		goto done;
	tm_buf_printf(&full, "%s%s", git_repository_workdir(repo), c->path);
	/* the later thread goes to the file, is renamed from there, then the
	 * first one takes the file */
	if ((error = tm_atomic_write(tm_buf_cstr(&full), side[loser].ptr,
				     side[loser].size)) < 0)
		goto done;
	ro.children = &kids;
	/* config.json is this clone's: it follows the thread it knows */
	ro.keep_config = !config_follows(s, pl.project, id, &side[loser],
					 c->path, out->op);
	if ((error = tm_store_rename_thread(&rr, s, pl.project, id, new_id,
					    &ro)) < 0 ||
	    (error = tm_atomic_write(tm_buf_cstr(&full), side[keeper].ptr,
				     side[keeper].size)) < 0)
		goto done;
	tm_buf_printf(&newpath, "%s%s.md", pl.dir, new_id);
	if ((error = stage_path(index, c->path)) < 0 ||
	    (error = stage_path(index, tm_buf_cstr(&newpath))) < 0)
		goto done;
	for (i = 0; i < rr.repointed.n; i++) {
		tm_buf kid = TM_BUF_INIT;

		tm_buf_printf(&kid, "%s%s.md", pl.dir, rr.repointed.items[i]);
		error = stage_path(index, tm_buf_cstr(&kid));
		tm_buf_release(&kid);
		if (error < 0)
			goto done;
	}
	e = add_entry(out, c->path, TM_RESOLVE_SPLIT, NULL);
	e->new_id = new_id;
	new_id = NULL;
	e->new_path = tm_buf_detach(&newpath);
	e->moved_side = loser == 1 ? "ours" : "theirs";
	e->kept_name = side_name(&side[keeper], id, c->path);
	e->moved_name = side_name(&side[loser], id, c->path);
	e->repointed = rr.repointed;
	memset(&rr, 0, sizeof(rr));
done:
	tm_rename_result_clear(&rr);
	tm_strv_clear(&kids);
	tm_store_free(s);
	tm_buf_release(&full);
	tm_buf_release(&newpath);
	free(new_id);
	place_clear(&pl);
	return error;
}

/*
 * A ThreadMind 0.4 index (trees/{project}.json) that a merge brought back
 * after the upgrade deleted it: the upgrade takes from it what it may
 * (migrate.h) and deletes it, then its deletion is staged.
 */
static int resolve_04_index(tm_resolve_report *out, git_repository *repo,
			    git_index *index, const struct conflict *c)
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
		add_entry(out, c->path, TM_RESOLVE_SKIPPED,
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
	add_entry(out, c->path, TM_RESOLVE_DROPPED,
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

/* A thread file of the index found by identity (follow_one). */
struct found {
	char *path;
	char *id;
	git_oid oid;
	uint32_t mode;
	tm_buf data;
};

static void found_clear(struct found *f)
{
	free(f->path);
	free(f->id);
	tm_buf_release(&f->data);
}

/*
 * The first stage-0 thread file of the index in `c`'s project folder,
 * other than `c`'s, whose thread has the identity of `want`: into *f
 * (f->path NULL when there is none).
 */
static int find_by_identity(struct found *f, git_repository *repo,
			    git_index *index, const struct conflict *c,
			    const tm_thread *want)
{
	size_t dirlen = (size_t)(strrchr(c->path, '/') - c->path) + 1;
	size_t i, n = git_index_entrycount(index);
	tm_strv paths = TM_STRV_INIT;
	int error = 0;

	memset(f, 0, sizeof(*f));
	/* copy first: reading blobs does not touch the index, but keep the
	 * entries' lifetime out of the question */
	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);

		if (e && GIT_INDEX_ENTRY_STAGE(e) == 0 &&
		    !strncmp(e->path, c->path, dirlen) &&
		    !strchr(e->path + dirlen, '/') &&
		    strcmp(e->path, c->path) &&
		    tm_merge_kind_of_path(e->path, NULL) ==
			    TM_MERGE_KIND_THREAD)
			tm_strv_push(&paths, e->path);
	}
	for (i = 0; i < paths.n && !f->path && error == 0; i++) {
		const git_index_entry *e =
			git_index_get_bypath(index, paths.items[i], 0);
		struct conflict one;
		tm_buf data = TM_BUF_INIT;
		tm_thread *t;
		char *id = NULL;
		bool large;

		if (!e)
			continue;
		memset(&one, 0, sizeof(one));
		one.path = paths.items[i];
		one.has[0] = true;
		one.id[0] = e->id;
		tm_merge_kind_of_path(one.path, &id);
		if ((error = blob_too_large(&large, repo, &one, 0)) < 0 ||
		    large || (error = blob_of(&data, repo, &one, 0)) < 0) {
			free(id);
			tm_buf_release(&data);
			continue;
		}
		t = side_thread(&data, id, one.path);
		if (t &&
		    tm_thread_same_identity(t->created_at, t->author,
					    want->created_at, want->author)) {
			f->path = tm_xstrdup(one.path);
			f->id = id;
			id = NULL;
			f->oid = e->id;
			f->mode = e->mode;
			f->data = data;
			data = (tm_buf)TM_BUF_INIT;
		}
		tm_thread_free(t);
		tm_buf_release(&data);
		free(id);
	}
	tm_strv_clear(&paths);
	return error;
}

/* Record `path`'s three versions as a conflict in the index. */
static int put_conflict(git_index *index, const char *path, uint32_t mode,
			const git_oid *base, const git_oid *ours,
			const git_oid *theirs)
{
	git_index_entry e[3];
	const git_oid *ids[3] = {base, ours, theirs};
	int k;

	for (k = 0; k < 3; k++) {
		memset(&e[k], 0, sizeof(e[k]));
		e[k].path = path;
		e[k].mode = mode;
		e[k].id = *ids[k];
	}
	if (git_index_conflict_add(index, &e[0], &e[1], &e[2]) < 0)
		return tm_git_error(TM_ERROR,
				    "cannot record the conflict of "
				    "'%s' in the index",
				    path);
	return 0;
}

/*
 * Side `editor` (1 ours, 2 theirs) edits the ancestor's thread of conflict
 * `c`, and the other side holds another thread there: an earlier split
 * moved the ancestor's thread to another id.  The edit goes to that id
 * (found in the index by identity) and `c`'s path keeps the other side's
 * thread (see tm_resolve_index).  *done false, nothing written, when no
 * file of the index has the ancestor's identity.
 */
static int follow_one(bool *done, tm_resolve_report *out, git_repository *repo,
		      git_index *index, const struct conflict *c,
		      const tm_buf side[3], int editor, const char *id,
		      const tm_merge_options *base)
{
	tm_merge_options opts = *base;
	tm_merge_result res = {NULL, 0, false, TM_MERGE_KIND_TEXT, NULL, false};
	struct found f;
	tm_buf full = TM_BUF_INIT;
	tm_thread *anc = side_thread(&side[0], id, c->path);
	const tm_buf *mine, *yours;
	const git_oid *oids[3];
	tm_resolve_entry *e;
	int other = 3 - editor, error;

	*done = false;
	memset(&f, 0, sizeof(f));
	if (!anc)
		return 0;
	if ((error = find_by_identity(&f, repo, index, c, anc)) < 0 || !f.path)
		goto done;
	*done = true;
	/* the edit and the thread it belongs to, each on its own side */
	mine = editor == 1 ? &side[1] : &f.data;
	yours = editor == 1 ? &f.data : &side[2];
	opts.path = f.path;
	if ((error = tm_merge_files(&res, tm_buf_cstr(&side[0]), side[0].size,
				    tm_buf_cstr(mine), mine->size,
				    tm_buf_cstr(yours), yours->size, &opts)) <
	    0)
		goto done;
	tm_buf_printf(&full, "%s%s", git_repository_workdir(repo), f.path);
	if ((error = tm_atomic_write(tm_buf_cstr(&full), res.data, res.len)) <
	    0)
		goto done;
	oids[0] = &c->id[0];
	oids[1] = editor == 1 ? &c->id[1] : &f.oid;
	oids[2] = editor == 1 ? &f.oid : &c->id[2];
	if (res.conflicted)
		error = put_conflict(index, f.path, f.mode, oids[0], oids[1],
				     oids[2]);
	else
		error = stage_path(index, f.path);
	if (error < 0)
		goto done;
	/* the id keeps the thread the other side holds there */
	tm_buf_clear(&full);
	tm_buf_printf(&full, "%s%s", git_repository_workdir(repo), c->path);
	if ((error = tm_atomic_write(tm_buf_cstr(&full), side[other].ptr,
				     side[other].size)) < 0 ||
	    (error = stage_path(index, c->path)) < 0)
		goto done;
	e = add_entry(out, c->path, TM_RESOLVE_FOLLOWED, res.note);
	e->new_id = f.id;
	f.id = NULL;
	e->new_path = tm_xstrdup(f.path);
	e->moved_side = editor == 1 ? "ours" : "theirs";
	e->kept_name = side_name(&side[other], id, c->path);
	e->moved_name = side_name(&side[editor], id, c->path);
	e->conflicted = res.conflicted;
done:
	tm_merge_result_clear(&res);
	tm_thread_free(anc);
	found_clear(&f);
	tm_buf_release(&full);
	return error;
}

/*
 * Same id, different threads (DESIGN.md section 11): split them, or send
 * an edit to its thread (tm_resolve_index).  *done false when the file is
 * to be merged as one thread (side[0] emptied for BOTH_OTHER: an add/add).
 */
static int resolve_identity(bool *done, tm_resolve_report *out,
			    git_repository *repo, git_index *index,
			    const struct conflict *c, tm_buf side[3],
			    const char *id, const tm_merge_options *opts)
{
	tm_merge_identity kind = tm_merge_thread_identity(
		tm_buf_cstr(&side[0]), side[0].size, tm_buf_cstr(&side[1]),
		side[1].size, tm_buf_cstr(&side[2]), side[2].size, id);
	int error;

	*done = kind != TM_MERGE_ONE_THREAD && kind != TM_MERGE_BOTH_OTHER;
	if (kind == TM_MERGE_BOTH_OTHER)
		tm_buf_clear(&side[0]);
	if (!*done)
		return 0;
	if (kind == TM_MERGE_OURS_OTHER || kind == TM_MERGE_THEIRS_OTHER) {
		/* the edit is on the side that holds the ancestor's thread */
		error = follow_one(done, out, repo, index, c, side,
				   kind == TM_MERGE_OURS_OTHER ? 2 : 1, id,
				   opts);
		if (error < 0 || *done)
			return error;
		*done = true; /* nowhere to send the edit: split */
	}
	return split_one(out, repo, index, c, side, id);
}

static int resolve_one(tm_resolve_report *out, git_repository *repo,
		       git_index *index, const struct conflict *c,
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
		add_entry(out, c->path, TM_RESOLVE_SKIPPED,
			  "not a thread or project file");
		return 0;
	}
	if (!c->has[1] || !c->has[2]) {
		char *note = c->renamed[0] ? renamed_note(c) : NULL;

		add_entry(out, c->path, TM_RESOLVE_SKIPPED,
			  note ? note
			       : "deleted on one side: keep it with 'git add' "
				 "or drop it with 'git rm'");
		free(note);
		free(id);
		return 0;
	}
	for (k = 0; k < 3; k++) {
		if ((error = blob_too_large(&large, repo, c, k)) < 0 || large) {
			if (large)
				add_entry(out, c->path, TM_RESOLVE_SKIPPED,
					  "a side is larger than 1 MiB, which "
					  "threadmind refuses: resolve it by "
					  "hand");
			free(id);
			return error;
		}
	}
	if ((error = blob_of(&side[0], repo, c, 0)) < 0 ||
	    (error = blob_of(&side[1], repo, c, 1)) < 0 ||
	    (error = blob_of(&side[2], repo, c, 2)) < 0)
		goto done;
	if (kind == TM_MERGE_KIND_THREAD &&
	    ((error = resolve_identity(&split, out, repo, index, c, side, id,
				       base)) < 0 ||
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
	for (keeper = 0; keeper < 3; keeper++)
		tm_buf_release(&side[keeper]);
	tm_buf_release(&full);
	free(id);
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
	struct conflict c;
	char *from = NULL;
	size_t before = out->n;
	int error, k;

	memset(&c, 0, sizeof(c));
	error = tm_resolve__marker_sides(side, &c.has[0], &from, repo, path);
	if (error == TM_EPARSE) {
		add_entry(out, path, TM_RESOLVE_SKIPPED, tm_error_last());
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
	struct conflict *list = NULL;
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
		error = list_conflicts(&list, &n, index);
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

/* ---- what is waiting for resolve ---- */

static int pending_unmerged(tm_strv *out, tm_store *s)
{
	tm_git *g = tm_store_git(s);
	git_index *index = NULL;
	struct conflict *list = NULL;
	size_t n = 0, i, plen;
	char *prefix;
	int error = 0;

	if (!g || !(prefix = tm_git_path_in_workdir(g, tm_store_root(s))))
		return 0;
	plen = strlen(prefix);
	if (!getenv("GIT_INDEX_FILE")) { /* else libgit2 knows the file */
		tm_buf file = TM_BUF_INIT, want = TM_BUF_INIT;
		size_t first = out->n;

		tm_buf_puts(&file, tm_git_gitdir(g));
		tm_buf_puts(&file, "index");
		tm_buf_puts(&want, prefix);
		tm_buf_puts(&want, TM_STORE_DIRNAME "/");
		/* a damaged index past the reader's bounds is an error:
		 * libgit2 would take gigabytes to read it */
		error = tm_index_file_conflicts(out, tm_buf_cstr(&file), NULL,
						tm_buf_cstr(&want));
		for (i = first; error == 0 && i < out->n; i++)
			memmove(out->items[i], out->items[i] + plen,
				strlen(out->items[i] + plen) + 1);
		tm_buf_release(&file);
		tm_buf_release(&want);
		if (error != TM_INDEX_FILE_ASK_LIBGIT2) {
			free(prefix);
			return error;
		}
		error = 0;
	}
	if ((error = tm_git_index_open(&index, tm_git_repository(g))) < 0)
		goto done;
	if ((error = list_conflicts(&list, &n, index)) < 0)
		goto done;
	for (i = 0; i < n; i++)
		if (!strncmp(list[i].path, prefix, plen) &&
		    !strncmp(list[i].path + plen, TM_STORE_DIRNAME "/",
			     strlen(TM_STORE_DIRNAME) + 1))
			tm_strv_push(out, list[i].path + plen);
done:
	for (i = 0; i < n; i++)
		free(list[i].path);
	free(list);
	git_index_free(index);
	free(prefix);
	return error;
}

/* With `loaded`, project `lp`'s files are taken from its `marked` (the
 * load read them just now) instead of being read again. */
static int pending_marked(tm_strv *out, tm_store *s, const char *lp,
			  const tm_thread_list *loaded)
{
	tm_strv projects = TM_STRV_INIT, ids = TM_STRV_INIT;
	tm_buf dir = TM_BUF_INIT, name = TM_BUF_INIT, data = TM_BUF_INIT;
	size_t i, k;
	int fd, error;

	if ((error = tm_store_list_projects(&projects, s)) < 0)
		return error;
	for (i = 0; error == 0 && i < projects.n; i++) {
		const char *p = projects.items[i];

		if (loaded && !strcmp(p, lp)) {
			for (k = 0; k < loaded->marked.n; k++)
				tm_strv_push(out, loaded->marked.items[k]);
			continue;
		}
		tm_strv_clear(&ids);
		if ((error = tm_store_list_threads(&ids, NULL, s, p)) < 0 ||
		    !ids.n)
			continue;
		tm_buf_clear(&dir);
		tm_buf_printf(&dir, "%s/threads/%s", tm_store_dir(s), p);
		if (tm_fs_open_dir(&fd, tm_buf_cstr(&dir)) < 0)
			continue;
		for (k = 0; k < ids.n; k++) {
			tm_buf_clear(&name);
			tm_buf_clear(&data);
			tm_buf_printf(&name, "%s.md", ids.items[k]);
			if (tm_fs_read_at(&data, fd, tm_buf_cstr(&name),
					  tm_buf_cstr(&name),
					  TM_MAX_FILE_SIZE) == 0 &&
			    tm_conflict_markers_left(tm_buf_cstr(&data),
						     data.size)) {
				tm_buf rel = TM_BUF_INIT;

				tm_buf_printf(&rel, "%s/threads/%s/%s",
					      TM_STORE_DIRNAME, p,
					      tm_buf_cstr(&name));
				tm_strv_push_owned(out, tm_buf_detach(&rel));
			}
		}
		close(fd);
	}
	tm_error_clear();
	tm_strv_clear(&projects);
	tm_strv_clear(&ids);
	tm_buf_release(&dir);
	tm_buf_release(&name);
	tm_buf_release(&data);
	return error;
}

int tm_resolve_pending(tm_strv *unmerged, tm_strv *marked, tm_store *s)
{
	return tm_resolve_pending_loaded(unmerged, marked, s, NULL, NULL);
}

int tm_resolve_pending_loaded(tm_strv *unmerged, tm_strv *marked, tm_store *s,
			      const char *project, const tm_thread_list *loaded)
{
	int error = pending_unmerged(unmerged, s);
	char *msg;

	if (error == 0)
		return pending_marked(marked, s, project, loaded);
	/* the files with markers still count; the index's error is said */
	msg = tm_xstrdup(tm_error_last());
	(void)pending_marked(marked, s, project, loaded);
	tm_error_set(error, "%s", msg);
	free(msg);
	return error;
}
