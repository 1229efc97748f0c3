/*
 * Unit tests of lib/app/resolve.c: a real merge made with the git binary leaves
 * a conflicted index (git's own line merge: no threadmind driver), then
 * tm_resolve_index re-merges it from the stages.
 */
#include "threadmind/resolve.h"
#include "threadmind/error.h"
#include "threadmind/git.h"
#include "git_internal.h"
#include "threadmind/store.h"
#include "merge_util.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define T_MD   ".threadmind/threads/p/t.md"
#define U_MD   ".threadmind/threads/p/u.md"
#define P_JSON ".threadmind/projects/p.json"
#define NOTES  ".threadmind/notes.txt"
#define README "README.md"

static char *tmp;  /* the test's temp dir */
static char *repo; /* tmp/repo, in the middle of a conflicted merge */

static const char project[] = "{\n"
			      "  \"id\": \"p\",\n"
			      "  \"title\": \"P\",\n"
			      "  \"systemContext\": \"one\",\n"
			      "  \"mode\": \"solo\",\n"
			      "  \"rootThreadId\": \"main\"\n"
			      "}\n";

/* Write `content` to `rel` in the repository. */
static void put(const char *rel, const char *content)
{
	tmt_put(repo, rel, content);
}

/* Like put, taking a malloc'd string and freeing it. */
static void put_owned(const char *rel, char *content)
{
	put(rel, content);
	free(content);
}

/* The content of `rel` in the working tree (malloc'd). */
static char *get(const char *rel)
{
	char *p = tmt_join(repo, rel), *data = tmt_read_file(p, NULL);

	free(p);
	return data;
}

/* `s` with the first `from` replaced by `to` (malloc'd). */
static char *edit(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	tm_buf b = TM_BUF_INIT;

	ck_assert_msg(at != NULL, "'%s' not found", from);
	tm_buf_put(&b, s, (size_t)(at - s));
	tm_buf_puts(&b, to);
	tm_buf_puts(&b, at + strlen(from));
	return tm_buf_detach(&b);
}

/* A thread file of id `id`: mt_base with `body` and `updated`. */
static char *thread(const char *id, const char *updated, const char *body)
{
	char *a = mt_set(mt_base, "id", id),
	     *b = mt_set(a, "updatedAt", updated);
	char *c = mt_body(b, body);

	free(a);
	free(b);
	return c;
}

static const char base_body[] = "\n## Decisions\n- d1\n- d2\n\n"
				"## State\nSome prose about the state.\n";

/*
 * Each side changes the same lines of every file, so that git's line merge
 * conflicts everywhere; threadmind's merge is clean for t.md (list items
 * added on both sides, the later updatedAt) and p.json (different keys),
 * and not for u.md (one prose line changed two ways).
 */
static void setup(void)
{
	tmp = tmt_mkdtemp();
	repo = tmt_git_repo(tmp, "repo");
	put_owned(T_MD, thread("t", "2026-04-15T12:00:00.000Z", base_body));
	put_owned(U_MD, thread("u", "2026-04-15T12:00:00.000Z", base_body));
	put(P_JSON, project);
	put(NOTES, "notes\n");
	put(README, "hello\n");
	tmt_sh("cd '%s' && git add -A && git commit -q -m base && "
	       "git checkout -q -b theirs",
	       repo);
	put_owned(T_MD, thread("t", "2026-04-17T12:00:00.000Z",
			       "\n## Decisions\n- d1\n- d2\n- d4\n\n"
			       "## State\nSome prose about the state.\n"));
	put_owned(U_MD, thread("u", "2026-04-17T12:00:00.000Z",
			       "\n## Decisions\n- d1\n- d2\n\n"
			       "## State\nTheir prose.\n"));
	put_owned(P_JSON, edit(project, "\"one\"", "\"two\""));
	put(NOTES, "their notes\n");
	put(README, "their hello\n");
	tmt_sh("cd '%s' && git commit -q -a -m theirs && "
	       "git checkout -q main",
	       repo);
	put_owned(T_MD, thread("t", "2026-04-16T12:00:00.000Z",
			       "\n## Decisions\n- d1\n- d2\n- d3\n\n"
			       "## State\nSome prose about the state.\n"));
	put_owned(U_MD, thread("u", "2026-04-16T12:00:00.000Z",
			       "\n## Decisions\n- d1\n- d2\n\n"
			       "## State\nOur prose.\n"));
	put_owned(P_JSON, edit(project, "\"P\"", "\"Ours\""));
	put(NOTES, "our notes\n");
	put(README, "our hello\n");
	tmt_sh("cd '%s' && git commit -q -a -m ours && "
	       "{ git merge -q --no-edit theirs >/dev/null 2>&1; "
	       "test $? -eq 1; }",
	       repo);
}

