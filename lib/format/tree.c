/*
 * Building the thread tree from the parentId of each thread (see tree.h).
 * Everything is iterative so that a very deep chain needs no stack.
 */
#include "tree.h"

#include "error.h"
#include "timestamp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One entry of the id index (sorted by id, for tm_tree_find). */
struct idref {
	const char *id;
	size_t node;
};

/* One entry of the sibling order: createdAt parsed once, then id. */
struct rankref {
	const tm_thread *t;
	int64_t ms;
	bool valid;
	size_t node;
};

/*
 * The tree and what the queries need; `pub` comes first so that a tm_tree
 * pointer is also a pointer to this.
 */
struct tree_impl {
	tm_tree pub;
	struct idref *byid; /* n entries sorted by id */
	size_t *order;      /* the nodes in pre-order */
	size_t *pre;        /* pre[i]: position of node i in `order` */
	size_t *size;       /* size[i]: nodes in the subtree of i, i included */
	size_t *pos;        /* pos[i]: index of i among its siblings */
};

static struct tree_impl *impl_of(const tm_tree *tree)
{
	return (struct tree_impl *)tree;
}

static int idref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct idref *)a)->id,
		      ((const struct idref *)b)->id);
}

/* createdAt as an instant (as tm_time_cmp orders it), then id. */
static int rankref_cmp(const void *a, const void *b)
{
	const struct rankref *x = a, *y = b;
	int c;

	if (x->valid && y->valid)
		c = x->ms < y->ms ? -1 : x->ms > y->ms;
	else
		c = tm_time_cmp(x->t->created_at, y->t->created_at);
	return c ? c : strcmp(x->t->id, y->t->id);
}

