/*
 * Staleness (DESIGN.md section 4) for every thread in one revision walk:
 * the public API of stale.h.  The work is split over
 *   stale_review.c   phase 0, every thread's review points;
 *   stale_specs.c    every thread's pathspecs and file, by path;
 *   stale_walk.c     phase 1, the revision walk;
 *   stale_history.c  phase 2, each thread's simplified history;
 *   stale_cidx_*.c   the commit index; stale_cache.c  the last answer;
 *   stale_touches.c  one commit's threads (the post-commit hook);
 *   treediff.c       what a commit changes; pathspec.c  git's pathspecs.
 *
 * Let T be the threads that can be stale, K their distinct review points
 * (the bases) and N the commits walked.
 *
 * 0. The review points (stale_review.c): each thread's `commit` and the
 *    `commit` of every version of its file reachable from HEAD, found by
 *    one walk over HEAD's history that compares only each commit's folder
 *    of thread files with its first parent's.  A thread's commits are then
 *    those that no base of its own reaches.
 *
 * 1. One walk from HEAD and from every base at once, newest commit first,
 *    each commit carrying the set of bases it is reachable from; it stops
 *    as git's does, once every queued commit from HEAD is reachable, for
 *    every thread, from one of its bases.  O((N + E) K / 64) time and
 *    N K / 64 words.
 * 2. The commits from HEAD that some thread's bases do not reach, children
 *    first, each diffed once against its first parent (a merge against its
 *    other parents only as far as a thread's answer needs it:
 *    stale_history.c, refine), each changed path matched against every
 *    thread's pathspecs at once; a T-bit set per commit follows git's
 *    default history simplification, so that each thread gets the commits
 *    that `git log <commit>..HEAD -- <paths>` lists.  O(N T / 64) plus one
 *    diff per commit.
 *
 * A per-thread `git log` loop costs T walks and up to T N diffs; here each
 * commit is read and diffed once.
 */
#include "stale_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "git_libgit2.h"
#include "timestamp.h"
#include "treediff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the computation ---- */

/* The threads that can be stale into s->th; those whose `commit` is not a
 * commit id go to `unknown`. */
static void find_candidates(struct tm_stale_pass *s, tm_strv *unknown,
			    const tm_thread *const *threads, size_t n)
{
	size_t i;
	git_oid oid;

	s->th = tm_xcalloc(n + 1, sizeof(*s->th));
	for (i = 0; i < n; i++) {
		if (!tm_stale__candidate(threads[i]))
			continue;
		if (!tm_stale__is_hex40(threads[i]->commit) ||
		    git_oid_fromstr(&oid, threads[i]->commit) < 0) {
			tm_error_clear();
			tm_strv_push(unknown, threads[i]->id);
			continue;
		}
		s->th[s->nth].t = threads[i];
		git_oid_cpy(&s->th[s->nth].commit, &oid);
		s->th[s->nth].ident = tm_stale__thread_identity(threads[i]);
		s->nth++;
	}
}

static void build_report(tm_stale_report *out, struct tm_stale_pass *s)
{
	tm_stale_entry *e;
	size_t i, k;

	out->stale = tm_xcalloc(s->nth + 1, sizeof(*out->stale));
	for (i = 0; i < s->nth; i++) {
		if (!s->th[i].stale)
			continue;
		e = &out->stale[out->n++];
		e->id = tm_xstrdup(s->th[i].t->id);
		e->commit = tm_xstrdup(s->th[i].t->commit);
		tm_strv_copy(&e->paths, &s->th[i].t->paths);
		tm_stale__sizev_unique(&s->th[i].changed);
		for (k = 0; k < s->th[i].changed.n; k++)
			tm_strv_push(
				&e->changed,
				s->memo_at
					? tm_stale__cidx_name(
						  s->w->ix,
						  (uint32_t)s->th[i]
							  .changed.v[k])
					: s->paths.names.items[s->th[i].changed
								       .v[k]]);
		tm_strv_sort(&e->changed);
		git_oid_tostr(e->newest, sizeof(e->newest), &s->th[i].newest);
	}
}

int tm_stale_compute(tm_stale_report *out, tm_git *g, const char *threads_dir,
		     const tm_thread *const *threads, size_t n)
{
	return tm_stale_compute_opts(out, g, threads_dir, threads, n, NULL);
}

/* tm_stale_describe.known: a commit the walk read from git (a grafted one
 * lost its parents there: git's are read again). */
