/*
 * Unit tests of the staleness module (lib/stale/stale.c and the stale_*.c files
 * behind it): pathspecs as staleness matches them (also against git's own;
 * lib/format/pathspec.c has its own suite), the staleness of threads in
 * throwaway repositories built with the real git binary (compared with `git log
 * <commit>..HEAD -- <paths>`), and the one-commit check of the post-commit
 * hook.
 */
#include "threadmind/stale.h"
#include "stale_internal.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "threadmind/model.h"
#include "test_util.h"

#include <check.h>
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* git with a fixed identity and no surprises from the user's setup (nor
 * the `git maintenance run --auto` every commit would start). */
#define GIT                                                         \
	"git -c user.name=Tester -c user.email=tester@example.com " \
	"-c init.defaultBranch=main -c commit.gpgsign=false "       \
	"-c advice.detachedHead=false -c maintenance.auto=false "
#define TDIR ".threadmind/threads/p/"

static char *tmp;  /* the test's temp dir */
static char *repo; /* tmp/repo, an empty repository */
static long when;  /* the date of the next commit */

static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	ck_assert_int_ge(vasprintf(&s, fmt, ap), 0);
	return s;
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

static void setup(void)
{
	tmp = tmt_sandbox();
	repo = tmt_join(tmp, "repo");
	tmt_sh(GIT "init -q '%s'", repo);
	when = 1700000000;
}

static void teardown(void)
{
	tmt_sandbox_end(tmp);
	free(repo);
	tmp = repo = NULL;
}

/* Append a line to the file `rel` of `dir` (created with its folders). */
static void append(const char *dir, const char *rel, const char *line)
{
	char *path = tmt_join(dir, rel), *slash;
	FILE *f;

	slash = strrchr(path, '/');
	*slash = '\0';
	tmt_mkdirs(path);
	*slash = '/';
	f = fopen(path, "a");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", line);
	fclose(f);
	free(path);
}

/* Set the dates of the next commit (each commit one minute later). */
static void next_date(void)
{
	char date[32];

	when += 60;
	snprintf(date, sizeof(date), "%ld +0000", when);
	setenv("GIT_COMMITTER_DATE", date, 1);
	setenv("GIT_AUTHOR_DATE", date, 1);
}

/*
 * In `dir`, append `msg` to each file named after it (NULL-terminated), and
 * commit everything; returns the new commit's hash (malloc'd).
 */
static char *commit_in(const char *dir, const char *msg, ...)
{
	const char *file;
	va_list ap;

	va_start(ap, msg);
	while ((file = va_arg(ap, const char *)) != NULL)
		append(dir, file, msg);
	va_end(ap);
	next_date();
	return tmt_sh_out(GIT "-C '%s' add -A && " GIT
			      "-C '%s' commit -q --allow-empty -m '%s' && "
			      "git -C '%s' rev-parse HEAD",
			  dir, dir, msg, dir);
}

#define commit(...) commit_in(repo, __VA_ARGS__)

static char *rev(const char *spec)
{
	return tmt_sh_out("git -C '%s' rev-parse '%s'", repo, spec);
}

/* A thread with `id`, `commit` (or none), comma-separated `paths` (or
 * none: NULL) and a summary (a blank one is never stale). */
static tm_thread *mk(const char *id, const char *commit, const char *paths)
{
	static const char summary[] = "## Decisions\n- one\n";
	tm_thread *t = tm_thread_new();
	char *copy, *p, *save = NULL;

	tm_thread_set(&t->id, id);
	tm_thread_set(&t->commit, commit);
	tm_thread_set_summary(t, summary, strlen(summary));
	if (paths) {
		t->has_paths = true;
		copy = strdup(paths);
		for (p = strtok_r(copy, ",", &save); p;
		     p = strtok_r(NULL, ",", &save))
			tm_strv_push(&t->paths, p);
		free(copy);
	}
	return t;
}

static tm_git *open_repo(const char *dir)
{
	tm_git *g = NULL;

	ck_assert_msg(tm_git_open(&g, dir, false) == 0, "%s", tm_error_last());
	return g;
}

/* tm_stale_compute on `dir` for the n threads; must succeed. */
static void compute_in(tm_stale_report *r, const char *dir, tm_thread **ts,
		       size_t n)
{
	tm_git *g = open_repo(dir);

	ck_assert_msg(tm_stale_compute(r, g, TDIR, (const tm_thread *const *)ts,
				       n) == 0,
		      "%s", tm_error_last());
	tm_git_free(g);
}

static const tm_stale_entry *entry(const tm_stale_report *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->stale[i].id, id))
			return &r->stale[i];
	return NULL;
}

/* The strings of v joined with spaces (each in single quotes with
 * `quote`). */
static char *join(const tm_strv *v, bool quote)
{
	tm_buf b = TM_BUF_INIT;
	size_t i;
	char *s;

	for (i = 0; i < v->n; i++)
		tm_buf_printf(&b, quote ? "%s'%s'" : "%s%s", i ? " " : "",
			      v->items[i]);
	s = tm_buf_detach(&b);
	return s ? s : strdup("");
}

static char *joined(const tm_strv *v)
{
	return join(v, false);
}

/* Is `line` one of the lines of `text`? */
static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') &&
		    (p[len] == '\n' || p[len] == '\0'))
			return true;
		p++;
	}
	return false;
}

static void assert_changed(const tm_stale_entry *e, const char *want)
{
	char *got = joined(&e->changed);

	ck_assert_str_eq(got, want);
	free(got);
}

/* The paths commit c of `dir` changes against its first parent (a root or
 * shallow end: against nothing), under `paths` when not NULL. */
static char *first_parent_diff(const char *dir, const char *c,
			       const char *paths)
{
	return tmt_sh_out("cd '%s' && if git rev-parse -q --verify %s^1 "
			  ">/dev/null; then git diff --no-renames --name-only "
			  "%s^1 %s -- %s; else git diff-tree -r --root "
			  "--name-only --no-commit-id %s -- %s; fi",
			  dir, c, c, c, paths ? paths : "", c,
			  paths ? paths : "");
}

/*
 * What git says about thread t in `dir`: `git log <commit>..HEAD -- <paths>`
 * without the commits whose first-parent diff changes the thread's file;
 * the newest of them (or "") and the paths they change under <paths>
 * (sorted, space-separated).
 */
static void git_answer_range(const char *dir, const tm_thread *t,
			     const char *range, char **newest, char **changed)
{
	char *paths = join(&t->paths, true), *log, *c, *save = NULL, *diff;
	char *file = format(TDIR "%s.md", t->id);
	tm_strv all = TM_STRV_INIT;
	char *names, *p, *save2 = NULL;

	*newest = strdup("");
	log = tmt_sh_out("git -C '%s' log --format=%%H %s -- %s", dir, range,
			 paths);
	for (c = strtok_r(log, "\n", &save); c;
	     c = strtok_r(NULL, "\n", &save)) {
		diff = first_parent_diff(dir, c, NULL);
		if (has_line(diff, file)) {
			free(diff);
			continue;
		}
		free(diff);
		if (!**newest) {
			free(*newest);
			*newest = strdup(c);
		}
		names = first_parent_diff(dir, c, paths);
		for (p = strtok_r(names, "\n", &save2); p;
		     p = strtok_r(NULL, "\n", &save2))
			if (!tm_strv_contains(&all, p))
				tm_strv_push(&all, p);
		free(names);
	}
	tm_strv_sort(&all);
	*changed = joined(&all);
	tm_strv_clear(&all);
	free(log);
	free(file);
	free(paths);
}

static void git_answer(const char *dir, const tm_thread *t, char **newest,
		       char **changed)
{
	char *range = format("%s..HEAD", t->commit);

	git_answer_range(dir, t, range, newest, changed);
	free(range);
}

/* Every thread's report agrees with git_answer. */
static void assert_like_git(const char *dir, tm_thread **ts, size_t n)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;
	const tm_stale_entry *e;
	char *newest, *changed;
	size_t i, stale = 0;

	compute_in(&r, dir, ts, n);
	for (i = 0; i < n; i++) {
		git_answer(dir, ts[i], &newest, &changed);
		e = entry(&r, ts[i]->id);
		if (!*newest) {
			ck_assert_msg(e == NULL, "%s: stale, git says not",
				      ts[i]->id);
		} else {
			ck_assert_msg(e != NULL, "%s: not stale, git says %s",
				      ts[i]->id, newest);
			ck_assert_str_eq(e->newest, newest);
			assert_changed(e, changed);
			stale++;
		}
		free(newest);
		free(changed);
	}
	ck_assert_uint_eq(r.n, stale);
	tm_stale_report_clear(&r);
}

static void free_threads(tm_thread **ts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		tm_thread_free(ts[i]);
}

#define N(a) (sizeof(a) / sizeof(*(a)))

/* ---- pathspecs ---- */

START_TEST(test_stale_pathspec_table)
{
	static const struct {
		const char *spec, *path;
		bool match;
	} cases[] = {
		{"src/auth", "src/auth", true},
		{"src/auth", "src/auth/login.c", true},
		{"src/auth", "src/auth/deep/x.c", true},
		{"src/auth", "src/auth.c", false},
		{"src/auth", "src/authx/a.c", false},
		{"src/auth", "src", false},
		{"src/auth/", "src/auth/login.c", true},
		{"src/auth/", "src/auth", false},
		{"src/auth2/", "src/auth2", false},
		{"src", "src/a.h", true},
		{"sr", "src/a.h", false},
		{".", "anything/at/all", true},
		{"", "top.txt", true},
		{"./", "top.txt", true},
		{"./src/auth", "src/auth/a.c", true},
		{"src//auth", "src/auth/a.c", true},
		{"src/./a.h", "src/a.h", true},
		{"src/auth/../a.h", "src/a.h", true},
		{"../src", "src/a.h", false},
		{"/src", "src/a.h", true},
		{"*.c", "src/auth/a.c", true},
		{"*.c", "src/a.h", false},
		{"src/*.c", "src/auth/sub/b.c", true},
		{"src/au*", "src/auth2", true},
		{"src/au?h", "src/auth/a.c", false},
		{"src?auth/a.c", "src/auth/a.c", true},
		{"[s]rc", "src/a.h", false},
		{"src/[ab].*", "src/a.h", true},
		{"src/[ab].*", "src/c.h", false},
		{"src/[a-b]*", "src/b.txt", true},
		{"[!d]*", "docs/x.md", false},
		{"[^d]*", "top.txt", true},
		{"[[:alpha:]]op*", "top.txt", true},
		{"[[:digit:]]op*", "top.txt", false},
		{"[[:nope:]]*", "top.txt", false},
		{"[abc", "a", false},
		{"*/sub/*", "src/auth/sub/b.c", true},
		{"**/b.c", "src/auth/sub/b.c", true},
		{"src/auth/**", "src/auth/a.c", true},
		{"src/a*/", "src/auth/a.c", false},
		{"we*ird", "we*ird", true},
		{"we\\*ird", "we*ird", true},
		{"we\\*ird", "weXird", false},
		{"top.tx?", "top.txt", true},
		{"top.txt*", "top.txt", true},
		{"a*b*c*d", "aXbYcZd", true},
		{"a*b*c*d", "aXbYcZ", false},
		{"dir[1]", "dir[1]/x", true},
	};
	size_t i;

	for (i = 0; i < N(cases); i++)
		ck_assert_msg(tm_pathspec_match(cases[i].spec, cases[i].path) ==
				      cases[i].match,
			      "'%s' on '%s': want %d", cases[i].spec,
			      cases[i].path, cases[i].match);
	ck_assert(!tm_pathspec_match(NULL, "a"));
	ck_assert(!tm_pathspec_match("a", NULL));
}
END_TEST

/* For each spec, the files git log lists are the files we match. */
START_TEST(test_stale_pathspec_like_git)
{
	static const char *const files[] = {
		"src/auth/a.c", "src/auth/sub/b.c", "src/authx/c.c",
		"src/auth.c",   "src/auth2",        "src/a.h",
		"src/b.txt",    "docs/x.md",        "top.txt",
		"we*ird",       "dir[1]/x",         "a b/c d.txt",
	};
	static const char *const specs[] = {
		"src/auth", "src/auth/", "src/au?h",   "src/au*",    "src/*.c",
		"*.c",      "src/auth*", "[s]rc",      "src/[ab].*", "we*ird",
		"we\\*ird", ".",         "src/auth2/", "src/",       "sr",
		"*",        "*/b.c",     "src/*/b.c",  "[!d]*",      "top.tx?",
		"dir[1]",   "a b",       "?/x",        "src/a*/",
	};
	size_t i, k;
	char *list;

	for (i = 0; i < N(files); i++)
		append(repo, files[i], "x");
	next_date();
	tmt_sh(GIT "-C '%s' add -A && " GIT "-C '%s' commit -q -m all", repo,
	       repo);
	for (i = 0; i < N(specs); i++) {
		list = tmt_sh_out(
			"git -C '%s' log --root --format= --name-only "
			"-z -- '%s' | tr '\\0' '\\n' | sort",
			repo, specs[i]);
		for (k = 0; k < N(files); k++) {
			bool in_git = has_line(list, files[k]);

			ck_assert_msg(tm_pathspec_match(specs[i], files[k]) ==
					      in_git,
				      "'%s' on '%s': git says %d", specs[i],
				      files[k], in_git);
		}
		free(list);
	}
}
END_TEST

