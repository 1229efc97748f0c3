/*
 * Unit tests of lib/git/treediff.c: the paths two trees differ by, compared
 * with `git diff-tree -r` on a history that adds, changes, re-moves and
 * replaces files, folders and symlinks, and on seeded random trees (made
 * with libgit2's tree builder) diffed through one differ that keeps trees.
 */
#include "threadmind/treediff.h"
#include "threadmind/error.h"
#include "git_internal.h"
#include "test_util.h"

#include <check.h>
#include <git2/sys/mempack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *repo;
static git_repository *r;

/* The commits of the history, oldest first (HEAD~6 .. HEAD). */
#define NCOMMITS 7

static void setup(void)
{
	char *home;

	tmp = tmt_mkdtemp();
	home = tmt_join(tmp, "home");
	repo = tmt_join(tmp, "repo");
	tmt_mkdirs(home);
	tmt_mkdirs(repo);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_CONFIG_COUNT");
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	free(home);
	tmt_sh("cd '%s' && git init -q && "
	       "git config user.name T && git config user.email t@x && "
	       "git config commit.gpgsign false && "
	       "mkdir -p a b/c && echo 1 > a.c && echo 1 > a/x && "
	       "echo 1 > b/c/d && echo 1 > 'sp ace' && echo 1 > a-b && "
	       "git add -A && git commit -qm 1 && "
	       "echo 2 >> b/c/d && git commit -qam 2 && "
	       "chmod +x a.c && git commit -qam 3 && "
	       "git rm -q a.c && mkdir a.c && echo 1 > a.c/y && "
	       "git rm -rq b/c && mkdir -p b && echo 1 > b/c && "
	       "git add -A && "
	       "git commit -qm 4 && "
	       "ln -s a/x l && echo 2 >> a/x && git add -A && "
	       "git commit -qm 5 && "
	       "git rm -rq a && git commit -qm 6 && "
	       "git commit -q --allow-empty -m 7",
	       repo);
	ck_assert_int_ge(git_libgit2_init(), 1);
	ck_assert_int_eq(git_repository_open(&r, repo), 0);
}

static void teardown(void)
{
	git_repository_free(r);
	git_libgit2_shutdown();
	tmt_rmtree(tmp);
	free(tmp);
	free(repo);
}

/* The tree of `rev`. */
static git_oid tree_of(const char *rev)
{
	git_object *o = NULL;
	git_oid oid;

	ck_assert_msg(git_revparse_single(&o, r, rev) == 0, "%s", rev);
	git_oid_cpy(&oid, git_commit_tree_id((git_commit *)o));
	git_object_free(o);
	return oid;
}

/* The paths joined with newlines. */
static char *lines(const tm_strv *v)
{
	tm_buf b = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < v->n; i++)
		tm_buf_printf(&b, "%s%s", i ? "\n" : "", v->items[i]);
	return b.ptr ? tm_buf_detach(&b) : strdup("");
}

/* tm_treediff between two trees (NULL: the empty tree), as lines. */
static char *ours(const git_oid *old, const git_oid *new_tree)
{
	tm_strv v = TM_STRV_INIT;
	char *s;

	ck_assert_msg(tm_treediff(&v, NULL, r, old, new_tree) == 0, "%s",
		      tm_error_last());
	s = lines(&v);
	tm_strv_clear(&v);
	return s;
}

/* tm_treediffer_diff through `d`, as lines. */
static char *ours_through(tm_treediffer *d, const git_oid *old,
			  const git_oid *new_tree)
{
	tm_strv v = TM_STRV_INIT;
	char *s;

	ck_assert_msg(tm_treediffer_diff(&v, NULL, d, old, new_tree) == 0, "%s",
		      tm_error_last());
	s = lines(&v);
	tm_strv_clear(&v);
	return s;
}

