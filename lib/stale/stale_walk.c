/*
 * Staleness, phase 1: one walk from HEAD and from every base at once (see
 * stale.c for the whole algorithm).
 *
 * Newest commit first (git's own order for `git log A..B`).  Each commit
 * carries a K-bit set, the bases it is reachable from, and a "reachable
 * from HEAD" flag; both flow from a commit to its parents, and a set that
 * grows on a commit already expanded flows on to its ancestors, so the
 * order of the walk costs time, never correctness.  In git's terms every
 * base is the UNINTERESTING side at once, one bit each.  A commit that
 * one base of each thread reaches concerns no thread: the walk stops as
 * git's does, once every queued commit from HEAD is one of those (and a
 * few more commits for clock skew), so a thread's older review points,
 * below a newer one, cost nothing (issue 20).  O((N + E) K / 64) time; the sets
 * are shared by the commits that have the same one (a parent takes its child's
 * until a base or another child adds to it, then gets a copy), so that they
 * take K / 64 words per distinct set (about one per merge and per base), not
 * per commit.
 */
#include "stale_internal.h"
#include "deadline.h"
#include "error.h"
#include "git.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Commits git keeps walking past the last interesting one (revision.c). */
#define SLOP 5

/* ---- the walk ---- */

void tm_stale__walk_init(struct tm_stale_walk *w, git_repository *repo)
{
	memset(w, 0, sizeof(*w));
	w->repo = repo;
	tm_stale__read_shallow(&w->shallow, &w->nshallow, repo);
}

void tm_stale__walk_free(struct tm_stale_walk *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->nodes[i].reach);
	TM_FREE_ALL(w->nodes, w->bits, w->need, w->group, w->gstart, w->refs,
		    w->spare.v, w->parent_oid, w->parent_node);
	tm_hashmap_release(&w->table);
	TM_FREE_ALL(w->at_pos, w->git, w->stack.v, w->shallow, w->unchecked.v);
	tm_date_queue_release(&w->queue);
	tm_strv_clear(&w->skipped);
	memset(w, 0, sizeof(*w));
}

void tm_stale__walk_set_bases(struct tm_stale_walk *w, size_t nbases)
{
	w->nbases = nbases;
	w->words = TM_STALE_WORDS(nbases);
	w->last_mask =
		nbases % 64 ? ((uint64_t)1 << (nbases % 64)) - 1 : UINT64_MAX;
	w->bits = tm_xcalloc(w->words + 1, sizeof(uint64_t));
	w->refs = tm_xcalloc(1, sizeof(*w->refs));
	w->nrows = w->rows_alloc = 1;
}

void tm_stale__walk_set_threads(struct tm_stale_walk *w,
				const struct tm_stale_live *th, size_t nth)
{
	size_t t, k, n = 0;
	bool done;

	w->need = tm_xcalloc(w->words + 1, sizeof(uint64_t));
	for (t = 0; t < nth; t++)
		if (th[t].bases.n == 1)
			tm_stale__bit_set(w->need, th[t].bases.v[0]);
		else
			n += th[t].bases.n;
	w->group = tm_xcalloc(n + 1, sizeof(size_t));
	w->gstart = tm_xcalloc(nth + 1, sizeof(size_t));
	for (n = 0, t = 0; t < nth; t++) {
		if (th[t].bases.n < 2)
			continue;
		/* one of its bases some thread needs alone: nothing more */
		for (done = false, k = 0; !done && k < th[t].bases.n; k++)
			done = tm_stale__bit_get(w->need, th[t].bases.v[k]);
		if (done)
			continue;
		for (k = 0; k < th[t].bases.n; k++)
			w->group[n++] = th[t].bases.v[k];
		w->gstart[++w->ngroups] = n;
	}
}

/* Node i no longer uses its set. */
static void row_drop(struct tm_stale_walk *w, size_t i)
{
	uint32_t r = w->nodes[i].row;

	if (r && --w->refs[r] == 0)
		tm_stale__sizev_push(&w->spare, r);
	w->nodes[i].row = 0;
}

/* Let node i use set r (not 0) too. */
static void row_share(struct tm_stale_walk *w, size_t i, uint32_t r)
{
	w->refs[r]++;
	row_drop(w, i);
	w->nodes[i].row = r;
}

