/*
 * The history of a thread (see thread_log.h): a walk of the commits by
 * date, as `git log -- <file>` simplifies it, each commit knowing where the
 * thread's file is in it, so that a rename by identity is followed.
 *
 * Why its own walk and not git_revwalk: the simplification decides which
 * parents are walked at all (a branch that did not touch the file is not
 * read), and each commit carries its own path.  Where the file is in a
 * commit's tree: thread_log_trees.c.
 */
#include "thread_log.h"
#include "thread_log_internal.h"
#include "date_queue.h"
#include "error.h"
#include "git_libgit2.h"
#include "git_threads_reader.h"
#include "hashmap.h"
#include "slug.h"

#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX

struct node {
	git_oid oid;
	git_oid tree;
	int64_t time;
	size_t *parents; /* node indexes */
	size_t nparents;
	bool parsed, queued, hidden, done;
	char *project, *id; /* where the thread is (interesting nodes) */
};

struct walker {
	git_repository *repo;
	git_odb *odb;
	const char *prefix;
	bool all; /* every thread of the project */
	struct node *nodes;
	size_t n, alloc;
	tm_hashmap by_oid;
	tm_date_queue queue;        /* newest first, ties first in */
	size_t seq;                 /* pushes so far: the queue's ties */
	size_t interesting;         /* queued nodes not hidden */
	struct tm_log__trees trees; /* where the thread's file is */
};

/* ---- nodes and the queue ---- */

static size_t node_get(struct walker *w, const git_oid *oid)
{
	size_t *at = tm_hashmap_put(&w->by_oid, oid->id, GIT_OID_RAWSZ, NONE);

	if (*at != NONE)
		return *at;
	*at = w->n;
	tm_xgrow((void **)&w->nodes, &w->alloc, w->n + 1, sizeof(*w->nodes));
	memset(&w->nodes[w->n], 0, sizeof(*w->nodes));
	git_oid_cpy(&w->nodes[w->n].oid, oid);
	return w->n++;
}

/* The number after the last space of the line [p, e) (the committer's
 * time before its zone: "... 1700000000 +0000"). */
static int64_t line_time(const char *p, const char *e)
{
	const char *q = e;
	int64_t t = 0;

	while (q > p && q[-1] != '>')
		q--;
	while (q < e && *q == ' ')
		q++;
	for (; q < e && *q >= '0' && *q <= '9'; q++)
		t = t * 10 + (*q - '0');
	return t;
}

/*
 * A commit's tree, parents and committer date, from its raw object.  The
 * walk reads every commit of the history it follows: git_commit_lookup's
 * full parse (both signatures, the message, an object per commit) was a
 * quarter of `log <thread>`'s instructions on the 12,000-commit bench
 * history (callgrind: 552 M in all, 135 M of them parsing and wrapping).
 */
static int node_parse(struct walker *w, size_t i)
{
	git_odb_object *obj = NULL;
	const char *p, *end;
	size_t np = 0, alloc = 0, *parents = NULL;
	git_oid oid;
	bool tree = false;

	if (w->nodes[i].parsed)
		return 0;
	git_oid_cpy(&oid, &w->nodes[i].oid);
	if (git_odb_read(&obj, w->odb, &oid) < 0 ||
	    git_odb_object_type(obj) != GIT_OBJECT_COMMIT) {
		git_odb_object_free(obj);
		return tm_git_error(TM_ERROR, "cannot read commit %s",
				    git_oid_tostr_s(&oid));
	}
	p = git_odb_object_data(obj);
	end = p + git_odb_object_size(obj);
	while (p < end && *p != '\n') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		git_oid id;

		if (e - p >= 45 && !memcmp(p, "tree ", 5) &&
		    git_oid_fromstrn(&id, p + 5, 40) == 0) {
			git_oid_cpy(&w->nodes[i].tree, &id);
			tree = true;
		} else if (e - p >= 47 && !memcmp(p, "parent ", 7) &&
			   git_oid_fromstrn(&id, p + 7, 40) == 0) {
			size_t k = node_get(w, &id);

			tm_xgrow((void **)&parents, &alloc, np + 1,
				 sizeof(*parents));
			parents[np++] = k;
		} else if (e - p > 10 && !memcmp(p, "committer ", 10)) {
			w->nodes[i].time = line_time(p, e);
		}
		p = nl ? nl + 1 : end;
	}
	git_odb_object_free(obj);
	if (!tree) {
		free(parents);
		return tm_error_set(TM_ERROR,
				    "cannot read commit %s: it names no tree",
				    git_oid_tostr_s(&oid));
	}
	w->nodes[i].parents = parents;
	w->nodes[i].nparents = np;
	w->nodes[i].parsed = true;
	return 0;
}