/* `git diff-tree -r` between two tree ids, as lines. */
static char *gits(const git_oid *a, const git_oid *b)
{
	char ha[GIT_OID_HEXSZ + 1], hb[GIT_OID_HEXSZ + 1];

	git_oid_tostr(ha, sizeof(ha), a);
	git_oid_tostr(hb, sizeof(hb), b);
	return tmt_sh_out("git -C '%s' -c core.quotepath=false diff-tree -r "
			  "--no-renames --name-only %s %s",
			  repo, ha, hb);
}

/* A tree object written as is (any bytes; libgit2 does not check them). */
static git_oid raw_tree(const char *data, size_t len)
{
	git_odb *odb = NULL;
	git_oid oid;

	ck_assert_int_eq(git_repository_odb(&odb, r), 0);
	ck_assert_int_eq(git_odb_write(&oid, odb, data, len, GIT_OBJECT_TREE),
			 0);
	git_odb_free(odb);
	return oid;
}

/* Every commit against its parent, in git's order. */
START_TEST(test_treediff_like_git)
{
	git_oid a, b;
	char rev[16], *want, *got;
	int i;

	for (i = NCOMMITS - 2; i >= 0; i--) {
		snprintf(rev, sizeof(rev), "HEAD~%d", i + 1);
		a = tree_of(rev);
		snprintf(rev, sizeof(rev), "HEAD~%d", i);
		b = tree_of(rev);
		want = tmt_sh_out("git -C '%s' -c core.quotepath=false "
				  "diff-tree -r --no-renames --name-only "
				  "HEAD~%d HEAD~%d",
				  repo, i + 1, i);
		got = ours(&a, &b);
		ck_assert_msg(!strcmp(got, want), "HEAD~%d: got\n%s\nwant\n%s",
			      i, got, want);
		free(want);
		free(got);
	}
}
END_TEST

