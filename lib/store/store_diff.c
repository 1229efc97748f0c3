/*
 * What changed between the thread files of two sides, project by project
 * (tm_store_diff_sides, git_threads.h): which files git finds different,
 * those read with their parents, then the pure comparison of
 * thread_diff.c.
 */
#include "git_threads_reader.h"
#include "error.h"
#include "frontmatter.h"
#include "git_libgit2.h"
#include "hashmap.h"
#include "conflict.h"
#include "treediff.h"

#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX

/* ---- which files differ ---- */

static int diff_cb_file(const git_diff_delta *d, float progress, void *payload)
{
	void **p = payload;
	tm_strv *out = p[0];
	const char *prefix = p[1];
	size_t len = strlen(prefix);

	(void)progress;
	if (d->old_file.path && !strncmp(d->old_file.path, prefix, len))
		tm_strv_push(out, d->old_file.path + len);
	if (d->new_file.path && strcmp(d->new_file.path, d->old_file.path) &&
	    !strncmp(d->new_file.path, prefix, len))
		tm_strv_push(out, d->new_file.path + len);
	return 0;
}

/* The thread files ("<project>/<id>.md") that differ between two sides,
 * and those the index holds unmerged; sorted, unique. */
static int changed_files(tm_strv *out, struct tm_reader *b, struct tm_reader *a)
{
	git_diff_options o;
	git_diff *diff = NULL;
	char *spec = b->threads_path;
	void *payload[2] = {out, b->threads_path};
	int error = 0;

	if (b->kind == TM_SIDE_COMMIT && a->kind == TM_SIDE_COMMIT) {
		size_t i;

		error = tm_treediff(out, NULL, b->repo,
				    b->threads ? git_tree_id(b->threads) : NULL,
				    a->threads ? git_tree_id(a->threads)
					       : NULL);
		for (i = 0; !error && i < out->n; i++)
			if (tm_treediff_is_prefix(out->items[i],
						  strlen(out->items[i])))
				break;
		if (error || i == out->n) {
			tm_strv_sort_unique(out);
			return error;
		}
		/* past the differ's bounds (a store of more than 20,000
		 * changed threads): libgit2's diff lists every file */
		tm_strv_clear(out);
	}
	if (git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION) < 0)
		return tm_git_error(TM_ERROR, "cannot compare '%s'",
				    b->threads_path);
	o.pathspec.strings = &spec;
	o.pathspec.count = 1;
	o.flags |= GIT_DIFF_IGNORE_SUBMODULES;
	if (b->kind == TM_SIDE_COMMIT && a->kind == TM_SIDE_COMMIT)
		error = git_diff_tree_to_tree(&diff, b->repo, b->root, a->root,
					      &o);
	else if (b->kind == TM_SIDE_COMMIT && a->kind == TM_SIDE_INDEX)
		error = git_diff_tree_to_index(&diff, b->repo, b->root,
					       a->index, &o);
	else if (b->kind == TM_SIDE_COMMIT && a->kind == TM_SIDE_WORKTREE)
		error = git_diff_tree_to_workdir_with_index(&diff, b->repo,
							    b->root, &o);
	else if (b->kind == TM_SIDE_INDEX && a->kind == TM_SIDE_WORKTREE)
		error = git_diff_index_to_workdir(&diff, b->repo, b->index, &o);
	else
		return tm_error_set(TM_EINVALID,
				    "cannot compare these two sides");
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot compare '%s'",
				    b->threads_path);
	error = git_diff_foreach(diff, diff_cb_file, NULL, NULL, NULL, payload);
	git_diff_free(diff);
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot compare '%s'",
				    b->threads_path);
	tm_reader_conflicts(out, b);
	tm_reader_conflicts(out, a);
	tm_strv_sort_unique(out);
	return 0;
}

/* ---- one project ---- */

/* A side's threads as read for the comparison. */
struct set {
	const tm_thread **t;
	size_t n, alloc;
};

static void set_add(struct set *s, const tm_thread *t)
{
	tm_xgrow((void **)&s->t, &s->alloc, s->n + 1, sizeof(*s->t));
	s->t[s->n++] = t;
}

static void set_free(struct set *s)
{
	free(s->t);
	memset(s, 0, sizeof(*s));
}

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* What reading a thread on a side gave. */
enum got { GOT_THREAD, GOT_NONE, GOT_CONFLICT, GOT_UNREADABLE };