/* Queue node i (parsed first: its date orders the queue). */
static int enqueue(struct walker *w, size_t i, bool hidden, const char *project,
		   const char *id)
{
	int error;

	if (hidden && !w->nodes[i].hidden) {
		w->nodes[i].hidden = true;
		if (w->nodes[i].queued)
			w->interesting--;
	}
	if (w->nodes[i].queued || w->nodes[i].done)
		return 0;
	if ((error = node_parse(w, i)) < 0)
		return error;
	if (!w->nodes[i].hidden) {
		w->nodes[i].project = tm_xstrdup(project);
		w->nodes[i].id = tm_xstrdup_or_null(id);
		w->interesting++;
	}
	w->nodes[i].queued = true;
	tm_date_queue_push(&w->queue, w->nodes[i].time, w->seq++, i);
	return 0;
}

/* ---- the entries ---- */

static void side_of(tm_side *s, struct walker *w, size_t node)
{
	s->kind = TM_SIDE_COMMIT;
	if (node == NONE)
		s->commit[0] = '\0';
	else
		git_oid_tostr(s->commit, sizeof(s->commit),
			      &w->nodes[node].oid);
}

static void entry_clear(tm_log_entry *e)
{
	tm_strv_clear(&e->parents);
	TM_FREE_ALL(e->author_name, e->author_email, e->subject, e->project,
		    e->id);
	tm_store_diff_clear(&e->diff);
	memset(e, 0, sizeof(*e));
}

/* The entry of commit node `c` against parent `k` (NONE: the empty tree),
 * where the parent has the thread as `old_id`; not added when empty. */
static int add_entry(tm_log *out, struct walker *w, tm_git *g, size_t c,
		     size_t k, bool combined, const char *old_id,
		     const tm_log_options *opts)
{
	tm_store_diff_options dopts = TM_STORE_DIFF_OPTIONS_INIT;
	const char *names[2];
	const struct node *n = &w->nodes[c];
	tm_side before, after;
	tm_log_entry e;
	git_commit *commit = NULL;
	const git_signature *sig;
	size_t i;
	int error;

	memset(&e, 0, sizeof(e));
	side_of(&before, w, k == NONE ? NONE : n->parents[k]);
	side_of(&after, w, c);
	dopts.project = n->project;
	dopts.all_fields = opts->all_fields;
	if (n->id) {
		names[0] = n->id;
		names[1] = old_id ? old_id : n->id;
		dopts.threads = names;
		dopts.nthreads = strcmp(names[0], names[1]) ? 2 : 1;
		dopts.read_named_only = true;
	}
	if ((error = tm_store_diff_sides(&e.diff, g, w->prefix, &before, &after,
					 &dopts)) < 0)
		goto done;
	for (i = 0; n->id && i < e.diff.n; i++)
		tm_tdiff_limit(&e.diff.items[i].diff, names, 1);
	for (i = 0; i < e.diff.n; i++)
		if (e.diff.items[i].diff.n ||
		    (e.diff.items[i].old_project &&
		     strcmp(e.diff.items[i].old_project,
			    e.diff.items[i].project)))
			break;
	if (i == e.diff.n)
		goto done; /* nothing to show */
	if (git_commit_lookup(&commit, w->repo, &n->oid) < 0) {
		error = tm_git_error(TM_ERROR, "cannot read commit %s",
				     git_oid_tostr_s(&n->oid));
		goto done;
	}
	git_oid_tostr(e.commit, sizeof(e.commit), &n->oid);
	for (i = 0; i < n->nparents; i++)
		tm_strv_push(&e.parents,
			     git_oid_tostr_s(&w->nodes[n->parents[i]].oid));
	sig = git_commit_author(commit);
	e.author_name = tm_xstrdup(sig && sig->name ? sig->name : "");
	e.author_email = tm_xstrdup(sig && sig->email ? sig->email : "");
	e.time = sig ? (int64_t)sig->when.time : 0;
	e.offset = sig ? sig->when.offset : 0;
	e.subject = tm_xstrdup(
		git_commit_summary(commit) ? git_commit_summary(commit) : "");
	e.combined = combined;
	e.against = k;
	e.project = tm_xstrdup(n->project);
	e.id = tm_xstrdup_or_null(n->id);
	tm_xgrow((void **)&out->items, &out->alloc, out->n + 1,
		 sizeof(*out->items));
	out->items[out->n++] = e;
	memset(&e, 0, sizeof(e));
done:
	git_commit_free(commit);
	entry_clear(&e);
	return error;
}