/* Node i's set, its own to change (copied when shared or empty). */
static uint64_t *row_own(struct tm_stale_walk *w, size_t i)
{
	uint32_t old = w->nodes[i].row, r;
	size_t before = w->rows_alloc;

	if (old && w->refs[old] == 1)
		return w->bits + (size_t)old * w->words;
	if (w->spare.n) {
		r = (uint32_t)w->spare.v[--w->spare.n];
	} else {
		tm_xgrow((void **)&w->refs, &w->rows_alloc, w->nrows + 1,
			 sizeof(*w->refs));
		if (w->rows_alloc != before)
			w->bits = tm_xrealloc(w->bits,
					      (w->rows_alloc * w->words + 1) *
						      sizeof(uint64_t));
		r = (uint32_t)w->nrows++;
	}
	memcpy(w->bits + (size_t)r * w->words, w->bits + (size_t)old * w->words,
	       w->words * sizeof(uint64_t));
	w->refs[r] = 0;
	row_share(w, i, r);
	return w->bits + (size_t)r * w->words;
}

/* The new node of commit `oid`: index position `cix` (or UINT32_MAX and
 * commit c, read from git; taken). */
static size_t add_node(struct tm_stale_walk *w, const git_oid *oid,
		       uint32_t cix, git_commit *c)
{
	struct tm_stale_node *n;
	size_t i;
	const uint32_t *ixparents = NULL;

	tm_xgrow((void **)&w->nodes, &w->alloc, w->n + 1, sizeof(*w->nodes));
	i = w->n++;
	n = &w->nodes[i];
	memset(n, 0, sizeof(*n));
	n->cix = cix;
	if (c) {
		/* its oid and tree (for the diffs without the index) */
		tm_xgrow((void **)&w->git, &w->git_alloc, w->n,
			 sizeof(*w->git));
		git_oid_cpy(&w->git[i].oid, oid);
		git_oid_cpy(&w->git[i].tree, git_commit_tree_id(c));
		n->time = (int64_t)git_commit_time(c);
		n->nparents = git_commit_parentcount(c);
	} else {
		n->time = tm_stale__cidx_time(w->ix, cix);
		n->nparents = tm_stale__cidx_parents(w->ix, cix, &ixparents);
	}
	n->parents = (uint32_t)w->nparent;
	n->base = TM_STALE_NONE;
	tm_xgrow((void **)&w->parent_node, &w->parent_alloc,
		 w->nparent + n->nparents, sizeof(*w->parent_node));
	if (c) /* the index gives the others' parents by position */
		tm_xgrow((void **)&w->parent_oid, &w->poid_alloc,
			 w->nparent + n->nparents, sizeof(git_oid));
	for (i = 0; i < n->nparents; i++) {
		if (c)
			git_oid_cpy(&w->parent_oid[w->nparent],
				    git_commit_parent_id(c, (unsigned)i));
		w->parent_node[w->nparent++] = UINT32_MAX;
	}
	git_commit_free(c);
	if (cix != UINT32_MAX)
		w->at_pos[cix] = (uint32_t)w->n; /* 1 + the node */
	else
		tm_hashmap_put(&w->table, w->git[w->n - 1].oid.id,
			       GIT_OID_RAWSZ, w->n - 1);
	return w->n - 1;
}

/* w->at_pos, for every position of the index (made on first use). */
static void at_pos_init(struct tm_stale_walk *w)
{
	if (w->at_n == (size_t)w->ix->n + 1)
		return;
	w->at_pos = tm_xrealloc(w->at_pos,
				((size_t)w->ix->n + 1) * sizeof(*w->at_pos));
	memset(w->at_pos + w->at_n, 0,
	       ((size_t)w->ix->n + 1 - w->at_n) * sizeof(*w->at_pos));
	w->at_n = (size_t)w->ix->n + 1;
}

/* The node of index position `pos` into *out (made on first use): a stub's
 * is its description's, or, when the index has none, read from git.
 * TM_ENOTFOUND (no message) when the repository lacks a stub's commit. */