static bool walk_known(void *data, const git_oid *oid, git_oid *tree,
		       int64_t *time, const git_oid **parents, uint32_t *np)
{
	struct tm_stale_walk *w = data;
	const size_t *i = tm_hashmap_get(&w->table, oid->id, GIT_OID_RAWSZ);
	const struct tm_stale_node *n;

	if (!i)
		return false;
	n = &w->nodes[*i];
	if (n->cix != UINT32_MAX || (n->flags & TM_STALE_F_GRAFTED))
		return false;
	git_oid_cpy(tree, &w->git[*i].tree);
	*time = n->time;
	/* a history of root commits only may have no parent array */
	*parents = n->nparents ? w->parent_oid + n->parents : NULL;
	*np = n->nparents;
	return true;
}

/* What the index build asks of the threads' specs (tm_stale_describe):
 * the threads a merge's first-parent diff touches.  The same paths and
 * folders come back merge after merge: each is matched once (memo: path
 * -> 1 + its start in `lists`, where its count comes first, then its
 * threads). */
struct first_touched {
	struct tm_stale_pass *s;
	uint64_t *set;
	tm_hashmap memo;
	struct tm_stale_sizev lists;
};

/* The threads whose specs match `path` (or may name something under a
 * folder "dir/"): their count at [0], then them. */
static const size_t *touched_by(struct first_touched *f, const char *path)
{
	struct tm_stale_pass *s = f->s;
	size_t *at = tm_hashmap_puts(&f->memo, path, 0), k;

	if (!*at) {
		*at = f->lists.n + 1;
		s->hits.n = 0;
		tm_stale__specs_match(&s->x, path, &s->hits);
		tm_stale__sizev_push(&f->lists, s->hits.n);
		for (k = 0; k < s->hits.n; k++)
			tm_stale__sizev_push(&f->lists, s->hits.v[k]);
	}
	return f->lists.v + (*at - 1);
}

/* tm_stale_describe.other_parents: the threads `first` touches into
 * f->set; whether there are any. */
static bool first_touches(void *data, const tm_strv *first)
{
	struct first_touched *f = data;
	const size_t *t;
	size_t i, k;
	bool any = false;

	memset(f->set, 0, TM_STALE_WORDS(f->s->nth) * sizeof(uint64_t));
	for (i = 0; i < first->n; i++) {
		t = touched_by(f, first->items[i]);
		for (k = 1; k <= t[0]; k++)
			tm_stale__bit_set(f->set, t[k]);
		any |= t[0] > 0;
	}
	return any;
}

/* tm_stale_describe.within: may a spec of a thread of f->set name
 * something under `folder`? */
static bool first_touched_within(const char *folder, size_t len, void *data)
{
	struct first_touched *f = data;
	const size_t *t = touched_by(f, folder);
	size_t k;

	(void)len;
	for (k = 1; k <= t[0]; k++)
		if (tm_stale__bit_get(f->set, t[k]))
			return true;
	return false;
}

/*
 * Describe in the index the commits of phase 2 (from HEAD, not reachable
 * from any base of some thread, expanded) that it lacks: the walk read them
 * from git. Then they are the index's, and phase 2 reads every commit from it.
 * Returns 1 when that fails (compute without the index), TM_ETIMEOUT past
 * a hook's deadline.
 */
static int describe_range(struct tm_stale_walk *w, struct tm_stale_pass *s,
			  tm_strv *warnings)
{
	git_oid *oids = NULL;
	size_t i, n = 0, alloc = 0;
	int error = 0;

	for (i = 0; i < w->n; i++) {
		if (!tm_stale__interesting(&w->nodes[i]) ||
		    !(w->nodes[i].flags & TM_STALE_F_EXPANDED) ||
		    w->nodes[i].cix != UINT32_MAX)
			continue;
		tm_xgrow((void **)&oids, &alloc, n + 1, sizeof(*oids));
		git_oid_cpy(&oids[n++], &w->git[i].oid);
	}
	if (n) {
		struct first_touched ft = {
			.s = s,
			.set = tm_xcalloc(TM_STALE_WORDS(s->nth) + 1,
					  sizeof(uint64_t)),
		};
		struct tm_stale_describe how = {
			.shallow = w->shallow,
			.nshallow = w->nshallow,
			.progress = s->progress,
			.progress_data = s->progress_data,
			.warnings = warnings,
			.blobs = &s->blobs,
			.known = walk_known,
			.known_data = w,
			.other_parents = first_touches,
			.within = first_touched_within,
			.within_data = &ft,
		};

		error = tm_stale__cidx_describe(w->ix, w->repo, oids, n, &how);
		free(ft.set);
		tm_hashmap_release(&ft.memo);
		free(ft.lists.v);
	}
	free(oids);
	if (error == TM_ETIMEOUT)
		return error;
	if (error < 0) {
		tm_error_clear();
		return 1;
	}
	if (n)
		tm_stale__walk_described(w);
	return 0;
}