static void teardown(void)
{
	tmt_rmtree(tmp);
	free(tmp);
	free(repo);
	tmp = repo = NULL;
}

static tm_git *open_repo(void)
{
	tm_git *g = NULL;

	ck_assert_msg(tm_git_open(&g, repo, false) == 0, "%s", tm_error_last());
	return g;
}

/* Resolve `paths` (NULL: every thread and project file); asserts success. */
static void resolve(tm_resolve_report *out, const tm_strv *paths,
		    tm_conflict_style style)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_git *g = open_repo();

	opts.style = style;
	opts.our_label = "ours";
	opts.their_label = "theirs";
	ck_assert_msg(tm_resolve_index(out, g, paths, &opts) == 0, "%s",
		      tm_error_last());
	tm_git_free(g);
}

static const tm_resolve_entry *entry(const tm_resolve_report *r,
				     const char *path)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].path, path))
			return &r->items[i];
	return NULL;
}

/* The paths git still lists as unmerged, one per line (malloc'd). */
static char *unmerged(void)
{
	return tmt_sh_out("git -C '%s' diff --name-only --diff-filter=U", repo);
}

START_TEST(test_resolve_clean_merge_is_staged)
{
	tm_resolve_report r;
	const tm_resolve_entry *e;
	char *t, *staged, *p, *left;

	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_ptr_nonnull(e = entry(&r, T_MD));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_CLEAN);
	ck_assert_ptr_nonnull(e = entry(&r, P_JSON));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_CLEAN);
	/* both list items, the later updatedAt, no markers */
	t = get(T_MD);
	ck_assert(mt_has_line(t, "- d3"));
	ck_assert(mt_has_line(t, "- d4"));
	ck_assert(mt_has_line(t, "updatedAt: 2026-04-17T12:00:00.000Z"));
	ck_assert_ptr_null(strstr(t, "<<<<<<<"));
	/* what is in the working tree is what is staged (tmt_sh_out drops
	 * the final line end) */
	staged = tmt_sh_out("git -C '%s' show :%s", repo, T_MD);
	ck_assert_uint_eq(strlen(t), strlen(staged) + 1);
	ck_assert(!strncmp(t, staged, strlen(staged)));
	p = get(P_JSON);
	ck_assert_ptr_nonnull(strstr(p, "\"title\": \"Ours\""));
	ck_assert_ptr_nonnull(strstr(p, "\"systemContext\": \"two\""));
	left = unmerged();
	ck_assert_ptr_null(strstr(left, T_MD));
	ck_assert_ptr_null(strstr(left, P_JSON));
	free(t);
	free(staged);
	free(p);
	free(left);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_conflict_left_unstaged)
{
	tm_resolve_report r;
	const tm_resolve_entry *e;
	char *u, *left;

	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_ptr_nonnull(e = entry(&r, U_MD));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_CONFLICTS);
	u = get(U_MD);
	ck_assert(mt_has_line(u, "<<<<<<< ours"));
	ck_assert(mt_has_line(u, "Our prose."));
	ck_assert(mt_has_line(u, "======="));
	ck_assert(mt_has_line(u, "Their prose."));
	ck_assert(mt_has_line(u, ">>>>>>> theirs"));
	/* the merge style: no ancestor section */
	ck_assert_ptr_null(strstr(u, "|||||||"));
	/* the header merged all the same: markers stay in the body */
	ck_assert(!mt_header_has_markers(u, strlen(u)));
	left = unmerged();
	ck_assert_ptr_nonnull(strstr(left, U_MD));
	free(u);
	free(left);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_other_files_ignored)
{
	tm_resolve_report r;
	const tm_resolve_entry *e;
	char *notes, *readme, *left;

	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	/* under .threadmind/ but neither a thread nor a project: skipped */
	ck_assert_ptr_nonnull(e = entry(&r, NOTES));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_SKIPPED);
	ck_assert_str_eq(e->note, "not a thread or project file");
	/* outside .threadmind/: not even looked at */
	ck_assert_ptr_null(entry(&r, README));
	ck_assert_uint_eq(r.n, 4);
	/* both left as git wrote them, still conflicted */
	notes = get(NOTES);
	readme = get(README);
	ck_assert(mt_has_line(notes, "<<<<<<< HEAD"));
	ck_assert(mt_has_line(readme, "<<<<<<< HEAD"));
	left = unmerged();
	ck_assert_ptr_nonnull(strstr(left, NOTES));
	ck_assert_ptr_nonnull(strstr(left, README));
	free(notes);
	free(readme);
	free(left);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_diff3_style_from_config)
{
	tm_resolve_report r;
	tm_git *g;
	tm_conflict_style style;
	char *u;

	tmt_sh("git -C '%s' config merge.conflictStyle diff3", repo);
	g = open_repo();
	style = tm_git_conflict_style(g);
	tm_git_free(g);
	ck_assert_int_eq(style, TM_CONFLICT_STYLE_DIFF3);
	resolve(&r, NULL, style);
	ck_assert_int_eq(entry(&r, U_MD)->outcome, TM_RESOLVE_CONFLICTS);
	u = get(U_MD);
	ck_assert(mt_has_line(u, "<<<<<<< ours"));
	ck_assert(mt_has_line(u, "||||||| base"));
	ck_assert(mt_has_line(u, "Some prose about the state."));
	ck_assert(mt_has_line(u, ">>>>>>> theirs"));
	free(u);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_named_paths_only)
{
	tm_resolve_report r;
	tm_strv paths = TM_STRV_INIT;
	char *u;

	tm_strv_push(&paths, T_MD);
	resolve(&r, &paths, TM_CONFLICT_STYLE_MERGE);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.items[0].path, T_MD);
	ck_assert_int_eq(r.items[0].outcome, TM_RESOLVE_CLEAN);
	/* u.md is still git's */
	u = get(U_MD);
	ck_assert(mt_has_line(u, "<<<<<<< HEAD"));
	free(u);
	tm_resolve_report_clear(&r);
	tm_strv_clear(&paths);
}
END_TEST

