/*
 * Unit tests of lib/format/pathspec.c: normalisation, the literal and folder
 * prefixes, globs (fnmatch without flags: * and ? cross '/'), what is not
 * supported, and agreement with `git log -- <spec>` on one repository.
 */
#include "threadmind/pathspec.h"
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof(*(a)))

struct pcase {
	const char *spec, *path;
	bool match;
};

static void check_cases(const struct pcase *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ck_assert_msg(tm_pathspec_match(c[i].spec, c[i].path) ==
				      c[i].match,
			      "'%s' on '%s': want %d", c[i].spec, c[i].path,
			      c[i].match);
}

/* Parse `raw` and check the normalised pattern and the flags. */
static void check_parse(const char *raw, const char *pattern, bool dir_only,
			bool glob, bool all, bool never)
{
	tm_pathspec s;

	tm_pathspec_parse(&s, raw);
	ck_assert_msg(!strcmp(s.pattern, pattern), "'%s': pattern '%s'", raw,
		      s.pattern);
	ck_assert_uint_eq(s.len, strlen(pattern) - (dir_only ? 1 : 0));
	ck_assert_msg(s.dir_only == dir_only, "'%s': dir_only", raw);
	ck_assert_msg(s.glob == glob, "'%s': glob", raw);
	ck_assert_msg(s.all == all, "'%s': all", raw);
	ck_assert_msg(s.never == never, "'%s': never", raw);
	tm_pathspec_free(&s);
}

START_TEST(test_pathspec_parse)
{
	check_parse("src/auth", "src/auth", false, false, false, false);
	check_parse("./src//auth/", "src/auth/", true, false, false, false);
	check_parse("/src/./a/../b.c", "src/b.c", false, false, false, false);
	check_parse("src/..", "", false, false, true, false);
	check_parse(".", "", false, false, true, false);
	check_parse("", "", false, false, true, false);
	check_parse("../src", "src", false, false, false, true);
	check_parse("src/*.c", "src/*.c", false, true, false, false);
	check_parse("we\\*ird", "we\\*ird", false, true, false, false);
	check_parse("d[12]/", "d[12]/", true, true, false, false);
	tm_pathspec_free(NULL);
}
END_TEST

START_TEST(test_pathspec_literal_prefix)
{
	static const struct pcase c[] = {
		{"src/auth", "src/auth", true},
		{"src/auth", "src/auth/login.c", true},
		{"src/auth", "src/auth/a/b/c.c", true},
		{"src/auth", "src/auth.c", false},
		{"src/auth", "src/authx/a.c", false},
		{"src/auth", "src", false},
		{"src/auth", "lib/src/auth/a.c", false},
		{"src/auth/../lib", "src/lib/x", true},
		{"src/auth/../lib", "src/auth/x", false},
		{"../src", "src/a", false},
		{".", "a", true},
		{"", "a/b", true},
		/* glob characters also match themselves */
		{"dir[1]", "dir[1]/x", true},
		{"a*b", "a*b", true},
	};

	check_cases(c, N(c));
}
END_TEST

START_TEST(test_pathspec_folder_prefix)
{
	static const struct pcase c[] = {
		{"docs/", "docs/a.md", true},    {"docs/", "docs/a/b.md", true},
		{"docs/", "docs", false},        {"docs/", "docs.md", false},
		{"./docs//", "docs/a.md", true}, {"./docs//", "docs", false},
		{"d*/", "docs/a.md", false},     {"d*/", "d/", true},
	};

	check_cases(c, N(c));
}
END_TEST

START_TEST(test_pathspec_globs)
{
	static const struct pcase c[] = {
		/* * and ? cross '/' in a plain pathspec */
		{"*.c", "a.c", true},
		{"*.c", "src/auth/a.c", true},
		{"src/*.c", "src/a/b/c.c", true},
		{"src?a.c", "src/a.c", true},
		{"*", "a/b", true},
		{"**/b.c", "a/b.c", true},
		{"*.c", "a.h", false},
		{"*.c", "a.c/x", false},
		/* the whole path must match */
		{"src/a?", "src/ab/c", false},
		{"a*b", "a/x/b", true},
		{"a*b", "a/x/bc", false},
		/* a leading '.' is not special */
		{"*rc", ".bashrc", true},
		{"a/*", "a/.hidden", true},
		/* brackets, ranges, negation, classes */
		{"src/[ab].c", "src/b.c", true},
		{"src/[ab].c", "src/c.c", false},
		{"src/[a-c].c", "src/c.c", true},
		{"src/[!a].c", "src/a.c", false},
		{"src/[^a].c", "src/b.c", true},
		{"src/[[:digit:]].c", "src/7.c", true},
		{"src/[[:digit:]].c", "src/x.c", false},
		{"src/[]].c", "src/].c", true},
		/* backslash escapes */
		{"we\\*ird", "we*ird", true},
		{"we\\*ird", "weXird", false},
		{"a\\?", "a?", true},
		{"a\\?", "ab", false},
		/* case matters */
		{"*.C", "a.c", false},
	};

	check_cases(c, N(c));
}
END_TEST

