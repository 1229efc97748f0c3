/* Unit tests of lib/format/tree.c: ordering, orphans, cycles, queries, deep
 * chains. */
#include "threadmind/tree.h"
#include "threadmind/error.h"
#include "threadmind/model.h"
#include "threadmind/timestamp.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable set of threads that the tests build trees from. */
struct set {
	tm_thread **t;
	size_t n;
	size_t alloc;
};

static tm_thread *add(struct set *s, const char *id, const char *parent,
		      const char *created)
{
	tm_thread *t = tm_thread_new();

	tm_thread_set(&t->id, id);
	tm_thread_set(&t->parent_id, parent);
	tm_thread_set(&t->created_at, created);
	tm_xgrow((void **)&s->t, &s->alloc, s->n + 1, sizeof(*s->t));
	s->t[s->n++] = t;
	return t;
}

static void set_clear(struct set *s)
{
	tm_thread_array_free(s->t, s->n);
	memset(s, 0, sizeof(*s));
}

static tm_tree *build(const struct set *s)
{
	tm_tree *tree = NULL;
	int error = tm_tree_build(&tree, (const tm_thread *const *)s->t, s->n);

	ck_assert_msg(error == 0, "build: %s", tm_error_last());
	ck_assert_ptr_nonnull(tree);
	ck_assert_uint_eq(tree->n, s->n);
	return tree;
}

static size_t node_of(const tm_tree *tree, const char *id)
{
	long i = tm_tree_find(tree, id);

	ck_assert_msg(i >= 0, "no node '%s'", id);
	return (size_t)i;
}

static const char *id_of(const tm_tree *tree, size_t node)
{
	return tree->nodes[node].thread->id;
}

/* The ids of a list of nodes, space-separated (for readable asserts). */
static void ids_of(char *out, size_t outlen, const tm_tree *tree,
		   const size_t *nodes, size_t n)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, outlen - len, "%s%s",
					i ? " " : "", id_of(tree, nodes[i]));
}

static void assert_children(const tm_tree *tree, const char *id,
			    const char *expect)
{
	char got[512];
	const tm_tree_node *nd = &tree->nodes[node_of(tree, id)];

	ids_of(got, sizeof(got), tree, nd->children, nd->nchildren);
	ck_assert_msg(!strcmp(got, expect), "children of %s: '%s', not '%s'",
		      id, got, expect);
	if (!nd->nchildren)
		ck_assert_ptr_null(nd->children);
}

static void assert_roots(const tm_tree *tree, const char *expect)
{
	char got[512];

	ids_of(got, sizeof(got), tree, tree->roots, tree->nroots);
	ck_assert_msg(!strcmp(got, expect), "roots: '%s', not '%s'", got,
		      expect);
}

/* Records the walk in a string of ids. */
struct walk_log {
	char text[1024];
	size_t len;
	size_t count;
	size_t stop_at; /* return 7 at this visit (1-based), 0 = never */
};

static int log_visit(const tm_tree *tree, size_t node, void *payload)
{
	struct walk_log *log = payload;

	log->len += (size_t)snprintf(log->text + log->len,
				     sizeof(log->text) - log->len, "%s%s",
				     log->count ? " " : "", id_of(tree, node));
	log->count++;
	return log->count == log->stop_at ? 7 : 0;
}

static void assert_walk(const tm_tree *tree, const char *expect)
{
	struct walk_log log = {{0}, 0, 0, 0};

	ck_assert_int_eq(tm_tree_walk(tree, log_visit, &log), 0);
	ck_assert_msg(!strcmp(log.text, expect), "walk: '%s', not '%s'",
		      log.text, expect);
	ck_assert_uint_eq(log.count, tree->n);
}

static void add_seed(struct set *s)
{
	/* The seed example, in file-name order. */
	add(s, "auth", "main", "2026-04-14T09:00:00.000Z");
	add(s, "auth-ui", "auth", "2026-04-15T10:00:00.000Z");
	add(s, "main", NULL, "2026-04-01T08:00:00.000Z");
}

