/*
 * Staleness, phase 0 without the commit index (stale_review.c): the
 * versions of the thread files in HEAD's history, read from git by one walk
 * over the store's life, and which review commits HEAD reaches.
 */
#include "stale_review_internal.h"
#include "deadline.h"
#include "error.h"
#include "frontmatter.h"
#include "git.h"
#include "git_libgit2.h"
#include "treediff.h"

#include <string.h>

static bool wanted(const struct tm_stale_versions *vs, uint64_t ident)
{
	return ident && tm_hashmap_get(&vs->idents, &ident, sizeof(ident));
}

static struct tm_stale_version *version_push(struct tm_stale_versions *vs)
{
	struct tm_stale_version *v;

	tm_xgrow((void **)&vs->v, &vs->alloc, vs->n + 1, sizeof(*vs->v));
	v = &vs->v[vs->n++];
	memset(v, 0, sizeof(*v));
	return v;
}

/* The thread whose file is `name` ("<id>.md"), or NULL. */
static const tm_thread *owner_of(const struct tm_stale_pass *s,
				 const struct tm_stale_versions *vs,
				 const char *name)
{
	const size_t *t = tm_hashmap_gets(&vs->own, name);

	return t ? s->th[*t].t : NULL;
}

/* ---- without the index: a walk over HEAD's history ---- */

/* A commit of the history, as the first pass leaves it. */
struct commit {
	git_oid oid;
	git_oid folder; /* its folder of thread files, when has_folder */
	size_t parents; /* its first parent's oid in walkdata.par */
	unsigned np;    /* its parents (0: a root, or a shallow end) */
	bool has_folder;
	bool grafted; /* a shallow end: its parents are not known */
};

struct walkdata {
	struct tm_stale_pass *s;
	struct tm_stale_versions *vs;
	char *dir;       /* threads_dir without its trailing '/' */
	tm_hashmap seen; /* commits met: 1, counted: 2 + index in all */
	git_oid *stack;  /* commits to visit */
	size_t nstack, stack_alloc;
	struct commit *all; /* every commit of HEAD's history */
	size_t nall, all_alloc;
	git_oid *par; /* the commits' parents */
	size_t npar, par_alloc;
	tm_strv changed;
};

/* The counted commit `oid`, or NULL. */
static const struct commit *counted(const struct walkdata *r,
				    const git_oid *oid)
{
	const size_t *at = tm_hashmap_get(&r->seen, oid->id, GIT_OID_RAWSZ);

	return at && *at >= 2 ? &r->all[*at - 2] : NULL;
}

/* Does commit p hold blob `blob` as `name` in its folder? */
static bool holds(struct walkdata *r, const struct commit *p, const char *name,
		  const git_oid *blob)
{
	git_tree *tree = NULL;
	const git_tree_entry *e;
	bool same = false;

	if (!p->has_folder)
		return false;
	if (git_tree_lookup(&tree, r->s->w->repo, &p->folder) < 0) {
		tm_error_clear();
		return false;
	}
	e = git_tree_entry_byname(tree, name);
	same = e && git_oid_equal(git_tree_entry_id(e), blob);
	git_tree_free(tree);
	return same;
}

/* The versions that commit e's folder adds against its first parent's
 * (`before`, NULL: none). */
static int read_changes(struct walkdata *r, const struct commit *e,
			const git_oid *before)
{
	git_tree *tree = NULL;
	const git_tree_entry *e2;
	const struct tm_stale_blob_version *b;
	const struct commit *p;
	struct tm_stale_version *v;
	size_t i, len;
	unsigned k;
	bool intro;
	int error;

	tm_strv_clear(&r->changed);
	error = tm_treediff(&r->changed, &r->s->w->skipped, r->s->w->repo,
			    before, &e->folder);
	if (error < 0)
		return error;
	for (i = 0; i < r->s->w->skipped.n; i++)
		tm_stale__warn(r->s->w->warnings, "commit %.7s: %s",
			       git_oid_tostr_s(&e->oid),
			       r->s->w->skipped.items[i]);
	tm_strv_clear(&r->s->w->skipped);
	if (git_tree_lookup(&tree, r->s->w->repo, &e->folder) < 0) {
		/* no version of it read: reviews it held do not count */
		tm_stale__warn(r->s->w->warnings,
			       "commit %.7s: cannot read its threads folder "
			       "(check the repository with 'git fsck')",
			       git_oid_tostr_s(&e->oid));
		tm_error_clear();
		return 0;
	}
	for (i = 0; i < r->changed.n; i++) {
		const char *name = r->changed.items[i];

		len = strlen(name);
		if (len < 4 || strchr(name, '/') ||
		    strcmp(name + len - 3, ".md"))
			continue;
		e2 = git_tree_entry_byname(tree, name);
		if (!e2 || git_tree_entry_type(e2) != GIT_OBJECT_BLOB)
			continue;
		b = tm_stale__blob_version(&r->s->blobs, r->s->w->repo,
					   git_tree_entry_id(e2), name);
		if (!wanted(r->vs, b->ident))
			continue;
		intro = !e->grafted;
		for (k = 1; intro && k < e->np; k++) {
			p = counted(r, &r->par[e->parents + k]);
			intro = p && !holds(r, p, name, git_tree_entry_id(e2));
		}
		v = version_push(r->vs);
		git_oid_cpy(&v->at, &e->oid);
		git_oid_cpy(&v->review, &b->review);
		v->ident = b->ident;
		v->owner = owner_of(r->s, r->vs, name);
		v->reachable = false; /* reachable() tells */
		v->introduced = intro;
	}
	git_tree_free(tree);
	return 0;
}