/*
 * No `:(magic)`: a spec that starts with ':' is a plain pathspec (git
 * would read ":(glob)*.c" as "*.c" without crossing '/').
 */
START_TEST(test_pathspec_no_magic)
{
	static const struct pcase c[] = {
		{":(glob)*.c", "a.c", false},
		{":(glob)*.c", ":(glob)x.c", true},
		{":(exclude)a", "b", false},
		{":(literal)a", ":(literal)a/b", true},
	};

	check_cases(c, N(c));
	ck_assert(!tm_pathspec_match(NULL, "a"));
	ck_assert(!tm_pathspec_match("a", NULL));
}
END_TEST

/* tm_pathspec_matches with a parsed spec, for many paths. */
START_TEST(test_pathspec_parsed_once)
{
	static const char *const paths[] = {"src/a.c", "src/b/c.c", "src.c",
					    "lib/src/x.c", "src"};
	static const bool want[] = {true, true, false, false, true};
	tm_pathspec s;
	size_t i;

	tm_pathspec_parse(&s, "./src");
	for (i = 0; i < N(paths); i++)
		ck_assert_msg(tm_pathspec_matches(&s, paths[i],
						  strlen(paths[i])) == want[i],
			      "%s", paths[i]);
	tm_pathspec_free(&s);
	ck_assert_ptr_null(s.pattern);
}
END_TEST

/* ---- against git ---- */

static char *tmp, *repo;

static void setup(void)
{
	char *home = NULL;

	tmp = tmt_mkdtemp();
	home = tmt_join(tmp, "home");
	repo = tmt_join(tmp, "repo");
	tmt_mkdirs(home);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_CONFIG_COUNT");
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	free(home);
}

static void teardown(void)
{
	tmt_rmtree(tmp);
	free(tmp);
	free(repo);
}

/* Is `line` one of the lines of `text`? */
static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);
	const char *p = text;

	for (; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') &&
		    (p[len] == '\n' || p[len] == '\0'))
			return true;
	return false;
}