/* With `use_index`, through the commit index (stale_cidx_*.c);
 * returns 1 when it turns out unusable (then the caller does without), 2
 * when some bases it took as there turn out pruned (into *gone: again). */
static int compute_once(tm_stale_report *out, tm_git *g,
			const char *threads_dir,
			const tm_thread *const *threads, size_t n,
			const tm_stale_options *opts, bool use_index,
			struct tm_stale_last *last, struct tm_stale_gone *gone,
			tm_strv *warnings)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;
	struct tm_stale_walk w;
	struct tm_stale_pass s;
	struct tm_stale_cidx ix;
	struct tm_stale_worktree wt;
	const tm_thread **cand = NULL;
	size_t head = TM_STALE_NONE, i;
	int error = 0;

	memset(&s, 0, sizeof(s));
	memset(&ix, 0, sizeof(ix));
	tm_stale__walk_init(&w, tm_git_repository(g));
	tm_stale__worktree_init(&wt, w.repo, threads_dir, threads, n);
	s.blobs.wt = &wt;
	w.gone = gone;
	w.warnings = warnings;
	s.w = &w;
	if (opts) {
		s.progress = opts->progress;
		s.progress_data = opts->progress_data;
	}
	if (use_index && n) {
		tm_stale__cidx_open(&ix, w.repo);
		w.ix = &ix;
		/* no index yet: a first run, megabytes of small blocks */
		if (!ix.n)
			tm_heap_huge_pages();
	}
	if (!error) {
		find_candidates(&s, &r.unknown_base, threads, n);
		if (s.nth)
			error = tm_stale__review_points(&s, &r.unknown_base,
							threads_dir);
		tm_stale__walk_set_bases(&w, s.nbases);
		tm_stale__walk_set_threads(&w, s.th, s.nth);
	}
	if (!error && s.nth)
		error = tm_stale__walk_start(&w, &head);
	if (!error && head != TM_STALE_NONE)
		error = tm_stale__walk_run(&w);
	if (!error)
		error = tm_stale__walk_check(&w);
	if (!error && head != TM_STALE_NONE) {
		cand = tm_xcalloc(s.nth, sizeof(*cand));
		for (i = 0; i < s.nth; i++)
			cand[i] = s.th[i].t;
		tm_stale__specs_build(&s.x, cand, s.nth, threads_dir);
	}
	if (!error && head != TM_STALE_NONE && w.ix)
		error = describe_range(&w, &s, warnings);
	if (!error && head != TM_STALE_NONE) {
		s.words = TM_STALE_WORDS(s.nth);
		s.active = tm_xcalloc(s.words, sizeof(uint64_t));
		s.covers = tm_xcalloc(s.words, sizeof(uint64_t));
		s.shown = tm_xcalloc(s.words, sizeof(uint64_t));
		s.stamp = tm_xcalloc(s.nth, sizeof(size_t));
		if (w.ix) {
			s.memo_at = tm_xcalloc((size_t)ix.npaths + 1,
					       sizeof(size_t));
			s.memo_nmatch = tm_xcalloc((size_t)ix.npaths + 1,
						   sizeof(uint32_t));
			s.memo_nfile = tm_xcalloc((size_t)ix.npaths + 1,
						  sizeof(uint32_t));
		}
		if (!error)
			error = tm_stale__pass_run(&s, head);
	}
	if (!error && last) {
		/* what tm_stale__advance needs: every base, and whether HEAD
		   reaches them all (the walk gives every commit it reaches
		   that a base does not the HEAD flag, so a base HEAD reaches
		   has it; a base still queued when the walk stopped is older
		   than every commit it took: none of them, nor HEAD's next
		   commits, is reachable from it, all advance asks) */
		last->inside = true;
		last->bases = tm_xcalloc(s.nbases + 1, sizeof(git_oid));
		for (i = 0; i < w.n; i++) {
			if (w.nodes[i].base == TM_STALE_NONE)
				continue;
			git_oid buf;

			git_oid_cpy(&last->bases[last->nbases++],
				    tm_stale__node_oid(&w, i, &buf));
			if (!(w.nodes[i].flags &
			      (TM_STALE_F_HEAD | TM_STALE_F_QUEUED)))
				last->inside = false;
		}
	}
	if (!error) {
		build_report(&r, &s);
		r.shallow = w.nshallow > 0 ||
			    git_repository_is_shallow(w.repo) == 1;
		tm_strv_sort(&r.unknown_base);
		*out = r;
	} else {
		tm_stale_report_clear(&r);
	}
	free(cand);
	tm_stale__pass_free(&s);
	tm_stale__walk_free(&w);
	tm_stale__cidx_free(&ix);
	tm_stale__worktree_free(&wt);
	return error;
}