START_TEST(test_resolve_named_path_without_conflict)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_resolve_report r;
	tm_strv paths = TM_STRV_INIT;
	tm_git *g = open_repo();
	char *t;

	tm_strv_push(&paths, T_MD);
	tm_strv_push(&paths, ".threadmind/threads/p/nope.md");
	ck_assert_int_eq(tm_resolve_index(&r, g, &paths, &opts), TM_ENOTFOUND);
	ck_assert_str_eq(tm_error_last(), "'.threadmind/threads/p/nope.md' "
					  "has no conflict to resolve");
	/* checked before anything is written */
	t = get(T_MD);
	ck_assert(mt_has_line(t, "<<<<<<< HEAD"));
	free(t);
	tm_resolve_report_clear(&r);
	tm_strv_clear(&paths);
	tm_git_free(g);
}
END_TEST

START_TEST(test_resolve_nothing_to_do)
{
	tm_resolve_report r;

	tmt_sh("cd '%s' && git merge --abort", repo);
	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_uint_eq(r.n, 0);
	tm_resolve_report_clear(&r);
}
END_TEST

/*
 * The unmerged files come from git's index read in place (index_file.c),
 * without opening libgit2; through libgit2 (GIT_INDEX_FILE set: the reader
 * leaves that to it) the answer is the same, for every index version.
 */
START_TEST(test_resolve_pending_index_without_libgit2)
{
	static const char *const versions[] = {"2", "3", "4"};
	tm_strv fast = TM_STRV_INIT, slow = TM_STRV_INIT, m = TM_STRV_INIT;
	char *index = tmt_join(repo, ".git/index");
	tm_store *st = NULL;
	size_t i, k;

	for (k = 0; k < 3; k++) {
		tmt_sh("git -C '%s' update-index --index-version %s", repo,
		       versions[k]);
		ck_assert_int_eq(tm_store_open(&st, repo), 0);
		ck_assert_int_eq(tm_resolve_pending(&fast, &m, st), 0);
		ck_assert(!tm_git__libgit2_opened(tm_store_git(st)));
		tm_store_free(st);
		tm_strv_clear(&m);
		setenv("GIT_INDEX_FILE", index, 1);
		ck_assert_int_eq(tm_store_open(&st, repo), 0);
		ck_assert_int_eq(tm_resolve_pending(&slow, &m, st), 0);
		ck_assert(tm_git__libgit2_opened(tm_store_git(st)));
		unsetenv("GIT_INDEX_FILE");
		tm_store_free(st);
		tm_strv_clear(&m);
		ck_assert_uint_eq(fast.n, 4);
		ck_assert_uint_eq(fast.n, slow.n);
		for (i = 0; i < fast.n; i++)
			ck_assert_str_eq(fast.items[i], slow.items[i]);
		tm_strv_clear(&fast);
		tm_strv_clear(&slow);
	}
	free(index);
}
END_TEST