static int node_at(struct tm_stale_walk *w, uint32_t pos, size_t *out)
{
	git_commit *c = NULL;
	uint32_t at;
	git_oid oid;
	int error;

	at_pos_init(w);
	if (w->at_pos[pos]) {
		*out = w->at_pos[pos] - 1;
		return 0;
	}
	memcpy(oid.id, tm_stale__cidx_oid(w->ix, pos), GIT_OID_RAWSZ);
	at = tm_stale__cidx_resolve(w->ix, pos);
	if (at != pos) {
		if ((error = node_at(w, at, out)) < 0)
			return error;
	} else if (tm_stale__cidx_described(w->ix, pos)) {
		*out = add_node(w, &oid, pos, NULL);
		return 0;
	} else { /* a stub: its parents are git's */
		error = git_commit_lookup(&c, w->repo, &oid);
		if (error == GIT_ENOTFOUND)
			return TM_ENOTFOUND;
		if (error < 0)
			return tm_git_error(TM_ERROR, "cannot read commit %s",
					    git_oid_tostr_s(&oid));
		*out = add_node(w, &oid, UINT32_MAX, c);
	}
	w->at_pos[pos] = (uint32_t)*out + 1;
	return 0;
}

void tm_stale__walk_described(struct tm_stale_walk *w)
{
	size_t i;
	uint32_t pos;
	git_oid buf;

	at_pos_init(w);
	for (i = 0; i < w->n; i++) {
		if (w->nodes[i].cix != UINT32_MAX ||
		    !tm_stale__cidx_find(w->ix, tm_stale__node_oid(w, i, &buf),
					 &pos) ||
		    !tm_stale__cidx_described(w->ix, pos))
			continue;
		w->nodes[i].cix = pos;
		w->at_pos[pos] = (uint32_t)i + 1;
	}
}

int tm_stale__get_node(struct tm_stale_walk *w, const git_oid *oid, size_t *out)
{
	git_commit *c = NULL;
	const size_t *known;
	uint32_t cix;
	int error;

	if (w->ix && tm_stale__cidx_find(w->ix, oid, &cix))
		return node_at(w, cix, out); /* no table of the indexed */
	if ((known = tm_hashmap_get(&w->table, oid->id, GIT_OID_RAWSZ))) {
		*out = *known;
		return 0;
	}
	error = git_commit_lookup(&c, w->repo, oid);
	if (error == GIT_ENOTFOUND)
		return TM_ENOTFOUND;
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot read commit %s",
				    git_oid_tostr_s(oid));
	*out = add_node(w, oid, UINT32_MAX, c);
	*out = w->n - 1;
	return 0;
}

int tm_stale__get_base(struct tm_stale_walk *w, const git_oid *oid, size_t *out)
{
	uint32_t cix;
	size_t k;

	if (w->ix && tm_stale__cidx_find(w->ix, oid, &cix) &&
	    tm_stale__cidx_described(w->ix, cix) &&
	    !(w->at_pos && w->at_pos[cix])) {
		for (k = 0; w->gone && k < w->gone->n; k++)
			if (git_oid_equal(&w->gone->v[k], oid))
				return TM_ENOTFOUND;
		at_pos_init(w);
		*out = add_node(w, oid, cix, NULL);
		tm_stale__sizev_push(&w->unchecked, *out);
		return 0;
	}
	return tm_stale__get_node(w, oid, out);
}

int tm_stale__walk_check(struct tm_stale_walk *w)
{
	git_odb *odb = NULL;
	git_oid buf;
	const git_oid *oid;
	size_t k;
	bool any = false;

	for (k = 0; w->gone && k < w->unchecked.n; k++) {
		if (w->nodes[w->unchecked.v[k]].flags & TM_STALE_F_HEAD)
			continue; /* HEAD's history is in the repository */
		if (!odb && git_repository_odb(&odb, w->repo) < 0)
			break; /* then taken as there, as git would read it */
		oid = tm_stale__node_oid(w, w->unchecked.v[k], &buf);
		if (git_odb_exists(odb, oid))
			continue;
		tm_xgrow((void **)&w->gone->v, &w->gone->alloc, w->gone->n + 1,
			 sizeof(git_oid));
		git_oid_cpy(&w->gone->v[w->gone->n++], oid);
		any = true;
	}
	git_odb_free(odb);
	tm_error_clear();
	return any ? 2 : 0;
}