/* What libgit2 may keep of the history while the answer is computed: its
 * default is 8 GiB of pack files mapped and 256 MiB of parsed objects; the
 * walks read each commit once (phase 0 walks phase 1's nodes, the index
 * build takes the commits they read) and most trees once.  (Smaller pack
 * windows than libgit2's 1 GiB would bound the mapped pages of a large
 * pack, but remapping them cost 3x to 10x the time on git/git; 16 to 64
 * MiB windows again 3.5x to 5x on 2026-12-05, docs/PERFORMANCE.md.) */
#define PACK_MAPPED ((size_t)64 << 20)
#define OBJ_CACHE   ((ssize_t)8 << 20)

struct git_limits {
	size_t mapped;
	ssize_t cached, allowed;
};

static void limits_set(struct git_limits *l)
{
	memset(l, 0, sizeof(*l));
	if (git_libgit2_opts(GIT_OPT_GET_MWINDOW_MAPPED_LIMIT, &l->mapped) <
		    0 ||
	    l->mapped <= PACK_MAPPED)
		l->mapped = 0; /* as it is */
	else
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, PACK_MAPPED);
	if (git_libgit2_opts(GIT_OPT_GET_CACHED_MEMORY, &l->cached,
			     &l->allowed) < 0 ||
	    l->allowed <= OBJ_CACHE)
		l->allowed = 0;
	else
		git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, OBJ_CACHE);
	tm_error_clear();
}

static void limits_restore(const struct git_limits *l)
{
	if (l->mapped)
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, l->mapped);
	if (l->allowed)
		git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, l->allowed);
}

static int compute(tm_stale_report *out, tm_git *g, const char *threads_dir,
		   const tm_thread *const *threads, size_t n,
		   const tm_stale_options *opts, bool use_index,
		   struct tm_stale_last *last)
{
	struct tm_stale_gone gone = {NULL, 0, 0};
	tm_strv warnings = TM_STRV_INIT; /* of every round */
	struct git_limits limits;
	int error;

	limits_set(&limits);
	do /* each round finds one more base gone, at least */
		error = compute_once(out, g, threads_dir, threads, n, opts,
				     use_index, last, &gone, &warnings);
	while (error == 2);
	limits_restore(&limits);
	free(gone.v);
	if (error == 0) {
		tm_strv_clear(&out->warnings);
		out->warnings = warnings;
	} else {
		tm_strv_clear(&warnings);
	}
	return error;
}

/* ---- the everyday case: a few new commits on top of the last answer ---- */

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/* Does changed path `p` (a prefix too: treediff.h) say that a file of
 * folder `dir` (dlen bytes, with its trailing '/') may have changed? */
static bool may_touch_dir(const char *p, const char *dir, size_t dlen)
{
	size_t len = strlen(p);

	if (tm_treediff_is_prefix(p, len))
		return len == 1 || (len <= dlen && !strncmp(dir, p, len)) ||
		       !strncmp(p, dir, dlen);
	return !strncmp(p, dir, dlen);
}

/* The most commits advance() carries an answer over. */
#define ADVANCE_MAX 100000

/*
 * Describe in ix the commits from `head` down to `stop` (excluded) by
 * first parents, when they are a line of commits of one parent each: the
 * ones ix lacks.  Negative when they are not (or cannot be read).
 */