START_TEST(test_tree_seed)
{
	struct set s = {0};
	tm_tree *tree;
	size_t i;

	add_seed(&s);
	tree = build(&s);
	for (i = 0; i < s.n; i++)
		ck_assert_ptr_eq(tree->nodes[i].thread, s.t[i]);
	assert_roots(tree, "main");
	assert_children(tree, "main", "auth");
	assert_children(tree, "auth", "auth-ui");
	assert_children(tree, "auth-ui", "");
	ck_assert_int_eq(tree->nodes[node_of(tree, "main")].parent, -1);
	ck_assert_int_eq(tree->nodes[node_of(tree, "auth")].parent,
			 (long)node_of(tree, "main"));
	ck_assert_int_eq(tree->nodes[node_of(tree, "auth-ui")].parent,
			 (long)node_of(tree, "auth"));
	ck_assert_uint_eq(tree->nodes[node_of(tree, "main")].depth, 0);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "auth")].depth, 1);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "auth-ui")].depth, 2);
	for (i = 0; i < tree->n; i++)
		ck_assert_uint_eq(tree->nodes[i].flags, 0);
	assert_walk(tree, "main auth auth-ui");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_order_by_instant)
{
	struct set s = {0};
	tm_tree *tree;

	add(&s, "p", NULL, "2026-04-01T00:00:00Z");
	/* Bytewise: c < b < a.  As instants: a (09:00Z) < c < b. */
	add(&s, "b", "p", "2026-04-15T10:00:00Z");
	add(&s, "a", "p", "2026-04-15T11:00:00+02:00");
	add(&s, "c", "p", "2026-04-15T09:30:00.000Z");
	tree = build(&s);
	assert_children(tree, "p", "a c b");
	assert_walk(tree, "p a c b");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_order_ties_by_id)
{
	struct set s = {0};
	tm_tree *tree;

	add(&s, "p", NULL, "2026-04-01T00:00:00Z");
	/* The same instant written three ways: the id decides. */
	add(&s, "zeta", "p", "2026-04-15T12:00:00Z");
	add(&s, "eta", "p", "2026-04-15T14:00:00+02:00");
	add(&s, "theta", "p", "2026-04-15T07:00:00.000-05:00");
	tree = build(&s);
	assert_children(tree, "p", "eta theta zeta");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_order_roots)
{
	struct set s = {0};
	tm_tree *tree;

	add(&s, "r2", NULL, "2026-04-15T10:00:00Z");
	add(&s, "r1", NULL, "2026-04-15T11:00:00+02:00");
	add(&s, "r3", NULL, "2026-04-15T10:00:00.000Z");
	/* Missing and unparseable timestamps sort first. */
	add(&s, "r5", NULL, "junk");
	add(&s, "r4", NULL, NULL);
	tree = build(&s);
	assert_roots(tree, "r4 r5 r1 r2 r3");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_orphan)
{
	struct set s = {0};
	tm_tree *tree;
	size_t o;

	add_seed(&s);
	add(&s, "lost", "gone", "2026-04-10T00:00:00Z");
	add(&s, "lost-kid", "lost", "2026-04-11T00:00:00Z");
	tree = build(&s);
	o = node_of(tree, "lost");
	ck_assert_int_eq(tree->nodes[o].parent, -1);
	ck_assert_uint_eq(tree->nodes[o].flags, TM_TREE_ORPHAN);
	ck_assert_uint_eq(tree->nodes[o].depth, 0);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "lost-kid")].flags, 0);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "lost-kid")].depth, 1);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "main")].flags, 0);
	assert_roots(tree, "main lost");
	assert_children(tree, "lost", "lost-kid");
	assert_walk(tree, "main auth auth-ui lost lost-kid");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_self_parent)
{
	struct set s = {0};
	tm_tree *tree;
	size_t me;

	add(&s, "kid", "me", "2026-04-02T00:00:00Z");
	add(&s, "me", "me", "2026-04-03T00:00:00Z");
	tree = build(&s);
	me = node_of(tree, "me");
	ck_assert_int_eq(tree->nodes[me].parent, -1);
	ck_assert_uint_eq(tree->nodes[me].flags, TM_TREE_CYCLE);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "kid")].flags, 0);
	assert_roots(tree, "me");
	assert_children(tree, "me", "kid");
	assert_walk(tree, "me kid");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_cycle_of_two)
{
	struct set s = {0};
	tm_tree *tree;

	add(&s, "a", "b", "2026-04-15T10:00:00Z");
	/* b is earlier as an instant (08:00Z) but later bytewise. */
	add(&s, "b", "a", "2026-04-15T11:00:00+03:00");
	tree = build(&s);
	assert_roots(tree, "b");
	assert_children(tree, "b", "a");
	ck_assert_uint_eq(tree->nodes[node_of(tree, "b")].flags, TM_TREE_CYCLE);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "a")].flags, 0);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "a")].depth, 1);
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_cycle_of_three)
{
	struct set s = {0};
	tm_tree *tree;

	/* x -> y -> z -> x (child -> parent); y is the earliest. */
	add(&s, "x", "y", "2026-04-15T10:00:00Z");
	add(&s, "y", "z", "2026-04-15T09:00:00Z");
	add(&s, "z", "x", "2026-04-15T11:00:00Z");
	add(&s, "tail", "z", "2026-04-16T00:00:00Z");
	tree = build(&s);
	assert_roots(tree, "y");
	assert_children(tree, "y", "x");
	assert_children(tree, "x", "z");
	assert_children(tree, "z", "tail");
	ck_assert_uint_eq(tree->nodes[node_of(tree, "y")].flags, TM_TREE_CYCLE);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "x")].flags, 0);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "z")].flags, 0);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "z")].depth, 2);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "tail")].depth, 3);
	assert_walk(tree, "y x z tail");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_cycle_tie_by_id)
{
	struct set s = {0};
	tm_tree *tree;

	/* Same instant for all three members: the smallest id breaks it. */
	add(&s, "m", "l", "2026-04-15T10:00:00Z");
	add(&s, "l", "n", "2026-04-15T12:00:00+02:00");
	add(&s, "n", "m", "2026-04-15T10:00:00.000Z");
	tree = build(&s);
	assert_roots(tree, "l");
	assert_walk(tree, "l m n");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_two_cycles)
{
	struct set s = {0};
	tm_tree *tree;

	add(&s, "a1", "a2", "2026-04-02T00:00:00Z");
	add(&s, "a2", "a1", "2026-04-01T00:00:00Z");
	add(&s, "b1", "b2", "2026-03-01T00:00:00Z");
	add(&s, "b2", "b3", "2026-03-02T00:00:00Z");
	add(&s, "b3", "b1", "2026-03-03T00:00:00Z");
	tree = build(&s);
	assert_roots(tree, "b1 a2");
	ck_assert_uint_eq(tree->nodes[node_of(tree, "a2")].flags,
			  TM_TREE_CYCLE);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "b1")].flags,
			  TM_TREE_CYCLE);
	assert_walk(tree, "b1 b3 b2 a2 a1");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_cycle_beside_tree)
{
	struct set s = {0};
	tm_tree *tree;
	size_t i, ncycle = 0;

	add_seed(&s);
	/* A cycle that hangs off nothing, with a thread hanging off it. */
	add(&s, "c1", "c2", "2026-04-20T00:00:00Z");
	add(&s, "c2", "c1", "2026-04-21T00:00:00Z");
	add(&s, "leaf", "c2", "2026-04-22T00:00:00Z");
	tree = build(&s);
	assert_roots(tree, "main c1");
	assert_children(tree, "c1", "c2");
	assert_children(tree, "c2", "leaf");
	assert_walk(tree, "main auth auth-ui c1 c2 leaf");
	for (i = 0; i < tree->n; i++)
		if (tree->nodes[i].flags & TM_TREE_CYCLE)
			ncycle++;
	ck_assert_uint_eq(ncycle, 1);
	ck_assert(tree->nodes[node_of(tree, "c1")].flags & TM_TREE_CYCLE);
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

/* xorshift64: a small seeded generator, so that a failure replays. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

struct order_check {
	size_t *order;
	size_t count;
	size_t n;
};

static int record_visit(const tm_tree *tree, size_t node, void *payload)
{
	struct order_check *oc = payload;

	ck_assert_uint_lt(node, tree->n);
	ck_assert_uint_lt(oc->count, oc->n);
	oc->order[oc->count++] = node;
	return 0;
}

/* The node the file's parentId names, or -1. */
static long file_parent(const tm_tree *tree, size_t node)
{
	return tm_tree_find(tree, tree->nodes[node].thread->parent_id);
}

/* Is `a` an ancestor of `node`, by climbing the built parents? */
static bool climb_finds(const tm_tree *tree, size_t a, size_t node)
{
	long p = tree->nodes[node].parent;

	while (p >= 0) {
		if ((size_t)p == a)
			return true;
		p = tree->nodes[p].parent;
	}
	return false;
}

/* Does the file parent chain from `from` reach `target` (bounded)? */
static bool chain_reaches(const tm_tree *tree, long from, size_t target)
{
	size_t steps;

	for (steps = 0; from >= 0 && steps <= tree->n; steps++) {
		if ((size_t)from == target)
			return true;
		from = file_parent(tree, (size_t)from);
	}
	return false;
}

/* Is node a before node b in sibling order (createdAt instant, id)? */
static bool sibling_before(const tm_tree *tree, size_t a, size_t b)
{
	const tm_thread *x = tree->nodes[a].thread, *y = tree->nodes[b].thread;
	int c = tm_time_cmp(x->created_at, y->created_at);

	return c ? c < 0 : strcmp(x->id, y->id) < 0;
}

static void check_random_forest(uint64_t seed, size_t n)
{
	struct set s = {0};
	tm_tree *tree;
	char id[32], parent[32], created[40];
	struct order_check oc;
	size_t *position, i, j, k, a, b, nroots = 0, ncycle = 0, norphan = 0;
	const tm_tree_node *nd;
	uint64_t r;
	long p;

	for (i = 0; i < n; i++) {
		r = rng_next(&seed);
		snprintf(id, sizeof(id), "t%zu", i);
		/* Few distinct minutes, two offsets: many ties. */
		snprintf(created, sizeof(created),
			 r % 2 ? "2026-04-15T1%u:%02u:00Z"
			       : "2026-04-15T1%u:%02u:00+00:00",
			 (unsigned)(r >> 8) % 10, (unsigned)(r >> 16) % 60);
		switch (r >> 32 & 31) {
		case 0:
			add(&s, id, NULL, created);
			break;
		case 1:
			snprintf(parent, sizeof(parent), "missing%u",
				 (unsigned)(r >> 40) % 50);
			add(&s, id, parent, created);
			break;
		case 2:
		case 3:
		case 4:
		case 5:
			/* A near neighbour (itself included): short cycles. */
			snprintf(parent, sizeof(parent), "t%zu",
				 (i + n - 3 + (size_t)(r >> 40) % 7) % n);
			add(&s, id, parent, created);
			break;
		default:
			snprintf(parent, sizeof(parent), "t%u",
				 (unsigned)((r >> 40) % n));
			add(&s, id, parent, created);
			break;
		}
	}
	tree = build(&s);

	oc.order = tm_xcalloc(n, sizeof(size_t));
	oc.count = 0;
	oc.n = n;
	ck_assert_int_eq(tm_tree_walk(tree, record_visit, &oc), 0);
	ck_assert_uint_eq(oc.count, n);
	position = tm_xmalloc(n * sizeof(size_t));
	for (i = 0; i < n; i++)
		position[i] = (size_t)-1;
	for (i = 0; i < n; i++) {
		ck_assert_msg(position[oc.order[i]] == (size_t)-1,
			      "node %zu visited twice", oc.order[i]);
		position[oc.order[i]] = i;
	}

	for (i = 0; i < n; i++) {
		nd = &tree->nodes[i];
		ck_assert_ptr_eq(nd->thread, s.t[i]);
		ck_assert_int_eq(tm_tree_find(tree, s.t[i]->id), (long)i);
		if (nd->parent < 0) {
			nroots++;
			ck_assert_uint_eq(nd->depth, 0);
			if (!nd->thread->parent_id) {
				ck_assert_uint_eq(nd->flags, 0);
			} else if (file_parent(tree, i) < 0) {
				norphan++;
				ck_assert_uint_eq(nd->flags, TM_TREE_ORPHAN);
			} else {
				/* A broken cycle: i is on it, and no other
				 * member sorts before it. */
				ncycle++;
				ck_assert_uint_eq(nd->flags, TM_TREE_CYCLE);
				ck_assert(chain_reaches(
					tree, file_parent(tree, i), i));
				for (p = file_parent(tree, i); (size_t)p != i;
				     p = file_parent(tree, (size_t)p))
					ck_assert(sibling_before(tree, i,
								 (size_t)p));
			}
		} else {
			ck_assert_uint_eq(nd->flags, 0);
			ck_assert_int_eq(nd->parent, file_parent(tree, i));
			ck_assert_uint_eq(nd->depth,
					  tree->nodes[nd->parent].depth + 1);
			/* Pre-order: a parent comes before its children. */
			ck_assert_uint_lt(position[nd->parent], position[i]);
		}
		for (j = 1; j < nd->nchildren; j++)
			ck_assert(sibling_before(tree, nd->children[j - 1],
						 nd->children[j]));
		for (j = 0; j < nd->nchildren; j++) {
			ck_assert_int_eq(tree->nodes[nd->children[j]].parent,
					 (long)i);
			ck_assert(
				tm_tree_is_last_child(tree, nd->children[j]) ==
				(j + 1 == nd->nchildren));
		}
	}
	ck_assert_uint_eq(nroots, tree->nroots);
	for (j = 1; j < tree->nroots; j++)
		ck_assert(sibling_before(tree, tree->roots[j - 1],
					 tree->roots[j]));
	/* The generator makes cycles and orphans at these sizes. */
	ck_assert_uint_gt(ncycle, 0);
	ck_assert_uint_gt(norphan, 0);

	for (k = 0; k < 4 * n; k++) {
		a = rng_next(&seed) % n;
		b = rng_next(&seed) % n;
		ck_assert(tm_tree_is_ancestor(tree, a, b) ==
			  climb_finds(tree, a, b));
		ck_assert(tm_tree_would_cycle(tree, s.t[a]->id, s.t[b]->id) ==
			  chain_reaches(tree, (long)b, a));
	}

	free(position);
	free(oc.order);
	tm_tree_free(tree);
	set_clear(&s);
}

START_TEST(test_tree_random_forest)
{
	check_random_forest(0x9e3779b97f4a7c15ULL, 2000);
	check_random_forest(12345, 2000);
	check_random_forest(0xdeadbeefULL, 300);
}
END_TEST

START_TEST(test_tree_find)
{
	struct set s = {0};
	tm_tree *tree;
	size_t i;

	add_seed(&s);
	add(&s, "null", "main", "2026-04-16T00:00:00Z");
	tree = build(&s);
	for (i = 0; i < s.n; i++)
		ck_assert_int_eq(tm_tree_find(tree, s.t[i]->id), (long)i);
	ck_assert_int_eq(tm_tree_find(tree, "aut"), -1);
	ck_assert_int_eq(tm_tree_find(tree, "auth-u"), -1);
	ck_assert_int_eq(tm_tree_find(tree, "zzz"), -1);
	ck_assert_int_eq(tm_tree_find(tree, ""), -1);
	ck_assert_int_eq(tm_tree_find(tree, NULL), -1);
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_is_ancestor)
{
	struct set s = {0};
	tm_tree *tree;
	size_t m, a, u, x;

	add_seed(&s);
	add(&s, "billing", "main", "2026-04-16T00:00:00Z");
	tree = build(&s);
	m = node_of(tree, "main");
	a = node_of(tree, "auth");
	u = node_of(tree, "auth-ui");
	x = node_of(tree, "billing");
	ck_assert(tm_tree_is_ancestor(tree, m, a));
	ck_assert(tm_tree_is_ancestor(tree, m, u));
	ck_assert(tm_tree_is_ancestor(tree, a, u));
	ck_assert(tm_tree_is_ancestor(tree, m, x));
	ck_assert(!tm_tree_is_ancestor(tree, u, a));
	ck_assert(!tm_tree_is_ancestor(tree, u, m));
	ck_assert(!tm_tree_is_ancestor(tree, a, a));
	ck_assert(!tm_tree_is_ancestor(tree, a, x));
	ck_assert(!tm_tree_is_ancestor(tree, x, u));
	ck_assert(!tm_tree_is_ancestor(tree, m, 99));
	ck_assert(!tm_tree_is_ancestor(tree, 99, m));
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_would_cycle)
{
	struct set s = {0};
	tm_tree *tree;

	add_seed(&s);
	add(&s, "billing", "main", "2026-04-16T00:00:00Z");
	tree = build(&s);
	ck_assert(tm_tree_would_cycle(tree, "main", "auth-ui"));
	ck_assert(tm_tree_would_cycle(tree, "auth", "auth-ui"));
	ck_assert(tm_tree_would_cycle(tree, "auth", "auth"));
	ck_assert(!tm_tree_would_cycle(tree, "auth-ui", "main"));
	ck_assert(!tm_tree_would_cycle(tree, "auth-ui", "billing"));
	ck_assert(!tm_tree_would_cycle(tree, "auth", "billing"));
	ck_assert(!tm_tree_would_cycle(tree, "billing", "auth-ui"));
	ck_assert(!tm_tree_would_cycle(tree, "auth", NULL));
	ck_assert(!tm_tree_would_cycle(tree, "auth", "nowhere"));
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_would_cycle_broken_cycle)
{
	struct set s = {0};
	tm_tree *tree;
	size_t a, b, c;

	/* Files: a -> b -> a (broken at a), c -> a. */
	add(&s, "a", "b", "2026-04-01T00:00:00Z");
	add(&s, "b", "a", "2026-04-02T00:00:00Z");
	add(&s, "c", "a", "2026-04-03T00:00:00Z");
	add(&s, "d", NULL, "2026-04-04T00:00:00Z");
	tree = build(&s);
	a = node_of(tree, "a");
	b = node_of(tree, "b");
	c = node_of(tree, "c");
	assert_children(tree, "a", "b c");
	/* The built tree has b and c as siblings ... */
	ck_assert(!tm_tree_is_ancestor(tree, b, c));
	ck_assert(tm_tree_is_ancestor(tree, a, b));
	/* ... but in the files c's chain goes c -> a -> b. */
	ck_assert(tm_tree_would_cycle(tree, "b", "c"));
	ck_assert(tm_tree_would_cycle(tree, "a", "b"));
	/* A chain that loops without meeting the id ends. */
	ck_assert(!tm_tree_would_cycle(tree, "d", "c"));
	ck_assert(!tm_tree_would_cycle(tree, "x", "b"));
	ck_assert(!tm_tree_would_cycle(tree, "c", "d"));
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_is_last_child)
{
	struct set s = {0};
	tm_tree *tree;

	add_seed(&s);
	add(&s, "billing", "main", "2026-04-16T00:00:00Z");
	add(&s, "other-root", NULL, "2026-05-01T00:00:00Z");
	tree = build(&s);
	assert_children(tree, "main", "auth billing");
	ck_assert(!tm_tree_is_last_child(tree, node_of(tree, "auth")));
	ck_assert(tm_tree_is_last_child(tree, node_of(tree, "billing")));
	ck_assert(tm_tree_is_last_child(tree, node_of(tree, "auth-ui")));
	ck_assert(!tm_tree_is_last_child(tree, node_of(tree, "main")));
	ck_assert(tm_tree_is_last_child(tree, node_of(tree, "other-root")));
	ck_assert(!tm_tree_is_last_child(tree, 99));
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_walk_stops)
{
	struct set s = {0};
	tm_tree *tree;
	struct walk_log log = {{0}, 0, 0, 2};

	add_seed(&s);
	tree = build(&s);
	ck_assert_int_eq(tm_tree_walk(tree, log_visit, &log), 7);
	ck_assert_uint_eq(log.count, 2);
	ck_assert_str_eq(log.text, "main auth");
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_empty)
{
	tm_tree *tree = NULL;
	struct walk_log log = {{0}, 0, 0, 0};

	ck_assert_int_eq(tm_tree_build(&tree, NULL, 0), 0);
	ck_assert_uint_eq(tree->n, 0);
	ck_assert_uint_eq(tree->nroots, 0);
	ck_assert_int_eq(tm_tree_walk(tree, log_visit, &log), 0);
	ck_assert_uint_eq(log.count, 0);
	ck_assert_int_eq(tm_tree_find(tree, "main"), -1);
	ck_assert(!tm_tree_would_cycle(tree, "a", "b"));
	tm_tree_free(tree);
	tm_tree_free(NULL);
}
END_TEST

static int count_visit(const tm_tree *tree, size_t node, void *payload)
{
	size_t *count = payload;

	(void)tree;
	(void)node;
	(*count)++;
	return 0;
}

START_TEST(test_tree_deep_chain)
{
	enum { DEPTH = 100000 };
	struct set s = {0};
	tm_tree *tree;
	char id[32], parent[32];
	size_t i, count = 0, first, last;

	/* Listed deepest first, all created at the same instant. */
	for (i = DEPTH; i-- > 0;) {
		snprintf(id, sizeof(id), "n%06zu", i);
		snprintf(parent, sizeof(parent), "n%06zu", i ? i - 1 : 0);
		add(&s, id, i ? parent : NULL, "2026-04-15T10:00:00Z");
	}
	tree = build(&s);
	first = node_of(tree, "n000000");
	last = node_of(tree, "n099999");
	ck_assert_uint_eq(tree->nroots, 1);
	ck_assert_uint_eq(tree->roots[0], first);
	ck_assert_uint_eq(tree->nodes[last].depth, DEPTH - 1);
	ck_assert_uint_eq(tree->nodes[node_of(tree, "n050000")].depth, 50000);
	ck_assert_int_eq(tm_tree_walk(tree, count_visit, &count), 0);
	ck_assert_uint_eq(count, DEPTH);
	ck_assert(tm_tree_is_ancestor(tree, first, last));
	ck_assert(!tm_tree_is_ancestor(tree, last, first));
	ck_assert(tm_tree_is_last_child(tree, last));
	ck_assert(tm_tree_would_cycle(tree, "n000000", "n099999"));
	ck_assert(!tm_tree_would_cycle(tree, "n099999", "n000000"));
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_deep_cycle)
{
	enum { DEPTH = 100000 };
	struct set s = {0};
	tm_tree *tree;
	char id[32], parent[32];
	size_t i, last;

	/* One long cycle: n0 -> n99999 -> ... -> n1 -> n0; n0 is earliest. */
	for (i = 0; i < DEPTH; i++) {
		snprintf(id, sizeof(id), "n%06zu", i);
		snprintf(parent, sizeof(parent), "n%06zu",
			 i ? i - 1 : DEPTH - 1);
		add(&s, id, parent,
		    i ? "2026-04-15T10:00:00Z" : "2026-04-15T09:00:00Z");
	}
	tree = build(&s);
	ck_assert_uint_eq(tree->nroots, 1);
	ck_assert_str_eq(id_of(tree, tree->roots[0]), "n000000");
	ck_assert_uint_eq(tree->nodes[tree->roots[0]].flags, TM_TREE_CYCLE);
	last = node_of(tree, "n099999");
	ck_assert_uint_eq(tree->nodes[last].depth, DEPTH - 1);
	tm_tree_free(tree);
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_duplicate_id)
{
	static tm_tree sentinel;
	struct set s = {0};
	tm_tree *tree = &sentinel; /* must stay untouched */

	add_seed(&s);
	add(&s, "auth", NULL, "2026-04-20T00:00:00Z");
	ck_assert_int_eq(
		tm_tree_build(&tree, (const tm_thread *const *)s.t, s.n),
		TM_EINVALID);
	ck_assert_ptr_eq(tree, &sentinel);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'auth'"));
	set_clear(&s);
}
END_TEST

START_TEST(test_tree_missing_id)
{
	struct set s = {0};
	tm_tree *tree = NULL;
	const tm_thread *with_null[2];

	add_seed(&s);
	tm_thread_set(&s.t[1]->id, NULL);
	ck_assert_int_eq(
		tm_tree_build(&tree, (const tm_thread *const *)s.t, s.n),
		TM_EINVALID);
	ck_assert_ptr_null(tree);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "entry 1"));
	with_null[0] = s.t[0];
	with_null[1] = NULL;
	ck_assert_int_eq(tm_tree_build(&tree, with_null, 2), TM_EINVALID);
	ck_assert_ptr_null(tree);
	set_clear(&s);
}
END_TEST

