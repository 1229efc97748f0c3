/*
 * Staleness, phase 2: each thread's simplified history (see stale.c for
 * the whole algorithm).
 *
 * The commits from HEAD that some base does not reach, children first
 * (newest first among those ready), each diffed once against its first
 * parent (a merge against its other parents only where a thread's
 * simplification looks past the first one, and under its paths: refine);
 * each changed path is matched against every thread's pathspecs at once
 * (stale_specs.c).  A T-bit set per commit says whose simplified history
 * reaches it, so that each thread gets the commits that `git log
 * <commit>..HEAD -- <paths>` lists: git's default history simplification
 * (revision.c, try_to_simplify_commit) follows only the first "relevant"
 * parent of a merge that has the same content under the paths, and then
 * does not show the merge; otherwise it shows the merge when it differs
 * from its relevant parents.  A parent is relevant unless git's walk, by date,
 * has already marked it as reachable from the base when it reaches the merge:
 * the base's parents from the start, and the parents and grandparents of
 * the commits reachable from the base that are newer than the merge.  That
 * reproduces git's answer whenever commits are newer than their parents.
 * O(N T / 64) plus one diff per commit.
 */
#include "stale_internal.h"
#include "deadline.h"
#include "error.h"
#include "git.h"
#include "git_libgit2.h"
#include "treediff.h"

#include <string.h>

/* ---- interned strings (each changed path stored once) ---- */

/* The number of string s, the same for equal strings. */
static size_t intern(struct tm_stale_interner *in, const char *s)
{
	size_t *i = tm_hashmap_puts(&in->map, s, in->names.n);

	if (*i == in->names.n)
		tm_strv_push(&in->names, s);
	return *i;
}

static void interner_free(struct tm_stale_interner *in)
{
	tm_strv_clear(&in->names);
	tm_hashmap_release(&in->map);
}

/* ---- each thread's history ---- */

/* A thread set of node i's, allocated on first use. */
static uint64_t *reach_of(struct tm_stale_pass *s, size_t i)
{
	struct tm_stale_node *n = &s->w->nodes[i];

	if (!n->reach)
		n->reach = tm_xcalloc(s->words, sizeof(uint64_t));
	return n->reach;
}

/* Of the threads `hits` (n of them) that path i matches, those in `active`
 * into `touched`; with `pairs`, each (i, thread) pair once into s->pairs. */
static void touch_hits(struct tm_stale_pass *s, size_t i, const size_t *hits,
		       size_t n, uint64_t *touched, bool pairs)
{
	size_t k, t;

	s->gen++;
	for (k = 0; k < n; k++) {
		t = hits[k];
		if (!tm_stale__bit_get(s->active, t))
			continue;
		tm_stale__bit_set(touched, t);
		if (pairs && s->stamp[t] != s->gen) {
			s->stamp[t] = s->gen;
			tm_stale__sizev_push(&s->pairs, i);
			tm_stale__sizev_push(&s->pairs, t);
		}
	}
}

/* Threads in `active` that `paths` touch, into `touched`; with `pairs`,
 * also each (path, thread) pair once into s->pairs. */
static void match_paths(struct tm_stale_pass *s, const tm_strv *paths,
			uint64_t *touched, bool pairs)
{
	size_t i;

	memset(touched, 0, s->words * sizeof(uint64_t));
	for (i = 0; i < paths->n; i++) {
		s->hits.n = 0;
		tm_stale__specs_match(&s->x, paths->items[i], &s->hits);
		touch_hits(s, i, s->hits.v, s->hits.n, touched, pairs);
	}
}

/* With the index: the memo of path number `pid` (see struct tm_stale_pass). */
static const size_t *memo_of(struct tm_stale_pass *s, uint32_t pid)
{
	const char *name;
	size_t start, k, f;

	if (!s->memo_at[pid]) {
		name = tm_stale__cidx_name(s->w->ix, pid);
		start = s->memo.n;
		s->hits.n = 0;
		tm_stale__specs_match(&s->x, name, &s->hits);
		for (k = 0; k < s->hits.n; k++)
			tm_stale__sizev_push(&s->memo, s->hits.v[k]);
		s->memo_nmatch[pid] = (uint32_t)s->hits.n;
		for (f = tm_stale__specs_file(&s->x, name); f != TM_STALE_NONE;
		     f = s->x.file_next[f])
			tm_stale__sizev_push(&s->memo, f);
		s->memo_nfile[pid] = (uint32_t)(s->memo.n - start - s->hits.n);
		s->memo_at[pid] = start + 1;
	}
	/* (an empty memo has no array: no offset from NULL) */
	return s->memo.v ? s->memo.v + (s->memo_at[pid] - 1) : NULL;
}