/* ---- staleness ---- */

START_TEST(test_stale_not_stale_then_stale)
{
	char *base, *c2, *c3;
	tm_thread *ts[1];
	tm_stale_report r = TM_STALE_REPORT_INIT;
	const tm_stale_entry *e;

	base = commit("base", "src/auth/a.c", "docs/readme", NULL);
	ts[0] = mk("auth", base, "src/auth");
	c2 = commit("docs only", "docs/readme", "src/authx/y.c", NULL);
	compute_in(&r, repo, ts, 1);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_uint_eq(r.unknown_base.n, 0);
	tm_stale_report_clear(&r);

	c3 = commit("auth change", "src/auth/b.c", "src/auth/deep/c.c",
		    "docs/readme", NULL);
	compute_in(&r, repo, ts, 1);
	ck_assert_uint_eq(r.n, 1);
	e = &r.stale[0];
	ck_assert_str_eq(e->id, "auth");
	ck_assert_str_eq(e->commit, base);
	ck_assert_uint_eq(e->paths.n, 1);
	ck_assert_str_eq(e->paths.items[0], "src/auth");
	assert_changed(e, "src/auth/b.c src/auth/deep/c.c");
	ck_assert_str_eq(e->newest, c3);
	tm_stale_report_clear(&r);
	tm_stale_report_clear(&r); /* twice is harmless */
	tm_stale_report_clear(NULL);

	/* re-anchored at HEAD: fresh again */
	tm_thread_set(&ts[0]->commit, c3);
	compute_in(&r, repo, ts, 1);
	ck_assert_uint_eq(r.n, 0);
	tm_stale_report_clear(&r);
	assert_like_git(repo, ts, 1);
	free_threads(ts, 1);
	free(base);
	free(c2);
	free(c3);
}
END_TEST

START_TEST(test_stale_thread_file_covers_commit)
{
	char *base, *c2, *c3;
	tm_thread *ts[2];
	tm_stale_report r = TM_STALE_REPORT_INIT;
	const tm_stale_entry *e;

	base = commit("base", "src/a.c", TDIR "t1.md", TDIR "t2.md", NULL);
	ts[0] = mk("t1", base, "src");
	ts[1] = mk("t2", base, "src");
	/* code and t1's summary together: covers t1, not t2 */
	c2 = commit("code + t1 summary", "src/a.c", TDIR "t1.md", NULL);
	compute_in(&r, repo, ts, 2);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_ptr_null(entry(&r, "t1"));
	e = entry(&r, "t2");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->newest, c2);
	assert_changed(e, "src/a.c");
	tm_stale_report_clear(&r);

	/* then code alone: t1 is stale for that commit only */
	c3 = commit("more code", "src/b.c", NULL);
	compute_in(&r, repo, ts, 2);
	ck_assert_uint_eq(r.n, 2);
	e = entry(&r, "t1");
	ck_assert_str_eq(e->newest, c3);
	assert_changed(e, "src/b.c");
	e = entry(&r, "t2");
	ck_assert_str_eq(e->newest, c3);
	assert_changed(e, "src/a.c src/b.c");
	tm_stale_report_clear(&r);
	assert_like_git(repo, ts, 2);
	free_threads(ts, 2);
	free(base);
	free(c2);
	free(c3);
}
END_TEST

/* Without threads_dir, no commit covers a thread. */
START_TEST(test_stale_no_threads_dir)
{
	char *base = commit("base", "src/a.c", NULL);
	char *c2 = commit("both", "src/a.c", TDIR "t1.md", NULL);
	tm_thread *t = mk("t1", base, "src");
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_git *g = open_repo(repo);

	ck_assert_int_eq(
		tm_stale_compute(&r, g, NULL, (const tm_thread *const *)&t, 1),
		0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.stale[0].newest, c2);
	tm_stale_report_clear(&r);
	tm_git_free(g);
	tm_thread_free(t);
	free(base);
	free(c2);
}
END_TEST

START_TEST(test_stale_shared_commits)
{
	char *a, *b, *c, *d;
	tm_thread *ts[5];
	tm_stale_report r = TM_STALE_REPORT_INIT;

	a = commit("a", "src/x.c", "lib/y.c", "doc/z.md", NULL);
	b = commit("b", "src/x.c", NULL);
	c = commit("c", "lib/y.c", "doc/z.md", NULL);
	d = commit("d", "src/new.c", "lib/y.c", NULL);
	ts[0] = mk("one", a, "src");
	ts[1] = mk("two", a, "src,lib");
	ts[2] = mk("three", b, "src/x.c,doc");
	ts[3] = mk("four", c, "lib/y.c");
	ts[4] = mk("five", d, "src,lib,doc");
	compute_in(&r, repo, ts, 5);
	/* in the order of the threads given */
	ck_assert_uint_eq(r.n, 4);
	ck_assert_str_eq(r.stale[0].id, "one");
	ck_assert_str_eq(r.stale[1].id, "two");
	ck_assert_str_eq(r.stale[2].id, "three");
	ck_assert_str_eq(r.stale[3].id, "four");
	assert_changed(&r.stale[0], "src/new.c src/x.c");
	ck_assert_str_eq(r.stale[0].newest, d);
	assert_changed(&r.stale[1], "lib/y.c src/new.c src/x.c");
	assert_changed(&r.stale[2], "doc/z.md");
	ck_assert_str_eq(r.stale[2].newest, c);
	assert_changed(&r.stale[3], "lib/y.c");
	ck_assert_str_eq(r.stale[3].newest, d);
	tm_stale_report_clear(&r);
	assert_like_git(repo, ts, 5);
	free_threads(ts, 5);
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

START_TEST(test_stale_unknown_base)
{
	char *a = commit("a", "src/x.c", NULL);
	char *b = commit("b", "src/x.c", NULL);
	char *tree = rev("HEAD^{tree}");
	char upper[41];
	tm_thread *ts[6];
	tm_stale_report r = TM_STALE_REPORT_INIT;
	size_t i;

	for (i = 0; i < 41; i++)
		upper[i] = (char)(a[i] >= 'a' ? a[i] - 'a' + 'A' : a[i]);
	ts[0] = mk("zeta", "0123456789abcdef0123456789abcdef01234567", "src");
	ts[1] = mk("alpha", "abc123", "src");
	ts[2] = mk("tree", tree, "src");
	ts[3] = mk("upper", upper, "src");
	ts[4] = mk("fine", b, "src");
	ts[5] = mk("junk", "not a commit at all, no no no no no no no", "src");
	compute_in(&r, repo, ts, 6);
	ck_assert_uint_eq(r.unknown_base.n, 4);
	ck_assert_str_eq(r.unknown_base.items[0], "alpha");
	ck_assert_str_eq(r.unknown_base.items[1], "junk");
	ck_assert_str_eq(r.unknown_base.items[2], "tree");
	ck_assert_str_eq(r.unknown_base.items[3], "zeta");
	/* an upper-case hash is the same commit */
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.stale[0].id, "upper");
	ck_assert_str_eq(r.stale[0].newest, b);
	tm_stale_report_clear(&r);
	free_threads(ts, 6);
	free(tree);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_stale_never_stale)
{
	char *a = commit("a", "src/x.c", NULL);
	char *b = commit("b", "src/x.c", NULL);
	tm_thread *ts[6];
	tm_stale_report r = TM_STALE_REPORT_INIT;

	ts[0] = mk("no-paths", a, NULL);
	ts[1] = mk("empty-paths", a, "");
	ts[2] = mk("no-commit", NULL, "src");
	ts[3] = mk("done", a, "src");
	tm_thread_set(&ts[3]->status, TM_STATUS_DONE);
	ts[4] = mk("abandoned", "0123456789abcdef0123456789abcdef01234567",
		   "src");
	tm_thread_set(&ts[4]->status, TM_STATUS_ABANDONED);
	ts[5] = mk("odd-status", a, "src");
	tm_thread_set(&ts[5]->status, "paused");
	ck_assert(ts[1]->has_paths && ts[1]->paths.n == 0);
	compute_in(&r, repo, ts, 6);
	/* an unknown status is not finished: it counts */
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.stale[0].id, "odd-status");
	ck_assert_uint_eq(r.unknown_base.n, 0);
	tm_stale_report_clear(&r);
	free_threads(ts, 6);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_stale_newest_commit)
{
	char *base = commit("base", "app/main.c", NULL);
	char *c1 = commit("one", "app/one.c", NULL);
	char *c2 = commit("two", "app/two.c", NULL);
	char *c3 = commit("other", "README", NULL);
	tm_thread *t = mk("app", base, "app");
	tm_stale_report r = TM_STALE_REPORT_INIT;

	compute_in(&r, repo, &t, 1);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.stale[0].newest, c2);
	assert_changed(&r.stale[0], "app/one.c app/two.c");
	tm_stale_report_clear(&r);
	assert_like_git(repo, &t, 1);
	tm_thread_free(t);
	free(base);
	free(c1);
	free(c2);
	free(c3);
}
END_TEST