/*
 * tm_resolve_pending_loaded takes the loaded project's marked files from
 * the load (status reads each thread file once): the same answer as
 * tm_resolve_pending on the same files, and a file changed after the load
 * is not read again.
 */
START_TEST(test_resolve_pending_loaded_uses_the_load)
{
	tm_strv u1 = TM_STRV_INIT, m1 = TM_STRV_INIT;
	tm_strv u2 = TM_STRV_INIT, m2 = TM_STRV_INIT;
	tm_thread_list all;
	tm_store *st = NULL;
	size_t i;

	ck_assert_int_eq(tm_store_open(&st, repo), 0);
	ck_assert_int_eq(tm_store_load_all(&all, st, "p"), 0);
	ck_assert_int_eq(tm_resolve_pending(&u1, &m1, st), 0);
	ck_assert_int_eq(tm_resolve_pending_loaded(&u2, &m2, st, "p", &all), 0);
	ck_assert_uint_eq(m1.n, 2);
	ck_assert_uint_eq(m2.n, m1.n);
	ck_assert_uint_eq(u2.n, u1.n);
	for (i = 0; i < m1.n; i++)
		ck_assert_str_eq(m2.items[i], m1.items[i]);
	for (i = 0; i < u1.n; i++)
		ck_assert_str_eq(u2.items[i], u1.items[i]);
	tm_strv_clear(&u2);
	tm_strv_clear(&m2);
	/* the markers gone from the disk since the load: the load says */
	put(U_MD, "---\nid: u\ntitle: U\n---\n");
	put(T_MD, "---\nid: t\ntitle: T\n---\n");
	ck_assert_int_eq(tm_resolve_pending_loaded(&u2, &m2, st, "p", &all), 0);
	ck_assert_uint_eq(m2.n, 2);
	tm_strv_clear(&u2);
	tm_strv_clear(&m2);
	ck_assert_int_eq(tm_resolve_pending(&u2, &m2, st), 0);
	ck_assert_uint_eq(m2.n, 0);
	tm_thread_list_clear(&all);
	tm_strv_clear(&u1);
	tm_strv_clear(&m1);
	tm_strv_clear(&u2);
	tm_strv_clear(&m2);
	tm_store_free(st);
}
END_TEST

START_TEST(test_resolve_pending_lists_conflicts)
{
	tm_strv unmerged = TM_STRV_INIT, marked = TM_STRV_INIT;
	tm_resolve_report r;
	tm_store *st = NULL;

	ck_assert_int_eq(tm_store_open(&st, repo), 0);
	ck_assert_int_eq(tm_resolve_pending(&unmerged, &marked, st), 0);
	/* git's line merge left markers in both thread files */
	ck_assert_uint_eq(unmerged.n, 4);
	ck_assert(tm_strv_contains(&unmerged, T_MD));
	ck_assert(tm_strv_contains(&unmerged, P_JSON));
	ck_assert(tm_strv_contains(&unmerged, NOTES));
	ck_assert_uint_eq(marked.n, 2);
	ck_assert_str_eq(marked.items[0], T_MD);
	ck_assert_str_eq(marked.items[1], U_MD);
	tm_strv_clear(&unmerged);
	tm_strv_clear(&marked);
	tm_store_free(st);
	/* resolved (t.md staged, u.md still conflicted in its body) */
	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	tm_resolve_report_clear(&r);
	ck_assert_int_eq(tm_store_open(&st, repo), 0);
	ck_assert_int_eq(tm_resolve_pending(&unmerged, &marked, st), 0);
	ck_assert(!tm_strv_contains(&unmerged, T_MD));
	ck_assert(tm_strv_contains(&unmerged, U_MD));
	ck_assert_uint_eq(marked.n, 1);
	ck_assert_str_eq(marked.items[0], U_MD);
	tm_strv_clear(&unmerged);
	tm_strv_clear(&marked);
	tm_store_free(st);
}
END_TEST