/* ---- the walk ---- */

/* One interesting commit: follow the parents the simplification keeps,
 * list it when it changed the thread. */
static int visit(tm_log *out, struct walker *w, tm_git *g, size_t c,
		 const tm_log_options *opts)
{
	char *path =
		tm_log__path_of(&w->trees, w->nodes[c].project, w->nodes[c].id);
	size_t np = w->nodes[c].nparents, k, same = NONE, against = 0;
	char **pp = tm_xcalloc(np + 1, sizeof(char *));
	char **pid = tm_xcalloc(np + 1, sizeof(char *));
	bool *has = tm_xcalloc(np + 1, sizeof(bool)), here = false;
	tm_thread *t = NULL;
	git_oid mine, theirs;
	int error;

	if ((error = tm_log__entry_at(&here, &mine, &w->trees,
				      &w->nodes[c].tree, path)) < 0)
		goto done;
	for (k = 0; k < np; k++) {
		size_t p = w->nodes[c].parents[k];
		bool there;

		if ((error = node_parse(w, p)) < 0 ||
		    (error = tm_log__entry_at(&there, &theirs, &w->trees,
					      &w->nodes[p].tree, path)) < 0)
			goto done;
		has[k] = there;
		if (same == NONE && there == here &&
		    (!here || git_oid_equal(&mine, &theirs)))
			same = k;
	}
	if (same != NONE) {
		error = enqueue(w, w->nodes[c].parents[same], false,
				w->nodes[c].project, w->nodes[c].id);
		goto done;
	}
	if (!here && !np)
		goto done;
	if (here && np && !w->all) {
		t = tm_log__read_thread(&w->trees, &mine, w->nodes[c].id);
	} else if (here && np) {
		/* a folder is known by its root thread */
		char *root =
			tm_log__path_of(&w->trees, w->nodes[c].project, "main");
		git_oid r;
		bool found = false;

		if (tm_log__entry_at(&found, &r, &w->trees, &w->nodes[c].tree,
				     root) == 0 &&
		    found)
			t = tm_log__read_thread(&w->trees, &r, "main");
		tm_error_clear();
		free(root);
	}
	for (k = 0; k < np; k++) {
		size_t p = w->nodes[c].parents[k];

		if (here && !has[k] && t) {
			if (w->all)
				has[k] = (pp[k] = tm_log__find_project(
						  &w->trees, &w->nodes[p].tree,
						  t)) != NULL;
			else
				has[k] = tm_log__find_thread(
					&pp[k], &pid[k], &w->trees,
					&w->nodes[c].tree, &w->nodes[p].tree,
					w->nodes[c].project, t);
		}
		if ((error = enqueue(w, p, false,
				     pp[k] ? pp[k] : w->nodes[c].project,
				     pp[k] ? pid[k] : w->nodes[c].id)) < 0)
			goto done;
	}
	/* against the first parent, unless only another one has the thread */
	if (np && here && !has[0])
		for (k = 1; k < np; k++)
			if (has[k]) {
				against = k;
				break;
			}
	error = add_entry(out, w, g, c, np ? against : NONE, np > 1,
			  pid[np ? against : 0], opts);
done:
	for (k = 0; k < np; k++) {
		free(pp[k]);
		free(pid[k]);
	}
	TM_FREE_ALL(pp, pid, has, path);
	tm_thread_free(t);
	return error;
}