static void queue_push(struct tm_stale_walk *w, size_t i)
{
	w->nodes[i].flags |= TM_STALE_F_QUEUED;
	w->live += tm_stale__interesting(&w->nodes[i]);
	tm_stale__queue(&w->queue, w, i);
}

static size_t queue_pop(struct tm_stale_walk *w)
{
	size_t i = tm_date_queue_pop(&w->queue);

	w->nodes[i].flags &= ~(unsigned)TM_STALE_F_QUEUED;
	w->live -= tm_stale__interesting(&w->nodes[i]);
	return i;
}

static bool row_full(const struct tm_stale_walk *w, const uint64_t *r)
{
	size_t k, g;

	if (w->need) { /* per thread (tm_stale__walk_set_threads) */
		for (k = 0; k < w->words; k++)
			if ((r[k] & w->need[k]) != w->need[k])
				return false;
		for (g = 0; g < w->ngroups; g++) {
			for (k = w->gstart[g]; k < w->gstart[g + 1]; k++)
				if (tm_stale__bit_get(r, w->group[k]))
					break;
			if (k == w->gstart[g + 1])
				return false;
		}
		return true;
	}
	for (k = 0; k + 1 < w->words; k++)
		if (r[k] != UINT64_MAX)
			return false;
	return r[k] == w->last_mask;
}

/* Adjust the count of interesting queued nodes after node n changed. */
static void recount(struct tm_stale_walk *w, const struct tm_stale_node *n,
		    bool was)
{
	if (!(n->flags & TM_STALE_F_QUEUED) || was == tm_stale__interesting(n))
		return;
	if (was)
		w->live--;
	else
		w->live++;
}

/* Add a base bit / the HEAD flag to node i; keeps `live` right. */
static void mark(struct tm_stale_walk *w, size_t i, size_t base, bool head)
{
	struct tm_stale_node *n = &w->nodes[i];
	bool was = tm_stale__interesting(n);

	if (base != TM_STALE_NONE &&
	    !tm_stale__bit_get(tm_stale__row(w, i), base))
		tm_stale__bit_set(row_own(w, i), base);
	if (head)
		n->flags |= TM_STALE_F_HEAD;
	if (row_full(w, tm_stale__row(w, i)))
		n->flags |= TM_STALE_F_FULL;
	recount(w, n, was);
}

/* Let what reaches `src` reach `dst`; true when that changed dst. */
static bool flow_one(struct tm_stale_walk *w, size_t dst, size_t src)
{
	struct tm_stale_node *d = &w->nodes[dst];
	const uint64_t *s = tm_stale__row(w, src), *r = tm_stale__row(w, dst);
	uint64_t *own;
	bool was = tm_stale__interesting(d), changed = false, grew = false,
	     sub = true;
	size_t k;

	if ((w->nodes[src].flags & TM_STALE_F_HEAD) &&
	    !(d->flags & TM_STALE_F_HEAD)) {
		d->flags |= TM_STALE_F_HEAD;
		changed = true;
	}
	if (!(d->flags & TM_STALE_F_FULL) && d->row != w->nodes[src].row &&
	    w->nodes[src].row) {
		for (k = 0; k < w->words; k++) {
			grew |= (s[k] & ~r[k]) != 0;
			sub &= (r[k] & ~s[k]) == 0;
		}
		if (grew && sub) { /* the same set as src's: share it */
			row_share(w, dst, w->nodes[src].row);
		} else if (grew) {
			own = row_own(w, dst);
			s = tm_stale__row(w, src);
			for (k = 0; k < w->words; k++)
				own[k] |= s[k];
		}
		if (grew && row_full(w, tm_stale__row(w, dst)))
			d->flags |= TM_STALE_F_FULL;
	}
	recount(w, d, was);
	return changed || grew;
}