/* The histories of the merges below, as `git log --graph` draws them. */
START_TEST(test_stale_merges_like_git)
{
	char *root, *fork, *s1, *s2, *m1, *m2, *f1, *m3, *o1;
	tm_thread *ts[9];

	root = commit("root", "src/a.c", "lib/b.c", "doc/c.md", NULL);
	fork = commit("fork", "src/a.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q -b side", repo);
	s1 = commit("s1", "lib/b.c", NULL);
	s2 = commit("s2", "lib/side.c", "doc/c.md", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	free(commit("main work", "src/a.c", NULL));
	/* a plain merge bringing side's changes */
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --no-edit --no-ff side", repo);
	m1 = rev("HEAD");
	/* a branch that is merged but whose changes are thrown away */
	tmt_sh(GIT "-C '%s' checkout -q -b discard", repo);
	f1 = commit("f1", "lib/b.c", "src/a.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --no-edit -s ours discard", repo);
	m2 = rev("HEAD");
	/* an old branch merged late, with a conflict resolved by hand */
	tmt_sh(GIT "-C '%s' checkout -q -b old %s", repo, fork);
	o1 = commit("o1", "src/a.c", "lib/old.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --no-edit old >/dev/null 2>&1 || "
		   "(echo resolved >'%s/src/a.c' && " GIT
		   "-C '%s' add -A && " GIT "-C '%s' commit -q --no-edit)",
	       repo, repo, repo, repo);
	m3 = rev("HEAD");
	free(commit("after", "doc/c.md", NULL));

	ts[0] = mk("from-root", root, "src,lib,doc");
	ts[1] = mk("lib-from-fork", fork, "lib");
	ts[2] = mk("on-side", s1, "lib,doc");
	ts[3] = mk("side-tip", s2, "src");
	ts[4] = mk("discarded", f1, "lib/b.c");
	ts[5] = mk("at-m1", m1, "src/a.c,lib");
	ts[6] = mk("at-m2", m2, "src");
	ts[7] = mk("old-branch", o1, "src,lib/old.c");
	ts[8] = mk("at-m3", m3, "doc");
	assert_like_git(repo, ts, 9);
	free_threads(ts, 9);
	free(root);
	free(fork);
	free(s1);
	free(s2);
	free(m1);
	free(m2);
	free(f1);
	free(m3);
	free(o1);
}
END_TEST

/*
 * A merge that keeps one parent's content is followed through that parent
 * only when git's walk still takes it for a relevant one: a parent that git
 * has already found to be reachable from the base (the base's parent, or an
 * ancestor of a base newer than the merge) does not count.
 */
START_TEST(test_stale_merge_parent_relevance)
{
	char *p0, *s1, *s2, *base_far, *base_late, *base_near;
	tm_thread *ts[4];
	tm_stale_report r = TM_STALE_REPORT_INIT;

	free(commit("root", "src/a.c", "doc/d.md", NULL));
	p0 = commit("p0", "src/a.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q -b side", repo);
	s1 = commit("s1", "src/a.c", NULL);
	base_far = commit("s2", "doc/d.md", NULL);
	s2 = commit("s3", "doc/d.md", NULL);
	tmt_sh(GIT "-C '%s' checkout -q -b near %s", repo, p0);
	base_near = commit("n1", "doc/d.md", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --no-edit -s ours side", repo);
	tmt_sh(GIT "-C '%s' checkout -q -b late %s", repo, p0);
	free(commit("q1", "doc/d.md", NULL));
	base_late = commit("q2", "doc/d.md", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);

	ts[0] = mk("far", base_far, "src");   /* git: not stale */
	ts[1] = mk("late", base_late, "src"); /* git: the merge */
	ts[2] = mk("near", base_near, "src"); /* git: the merge */
	ts[3] = mk("side", s2, "src");        /* git: not stale */
	compute_in(&r, repo, ts, 4);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_str_eq(r.stale[0].id, "late");
	ck_assert_str_eq(r.stale[1].id, "near");
	tm_stale_report_clear(&r);
	assert_like_git(repo, ts, 4);
	free_threads(ts, 4);
	free(p0);
	free(s1);
	free(s2);
	free(base_far);
	free(base_late);
	free(base_near);
}
END_TEST

/* A merge that only takes one side has nothing new of its own. */
START_TEST(test_stale_merge_of_feature)
{
	char *base, *f1, *m;
	tm_thread *ts[2];
	tm_stale_report r = TM_STALE_REPORT_INIT;

	free(commit("root", "src/a.c", NULL));
	tmt_sh(GIT "-C '%s' checkout -q -b feature", repo);
	base = commit("feature work + summary", "src/a.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	f1 = commit("unrelated on main", "README", NULL);
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --no-edit feature", repo);
	m = rev("HEAD");
	ts[0] = mk("feature", base, "src");
	ts[1] = mk("main", f1, "src");
	compute_in(&r, repo, ts, 2);
	/* the merge brought nothing new to the feature's thread, but src/a.c
	 * changed for a thread anchored on main */
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.stale[0].id, "main");
	tm_stale_report_clear(&r);
	assert_like_git(repo, ts, 2);
	free_threads(ts, 2);
	free(base);
	free(f1);
	free(m);
}
END_TEST

/* The paths of merge `m`'s diff against its parent k in the index of
 * `dir`, one per line. */
static char *merge_slot(const char *dir, const char *m, uint32_t k)
{
	struct tm_stale_cidx ix;
	git_repository *gr = NULL;
	git_oid oid;
	const uint32_t *diff;
	uint32_t pos, n, i;
	tm_buf b = TM_BUF_INIT;

	ck_assert_int_eq(git_repository_open(&gr, dir), 0);
	tm_stale__cidx_open(&ix, gr);
	ck_assert_int_eq(git_oid_fromstr(&oid, m), 0);
	ck_assert(tm_stale__cidx_find(&ix, &oid, &pos));
	n = tm_stale__cidx_diff(&ix, pos, k, &diff);
	for (i = 0; i < n; i++)
		tm_buf_printf(&b, "%s%s", i ? "\n" : "",
			      tm_stale__cidx_name(&ix, diff[i]));
	tm_stale__cidx_free(&ix);
	git_repository_free(gr);
	return b.ptr ? tm_buf_detach(&b) : strdup("");
}

/* The answer of the threads of test_stale_merge_against_other_parent (n:
 * 6, or 7 with the one that is never stale). */
static void assert_merge_answer(tm_thread **ts, size_t n, const char *m)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;

	compute_in(&r, repo, ts, n);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_str_eq(r.stale[0].id, "folder");
	ck_assert_str_eq(r.stale[0].newest, m);
	ck_assert_str_eq(r.stale[1].id, "glob");
	ck_assert_str_eq(r.stale[2].id, "top");
	tm_stale_report_clear(&r);
	assert_like_git(repo, ts, n);
}

/*
 * A merge whose content differs from both parents under a thread's paths
 * is shown for it; one with its other parent's content there is not.  The
 * index holds a merge's diff against its other parent as far as the
 * threads its first-parent diff touches need it (here: dir/ and dir/sub/
 * opened, other/ not), when the build has just read that parent's trees;
 * else "/" ("maybe anything").  Either way the answer is git's: from an
 * index built for other threads or without that diff, the computation
 * diffs the two trees as far as these threads' paths need
 * (stale_history.c, refine).
 */
START_TEST(test_stale_merge_against_other_parent)
{
	char *root, *tip, *m, *slot;
	tm_thread *ts[7], *elsewhere;
	tm_stale_report r = TM_STALE_REPORT_INIT;

	root = commit("root", "dir/a.txt", "dir/b.txt", "dir/sub/c.txt",
		      "top.c", "other/d.txt", NULL);
	tmt_sh(GIT "-C '%s' checkout -q -b topic", repo);
	tip = commit("topic", "dir/a.txt", "dir/sub/c.txt", "top.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	free(commit("main", "top.c", "other/d.txt", NULL));
	next_date();
	/* resolved by hand, and an edit of dir/b.txt in the merge itself */
	tmt_sh(GIT "-C '%s' merge -q --no-edit topic >/dev/null 2>&1; "
		   "echo both >'%s/top.c' && echo evil >>'%s/dir/b.txt' && " GIT
		   "-C '%s' add -A && " GIT "-C '%s' commit -q --no-edit",
	       repo, repo, repo, repo, repo);
	m = rev("HEAD");
	ts[0] = mk("folder", tip, "dir");     /* the merge: b.txt */
	ts[1] = mk("file", tip, "dir/a.txt"); /* the topic's content */
	ts[2] = mk("glob", tip, "dir/b*");    /* the merge */
	ts[3] = mk("deep", tip, "dir/sub");   /* the topic's content */
	ts[4] = mk("deep-glob", tip, "dir/s*/c.txt");
	ts[5] = mk("top", tip, "top.c"); /* main's commit, the merge */
	/* never stale, but from the root: the topic's tip is described too */
	ts[6] = mk("from-root", root, "nowhere");

	/* an index built for a thread the merge does not touch: "/" */
	elsewhere = mk("elsewhere", root, "nowhere");
	compute_in(&r, repo, &elsewhere, 1);
	ck_assert_uint_eq(r.n, 0);
	tm_stale_report_clear(&r);
	slot = merge_slot(repo, m, 1);
	ck_assert_str_eq(slot, "/");
	free(slot);
	assert_merge_answer(ts, 7, m);

	/* the topic's tip is not described (every base reaches it): "/" */
	tmt_sh("rm -rf '%s/.git/threadmind'", repo);
	assert_merge_answer(ts, 6, m);
	slot = merge_slot(repo, m, 1);
	ck_assert_str_eq(slot, "/");
	free(slot);

	/* built for these threads: what they need, other/ left a prefix */
	tmt_sh("rm -rf '%s/.git/threadmind'", repo);
	assert_merge_answer(ts, 7, m);
	slot = merge_slot(repo, m, 1);
	ck_assert_str_eq(slot, "dir/b.txt\nother/\ntop.c");
	free(slot);
	slot = merge_slot(repo, m, 0);
	ck_assert_str_eq(slot, "dir/a.txt\ndir/b.txt\ndir/sub/c.txt\ntop.c");
	free(slot);

	free_threads(ts, 7);
	free_threads(&elsewhere, 1);
	free(root);
	free(tip);
	free(m);
}
END_TEST

START_TEST(test_stale_shallow_clone)
{
	char *clone = tmt_join(tmp, "clone");
	char *url, *a, *b, *c, *s1, *s2, *head;
	tm_thread *ts[4];
	tm_stale_report r = TM_STALE_REPORT_INIT;

	free(commit("root", "src/x.c", "doc/y.md", NULL));
	a = commit("a", "src/x.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q -b side", repo);
	s1 = commit("s1", "doc/y.md", NULL);
	s2 = commit("s2", "doc/y.md", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	b = commit("b", "src/x.c", NULL);
	c = commit("c", "src/z.c", NULL);
	url = format("file://%s", repo);

	/* depth 1: HEAD only */
	tmt_sh(GIT "clone -q --depth 1 '%s' '%s'", url, clone);
	ts[0] = mk("at-head", c, "src");
	ts[1] = mk("before", b, "src");
	ts[2] = mk("far", a, "src");
	compute_in(&r, clone, ts, 3);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_uint_eq(r.unknown_base.n, 2);
	ck_assert_str_eq(r.unknown_base.items[0], "before");
	ck_assert_str_eq(r.unknown_base.items[1], "far");
	tm_stale_report_clear(&r);
	free_threads(ts, 3);
	tmt_sh("rm -rf '%s'", clone);

	/* depth 2 on every branch: b and s1 are shallow (parentless) ends */
	tmt_sh(GIT "clone -q --depth 2 --no-single-branch '%s' '%s'", url,
	       clone);
	head = tmt_sh_out("git -C '%s' rev-parse HEAD", clone);
	ck_assert_str_eq(head, c);
	ts[0] = mk("from-b", b, "src");
	ts[1] = mk("from-side", s2, "src,doc");
	ts[2] = mk("at-c", c, "src");
	ts[3] = mk("missing", a, "src");
	compute_in(&r, clone, ts, 4);
	ck_assert_uint_eq(r.unknown_base.n, 1);
	ck_assert_str_eq(r.unknown_base.items[0], "missing");
	ck_assert_ptr_nonnull(entry(&r, "from-b"));
	ck_assert_str_eq(entry(&r, "from-b")->newest, c);
	assert_changed(entry(&r, "from-b"), "src/z.c");
	/* b counts whole, as git shows a shallow end: against nothing */
	ck_assert_ptr_nonnull(entry(&r, "from-side"));
	assert_changed(entry(&r, "from-side"), "doc/y.md src/x.c src/z.c");
	ck_assert_ptr_null(entry(&r, "at-c"));
	tm_stale_report_clear(&r);
	assert_like_git(clone, ts, 3);
	free_threads(ts, 4);
	free(head);
	free(url);
	free(clone);
	free(a);
	free(b);
	free(c);
	free(s1);
	free(s2);
}
END_TEST

START_TEST(test_stale_unborn_head)
{
	char *a = commit("a", "src/x.c", NULL);
	tm_thread *ts[2];
	tm_stale_report r = TM_STALE_REPORT_INIT;

	tmt_sh(GIT "-C '%s' checkout -q --orphan fresh", repo);
	ts[0] = mk("known", a, "src");
	ts[1] = mk("unknown", "0123456789abcdef0123456789abcdef01234567",
		   "src");
	compute_in(&r, repo, ts, 2);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_uint_eq(r.unknown_base.n, 1);
	ck_assert_str_eq(r.unknown_base.items[0], "unknown");
	tm_stale_report_clear(&r);
	free_threads(ts, 2);
	free(a);
}
END_TEST

/* Many threads, many commits: the single walk agrees with git log. */
START_TEST(test_stale_many_threads_like_git)
{
	static const char *const files[] = {"a/x.c", "a/y.c", "b/z.c", "c/w.c",
					    "d/v.c"};
	static const char *const specs[] = {"a", "b",        "a/x.c,c", "*.c",
					    "d", "a/,b/z.c", "c/w.c",   "e"};
	char *hashes[24];
	tm_thread *ts[24];
	char id[16];
	size_t i;

	for (i = 0; i < N(hashes); i++) {
		char msg[16];

		snprintf(msg, sizeof(msg), "c%zu", i);
		if (i == 12)
			tmt_sh(GIT "-C '%s' checkout -q -b topic HEAD~3", repo);
		if (i == 18) {
			tmt_sh(GIT "-C '%s' checkout -q main", repo);
			next_date();
			tmt_sh(GIT
			       "-C '%s' merge -q --no-edit topic >/dev/null "
			       "2>&1 || (" GIT "-C '%s' checkout -q --theirs . "
			       "&& " GIT "-C '%s' add -A && " GIT
			       "-C '%s' commit -q --no-edit)",
			       repo, repo, repo, repo);
		}
		hashes[i] = commit_in(repo, msg, files[i % N(files)],
				      files[(i * 3 + 1) % N(files)],
				      i % 4 == 0 ? TDIR "t3.md" : NULL, NULL);
	}
	for (i = 0; i < N(ts); i++) {
		snprintf(id, sizeof(id), "t%zu", i);
		ts[i] = mk(id, hashes[(i * 7) % N(hashes)],
			   specs[i % N(specs)]);
	}
	assert_like_git(repo, ts, N(ts));
	free_threads(ts, N(ts));
	for (i = 0; i < N(hashes); i++)
		free(hashes[i]);
}
END_TEST

/* ---- review points (DESIGN.md section 11) ---- */

static unsigned long long rnd_state;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rnd_state >> 33) % n);
}

/* Write thread `id`'s file in `dir` as a version reviewed at `commit`. */
static void write_thread(const char *dir, const char *id, const char *commit,
			 int n)
{
	char *rel = format(TDIR "%s.md", id), *path = tmt_join(dir, rel);
	FILE *f;

	append(dir, rel, "");
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"---\nid: %s\ntitle: T %s\nstatus: active\ncommit: %s\n---\n"
		"## Summary\nversion %d\n",
		id, id, commit, n);
	fclose(f);
	free(path);
	free(rel);
}

/*
 * The review points of thread t in `dir`, computed with git alone: the
 * `commit` of each version of its file in a commit reachable from HEAD
 * (`git rev-list HEAD`, `git cat-file`), and the thread's own; as
 * " --not R1 R2 ..." after HEAD, for git log.
 */
static char *git_review_range(const char *dir, const tm_thread *t)
{
	char *points = tmt_sh_out(
		"cd '%s' && git rev-list HEAD | sed 's|$|:" TDIR "%s.md|' | "
		"git cat-file --batch-check='%%(objectname)' | "
		"grep -E '^[0-9a-f]{40}$' | sort -u | "
		"git cat-file --batch | sed -n 's/^commit: //p' | sort -u | "
		"tr '\\n' ' '",
		dir, t->id);
	char *range = format("HEAD --not %s %s", t->commit, points);

	free(points);
	return range;
}

/* The report agrees with git: `git log HEAD --not <review points> --
 * <paths>` without the commits that change the thread's file; the newest
 * is an ancestor of no review point (`git merge-base --is-ancestor`). */
