/*
 * Staleness, phase 0: every thread's review points (DESIGN.md section 11,
 * "Staleness across merges"; see stale.c for the whole algorithm).
 *
 * Each version of a thread file reachable from HEAD records a review point,
 * its `commit`.  Every version of a file reachable from HEAD is the file of
 * some commit reachable from HEAD whose first-parent diff changes it (or of
 * a root or shallow end): follow the first parents down from any commit
 * holding that version until the file changes.  So one walk over HEAD's
 * history, comparing each commit's folder of thread files with its first
 * parent's (one tree entry each, and a diff of that folder only when it
 * differs), finds them all; each distinct blob is parsed once.
 */
#include "stale_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "git.h"
#include "treediff.h"

#include <string.h>

struct review {
	struct pass *s;
	char *dir;        /* threads_dir without its trailing '/' */
	tm_hashmap file;  /* "<id>.md" -> thread */
	tm_hashmap seen;  /* commits met */
	tm_hashmap blobs; /* (blob, thread) pairs parsed */
	git_oid *stack;   /* commits to visit */
	size_t nstack, stack_alloc;
	struct commit *all; /* every commit of HEAD's history */
	size_t nall, all_alloc;
	tm_strv changed;
};

/* A commit of the history, as the first pass leaves it. */
struct commit {
	git_oid oid;
	git_oid folder; /* its folder of thread files, when has_folder */
	git_oid parent; /* its first parent, when has_parent */
	bool has_folder, has_parent;
};

/* The id of commit c's folder of thread files into *out; false when c has
 * no such folder. */
static bool folder_of(struct review *r, const git_commit *c, git_oid *out)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	bool found = false;

	if (git_commit_tree(&tree, c) < 0) {
		tm_error_clear();
		return false;
	}
	if (git_tree_entry_bypath(&e, tree, r->dir) == 0 &&
	    git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		git_oid_cpy(out, git_tree_entry_id(e));
		found = true;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	return found;
}

/* Thread t gets base commit `oid` (when the repository has it). */
static void add_base(struct pass *s, size_t t, const git_oid *oid)
{
	struct live *l = &s->th[t];
	size_t node, k;

	if (tm_stale__get_base(s->w, oid, &node) < 0) {
		tm_error_clear();
		return; /* a review point we cannot see covers nothing here */
	}
	if (s->w->nodes[node].base == NONE)
		s->w->nodes[node].base = s->nbases++;
	for (k = 0; k < l->base_nodes.n; k++)
		if (l->base_nodes.v[k] == node)
			return;
	sizev_push(&l->bases, s->w->nodes[node].base);
	sizev_push(&l->base_nodes, node);
}

/* The version `entry` of thread t's file (in folder `folder`). */
static void read_version(struct review *r, size_t t, const git_oid *blob_id)
{
	unsigned char key[GIT_OID_RAWSZ + sizeof(size_t)];
	size_t *seen;
	git_blob *blob = NULL;
	tm_thread *v = NULL;
	git_oid oid;

	memcpy(key, blob_id->id, GIT_OID_RAWSZ);
	memcpy(key + GIT_OID_RAWSZ, &t, sizeof(t));
	seen = tm_hashmap_put(&r->blobs, key, sizeof(key), 0);
	if (*seen)
		return;
	*seen = 1;
	if (git_blob_lookup(&blob, r->s->w->repo, blob_id) < 0) {
		tm_error_clear();
		return;
	}
	if (tm_frontmatter_parse(&v, git_blob_rawcontent(blob),
				 (size_t)git_blob_rawsize(blob),
				 r->s->th[t].t->id, "(history)") == 0 &&
	    v->commit && tm_git_is_hex_oid(v->commit, strlen(v->commit)) &&
	    git_oid_fromstr(&oid, v->commit) == 0)
		add_base(r->s, t, &oid);
	tm_error_clear();
	tm_thread_free(v);
	git_blob_free(blob);
}

/* The versions of thread files that commit c's folder `now` adds against
 * its first parent's (`before`, NULL: none). */