/* match_paths for the path numbers `ids` of the index; with `maybe`, the
 * threads that only prefixes touch are also in it (refine()). */
static void match_ids(struct tm_stale_pass *s, const uint32_t *ids, size_t n,
		      uint64_t *touched, uint64_t *maybe, bool pairs)
{
	const size_t *m;
	const char *name;
	size_t i, k;

	memset(touched, 0, s->words * sizeof(uint64_t));
	if (maybe)
		memset(maybe, 0, s->words * sizeof(uint64_t));
	for (i = 0; i < n; i++) {
		m = memo_of(s, ids[i]); /* sets memo_nmatch[ids[i]] */
		name = maybe ? tm_stale__cidx_name(s->w->ix, ids[i]) : NULL;
		touch_hits(s, i, m, s->memo_nmatch[ids[i]],
			   name && tm_treediff_is_prefix(name, strlen(name))
				   ? maybe
				   : touched,
			   pairs);
	}
	for (k = 0; maybe && k < s->words; k++) {
		maybe[k] &= ~touched[k];
		touched[k] |= maybe[k];
	}
}

/* Let thread t's history go on to parent p. */
static void follow(struct tm_stale_pass *s, size_t p, size_t t)
{
	if (tm_stale__interesting(&s->w->nodes[p]))
		tm_stale__bit_set(reach_of(s, p), t);
}

/* Is node q one of node n's parents?  (n need not be expanded: by oid.) */
static bool has_parent(const struct tm_stale_walk *w, size_t n, size_t q)
{
	const struct tm_stale_node *x = &w->nodes[n];
	const uint32_t *ixp;
	git_oid buf;
	const git_oid *oid = tm_stale__node_oid(w, q, &buf);
	size_t k;

	if (x->flags & TM_STALE_F_EXPANDED) {
		for (k = 0; k < x->nparents; k++)
			if (tm_stale__parent(w, n, k) == q)
				return true;
		return false;
	}
	if (x->cix != UINT32_MAX) {
		tm_stale__cidx_parents(w->ix, x->cix, &ixp);
		for (k = 0; k < x->nparents; k++)
			if (!memcmp(tm_stale__cidx_oid(w->ix, ixp[k]), oid->id,
				    GIT_OID_RAWSZ))
				return true;
		return false;
	}
	for (k = 0; k < x->nparents; k++)
		if (git_oid_equal(&w->parent_oid[x->parents + k], oid))
			return true;
	return false;
}

/* Mark node i as met by the current search; false if it already was. */
static bool meet(struct tm_stale_pass *s, size_t i)
{
	if (s->seen[i] == s->search)
		return false;
	s->seen[i] = s->search;
	return true;
}

/*
 * Has `git log` already marked p (reachable from base b) as uninteresting
 * when its date-ordered walk reaches merge m?  It marks b's parents at the
 * start; then, for each commit reachable from b that it takes before m
 * (newer than m), that commit's parents and grandparents.
 */
static bool git_knows(struct tm_stale_pass *s, size_t b, size_t p, size_t m)
{
	struct tm_stale_walk *w = s->w;
	int64_t when = w->nodes[m].time;
	size_t z, k, y;

	if (has_parent(w, b, p))
		return true;
	if (w->nodes[b].time <= when)
		return false;
	if (!s->seen || s->search == UINT32_MAX) {
		free(s->seen);
		s->seen = tm_xcalloc(w->n + 1, sizeof(*s->seen));
		s->search = 0;
	}
	s->search++;
	s->stack.n = 0;
	meet(s, b);
	tm_stale__sizev_push(&s->stack, b);
	while (s->stack.n) {
		z = s->stack.v[--s->stack.n];
		if (!(w->nodes[z].flags & TM_STALE_F_EXPANDED))
			continue;
		for (k = 0; k < w->nodes[z].nparents; k++) {
			y = tm_stale__parent(w, z, k);
			if (y == p || has_parent(w, y, p))
				return true;
			if (w->nodes[y].time > when && meet(s, y))
				tm_stale__sizev_push(&s->stack, y);
		}
	}
	return false;
}