static void assert_reviewed_like_git(const char *dir, tm_thread **ts, size_t n)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;
	const tm_stale_entry *e;
	char *newest, *changed, *range, *bad;
	size_t i, stale = 0;

	compute_in(&r, dir, ts, n);
	for (i = 0; i < n; i++) {
		range = git_review_range(dir, ts[i]);
		git_answer_range(dir, ts[i], range, &newest, &changed);
		e = entry(&r, ts[i]->id);
		if (!*newest) {
			ck_assert_msg(e == NULL, "%s: stale (%s), git says not",
				      ts[i]->id, e ? e->newest : "");
		} else {
			ck_assert_msg(e != NULL, "%s: not stale, git says %s",
				      ts[i]->id, newest);
			ck_assert_str_eq(e->newest, newest);
			assert_changed(e, changed);
			bad = tmt_sh_out(
				"cd '%s' && for r in %s; do git merge-base "
				"--is-ancestor %s $r && echo $r; done; true",
				dir, range + strlen("HEAD --not "), newest);
			ck_assert_msg(!*bad, "%s: %s is reviewed by %s",
				      ts[i]->id, newest, bad);
			free(bad);
			stale++;
		}
		free(range);
		free(newest);
		free(changed);
	}
	ck_assert_uint_eq(r.n, stale);
	tm_stale_report_clear(&r);
}

static const char *const rnd_files[] = {"a/x.c", "a/y.c", "b/z.c", "c/w.c"};
static const char *const rnd_specs[] = {"a", "b,c/w.c", "a/x.c", "*.c"};
#define RND_THREADS 4

/*
 * A seeded random history in `repo` (made anew): commits changing code and
 * thread files (each version reviewed at the HEAD of its time), branches
 * and merges.  Its commits into hashes (at most 64, malloc'd), and threads
 * on rnd_specs with random commits of it into ts.
 */
static size_t random_history(unsigned seed, char **hashes, tm_thread **ts)
{
	char *head, *branch, id[8];
	size_t nh = 0, i, nbranches = 1, step;
	unsigned a;

	tmt_sh("rm -rf '%s' && " GIT "init -q '%s'", repo, repo);
	rnd_state = seed;
	hashes[nh++] = commit("root", rnd_files[0], rnd_files[2], NULL);
	for (step = 0; step < 36 && nh < 64; step++) {
		a = rnd(10);
		if (a < 6) {
			head = rev("HEAD");
			append(repo, rnd_files[rnd(N(rnd_files))], "x");
			if (rnd(2))
				append(repo, rnd_files[rnd(N(rnd_files))], "y");
			if (rnd(10) < 4) {
				snprintf(id, sizeof(id), "t%u",
					 rnd(RND_THREADS));
				write_thread(repo, id, head, (int)step);
			}
			free(head);
			hashes[nh++] = commit("work", NULL);
		} else if (a < 8) {
			branch = format("b%zu", nbranches++);
			tmt_sh(GIT "-C '%s' checkout -q -b %s %s", repo, branch,
			       hashes[rnd((unsigned)nh)]);
			free(branch);
		} else {
			i = rnd((unsigned)nbranches);
			branch = i ? format("b%zu", i) : strdup("main");
			next_date();
			tmt_sh(GIT "-C '%s' merge -q --no-edit %s >/dev/null "
				   "2>&1 || (" GIT
				   "-C '%s' checkout -q --%s . && " GIT
				   "-C '%s' add -A && " GIT
				   "-C '%s' commit -q --no-edit)",
			       repo, branch, repo, rnd(2) ? "ours" : "theirs",
			       repo, repo);
			free(branch);
			hashes[nh++] = rev("HEAD");
		}
	}
	for (i = 0; i < RND_THREADS; i++) {
		snprintf(id, sizeof(id), "t%zu", i);
		ts[i] = mk(id, hashes[rnd((unsigned)nh)], rnd_specs[i]);
	}
	return nh;
}

/*
 * Seeded random histories with branches and merges, where commits change
 * code and thread files: the review points agree with the computation from
 * git alone.
 */
START_TEST(test_stale_review_points_random)
{
	char *hashes[64];
	tm_thread *ts[RND_THREADS];
	size_t nh, i;
	unsigned seed;

	for (seed = 1; seed <= tmt_rounds(4); seed++) {
		nh = random_history(seed, hashes, ts);
		assert_reviewed_like_git(repo, ts, RND_THREADS);
		free_threads(ts, RND_THREADS);
		for (i = 0; i < nh; i++)
			free(hashes[i]);
	}
}
END_TEST

/* Two branches both review a thread; once both are merged (the thread file
 * merged too) it is not stale, though the merged `commit` comes from one
 * side. */
START_TEST(test_stale_review_points_two_branches)
{
	char *base, *x, *y, *c;
	tm_thread *ts[1];
	tm_stale_report r = TM_STALE_REPORT_INIT;

	base = commit("base", "src/a.c", "src/b.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q -b one", repo);
	free(commit("one", "src/a.c", NULL));
	x = rev("HEAD");
	write_thread(repo, "t", x, 1);
	free(commit("review one", NULL));
	tmt_sh(GIT "-C '%s' checkout -q -b two %s", repo, base);
	free(commit("two", "src/b.c", NULL));
	y = rev("HEAD");
	write_thread(repo, "t", y, 2);
	free(commit("review two", NULL));
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --no-edit one", repo);
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --no-edit two >/dev/null 2>&1; true",
	       repo);
	/* merged as the merge driver does: both summaries, one side's
	 * commit (x), so the merge changes the file */
	write_thread(repo, "t", x, 12);
	tmt_sh(GIT "-C '%s' add -A && " GIT "-C '%s' commit -q --no-edit", repo,
	       repo);
	ts[0] = mk("t", x, "src");
	compute_in(&r, repo, ts, 1);
	ck_assert_uint_eq(r.n, 0);
	tm_stale_report_clear(&r);
	/* a later change is not reviewed by either */
	c = commit("later", "src/b.c", NULL);
	compute_in(&r, repo, ts, 1);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.stale[0].newest, c);
	assert_changed(&r.stale[0], "src/b.c");
	tm_stale_report_clear(&r);
	assert_reviewed_like_git(repo, ts, 1);
	free_threads(ts, 1);
	free(base);
	free(x);
	free(y);
	free(c);
}
END_TEST

/* ---- the cache (DESIGN.md section 11) ---- */

/* A report as one string, to compare two. */
static char *report_text(const tm_stale_report *r)
{
	tm_buf b = TM_BUF_INIT;
	char *p, *c;
	size_t i;

	for (i = 0; i < r->n; i++) {
		p = joined(&r->stale[i].paths);
		c = joined(&r->stale[i].changed);
		tm_buf_printf(&b, "%s %s [%s] [%s] %s\n", r->stale[i].id,
			      r->stale[i].commit, p, c, r->stale[i].newest);
		free(p);
		free(c);
	}
	p = joined(&r->unknown_base);
	tm_buf_printf(&b, "unknown [%s] shallow %d\n", p, r->shallow);
	free(p);
	return tm_buf_detach(&b);
}

/* The answer with or without the cache; *from_cache says where it came
 * from. */
static char *answer(const char *dir, tm_thread **ts, size_t n, bool no_cache,
		    bool *from_cache)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_stale_options o = {0};
	tm_git *g = open_repo(dir);
	char *text;

	o.no_cache = no_cache;
	ck_assert_msg(tm_stale_compute_opts(&r, g, TDIR,
					    (const tm_thread *const *)ts, n,
					    &o) == 0,
		      "%s", tm_error_last());
	tm_git_free(g);
	if (from_cache)
		*from_cache = o.from_cache;
	text = report_text(&r);
	tm_stale_report_clear(&r);
	return text;
}

/* tm_stale_cached_ids: whether the cache answered, and its ids as
 * "a b c" into *ids (malloc'd; NULL when it did not answer). */
static bool cached_ids(const char *dir, tm_thread **ts, size_t n, char **ids)
{
	tm_strv v = TM_STRV_INIT;
	tm_git *g = open_repo(dir);
	bool hit;

	tm_strv_push(&v, "kept");
	hit = tm_stale_cached_ids(&v, g, TDIR, (const tm_thread *const *)ts,
				  n) == 1;
	tm_git_free(g);
	ck_assert_str_eq(v.items[0], "kept");
	if (!hit)
		ck_assert_uint_eq(v.n, 1);
	free(v.items[0]);
	memmove(v.items, v.items + 1, --v.n * sizeof(char *));
	*ids = hit ? join(&v, false) : NULL;
	tm_strv_clear(&v);
	return hit;
}

/* The ids of an answer of `answer` ("id commit [..." lines). */
static char *ids_of(const char *text)
{
	tm_buf b = TM_BUF_INIT;
	const char *p = text, *sp, *nl;

	while ((nl = strchr(p, '\n')) && strncmp(p, "unknown [", 9)) {
		sp = strchr(p, ' ');
		if (b.size)
			tm_buf_putc(&b, ' ');
		tm_buf_put(&b, p, (size_t)(sp - p));
		p = nl + 1;
	}
	return b.size ? tm_buf_detach(&b) : strdup("");
}

/* Exactly when the full answer comes from the cache, tm_stale_cached_ids
 * answers, with its ids. */
static void assert_ids_like(const char *dir, tm_thread **ts, size_t n,
			    const char *want_text, bool want_hit)
{
	char *ids = NULL, *want = ids_of(want_text);
	bool hit = cached_ids(dir, ts, n, &ids);

	ck_assert_msg(hit == want_hit, "cached ids %s", hit ? "hit" : "missed");
	if (hit)
		ck_assert_str_eq(ids, want);
	free(ids);
	free(want);
}

static char *cache_file(const char *dir)
{
	return format("%s/.git/threadmind/stale.cache", dir);
}

/* ---- rewritten review points, identities, blank summaries (issue 25) ---- */

/* Thread file `id` in `dir` with an identity (createdAt, author), reviewed
 * at `commit`. */
static void write_ident(const char *dir, const char *id, const char *commit,
			const char *created, const char *author)
{
	char *rel = format(TDIR "%s.md", id), *path = tmt_join(dir, rel);
	FILE *f;

	append(dir, rel, "");
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"---\nid: %s\ntitle: T\nauthor: %s\ncreatedAt: %s\n"
		"commit: %s\n---\n\n## Summary\nreviewed at %s\n",
		id, author, created, commit, commit);
	fclose(f);
	free(path);
	free(rel);
}

/* The answer through the index and through the walk of git: the same;
 * returned (malloc'd). */
static char *both_answers(tm_thread **ts, size_t n)
{
	char *cached = answer(repo, ts, n, false, NULL);
	char *walked = answer(repo, ts, n, true, NULL);

	ck_assert_str_eq(cached, walked);
	free(walked);
	return cached;
}

static void assert_answer(tm_thread **ts, size_t n, const char *want)
{
	char *got = both_answers(ts, n);

	ck_assert_str_eq(got, want);
	free(got);
}

/* `git gc --prune=now` of everything unreachable. */
static void prune(void)
{
	tmt_sh(GIT "-C '%s' reflog expire --expire=now --all && " GIT
		   "-C '%s' gc -q --prune=now",
	       repo, repo);
}

/* A review amended into its code commit: the amended commit, which
 * introduced the version, is its review point, whether the old commit
 * lies dangling or is pruned; a later change is stale. */
START_TEST(test_stale_rewritten_amend)
{
	char *old, *c, *want;
	tm_thread *ts[1];

	free(commit("base", "src/a.c", "src/b.c", NULL));
	free(commit("code", "src/a.c", NULL));
	old = rev("HEAD");
	write_thread(repo, "t", old, 1);
	next_date();
	tmt_sh(GIT "-C '%s' add -A && " GIT
		   "-C '%s' commit -q --amend --no-edit",
	       repo, repo);
	c = rev("HEAD");
	ck_assert_str_ne(c, old);
	free(c);
	ts[0] = mk("t", old, "src");
	assert_answer(ts, 1, "unknown [] shallow 0\n");
	prune();
	tmt_sh("! " GIT "-C '%s' cat-file -e %s", repo, old);
	assert_answer(ts, 1, "unknown [] shallow 0\n");
	c = commit("later", "src/b.c", NULL);
	want = format("t %s [src] [src/b.c] %s\nunknown [] shallow 0\n", old,
		      c);
	assert_answer(ts, 1, want);
	free_threads(ts, 1);
	free(old);
	free(c);
	free(want);
}
END_TEST

/* A branch reviewed there, squash-merged after the base moved on: the
 * squash commit reviews what its parent has; with the branch's review
 * amended then merged as it is (no squash), the merge only brings the
 * version: the branch's commit that introduced it is the review point, and
 * the base's own change is stale. */
START_TEST(test_stale_rewritten_squash_and_merge)
{
	char *reviewed, *moved, *want;
	tm_thread *ts[1];

	free(commit("base", "src/a.c", "src/b.c", NULL));
	tmt_sh(GIT "-C '%s' checkout -q -b f", repo);
	free(commit("feature", "src/a.c", NULL));
	reviewed = rev("HEAD");
	write_thread(repo, "t", reviewed, 1);
	free(commit("review", NULL));
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	moved = commit("main moves", "src/b.c", NULL);
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --squash f >/dev/null && " GIT
		   "-C '%s' commit -q -m squash && " GIT
		   "-C '%s' branch -q -D f",
	       repo, repo, repo);
	prune();
	ts[0] = mk("t", reviewed, "src");
	assert_answer(ts, 1, "unknown [] shallow 0\n");
	free_threads(ts, 1);
	free(reviewed);
	free(moved);

	/* the review amended into the branch's code commit, merged with
	   --no-ff */
	tmt_sh("rm -rf '%s' && " GIT "init -q '%s'", repo, repo);
	free(commit("base", "src/a.c", "src/b.c", NULL));
	tmt_sh(GIT "-C '%s' checkout -q -b f", repo);
	reviewed = commit("feature", "src/a.c", NULL);
	write_thread(repo, "t", reviewed, 1);
	next_date();
	tmt_sh(GIT "-C '%s' add -A && " GIT
		   "-C '%s' commit -q --amend --no-edit",
	       repo, repo);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	moved = commit("main moves", "src/b.c", NULL);
	next_date();
	tmt_sh(GIT "-C '%s' merge -q --no-ff --no-edit f", repo);
	ts[0] = mk("t", reviewed, "src");
	want = format("t %s [src] [src/b.c] %s\nunknown [] shallow 0\n",
		      reviewed, moved);
	assert_answer(ts, 1, want);
	free_threads(ts, 1);
	free(reviewed);
	free(moved);
	free(want);
}
END_TEST