/* ---- same id born on two branches ---- */

#define S_MD  ".threadmind/threads/p/search.md"
#define S2_MD ".threadmind/threads/p/search-2.md"
#define UI_MD ".threadmind/threads/p/search-ui.md"
#define TU_MD ".threadmind/threads/p/tuning.md"

/* A new thread file. */
static char *born(const char *id, const char *parent, const char *author,
		  const char *created, const char *body)
{
	char *a = thread(id, created, body), *b = mt_set(a, "author", author);
	char *c = mt_set(b, "createdAt", created),
	     *d = mt_set(c, "title", "Search");
	char *e = mt_set(d, "parentId", parent);

	free(a);
	free(b);
	free(c);
	free(d);
	return e;
}

/*
 * A repository where branch `mine` (ana, later) and branch `yours` (bob,
 * earlier) each created "search" with a child; `merge_into` is checked out
 * and the other branch merged with git's line merge.
 */
static void setup_two(const char *merge_into)
{
	const char *other = strcmp(merge_into, "mine") ? "mine" : "yours";

	tmp = tmt_mkdtemp();
	repo = tmt_git_repo(tmp, "repo");
	put(P_JSON, project);
	put(".threadmind/.gitignore", "config.json\n.lock\n*.tmp\n");
	put_owned(".threadmind/threads/p/main.md",
		  born("main", "null", "au", "2026-04-01T00:00:00.000Z", ""));
	tmt_sh("cd '%s' && git add -A && git commit -q -m base && "
	       "git branch yours && git checkout -q -b mine",
	       repo);
	put_owned(S_MD,
		  born("search", "main", "ana", "2026-04-15T10:00:00.000Z",
		       "\n## Decisions\n- ana's decision\n"));
	put_owned(UI_MD, born("search-ui", "search", "ana",
			      "2026-04-15T11:00:00.000Z", ""));
	tmt_sh("cd '%s' && git add -A && git commit -q -m mine && "
	       "git checkout -q yours",
	       repo);
	put_owned(S_MD,
		  born("search", "main", "bob", "2026-04-15T09:00:00.000Z",
		       "\n## Decisions\n- bob's decision\n"));
	put_owned(TU_MD, born("tuning", "search", "bob",
			      "2026-04-15T09:30:00.000Z", ""));
	tmt_sh("cd '%s' && git add -A && git commit -q -m yours && "
	       "git checkout -q %s",
	       repo, merge_into);
	put(".threadmind/config.json",
	    "{\"activeProjectId\": \"p\", \"activeThreadId\": \"search\"}\n");
	tmt_sh("cd '%s' && { git merge -q --no-edit %s >/dev/null 2>&1; "
	       "test $? -eq 1; }",
	       repo, other);
}

static void setup_mine(void)
{
	setup_two("mine");
}

static void setup_yours(void)
{
	setup_two("yours");
}

static char *staged(const char *rel)
{
	return tmt_sh_out("git -C '%s' show :%s", repo, rel);
}

