/*
 * resolve's "same id born on two branches" (DESIGN.md section 11): a
 * conflict whose sides hold two threads is split (theirs takes the next
 * free id), or an edit is sent to the id its thread moved to.
 */
#include "resolve_internal.h"

#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "ops.h"
#include "slug.h"
#include "store.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* Where a thread file lives: "<prefix>.threadmind/threads/<project>/". */
struct place {
	char *root;    /* the store's root folder (workdir + prefix) */
	char *dir;     /* repository path of the project's folder, with '/' */
	char *project; /* the project id */
};

static void place_clear(struct place *pl)
{
	TM_FREE_ALL(pl->root, pl->dir, pl->project);
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

/*
 * Split the two threads of conflict `c`: ours, already in the branch being
 * merged into, keeps the id and the file; theirs is renamed.
 */
static int split_one(tm_resolve_report *out, git_repository *repo,
		     git_index *index, const struct tm_resolve__conflict *c,
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
	if ((error = tm_ops_rename_thread(&rr, s, pl.project, id, new_id,
					  &ro)) < 0 ||
	    (error = tm_atomic_write(tm_buf_cstr(&full), side[keeper].ptr,
				     side[keeper].size)) < 0)
		goto done;
	tm_buf_printf(&newpath, "%s%s.md", pl.dir, new_id);
	if ((error = tm_resolve__stage_path(index, c->path)) < 0 ||
	    (error = tm_resolve__stage_path(index, tm_buf_cstr(&newpath))) < 0)
		goto done;
	for (i = 0; i < rr.repointed.n; i++) {
		tm_buf kid = TM_BUF_INIT;

		tm_buf_printf(&kid, "%s%s.md", pl.dir, rr.repointed.items[i]);
		error = tm_resolve__stage_path(index, tm_buf_cstr(&kid));
		tm_buf_release(&kid);
		if (error < 0)
			goto done;
	}
	e = tm_resolve__add_entry(out, c->path, TM_RESOLVE_SPLIT, NULL);
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
			    git_index *index,
			    const struct tm_resolve__conflict *c,
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
		struct tm_resolve__conflict one;
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
		if ((error = tm_resolve__blob_too_large(&large, repo, &one,
							0)) < 0 ||
		    large ||
		    (error = tm_resolve__blob_of(&data, repo, &one, 0)) < 0) {
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
		      git_index *index, const struct tm_resolve__conflict *c,
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
		error = tm_resolve__stage_path(index, f.path);
	if (error < 0)
		goto done;
	/* the id keeps the thread the other side holds there */
	tm_buf_clear(&full);
	tm_buf_printf(&full, "%s%s", git_repository_workdir(repo), c->path);
	if ((error = tm_atomic_write(tm_buf_cstr(&full), side[other].ptr,
				     side[other].size)) < 0 ||
	    (error = tm_resolve__stage_path(index, c->path)) < 0)
		goto done;
	e = tm_resolve__add_entry(out, c->path, TM_RESOLVE_FOLLOWED, res.note);
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

int tm_resolve__identity(bool *done, tm_resolve_report *out,
			 git_repository *repo, git_index *index,
			 const struct tm_resolve__conflict *c, tm_buf side[3],
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