/* A review not committed yet: its commit is a review point when the
 * repository has it (even off HEAD's history), else an unknown base. */
START_TEST(test_stale_rewritten_uncommitted_review)
{
	char *base, *side, *head, *want;
	tm_thread *ts[1];

	base = commit("base", "src/a.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q -b side", repo);
	side = commit("side", "doc/x", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	head = commit("main", "src/a.c", NULL);
	ts[0] = mk("t", side, "src");
	want = format("t %s [src] [src/a.c] %s\nunknown [] shallow 0\n", side,
		      head);
	assert_answer(ts, 1, want);
	free(want);
	free(head);
	tm_thread_set(&ts[0]->commit,
		      "0123456789abcdef0123456789abcdef01234567");
	assert_answer(ts, 1, "unknown [t] shallow 0\n");
	free_threads(ts, 1);
	free(base);
	free(side);
}
END_TEST

/* After a same-id split renamed a thread, the versions of its old file
 * that carry its identity are its own: the commit that added one covers
 * it, and its review point counts; a version of another identity does
 * not. */
START_TEST(test_stale_identity_across_rename)
{
	static const char *const created[] = {"2026-03-01T10:00:00.000Z",
					      "2026-03-01T11:00:00.000Z"};
	char *base, *k, *want;
	tm_thread *ts[1];
	int other;

	for (other = 0; other < 2; other++) {
		tmt_sh("rm -rf '%s' && " GIT "init -q '%s'", repo, repo);
		base = commit("base", "src/a.c", NULL);
		/* code and thread together, as search.md */
		write_ident(repo, "search", base, created[other], "carol");
		k = commit("engine and thread", "src/a.c", NULL);
		/* the split: search.md goes, search-2.md comes */
		tmt_sh("rm '%s/" TDIR "search.md'", repo);
		write_ident(repo, "search-2", base, created[0], "carol");
		free(commit("split", NULL));
		ts[0] = mk("search-2", base, "src");
		tm_thread_set(&ts[0]->created_at, created[0]);
		tm_thread_set(&ts[0]->author, "carol");
		if (other) /* search.md was another thread's */
			want = format("search-2 %s [src] [src/a.c] %s\n"
				      "unknown [] shallow 0\n",
				      base, k);
		else
			want = strdup("unknown [] shallow 0\n");
		assert_answer(ts, 1, want);
		/* an identity the same instant written otherwise */
		tm_thread_set(&ts[0]->created_at,
			      other ? created[0] : "2026-03-01T11:00:00+01:00");
		assert_answer(ts, 1, want);
		free(want);
		free_threads(ts, 1);
		free(base);
		free(k);
	}
}
END_TEST

/* A thread whose summary is blank is never stale nor an unknown base. */
START_TEST(test_stale_blank_summary)
{
	char *base;
	tm_thread *ts[2];

	base = commit("base", "src/a.c", NULL);
	free(commit("later", "src/a.c", NULL));
	ts[0] = mk("blank", base, "src");
	tm_thread_set_summary(ts[0], " \n\t\n", 4);
	ck_assert(tm_thread_summary_blank(ts[0]));
	ts[1] = mk("unknown", "0123456789abcdef0123456789abcdef01234567",
		   "src");
	tm_thread_set_body(ts[1], "\n\n", 2);
	assert_answer(ts, 2, "unknown [] shallow 0\n");
	ck_assert(tm_stale_awaits_summary(ts[0]));
	tm_thread_set_summary(ts[0], "x", 1);
	ck_assert(!tm_stale_awaits_summary(ts[0]));
	free_threads(ts, 2);
	free(base);
}
END_TEST

/* Random histories, merges included: cached runs answer as uncached ones,
 * and a second run is read from the cache. */
START_TEST(test_stale_cache_same_answers)
{
	char *hashes[64], *plain, *first, *second, *after, *file;
	tm_thread *ts[RND_THREADS];
	size_t nh, i;
	unsigned seed;
	bool hit;

	for (seed = 11; seed < 11 + tmt_rounds(4); seed++) {
		nh = random_history(seed, hashes, ts);
		plain = answer(repo, ts, RND_THREADS, true, &hit);
		ck_assert(!hit);
		first = answer(repo, ts, RND_THREADS, false, &hit);
		ck_assert(!hit);
		assert_ids_like(repo, ts, RND_THREADS, plain, true);
		second = answer(repo, ts, RND_THREADS, false, &hit);
		ck_assert(hit);
		ck_assert_str_eq(first, plain);
		ck_assert_str_eq(second, plain);
		/* in the git dir, not the work tree */
		file = cache_file(repo);
		tmt_sh("test -s '%s'", file);
		after = tmt_sh_out("git -C '%s' status --porcelain "
				   "--ignored | grep -c . || true",
				   repo);
		ck_assert_str_eq(after, "0");
		free(after);
		/* a new commit: still the same (the ids only from the cache
		 * of exactly this HEAD) */
		free(commit("more", "a/x.c", "b/z.c", NULL));
		free(plain);
		plain = answer(repo, ts, RND_THREADS, true, NULL);
		assert_ids_like(repo, ts, RND_THREADS, plain, false);
		after = answer(repo, ts, RND_THREADS, false, &hit);
		assert_ids_like(repo, ts, RND_THREADS, plain, true);
		ck_assert_str_eq(after, plain);
		free(after);
		/* another thread's commit: another key */
		tm_thread_set(&ts[0]->commit, hashes[0]);
		free(plain);
		plain = answer(repo, ts, RND_THREADS, true, NULL);
		assert_ids_like(repo, ts, RND_THREADS, plain, false);
		after = answer(repo, ts, RND_THREADS, false, &hit);
		ck_assert(!hit);
		ck_assert_str_eq(after, plain);
		free(after);
		/* deleting the cache changes nothing */
		tmt_sh("rm -f '%s'", file);
		assert_ids_like(repo, ts, RND_THREADS, plain, false);
		after = answer(repo, ts, RND_THREADS, false, &hit);
		ck_assert(!hit);
		ck_assert_str_eq(after, plain);
		free(after);
		free(file);
		free(plain);
		free(first);
		free(second);
		free_threads(ts, RND_THREADS);
		for (i = 0; i < nh; i++)
			free(hashes[i]);
	}
}
END_TEST

/* A corrupt, truncated, foreign or outdated cache is ignored and
 * rewritten, never fatal. */
START_TEST(test_stale_cache_corrupt)
{
	static const char *const damage[] = {
		/* truncated */
		"head -c 30 good >'%s'",
		"head -c $(($(wc -c <good) - 1)) good >'%s'",
		/* one byte of the payload changed */
		"cp good '%s' && printf 'Z' | dd of='%s' bs=1 seek=40 "
		"conv=notrunc 2>/dev/null",
		/* a byte more */
		"cp good '%s' && printf 'x' >>'%s'",
		/* foreign: another magic, or not ours at all */
		"cp good '%s' && printf 'XXSTALE1' | dd of='%s' bs=1 seek=0 "
		"conv=notrunc 2>/dev/null",
		"printf 'hello' >'%s'",
		": >'%s'",
		"head -c 4096 /dev/urandom >'%s'",
		/* outdated: the answer for another HEAD that touched a
		   thread's file since (not carried forward) */
		"cp old '%s'",
	};
	char *a, *b, *want, *got, *file, *dir;
	tm_thread *ts[2];
	size_t i;
	bool hit;

	a = commit("a", "src/x.c", NULL);
	ts[0] = mk("t", a, "src");
	ts[1] = mk("u", a, "doc");
	free(answer(repo, ts, 2, false, &hit));
	file = cache_file(repo);
	dir = format("%s/.git/threadmind", repo);
	tmt_sh("cp '%s' '%s/old'", file, dir);
	b = commit("b", "src/x.c", TDIR "v.md", NULL);
	want = answer(repo, ts, 2, true, NULL);
	free(answer(repo, ts, 2, false, &hit));
	ck_assert(!hit);
	tmt_sh("cp '%s' '%s/good'", file, dir);
	for (i = 0; i < N(damage); i++) {
		char *cmd = format(damage[i], file, file);

		tmt_sh("cd '%s' && %s", dir, cmd);
		assert_ids_like(repo, ts, 2, want, false);
		got = answer(repo, ts, 2, false, &hit);
		ck_assert_msg(!hit, "damage %zu read as good", i);
		ck_assert_str_eq(got, want);
		free(got);
		/* rewritten: the next run reads it */
		got = answer(repo, ts, 2, false, &hit);
		ck_assert_msg(hit, "damage %zu not rewritten", i);
		ck_assert_str_eq(got, want);
		assert_ids_like(repo, ts, 2, want, true);
		free(got);
		free(cmd);
	}
	/* a folder where the file should be: no cache, no error */
	tmt_sh("rm -f '%s' && mkdir '%s'", file, file);
	got = answer(repo, ts, 2, false, &hit);
	ck_assert(!hit);
	ck_assert_str_eq(got, want);
	free(got);
	tmt_sh("rmdir '%s'", file);
	/* no *.tmp left behind */
	got = tmt_sh_out("ls '%s' | grep -c tmp || true", dir);
	ck_assert_str_eq(got, "0");
	free(got);
	free_threads(ts, 2);
	free(want);
	free(file);
	free(dir);
	free(a);
	free(b);
}
END_TEST

/* An unknown base the repository gets later (a fetch, HEAD unchanged) is
 * not answered from the cache. */
START_TEST(test_stale_cache_base_fetched)
{
	char *other = tmt_join(tmp, "other"), *x, *got, *want;
	tm_thread *ts[1];
	bool hit;

	free(commit("a", "src/x.c", NULL));
	tmt_sh(GIT "init -q '%s'", other);
	x = commit_in(other, "x", "src/x.c", NULL);
	ts[0] = mk("t", x, "src");
	got = answer(repo, ts, 1, false, &hit);
	ck_assert_str_eq(got, "unknown [t] shallow 0\n");
	free(got);
	free(answer(repo, ts, 1, false, &hit));
	ck_assert(hit);
	tmt_sh(GIT "-C '%s' fetch -q '%s' main:refs/remotes/o/main", repo,
	       other);
	got = answer(repo, ts, 1, false, &hit);
	ck_assert(!hit);
	ck_assert_ptr_null(strstr(got, "unknown [t]"));
	want = answer(repo, ts, 1, true, NULL);
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
	free_threads(ts, 1);
	free(x);
	free(other);
}
END_TEST

/* The per-commit index of the cache. */
static char *index_file(const char *dir)
{
	return format("%s/.git/threadmind/commits/chain", dir);
}

/* The answer through the cache equals the uncached one, both with the
 * last answer (carried forward or not) and through the index alone. */
static void assert_cache_agrees(tm_thread **ts, size_t n, const char *what)
{
	char *plain = answer(repo, ts, n, true, NULL), *got, *file;

	got = answer(repo, ts, n, false, NULL);
	ck_assert_msg(!strcmp(got, plain), "%s: cached\n%s\nuncached\n%s", what,
		      got, plain);
	free(got);
	file = cache_file(repo);
	tmt_sh("rm -f '%s'", file);
	got = answer(repo, ts, n, false, NULL);
	ck_assert_msg(!strcmp(got, plain), "%s: indexed\n%s\nuncached\n%s",
		      what, got, plain);
	free(got);
	free(file);
	free(plain);
}

/*
 * Random histories with merges: the cache built at one commit, then more
 * commits, a thread file changed, a merge, a branch switch, rewritten
 * history (reset, amend, rebase), a fast-forward onto commits that existed
 * already; after each, cached answers equal uncached ones.
 */
START_TEST(test_stale_index_histories)
{
	char *hashes[64], *head, *side, *file;
	tm_thread *ts[RND_THREADS];
	size_t nh, i;
	unsigned seed;

	for (seed = 21; seed < 21 + tmt_rounds(2); seed++) {
		nh = random_history(seed, hashes, ts);
		assert_cache_agrees(ts, RND_THREADS, "built");
		file = index_file(repo);
		tmt_sh("test -s '%s'", file);
		free(commit("n1", "a/x.c", NULL));
		free(commit("n2", "c/w.c", "a/y.c", NULL));
		assert_cache_agrees(ts, RND_THREADS, "new commits");
		head = rev("HEAD");
		write_thread(repo, "t1", head, 90);
		free(commit("touch", "a/x.c", NULL));
		assert_cache_agrees(ts, RND_THREADS, "thread file");
		tmt_sh(GIT "-C '%s' checkout -q -b side %s", repo,
		       hashes[nh / 2]);
		free(commit("s1", "b/z.c", NULL));
		assert_cache_agrees(ts, RND_THREADS, "branch switch");
		side = rev("HEAD");
		tmt_sh(GIT "-C '%s' checkout -q main 2>/dev/null || " GIT
			   "-C '%s' checkout -q master",
		       repo, repo);
		next_date();
		tmt_sh(GIT "-C '%s' merge -q --no-edit -X theirs side "
			   ">/dev/null 2>&1 || (" GIT
			   "-C '%s' checkout -q --theirs . && " GIT
			   "-C '%s' add -A && " GIT "-C '%s' commit -q "
			   "--no-edit)",
		       repo, repo, repo, repo);
		free(commit("n3", "a/x.c", NULL));
		assert_cache_agrees(ts, RND_THREADS, "merge");
		tmt_sh(GIT "-C '%s' reset -q --hard HEAD~2", repo);
		assert_cache_agrees(ts, RND_THREADS, "reset");
		next_date();
		tmt_sh(GIT "-C '%s' commit -q --amend -m amended", repo);
		free(commit("n4", "b/z.c", NULL));
		assert_cache_agrees(ts, RND_THREADS, "amend");
		tmt_sh(GIT "-C '%s' checkout -q side && " GIT
			   "-C '%s' rebase -q -X theirs %s >/dev/null 2>&1 "
			   "|| " GIT "-C '%s' rebase --abort",
		       repo, repo, hashes[nh - 1], repo);
		assert_cache_agrees(ts, RND_THREADS, "rebase");
		/* a thread reviewed ahead of HEAD, on a branch; then HEAD
		   moves onto that branch's commits, which existed already */
		tmt_sh(GIT "-C '%s' checkout -q -b ahead", repo);
		free(commit("h1", "a/x.c", NULL));
		free(side);
		side = rev("HEAD");
		free(commit("h2", "a/y.c", NULL));
		tm_thread_set(&ts[0]->commit, side);
		tmt_sh(GIT "-C '%s' checkout -q side", repo);
		free(commit("h3", "a/x.c", NULL));
		tmt_sh(GIT "-C '%s' reset -q --hard HEAD~1", repo);
		assert_cache_agrees(ts, RND_THREADS, "base ahead");
		free(answer(repo, ts, RND_THREADS, false, NULL));
		tmt_sh(GIT "-C '%s' merge -q --ff-only ahead", repo);
		assert_cache_agrees(ts, RND_THREADS, "fast-forward");
		/* deleting the index changes nothing */
		tmt_sh("rm -f '%s'", file);
		assert_cache_agrees(ts, RND_THREADS, "index deleted");
		free(file);
		free(head);
		free(side);
		free_threads(ts, RND_THREADS);
		for (i = 0; i < nh; i++)
			free(hashes[i]);
	}
}
END_TEST

/* New commits on top of the last answer: carried forward (each commit's
 * diff read from the index), unless a merge or a thread file comes. */
START_TEST(test_stale_cache_carried_forward)
{
	char *a, *b, *c, *want, *got;
	tm_thread *ts[3];
	bool hit;

	a = commit("a", "src/x.c", "doc/y.md", NULL);
	b = commit("b", "src/x.c", NULL);
	ts[0] = mk("t", a, "src");
	ts[1] = mk("u", a, "doc");
	ts[2] = mk("v", b, "lib");
	free(answer(repo, ts, 3, false, NULL));
	c = commit("c", "doc/y.md", "lib/z.c", NULL);
	free(commit("d", "src/w.c", NULL));
	want = answer(repo, ts, 3, true, NULL);
	got = answer(repo, ts, 3, false, &hit);
	ck_assert(hit);
	ck_assert_str_eq(got, want);
	ck_assert_ptr_nonnull(strstr(got, c)); /* u's and v's newest */
	free(got);
	free(want);
	/* a merge on top: computed, the same */
	tmt_sh(GIT "-C '%s' checkout -q -b side %s", repo, b);
	free(commit("s", "lib/q.c", NULL));
	tmt_sh(GIT "-C '%s' checkout -q - && " GIT "-C '%s' merge -q "
		   "--no-edit side",
	       repo, repo);
	want = answer(repo, ts, 3, true, NULL);
	got = answer(repo, ts, 3, false, &hit);
	ck_assert(!hit);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	/* a thread file in a new commit: computed, the same */
	write_thread(repo, "u", c, 1);
	free(commit("e", "doc/y.md", NULL));
	want = answer(repo, ts, 3, true, NULL);
	got = answer(repo, ts, 3, false, &hit);
	ck_assert(!hit);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	free_threads(ts, 3);
	free(a);
	free(b);
	free(c);
}
END_TEST

/* A fast-forward onto a review point that existed already: the last
 * answer is not carried over it. */
START_TEST(test_stale_index_forward_onto_base)
{
	char *a, *x, *got, *want;
	tm_thread *ts[2];

	a = commit("a", "src/x.c", NULL);
	tmt_sh(GIT "-C '%s' checkout -q -b ahead", repo);
	free(commit("x1", "src/x.c", NULL));
	x = commit("x2", "src/y.c", NULL);
	free(commit("x3", "src/x.c", NULL));
	tmt_sh(GIT "-C '%s' checkout -q -", repo);
	ts[0] = mk("t", a, "src");
	ts[1] = mk("u", x, "src");
	free(answer(repo, ts, 2, false, NULL));
	tmt_sh(GIT "-C '%s' merge -q --ff-only ahead", repo);
	want = answer(repo, ts, 2, true, NULL);
	got = answer(repo, ts, 2, false, NULL);
	ck_assert_str_eq(got, want);
	ck_assert_ptr_nonnull(strstr(got, "u "));
	free(got);
	free(want);
	free_threads(ts, 2);
	free(a);
	free(x);
}
END_TEST

/*
 * A base the index keeps but git has pruned since (a deleted branch): it
 * counts as unknown, as without the index, whether HEAD's history has
 * other bases or not; the walk looks it up in git only after the walk,
 * since it is not below HEAD.
 */
START_TEST(test_stale_index_base_pruned)
{
	char *a, *s, *file, *got, *want;
	tm_thread *ts[3];

	a = commit("a", "src/x.c", NULL);
	free(commit("b", "src/x.c", NULL));
	tmt_sh(GIT "-C '%s' checkout -q -b side", repo);
	s = commit("s", "src/y.c", NULL);
	ts[0] = mk("t", a, "src");
	ts[1] = mk("u", s, "src");
	ts[2] = mk("v", s, "doc");
	free(answer(repo, ts, 3, false, NULL)); /* indexes s */
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	free(commit("c", "src/x.c", NULL));
	tmt_sh(GIT "-C '%s' branch -q -D side", repo);
	tmt_sh(GIT "-C '%s' reflog expire --expire=now --all", repo);
	tmt_sh(GIT "-C '%s' gc -q --prune=now", repo);
	tmt_sh("test -z \"$(" GIT "-C '%s' cat-file -t %s 2>/dev/null)\"", repo,
	       s);
	file = cache_file(repo);
	tmt_sh("rm -f '%s'", file);
	want = answer(repo, ts, 3, true, NULL);
	ck_assert_ptr_nonnull(strstr(want, "unknown [u v]"));
	got = answer(repo, ts, 3, false, NULL);
	ck_assert_str_eq(got, want);
	free(got);
	tmt_sh("rm -f '%s'", file);
	got = answer(repo, ts + 1, 2, false, NULL);
	ck_assert_ptr_nonnull(strstr(got, "unknown [u v]"));
	free(got);
	free(want);
	free(file);
	free_threads(ts, 3);
	free(a);
	free(s);
}
END_TEST

/* The one layer file of the index in `dir`'s commits folder. */
static char *only_layer(const char *dir)
{
	char *name = tmt_sh_out("cd '%s/.git/threadmind/commits' && "
				"ls layer-*.idx",
				dir),
	     *path;

	ck_assert_msg(!strchr(name, '\n') && *name, "layers: %s", name);
	path = format("%s/.git/threadmind/commits/%s", dir, name);
	free(name);
	return path;
}

/* A corrupt, truncated or foreign layer or chain is ignored and rebuilt. */
START_TEST(test_stale_index_corrupt)
{
	static const char *const damage[] = {
		"head -c 79 good >'%s'",
		"head -c $(($(wc -c <good) - 8)) good >'%s'",
		/* a byte of the data, of the counts, of the checksum */
		"cp good '%s' && printf 'Z' | dd of='%s' bs=1 seek=100 "
		"conv=notrunc 2>/dev/null",
		"cp good '%s' && printf '\\377' | dd of='%s' bs=1 seek=24 "
		"conv=notrunc 2>/dev/null",
		"cp good '%s' && printf 'Z' | dd of='%s' bs=1 seek=10 "
		"conv=notrunc 2>/dev/null",
		/* the layer below it, its first position */
		"cp good '%s' && printf 'Z' | dd of='%s' bs=1 seek=73 "
		"conv=notrunc 2>/dev/null",
		"cp good '%s' && printf 'Z' | dd of='%s' bs=1 seek=52 "
		"conv=notrunc 2>/dev/null",
		"cp good '%s' && printf 'x' >>'%s'",
		"cp good '%s' && printf 'TMCIDXL\\2' | dd of='%s' bs=1 "
		"seek=0 conv=notrunc 2>/dev/null",
		"printf 'hello' >'%s'",
		": >'%s'",
		"head -c 8192 /dev/urandom >'%s'",
	};
	static const char *const chain_damage[] = {
		": >'%s'",
		"printf 'hello' >'%s'",
		"head -c 30 good-chain >'%s'",
		/* a missing layer; the good one twice; a tail of garbage */
		("printf 'threadmind commits chain 1\\n0123456789abcdef\\n' "
		 ">'%s'"),
		"(cat good-chain; tail -n 1 good-chain) >'%s'",
		"(cat good-chain; printf 'x') >'%s'",
		"sed 's/commits chain 1/commits chain 2/' good-chain >'%s'",
	};
	char *a, *want, *got, *file, *chain, *cache, *dir;
	tm_thread *ts[2];
	size_t i;

	/* every layer stamped once checked (`checked`): a stamp never hides
	   damage done since */
	tm_stale__stamp_min = 0;
	a = commit("a", "src/x.c", NULL);
	free(commit("b", "src/x.c", "doc/y.md", NULL));
	ts[0] = mk("t", a, "src");
	ts[1] = mk("u", a, "doc");
	want = answer(repo, ts, 2, true, NULL);
	free(answer(repo, ts, 2, false, NULL));
	file = only_layer(repo);
	chain = index_file(repo);
	cache = cache_file(repo);
	dir = format("%s/.git/threadmind", repo);
	tmt_sh("cp '%s' '%s/good' && cp '%s' '%s/good-chain'", file, dir, chain,
	       dir);
	for (i = 0; i < N(damage) + N(chain_damage); i++) {
		bool in_chain = i >= N(damage);
		const char *what = in_chain ? chain : file;
		char *cmd = format(in_chain ? chain_damage[i - N(damage)]
					    : damage[i],
				   what, what);

		tmt_sh("cd '%s' && cp good '%s' && cp good-chain '%s' && "
		       "%s && rm -f '%s'",
		       dir, file, chain, cmd, cache);
		got = answer(repo, ts, 2, false, NULL);
		ck_assert_msg(!strcmp(got, want), "damage %zu: %s", i, got);
		free(got);
		/* rebuilt: the same bytes as the good ones */
		tmt_sh("cmp -s '%s/good' '%s'", dir, file);
		tmt_sh("cmp -s '%s/good-chain' '%s'", dir, chain);
		free(cmd);
	}
	/* a folder where a file should be: no index, no error */
	tmt_sh("rm -f '%s' '%s' && mkdir '%s'", file, cache, file);
	got = answer(repo, ts, 2, false, NULL);
	ck_assert_str_eq(got, want);
	free(got);
	tmt_sh("rm -rf '%s/commits' '%s' && mkdir '%s/commits' && "
	       "mkdir '%s/commits/chain'",
	       dir, cache, dir, dir);
	got = answer(repo, ts, 2, false, NULL);
	ck_assert_str_eq(got, want);
	free(got);
	tm_stale__stamp_min = (uint64_t)1 << 20;
	free_threads(ts, 2);
	free(want);
	free(file);
	free(chain);
	free(cache);
	free(dir);
	free(a);
}
END_TEST

/* Answer from the index alone (the last answer removed); how many layers
 * that load checked whole. */
static unsigned long answer_checks(tm_thread **ts, size_t n, char **got)
{
	unsigned long before = tm_stale__layer_checks;
	char *cache = cache_file(repo);

	tmt_sh("rm -f '%s'", cache);
	free(cache);
	*got = answer(repo, ts, n, false, NULL);
	return tm_stale__layer_checks - before;
}

/*
 * A layer checked whole is stamped in `checked` (its stat data) and not
 * checked again while its stat data stays the same; a change in place of
 * the same size, its mtime put back, changes its ctime: checked again,
 * the damage found, the layer rebuilt.
 */
START_TEST(test_stale_index_stamped)
{
	char *a, *want, *got, *file, *dir;
	tm_thread *ts[1];

	tm_stale__stamp_min = 0;
	a = commit("a", "src/x.c", NULL);
	free(commit("b", "src/x.c", NULL));
	ts[0] = mk("t", a, "src");
	want = answer(repo, ts, 1, true, NULL);
	free(answer(repo, ts, 1, false, NULL));
	file = only_layer(repo);
	dir = format("%s/.git/threadmind", repo);
	tmt_sh("cp -p '%s' '%s/good'", file, dir);
	usleep(30 * 1000); /* the stamp written after the layer's ctime */
	ck_assert_uint_eq(answer_checks(ts, 1, &got), 1);
	ck_assert_str_eq(got, want);
	free(got);
	tmt_sh("test -s '%s/commits/checked'", dir);
	ck_assert_uint_eq(answer_checks(ts, 1, &got), 0);
	ck_assert_str_eq(got, want);
	free(got);
	ck_assert_uint_eq(answer_checks(ts, 1, &got), 0);
	free(got);
	/* the same size, the same mtime, another byte */
	tmt_sh("printf 'Z' | dd of='%s' bs=1 seek=100 conv=notrunc "
	       "2>/dev/null && touch -r '%s/good' '%s' && ! cmp -s '%s' "
	       "'%s/good'",
	       file, dir, file, file, dir);
	ck_assert_uint_ge(answer_checks(ts, 1, &got), 1);
	ck_assert_str_eq(got, want);
	free(got);
	tmt_sh("cmp -s '%s/good' '%s'", dir, file);
	/* the rebuilt layer (the same id) checked again: its one stamp
	   replaced, not a second one beside it (24-byte frame, a count, six
	   fields) */
	usleep(30 * 1000);
	ck_assert_uint_eq(answer_checks(ts, 1, &got), 1);
	free(got);
	tmt_sh("test $(wc -c <'%s/commits/checked') -eq %d", dir,
	       24 + 8 + 6 * 8);
	/* a foreign `checked` is no stamp */
	tmt_sh("printf 'garbage' >'%s/commits/checked'", dir);
	ck_assert_uint_eq(answer_checks(ts, 1, &got), 1);
	free(got);
	tm_stale__stamp_min = (uint64_t)1 << 20;
	free_threads(ts, 1);
	free(want);
	free(file);
	free(dir);
	free(a);
}
END_TEST

/*
 * A layer forged with parent positions far out of range and a right
 * checksum, stamped or not in `checked` as if checked whole: its range
 * checks run all the same, so it is ignored and rebuilt, the same answer
 * (issue 24, forged-stamp-layer-oob: stamped, it was read out of bounds).
 */
START_TEST(test_stale_index_forged_stamp)
{
	char *a, *want, *got, *dir, *forge, *good, *forged;
	tm_thread *ts[1];
	int stamp;

	a = commit("a", "src/x.c", NULL);
	free(commit("b", "src/x.c", NULL));
	ts[0] = mk("t", a, "src");
	want = answer(repo, ts, 1, true, NULL);
	free(answer(repo, ts, 1, false, NULL));
	free(commit("c", "src/x.c", NULL));
	free(answer(repo, ts, 1, false, NULL)); /* a second layer on top */
	dir = format("%s/.git/threadmind", repo);
	good = format("%s.good", dir);
	forge = tmt_resource("forge-layer.py");
	tmt_sh("cp -a '%s' '%s'", dir, good);
	free(want);
	want = answer(repo, ts, 1, true, NULL);
	for (stamp = 0; stamp < 2; stamp++) {
		tmt_sh("rm -rf '%s' && cp -a '%s' '%s' && python3 '%s' "
		       "'%s/commits' %s",
		       dir, good, dir, forge, dir, stamp ? "stamp" : "");
		forged = tmt_sh_out("tail -n 1 '%s/commits/chain'", dir);
		(void)answer_checks(ts, 1, &got);
		ck_assert_str_eq(got, want);
		free(got);
		/* rebuilt: the chain no longer names it */
		tmt_sh("! grep -q '%s' '%s/commits/chain'", forged, dir);
		free(forged);
		(void)answer_checks(ts, 1, &got);
		ck_assert_str_eq(got, want);
		free(got);
	}
	free_threads(ts, 1);
	free(want);
	free(dir);
	free(good);
	free(forge);
	free(a);
}
END_TEST

/* The number of layers the chain names, and that many files there. */
static size_t count_layers(const char *dir)
{
	char *named = tmt_sh_out("tail -n +2 '%s/.git/threadmind/commits/"
				 "chain' | wc -l",
				 dir),
	     *files = tmt_sh_out("ls '%s/.git/threadmind/commits' | "
				 "grep -c '^layer-' || true",
				 dir);
	size_t n = (size_t)strtoul(named, NULL, 10);

	ck_assert_str_eq(named, files);
	free(named);
	free(files);
	return n;
}

/* The path of the chain's k-th layer file. */
static char *layer_file(const char *dir, size_t k)
{
	char *id = tmt_sh_out("sed -n '%zup' '%s/.git/threadmind/commits/"
			      "chain'",
			      k + 2, dir),
	     *path = format("%s/.git/threadmind/commits/layer-%s.idx", dir, id);

	free(id);
	return path;
}

/*
 * New commits go into layers on top, merged as git's split commit-graph
 * (size factor 2): a few layers, each file the chain names; a damaged
 * layer in the middle, or a missing one, leaves the layers below it and
 * the rest is rebuilt; a first build in many layers merged into one; the
 * answers equal the uncached ones all along.
 */
START_TEST(test_stale_index_layers)
{
	char *hashes[64], *name, *chain, *before, *after, *mid;
	tm_thread *ts[RND_THREADS];
	size_t i, n, nh, most = 0;
	bool broke_mid = false, lost_mid = false;

	nh = random_history(23, hashes, ts);
	assert_cache_agrees(ts, RND_THREADS, "built");
	ck_assert_uint_eq(count_layers(repo), 1);
	chain = index_file(repo);
	for (i = 0; i < 24; i++) {
		name = format("n%zu", i);
		if (i % 3 == 2)
			tmt_sh(GIT "-C '%s' commit -q --allow-empty -m e",
			       repo);
		else
			free(commit(name, i % 2 ? "a/x.c" : "b/z.c", NULL));
		free(name);
		assert_cache_agrees(ts, RND_THREADS, "a new commit");
		n = count_layers(repo);
		ck_assert_uint_le(n, 4);
		if (n > most)
			most = n;
		if (n >= 3 && !broke_mid) {
			/* the middle layer damaged: rebuilt over the rest */
			mid = layer_file(repo, 1);
			tmt_sh("printf 'Z' | dd of='%s' bs=1 seek=100 "
			       "conv=notrunc 2>/dev/null",
			       mid);
			free(mid);
			assert_cache_agrees(ts, RND_THREADS, "damaged middle");
			broke_mid = true;
		} else if (n >= 3 && !lost_mid) {
			mid = layer_file(repo, 1);
			tmt_sh("rm '%s'", mid);
			free(mid);
			assert_cache_agrees(ts, RND_THREADS, "missing middle");
			lost_mid = true;
		}
		/* all of it sound now: a run with no new commit writes
		   nothing */
		before = tmt_sh_out("cat '%s'", chain);
		assert_cache_agrees(ts, RND_THREADS, "again");
		after = tmt_sh_out("cat '%s'", chain);
		ck_assert_str_eq(before, after);
		free(before);
		free(after);
	}
	ck_assert_uint_ge(most, 3);
	ck_assert(broke_mid && lost_mid);
	/* a first build written 3 commits a layer, merged into one */
	tm_stale__chunk_commits = 3;
	tmt_sh("rm -rf '%s/.git/threadmind'", repo);
	assert_cache_agrees(ts, RND_THREADS, "built in layers");
	tm_stale__chunk_commits = 65536;
	ck_assert_uint_eq(count_layers(repo), 1);
	free(chain);
	free_threads(ts, RND_THREADS);
	for (i = 0; i < nh; i++)
		free(hashes[i]);
}
END_TEST

/* Writers at once: each file complete, every answer right after. */
START_TEST(test_stale_cache_concurrent)
{
	char *a, *want[4], *got;
	tm_thread *ts[4][1];
	size_t i, round;
	pid_t pid[4];
	int status;
	bool hit;

	a = commit("a", "src/x.c", "doc/y.md", NULL);
	free(commit("b", "src/x.c", NULL));
	for (i = 0; i < 4; i++) {
		ts[i][0] = mk("t", a, i % 2 ? "src" : "doc");
		tm_thread_set(&ts[i][0]->id, i < 2 ? "t" : "u");
		want[i] = answer(repo, ts[i], 1, true, NULL);
	}
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			for (round = 0; round < 20; round++) {
				got = answer(repo, ts[i], 1, false, NULL);
				if (strcmp(got, want[i]))
					_exit(1);
				free(got);
			}
			_exit(0);
		}
	}
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	for (i = 0; i < 4; i++) {
		got = answer(repo, ts[i], 1, false, &hit);
		ck_assert_str_eq(got, want[i]);
		free(got);
		free(want[i]);
		free_threads(ts[i], 1);
	}
	got = tmt_sh_out("find '%s/.git/threadmind' -name '*tmp*' | wc -l",
			 repo);
	ck_assert_str_eq(got, "0");
	free(got);
	free(a);
}
END_TEST