static int describe_line(struct tm_stale_cidx *ix, git_repository *repo,
			 const git_oid *head, const git_oid *stop,
			 const git_oid *shallow, size_t nshallow)
{
	git_oid *oids = NULL, at;
	git_commit *c = NULL;
	size_t n = 0, alloc = 0, steps = 0;
	uint32_t pos;
	int error = 0;

	git_oid_cpy(&at, head);
	while (!git_oid_equal(&at, stop)) {
		if (++steps > ADVANCE_MAX ||
		    tm_stale__shallow_has(shallow, nshallow, &at) ||
		    git_commit_lookup(&c, repo, &at) < 0 ||
		    git_commit_parentcount(c) != 1) {
			error = -1;
			break;
		}
		if (!tm_stale__cidx_find(ix, &at, &pos) ||
		    !tm_stale__cidx_described(ix, pos)) {
			tm_xgrow((void **)&oids, &alloc, n + 1, sizeof(*oids));
			git_oid_cpy(&oids[n++], &at);
		}
		git_oid_cpy(&at, git_commit_parent_id(c, 0));
		git_commit_free(c);
		c = NULL;
	}
	git_commit_free(c);
	if (!error && n) {
		struct tm_stale_describe how = {.shallow = shallow,
						.nshallow = nshallow};

		error = tm_stale__cidx_describe(ix, repo, oids, n, &how);
	}
	free(oids);
	tm_error_clear();
	return error < 0 ? -1 : 0;
}

/*
 * The answer at HEAD from `prev`, the answer for the same inputs at an
 * ancestor of HEAD, when HEAD is prev->head plus a line of commits of one
 * parent each that touch no thread file: then every review point is the
 * same (no new version of a thread file), none of those commits is one
 * (checked) or is reachable from one (every review point is reachable
 * from prev->head, prev->inside), so each of them counts against the
 * threads whose paths its diff changes, newest first, and the rest of the
 * answer stands.  Returns 1 (nothing done) when that does not hold.
 */
static int advance(tm_stale_report *out, tm_git *g, const char *threads_dir,
		   const tm_thread *const *threads, size_t n,
		   struct tm_stale_last *prev)
{
	git_repository *repo = tm_git_repository(g);
	tm_stale_report r = TM_STALE_REPORT_INIT;
	struct tm_stale_cidx ix;
	struct tm_stale_specs x;
	struct tm_stale_sizev line = {NULL, 0, 0}, hits = {NULL, 0, 0};
	const tm_thread **cand = NULL;
	tm_hashmap old = TM_HASHMAP_INIT, unknown = TM_HASHMAP_INIT;
	tm_strv *changed = NULL;
	git_oid *shallow = NULL, head, *newest = NULL;
	size_t nshallow = 0, i, k, j, ncand = 0, dirlen, at;
	uint32_t c, ndiff;
	const uint32_t *parents, *diff;
	const size_t *e;
	int result = 1;

