/*
 * The history of a thread (see thread_log.h): a walk of the commits by
 * date, as `git log -- <file>` simplifies it, each commit knowing where the
 * thread's file is in it, so that a rename by identity is followed.
 *
 * Why its own walk and not git_revwalk: the simplification decides which
 * parents are walked at all (a branch that did not touch the file is not
 * read), and each commit carries its own path.
 */
#include "thread_log.h"
#include "error.h"
#include "frontmatter.h"
#include "git_libgit2.h"
#include "git_threads_reader.h"
#include "hashmap.h"
#include "slug.h"
#include "treediff.h"

#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX

struct node {
	git_oid oid;
	git_oid tree;
	int64_t time;
	size_t *parents; /* node indexes */
	size_t nparents;
	size_t seq; /* when it was queued: ties of time go first in */
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
	size_t *heap;
	size_t nheap, aheap, seq;
	size_t interesting; /* queued nodes not hidden */
	/* what a path is in a tree: tree id + path -> memo index */
	tm_hashmap memo;
	git_oid *memo_oid;
	bool *memo_present;
	size_t nmemo, amemo;
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

static bool before(const struct walker *w, size_t a, size_t b)
{
	const struct node *x = &w->nodes[a], *y = &w->nodes[b];

	return x->time != y->time ? x->time > y->time : x->seq < y->seq;
}

static void heap_push(struct walker *w, size_t i)
{
	size_t at = w->nheap++;

	tm_xgrow((void **)&w->heap, &w->aheap, w->nheap, sizeof(*w->heap));
	w->nodes[i].seq = w->seq++;
	while (at && before(w, i, w->heap[(at - 1) / 2])) {
		w->heap[at] = w->heap[(at - 1) / 2];
		at = (at - 1) / 2;
	}
	w->heap[at] = i;
}

static size_t heap_pop(struct walker *w)
{
	size_t top = w->heap[0], last = w->heap[--w->nheap], at = 0;

	for (;;) {
		size_t c = 2 * at + 1;

		if (c >= w->nheap)
			break;
		if (c + 1 < w->nheap && before(w, w->heap[c + 1], w->heap[c]))
			c++;
		if (!before(w, w->heap[c], last))
			break;
		w->heap[at] = w->heap[c];
		at = c;
	}
	if (w->nheap)
		w->heap[at] = last;
	return top;
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
	heap_push(w, i);
	return 0;
}

/* ---- paths in trees ---- */

static char *path_of(const struct walker *w, const char *project,
		     const char *id)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_puts(&b, w->prefix);
	tm_buf_puts(&b, ".threadmind/threads/");
	tm_buf_puts(&b, project);
	if (id) {
		tm_buf_putc(&b, '/');
		tm_buf_puts(&b, id);
		tm_buf_puts(&b, ".md");
	}
	return tm_buf_detach(&b);
}

/* The entry `name` (`len` bytes) of a raw tree, whose entries are
 * "<octal mode> <name>\0<20-byte id>": its id and whether it is a
 * folder.  False when the tree has none (or is malformed). */
static bool raw_entry(git_oid *out, bool *folder, const char *p,
		      const char *end, const char *name, size_t len)
{
	while (p < end) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		const char *nul =
			sp ? memchr(sp, '\0', (size_t)(end - sp)) : NULL;

		if (!nul || end - nul < GIT_OID_RAWSZ + 1)
			return false;
		if ((size_t)(nul - sp - 1) == len &&
		    !memcmp(sp + 1, name, len)) {
			git_oid_fromraw(out, (const unsigned char *)nul + 1);
			*folder = sp - p == 5 && p[0] == '4';
			return true;
		}
		p = nul + 1 + GIT_OID_RAWSZ;
	}
	return false;
}

/*
 * What `path` is in tree `root`: true with its id in *out, false when the
 * tree has no such entry.  Remembered per tree and path, so that commits
 * sharing a folder read it once.  Raw trees, not git_tree_lookup: that
 * parses every entry of every root tree (its entries, modes and an object
 * each), 80 M of the 483 M instructions of `log <thread>` on the
 * 12,000-commit bench history (callgrind).
 */
