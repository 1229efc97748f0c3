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
	tm_strv changed;
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

	if (tm_stale__get_node(s->w, oid, &node) < 0) {
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

	r->changed.n = 0;
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

/* Commit `oid` and its parents (queued), for counting the history. */
static void count(struct review *r, const git_oid *oid)
{
	git_commit *c = NULL;
	unsigned k, np;

	if (git_commit_lookup(&c, r->s->w->repo, oid) < 0) {
		tm_error_clear();
		return;
	}
	np = tm_stale__shallow_has(r->s->w->shallow, r->s->w->nshallow, oid)
		     ? 0
		     : git_commit_parentcount(c);
	for (k = 0; k < np; k++)
		push(r, git_commit_parent_id(c, k));
	git_commit_free(c);
}

/* One commit: its folder against its first parent's. */
static int visit(struct review *r, const git_oid *oid)
{
	git_repository *repo = r->s->w->repo;
	git_commit *c = NULL, *p = NULL;
	git_oid now, before;
	bool has_now, has_before = false, grafted;
	unsigned np;
	int error = 0;

	if (git_commit_lookup(&c, repo, oid) < 0) {
		tm_error_clear();
		return 0; /* missing: a shallow end */
	}
	grafted =
		tm_stale__shallow_has(r->s->w->shallow, r->s->w->nshallow, oid);
	np = grafted ? 0 : git_commit_parentcount(c);
	has_now = folder_of(r, c, &now);
	if (np && git_commit_parent(&p, c, 0) == 0)
		has_before = folder_of(r, p, &before);
	tm_error_clear();
	if (has_now && !(has_before && git_oid_equal(&now, &before)))
		error = read_changes(r, has_before ? &before : NULL, &now);
	git_commit_free(p);
	git_commit_free(c);
	return error;
}

int tm_stale__review_points(struct pass *s, const char *threads_dir)
{
	struct review r;
	tm_buf name = TM_BUF_INIT;
	git_oid head, oid, *all = NULL;
	size_t i, len, nall = 0, all_alloc = 0;
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
		tm_xgrow((void **)&all, &all_alloc, nall + 1, sizeof(git_oid));
		git_oid_cpy(&all[nall++], &oid);
		count(&r, &oid);
		if (s->progress && nall % 1024 == 0)
			s->progress(s->progress_data, "counting commits", nall,
				    0);
	}
	for (i = 0; i < nall && !error; i++) {
		if (s->progress && (i % 256 == 0))
			s->progress(s->progress_data, "indexing history", i,
				    nall);
		error = visit(&r, &all[i]);
	}
	if (s->progress && !error)
		s->progress(s->progress_data, "indexing history", nall, nall);
	free(all);
	free(r.dir);
	free(r.stack);
	tm_strv_clear(&r.changed);
	tm_hashmap_release(&r.file);
	tm_hashmap_release(&r.seen);
	tm_hashmap_release(&r.blobs);
	return error;
}