struct project_run {
	tm_store_diff_project *p;
	struct tm_reader *r[2];
	const char *name[2]; /* the project's folder on each side */
	struct set side[2];
	const tm_strv *changed; /* the ids whose files differ, sorted */
	tm_hashmap shared;      /* unchanged parents read (on both sides) */
};

static bool is_changed(const struct project_run *x, const char *id)
{
	return bsearch(&id, x->changed->items, x->changed->n,
		       sizeof(*x->changed->items), str_ptr_cmp) != NULL;
}

static tm_thread *keep(tm_store_diff_project *p, tm_thread *t)
{
	tm_xgrow((void **)&p->threads, &p->alloc, p->nthreads + 1,
		 sizeof(*p->threads));
	p->threads[p->nthreads++] = t;
	return t;
}

/* Thread `id` on side k: *out the thread (owned by the project) or NULL,
 * *msg why it could not be read (malloc'd). */
static enum got load(const tm_thread **out, char **msg, struct project_run *x,
		     int k, const char *id)
{
	struct tm_reader *r = x->r[k];
	struct tm_reader_file f;
	tm_thread *t = NULL;
	int error;

	*out = NULL;
	*msg = NULL;
	if (!x->name[k])
		return GOT_NONE;
	error = tm_reader_get(&f, r, x->name[k], id);
	if (error == TM_ENOTFOUND || error == TM_ECONFLICT)
		return error == TM_ENOTFOUND ? GOT_NONE : GOT_CONFLICT;
	if (error < 0) {
		*msg = tm_xstrdup(tm_error_last());
		tm_error_clear();
		return GOT_UNREADABLE;
	}
	error = tm_frontmatter_parse(&t, f.data, f.len, id,
				     tm_reader_display(r, x->name[k], id));
	if (error < 0) {
		enum got got = tm_conflict_markers_left(f.data, f.len)
				       ? GOT_CONFLICT
				       : GOT_UNREADABLE;

		if (got == GOT_UNREADABLE)
			*msg = tm_xstrdup(tm_error_last());
		tm_error_clear();
		tm_reader_file_release(&f);
		return got;
	}
	tm_reader_file_release(&f);
	*out = keep(x->p, t);
	return GOT_THREAD;
}

/* The parents of side k's threads, up to the root: from the files that
 * did not change, read once and given to both sides (when the project has
 * one name on both). */
static void add_parents(struct project_run *x, int k)
{
	size_t i;

	for (i = 0; i < x->side[k].n; i++) {
		const char *pid = x->side[k].t[i]->parent_id;
		const tm_thread *t;
		char *msg;

		/* A file that did not change is in one folder on both sides
		 * (every file of a folder one side lacks changed): the same
		 * bytes, read once from the old side (never the work tree). */
		if (!pid || !x->name[0] || is_changed(x, pid) ||
		    tm_hashmap_gets(&x->shared, pid))
			continue;
		tm_hashmap_puts(&x->shared, pid, 0);
		if (load(&t, &msg, x, 0, pid) != GOT_THREAD) {
			free(msg);
			continue;
		}
		set_add(&x->side[0], t);
		set_add(&x->side[1], t);
	}
}

static const char *problem_message(enum got got, const char *msg)
{
	if (got == GOT_CONFLICT)
		return "a merge left it conflicted: run 'git threadmind "
		       "resolve'";
	return msg;
}

static int id_cmp(const void *a, const void *b)
{
	return strcmp(((const tm_tdiff_entry *)a)->id,
		      ((const tm_tdiff_entry *)b)->id);
}

static bool named(const tm_store_diff_options *opts, const char *id)
{
	size_t i;

	for (i = 0; i < opts->nthreads; i++)
		if (!strcmp(opts->threads[i], id))
			return true;
	return false;
}