static int entry_at(bool *present, git_oid *out, struct walker *w,
		    const git_oid *root, const char *path)
{
	char small[256];
	tm_buf big = TM_BUF_INIT;
	const char *slash = strchr(path, '/'), *key = small;
	size_t *at, len = slash ? (size_t)(slash - path) : strlen(path), m;
	size_t plen = strlen(path), klen = GIT_OID_RAWSZ + plen;
	git_odb_object *obj = NULL;
	const char *data;
	git_oid found;
	bool folder = false, has;
	int error = 0;

	if (klen <= sizeof(small)) {
		memcpy(small, root->id, GIT_OID_RAWSZ);
		memcpy(small + GIT_OID_RAWSZ, path, plen);
	} else {
		tm_buf_put(&big, root->id, GIT_OID_RAWSZ);
		tm_buf_put(&big, path, plen);
		key = big.ptr;
	}
	at = tm_hashmap_get(&w->memo, key, klen);
	if (at) {
		*present = w->memo_present[*at];
		git_oid_cpy(out, &w->memo_oid[*at]);
		tm_buf_release(&big);
		return 0;
	}
	*present = false;
	if (git_odb_read(&obj, w->odb, root) < 0 ||
	    git_odb_object_type(obj) != GIT_OBJECT_TREE) {
		git_odb_object_free(obj);
		tm_buf_release(&big);
		return tm_git_error(TM_ERROR, "cannot read tree %s",
				    git_oid_tostr_s(root));
	}
	data = git_odb_object_data(obj);
	has = raw_entry(&found, &folder, data, data + git_odb_object_size(obj),
			path, len);
	git_odb_object_free(obj);
	if (has && !slash) {
		*present = true;
		git_oid_cpy(out, &found);
	} else if (has && folder) {
		error = entry_at(present, out, w, &found, slash + 1);
	}
	if (error == 0) {
		m = w->nmemo++;
		tm_xgrow((void **)&w->memo_oid, &w->amemo, w->nmemo,
			 sizeof(*w->memo_oid));
		w->memo_present =
			tm_xrealloc(w->memo_present, w->amemo * sizeof(bool));
		w->memo_present[m] = *present;
		if (*present)
			git_oid_cpy(&w->memo_oid[m], out);
		else
			memset(&w->memo_oid[m], 0, sizeof(git_oid));
		*tm_hashmap_put(&w->memo, key, klen, m) = m;
	}
	tm_buf_release(&big);
	return error;
}

/* The thread in blob `oid` (its frontmatter), or NULL. */
static tm_thread *read_thread(struct walker *w, const git_oid *oid,
			      const char *id)
{
	git_blob *blob = NULL;
	tm_thread *t = NULL;
	size_t len;

	if (git_blob_lookup(&blob, w->repo, oid) < 0) {
		tm_error_clear();
		return NULL;
	}
	len = tm_frontmatter_block_len(git_blob_rawcontent(blob),
				       (size_t)git_blob_rawsize(blob));
	if (!len || tm_frontmatter_parse(&t, git_blob_rawcontent(blob), len, id,
					 id) < 0)
		t = NULL;
	tm_error_clear();
	git_blob_free(blob);
	return t;
}

static bool same_thread(const tm_thread *a, const tm_thread *b)
{
	return a && b && a->created_at && a->author &&
	       tm_thread_same_identity(a->created_at, a->author, b->created_at,
				       b->author);
}

/* The tree of the threads folder of commit node `c` (NULL: none). */
static git_tree *threads_tree(struct walker *w, size_t c)
{
	char *path = path_of(w, "", NULL);
	git_tree *t = NULL;
	git_oid oid;
	bool present = false;

	path[strlen(path) - 1] = '\0'; /* the trailing '/' */
	if (entry_at(&present, &oid, w, &w->nodes[c].tree, path) < 0 ||
	    !present || git_tree_lookup(&t, w->repo, &oid) < 0) {
		tm_error_clear();
		t = NULL;
	}
	free(path);
	return t;
}

/* Does thread file `id` of `project` in node `p` hold `want`'s thread? */
static bool holds(struct walker *w, size_t p, const char *project,
		  const char *id, const tm_thread *want)
{
	char *path = path_of(w, project, id);
	tm_thread *t = NULL;
	git_oid oid;
	bool present = false, same;

	if (entry_at(&present, &oid, w, &w->nodes[p].tree, path) < 0)
		tm_error_clear();
	free(path);
	if (!present)
		return false;
	t = read_thread(w, &oid, id);
	same = same_thread(t, want);
	tm_thread_free(t);
	return same;
}

/*
 * Where parent node `p` has the thread of commit node `c` (its project and
 * id there, `t` read from c): under the same id in another project (a
 * project renamed), else under an id of the project whose file differs
 * from c's (a split by resolve).  False when it has none.
 */