Suite *tree_suite(void)
{
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("build");

	tcase_add_test(tc, test_tree_seed);
	tcase_add_test(tc, test_tree_empty);
	tcase_add_test(tc, test_tree_duplicate_id);
	tcase_add_test(tc, test_tree_missing_id);
	suite_add_tcase(s, tc);
	tc = tcase_create("order");
	tcase_add_test(tc, test_tree_order_by_instant);
	tcase_add_test(tc, test_tree_order_ties_by_id);
	tcase_add_test(tc, test_tree_order_roots);
	suite_add_tcase(s, tc);
	tc = tcase_create("repair");
	tcase_add_test(tc, test_tree_orphan);
	tcase_add_test(tc, test_tree_self_parent);
	tcase_add_test(tc, test_tree_cycle_of_two);
	tcase_add_test(tc, test_tree_cycle_of_three);
	tcase_add_test(tc, test_tree_cycle_tie_by_id);
	tcase_add_test(tc, test_tree_two_cycles);
	tcase_add_test(tc, test_tree_cycle_beside_tree);
	suite_add_tcase(s, tc);
	tc = tcase_create("queries");
	tcase_add_test(tc, test_tree_find);
	tcase_add_test(tc, test_tree_is_ancestor);
	tcase_add_test(tc, test_tree_would_cycle);
	tcase_add_test(tc, test_tree_would_cycle_broken_cycle);
	tcase_add_test(tc, test_tree_is_last_child);
	tcase_add_test(tc, test_tree_walk_stops);
	suite_add_tcase(s, tc);
	tc = tcase_create("scale");
	/* Generous: valgrind runs these too. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_tree_random_forest);
	tcase_add_test(tc, test_tree_deep_chain);
	tcase_add_test(tc, test_tree_deep_cycle);
	suite_add_tcase(s, tc);
	return s;
}