static int diff_project(struct project_run *x, const tm_strv *ids,
			const tm_store_diff_options *opts)
{
	tm_tdiff problems = TM_TDIFF_INIT;
	tm_tdiff_options to = TM_TDIFF_OPTIONS_INIT;
	size_t i;
	int error;

	for (i = 0; i < ids->n; i++) {
		const tm_thread *t[2];
		char *msg[2];
		enum got got[2];
		int k;

		if (opts->read_named_only && !named(opts, ids->items[i]))
			continue;
		for (k = 0; k < 2; k++)
			got[k] = load(&t[k], &msg[k], x, k, ids->items[i]);
		if (got[0] == GOT_CONFLICT || got[1] == GOT_CONFLICT ||
		    got[0] == GOT_UNREADABLE || got[1] == GOT_UNREADABLE) {
			k = got[1] == GOT_CONFLICT || got[1] == GOT_UNREADABLE;
			tm_tdiff_add_problem(&problems,
					     got[k] == GOT_CONFLICT
						     ? TM_TDIFF_CONFLICTED
						     : TM_TDIFF_UNREADABLE,
					     ids->items[i], t[0], t[1],
					     problem_message(got[k], msg[k]));
		} else {
			for (k = 0; k < 2; k++)
				if (t[k])
					set_add(&x->side[k], t[k]);
		}
		free(msg[0]);
		free(msg[1]);
	}
	add_parents(x, 0);
	add_parents(x, 1);
	to.all_fields = opts->all_fields;
	error = tm_tdiff_threads(&x->p->diff, x->side[0].t, x->side[0].n,
				 x->side[1].t, x->side[1].n, &to);
	if (error == 0 && problems.n) {
		qsort(problems.items, problems.n, sizeof(*problems.items),
		      id_cmp);
		tm_xgrow((void **)&x->p->diff.items, &x->p->diff.alloc,
			 x->p->diff.n + problems.n, sizeof(*problems.items));
		memcpy(x->p->diff.items + x->p->diff.n, problems.items,
		       problems.n * sizeof(*problems.items));
		x->p->diff.n += problems.n;
		free(problems.items);
		memset(&problems, 0, sizeof(problems));
	}
	tm_tdiff_clear(&problems);
	if (error == 0 && opts->nthreads)
		tm_tdiff_limit(&x->p->diff, opts->threads, opts->nthreads);
	return error;
}

/* ---- the projects ---- */

/* A project folder named in the changed files, and what each side has. */
struct proj {
	char *name;
	bool on[2];
	tm_strv ids; /* changed thread ids */
	size_t pair; /* renamed: the other side's folder (index) */
};

static struct proj *find_proj(struct proj **ps, size_t *n, size_t *alloc,
			      const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*ps)[i].name, name))
			return &(*ps)[i];
	tm_xgrow((void **)ps, alloc, *n + 1, sizeof(**ps));
	memset(&(*ps)[*n], 0, sizeof(**ps));
	(*ps)[*n].name = tm_xstrdup(name);
	(*ps)[*n].pair = NONE;
	return &(*ps)[(*n)++];
}

/* The identity of a project: its root thread's (NULL when unknown). */
static tm_thread *root_thread(struct tm_reader *r, const char *project)
{
	struct tm_reader_file f;
	tm_thread *t = NULL;
	size_t len;

	if (tm_reader_get(&f, r, project, "main") == 0) {
		if ((len = tm_frontmatter_block_len(f.data, f.len)) &&
		    tm_frontmatter_parse(&t, f.data, len, "main", "main") < 0)
			t = NULL;
		tm_reader_file_release(&f);
	}
	tm_error_clear();
	return t;
}

/* Pair a folder only the old side has with one only the new side has
 * when their root threads are the same thread. */
static void pair_renamed(struct proj *ps, size_t n, struct tm_reader *r[2])
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		tm_thread *old;

		if (!ps[i].on[0] || ps[i].on[1] || ps[i].pair != NONE ||
		    !(old = root_thread(r[0], ps[i].name)))
			continue;
		for (j = 0; j < n; j++) {
			tm_thread *now;
			bool same;

			if (ps[j].on[0] || !ps[j].on[1] || ps[j].pair != NONE ||
			    !(now = root_thread(r[1], ps[j].name)))
				continue;
			same = old->created_at && old->author &&
			       tm_thread_same_identity(
				       old->created_at, old->author,
				       now->created_at, now->author);
			tm_thread_free(now);
			if (same) {
				ps[i].pair = j;
				ps[j].pair = i;
				break;
			}
		}
		tm_thread_free(old);
	}
}

static int project_cmp(const void *a, const void *b)
{
	return strcmp(((const tm_store_diff_project *)a)->project,
		      ((const tm_store_diff_project *)b)->project);
}

static bool wanted(const tm_store_diff_options *opts, const char *a,
		   const char *b)
{
	return !opts->project || (a && !strcmp(a, opts->project)) ||
	       (b && !strcmp(b, opts->project));
}