/*
 * A "relevant" parent in git's sense (revision.c): one its walk has not
 * marked uninteresting (yet), or a base itself (git's bottom commits).
 */
static bool relevant(struct tm_stale_pass *s, size_t m, size_t p, size_t t)
{
	const struct tm_stale_live *l = &s->th[t];
	bool reached = false;
	size_t k;

	for (k = 0; k < l->bases.n; k++) {
		if (p == l->base_nodes.v[k])
			return true;
		reached |= tm_stale__bit_get(tm_stale__row(s->w, p),
					     l->bases.v[k]);
	}
	if (!reached)
		return true;
	/* git's walk marks from every base at once: the union of each */
	for (k = 0; k < l->bases.n; k++)
		if (tm_stale__bit_get(tm_stale__row(s->w, p), l->bases.v[k]) &&
		    git_knows(s, l->base_nodes.v[k], p, m))
			return false;
	return true;
}

/* Does some base of thread t reach node c? */
static bool covered(const struct tm_stale_pass *s, const uint64_t *r, size_t t)
{
	const struct tm_stale_live *l = &s->th[t];
	size_t k;

	for (k = 0; k < l->bases.n; k++)
		if (tm_stale__bit_get(r, l->bases.v[k]))
			return true;
	return false;
}

/* Node n's tree into *out: as the walk read it from git (every commit of
 * a first run's range), else read again. */
static int node_tree(struct tm_stale_pass *s, size_t n, git_oid *out)
{
	struct tm_stale_walk *w = s->w;
	git_oid buf;
	const git_oid *oid = tm_stale__node_oid(w, n, &buf);
	const size_t *read = tm_hashmap_get(&w->table, oid->id, GIT_OID_RAWSZ);

	if (!read)
		return tm_git_commit_tree_id(out, w->repo, oid);
	git_oid_cpy(out, &w->git[*read].tree);
	return 0;
}

/* A refinement's folder filter: does a thread of s->refining (data: the
 * pass) have a spec that may name something under `folder`? */
static bool refine_wants(const char *folder, size_t len, void *data)
{
	struct tm_stale_pass *s = data;
	size_t k;

	(void)len;
	s->hits.n = 0;
	tm_stale__specs_match(&s->x, folder, &s->hits);
	for (k = 0; k < s->hits.n; k++)
		if (tm_stale__bit_get(s->refining, s->hits.v[k]))
			return true;
	return false;
}

/*
 * Make merge c's bits of parent i exact for thread t and for the other
 * threads of maybe_i that its first parent's diff touches (the ones whose
 * simplification looks past that parent: see simplify_merge): one diff of
 * the two trees, opening only the folders under which one of their specs
 * may match, as `git log -- <paths>` compares a merge with each parent.
 * (The index holds that diff only as far as its build found it at hand,
 * often not at all: against a long-lived topic's tip it holds everything
 * the main line changed since the topic forked, and most merges never
 * need it; stale_cidx_build.c, describe.)  A commit that cannot be read
 * leaves the bits as they were (changed: the conservative answer), with a
 * warning.
 */
static int refine(struct tm_stale_pass *s, size_t c, size_t i, size_t t)
{
	struct tm_stale_walk *w = s->w;
	uint64_t *touched = s->touched + i * s->words,
		 *maybe = s->maybe + i * s->words, *set = s->refining;
	git_oid a, b;
	size_t k, x;
	int error;

	for (k = 0; k < s->words; k++)
		set[k] = maybe[k] & s->active[k] & s->touched[k];
	tm_stale__bit_set(set, t);
	for (k = 0; k < s->words; k++)
		maybe[k] &= ~set[k];
	if (!s->td && (error = tm_treediffer_new(&s->td, w->repo)) < 0)
		return error;
	if (node_tree(s, tm_stale__parent(w, c, i), &a) < 0 ||
	    node_tree(s, c, &b) < 0) {
		tm_stale__warn(w->warnings, "%s; counted as changed",
			       tm_error_last());
		tm_error_clear();
		return 0;
	}
	tm_strv_clear(&s->other);
	/* (with `skipped`, a tree that cannot be read is no error) */
	error = tm_treediffer_diff_within(&s->other, &w->skipped, s->td, &a, &b,
					  refine_wants, s);
	if (error < 0)
		return error;
	for (k = 0; k < w->skipped.n; k++)
		tm_stale__warn(w->warnings, "commit %.7s: %s",
			       git_oid_tostr_s(&b), w->skipped.items[k]);
	tm_strv_clear(&w->skipped);
	for (k = 0; k < s->words; k++)
		touched[k] &= ~set[k];
	for (x = 0; x < s->other.n; x++) {
		s->hits.n = 0;
		tm_stale__specs_match(&s->x, s->other.items[x], &s->hits);
		for (k = 0; k < s->hits.n; k++)
			if (tm_stale__bit_get(set, s->hits.v[k]))
				tm_stale__bit_set(touched, s->hits.v[k]);
	}
	return 0;
}

