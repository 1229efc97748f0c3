/*
 * Staleness, phase 0: every thread's review points (DESIGN.md section 11,
 * "Staleness across merges"; see stale.c for the whole algorithm).
 *
 * Each version of a thread file in HEAD's history records a review point:
 * its `commit` when HEAD reaches that commit; when it does not (rebased,
 * amended, squashed or filtered away, whether or not the old object is
 * still in the repository), the commits that introduced that version in
 * HEAD's history: those whose file differs from the file of each of their
 * parents.  A version belongs to every thread of its identity (createdAt
 * and author), whatever its file's name: after a same-id split renamed a
 * thread, the versions of its old file are still its own.
 *
 * Every version of a file reachable from HEAD is the file of some commit
 * reachable from HEAD whose first-parent diff changes it (or of a root or
 * shallow end): follow the first parents down from any commit holding that
 * version until the file changes.  So one walk over the store's life,
 * comparing each commit's folder of thread files with its first parent's
 * (one tree entry each, and a diff of that folder only when it differs),
 * finds them all; each distinct blob is parsed once.  A commit without
 * the folder ends the walk there: the commits older than the store hold
 * none of its versions (a store deleted and made again keeps the versions
 * of its new life only), so that the first run on a long history with a
 * young store reads a few commits, not the history (issue 20).  Which
 * review commits HEAD reaches: those the walk met, and the others by one
 * walk from HEAD by date, down to the oldest of them (reachable()).
 */
#include "stale_review_internal.h"
#include "deadline.h"
#include "error.h"
#include "frontmatter.h"
#include "git.h"
#include "treediff.h"

#include <string.h>

/* ---- the rule ---- */

/* Thread t gets base commit `oid` (once each: bases_unique); false when
 * the repository lacks it. */
static bool add_base(struct tm_stale_pass *s, size_t t, const git_oid *oid)
{
	struct tm_stale_live *l = &s->th[t];
	size_t node;

	if (tm_stale__get_base(s->w, oid, &node) < 0) {
		tm_error_clear();
		return false;
	}
	if (s->w->nodes[node].base == TM_STALE_NONE)
		s->w->nodes[node].base = s->nbases++;
	if (l->base_nodes.n && l->base_nodes.v[l->base_nodes.n - 1] == node)
		return true;
	tm_stale__sizev_push(&l->bases, s->w->nodes[node].base);
	tm_stale__sizev_push(&l->base_nodes, node);
	return true;
}

/* Each of l's bases once (a base and its node go together), sorted: a
 * thread of 10,000 versions is 10,000 pushes and a sort, not 10^8 looks. */