int tm_store_diff_sides(tm_store_diff *out, tm_git *g, const char *prefix,
			const tm_side *before, const tm_side *after,
			const tm_store_diff_options *opts)
{
	tm_store_diff_options defaults = TM_STORE_DIFF_OPTIONS_INIT;
	struct tm_reader rb, ra, *r[2] = {&rb, &ra};
	tm_strv files = TM_STRV_INIT;
	struct proj *ps = NULL;
	size_t nps = 0, aps = 0, i, k;
	int error;

	if (!opts)
		opts = &defaults;
	if (before->kind == TM_SIDE_WORKTREE ||
	    (before->kind == TM_SIDE_INDEX && after->kind != TM_SIDE_WORKTREE))
		return tm_error_set(TM_EINVALID,
				    "cannot compare these two sides");
	if ((error = tm_reader_open(&rb, g, prefix, before)) < 0) {
		tm_reader_close(&rb);
		return error;
	}
	if ((error = tm_reader_open(&ra, g, prefix, after)) < 0 ||
	    (error = changed_files(&files, &rb, &ra)) < 0)
		goto done;
	for (i = 0; i < files.n; i++) {
		char *project, *id;
		struct proj *p;

		if (!tm_thread_file_split(files.items[i], &project, &id))
			continue;
		p = find_proj(&ps, &nps, &aps, project);
		tm_strv_push_owned(&p->ids, id);
		free(project);
	}
	for (i = 0; i < nps; i++) {
		tm_strv_sort_unique(&ps[i].ids);
		for (k = 0; k < 2; k++)
			ps[i].on[k] = tm_reader_has_project(r[k], ps[i].name);
	}
	pair_renamed(ps, nps, r);
	for (i = 0; i < nps && error == 0; i++) {
		struct project_run x;
		tm_store_diff_project *p;
		tm_strv ids = TM_STRV_INIT;

		memset(&x, 0, sizeof(x));
		if (ps[i].pair != NONE && !ps[i].on[0])
			continue; /* done with its old folder */
		x.name[0] = ps[i].on[0] ? ps[i].name : NULL;
		x.name[1] = ps[i].pair != NONE ? ps[ps[i].pair].name
			    : ps[i].on[1]      ? ps[i].name
					       : NULL;
		if (!wanted(opts, x.name[1], x.name[0]))
			continue;
		tm_strv_copy(&ids, &ps[i].ids);
		if (ps[i].pair != NONE) {
			size_t j;

			for (j = 0; j < ps[ps[i].pair].ids.n; j++)
				tm_strv_push(&ids, ps[ps[i].pair].ids.items[j]);
			tm_strv_sort_unique(&ids);
		}
		tm_xgrow((void **)&out->items, &out->alloc, out->n + 1,
			 sizeof(*out->items));
		p = &out->items[out->n++];
		memset(p, 0, sizeof(*p));
		p->project = tm_xstrdup(x.name[1] ? x.name[1] : x.name[0]);
		p->old_project = tm_xstrdup_or_null(x.name[0]);
		x.p = p;
		x.r[0] = &rb;
		x.r[1] = &ra;
		x.changed = &ids;
		error = diff_project(&x, &ids, opts);
		tm_hashmap_release(&x.shared);
		set_free(&x.side[0]);
		set_free(&x.side[1]);
		tm_strv_clear(&ids);
		if (error == 0 && !p->diff.n && ps[i].pair == NONE) {
			tm_store_diff_project_clear(p);
			out->n--;
		}
	}
	if (out->n)
		qsort(out->items, out->n, sizeof(*out->items), project_cmp);
done:
	for (i = 0; i < nps; i++) {
		free(ps[i].name);
		tm_strv_clear(&ps[i].ids);
	}
	free(ps);
	tm_strv_clear(&files);
	tm_reader_close(&rb);
	tm_reader_close(&ra);
	return error;
}

bool tm_store_diff_empty(const tm_store_diff *d)
{
	return d->n == 0;
}

void tm_store_diff_project_clear(tm_store_diff_project *p)
{
	size_t i;

	tm_tdiff_clear(&p->diff);
	for (i = 0; i < p->nthreads; i++)
		tm_thread_free(p->threads[i]);
	TM_FREE_ALL(p->threads, p->project, p->old_project);
	memset(p, 0, sizeof(*p));
}

void tm_store_diff_clear(tm_store_diff *d)
{
	TM_FREE_ITEMS(d->items, d->n, tm_store_diff_project_clear);
	memset(d, 0, sizeof(*d));
}