	memset(&ix, 0, sizeof(ix));
	memset(&x, 0, sizeof(x));
	if (!prev->inside || git_reference_name_to_id(&head, repo, "HEAD") < 0)
		goto done;
	tm_stale__read_shallow(&shallow, &nshallow, repo);
	tm_stale__cidx_open(&ix, repo);
	if (describe_line(&ix, repo, &head, &prev->head, shallow, nshallow) <
		    0 ||
	    !tm_stale__cidx_find(&ix, &head, &c))
		goto done;
	if (prev->nbases)
		qsort(prev->bases, prev->nbases, sizeof(git_oid), oid_cmp);
	dirlen = threads_dir ? strlen(threads_dir) : 0;
	for (;;) {
		git_oid oid;

		memcpy(oid.id, tm_stale__cidx_oid(&ix, c), GIT_OID_RAWSZ);
		if (git_oid_equal(&oid, &prev->head))
			break;
		if (!tm_stale__cidx_described(&ix, c) ||
		    tm_stale__cidx_parents(&ix, c, &parents) != 1 ||
		    line.n >= ADVANCE_MAX ||
		    (prev->nbases && bsearch(&oid, prev->bases, prev->nbases,
					     sizeof(git_oid), oid_cmp)))
			goto done;
		ndiff = tm_stale__cidx_diff(&ix, c, 0, &diff);
		for (k = 0; dirlen && k < ndiff; k++)
			if (may_touch_dir(tm_stale__cidx_name(&ix, diff[k]),
					  threads_dir, dirlen))
				goto done; /* a thread file changed */
		tm_stale__sizev_push(&line, c);
		c = tm_stale__cidx_resolve(&ix, parents[0]);
	}
	/* the threads that can be stale, as find_bases keeps them */
	for (k = 0; k < prev->r.unknown_base.n; k++)
		tm_hashmap_puts(&unknown, prev->r.unknown_base.items[k], 0);
	for (k = 0; k < prev->r.n; k++)
		*tm_hashmap_puts(&old, prev->r.stale[k].id, k) = k;
	cand = tm_xcalloc(n + 1, sizeof(*cand));
	for (i = 0; i < n; i++)
		if (tm_stale__candidate(threads[i]) &&
		    !tm_hashmap_gets(&unknown, threads[i]->id))
			cand[ncand++] = threads[i];
	tm_stale__specs_build(&x, cand, ncand, threads_dir);
	changed = tm_xcalloc(ncand + 1, sizeof(*changed));
	newest = tm_xcalloc(ncand + 1, sizeof(*newest));
	for (j = 0; j < line.n; j++) {
		c = (uint32_t)line.v[j];
		ndiff = tm_stale__cidx_diff(&ix, c, 0, &diff);
		for (k = 0; k < ndiff; k++) {
			const char *path = tm_stale__cidx_name(&ix, diff[k]);

			hits.n = 0;
			tm_stale__specs_match(&x, path, &hits);
			for (i = 0; i < hits.n; i++) {
				at = hits.v[i];
				if (git_oid_is_zero(&newest[at]))
					memcpy(newest[at].id,
					       tm_stale__cidx_oid(&ix, c),
					       GIT_OID_RAWSZ);
				tm_strv_push(&changed[at], path);
			}
		}
	}
	r.stale = tm_xcalloc(ncand + 1, sizeof(*r.stale));
	for (i = 0; i < ncand; i++) {
		tm_stale_entry *d;

		e = tm_hashmap_gets(&old, cand[i]->id);
		if (!e && !changed[i].n)
			continue;
		d = &r.stale[r.n++];
		d->id = tm_xstrdup(cand[i]->id);
		d->commit = tm_xstrdup(cand[i]->commit);
		tm_strv_copy(&d->paths, &cand[i]->paths);
		if (e)
			tm_strv_copy(&d->changed, &prev->r.stale[*e].changed);
		for (k = 0; k < changed[i].n; k++)
			tm_strv_push(&d->changed, changed[i].items[k]);
		tm_strv_sort_unique(&d->changed);
		if (changed[i].n)
			git_oid_tostr(d->newest, sizeof(d->newest), &newest[i]);
		else
			memcpy(d->newest, prev->r.stale[*e].newest,
			       sizeof(d->newest));
	}
	tm_strv_copy(&r.unknown_base, &prev->r.unknown_base);
	tm_strv_copy(&r.warnings, &prev->r.warnings);
	r.shallow = prev->r.shallow;
	TM_MOVE(out, r);
	result = 0;
done:
	tm_error_clear();
	for (i = 0; changed && i < ncand; i++)
		tm_strv_clear(&changed[i]);
	TM_FREE_ALL(changed, newest, cand, line.v, hits.v, shallow);
	tm_stale__specs_free(&x);
	tm_hashmap_release(&old);
	tm_hashmap_release(&unknown);
	tm_stale__cidx_free(&ix);
	tm_stale_report_clear(&r);
	return result;
}

int tm_stale_compute_opts(tm_stale_report *out, tm_git *g,
			  const char *threads_dir,
			  const tm_thread *const *threads, size_t n,
			  tm_stale_options *opts)
{
	tm_buf key = TM_BUF_INIT;
	struct tm_stale_last prev, last;
	bool cache = !opts || !opts->no_cache;
	int error, found = 0;

	memset(&prev, 0, sizeof(prev));
	memset(&last, 0, sizeof(last));
	if (opts)
		opts->from_cache = false;
	if (cache) {
		tm_stale__cache_key(&key, g, threads_dir, threads, n);
		found = tm_stale__cache_load(out, &prev, g, &key, threads, n);
		if (found == 1) {
			if (opts)
				opts->from_cache = true;
			tm_buf_release(&key);
			return 0;
		}
	}
	if (found == 2 &&
	    advance(out, g, threads_dir, threads, n, &prev) == 0) {
		if (opts)
			opts->from_cache = true;
		tm_stale__cache_store(g, &key, out, prev.bases, prev.nbases,
				      prev.inside);
		tm_stale__last_clear(&prev);
		tm_buf_release(&key);
		return 0;
	}
	tm_stale__last_clear(&prev);
	error = compute(out, g, threads_dir, threads, n, opts, cache, &last);
	if (error == 1) {
		tm_stale__last_clear(&last);
		error = compute(out, g, threads_dir, threads, n, opts, false,
				&last);
	}
	if (!error && cache)
		tm_stale__cache_store(g, &key, out, last.bases, last.nbases,
				      last.inside);
	tm_stale__last_clear(&last);
	tm_buf_release(&key);
	return error;
}