static int pair_cmp(const void *a, const void *b)
{
	const size_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void bases_unique(struct tm_stale_live *l)
{
	size_t i, k = 0, n = l->bases.n, *pairs;

	if (n < 2)
		return;
	pairs = tm_xcalloc(2 * n, sizeof(size_t));
	for (i = 0; i < n; i++) {
		pairs[2 * i] = l->bases.v[i];
		pairs[2 * i + 1] = l->base_nodes.v[i];
	}
	qsort(pairs, n, 2 * sizeof(size_t), pair_cmp);
	for (i = 0; i < n; i++) {
		if (k && l->bases.v[k - 1] == pairs[2 * i])
			continue;
		l->bases.v[k] = pairs[2 * i];
		l->base_nodes.v[k++] = pairs[2 * i + 1];
	}
	l->bases.n = l->base_nodes.n = k;
	free(pairs);
}

/* Does the repository have commit `oid`? */
static bool has_commit(git_repository *repo, const git_oid *oid)
{
	git_commit *c = NULL;
	bool has = git_commit_lookup(&c, repo, oid) == 0;

	git_commit_free(c);
	tm_error_clear();
	return has;
}

/* The review point of version v into *out; false: it gives none. */
static bool review_point(const struct tm_stale_pass *s,
			 const struct tm_stale_version *v, bool shallow,
			 git_oid *out)
{
	if (git_oid_is_zero(&v->review))
		return false;
	if (v->reachable) {
		git_oid_cpy(out, &v->review);
		return true;
	}
	/* rewritten away; in a shallow clone it may lie beyond the boundary
	   instead, where it would review less than its introducers do */
	if (!v->introduced || (shallow && !has_commit(s->w->repo, &v->review)))
		return false;
	git_oid_cpy(out, &v->at);
	return true;
}

/*
 * Which threads a version belongs to: those of its identity, the one
 * thread of it in a store (a same-id split's rename leaves one).  When
 * several threads of the store share an identity (a copied file, or a
 * clone's doing: 10,000 files of one createdAt would make every version
 * every thread's, 10^8 pairs), a version of it belongs only to the thread
 * whose file it is: fewer review points, never more, so never an answer
 * less stale.  Each version then belongs to one thread at most.
 */
struct owners {
	tm_hashmap by_ident;  /* identity -> its first thread (index in th) */
	tm_hashmap by_thread; /* thread pointer -> its index in th */
	size_t *next;         /* the next thread of the same identity */
	bool *shared;         /* per thread: its identity is not its own */
};

static void owners_index(struct owners *o, const struct tm_stale_pass *s)
{
	size_t i, *head;

	tm_hashmap_release(&o->by_ident);
	tm_hashmap_release(&o->by_thread);
	free(o->next);
	free(o->shared);
	o->next = tm_xcalloc(s->nth + 1, sizeof(*o->next));
	o->shared = tm_xcalloc(s->nth + 1, sizeof(*o->shared));
	for (i = s->nth; i-- > 0;) {
		head = tm_hashmap_put(&o->by_ident, &s->th[i].ident,
				      sizeof(s->th[i].ident), TM_STALE_NONE);
		o->next[i] = *head;
		*head = i;
		*tm_hashmap_put(&o->by_thread, &s->th[i].t, sizeof(s->th[i].t),
				0) = i;
	}
	for (i = 0; i < s->nth; i++)
		if (o->next[i] != TM_STALE_NONE)
			o->shared[i] = o->shared[o->next[i]] = true;
}

static void owners_free(struct owners *o)
{
	tm_hashmap_release(&o->by_ident);
	tm_hashmap_release(&o->by_thread);
	free(o->next);
	free(o->shared);
}

/* The first thread version v belongs to, or TM_STALE_NONE; then next_of. */
static size_t first_of(const struct owners *o, const struct tm_stale_pass *s,
		       const struct tm_stale_version *v)
{
	const size_t *t =
		tm_hashmap_get(&o->by_ident, &v->ident, sizeof(v->ident));

	if (!t || !o->shared[*t])
		return t ? *t : TM_STALE_NONE;
	t = v->owner
		    ? tm_hashmap_get(&o->by_thread, &v->owner, sizeof(v->owner))
		    : NULL;
	return t && s->th[*t].ident == v->ident ? *t : TM_STALE_NONE;
}

static size_t next_of(const struct owners *o, size_t t)
{
	return o->shared[t] ? TM_STALE_NONE : o->next[t];
}

static int cover_cmp(const void *a, const void *b)
{
	const struct tm_stale_cover *x = a, *y = b;
	int c = git_oid_cmp(&x->at, &y->at);

	return c ? c : (x->t > y->t) - (x->t < y->t);
}

enum own { OWN_BASE, OWN_NONE, OWN_UNKNOWN };

int tm_stale__review_points(struct tm_stale_pass *s, tm_strv *unknown,
			    const char *threads_dir)
{
	struct tm_stale_versions vs;
	struct owners o;
	tm_buf name = TM_BUF_INIT;
	size_t i, j, t, keep, node, extra_alloc = 0;
	enum own *own = NULL;
	bool *named = NULL, *any = NULL, shallow;
	git_oid rp;
	int error = 0;

	memset(&vs, 0, sizeof(vs));
	memset(&o, 0, sizeof(o));
	vs.reached = tm_xcalloc(s->nth + 1, sizeof(*vs.reached));
	shallow = s->w->nshallow > 0 ||
		  git_repository_is_shallow(s->w->repo) == 1;
	for (i = 0; i < s->nth; i++) {
		tm_hashmap_put(&vs.idents, &s->th[i].ident,
			       sizeof(s->th[i].ident), 0);
		tm_buf_truncate(&name, 0);
		tm_buf_printf(&name, "%s.md", s->th[i].t->id);
		*tm_hashmap_puts(&vs.own, tm_buf_cstr(&name), i) = i;
	}
	tm_buf_release(&name);
	if (threads_dir)
		error = tm_stale__review_collect_git(s, &vs, threads_dir);
	if (error)
		goto done;

	own = tm_xcalloc(s->nth + 1, sizeof(*own));
	named = tm_xcalloc(s->nth + 1, sizeof(*named));
	any = tm_xcalloc(s->nth + 1, sizeof(*any));
	owners_index(&o, s);
	/* does a version of the history name the thread's own `commit`? */
	for (j = 0; j < vs.n; j++)
		for (t = first_of(&o, s, &vs.v[j]); t != TM_STALE_NONE;
		     t = next_of(&o, t))
			if (git_oid_equal(&vs.v[j].review, &s->th[t].commit))
				named[t] = true;
	/* the own `commit`: a base when HEAD reaches it, or when it is a
	   review not committed yet that the repository has; a committed one
	   HEAD does not reach is one of its versions' (rewritten away), but
	   in a shallow clone one the repository lacks is unknown */
	for (t = 0; t < s->nth; t++) {
		if (vs.reached[t])
			own[t] = OWN_BASE;
		else if (!named[t])
			own[t] = tm_stale__get_base(s->w, &s->th[t].commit,
						    &node) == 0
					 ? OWN_BASE
					 : OWN_UNKNOWN;
		else if (shallow && !has_commit(s->w->repo, &s->th[t].commit))
			own[t] = OWN_UNKNOWN;
		else
			own[t] = OWN_NONE;
		tm_error_clear();
		any[t] = own[t] == OWN_BASE;
	}
	for (j = 0; j < vs.n; j++)
		for (t = first_of(&o, s, &vs.v[j]); t != TM_STALE_NONE;
		     t = next_of(&o, t))
			if (!any[t] && own[t] != OWN_UNKNOWN)
				any[t] =
					review_point(s, &vs.v[j], shallow, &rp);
	/* the threads without a review point are unknown bases */
	for (t = 0, keep = 0; t < s->nth; t++) {
		if (own[t] == OWN_UNKNOWN || !any[t]) {
			tm_strv_push(unknown, s->th[t].t->id);
			free(s->th[t].bases.v);
			free(s->th[t].base_nodes.v);
			continue;
		}
		own[keep] = own[t];
		s->th[keep++] = s->th[t];
	}
	s->nth = keep;
	owners_index(&o, s);
	for (t = 0; t < s->nth; t++)
		if (own[t] == OWN_BASE)
			add_base(s, t, &s->th[t].commit);
	for (j = 0; j < vs.n; j++) {
		for (t = first_of(&o, s, &vs.v[j]); t != TM_STALE_NONE;
		     t = next_of(&o, t)) {
			if (review_point(s, &vs.v[j], shallow, &rp))
				add_base(s, t, &rp);
			if (vs.v[j].owner == s->th[t].t)
				continue;
			/* a version under another name: a split's rename */
			tm_xgrow((void **)&s->extra, &extra_alloc,
				 s->nextra + 1, sizeof(*s->extra));
			git_oid_cpy(&s->extra[s->nextra].at, &vs.v[j].at);
			s->extra[s->nextra++].t = t;
		}
	}
	if (s->nextra)
		qsort(s->extra, s->nextra, sizeof(*s->extra), cover_cmp);
	for (t = 0; t < s->nth; t++)
		bases_unique(&s->th[t]);
done:
	owners_free(&o);
	TM_FREE_ALL(own, named, any, vs.v, vs.reached);
	tm_hashmap_release(&vs.idents);
	tm_hashmap_release(&vs.own);
	return error;
}