static long find_in(const struct idref *byid, size_t n, const char *id)
{
	size_t lo = 0, hi = n, mid;
	int c;

	if (!id)
		return -1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(id, byid[mid].id);
		if (!c)
			return (long)byid[mid].node;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/*
 * Break every cycle of the parent links: each node has at most one parent,
 * so a chain followed from any node either ends at a root or enters exactly
 * one cycle.  The member of lowest rank becomes a root.
 */
static void break_cycles(tm_tree_node *nodes, size_t n, const size_t *rank)
{
	unsigned char *state = tm_xcalloc(n, 1); /* 0 new, 1 on path, 2 done */
	size_t *path = tm_xmalloc(n * sizeof(*path));
	size_t i, j, plen, best;
	long cur;

	for (i = 0; i < n; i++) {
		if (state[i])
			continue;
		plen = 0;
		cur = (long)i;
		while (cur >= 0 && !state[cur]) {
			state[cur] = 1;
			path[plen++] = (size_t)cur;
			cur = nodes[cur].parent;
		}
		if (cur >= 0 && state[cur] == 1) {
			/* path[j..plen) is the cycle, path[j] == cur. */
			best = (size_t)cur;
			for (j = plen - 1; path[j] != (size_t)cur; j--)
				if (rank[path[j]] < rank[best])
					best = path[j];
			nodes[best].parent = -1;
			nodes[best].flags |= TM_TREE_CYCLE;
		}
		for (j = 0; j < plen; j++)
			state[path[j]] = 2;
	}
	free(path);
	free(state);
}

/*
 * Fill the children lists and the roots from the parent links, in rank
 * order: one block of n indexes holds the roots, then each node's children.
 */
static void link_children(struct tree_impl *impl, const struct rankref *ranked)
{
	tm_tree *t = &impl->pub;
	size_t *block = tm_xmalloc(t->n * sizeof(*block));
	size_t i, off, node;
	long p;

	t->nroots = 0;
	for (i = 0; i < t->n; i++) {
		p = t->nodes[i].parent;
		if (p < 0)
			t->nroots++;
		else
			t->nodes[p].nchildren++;
	}
	t->roots = block;
	off = t->nroots;
	for (i = 0; i < t->n; i++) {
		if (t->nodes[i].nchildren) {
			t->nodes[i].children = block + off;
			off += t->nodes[i].nchildren;
			t->nodes[i].nchildren = 0; /* refilled below */
		}
	}
	t->nroots = 0;
	for (i = 0; i < t->n; i++) {
		node = ranked[i].node;
		p = t->nodes[node].parent;
		if (p < 0) {
			impl->pos[node] = t->nroots;
			t->roots[t->nroots++] = node;
		} else {
			impl->pos[node] = t->nodes[p].nchildren;
			t->nodes[p].children[t->nodes[p].nchildren++] = node;
		}
	}
}

/*
 * Number the nodes in pre-order and set depth and subtree sizes, walking
 * down to the first child and across to the next sibling (no stack).
 */
static void number_nodes(struct tree_impl *impl)
{
	tm_tree *t = &impl->pub;
	tm_tree_node *nodes = t->nodes;
	size_t k = 0, r, cur;
	long p;

	for (r = 0; r < t->nroots; r++) {
		cur = t->roots[r];
		for (;;) {
			p = nodes[cur].parent;
			nodes[cur].depth = p < 0 ? 0 : nodes[p].depth + 1;
			impl->pre[cur] = k;
			impl->order[k++] = cur;
			if (nodes[cur].nchildren) {
				cur = nodes[cur].children[0];
				continue;
			}
			/* Leave cur, then each ancestor that has no sibling
			 * after it, up to the root. */
			for (;;) {
				impl->size[cur] = k - impl->pre[cur];
				p = nodes[cur].parent;
				if (p < 0)
					break;
				if (impl->pos[cur] + 1 < nodes[p].nchildren) {
					cur = nodes[p].children[impl->pos[cur] +
								1];
					break;
				}
				cur = (size_t)p;
			}
			if (p < 0)
				break;
		}
	}
}

int tm_tree_build(tm_tree **out, const tm_thread *const *threads, size_t n)
{
	struct tree_impl *impl;
	struct rankref *ranked = NULL;
	size_t *rank = NULL;
	size_t i;
	long p;
	int64_t ms;

	for (i = 0; i < n; i++)
		if (!threads[i] || !threads[i]->id)
			return tm_error_set(TM_EINVALID,
					    "cannot build the tree: entry %zu "
					    "has no thread or no id",
					    i);

	impl = tm_xcalloc(1, sizeof(*impl));
	impl->pub.n = n;
	impl->pub.nodes = tm_xcalloc(n, sizeof(tm_tree_node));
	impl->byid = tm_xmalloc(n * sizeof(*impl->byid));
	for (i = 0; i < n; i++) {
		impl->byid[i].id = threads[i]->id;
		impl->byid[i].node = i;
	}
	qsort(impl->byid, n, sizeof(*impl->byid), idref_cmp);
	for (i = 1; i < n; i++) {
		if (!strcmp(impl->byid[i - 1].id, impl->byid[i].id)) {
			tm_error_set(TM_EINVALID,
				     "thread '%s' appears twice: thread ids "
				     "must be unique",
				     impl->byid[i].id);
			tm_tree_free(&impl->pub);
			return TM_EINVALID;
		}
	}

	for (i = 0; i < n; i++) {
		impl->pub.nodes[i].thread = threads[i];
		if (!threads[i]->parent_id) {
			impl->pub.nodes[i].parent = -1;
			continue;
		}
		p = find_in(impl->byid, n, threads[i]->parent_id);
		impl->pub.nodes[i].parent = p;
		if (p < 0)
			impl->pub.nodes[i].flags |= TM_TREE_ORPHAN;
	}

	ranked = tm_xmalloc(n * sizeof(*ranked));
	for (i = 0; i < n; i++) {
		ranked[i].t = threads[i];
		ranked[i].node = i;
		ranked[i].valid = tm_time_valid(threads[i]->created_at);
		ms = 0;
		if (ranked[i].valid)
			tm_time_parse(&ms, threads[i]->created_at);
		ranked[i].ms = ms;
	}
	qsort(ranked, n, sizeof(*ranked), rankref_cmp);
	rank = tm_xmalloc(n * sizeof(*rank));
	for (i = 0; i < n; i++)
		rank[ranked[i].node] = i;

	break_cycles(impl->pub.nodes, n, rank);

	impl->pos = tm_xmalloc(n * sizeof(*impl->pos));
	impl->pre = tm_xmalloc(n * sizeof(*impl->pre));
	impl->size = tm_xmalloc(n * sizeof(*impl->size));
	impl->order = tm_xmalloc(n * sizeof(*impl->order));
	link_children(impl, ranked);
	number_nodes(impl);

	free(rank);
	free(ranked);
	*out = &impl->pub;
	return 0;
}

void tm_tree_free(tm_tree *tree)
{
	struct tree_impl *impl;

	if (!tree)
		return;
	impl = impl_of(tree);
	free(tree->nodes);
	free(tree->roots); /* the block that also holds every children list */
	TM_FREE_ALL(impl->byid, impl->order, impl->pre, impl->size, impl->pos,
		    impl);
}

long tm_tree_find(const tm_tree *tree, const char *id)
{
	return find_in(impl_of(tree)->byid, tree->n, id);
}

int tm_tree_walk(const tm_tree *tree, tm_tree_visit_fn fn, void *payload)
{
	const struct tree_impl *impl = impl_of(tree);
	size_t i;
	int ret;

	for (i = 0; i < tree->n; i++) {
		ret = fn(tree, impl->order[i], payload);
		if (ret)
			return ret;
	}
	return 0;
}

bool tm_tree_is_ancestor(const tm_tree *tree, size_t ancestor, size_t node)
{
	const struct tree_impl *impl = impl_of(tree);

	if (ancestor >= tree->n || node >= tree->n)
		return false;
	return impl->pre[ancestor] < impl->pre[node] &&
	       impl->pre[node] < impl->pre[ancestor] + impl->size[ancestor];
}

bool tm_tree_would_cycle(const tm_tree *tree, const char *id,
			 const char *new_parent)
{
	const char *cur = new_parent;
	size_t steps;
	long node;

	if (!id)
		return false;
	/* A chain longer than n threads is looping without meeting id. */
	for (steps = 0; cur && steps <= tree->n; steps++) {
		if (!strcmp(cur, id))
			return true;
		node = tm_tree_find(tree, cur);
		if (node < 0)
			return false;
		cur = tree->nodes[node].thread->parent_id;
	}
	return false;
}

bool tm_tree_is_last_child(const tm_tree *tree, size_t node)
{
	const struct tree_impl *impl = impl_of(tree);
	long p;

	if (node >= tree->n)
		return false;
	p = tree->nodes[node].parent;
	if (p < 0)
		return impl->pos[node] + 1 == tree->nroots;
	return impl->pos[node] + 1 == tree->nodes[p].nchildren;
}