static int read_changes(struct review *r, const git_oid *before,
			const git_oid *now)
{
	git_tree *tree = NULL;
	const git_tree_entry *e;
	const size_t *t;
	size_t i;
	int error;

	tm_strv_clear(&r->changed);
	error = tm_treediff(&r->changed, r->s->w->repo, before, now);
	if (error < 0)
		return error;
	if (git_tree_lookup(&tree, r->s->w->repo, now) < 0)
		return tm_git_error(TM_ERROR, "cannot read the threads folder");
	for (i = 0; i < r->changed.n; i++) {
		t = tm_hashmap_gets(&r->file, r->changed.items[i]);
		if (!t)
			continue;
		e = git_tree_entry_byname(tree, r->changed.items[i]);
		if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB)
			read_version(r, *t, git_tree_entry_id(e));
	}
	git_tree_free(tree);
	return 0;
}

static void push(struct review *r, const git_oid *oid)
{
	size_t *seen = tm_hashmap_put(&r->seen, oid->id, GIT_OID_RAWSZ, 0);

	if (*seen)
		return;
	*seen = 1;
	tm_xgrow((void **)&r->stack, &r->stack_alloc, r->nstack + 1,
		 sizeof(git_oid));
	git_oid_cpy(&r->stack[r->nstack++], oid);
}

/* Commit `oid`: its folder and first parent into r->all; its parents
 * queued. */
static void count(struct review *r, const git_oid *oid)
{
	git_commit *c = NULL;
	struct commit *e;
	unsigned k, np;

	if (git_commit_lookup(&c, r->s->w->repo, oid) < 0) {
		tm_error_clear();
		return; /* missing: a shallow end */
	}
	np = tm_stale__shallow_has(r->s->w->shallow, r->s->w->nshallow, oid)
		     ? 0
		     : git_commit_parentcount(c);
	tm_xgrow((void **)&r->all, &r->all_alloc, r->nall + 1, sizeof(*e));
	e = &r->all[r->nall];
	memset(e, 0, sizeof(*e));
	git_oid_cpy(&e->oid, oid);
	e->has_folder = folder_of(r, c, &e->folder);
	e->has_parent = np > 0;
	if (np)
		git_oid_cpy(&e->parent, git_commit_parent_id(c, 0));
	*tm_hashmap_put(&r->seen, oid->id, GIT_OID_RAWSZ, 0) = r->nall + 2;
	r->nall++;
	for (k = 0; k < np; k++)
		push(r, git_commit_parent_id(c, k));
	git_commit_free(c);
}

/* One commit: its folder against its first parent's (none when the
 * parent is missing). */
static int visit(struct review *r, size_t i)
{
	const struct commit *e = &r->all[i], *p = NULL;
	const size_t *at;

	if (e->has_parent) {
		at = tm_hashmap_get(&r->seen, e->parent.id, GIT_OID_RAWSZ);
		if (at && *at >= 2)
			p = &r->all[*at - 2];
	}
	if (!e->has_folder)
		return 0;
	if (p && p->has_folder && git_oid_equal(&e->folder, &p->folder))
		return 0;
	return read_changes(r, p && p->has_folder ? &p->folder : NULL,
			    &e->folder);
}