/* The side already in the branch merged into (ours) keeps the id. */
static void check_split(bool ana_is_ours)
{
	const char *keeper = ana_is_ours ? "ana" : "bob";
	const char *mover = ana_is_ours ? "bob" : "ana";
	tm_resolve_report r;
	const tm_resolve_entry *e;
	char *s1, *s2, *ui, *tu, *left, *cfg, *line;

	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.op, TM_GIT_OP_MERGE);
	ck_assert_ptr_nonnull(e = entry(&r, S_MD));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_SPLIT);
	ck_assert_str_eq(e->new_id, "search-2");
	ck_assert_str_eq(e->new_path, S2_MD);
	ck_assert_str_eq(e->moved_side, "theirs");
	line = mt_printf("'Search' by %s", keeper);
	ck_assert_str_eq(e->kept_name, line);
	free(line);
	line = mt_printf("'Search' by %s", mover);
	ck_assert_str_eq(e->moved_name, line);
	free(line);
	ck_assert_uint_eq(e->repointed.n, 1);
	ck_assert_str_eq(e->repointed.items[0],
			 ana_is_ours ? "tuning" : "search-ui");
	s1 = staged(S_MD);
	s2 = staged(S2_MD);
	ui = staged(UI_MD);
	tu = staged(TU_MD);
	line = mt_printf("author: %s", keeper);
	ck_assert(mt_has_line(s1, line));
	free(line);
	line = mt_printf("- %s's decision", keeper);
	ck_assert(mt_has_line(s1, line));
	free(line);
	ck_assert(mt_has_line(s2, "id: search-2"));
	ck_assert(mt_has_line(s2, "title: Search"));
	line = mt_printf("author: %s", mover);
	ck_assert(mt_has_line(s2, line));
	free(line);
	line = mt_printf("- %s's decision", mover);
	ck_assert(mt_has_line(s2, line));
	free(line);
	ck_assert(mt_has_line(ana_is_ours ? tu : ui, "parentId: search-2"));
	ck_assert(mt_has_line(ana_is_ours ? ui : tu, "parentId: search"));
	left = unmerged();
	ck_assert_str_eq(left, "");
	/* no activeThreadIdentity, not a rebase: config.json stays */
	cfg = get(".threadmind/config.json");
	ck_assert_ptr_nonnull(strstr(cfg, "\"activeThreadId\": \"search\""));
	free(s1);
	free(s2);
	free(ui);
	free(tu);
	free(left);
	free(cfg);
	tm_resolve_report_clear(&r);
}

START_TEST(test_resolve_split_ours_later)
{
	check_split(true);
}
END_TEST

START_TEST(test_resolve_split_theirs_later)
{
	check_split(false);
}
END_TEST

/* config.json follows the renamed thread when it says that this clone
 * knows the id as that thread, and only then. */
START_TEST(test_resolve_split_config_follows_identity)
{
	tm_resolve_report r;
	char *cfg;

	/* merging bob's into ana's (mine): bob's is renamed; this clone's
	 * 'search' was bob's */
	put(".threadmind/config.json",
	    "{\"activeProjectId\": \"p\", \"activeThreadId\": \"search\", "
	    "\"activeThreadIdentity\": {\"project\": \"p\", \"id\": "
	    "\"search\", \"createdAt\": \"2026-04-15T09:00:00Z\", "
	    "\"author\": \"bob\"}, \"branchThreads\": {\"p\": {\"yours\": "
	    "\"search\"}}}\n");
	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_int_eq(r.items[0].outcome, TM_RESOLVE_SPLIT);
	cfg = get(".threadmind/config.json");
	ck_assert_ptr_nonnull(strstr(cfg, "\"activeThreadId\": \"search-2\""));
	ck_assert_ptr_nonnull(strstr(cfg, "\"yours\": \"search-2\""));
	ck_assert_ptr_nonnull(strstr(cfg, "\"id\": \"search-2\""));
	free(cfg);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_split_config_stays_for_the_kept)
{
	tm_resolve_report r;
	char *cfg;

	/* this clone's 'search' is ana's, which keeps the id */
	put(".threadmind/config.json",
	    "{\"activeProjectId\": \"p\", \"activeThreadId\": \"search\", "
	    "\"activeThreadIdentity\": {\"project\": \"p\", \"id\": "
	    "\"search\", \"createdAt\": \"2026-04-15T10:00:00.000Z\", "
	    "\"author\": \"ana\"}}\n");
	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_int_eq(r.items[0].outcome, TM_RESOLVE_SPLIT);
	cfg = get(".threadmind/config.json");
	ck_assert_ptr_nonnull(strstr(cfg, "\"activeThreadId\": \"search\""));
	ck_assert_ptr_null(strstr(cfg, "search-2"));
	free(cfg);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_split_next_free_suffix)
{
	tm_resolve_report r;

	/* search-2 is taken (staged): the later thread takes search-3 */
	put_owned(S2_MD, born("search-2", "main", "cy",
			      "2026-04-15T08:00:00.000Z", ""));
	tmt_sh("cd '%s' && git add '%s'", repo, S2_MD);
	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_int_eq(r.items[0].outcome, TM_RESOLVE_SPLIT);
	ck_assert_str_eq(r.items[0].new_id, "search-3");
	tm_resolve_report_clear(&r);
}
END_TEST