/* Let what reaches `start` reach its ancestors among the expanded nodes. */
static void flow(struct tm_stale_walk *w, size_t start)
{
	size_t c, k, p;

	w->stack.n = 0;
	tm_stale__sizev_push(&w->stack, start);
	while (w->stack.n) {
		c = w->stack.v[--w->stack.n];
		for (k = 0; k < w->nodes[c].nparents; k++) {
			p = tm_stale__parent(w, c, k);
			if (flow_one(w, p, c) &&
			    (w->nodes[p].flags & TM_STALE_F_EXPANDED))
				tm_stale__sizev_push(&w->stack, p);
		}
	}
}

int tm_stale__node_parents(struct tm_stale_walk *w, size_t c, bool *missing)
{
	struct tm_stale_node *n = &w->nodes[c];
	size_t k, p, np = n->nparents, first = n->parents;
	git_oid buf;
	const uint32_t *ixp = NULL;
	int error;

	*missing = tm_stale__shallow_has(w->shallow, w->nshallow,
					 tm_stale__node_oid(w, c, &buf));
	if (n->cix != UINT32_MAX)
		tm_stale__cidx_parents(w->ix, n->cix,
				       &ixp); /* np of them: add_node */
	for (k = 0; !*missing && k < np; k++) {
		/* by position: no search by oid */
		error = ixp ? node_at(w, ixp[k], &p)
			    : tm_stale__get_node(w, &w->parent_oid[first + k],
						 &p);
		if (error == TM_ENOTFOUND)
			*missing = true;
		else if (error < 0)
			return error;
		else
			w->parent_node[first + k] = (uint32_t)p;
	}
	return 0;
}

/* Load node c's parents, queue the new ones, pass c's marks on. */
static int expand(struct tm_stale_walk *w, size_t c)
{
	struct tm_stale_node *n;
	size_t k, p, np = w->nodes[c].nparents;
	bool missing;
	int error;

	if ((error = tm_stale__node_parents(w, c, &missing)) < 0)
		return error;
	n = &w->nodes[c];
	n->flags |= TM_STALE_F_EXPANDED;
	if (missing) {
		n->nparents = 0;
		n->flags |= TM_STALE_F_GRAFTED;
		return 0;
	}
	for (k = 0; k < np; k++) {
		p = tm_stale__parent(w, c, k);
		if (!(w->nodes[p].flags &
		      (TM_STALE_F_QUEUED | TM_STALE_F_EXPANDED)))
			queue_push(w, p);
	}
	flow(w, c);
	return 0;
}

/* Walk until no queued commit from HEAD concerns any thread (see top). */
int tm_stale__walk_run(struct tm_stale_walk *w)
{
	int64_t date = INT64_MAX;
	int slop = SLOP, error;
	size_t c, steps = 0;

	while (w->queue.n) {
		if ((error = tm_deadline_every(steps++, NULL)) < 0)
			return error; /* a hook's budget */
		c = queue_pop(w);
		if ((error = expand(w, c)) < 0)
			return error;
		if (tm_stale__interesting(&w->nodes[c])) {
			date = w->nodes[c].time;
			continue;
		}
		if (!w->queue.n)
			break;
		if (date <= w->queue.v[0].time || w->live)
			slop = SLOP;
		else if (--slop == 0)
			break;
	}
	return 0;
}

int tm_stale__walk_start(struct tm_stale_walk *w, size_t *head)
{
	git_oid oid;
	size_t i, nbase = w->n;
	int error;

	*head = TM_STALE_NONE;
	error = git_reference_name_to_id(&oid, w->repo, "HEAD");
	if (error == GIT_ENOTFOUND || error == GIT_EUNBORNBRANCH)
		return 0;
	if (error < 0)
		return tm_error_set(TM_ERROR, "cannot resolve HEAD: %s",
				    git_error_last() ? git_error_last()->message
						     : "libgit2 error");
	error = tm_stale__get_node(w, &oid, head);
	if (error == TM_ENOTFOUND)
		return tm_error_set(TM_ERROR, "HEAD names a missing commit");
	if (error < 0)
		return error;
	for (i = 0; i < nbase; i++)
		if (w->nodes[i].base != TM_STALE_NONE)
			mark(w, i, w->nodes[i].base, false);
	mark(w, *head, TM_STALE_NONE, true);
	for (i = 0; i < w->n; i++)
		if (i == *head || w->nodes[i].base != TM_STALE_NONE)
			queue_push(w, i);
	return 0;
}