struct progress_log {
	size_t calls, last_done, last_total;
	bool monotonic;
};

static void log_progress(void *data, const char *what, size_t done,
			 size_t total)
{
	struct progress_log *l = data;

	if (strcmp(what, "indexing history"))
		return;
	if (l->calls && done < l->last_done)
		l->monotonic = false;
	l->calls++;
	l->last_done = done;
	l->last_total = total;
}

/* Building the answer reports progress over the commits it describes (the
 * five that the review point does not reach, not the whole history); a
 * cached answer reports none. */
START_TEST(test_stale_cache_progress)
{
	struct progress_log log = {0, 0, 0, true};
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_stale_options o = {0};
	tm_thread *ts[1];
	tm_git *g;
	char *a;
	int i;

	a = commit("a", "src/x.c", NULL);
	for (i = 0; i < 5; i++)
		free(commit("more", "src/x.c", NULL));
	ts[0] = mk("t", a, "src");
	o.progress = log_progress;
	o.progress_data = &log;
	g = open_repo(repo);
	ck_assert_int_eq(tm_stale_compute_opts(&r, g, TDIR,
					       (const tm_thread *const *)ts, 1,
					       &o),
			 0);
	tm_stale_report_clear(&r);
	ck_assert_uint_ge(log.calls, 2);
	ck_assert(log.monotonic);
	ck_assert_uint_eq(log.last_total, 5);
	ck_assert_uint_eq(log.last_done, 5);
	log.calls = 0;
	ck_assert_int_eq(tm_stale_compute_opts(&r, g, TDIR,
					       (const tm_thread *const *)ts, 1,
					       &o),
			 0);
	ck_assert(o.from_cache);
	ck_assert_uint_eq(log.calls, 0);
	tm_stale_report_clear(&r);
	tm_git_free(g);
	free_threads(ts, 1);
	free(a);
}
END_TEST