/*
 * After a split (DESIGN.md section 11): branch `split` gave 'search' to
 * carol's thread and moved ana's to 'search-2'; branch `edit` still edits
 * ana's thread as 'search'.  `variant` 1: `split` also edits ana's line,
 * so that the edit conflicts there; 2: `split` dropped ana's thread
 * instead of moving it.  `merge_into` is checked out and the other
 * branch merged with git's line merge.
 */
static void setup_follow(int variant, const char *merge_into)
{
	const char *other = strcmp(merge_into, "split") ? "split" : "edit";

	tmp = tmt_mkdtemp();
	repo = tmt_git_repo(tmp, "repo");
	put(P_JSON, project);
	put(".threadmind/.gitignore", "config.json\n.lock\n*.tmp\n");
	put_owned(".threadmind/threads/p/main.md",
		  born("main", "null", "au", "2026-04-01T00:00:00.000Z", ""));
	put_owned(S_MD,
		  born("search", "main", "ana", "2026-04-15T10:00:00.000Z",
		       variant == 1 ? "\n## State\nAna's prose.\n"
				    : "\n## Decisions\n- ana\n"));
	tmt_sh("cd '%s' && git add -A && git commit -q -m base && "
	       "git branch edit && git checkout -q -b split",
	       repo);
	if (variant != 2)
		put_owned(S2_MD,
			  born("search-2", "main", "ana",
			       "2026-04-15T10:00:00.000Z",
			       variant == 1
				       ? "\n## State\nAna's prose on split.\n"
				       : "\n## Decisions\n- ana\n"));
	put_owned(S_MD,
		  born("search", "main", "carol", "2026-04-15T09:00:00.000Z",
		       "\n## Decisions\n- carol\n"));
	tmt_sh("cd '%s' && git add -A && git commit -q -m split && "
	       "git checkout -q edit",
	       repo);
	put_owned(S_MD,
		  born("search", "main", "ana", "2026-04-15T10:00:00.000Z",
		       variant == 1 ? "\n## State\nAna's prose edited.\n"
				    : "\n## Decisions\n- ana\n"
				      "- ana more\n"));
	tmt_sh("cd '%s' && git commit -q -a -m edit && git checkout -q %s && "
	       "{ git merge -q --no-edit %s >/dev/null 2>&1; test $? -eq 1; }",
	       repo, merge_into, other);
}

static void setup_follow_split(void)
{
	setup_follow(0, "split");
}

static void setup_follow_edit(void)
{
	setup_follow(0, "edit");
}

static void setup_follow_conflict(void)
{
	setup_follow(1, "split");
}

static void setup_follow_gone(void)
{
	setup_follow(2, "split");
}

/* The edit went to ana's thread, 'search-2'; 'search' is carol's. */
static void check_followed(const char *edit_side)
{
	tm_resolve_report r;
	const tm_resolve_entry *e;
	char *s1, *s2, *left;

	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_ptr_nonnull(e = entry(&r, S_MD));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_FOLLOWED);
	ck_assert_str_eq(e->new_id, "search-2");
	ck_assert_str_eq(e->new_path, S2_MD);
	ck_assert_str_eq(e->moved_side, edit_side);
	ck_assert_str_eq(e->kept_name, "'Search' by carol");
	ck_assert_str_eq(e->moved_name, "'Search' by ana");
	ck_assert(!e->conflicted);
	s1 = staged(S_MD);
	s2 = staged(S2_MD);
	ck_assert(mt_has_line(s1, "author: carol"));
	ck_assert(mt_has_line(s1, "- carol"));
	ck_assert(!strstr(s1, "- ana"));
	ck_assert(mt_has_line(s2, "id: search-2"));
	ck_assert(mt_has_line(s2, "author: ana"));
	ck_assert(mt_has_line(s2, "- ana"));
	ck_assert(mt_has_line(s2, "- ana more"));
	ck_assert(!strstr(s2, "carol"));
	/* written as staged */
	tmt_sh("git -C '%s' diff --quiet -- '%s'", repo, S2_MD);
	left = unmerged();
	ck_assert_str_eq(left, "");
	free(s1);
	free(s2);
	free(left);
	tm_resolve_report_clear(&r);
}

START_TEST(test_resolve_follow_theirs_edit)
{
	check_followed("theirs");
}
END_TEST

START_TEST(test_resolve_follow_ours_edit)
{
	check_followed("ours");
}
END_TEST