START_TEST(test_treediff_cases)
{
	git_oid t1 = tree_of("HEAD~6"), t2 = tree_of("HEAD~5"),
		t3 = tree_of("HEAD~4"), t4 = tree_of("HEAD~3"),
		t6 = tree_of("HEAD~1"), t7 = tree_of("HEAD");
	char *s;

	/* a change deep down: only that file */
	s = ours(&t1, &t2);
	ck_assert_str_eq(s, "b/c/d");
	free(s);
	/* a mode change counts */
	s = ours(&t2, &t3);
	ck_assert_str_eq(s, "a.c");
	free(s);
	/* a file that becomes a folder counts on both sides, in git's order
	 * (a folder sorts as if its name ended with '/') */
	s = ours(&t3, &t4);
	ck_assert_str_eq(s, "a.c\na.c/y\nb/c\nb/c/d");
	free(s);
	/* the same tree, and the same tree object twice */
	s = ours(&t6, &t7);
	ck_assert_str_eq(s, "");
	free(s);
	s = ours(&t1, &t1);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* NULL is the empty tree, on either side. */
START_TEST(test_treediff_empty_tree)
{
	git_oid t1 = tree_of("HEAD~6");
	char *s;

	s = ours(NULL, &t1);
	ck_assert_str_eq(s, "a-b\na.c\na/x\nb/c/d\nsp ace");
	free(s);
	s = ours(&t1, NULL);
	ck_assert_str_eq(s, "a-b\na.c\na/x\nb/c/d\nsp ace");
	free(s);
	s = ours(NULL, NULL);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* Appends to what `out` holds. */
START_TEST(test_treediff_appends)
{
	git_oid t1 = tree_of("HEAD~6"), t2 = tree_of("HEAD~5");
	tm_strv v = TM_STRV_INIT;

	tm_strv_push(&v, "kept");
	ck_assert_int_eq(tm_treediff(&v, NULL, r, &t1, &t2), 0);
	ck_assert_uint_eq(v.n, 2);
	ck_assert_str_eq(v.items[0], "kept");
	ck_assert_str_eq(v.items[1], "b/c/d");
	tm_strv_clear(&v);
}
END_TEST

START_TEST(test_treediff_missing_tree)
{
	git_oid t1 = tree_of("HEAD~6"), bad;
	tm_strv v = TM_STRV_INIT;

	ck_assert_int_eq(git_oid_fromstr(&bad, "0123456789abcdef0123456789"
					       "abcdef01234567"),
			 0);
	ck_assert_int_eq(tm_treediff(&v, NULL, r, &t1, &bad), TM_ERROR);
	ck_assert_msg(strstr(tm_error_last(), "cannot read tree 0123456789ab"),
		      "%s", tm_error_last());
	ck_assert_int_eq(tm_treediff(&v, NULL, r, &bad, NULL), TM_ERROR);
	tm_strv_clear(&v);
}
END_TEST

/* One differ over the whole history, forwards, backwards and against
 * every other commit: what it keeps never changes an answer. */
START_TEST(test_treediffer_like_treediff)
{
	git_oid t[NCOMMITS];
	tm_treediffer *d = NULL;
	char rev[16], *want, *got;
	int i, j;

	for (i = 0; i < NCOMMITS; i++) {
		snprintf(rev, sizeof(rev), "HEAD~%d", NCOMMITS - 1 - i);
		t[i] = tree_of(rev);
	}
	ck_assert_int_eq(tm_treediffer_new(&d, r), 0);
	for (i = 0; i < NCOMMITS; i++)
		for (j = 0; j < NCOMMITS; j++) {
			want = gits(&t[i], &t[j]);
			got = ours_through(d, &t[i], &t[j]);
			ck_assert_msg(!strcmp(got, want),
				      "%d -> %d: got\n%s\nwant\n%s", i, j, got,
				      want);
			free(got);
			got = ours(&t[i], &t[j]);
			ck_assert_str_eq(got, want);
			free(got);
			free(want);
		}
	got = ours_through(d, NULL, &t[0]);
	ck_assert_str_eq(got, "a-b\na.c\na/x\nb/c/d\nsp ace");
	free(got);
	tm_treediffer_free(d);
	tm_treediffer_free(NULL);
}
END_TEST

/* ---- seeded random trees ---- */

#define RND_PATHS 160

static uint32_t rnd_state;

static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

/* A file of the random tree: its path, mode and content number. */
struct rfile {
	char path[64];
	unsigned mode;
	unsigned content;
};

/* Names that sort next to each other in git's order ("a" < "a-b" < "a.c"
 * < "a/" < "a0"), so that files and folders of near names meet. */
static const char *const rnd_names[] = {"a", "a-b", "a.c", "a0",
					"b", "m",   "x",   "y.txt"};

static const unsigned rnd_modes[] = {0100644, 0100644, 0100644,
				     0100755, 0120000, 0160000};

/* Whether path p and q cannot both be files ("a" and "a/b"). */
static bool clash(const char *p, const char *q)
{
	size_t lp = strlen(p), lq = strlen(q);

	if (lp == lq)
		return !strcmp(p, q);
	if (lp > lq)
		return !strncmp(p, q, lq) && p[lq] == '/';
	return !strncmp(p, q, lp) && q[lp] == '/';
}

/* Add (or replace) a random file, removing the ones it clashes with. */
static void rnd_add(struct rfile *f, size_t *n)
{
	struct rfile nf;
	size_t i, k, depth = 1 + rnd(3);

	nf.path[0] = '\0';
	for (k = 0; k < depth; k++) {
		if (k)
			strcat(nf.path, "/");
		strcat(nf.path, rnd_names[rnd(sizeof(rnd_names) /
					      sizeof(rnd_names[0]))]);
	}
	nf.mode = rnd_modes[rnd(sizeof(rnd_modes) / sizeof(rnd_modes[0]))];
	nf.content = rnd(5);
	for (i = 0; i < *n;)
		if (clash(f[i].path, nf.path))
			f[i] = f[--*n];
		else
			i++;
	if (*n < RND_PATHS)
		f[(*n)++] = nf;
}

/* The tree of the files under `prefix` ("" or "a/b/"). */
static git_oid rnd_build(const struct rfile *f, size_t n, const char *prefix)
{
	git_treebuilder *tb = NULL;
	size_t i, j, pl = strlen(prefix);
	git_oid oid;
	char name[64], sub[128], data[16];

	ck_assert_int_eq(git_treebuilder_new(&tb, r, NULL), 0);
	for (i = 0; i < n; i++) {
		const char *rest = f[i].path + pl, *slash;

		if (strncmp(f[i].path, prefix, pl))
			continue;
		slash = strchr(rest, '/');
		if (slash) {
			snprintf(name, sizeof(name), "%.*s",
				 (int)(slash - rest), rest);
			if (git_treebuilder_get(tb, name))
				continue;
			snprintf(sub, sizeof(sub), "%s%s/", prefix, name);
			oid = rnd_build(f, n, sub);
			ck_assert_int_eq(
				git_treebuilder_insert(NULL, tb, name, &oid,
						       GIT_FILEMODE_TREE),
				0);
			continue;
		}
		j = (size_t)snprintf(data, sizeof(data), "v%u", f[i].content);
		if (f[i].mode == 0160000)
			ck_assert_int_eq(
				git_oid_fromstr(&oid, "0123456789abcdef0123"
						      "456789abcdef01234567"),
				0);
		else
			ck_assert_int_eq(
				git_blob_create_from_buffer(&oid, r, data, j),
				0);
		ck_assert_int_eq(
			git_treebuilder_insert(NULL, tb, rest, &oid,
					       (git_filemode_t)f[i].mode),
			0);
	}
	ck_assert_int_eq(git_treebuilder_write(&oid, tb), 0);
	git_treebuilder_free(tb);
	return oid;
}

/*
 * Seeded random trees of up to 160 files, each step changing a few
 * (content, mode, file <-> folder, added, removed) so that most of each
 * folder stays the same: each step both ways (through one differ, and
 * through tm_treediff) and a random earlier tree against the new one, as
 * git diff-tree.
 */
START_TEST(test_treediff_random)
{
	static struct rfile f[RND_PATHS];
	git_oid t[24];
	tm_treediffer *d = NULL;
	size_t n = 0, i, k, changes;
	char *want, *got;
	unsigned seed;

	ck_assert_int_eq(tm_treediffer_new(&d, r), 0);
	for (seed = 1; seed <= tmt_rounds(3); seed++) {
		rnd_state = seed;
		n = 0;
		for (i = 0; i < 80; i++)
			rnd_add(f, &n);
		t[0] = rnd_build(f, n, "");
		for (k = 1; k < 24; k++) {
			changes = 1 + rnd(k % 5 == 0 ? 12 : 3);
			for (i = 0; i < changes; i++) {
				if (n && rnd(4) == 0)
					f[rnd((uint32_t)n)] = f[n - 1], n--;
				else if (n && rnd(3) == 0)
					f[rnd((uint32_t)n)].content = rnd(5);
				else
					rnd_add(f, &n);
			}
			t[k] = rnd_build(f, n, "");
			for (i = k - 1; i != SIZE_MAX;
			     i = i == k - 1 && k > 1 ? rnd((uint32_t)k - 1)
						     : SIZE_MAX) {
				want = gits(&t[i], &t[k]);
				got = ours_through(d, &t[i], &t[k]);
				ck_assert_msg(!strcmp(got, want),
					      "seed %u, %zu -> %zu: got\n%s\n"
					      "want\n%s",
					      seed, i, k, got, want);
				free(got);
				free(want);
				if (i != k - 1)
					continue;
				want = gits(&t[k], &t[i]);
				got = ours(&t[k], &t[i]);
				ck_assert_msg(!strcmp(got, want),
					      "seed %u, %zu <- %zu: got\n%s\n"
					      "want\n%s",
					      seed, i, k, got, want);
				free(got);
				free(want);
			}
		}
	}
	tm_treediffer_free(d);
}
END_TEST

/* The folders a limited diff opens here: "a/" and what is under "a/m/". */
static bool a_or_am(const char *folder)
{
	return !strcmp(folder, "a/") || !strncmp(folder, "a/m/", 4);
}

/* The filter: a_or_am, checking what it is given. */
static bool a_and_am(const char *folder, size_t len, void *data)
{
	(void)data;
	ck_assert_uint_eq(len, strlen(folder));
	ck_assert(len && folder[len - 1] == '/');
	return a_or_am(folder);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of a whole diff as a_and_am's limited diff gives them: a path
 * under a folder the filter refuses becomes that folder (the first one
 * from the root), once; in byte order. */
static char *limited(const char *whole)
{
	tm_strv v = TM_STRV_INIT;
	tm_buf b = TM_BUF_INIT;
	const char *p = whole, *nl, *slash;
	size_t i, len;
	char *line;

	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		len = (size_t)(nl - p);
		line = strndup(p, len);
		for (slash = strchr(line, '/'); slash;
		     slash = strchr(slash + 1, '/')) {
			char *folder =
				strndup(line, (size_t)(slash + 1 - line));

			if (!a_or_am(folder)) {
				free(line);
				line = folder; /* the first folder refused */
				break;
			}
			free(folder);
		}
		tm_strv_push(&v, line);
		free(line);
	}
	if (v.n)
		qsort(v.items, v.n, sizeof(*v.items), cmp_str);
	for (i = 0; i < v.n; i++)
		if (!i || strcmp(v.items[i], v.items[i - 1]))
			tm_buf_printf(&b, "%s%s", b.size ? "\n" : "",
				      v.items[i]);
	tm_strv_clear(&v);
	return b.ptr ? tm_buf_detach(&b) : strdup("");
}

/*
 * tm_treediffer_diff_within opens only the folders its filter accepts:
 * on seeded random trees, the answer of `git diff-tree -r` with each path
 * under a refused folder given as that folder.
 */
START_TEST(test_treediff_within_random)
{
	static struct rfile f[RND_PATHS];
	tm_treediffer *d = NULL;
	tm_strv v = TM_STRV_INIT;
	git_oid a, b;
	size_t n = 0, i, k, opened = 0, refused = 0;
	char *whole, *want, *got;

	ck_assert_int_eq(tm_treediffer_new(&d, r), 0);
	rnd_state = 7;
	for (i = 0; i < 120; i++)
		rnd_add(f, &n);
	a = rnd_build(f, n, "");
	for (k = 0; k < 40; k++) {
		for (i = 0; i < 1 + rnd(8); i++)
			rnd_add(f, &n);
		b = rnd_build(f, n, "");
		whole = gits(&a, &b);
		want = limited(whole);
		ck_assert_int_eq(tm_treediffer_diff_within(&v, NULL, d, &a, &b,
							   a_and_am, NULL),
				 0);
		got = lines(&v);
		ck_assert_msg(!strcmp(got, want), "step %zu: got\n%s\nwant\n%s",
			      k, got, want);
		opened += strstr(got, "a/m/") != NULL;
		refused += strstr(got, "/\n") != NULL;
		free(whole);
		free(got);
		free(want);
		tm_strv_clear(&v);
		a = b;
	}
	/* the filter let something through, and refused something */
	ck_assert_uint_gt(opened, 0);
	ck_assert_uint_gt(refused, 0);
	tm_treediffer_free(d);
}
END_TEST

/* Modes compare as git and libgit2 see them: 100664 and 100654 are 100644
 * (old repositories wrote such modes), the owner's x bit makes an
 * executable. */
static git_oid one_file_tree(const char *mode, const git_oid *blob)
{
	char buf[64];
	size_t len = (size_t)snprintf(buf, sizeof(buf), "%s f", mode);

	memcpy(buf + len + 1, blob->id, GIT_OID_RAWSZ);
	return raw_tree(buf, len + 1 + GIT_OID_RAWSZ);
}

START_TEST(test_treediff_mode_canon)
{
	static const char *const modes[] = {"100644", "100664", "100654",
					    "100744", "100755"};
	git_oid blob, t[5];
	char *s, *g;
	size_t i, j;

	ck_assert_int_eq(git_blob_create_from_buffer(&blob, r, "x", 1), 0);
	for (i = 0; i < 5; i++)
		t[i] = one_file_tree(modes[i], &blob);
	for (i = 0; i < 5; i++)
		for (j = 0; j < 5; j++) {
			s = ours(&t[i], &t[j]);
			g = gits(&t[i], &t[j]);
			ck_assert_msg(!strcmp(s, g), "%s -> %s: %s, git %s",
				      modes[i], modes[j], s, g);
			ck_assert_str_eq(s, (i < 3) == (j < 3) ? "" : "f");
			free(s);
			free(g);
		}
}
END_TEST

/* Not a tree, or a tree that does not parse: an error naming it. */
START_TEST(test_treediff_bad_objects)
{
	git_oid t1 = tree_of("HEAD~6"), blob, bad;
	tm_treediffer *d = NULL;
	tm_strv v = TM_STRV_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	static const char *const broken[] = {
		"100644 f",                        /* no NUL, no id */
		"100644 f\0short",                 /* an id cut short */
		"10a644 f\0aaaaaaaaaaaaaaaaaaaa",  /* not octal */
		" f\0aaaaaaaaaaaaaaaaaaaa",        /* no mode */
		"100644 \0aaaaaaaaaaaaaaaaaaaa",   /* no name */
		"7777777 f\0aaaaaaaaaaaaaaaaaaaa", /* a mode too large */
	};
	static const size_t blen[] = {8, 14, 30, 23, 28, 31};
	size_t i;

	ck_assert_int_eq(git_blob_create_from_buffer(&blob, r, "x", 1), 0);
	ck_assert_int_eq(tm_treediff(&v, NULL, r, &t1, &blob), TM_ERROR);
	ck_assert_msg(strstr(tm_error_last(), "is a blob"), "%s",
		      tm_error_last());
	ck_assert_int_eq(tm_treediffer_new(&d, r), 0);
	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		bad = raw_tree(broken[i], blen[i]);
		git_oid_tostr(hex, sizeof(hex), &bad);
		ck_assert_int_eq(tm_treediff(&v, NULL, r, NULL, &bad),
				 TM_ERROR);
		ck_assert_msg(strstr(tm_error_last(), hex) &&
				      strstr(tm_error_last(), "malformed"),
			      "%zu: %s", i, tm_error_last());
		ck_assert_int_eq(tm_treediffer_diff(&v, NULL, d, &t1, &bad),
				 TM_ERROR);
		/* kept or not, the same error the second time */
		ck_assert_int_eq(tm_treediffer_diff(&v, NULL, d, &bad, &t1),
				 TM_ERROR);
	}
	ck_assert_int_eq(tm_treediffer_diff(&v, NULL, d, &t1, &blob), TM_ERROR);
	tm_treediffer_free(d);
	tm_strv_clear(&v);
}
END_TEST

/* A tree of one entry `name` (a folder when `tree`) pointing at `id`. */
static git_oid one_entry_tree(const char *name, bool tree, const git_oid *id)
{
	char buf[300];
	size_t len = (size_t)snprintf(buf, sizeof(buf), "%s %s",
				      tree ? "40000" : "100644", name);

	memcpy(buf + len + 1, id->id, GIT_OID_RAWSZ);
	return raw_tree(buf, len + 1 + GIT_OID_RAWSZ);
}

/* The entries of `v` ending in '/' (prefixes). */
static size_t prefixes(const tm_strv *v)
{
	size_t i, n = 0;

	for (i = 0; i < v->n; i++)
		n += tm_treediff_is_prefix(v->items[i], strlen(v->items[i]));
	return n;
}

/* Deeper than TM_TREEDIFF_MAX_DEPTH: one prefix at that depth, and no
 * recursion whatever the depth (issue 24, deep-tree-crash: 100,000 levels
 * made the recursive differ die of SIGSEGV).  The 5,000 trees are kept in
 * memory (libgit2's mempack backend, first in the object database): as
 * loose objects they cost a file each, 8 s of the unit run. */
START_TEST(test_treediff_deep_tree)
{
	git_oid blob, t;
	git_odb *odb;
	git_odb_backend *mem;
	tm_strv v = TM_STRV_INIT;
	const char *p;
	size_t i, n = 0;

	ck_assert_int_eq(git_repository_odb(&odb, r), 0);
	ck_assert_int_eq(git_mempack_new(&mem), 0);
	ck_assert_int_eq(git_odb_add_backend(odb, mem, 1000), 0);
	git_odb_free(odb);
	ck_assert_int_eq(git_blob_create_from_buffer(&blob, r, "x", 1), 0);
	t = one_entry_tree("f", false, &blob);
	for (i = 0; i < 5000; i++)
		t = one_entry_tree("d", true, &t);
	ck_assert_int_eq(tm_treediff(&v, NULL, r, NULL, &t), 0);
	ck_assert_uint_eq(v.n, 1);
	for (p = v.items[0]; *p; p++)
		n += *p == '/';
	ck_assert_uint_eq(n, TM_TREEDIFF_MAX_DEPTH + 1);
	ck_assert(tm_treediff_is_prefix(v.items[0], strlen(v.items[0])));
	tm_strv_clear(&v);
	/* within the bound, every file */
	t = one_entry_tree("f", false, &blob);
	for (i = 0; i < 100; i++)
		t = one_entry_tree("d", true, &t);
	ck_assert_int_eq(tm_treediff(&v, NULL, r, &t, NULL), 0);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_uint_eq(strlen(v.items[0]), 201);
	ck_assert(!tm_treediff_is_prefix(v.items[0], 201));
	tm_strv_clear(&v);
}
END_TEST

/* More changed files than TM_TREEDIFF_MAX_PATHS (issue 24,
 * wide-history-dos: 3,000,000 files in 30 KB of pack): folders opened
 * level by level while the answer fits, the rest as prefixes; every
 * changed file is listed or under a listed prefix, in git's order. */
START_TEST(test_treediff_wide_tree)
{
	tm_buf b = TM_BUF_INIT;
	git_oid blob, sub, top, root;
	tm_strv v = TM_STRV_INIT;
	char name[32], want[32];
	size_t i, k, folders = 30, files = 1000;
	bool listed;

	ck_assert_int_eq(git_blob_create_from_buffer(&blob, r, "x", 1), 0);
	for (i = 0; i < files; i++) {
		tm_buf_printf(&b, "100644 f%04zu", i);
		tm_buf_putc(&b, '\0');
		tm_buf_put(&b, blob.id, GIT_OID_RAWSZ);
	}
	sub = raw_tree(b.ptr, b.size);
	tm_buf_clear(&b);
	for (i = 0; i < folders; i++) {
		tm_buf_printf(&b, "40000 d%02zu", i);
		tm_buf_putc(&b, '\0');
		tm_buf_put(&b, sub.id, GIT_OID_RAWSZ);
	}
	top = raw_tree(b.ptr, b.size);
	tm_buf_release(&b);
	root = one_entry_tree("zz", true, &top);
	ck_assert_int_eq(tm_treediff(&v, NULL, r, NULL, &root), 0);
	ck_assert_uint_le(v.n, TM_TREEDIFF_MAX_PATHS);
	ck_assert_uint_gt(prefixes(&v), 0);
	ck_assert_uint_lt(prefixes(&v), folders);
	for (i = 1; i < v.n; i++)
		ck_assert_int_lt(strcmp(v.items[i - 1], v.items[i]), 0);
	for (i = 0; i < folders; i++) {
		snprintf(name, sizeof(name), "zz/d%02zu/", i);
		listed = tm_strv_contains(&v, name);
		for (k = 0; k < files && !listed; k++) {
			snprintf(want, sizeof(want), "zz/d%02zu/f%04zu", i, k);
			ck_assert_msg(tm_strv_contains(&v, want), "%s", want);
		}
	}
	tm_strv_clear(&v);
}
END_TEST

/* A tree larger than TM_TREEDIFF_MAX_TREE is not read: its folder is a
 * prefix ("/": the root). */
START_TEST(test_treediff_huge_tree)
{
	tm_buf b = TM_BUF_INIT;
	git_oid blob, big, root;
	tm_strv v = TM_STRV_INIT;
	size_t i;

	ck_assert_int_eq(git_blob_create_from_buffer(&blob, r, "x", 1), 0);
	for (i = 0; b.size <= TM_TREEDIFF_MAX_TREE; i++) {
		tm_buf_printf(&b, "100644 f%07zu", i);
		tm_buf_putc(&b, '\0');
		tm_buf_put(&b, blob.id, GIT_OID_RAWSZ);
	}
	big = raw_tree(b.ptr, b.size);
	tm_buf_release(&b);
	ck_assert_int_eq(tm_treediff(&v, NULL, r, NULL, &big), 0);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.items[0], "/");
	/* refused before it was inflated, not read whole and dropped */
	ck_assert(tm_git__alloc_refused());
	tm_strv_clear(&v);
	root = one_entry_tree("big", true, &big);
	ck_assert_int_eq(tm_treediff(&v, NULL, r, &root, NULL), 0);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.items[0], "big/");
	tm_strv_clear(&v);
}
END_TEST