/* The commits the computation describes ("indexing history"'s total; 0:
 * none), its answer like git's. */
static size_t described(tm_thread **ts, size_t n)
{
	struct progress_log log = {0, 0, 0, true};
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_stale_options o = {0};
	tm_git *g = open_repo(repo);

	o.progress = log_progress;
	o.progress_data = &log;
	ck_assert_msg(tm_stale_compute_opts(&r, g, TDIR,
					    (const tm_thread *const *)ts, n,
					    &o) == 0,
		      "%s", tm_error_last());
	tm_stale_report_clear(&r);
	tm_git_free(g);
	assert_like_git(repo, ts, n);
	ck_assert(log.monotonic);
	ck_assert_uint_eq(log.last_done, log.last_total);
	return log.last_total;
}

/*
 * The index describes only the commits some review point does not reach;
 * a review point older than that range (a thread committed later pointing
 * at an old commit, or a teammate's arriving by a merge) extends it by the
 * commits it lacks, kept for the next runs, and the answers stay git's.
 */
START_TEST(test_stale_index_extends)
{
	char *a, *b, *c, *side;
	tm_thread *ts[3];

	a = commit("a", "src/x.c", NULL);
	b = commit("b", "src/x.c", "doc/d.txt", NULL);
	free(commit("b2", "src/y.c", NULL));
	c = commit("c", "src/x.c", NULL);
	free(commit("d", "src/x.c", NULL));
	free(commit("e", "doc/d.txt", NULL));
	ts[0] = mk("t", c, "src");
	ck_assert_uint_eq(described(ts, 1), 2); /* d, e */
	ck_assert_uint_eq(described(ts, 1), 0); /* the cached answer */
	/* an older review point: b2 and c, only */
	ts[1] = mk("u", b, "src,doc");
	ck_assert_uint_eq(described(ts, 2), 2);
	tmt_sh("rm -f '%s/.git/threadmind/stale.cache'", repo);
	ck_assert_uint_eq(described(ts, 2), 0); /* all kept */
	/* a teammate's thread reviewed at a, arriving by a merge */
	tmt_sh(GIT "-C '%s' checkout -q -b side %s", repo, a);
	free(commit("s", "src/z.c", NULL));
	write_ident(repo, "v", a, "2024-01-01T00:00:00Z", "mate");
	side = commit("v", NULL);
	tmt_sh(GIT "-C '%s' checkout -q main && " GIT
		   "-C '%s' merge -q --no-ff -m merge side",
	       repo, repo);
	ts[2] = mk("v", a, "src");
	/* the merge, s, v and b (a reaches only a) */
	ck_assert_uint_eq(described(ts, 3), 4);
	ck_assert_uint_eq(described(ts, 3), 0);
	free_threads(ts, 3);
	free(a);
	free(b);
	free(c);
	free(side);
}
END_TEST