static bool find_thread(char **project, char **id, struct walker *w, size_t c,
			size_t p, const char *cur_project, const tm_thread *t)
{
	git_tree *pt = threads_tree(w, p), *ct;
	tm_strv changed = TM_STRV_INIT;
	const git_tree_entry *pe, *ce;
	bool found = false;
	size_t i, n;

	if (!pt)
		return false;
	n = git_tree_entrycount(pt);
	for (i = 0; i < n && !found; i++) {
		const char *name =
			git_tree_entry_name(git_tree_entry_byindex(pt, i));

		if (strcmp(name, cur_project) && holds(w, p, name, t->id, t)) {
			*project = tm_xstrdup(name);
			*id = tm_xstrdup(t->id);
			found = true;
		}
	}
	pe = git_tree_entry_byname(pt, cur_project);
	ct = threads_tree(w, c);
	ce = ct ? git_tree_entry_byname(ct, cur_project) : NULL;
	if (!found && pe &&
	    tm_treediff(&changed, NULL, w->repo, git_tree_entry_id(pe),
			ce ? git_tree_entry_id(ce) : NULL) == 0) {
		for (i = 0; i < changed.n && !found; i++) {
			const char *name = changed.items[i];
			size_t len = strlen(name);
			char *other;

			if (len < 4 || strcmp(name + len - 3, ".md") ||
			    strchr(name, '/'))
				continue;
			other = tm_xstrndup(name, len - 3);
			if (strcmp(other, t->id) &&
			    holds(w, p, cur_project, other, t)) {
				*project = tm_xstrdup(cur_project);
				*id = other;
				found = true;
			} else {
				free(other);
			}
		}
	}
	tm_error_clear();
	tm_strv_clear(&changed);
	git_tree_free(ct);
	git_tree_free(pt);
	return found;
}

/* With every thread: the project folder of parent `p` whose root thread
 * is `root` (the project renamed), or NULL. */
static char *find_project(struct walker *w, size_t p, const tm_thread *root)
{
	git_tree *pt = threads_tree(w, p);
	char *found = NULL;
	size_t i, n;

	if (!pt)
		return NULL;
	n = git_tree_entrycount(pt);
	for (i = 0; i < n && !found; i++) {
		const char *name =
			git_tree_entry_name(git_tree_entry_byindex(pt, i));

		if (holds(w, p, name, "main", root))
			found = tm_xstrdup(name);
	}
	git_tree_free(pt);
	return found;
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
	free(e->author_name);
	free(e->author_email);
	free(e->subject);
	free(e->project);
	free(e->id);
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
	char *path = path_of(w, w->nodes[c].project, w->nodes[c].id);
	size_t np = w->nodes[c].nparents, k, same = NONE, against = 0;
	char **pp = tm_xcalloc(np + 1, sizeof(char *));
	char **pid = tm_xcalloc(np + 1, sizeof(char *));
	bool *has = tm_xcalloc(np + 1, sizeof(bool)), here = false;
	tm_thread *t = NULL;
	git_oid mine, theirs;
	int error;

	if ((error = entry_at(&here, &mine, w, &w->nodes[c].tree, path)) < 0)
		goto done;
	for (k = 0; k < np; k++) {
		size_t p = w->nodes[c].parents[k];
		bool there;

		if ((error = node_parse(w, p)) < 0 ||
		    (error = entry_at(&there, &theirs, w, &w->nodes[p].tree,
				      path)) < 0)
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
		t = read_thread(w, &mine, w->nodes[c].id);
	} else if (here && np) {
		/* a folder is known by its root thread */
		char *root = path_of(w, w->nodes[c].project, "main");
		git_oid r;
		bool found = false;

		if (entry_at(&found, &r, w, &w->nodes[c].tree, root) == 0 &&
		    found)
			t = read_thread(w, &r, "main");
		tm_error_clear();
		free(root);
	}
	for (k = 0; k < np; k++) {
		size_t p = w->nodes[c].parents[k];

		if (here && !has[k] && t) {
			if (w->all)
				has[k] =
					(pp[k] = find_project(w, p, t)) != NULL;
			else
				has[k] = find_thread(&pp[k], &pid[k], w, c, p,
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
	free(pp);
	free(pid);
	free(has);
	free(path);
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

	for (i = 0; i < w->n; i++) {
		free(w->nodes[i].parents);
		free(w->nodes[i].project);
		free(w->nodes[i].id);
	}
	free(w->nodes);
	free(w->heap);
	free(w->memo_oid);
	free(w->memo_present);
	tm_hashmap_release(&w->by_oid);
	tm_hashmap_release(&w->memo);
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
	w.all = !opts->thread;
	error = start(&w, g, opts);
	while (error == 0 && w.nheap && w.interesting &&
	       (!opts->max_count || out->n < opts->max_count)) {
		size_t c = heap_pop(&w);

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
	size_t i;

	for (i = 0; i < l->n; i++)
		entry_clear(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}