/*
 * A merge, for each thread reaching it, as git's try_to_simplify_commit()
 * sees it: the first relevant parent with the same content under the
 * thread's paths is the only one followed and the merge is not shown;
 * otherwise the merge is shown when it differs from its relevant parents
 * (from its other ones when it has none) and every parent is followed.
 */
static int simplify_merge(struct tm_stale_pass *s, size_t c)
{
	size_t np = s->w->nodes[c].nparents, t, i, p, nrel;
	bool rel, same, changed_rel, changed_other, done;
	int error;

	for (t = 0; t < s->nth; t++) {
		if (!tm_stale__bit_get(s->active, t))
			continue;
		nrel = 0;
		changed_rel = changed_other = done = false;
		for (i = 0; i < np && !done; i++) {
			p = tm_stale__parent(s->w, c, i);
			rel = relevant(s, c, p, t);
			if (tm_stale__bit_get(s->maybe + i * s->words, t) &&
			    (error = refine(s, c, i, t)) < 0)
				return error;
			same = !tm_stale__bit_get(s->touched + i * s->words, t);
			nrel += rel;
			if (same && rel) {
				follow(s, p, t);
				done = true;
			} else if (!same) {
				changed_rel |= rel;
				changed_other |= !rel;
			}
		}
		if (done)
			continue;
		if (nrel ? changed_rel : changed_other)
			tm_stale__bit_set(s->shown, t);
		for (i = 0; i < np; i++)
			follow(s, tm_stale__parent(s->w, c, i), t);
	}
	return 0;
}

/* The threads whose version commit c adds under another file name (a
 * same-id split's rename) into s->covers: as if it changed their file. */