/* ---- one commit (post-commit) ---- */

static void touches(tm_strv *out, const char *hex, tm_thread **ts, size_t n)
{
	tm_git *g = open_repo(repo);

	ck_assert_msg(tm_stale_commit_touches(out, g, hex, TDIR,
					      (const tm_thread *const *)ts,
					      n) == 0,
		      "%s", tm_error_last());
	tm_git_free(g);
}

START_TEST(test_stale_touches_commit)
{
	char *a = commit("a", "src/x.c", "doc/y.md", NULL);
	char *b = commit("b", "src/sub/z.c", "README", NULL);
	tm_thread *ts[7];
	tm_strv ids = TM_STRV_INIT;
	char *j;

	ts[0] = mk("zz-src", a, "src");
	ts[1] = mk("doc", a, "doc");
	ts[2] = mk("aa-readme", NULL, "README"); /* no commit: still counts */
	ts[3] = mk("no-paths", a, NULL);
	ts[4] = mk("finished", a, "src");
	tm_thread_set(&ts[4]->status, TM_STATUS_DONE);
	ts[5] = mk("glob", a, "*.c");
	ts[6] = mk("at-b", b, "src"); /* anchored at b itself */
	touches(&ids, b, ts, 7);
	j = joined(&ids);
	ck_assert_str_eq(j, "aa-readme glob zz-src");
	free(j);
	tm_strv_clear(&ids);
	free_threads(ts, 7);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_stale_touches_root_commit)
{
	char *root = commit("root", "src/x.c", "doc/y.md", NULL);
	tm_thread *ts[3];
	tm_strv ids = TM_STRV_INIT;
	char *j;

	ts[0] = mk("src", NULL, "src");
	ts[1] = mk("other", NULL, "lib");
	ts[2] = mk("doc", NULL, "doc/y.md");
	touches(&ids, root, ts, 3);
	j = joined(&ids);
	ck_assert_str_eq(j, "doc src");
	free(j);
	tm_strv_clear(&ids);
	free_threads(ts, 3);
	free(root);
}
END_TEST

START_TEST(test_stale_touches_thread_file)
{
	char *a = commit("a", "src/x.c", NULL);
	char *b = commit("b", "src/x.c", TDIR "one.md", NULL);
	tm_thread *ts[2];
	tm_strv ids = TM_STRV_INIT;
	char *j;

	ts[0] = mk("one", a, "src");
	ts[1] = mk("two", a, "src");
	touches(&ids, b, ts, 2);
	j = joined(&ids);
	ck_assert_str_eq(j, "two");
	free(j);
	tm_strv_clear(&ids);
	free_threads(ts, 2);
	free(a);
	free(b);
}
END_TEST

/* A commit of a few paths (the threads' specs tried one by one) and one of
 * many (the specs indexed) give the same answer. */
START_TEST(test_stale_touches_few_and_many_paths)
{
	char *a = commit("a", "src/x.c", "docs/a.md", "lib/l.h", NULL);
	char *few = commit("few", "src/x.c", "docs/a.md", TDIR "one.md", NULL);
	char *many =
		commit("many", "src/x.c", "docs/a.md", TDIR "one.md", "z/f01",
		       "z/f02", "z/f03", "z/f04", "z/f05", "z/f06", "z/f07",
		       "z/f08", "z/f09", "z/f10", "z/f11", "z/f12", "z/f13",
		       "z/f14", "z/f15", "z/f16", "z/f17", NULL);
	const char *hex[2] = {few, many};
	tm_thread *ts[9];
	tm_strv ids = TM_STRV_INIT;
	char *j;
	int k;

	ts[0] = mk("dir", a, "src/");
	ts[1] = mk("file", a, "lib,src");
	ts[2] = mk("dironly", a, "lib/");
	ts[3] = mk("glob", a, "*.c");
	ts[4] = mk("exact", a, "docs/a.md");
	ts[5] = mk("near", a, "docs/a,docs/a.m");
	ts[6] = mk("never", a, "../src");
	ts[7] = mk("all", a, ".");
	ts[8] = mk("one", a, "src"); /* its own file changed too */
	for (k = 0; k < 2; k++) {
		touches(&ids, hex[k], ts, 9);
		j = joined(&ids);
		ck_assert_str_eq(j, "all dir exact file glob");
		free(j);
		tm_strv_clear(&ids);
	}
	free_threads(ts, 9);
	free(a);
	free(few);
	free(many);
}
END_TEST

START_TEST(test_stale_touches_errors)
{
	char *a = commit("a", "src/x.c", NULL);
	tm_strv ids = TM_STRV_INIT;
	tm_thread *t = mk("one", a, "src");
	tm_git *g = open_repo(repo);

	ck_assert_int_eq(tm_stale_commit_touches(&ids, g, "HEAD", TDIR,
						 (const tm_thread *const *)&t,
						 1),
			 TM_EINVALID);
	ck_assert_int_eq(tm_stale_commit_touches(
				 &ids, g,
				 "0123456789abcdef0123456789abcdef01234567",
				 TDIR, (const tm_thread *const *)&t, 1),
			 TM_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "0123456789abcdef"));
	ck_assert_uint_eq(ids.n, 0);
	tm_git_free(g);
	tm_thread_free(t);
	free(a);
}
END_TEST

/* ---- helpers for the commands ---- */

START_TEST(test_stale_threads_dir)
{
	char *sub = tmt_join(repo, "pkg/app"), *outside = tmt_join(tmp, "out");
	char *link = tmt_join(tmp, "link"), *via_link, *d;
	tm_git *g;

	free(commit("a", "README", NULL));
	tmt_mkdirs(sub);
	tmt_mkdirs(outside);
	tmt_sh("ln -s '%s' '%s'", repo, link);
	via_link = tmt_join(link, "pkg");
	g = open_repo(repo);
	d = tm_stale_threads_dir(g, repo, "mon-app");
	ck_assert_str_eq(d, ".threadmind/threads/mon-app/");
	free(d);
	d = tm_stale_threads_dir(g, sub, "p");
	ck_assert_str_eq(d, "pkg/app/.threadmind/threads/p/");
	free(d);
	d = tm_stale_threads_dir(g, via_link, "p");
	ck_assert_str_eq(d, "pkg/.threadmind/threads/p/");
	free(d);
	ck_assert_ptr_null(tm_stale_threads_dir(g, outside, "p"));
	ck_assert_ptr_null(tm_stale_threads_dir(g, tmp, "p"));
	tm_git_free(g);
	free(via_link);
	free(link);
	free(outside);
	free(sub);
}
END_TEST

START_TEST(test_stale_describe_commit)
{
	char *a = commit("Fix the token refresh", "src/x.c", NULL);
	char *want = tmt_sh_out("git -C '%s' rev-parse --short %s", repo, a);
	char *abbrev = NULL, *subject = NULL;
	tm_git *g = open_repo(repo);

	ck_assert_int_eq(tm_stale_describe_commit(&abbrev, &subject, g, a), 0);
	ck_assert_str_eq(abbrev, want);
	ck_assert_str_eq(subject, "Fix the token refresh");
	free(abbrev);
	free(subject);
	abbrev = subject = NULL;
	ck_assert_int_eq(tm_stale_describe_commit(&abbrev, &subject, g, "abc"),
			 TM_EINVALID);
	ck_assert_int_eq(tm_stale_describe_commit(
				 &abbrev, &subject, g,
				 "0123456789abcdef0123456789abcdef01234567"),
			 TM_ENOTFOUND);
	ck_assert_ptr_null(abbrev);
	ck_assert_ptr_null(subject);
	tm_git_free(g);
	free(want);
	free(a);
}
END_TEST

/* A small seeded generator for the test below. */
static size_t next_rand(unsigned long long *seed, size_t n)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (size_t)(*seed >> 33) % n;
}

/* Which threads' specs match a path (tm_stale__specs_match, which tries a
 * glob only against the paths under its literal folder) against every
 * spec tried one by one, over seeded random globs and paths. */
START_TEST(test_stale_specs_match_every_spec)
{
	static const char *const parts[] = {"a", "b",    "ab", "/",   "*",
					    "?", "[ab]", ".",  "\\*", "c"};
	static const char *const in_path[] = {"a", "b", "ab", "/",
					      "c", ".", "[",  "]"};
	struct tm_stale_specs x;
	struct tm_stale_sizev got = {NULL, 0, 0}, want = {NULL, 0, 0};
	tm_thread *ts[40];
	char spec[64], path[64];
	unsigned long long seed = 7;
	size_t i, k, n, round, checked = 0;

	for (round = 0; round < 200; round++) {
		for (i = 0; i < 40; i++) {
			spec[0] = '\0';
			n = 1 + next_rand(&seed, 5);
			for (k = 0; k < n; k++)
				strcat(spec, parts[next_rand(&seed, 10)]);
			ts[i] = mk("t", NULL, spec);
		}
		tm_stale__specs_build(&x, (const tm_thread *const *)ts, 40,
				      NULL);
		for (k = 0; k < 200; k++) {
			path[0] = '\0';
			n = 1 + next_rand(&seed, 6);
			for (i = 0; i < n; i++)
				strcat(path, in_path[next_rand(&seed, 8)]);
			if (path[strlen(path) - 1] == '/')
				continue; /* a folder: match_prefix's job */
			got.n = want.n = 0;
			tm_stale__specs_match(&x, path, &got);
			for (i = 0; i < x.nspecs; i++)
				if (tm_pathspec_matches(&x.specs[i], path,
							strlen(path)))
					tm_stale__sizev_push(&want, x.owner[i]);
			tm_stale__sizev_unique(&got);
			tm_stale__sizev_unique(&want);
			ck_assert_msg(got.n == want.n &&
					      (!got.n ||
					       !memcmp(got.v, want.v,
						       got.n * sizeof(size_t))),
				      "path '%s': %zu threads, want %zu", path,
				      got.n, want.n);
			checked += want.n > 0;
		}
		tm_stale__specs_free(&x);
		free_threads(ts, 40);
	}
	ck_assert_uint_gt(checked, 1000); /* the globs do match */
	free(got.v);
	free(want.v);
}
END_TEST

Suite *stale_suite(void)
{
	Suite *s = suite_create("stale");
	TCase *tc = tcase_create("pathspec");

	/* every test runs git many times: slow on a busy machine */
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_stale_pathspec_table);
	tcase_add_test(tc, test_stale_pathspec_like_git);
	tcase_add_test(tc, test_stale_specs_match_every_spec);
	suite_add_tcase(s, tc);
	tc = tcase_create("compute");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_stale_not_stale_then_stale);
	tcase_add_test(tc, test_stale_thread_file_covers_commit);
	tcase_add_test(tc, test_stale_no_threads_dir);
	tcase_add_test(tc, test_stale_shared_commits);
	tcase_add_test(tc, test_stale_unknown_base);
	tcase_add_test(tc, test_stale_never_stale);
	tcase_add_test(tc, test_stale_newest_commit);
	tcase_add_test(tc, test_stale_unborn_head);
	suite_add_tcase(s, tc);
	tc = tcase_create("history");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_stale_merges_like_git);
	tcase_add_test(tc, test_stale_merge_parent_relevance);
	tcase_add_test(tc, test_stale_merge_of_feature);
	tcase_add_test(tc, test_stale_merge_against_other_parent);
	tcase_add_test(tc, test_stale_shallow_clone);
	tcase_add_test(tc, test_stale_many_threads_like_git);
	tcase_add_test(tc, test_stale_review_points_random);
	tcase_add_test(tc, test_stale_review_points_two_branches);
	tcase_add_test(tc, test_stale_rewritten_amend);
	tcase_add_test(tc, test_stale_rewritten_squash_and_merge);
	tcase_add_test(tc, test_stale_rewritten_uncommitted_review);
	tcase_add_test(tc, test_stale_identity_across_rename);
	tcase_add_test(tc, test_stale_blank_summary);
	suite_add_tcase(s, tc);

	tc = tcase_create("cache");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_stale_cache_same_answers);
	tcase_add_test(tc, test_stale_cache_corrupt);
	tcase_add_test(tc, test_stale_cache_base_fetched);
	tcase_add_test(tc, test_stale_cache_carried_forward);
	tcase_add_test(tc, test_stale_index_histories);
	tcase_add_test(tc, test_stale_index_forward_onto_base);
	tcase_add_test(tc, test_stale_index_base_pruned);
	tcase_add_test(tc, test_stale_index_corrupt);
	tcase_add_test(tc, test_stale_index_layers);
	tcase_add_test(tc, test_stale_index_stamped);
	tcase_add_test(tc, test_stale_index_forged_stamp);
	tcase_add_test(tc, test_stale_cache_concurrent);
	tcase_add_test(tc, test_stale_cache_progress);
	tcase_add_test(tc, test_stale_index_extends);
	suite_add_tcase(s, tc);
	tc = tcase_create("touches");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_stale_touches_commit);
	tcase_add_test(tc, test_stale_touches_root_commit);
	tcase_add_test(tc, test_stale_touches_thread_file);
	tcase_add_test(tc, test_stale_touches_few_and_many_paths);
	tcase_add_test(tc, test_stale_touches_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("helpers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_stale_threads_dir);
	tcase_add_test(tc, test_stale_describe_commit);
	suite_add_tcase(s, tc);
	return s;
}