START_TEST(test_resolve_follow_conflict_left_in_the_thread)
{
	tm_resolve_report r;
	const tm_resolve_entry *e;
	char *s1, *s2, *stages, *left;

	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_ptr_nonnull(e = entry(&r, S_MD));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_FOLLOWED);
	ck_assert(e->conflicted);
	s1 = staged(S_MD);
	ck_assert(mt_has_line(s1, "author: carol"));
	s2 = get(S2_MD);
	ck_assert(!mt_header_has_markers(s2, strlen(s2)));
	ck_assert(mt_has_line(s2, "Ana's prose on split."));
	ck_assert(mt_has_line(s2, "Ana's prose edited."));
	ck_assert(strstr(s2, "<<<<<<< ours") != NULL);
	/* the thread's own three versions wait in the index */
	stages = tmt_sh_out("git -C '%s' ls-files -u -- '%s' | "
			    "awk '{print $3}' | tr -d '\\n'",
			    repo, S2_MD);
	ck_assert_str_eq(stages, "123");
	left = unmerged();
	ck_assert_str_eq(left, S2_MD);
	tm_resolve_report_clear(&r);
	/* resolved again, it is one thread: the same conflict */
	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_ptr_nonnull(e = entry(&r, S2_MD));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_CONFLICTS);
	free(s1);
	free(s2);
	free(stages);
	free(left);
	tm_resolve_report_clear(&r);
}
END_TEST

START_TEST(test_resolve_follow_nowhere_splits)
{
	tm_resolve_report r;
	const tm_resolve_entry *e;
	char *s1, *s2;

	resolve(&r, NULL, TM_CONFLICT_STYLE_MERGE);
	ck_assert_ptr_nonnull(e = entry(&r, S_MD));
	ck_assert_int_eq(e->outcome, TM_RESOLVE_SPLIT);
	ck_assert_str_eq(e->new_id, "search-2");
	s1 = staged(S_MD);
	s2 = staged(S2_MD);
	ck_assert(mt_has_line(s1, "author: carol"));
	ck_assert(mt_has_line(s2, "author: ana"));
	ck_assert(mt_has_line(s2, "- ana more"));
	free(s1);
	free(s2);
	tm_resolve_report_clear(&r);
}
END_TEST

Suite *resolve_suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("index");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_resolve_clean_merge_is_staged);
	tcase_add_test(tc, test_resolve_conflict_left_unstaged);
	tcase_add_test(tc, test_resolve_other_files_ignored);
	tcase_add_test(tc, test_resolve_diff3_style_from_config);
	tcase_add_test(tc, test_resolve_named_paths_only);
	tcase_add_test(tc, test_resolve_named_path_without_conflict);
	tcase_add_test(tc, test_resolve_nothing_to_do);
	tcase_add_test(tc, test_resolve_pending_lists_conflicts);
	tcase_add_test(tc, test_resolve_pending_loaded_uses_the_load);
	tcase_add_test(tc, test_resolve_pending_index_without_libgit2);
	suite_add_tcase(s, tc);

	tc = tcase_create("split-mine");
	tcase_add_checked_fixture(tc, setup_mine, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_resolve_split_ours_later);
	tcase_add_test(tc, test_resolve_split_next_free_suffix);
	tcase_add_test(tc, test_resolve_split_config_follows_identity);
	tcase_add_test(tc, test_resolve_split_config_stays_for_the_kept);
	suite_add_tcase(s, tc);

	tc = tcase_create("split-yours");
	tcase_add_checked_fixture(tc, setup_yours, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_resolve_split_theirs_later);
	suite_add_tcase(s, tc);

	tc = tcase_create("follow-split");
	tcase_add_checked_fixture(tc, setup_follow_split, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_resolve_follow_theirs_edit);
	suite_add_tcase(s, tc);

	tc = tcase_create("follow-edit");
	tcase_add_checked_fixture(tc, setup_follow_edit, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_resolve_follow_ours_edit);
	suite_add_tcase(s, tc);

	tc = tcase_create("follow-conflict");
	tcase_add_checked_fixture(tc, setup_follow_conflict, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_resolve_follow_conflict_left_in_the_thread);
	suite_add_tcase(s, tc);

	tc = tcase_create("follow-gone");
	tcase_add_checked_fixture(tc, setup_follow_gone, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_resolve_follow_nowhere_splits);
	suite_add_tcase(s, tc);
	return s;
}