/* The starting points: each revision's commits, queued or hidden. */
static int start(struct walker *w, tm_git *g, const tm_log_options *opts)
{
	size_t i;
	int error = 0;
	git_oid oid;

	if (!opts->nrevs) {
		char head[41];

		error = tm_git_head(head, g);
		if (error == TM_ENOTFOUND) {
			tm_error_clear();
			return 0;
		}
		if (error == 0 && git_oid_fromstr(&oid, head) == 0)
			error = enqueue(w, node_get(w, &oid), false,
					opts->project, opts->thread);
		return error;
	}
	for (i = 0; i < opts->nrevs && error == 0; i++) {
		const char *spec = opts->revs[i];
		git_revspec rs;
		git_object *from = NULL, *to = NULL;
		bool hide = spec[0] == '^';

		if (git_revparse(&rs, w->repo, spec + hide) < 0)
			return tm_error_set(TM_ENOTFOUND, "bad revision '%s'",
					    spec);
		if (git_object_peel(&from, rs.from, GIT_OBJECT_COMMIT) < 0 ||
		    (rs.to &&
		     git_object_peel(&to, rs.to, GIT_OBJECT_COMMIT) < 0)) {
			error = tm_error_set(TM_ENOTFOUND, "bad revision '%s'",
					     spec);
		} else if (!(rs.flags & GIT_REVSPEC_RANGE)) {
			error = enqueue(w, node_get(w, git_object_id(from)),
					hide, opts->project, opts->thread);
		} else if (rs.flags & GIT_REVSPEC_MERGE_BASE) {
			git_oidarray bases = {NULL, 0};
			size_t b;

			error = enqueue(w, node_get(w, git_object_id(from)),
					false, opts->project, opts->thread);
			if (!error)
				error = enqueue(
					w, node_get(w, git_object_id(to)),
					false, opts->project, opts->thread);
			if (!error && git_merge_bases(&bases, w->repo,
						      git_object_id(from),
						      git_object_id(to)) == 0)
				for (b = 0; b < bases.count && !error; b++)
					error = enqueue(
						w, node_get(w, &bases.ids[b]),
						true, NULL, NULL);
			git_error_clear();
			git_oidarray_free(&bases);
		} else {
			error = enqueue(w, node_get(w, git_object_id(to)),
					false, opts->project, opts->thread);
			if (!error)
				error = enqueue(
					w, node_get(w, git_object_id(from)),
					true, NULL, NULL);
		}
		git_object_free(from);
		git_object_free(to);
		git_object_free(rs.from);
		git_object_free(rs.to);
	}
	return error;
}

static void walker_free(struct walker *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		TM_FREE_ALL(w->nodes[i].parents, w->nodes[i].project,
			    w->nodes[i].id);
	free(w->nodes);
	tm_date_queue_release(&w->queue);
	tm_hashmap_release(&w->by_oid);
	tm_log__trees_clear(&w->trees);
	git_odb_free(w->odb);
}

int tm_log_read(tm_log *out, tm_git *g, const char *prefix,
		const tm_log_options *opts)
{
	struct walker w;
	size_t k;
	int error;

	if ((error = tm_id_validate(opts->project, "project")) < 0 ||
	    (opts->thread &&
	     (error = tm_id_validate(opts->thread, "thread")) < 0))
		return error;
	memset(&w, 0, sizeof(w));
	w.repo = tm_git_repository(g);
	if (!w.repo)
		return tm_git_error(TM_ERROR, "cannot open the repository");
	if (git_repository_odb(&w.odb, w.repo) < 0)
		return tm_git_error(TM_ERROR,
				    "cannot open the object database");
	w.prefix = prefix;
	w.trees.repo = w.repo;
	w.trees.odb = w.odb;
	w.trees.prefix = prefix;
	w.all = !opts->thread;
	error = start(&w, g, opts);
	while (error == 0 && w.queue.n && w.interesting &&
	       (!opts->max_count || out->n < opts->max_count)) {
		size_t c = tm_date_queue_pop(&w.queue);

		/* enqueue may move the nodes: w.nodes[c] each time */
		w.nodes[c].queued = false;
		if (w.nodes[c].hidden) {
			w.nodes[c].done = true;
			for (k = 0; k < w.nodes[c].nparents && error == 0; k++)
				error = enqueue(&w, w.nodes[c].parents[k], true,
						NULL, NULL);
			continue;
		}
		w.interesting--;
		if (w.nodes[c].done)
			continue;
		w.nodes[c].done = true;
		if (opts->has_since && w.nodes[c].time < opts->since)
			continue;
		error = visit(out, &w, g, c, opts);
	}
	walker_free(&w);
	return error;
}

void tm_log_clear(tm_log *l)
{
	TM_FREE_ITEMS(l->items, l->n, entry_clear);
	memset(l, 0, sizeof(*l));
}