static void push(struct walkdata *r, const git_oid *oid)
{
	size_t *seen = tm_hashmap_put(&r->seen, oid->id, GIT_OID_RAWSZ, 0);

	if (*seen)
		return;
	*seen = 1;
	tm_xgrow((void **)&r->stack, &r->stack_alloc, r->nstack + 1,
		 sizeof(git_oid));
	git_oid_cpy(&r->stack[r->nstack++], oid);
}

/* Commit `oid`: its folder and parents into r->all; its parents queued. */
static void count(struct walkdata *r, const git_oid *oid)
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
	/* its folder of thread files, when it has one */
	e->has_folder =
		tm_git_commit_entry_id(&e->folder, c, r->dir, GIT_OBJECT_TREE);
	e->grafted = np < git_commit_parentcount(c);
	e->np = np;
	e->parents = r->npar;
	tm_xgrow((void **)&r->par, &r->par_alloc, r->npar + np + 1,
		 sizeof(*r->par));
	for (k = 0; k < np; k++)
		git_oid_cpy(&r->par[r->npar++], git_commit_parent_id(c, k));
	*tm_hashmap_put(&r->seen, oid->id, GIT_OID_RAWSZ, 0) = r->nall + 2;
	r->nall++;
	/* older than the store (see the top): no version below */
	for (k = 0; e->has_folder && k < np; k++)
		push(r, git_commit_parent_id(c, k));
	git_commit_free(c);
}

/* One commit: its folder against its first parent's (none when the
 * parent is missing: then a shallow end too). */
static int visit(struct walkdata *r, size_t i)
{
	struct commit *e = &r->all[i];
	const struct commit *p = NULL;

	if (e->np) {
		p = counted(r, &r->par[e->parents]);
		if (!p)
			e->grafted = true;
	}
	if (!e->has_folder)
		return 0;
	if (p && p->has_folder && git_oid_equal(&e->folder, &p->folder))
		return 0;
	return read_changes(r, e, p && p->has_folder ? &p->folder : NULL);
}

/* reachable()'s marks of the walk's nodes: looked for, reached, queued. */
enum { R_WANT = 1, R_REACHED = 2, R_SEEN = 4 };

/* The mark of node i, in a table that grows with the walk's nodes. */
static uint8_t *mark_of(uint8_t **m, size_t *n, size_t *alloc,
			const struct tm_stale_walk *w, size_t i)
{
	if (*n < w->n) {
		tm_xgrow((void **)m, alloc, w->n, 1);
		memset(*m + *n, 0, w->n - *n);
		*n = w->n;
	}
	return &(*m)[i];
}

/* Commits git keeps walking past the date of the oldest one looked for
 * (revision.c's SLOP). */
#define SLOP 5

/*
 * Which of the threads' own commits and of the versions' `commit`s HEAD
 * reaches (vs->reached, v->reachable): those the walk of the store's life
 * met, and the others by one walk from HEAD, newest first, that stops
 * once it is past the date of the oldest one not met yet (and SLOP more
 * commits, as git's walks stop: a clock skewed further than that is taken
 * as git takes it).  Far cheaper than HEAD's whole history when the review
 * points are recent.  It walks the staleness walk's own nodes: each commit
 * is read from git once, for both walks.
 */