/* With a list for them, a tree that cannot be read is skipped: its folder
 * a prefix, a line naming it (issue 24, malformed-tree-stale-zero). */
START_TEST(test_treediff_skips_bad_objects)
{
	git_oid t1 = tree_of("HEAD~6"), blob, bad, root;
	tm_strv v = TM_STRV_INIT, skipped = TM_STRV_INIT;
	tm_treediffer *d = NULL;
	char hex[GIT_OID_HEXSZ + 1];

	ck_assert_int_eq(git_blob_create_from_buffer(&blob, r, "x", 1), 0);
	bad = raw_tree("garbage", 7);
	git_oid_tostr(hex, sizeof(hex), &bad);
	root = one_entry_tree("zz", true, &bad);
	ck_assert_int_eq(tm_treediff(&v, &skipped, r, NULL, &root), 0);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.items[0], "zz/");
	ck_assert_uint_eq(skipped.n, 1);
	ck_assert_msg(strstr(skipped.items[0], hex) &&
			      strstr(skipped.items[0], "'zz/' counted"),
		      "%s", skipped.items[0]);
	tm_strv_clear(&v);
	tm_strv_clear(&skipped);
	/* the root itself, through a differ; a blob where a tree is */
	ck_assert_int_eq(tm_treediffer_new(&d, r), 0);
	ck_assert_int_eq(tm_treediffer_diff(&v, &skipped, d, &t1, &bad), 0);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.items[0], "/");
	tm_strv_clear(&v);
	root = one_entry_tree("b", true, &blob);
	ck_assert_int_eq(tm_treediffer_diff(&v, &skipped, d, &t1, &root), 0);
	ck_assert_msg(tm_strv_contains(&v, "b/") && tm_strv_contains(&v, "a.c"),
		      "b/ and a.c");
	ck_assert_uint_eq(skipped.n, 2);
	ck_assert_msg(strstr(skipped.items[1], "is a blob"), "%s",
		      skipped.items[1]);
	tm_treediffer_free(d);
	tm_strv_clear(&v);
	tm_strv_clear(&skipped);
}
END_TEST

Suite *treediff_suite(void)
{
	Suite *s = suite_create("treediff");
	TCase *tc = tcase_create("diff");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_treediff_like_git);
	tcase_add_test(tc, test_treediff_within_random);
	tcase_add_test(tc, test_treediff_cases);
	tcase_add_test(tc, test_treediff_empty_tree);
	tcase_add_test(tc, test_treediff_appends);
	tcase_add_test(tc, test_treediff_missing_tree);
	tcase_add_test(tc, test_treediffer_like_treediff);
	tcase_add_test(tc, test_treediff_random);
	tcase_add_test(tc, test_treediff_mode_canon);
	tcase_add_test(tc, test_treediff_bad_objects);
	tcase_add_test(tc, test_treediff_deep_tree);
	tcase_add_test(tc, test_treediff_wide_tree);
	tcase_add_test(tc, test_treediff_huge_tree);
	tcase_add_test(tc, test_treediff_skips_bad_objects);
	suite_add_tcase(s, tc);
	return s;
}