static void extra_covers(struct tm_stale_pass *s, size_t c)
{
	git_oid buf;
	const git_oid *oid = tm_stale__node_oid(s->w, c, &buf);
	size_t lo = 0, hi = s->nextra, mid;

	while (lo < hi) { /* the first entry of `oid` or after it */
		mid = lo + (hi - lo) / 2;
		if (git_oid_cmp(&s->extra[mid].at, oid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->nextra && git_oid_equal(&s->extra[lo].at, oid); lo++)
		tm_stale__bit_set(s->covers, s->extra[lo].t);
}

/* Add pair (path, t) to s->pairset; false when it was there. */
static bool pair_new(struct tm_stale_pass *s, size_t path, size_t t)
{
	uint64_t key = ((uint64_t)path << 32 | (uint64_t)(uint32_t)t) + 1, *old;
	size_t i, n;

	if ((s->pairset_n + 1) * 2 > s->pairset_mask + 1) {
		old = s->pairset;
		n = old ? s->pairset_mask + 1 : 0;
		s->pairset_mask = n ? 2 * n - 1 : 1023;
		s->pairset = tm_xcalloc(s->pairset_mask + 1, sizeof(uint64_t));
		for (i = 0; i < n; i++) {
			size_t j;

			if (!old[i])
				continue;
			j = (size_t)((old[i] * 0x9e3779b97f4a7c15ULL) >> 20) &
			    s->pairset_mask;
			while (s->pairset[j])
				j = (j + 1) & s->pairset_mask;
			s->pairset[j] = old[i];
		}
		free(old);
	}
	i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & s->pairset_mask;
	while (s->pairset[i]) {
		if (s->pairset[i] == key)
			return false;
		i = (i + 1) & s->pairset_mask;
	}
	s->pairset[i] = key;
	s->pairset_n++;
	return true;
}

/* Record the threads that commit c counts against. */
static void record(struct tm_stale_pass *s, size_t c)
{
	size_t k, t, f;

	/* a commit that also changes the thread's file covers it */
	memset(s->covers, 0, s->words * sizeof(uint64_t));
	if (s->memo_at) {
		for (k = 0; k < s->slot_n; k++) {
			const size_t *m = memo_of(s, s->slot_paths[k]);
			uint32_t nm = s->memo_nmatch[s->slot_paths[k]];

			for (f = 0; f < s->memo_nfile[s->slot_paths[k]]; f++)
				tm_stale__bit_set(s->covers, m[nm + f]);
		}
	}
	for (k = 0; !s->memo_at && k < s->changed.n; k++)
		for (f = tm_stale__specs_file(&s->x, s->changed.items[k]);
		     f != TM_STALE_NONE; f = s->x.file_next[f])
			tm_stale__bit_set(s->covers, f);
	if (s->nextra)
		extra_covers(s, c);
	for (t = 0; t < s->nth; t++) {
		if (!tm_stale__bit_get(s->shown, t) ||
		    tm_stale__bit_get(s->covers, t))
			continue;
		if (!s->th[t].stale) {
			s->th[t].stale = true;
			git_oid buf;

			git_oid_cpy(&s->th[t].newest,
				    tm_stale__node_oid(s->w, c, &buf));
		}
	}
	for (k = 0; k + 1 < s->pairs.n; k += 2) {
		struct tm_stale_live *l = &s->th[s->pairs.v[k + 1]];
		size_t path;

		t = s->pairs.v[k + 1];
		if (!tm_stale__bit_get(s->shown, t) ||
		    tm_stale__bit_get(s->covers, t))
			continue;
		path = s->memo_at ? s->slot_paths[s->pairs.v[k]]
				  : intern(&s->paths,
					   s->changed.items[s->pairs.v[k]]);
		if (pair_new(s, path, t))
			tm_stale__sizev_push(&l->changed, path);
	}
}

/* Ensure room for `np` per-parent thread sets (touched and maybe, and
 * refine()'s set). */
static uint64_t *touched_of(struct tm_stale_pass *s, size_t i, size_t np)
{
	if (np > s->touched_parents) {
		free(s->touched);
		s->touched =
			tm_xcalloc((2 * np + 1) * s->words, sizeof(uint64_t));
		s->maybe = s->touched + np * s->words;
		s->refining = s->maybe + np * s->words;
		s->touched_parents = np;
	}
	return s->touched + i * s->words;
}

static int visit(struct tm_stale_pass *s, size_t c)
{
	struct tm_stale_walk *w = s->w;
	const uint64_t *reach = w->nodes[c].reach, *r = tm_stale__row(w, c);
	size_t np = w->nodes[c].nparents, t, i, k;
	const git_oid *old;
	bool any = false;
	int error;

	if (!reach || !(w->nodes[c].flags & TM_STALE_F_EXPANDED))
		return 0;
	memset(s->active, 0, s->words * sizeof(uint64_t));
	for (k = 0; k < s->words; k++) {
		uint64_t m = reach[k];

		while (m) {
			t = k * 64 + (size_t)__builtin_ctzll(m);
			m &= m - 1;
			if (!covered(s, r, t)) {
				tm_stale__bit_set(s->active, t);
				any = true;
			}
		}
	}
	if (!any)
		return 0;
	if (s->memo_at) {
		const struct tm_stale_cidx *ix = w->ix;
		uint32_t cix = w->nodes[c].cix, nd;
		const uint32_t *diff, *parents;

		if (cix == UINT32_MAX ||
		    tm_stale__cidx_parents(ix, cix, &parents) != np)
			return 1; /* cannot happen: HEAD's history is indexed */
		for (i = 0; i < (np ? np : 1); i++) {
			nd = tm_stale__cidx_diff(ix, cix, (uint32_t)i, &diff);
			if (i == 0) {
				s->pairs.n = 0;
				s->slot_paths = diff;
				s->slot_n = nd;
			}
			match_ids(s, diff, nd, touched_of(s, i, np ? np : 1),
				  i ? s->maybe + i * s->words : NULL, i == 0);
		}
	}
	for (i = 0; !s->memo_at && i < (np ? np : 1); i++) {
		uint64_t *touched = touched_of(s, i, np ? np : 1);

		if (i) { /* as the index has it: refined when needed */
			memcpy(touched, s->active, s->words * sizeof(uint64_t));
			memcpy(s->maybe + i * s->words, s->active,
			       s->words * sizeof(uint64_t));
			continue;
		}
		tm_strv_clear(&s->changed);
		old = np ? &w->git[tm_stale__parent(w, c, i)].tree : NULL;
		error = tm_treediff(&s->changed, &w->skipped, w->repo, old,
				    &w->git[c].tree);
		if (error < 0)
			return error;
		for (k = 0; k < w->skipped.n; k++)
			tm_stale__warn(w->warnings, "commit %.7s: %s",
				       git_oid_tostr_s(&w->git[c].oid),
				       w->skipped.items[k]);
		tm_strv_clear(&w->skipped);
		s->pairs.n = 0;
		match_paths(s, &s->changed, touched, true);
	}
	memset(s->shown, 0, s->words * sizeof(uint64_t));
	if (np >= 2) {
		if ((error = simplify_merge(s, c)) < 0)
			return error;
	} else {
		for (k = 0; k < s->words; k++)
			s->shown[k] = s->active[k] & s->touched[k];
		if (np == 1 && tm_stale__interesting(
				       &w->nodes[tm_stale__parent(w, c, 0)])) {
			uint64_t *pr = reach_of(s, tm_stale__parent(w, c, 0));

			for (k = 0; k < s->words; k++)
				pr[k] |= s->active[k];
		}
	}
	record(s, c);
	return 0;
}

int tm_stale__pass_run(struct tm_stale_pass *s, size_t head)
{
	struct tm_stale_walk *w = s->w;
	tm_date_queue ready = TM_DATE_QUEUE_INIT;
	size_t i, k, p, c, steps = 0;
	uint64_t *hr;
	int error = 0;

	for (i = 0; i < w->n; i++) {
		if (!tm_stale__interesting(&w->nodes[i]) ||
		    !(w->nodes[i].flags & TM_STALE_F_EXPANDED))
			continue;
		for (k = 0; k < w->nodes[i].nparents; k++)
			w->nodes[tm_stale__parent(w, i, k)].pending++;
	}
	if (!tm_stale__interesting(&w->nodes[head]))
		return 0;
	hr = reach_of(s, head);
	for (i = 0; i < s->nth; i++)
		tm_stale__bit_set(hr, i);
	tm_stale__queue(&ready, w, head);
	while (ready.n && !error) {
		/* a visit costs O(threads): a clock read every 16 of them */
		if (++steps % 16 == 0 && tm_deadline_passed()) {
			error = tm_deadline_check(NULL);
			break;
		}
		c = tm_date_queue_pop(&ready);
		error = visit(s, c);
		free(w->nodes[c].reach);
		w->nodes[c].reach = NULL;
		if (!(w->nodes[c].flags & TM_STALE_F_EXPANDED))
			continue; /* cannot happen: its parents are unknown */
		for (k = 0; k < w->nodes[c].nparents; k++) {
			p = tm_stale__parent(w, c, k);
			if (tm_stale__interesting(&w->nodes[p]) &&
			    --w->nodes[p].pending == 0)
				tm_stale__queue(&ready, w, p);
		}
	}
	tm_date_queue_release(&ready);
	return error;
}

void tm_stale__pass_free(struct tm_stale_pass *s)
{
	size_t i;

	for (i = 0; i < s->nth; i++)
		TM_FREE_ALL(s->th[i].changed.v, s->th[i].bases.v,
			    s->th[i].base_nodes.v);
	free(s->th);
	tm_stale__blobs_release(&s->blobs);
	tm_stale__specs_free(&s->x);
	TM_FREE_ALL(s->active, s->covers, s->shown, s->touched);
	tm_treediffer_free(s->td);
	tm_strv_clear(&s->changed);
	tm_strv_clear(&s->other);
	interner_free(&s->paths);
	TM_FREE_ALL(s->hits.v, s->pairs.v, s->stamp, s->stack.v, s->seen,
		    s->memo_at, s->memo_nmatch, s->memo_nfile, s->memo.v,
		    s->extra, s->pairset);
}