static int reachable(struct walkdata *r, const git_oid *head)
{
	struct tm_stale_pass *s = r->s;
	struct tm_stale_walk *w = s->w;
	struct tm_stale_versions *vs = r->vs;
	tm_hashmap want = TM_HASHMAP_INIT;
	tm_date_queue q = TM_DATE_QUEUE_INIT;
	uint8_t *m = NULL;
	size_t nm = 0, m_alloc = 0, i, k, p, node, pending = 0, steps = 0;
	int64_t oldest = INT64_MAX;
	size_t *v;
	bool missing;
	int slop = SLOP, error = 0;

	/* want: oid -> 2 reached, 3 missing, 4 + its node: looked for (as a
	   base: one the index holds is checked in git after the walk) */
	for (i = 0; i < s->nth + vs->n; i++) {
		const git_oid *oid = i < s->nth ? &s->th[i].commit
						: &vs->v[i - s->nth].review;

		if (git_oid_is_zero(oid))
			continue;
		v = tm_hashmap_put(&want, oid->id, GIT_OID_RAWSZ, 0);
		if (*v)
			continue;
		if (counted(r, oid)) {
			*v = 2;
		} else if (tm_stale__get_base(w, oid, &node) == 0) {
			*v = 4 + node;
			*mark_of(&m, &nm, &m_alloc, w, node) |= R_WANT;
			pending++;
			if (w->nodes[node].time < oldest)
				oldest = w->nodes[node].time;
		} else {
			*v = 3;
		}
		tm_error_clear();
	}
	if (pending && tm_stale__get_node(w, head, &node) == 0) {
		*mark_of(&m, &nm, &m_alloc, w, node) |= R_SEEN;
		tm_stale__queue(&q, w, node);
	}
	tm_error_clear();
	while (pending && q.n) {
		if ((error = tm_deadline_every(steps++, NULL)) < 0)
			break;
		node = tm_date_queue_pop(&q);
		if (*mark_of(&m, &nm, &m_alloc, w, node) == (R_WANT | R_SEEN)) {
			m[node] |= R_REACHED;
			pending--;
		}
		if (w->nodes[node].time < oldest && --slop == 0)
			break;
		if (tm_stale__node_parents(w, node, &missing) < 0) {
			tm_error_clear();
			continue; /* unreadable: an end, as the walk takes it */
		}
		for (k = 0; !missing && k < w->nodes[node].nparents; k++) {
			p = tm_stale__parent(w, node, k);
			if (*mark_of(&m, &nm, &m_alloc, w, p) & R_SEEN)
				continue;
			m[p] |= R_SEEN;
			tm_stale__queue(&q, w, p);
		}
	}
	for (i = 0; i < s->nth + vs->n; i++) {
		const git_oid *oid = i < s->nth ? &s->th[i].commit
						: &vs->v[i - s->nth].review;
		bool yes;

		v = git_oid_is_zero(oid)
			    ? NULL
			    : tm_hashmap_get(&want, oid->id, GIT_OID_RAWSZ);
		yes = v && (*v == 2 || (*v >= 4 && (m[*v - 4] & R_REACHED)));
		if (i < s->nth)
			vs->reached[i] = yes;
		else
			vs->v[i - s->nth].reachable = yes;
	}
	tm_date_queue_release(&q);
	free(m);
	tm_hashmap_release(&want);
	return error;
}

int tm_stale__review_collect_git(struct tm_stale_pass *s,
				 struct tm_stale_versions *vs,
				 const char *threads_dir)
{
	struct walkdata r;
	git_oid head, oid;
	size_t i, len;
	int error;

	error = git_reference_name_to_id(&head, s->w->repo, "HEAD");
	if (error == GIT_ENOTFOUND || error == GIT_EUNBORNBRANCH) {
		tm_error_clear();
		return 0;
	}
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot resolve HEAD");
	len = strlen(threads_dir);
	while (len && threads_dir[len - 1] == '/')
		len--;
	if (!len)
		return 0;
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.vs = vs;
	r.dir = tm_xstrndup(threads_dir, len);
	/* first every commit of the store's life, then each */
	push(&r, &head);
	while (r.nstack) {
		if ((error = tm_deadline_every(r.nall, NULL)) < 0)
			goto done;
		git_oid_cpy(&oid, &r.stack[--r.nstack]);
		count(&r, &oid);
	}
	error = 0;
	for (i = 0; i < r.nall && !error; i++) {
		if (i % 64 == 0 && (error = tm_deadline_check(NULL)) < 0)
			break;
		error = visit(&r, i);
	}
	if (!error)
		error = reachable(&r, &head);
done:
	TM_FREE_ALL(r.all, r.par, r.dir, r.stack);
	tm_strv_clear(&r.changed);
	tm_hashmap_release(&r.seen);
	return error;
}