int tm_stale__review_points(struct pass *s, const char *threads_dir)
{
	struct review r;
	tm_buf name = TM_BUF_INIT;
	git_oid head, oid;
	size_t i, len;
	int error;

	if (!threads_dir || !s->nth)
		return 0;
	error = git_reference_name_to_id(&head, s->w->repo, "HEAD");
	if (error == GIT_ENOTFOUND || error == GIT_EUNBORNBRANCH) {
		tm_error_clear();
		return 0;
	}
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot resolve HEAD");
	memset(&r, 0, sizeof(r));
	r.s = s;
	len = strlen(threads_dir);
	while (len && threads_dir[len - 1] == '/')
		len--;
	if (!len)
		return 0;
	r.dir = tm_xstrndup(threads_dir, len);
	for (i = 0; i < s->nth; i++) {
		tm_buf_truncate(&name, 0);
		tm_buf_printf(&name, "%s.md", s->th[i].t->id);
		*tm_hashmap_puts(&r.file, tm_buf_cstr(&name), i) = i;
	}
	tm_buf_release(&name);
	/* first every commit (so that progress has a total), then each */
	push(&r, &head);
	while (r.nstack) {
		git_oid_cpy(&oid, &r.stack[--r.nstack]);
		count(&r, &oid);
		if (s->progress && r.nall % 1024 == 0)
			s->progress(s->progress_data, "counting commits",
				    r.nall, 0);
	}
	for (i = 0; i < r.nall && !error; i++) {
		if (s->progress && (i % 256 == 0))
			s->progress(s->progress_data, "indexing history", i,
				    r.nall);
		error = visit(&r, i);
	}
	if (s->progress && !error)
		s->progress(s->progress_data, "indexing history", r.nall,
			    r.nall);
	free(r.all);
	free(r.dir);
	free(r.stack);
	tm_strv_clear(&r.changed);
	tm_hashmap_release(&r.file);
	tm_hashmap_release(&r.seen);
	tm_hashmap_release(&r.blobs);
	return error;
}

/* ---- the same from the index ---- */

bool tm_stale__review_points_ix(struct pass *s, const char *threads_dir)
{
	const struct cidx *ix = s->w->ix;
	tm_hashmap file = TM_HASHMAP_INIT;
	tm_buf name = TM_BUF_INIT;
	uint64_t *seen;
	uint32_t *memo, head, c, k, p, v, np, nv, *stack, *all;
	const uint32_t *parents, *vpath;
	const unsigned char *vcommit;
	size_t i, nstack = 0, nall = 0;
	const size_t *t;
	git_oid oid;

	if (!ix || !threads_dir || !s->nth)
		return ix != NULL;
	tm_buf_printf(&name, "%sx.md", threads_dir);
	if (!tm_stale__thread_file_shape(name.ptr, name.size) ||
	    git_reference_name_to_id(&oid, s->w->repo, "HEAD") < 0 ||
	    !tm_stale__cidx_find(ix, &oid, &head)) {
		tm_error_clear();
		tm_buf_release(&name);
		return false;
	}
	for (i = 0; i < s->nth; i++) {
		tm_buf_truncate(&name, 0);
		tm_buf_printf(&name, "%s%s.md", threads_dir, s->th[i].t->id);
		*tm_hashmap_puts(&file, tm_buf_cstr(&name), i) = i;
	}
	tm_buf_release(&name);
	seen = tm_xcalloc(WORDS(ix->n) + 1, sizeof(uint64_t));
	memo = tm_xcalloc((size_t)ix->npaths + 1, sizeof(uint32_t));
	stack = tm_xcalloc((size_t)ix->n + 1, sizeof(uint32_t));
	all = tm_xcalloc((size_t)ix->n + 1, sizeof(uint32_t));
	/* the order of tm_stale__review_points' walk, so that the bases are
	   numbered (and the walk's ties broken) as without the index */
	bit_set(seen, head);
	stack[nstack++] = head;
	while (nstack) {
		c = stack[--nstack];
		all[nall++] = c;
		np = cidx_parents(ix, c, &parents);
		for (k = 0; k < np; k++) {
			p = parents[k];
			if (!bit_get(seen, p)) {
				bit_set(seen, p);
				stack[nstack++] = p;
			}
		}
	}
	for (i = 0; i < nall; i++) {
		c = all[i];
		nv = cidx_versions(ix, c, &vpath, &vcommit);
		for (v = 0; v < nv; v++) {
			p = vpath[v];
			if (!memo[p]) {
				t = tm_hashmap_gets(&file,
						    tm_stale__cidx_name(ix, p));
				memo[p] = t ? (uint32_t)*t + 2 : 1;
			}
			memcpy(oid.id, vcommit + (size_t)v * GIT_OID_RAWSZ,
			       GIT_OID_RAWSZ);
			if (memo[p] >= 2 && !git_oid_is_zero(&oid))
				add_base(s, memo[p] - 2, &oid);
		}
	}
	free(seen);
	free(memo);
	free(stack);
	free(all);
	tm_hashmap_release(&file);
	return true;
}