/* The files that `git log -- <spec>` lists are the files we match. */
START_TEST(test_pathspec_like_git)
{
	static const char *const files[] = {
		"src/a.c", "src/b/c.c", "src/b/d.h", "src/.hidden",
		"src.c",   "lib/x.c",   "docs/a.md", "docs.md",
		"top",     "7.c",       "x?y",       "a*b",
		"d]/e",    "A.C",       "dir.d/f",   "src/ab/c.txt",
		"x[abc",   "x[ab*",     "y[/z",      "w[]x",
		"y[/q/z",  "a[b]/z",    "a[b]/q/z",  "ab/z",
	};
	static const char *const specs[] = {
		"src",
		"src/",
		"./src/b/../",
		"src/b/.",
		"*.c",
		"src/*.c",
		"src/?.c",
		"*",
		"?",
		"*/c.c",
		"s*/*/c.*",
		"src/[ab]*",
		"src/[!a]*",
		"[[:digit:]]*",
		"x\\?y",
		"a\\*b",
		"a*b",
		"d]",
		"[d]]/e",
		"*.C",
		"docs*",
		"docs/",
		"*.d/",
		"src/a?",
		".",
		"src//b",
		"src/.h*",
		"*hidden",
		/* an unclosed '[': git's glob matches nothing, only the
		 * literal text names paths */
		"x[ab*",
		"x[a?c",
		"y[",
		"y[/*",
		"*[",
		"w[]x",
		"w[]*",
		"x[!ab*",
		"a[b]/*",
		"a[b]/?",
		"y[/?",
		"a[b]/[z",
	};
	size_t i, k;
	char *list;

	for (i = 0; i < N(files); i++) {
		char *path = tmt_join(repo, files[i]), *slash;

		slash = strrchr(path, '/');
		*slash = '\0';
		tmt_mkdirs(path);
		*slash = '/';
		tmt_write_file(path, "x\n", 2);
		free(path);
	}
	tmt_sh("cd '%s' && git init -q && git add -A && "
	       "git -c user.name=T -c user.email=t@example.com "
	       "-c commit.gpgsign=false commit -q -m all",
	       repo);
	for (i = 0; i < N(specs); i++) {
		list = tmt_sh_out("git -C '%s' log --format= --name-only -z "
				  "-- '%s' | tr '\\0' '\\n'",
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

/* The prefixes of a bounded tree diff (treediff.h): could a spec name
 * something under a folder?  Exact for literal specs. */
START_TEST(test_pathspec_may_match_under)
{
	static const struct {
		const char *spec, *dir;
		bool may;
	} cases[] = {
		{"src", "src", true},
		{"src", "src/a", true},
		{"src/a/b.c", "src", true},
		{"src/a/b.c", "src/a", true},
		{"src/a/b.c", "src/b", false},
		{"src", "srcx", false},
		{"srcx", "src", false},
		{"src/", "src", true},
		{"src/", "src/a", true},
		{"src/a/", "src", true},
		{"docs", "src", false},
		{"", "src", true},
		{".", "x/y", true},
		{"..", "x", false},
		{"src", "", true},
		{"*.c", "src", true},
		{"src/*.c", "src/a", true},
		{"src/*.c", "docs", false},
		{"sr*", "src", true},
		{"src/a*", "src", true},
		{"srcx*", "src", false},
		{"a[b]/z", "a[b]", true},
		{"s?c", "src", true},
		{"x?", "src", false},
	};
	static const char *const dirs[] = {"a",     "a/b", "b",  "ab",
					   "a/b/c", "a.b", "[a]"};
	static const char *const rest[] = {"x",   "b",    "c",    "b/c",
					   "a.c", "zz/q", "c/d/e"};
	static const char *const specs[] = {
		"a",     "a/",     "a/b",   "a/b/c", "b",    "ab",  "a/x",
		"a/b/x", "*",      "a*",    "*c",    "a/*",  "b/*", "?",
		"a?b",   "a/?",    "[a]",   "[a]/x", "a/b/", "*.c", "a/b*",
		"x*",    "a/[bc]", "\\[a]", ".",     "a/..", "zz",  "a/b/c/d/e",
	};
	tm_pathspec s;
	char path[64];
	size_t i, d, r;
	bool any;

	for (i = 0; i < N(cases); i++) {
		tm_pathspec_parse(&s, cases[i].spec);
		ck_assert_msg(tm_pathspec_may_match_under(
				      &s, cases[i].dir, strlen(cases[i].dir)) ==
				      cases[i].may,
			      "'%s' under '%s': want %d", cases[i].spec,
			      cases[i].dir, cases[i].may);
		tm_pathspec_free(&s);
	}
	/* never "no" for a folder holding a path the spec names */
	for (i = 0; i < N(specs); i++) {
		tm_pathspec_parse(&s, specs[i]);
		for (d = 0; d < N(dirs); d++) {
			any = false;
			for (r = 0; r < N(rest); r++) {
				snprintf(path, sizeof(path), "%s/%s", dirs[d],
					 rest[r]);
				any |= tm_pathspec_matches(&s, path,
							   strlen(path));
			}
			/* a literal spec names itself (and what is in it) */
			snprintf(path, sizeof(path), "%s/", dirs[d]);
			if (!s.glob && s.len > strlen(path) &&
			    !strncmp(s.pattern, path, strlen(path)))
				any = true;
			ck_assert_msg(
				!any || tm_pathspec_may_match_under(
						&s, dirs[d], strlen(dirs[d])),
				"'%s' under '%s': a path matches", specs[i],
				dirs[d]);
			/* exact without globs */
			if (!s.glob && !any)
				ck_assert_msg(
					!tm_pathspec_may_match_under(
						&s, dirs[d], strlen(dirs[d])) ||
						s.all,
					"'%s' under '%s': nothing "
					"matches",
					specs[i], dirs[d]);
		}
		tm_pathspec_free(&s);
	}
}
END_TEST

Suite *pathspec_suite(void)
{
	Suite *s = suite_create("pathspec");
	TCase *tc = tcase_create("match");

	tcase_add_test(tc, test_pathspec_parse);
	tcase_add_test(tc, test_pathspec_literal_prefix);
	tcase_add_test(tc, test_pathspec_folder_prefix);
	tcase_add_test(tc, test_pathspec_globs);
	tcase_add_test(tc, test_pathspec_no_magic);
	tcase_add_test(tc, test_pathspec_parsed_once);
	tcase_add_test(tc, test_pathspec_may_match_under);
	suite_add_tcase(s, tc);
	tc = tcase_create("git");
	/* one git log per spec: slow on a busy machine */
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pathspec_like_git);
	suite_add_tcase(s, tc);
	return s;
}
