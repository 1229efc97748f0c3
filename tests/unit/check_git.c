/*
 * Unit tests of lib/git/git.c against throwaway repositories built with the
 * real git binary, HOME pointing into the test's temp dir.
 */
#include "threadmind/git.h"
#include "git_internal.h"
#include "threadmind/error.h"
#include "threadmind/slug.h"
#include "test_util.h"

#include <check.h>
#include <git2.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#endif

/* git with a fixed identity, for the repositories the fast-path tests
 * build by hand (the others come from tmt_git_repo). */
#define GIT                                                         \
	"git -c user.name=Tester -c user.email=tester@example.com " \
	"-c init.defaultBranch=main -c commit.gpgsign=false "       \
	"-c advice.detachedHead=false "

static char *tmp;  /* the test's sandbox (tmt_sandbox) */
static char *home; /* $HOME inside it */

static void setup(void)
{
	tmp = tmt_sandbox();
	home = tmt_join(tmp, "home");
}

static void teardown(void)
{
	tmt_sandbox_end(tmp);
	free(home);
	tmp = home = NULL;
}

/* A new repository tmp/<name> on branch main (tmt_git_repo), with
 * `commits` commits. */
static char *make_repo(const char *name, int commits)
{
	char *path = tmt_git_repo(tmp, name);
	int i;

	for (i = 0; i < commits; i++)
		tmt_sh("git -C '%s' commit -q --allow-empty -m 'commit %d'",
		       path, i);
	return path;
}

/* realpath(path) + suffix (libgit2 reports resolved paths). */
static char *real(const char *path, const char *suffix)
{
	char buf[PATH_MAX];
	char *s = NULL;

	ck_assert_ptr_nonnull(realpath(path, buf));
	ck_assert_int_ge(asprintf(&s, "%s%s", buf, suffix), 0);
	return s;
}

static tm_git *open_ok(const char *path, bool from_env)
{
	tm_git *g = NULL;

	ck_assert_msg(tm_git_open(&g, path, from_env) == 0, "open %s: %s", path,
		      tm_error_last());
	ck_assert_ptr_nonnull(g);
	return g;
}

static void assert_paths(tm_git *g, const char *workdir, const char *gitdir,
			 const char *commondir)
{
	if (workdir)
		ck_assert_str_eq(tm_git_workdir(g), workdir);
	else
		ck_assert_ptr_null(tm_git_workdir(g));
	ck_assert_str_eq(tm_git_gitdir(g), gitdir);
	ck_assert_str_eq(tm_git_commondir(g), commondir);
}

START_TEST(test_git_open_from_subdir)
{
	char *repo = make_repo("repo", 1);
	char *sub = tmt_join(repo, "a/b");
	char *wd = real(repo, "/"), *gd = real(repo, "/.git/");
	tm_git *g;

	tmt_mkdirs(sub);
	g = open_ok(sub, false);
	assert_paths(g, wd, gd, gd);
	tm_git_free(g);
	g = open_ok(repo, false);
	assert_paths(g, wd, gd, gd);
	tm_git_free(g);
	tm_git_free(NULL);
	free(wd);
	free(gd);
	free(sub);
	free(repo);
}
END_TEST

START_TEST(test_git_open_linked_worktree)
{
	char *repo = make_repo("repo", 1);
	char *wt = tmt_join(tmp, "wt");
	char *wd, *gd, *cd, *branch = NULL;
	tm_git *g;

	tmt_sh("git -C '%s' worktree add -q -b side '%s'", repo, wt);
	wd = real(wt, "/");
	gd = real(repo, "/.git/worktrees/wt/");
	cd = real(repo, "/.git/");
	g = open_ok(wt, false);
	assert_paths(g, wd, gd, cd);
	ck_assert_int_eq(tm_git_current_branch(&branch, g), 0);
	ck_assert_str_eq(branch, "side");
	free(branch);
	tm_git_free(g);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_current_branch(&branch, g), 0);
	ck_assert_str_eq(branch, "main");
	free(branch);
	tm_git_free(g);
	free(wd);
	free(gd);
	free(cd);
	free(wt);
	free(repo);
}
END_TEST

START_TEST(test_git_open_bare)
{
	char *repo = tmt_join(tmp, "bare.git");
	char *gd;
	tm_git *g;

	tmt_sh("git -c init.defaultBranch=main init -q --bare '%s'", repo);
	gd = real(repo, "/");
	g = open_ok(repo, false);
	assert_paths(g, NULL, gd, gd);
	tm_git_free(g);
	free(gd);
	free(repo);
}
END_TEST

START_TEST(test_git_open_not_a_repo)
{
	char *plain = tmt_join(tmp, "plain");
	tm_git *g = (tm_git *)&g; /* must stay untouched */

	tmt_mkdirs(plain);
	/* git agrees (the temp dir must not lie inside a repository) */
	tmt_sh("! git -C '%s' rev-parse 2>/dev/null", plain);
	ck_assert_int_eq(tm_git_open(&g, plain, false), TM_ENOTFOUND);
	ck_assert_ptr_eq(g, (tm_git *)&g);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "not a git repository"));
	ck_assert_ptr_nonnull(strstr(tm_error_last(), plain));
	free(plain);
}
END_TEST

START_TEST(test_git_open_from_env)
{
	char *repo = make_repo("repo", 1);
	char *sub = tmt_join(repo, "a/b"), *ceiling = tmt_join(repo, "a");
	char *other = tmt_join(tmp, "other"), *plain = tmt_join(tmp, "plain");
	char *gitdir = tmt_join(repo, ".git");
	char *wd = real(repo, "/"), *gd = real(repo, "/.git/"), *owd;
	tm_git *g = NULL;

	tmt_mkdirs(sub);
	tmt_mkdirs(other);
	tmt_mkdirs(plain);
	owd = real(other, "/");

	/* a ceiling above the repository stops the search, as in git */
	setenv("GIT_CEILING_DIRECTORIES", ceiling, 1);
	ck_assert_int_eq(tm_git_open(&g, sub, true), TM_ENOTFOUND);
	g = open_ok(sub, false);
	tm_git_free(g);
	unsetenv("GIT_CEILING_DIRECTORIES");
	g = open_ok(sub, true);
	assert_paths(g, wd, gd, gd);
	tm_git_free(g);

	/* GIT_DIR wins over the path */
	setenv("GIT_DIR", gitdir, 1);
	g = open_ok(plain, true);
	assert_paths(g, wd, gd, gd);
	tm_git_free(g);
	ck_assert_int_eq(tm_git_open(&g, plain, false), TM_ENOTFOUND);

	/* and GIT_WORK_TREE moves the work tree */
	setenv("GIT_WORK_TREE", other, 1);
	g = open_ok(plain, true);
	assert_paths(g, owd, gd, gd);
	tm_git_free(g);
	g = open_ok(repo, false);
	assert_paths(g, wd, gd, gd);
	tm_git_free(g);

	/* GIT_DIR that is no repository */
	setenv("GIT_DIR", plain, 1);
	ck_assert_int_eq(tm_git_open(&g, repo, true), TM_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), plain));
	unsetenv("GIT_WORK_TREE");
	ck_assert_int_eq(tm_git_open(&g, repo, true), TM_ENOTFOUND);

	free(owd);
	free(wd);
	free(gd);
	free(gitdir);
	free(plain);
	free(other);
	free(ceiling);
	free(sub);
	free(repo);
}
END_TEST

/* The current branch of `repo` (NULL when detached). */
static char *branch_of(const char *repo)
{
	char *branch = (char *)"unset";
	tm_git *g = open_ok(repo, false);

	ck_assert_msg(tm_git_current_branch(&branch, g) == 0, "%s",
		      tm_error_last());
	tm_git_free(g);
	return branch;
}

START_TEST(test_git_branch_main)
{
	char *repo = make_repo("repo", 1);
	char *branch = branch_of(repo);

	ck_assert_str_eq(branch, "main");
	free(branch);
	free(repo);
}
END_TEST

START_TEST(test_git_branch_with_slash)
{
	char *repo = make_repo("repo", 1);
	char *branch;

	tmt_sh("git -C '%s' checkout -q -b feature/x", repo);
	branch = branch_of(repo);
	ck_assert_str_eq(branch, "feature/x");
	free(branch);
	free(repo);
}
END_TEST

START_TEST(test_git_branch_detached)
{
	char *repo = make_repo("repo", 2);
	char *branch;

	tmt_sh("git -C '%s' checkout -q --detach HEAD~1", repo);
	branch = branch_of(repo);
	ck_assert_ptr_null(branch);
	free(repo);
}
END_TEST

START_TEST(test_git_branch_unborn)
{
	char *repo = make_repo("repo", 0);
	char *branch = branch_of(repo);

	ck_assert_str_eq(branch, "main");
	free(branch);
	tmt_sh("git -C '%s' symbolic-ref HEAD refs/heads/feature/new", repo);
	branch = branch_of(repo);
	ck_assert_str_eq(branch, "feature/new");
	free(branch);
	free(repo);
}
END_TEST

START_TEST(test_git_head_matches_rev_parse)
{
	char *repo = make_repo("repo", 2);
	char *want = tmt_sh_out("git -C '%s' rev-parse HEAD", repo);
	char hex[41];
	tm_git *g = open_ok(repo, false);

	ck_assert_int_eq(tm_git_head(hex, g), 0);
	ck_assert_uint_eq(strlen(hex), 40);
	ck_assert_str_eq(hex, want);
	tm_git_free(g);
	free(want);

	/* detached at another commit */
	tmt_sh("git -C '%s' checkout -q --detach HEAD~1", repo);
	want = tmt_sh_out("git -C '%s' rev-parse HEAD", repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_head(hex, g), 0);
	ck_assert_str_eq(hex, want);
	tm_git_free(g);
	free(want);
	free(repo);
}
END_TEST

START_TEST(test_git_head_unborn)
{
	char *repo = make_repo("repo", 0);
	char hex[41] = "untouched";
	tm_git *g = open_ok(repo, false);

	ck_assert_int_eq(tm_git_head(hex, g), TM_ENOTFOUND);
	ck_assert_str_eq(hex, "untouched");
	tm_git_free(g);
	free(repo);
}
END_TEST

START_TEST(test_git_config_string)
{
	char *repo = make_repo("repo", 0);
	char *v = NULL;
	tm_git *g;

	tmt_sh("git config --global threadmind.global from-home");
	tmt_sh("git config --global threadmind.both from-home");
	tmt_sh("git -C '%s' config threadmind.local 'from repo'", repo);
	tmt_sh("git -C '%s' config threadmind.both from-repo", repo);
	g = open_ok(repo, false);

	ck_assert_int_eq(tm_git_config_string(&v, g, "threadmind.local"), 0);
	ck_assert_str_eq(v, "from repo");
	free(v);
	ck_assert_int_eq(tm_git_config_string(&v, g, "threadmind.global"), 0);
	ck_assert_str_eq(v, "from-home");
	free(v);
	ck_assert_int_eq(tm_git_config_string(&v, g, "threadmind.both"), 0);
	ck_assert_str_eq(v, "from-repo");
	free(v);
	v = NULL;
	ck_assert_int_eq(tm_git_config_string(&v, g, "threadmind.unset"),
			 TM_ENOTFOUND);
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "threadmind.unset"));
	ck_assert_int_eq(tm_git_config_string(&v, g, "nodot"), TM_EINVALID);
	ck_assert_int_eq(tm_git_config_string(&v, g, ""), TM_EINVALID);

	/* without a repository: the global file only */
	ck_assert_int_eq(tm_git_config_string(&v, NULL, "threadmind.both"), 0);
	ck_assert_str_eq(v, "from-home");
	free(v);
	v = NULL;
	ck_assert_int_eq(tm_git_config_string(&v, NULL, "threadmind.local"),
			 TM_ENOTFOUND);
	ck_assert_ptr_null(v);
	tm_git_free(g);
	free(repo);
}
END_TEST

START_TEST(test_git_config_command_line)
{
	char *repo = make_repo("repo", 0);
	char *v = NULL;
	bool b = false;
	tm_git *g;

	tmt_sh("git -C '%s' config color.ui never", repo);
	g = open_ok(repo, false);
	/* git -c color.ui=always -c user.name="it's me" -c core.flag */
	setenv("GIT_CONFIG_PARAMETERS",
	       "'color.ui'='auto' 'Color.UI'='always' "
	       "'user.name'='it'\\''s me' 'core.flag' 'old.style=v'",
	       1);
	ck_assert_int_eq(tm_git_config_string(&v, g, "color.ui"), 0);
	ck_assert_str_eq(v, "always");
	free(v);
	ck_assert_int_eq(tm_git_config_string(&v, g, "user.name"), 0);
	ck_assert_str_eq(v, "it's me");
	free(v);
	ck_assert_int_eq(tm_git_config_bool(&b, g, "core.flag", false), 0);
	ck_assert(b);
	ck_assert_int_eq(tm_git_config_string(&v, g, "old.style"), 0);
	ck_assert_str_eq(v, "v");
	free(v);
	setenv("GIT_CONFIG_COUNT", "1", 1);
	setenv("GIT_CONFIG_KEY_0", "color.ui", 1);
	setenv("GIT_CONFIG_VALUE_0", "false", 1);
	ck_assert_int_eq(tm_git_config_string(&v, g, "color.ui"), 0);
	ck_assert_str_eq(v, "false");
	free(v);
	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_CONFIG_COUNT");
	ck_assert_int_eq(tm_git_config_string(&v, g, "color.ui"), 0);
	ck_assert_str_eq(v, "never");
	free(v);
	tm_git_free(g);
	free(repo);
}
END_TEST

START_TEST(test_git_config_xdg)
{
	char *path = tmt_join(home, ".config/git/config");
	const char text[] = "[threadmind]\n\txdg = from-xdg\n";
	char *v = NULL;

	tmt_write_file(path, text, sizeof(text) - 1);
	ck_assert_int_eq(tm_git_config_string(&v, NULL, "threadmind.xdg"), 0);
	ck_assert_str_eq(v, "from-xdg");
	free(v);
	free(path);
}
END_TEST

START_TEST(test_git_config_bool)
{
	static const struct {
		const char *value;
		bool want;
	} cases[] = {
		{"yes", true},  {"true", true}, {"on", true},     {"1", true},
		{"TRUE", true}, {"no", false},  {"off", false},   {"0", false},
		{"", false},    {"10", true},   {"false", false},
	};
	char *repo = make_repo("repo", 0);
	char *config = tmt_join(repo, ".git/config");
	char key[64];
	bool b;
	size_t i;
	tm_git *g;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tmt_sh("git -C '%s' config threadmind.case%zu '%s'", repo, i,
		       cases[i].value);
	tmt_sh("git -C '%s' config threadmind.bad maybe", repo);
	tmt_sh("printf '[threadmind]\\n\\tbare\\n' >> '%s'", config);
	g = open_ok(repo, false);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(key, sizeof(key), "threadmind.case%zu", i);
		b = !cases[i].want;
		ck_assert_msg(tm_git_config_bool(&b, g, key, !cases[i].want) ==
				      0,
			      "%s", tm_error_last());
		ck_assert_msg(b == cases[i].want, "'%s' read as %d",
			      cases[i].value, b);
	}
	b = false;
	ck_assert_int_eq(tm_git_config_bool(&b, g, "threadmind.bare", false),
			 0);
	ck_assert(b);
	ck_assert_int_eq(tm_git_config_bool(&b, g, "threadmind.unset", true),
			 0);
	ck_assert(b);
	ck_assert_int_eq(tm_git_config_bool(&b, g, "threadmind.unset", false),
			 0);
	ck_assert(!b);
	b = true;
	ck_assert_int_eq(tm_git_config_bool(&b, g, "threadmind.bad", false),
			 TM_EINVALID);
	ck_assert(b);
	ck_assert_str_eq(tm_error_last(), "bad boolean config value 'maybe' "
					  "for 'threadmind.bad'");
	tm_git_free(g);
	free(config);
	free(repo);
}
END_TEST

/* What the real git says: the first 4 hex digits of the blob hash. */
/* user.name and user.email into name / email (NULL: unset), checked */
static void assert_user(tm_git *g, const char *name, const char *email)
{
	char *n = NULL, *e = NULL;

	ck_assert_int_eq(tm_git_user(&n, &e, g), 0);
	if (name)
		ck_assert_str_eq(n, name);
	else
		ck_assert_ptr_null(n);
	if (email)
		ck_assert_str_eq(e, email);
	else
		ck_assert_ptr_null(e);
	free(n);
	free(e);
}

START_TEST(test_git_user_from_config)
{
	char *repo = make_repo("repo", 0);
	tm_git *g;

	/* nothing configured anywhere */
	assert_user(NULL, NULL, NULL);

	tmt_sh("git config --global user.name Mahmoud");
	tmt_sh("git config --global user.email m@example.com");
	/* the repository's name wins, the global email shows through */
	tmt_sh("git -C '%s' config user.name 'Ada Lovelace' && "
	       "git -C '%s' config --unset user.email",
	       repo, repo);
	assert_user(NULL, "Mahmoud", "m@example.com");

	/* the repository's name, the global e-mail */
	g = open_ok(repo, false);
	assert_user(g, "Ada Lovelace", "m@example.com");
	tm_git_free(g);
	free(repo);
}
END_TEST

START_TEST(test_git_hash_blob)
{
	char hex[41];
	char *want = tmt_sh_out("printf %%s 'a@b' | git hash-object --stdin");

	ck_assert_int_eq(tm_git_hash_blob(hex, "a@b", 3), 0);
	ck_assert_str_eq(hex, want);
	free(want);
	want = tmt_sh_out("git hash-object --stdin </dev/null");
	ck_assert_int_eq(tm_git_hash_blob(hex, NULL, 0), 0);
	ck_assert_str_eq(hex, want);
	free(want);
}
END_TEST

START_TEST(test_git_has_commit)
{
	char *repo = make_repo("repo", 2);
	char *head = tmt_sh_out("git -C '%s' rev-parse HEAD", repo);
	char *parent = tmt_sh_out("git -C '%s' rev-parse HEAD~1", repo);
	char *tree = tmt_sh_out("git -C '%s' rev-parse 'HEAD^{tree}'", repo);
	char *blob = tmt_sh_out(
		"printf blob | git -C '%s' hash-object -w --stdin", repo);
	char upper[41], other[41];
	tm_git *g = open_ok(repo, false);
	size_t i;

	ck_assert(tm_git_has_commit(g, head));
	ck_assert(tm_git_has_commit(g, parent));
	for (i = 0; i < 41; i++)
		upper[i] =
			(char)(head[i] >= 'a' ? head[i] - 'a' + 'A' : head[i]);
	ck_assert(tm_git_has_commit(g, upper));

	/* a random 40-hex name, and HEAD with its last digit changed */
	ck_assert(!tm_git_has_commit(
		g, "3f1c9a2b7d4e5f60718293a4b5c6d7e8f9012345"));
	memcpy(other, head, 41);
	other[39] = other[39] == '0' ? '1' : '0';
	ck_assert(!tm_git_has_commit(g, other));

	ck_assert(!tm_git_has_commit(g, tree));
	ck_assert(!tm_git_has_commit(g, blob));
	ck_assert(!tm_git_has_commit(g, NULL));
	ck_assert(!tm_git_has_commit(g, ""));
	head[39] = '\0';
	ck_assert(!tm_git_has_commit(g, head));
	head[39] = 'g';
	ck_assert(!tm_git_has_commit(g, head));
	tm_git_free(g);
	free(blob);
	free(tree);
	free(parent);
	free(head);
	free(repo);
}
END_TEST

/* A history where a.txt is added, deleted, and brought back by the merge
 * of a branch that edited it: tm_git_last_deletion finds the deletion, as
 * `git log --full-history --diff-filter=D` lists it first. */
START_TEST(test_git_last_deletion)
{
	char *repo = make_repo("hist", 1);
	char *want, *file, hex[41];
	tm_git *g = open_ok(repo, false);

	ck_assert_int_eq(tm_git_last_deletion(hex, g, "d/a.txt"), 0);
	tmt_sh("cd '%s' && mkdir d && echo 1 >d/a.txt && git add -A && "
	       "git commit -qm add && git rm -q d/a.txt && "
	       "git commit -qm del1 && git checkout -qb side HEAD~1 && "
	       "echo 2 >>d/a.txt && git commit -qam edit && "
	       "git checkout -q - && git merge -q --no-edit side 2>/dev/null; "
	       "git checkout -q --theirs d/a.txt && git add d/a.txt && "
	       "git commit -qm merged",
	       repo);
	/* the merge brought it back: the newest deletion is still del1 */
	want = tmt_sh_out("git -C '%s' log --full-history --format=%%H "
			  "--diff-filter=D -1 -- d/a.txt",
			  repo);
	ck_assert_int_eq(tm_git_last_deletion(hex, g, "d/a.txt"), 1);
	ck_assert_str_eq(hex, want);
	free(want);
	/* as it was then: the blob at the commit before the deletion */
	file = tmt_join(repo, "d/a.txt");
	ck_assert_int_eq(tm_git_same_as_at(g, hex, "d/a.txt", file),
			 TM_GIT_ABSENT_THEN);
	want = tmt_sh_out("git -C '%s' rev-parse 'HEAD^2~1'", repo);
	ck_assert_int_eq(tm_git_same_as_at(g, want, "d/a.txt", file),
			 TM_GIT_CHANGED);
	free(want);
	want = tmt_sh_out("git -C '%s' rev-parse 'HEAD^2'", repo);
	ck_assert_int_eq(tm_git_same_as_at(g, want, "d/a.txt", file),
			 TM_GIT_SAME);
	ck_assert_int_eq(tm_git_last_deletion(hex, g, "d/none"), 0);
	free(want);
	free(file);
	tm_git_free(g);
	free(repo);
}
END_TEST

START_TEST(test_git_error_message)
{
	git_repository *repo = NULL;

	/* no libgit2 error at hand: a fixed text, never a NULL deref */
	git_error_clear();
	ck_assert_int_eq(tm_git_error(TM_ERROR, "cannot do %s", "it"),
			 TM_ERROR);
	ck_assert_str_eq(tm_error_last(), "cannot do it: libgit2 error");
	/* after a failing call: its message follows ours */
	ck_assert_int_lt(git_repository_open(&repo, "/nonexistent/x"), 0);
	ck_assert_int_eq(tm_git_error(TM_ENOTFOUND, "open '%s'", "x"),
			 TM_ENOTFOUND);
	ck_assert_msg(
		!strncmp(tm_error_last(), "open 'x': ", 10) &&
			strlen(tm_error_last()) > 10 &&
			strcmp(tm_error_last(), "open 'x': libgit2 error"),
		"got '%s'", tm_error_last());
}
END_TEST

START_TEST(test_git_is_hex_oid)
{
	const char *sha1 = "0123456789abcdefABCDEF0123456789abcdef01";
	char sha256[65];

	memset(sha256, 'a', 64);
	sha256[64] = '\0';
	ck_assert(tm_git_is_hex_oid(sha1, 40));
	ck_assert(!tm_git_is_hex_oid(sha1, 39));
	ck_assert(!tm_git_is_hex_oid(sha256, 41));
	ck_assert(!tm_git_is_hex_oid(sha256, 64));
	ck_assert(!tm_git_is_hex_oid(NULL, 40));
	ck_assert(!tm_git_is_hex_oid("0123456789abcdef0123456789abcdef0123456g",
				     40));
	ck_assert(!tm_git_is_hex_oid("0123456789abcdef 123456789abcdef01234567",
				     40));
	/* the length counts, not the NUL */
	ck_assert(tm_git_is_hex_oid(
		"0123456789abcdef0123456789abcdef01234567xyz", 40));
}
END_TEST

START_TEST(test_git_conflict_style)
{
	char *repo = make_repo("repo", 0);
	tm_git *g = open_ok(repo, false);

	ck_assert_int_eq(tm_git_conflict_style(g), TM_CONFLICT_STYLE_MERGE);
	tm_git_free(g);
	tmt_sh("git -C '%s' config merge.conflictStyle diff3", repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_conflict_style(g), TM_CONFLICT_STYLE_DIFF3);
	tm_git_free(g);
	tmt_sh("git -C '%s' config merge.conflictStyle zdiff3", repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_conflict_style(g), TM_CONFLICT_STYLE_ZDIFF3);
	tm_git_free(g);
	tmt_sh("git -C '%s' config merge.conflictStyle fancy", repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_conflict_style(g), TM_CONFLICT_STYLE_MERGE);
	tm_git_free(g);
	/* without a repository: the global file */
	tmt_sh("git config --global merge.conflictStyle diff3");
	ck_assert_int_eq(tm_git_conflict_style(NULL), TM_CONFLICT_STYLE_DIFF3);
	ck_assert_str_eq(tm_error_last(), "");
	free(repo);
}
END_TEST

/*
 * What g says, with the fast path or not: "workdir|gitdir|commondir|
 * branch|head" (head "-" when unborn, branch "-" when detached).
 */
static char *describe(tm_git *g)
{
	char hex[41], *branch = NULL, *s = NULL;
	const char *wd = tm_git_workdir(g);
	int herr;

	ck_assert_int_eq(tm_git_current_branch(&branch, g), 0);
	herr = tm_git_head(hex, g);
	ck_assert(herr == 0 || herr == TM_ENOTFOUND);
	ck_assert_int_ge(asprintf(&s, "%s|%s|%s|%s|%s", wd ? wd : "(bare)",
				  tm_git_gitdir(g), tm_git_commondir(g),
				  branch ? branch : "-", herr ? "-" : hex),
			 0);
	free(branch);
	return s;
}

/*
 * Open `path` both ways and compare; `fast` says whether the fast path
 * must have answered everything without opening libgit2.
 */
static void assert_same_both_ways(const char *path, bool from_env, bool fast)
{
	tm_git *g = open_ok(path, from_env);
	char *quick = describe(g), *slow;

	ck_assert_msg(tm_git__libgit2_opened(g) == !fast,
		      "%s: libgit2 %s opened (%s)", path,
		      fast ? "was" : "was not", quick);
	tm_git_free(g);
	tm_git__set_fast_path(false);
	g = open_ok(path, from_env);
	ck_assert(tm_git__libgit2_opened(g));
	slow = describe(g);
	tm_git_free(g);
	tm_git__set_fast_path(true);
	ck_assert_str_eq(quick, slow);
	free(quick);
	free(slow);
}

START_TEST(test_git_fast_path_layouts)
{
	char *repo = make_repo("repo", 2), *sub = tmt_join(repo, "a/b");
	char *wt = tmt_join(tmp, "wt"), *sep = tmt_join(tmp, "sep");
	char *sepgit = tmt_join(tmp, "sep.git"), *rel = tmt_join(tmp, "rel");
	char *dotgit;

	tmt_mkdirs(sub);
	assert_same_both_ways(repo, false, true);
	assert_same_both_ways(sub, false, true);
	assert_same_both_ways(sub, true, true);
	/* a branch with a slash, then packed refs only */
	tmt_sh(GIT "-C '%s' checkout -q -b feature/x", repo);
	assert_same_both_ways(sub, true, true);
	tmt_sh(GIT "-C '%s' pack-refs --all --prune", repo);
	dotgit = tmt_join(repo, ".git/refs/heads/feature/x");
	ck_assert(access(dotgit, F_OK) < 0);
	free(dotgit);
	assert_same_both_ways(sub, true, true);
	/* detached, then unborn */
	tmt_sh(GIT "-C '%s' checkout -q --detach HEAD~1", repo);
	assert_same_both_ways(repo, true, true);
	tmt_sh(GIT "-C '%s' symbolic-ref HEAD refs/heads/none/yet", repo);
	assert_same_both_ways(repo, true, true);
	tmt_sh(GIT "-C '%s' checkout -q main", repo);
	/* a linked worktree, from inside it */
	tmt_sh(GIT "-C '%s' worktree add -q -b side '%s'", repo, wt);
	tmt_mkdirs(sub);
	assert_same_both_ways(wt, true, true);
	assert_same_both_ways(repo, true, true);
	/* an absolute gitdir: file, then a relative one */
	tmt_sh(GIT "init -q --separate-git-dir '%s' '%s'", sepgit, sep);
	tmt_sh(GIT "-C '%s' commit -q --allow-empty -m one", sep);
	assert_same_both_ways(sep, true, true);
	tmt_mkdirs(rel);
	dotgit = tmt_join(rel, ".git");
	tmt_write_file(dotgit, "gitdir: ../sep.git\n", 19);
	assert_same_both_ways(rel, true, true);
	free(dotgit);
	free(rel);
	free(sepgit);
	free(sep);
	free(wt);
	free(sub);
	free(repo);
}
END_TEST

/* What the fast path leaves to libgit2, answered as libgit2 answers. */
START_TEST(test_git_fast_path_falls_back)
{
	char *repo = make_repo("repo", 2), *bare = tmt_join(tmp, "bare.git");
	char *other = tmt_join(tmp, "other"), *gitdir = tmt_join(repo, ".git");
	char *head = tmt_join(repo, ".git/HEAD"), *v = NULL;
	tm_git *g;

	/* GIT_DIR, GIT_WORK_TREE */
	setenv("GIT_DIR", gitdir, 1);
	assert_same_both_ways(repo, true, false);
	assert_same_both_ways(repo, false, true); /* not from the env */
	tmt_mkdirs(other);
	setenv("GIT_WORK_TREE", other, 1);
	assert_same_both_ways(repo, true, false);
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_DIR");
	/* a bare repository */
	tmt_sh(GIT "init -q --bare '%s'", bare);
	assert_same_both_ways(bare, false, false);
	/* inside the git dir */
	assert_same_both_ways(gitdir, false, false);
	/* HEAD naming something else than a branch */
	tmt_sh(GIT "-C '%s' update-ref refs/remotes/o/x HEAD", repo);
	tmt_sh(GIT "-C '%s' symbolic-ref HEAD refs/remotes/o/x", repo);
	assert_same_both_ways(repo, false, false);
	/* a branch that is a symbolic ref itself */
	tmt_sh(GIT "-C '%s' symbolic-ref refs/heads/alias refs/heads/main",
	       repo);
	tmt_sh(GIT "-C '%s' symbolic-ref HEAD refs/heads/alias", repo);
	assert_same_both_ways(repo, false, false);
	tmt_write_file(head, "ref: refs/heads/main\n", 21);
	assert_same_both_ways(repo, false, true);
	/* config that could move the work tree or include another file */
	tmt_sh("git -C '%s' config core.worktree '%s'", repo, other);
	assert_same_both_ways(repo, false, false);
	tmt_sh("git -C '%s' config --unset core.worktree", repo);
	tmt_sh("git config --global include.path '%s/x'", home);
	assert_same_both_ways(repo, false, false);
	tmt_sh("git config --global --unset include.path");
	assert_same_both_ways(repo, false, true);

	/* threadmind.* keys: unset without libgit2 until a file names one */
	g = open_ok(repo, true);
	ck_assert_int_eq(tm_git_config_string(&v, g, "threadmind.hooks"),
			 TM_ENOTFOUND);
	ck_assert(!tm_git__libgit2_opened(g));
	/* any other key is libgit2's (the sandbox's repositories set
	 * user.name, so ask for one nobody sets) */
	ck_assert_int_eq(tm_git_config_string(&v, g, "core.threadmindnone"),
			 TM_ENOTFOUND);
	ck_assert(tm_git__libgit2_opened(g));
	tm_git_free(g);
	tmt_sh("git config --global ThreadMind.Hooks off");
	g = open_ok(repo, true);
	ck_assert_int_eq(tm_git_config_string(&v, g, "threadmind.hooks"), 0);
	ck_assert_str_eq(v, "off");
	free(v);
	tm_git_free(g);
	free(head);
	free(gitdir);
	free(other);
	free(bare);
	free(repo);
}
END_TEST

/* Keys a caller names with tm_git_config_fast (the CLI: color.*, asked on
 * every run): unset without libgit2 until a config file mentions them;
 * libgit2's before they are named. */
START_TEST(test_git_color_keys_without_libgit2)
{
	char *repo = tmt_git_repo(tmp, "colors"), *v = NULL;
	tm_git *g = open_ok(repo, true);
	bool b;

	/* not named yet: libgit2 answers */
	ck_assert_int_eq(tm_git_config_string(&v, g, "color.ui"), TM_ENOTFOUND);
	ck_assert(tm_git__libgit2_opened(g));
	tm_git_free(g);
	ck_assert_int_eq(tm_git_config_fast("color.diff.new"), TM_EINVALID);
	ck_assert_int_eq(tm_git_config_fast(""), TM_EINVALID);
	ck_assert_int_eq(tm_git_config_fast("color"), 0);
	ck_assert_int_eq(tm_git_config_fast("Color"), 0); /* once */
	g = open_ok(repo, true);
	ck_assert_int_eq(tm_git_config_string(&v, g, "color.ui"), TM_ENOTFOUND);
	ck_assert_int_eq(tm_git_config_string(&v, g, "Color.threadmind"),
			 TM_ENOTFOUND);
	ck_assert(!tm_git__libgit2_opened(g));
	tm_git_free(g);
	tmt_sh("git config --global color.ui always");
	g = open_ok(repo, true);
	ck_assert_int_eq(tm_git_config_string(&v, g, "color.ui"), 0);
	ck_assert_str_eq(v, "always");
	free(v);
	ck_assert(tm_git__libgit2_opened(g));
	tm_git_free(g);
	tmt_sh("git config --global --unset color.ui");
	/* a bad boolean, before anything initialised libgit2: an error */
	setenv("GIT_CONFIG_PARAMETERS", "'color.ui'='bogus'", 1);
	g = open_ok(repo, true);
	ck_assert_int_eq(tm_git_config_bool(&b, g, "color.ui", false),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'bogus'"));
	tm_git_free(g);
	unsetenv("GIT_CONFIG_PARAMETERS");
	tmt_sh("git -C '%s' config color.threadmind never", repo);
	g = open_ok(repo, true);
	ck_assert_int_eq(tm_git_config_string(&v, g, "color.threadmind"), 0);
	ck_assert_str_eq(v, "never");
	free(v);
	tm_git_free(g);
	free(repo);
}
END_TEST

/* merge.threadmind.driver as the fast path's scan reads it, checked
 * against libgit2 (the fast path off) on the same files. */
START_TEST(test_git_config_is_set_driver_without_libgit2)
{
	static const struct {
		const char *text;
		bool set;
	} cases[] = {
		{"", false},
		{"[merge \"threadmind\"]\n\tname = x\n", false},
		{"[merge \"threadmind\"]\n\tdriver = x %O\n", true},
		{"[merge \"threadmind\"]\n\tDriver=x\n", true},
		{"[Merge \"threadmind\"] driver = x\n", true},
		{"[merge.threadmind]\n driver = x\n", true},
		{"[merge \"ThreadMind\"]\n\tdriver = x\n", false},
		{"[merge \"threadmind\"]\n\t# driver = x\n", false},
		{"[merge \"threadmindx\"]\n\tdriver = x\n", false},
		{"[merge \"threadmind\"]\n[core]\n\tdriver = x\n", false},
		{"[threadmind]\n\thooks = false\n", false},
		{"[merge \"threadmind\"]\n\tdrivers = x\n", false},
		{"[merge \"thread\\mind\"]\n\tdriver = x\n", true},
	};
	char *repo = tmt_git_repo(tmp, "drv");
	char *cfg = tmt_join(repo, ".git/config");
	char *base = tmt_read_file(cfg, NULL);
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *text = NULL;
		int fast;

		ck_assert_int_ge(asprintf(&text, "%s%s", base, cases[i].text),
				 0);
		tmt_write_file(cfg, text, strlen(text));
		for (fast = 1; fast >= 0; fast--) {
			tm_git *g;
			bool set = !cases[i].set;

			tm_git__set_fast_path(fast);
			g = open_ok(repo, true);
			ck_assert_int_eq(
				tm_git_config_is_set(&set, g,
						     "merge.threadmind.driver"),
				0);
			ck_assert_msg(set == cases[i].set, "case %zu (%s): %d",
				      i, fast ? "fast" : "libgit2", set);
			if (fast)
				ck_assert(!tm_git__libgit2_opened(g));
			tm_git_free(g);
		}
		free(text);
	}
	tm_git__set_fast_path(true);
	/* `git -c` counts, and other keys are read as always */
	setenv("GIT_CONFIG_PARAMETERS", "'merge.threadmind.driver'='y'", 1);
	{
		tm_git *g = open_ok(repo, true);
		bool set = false;

		ck_assert_int_eq(tm_git_config_is_set(
					 &set, g, "merge.threadmind.driver"),
				 0);
		ck_assert(set);
		ck_assert(tm_git_config_on_command_line(
			"Merge.threadmind.DRIVER"));
		ck_assert(!tm_git_config_on_command_line("threadmind.hooks"));
		ck_assert_int_eq(tm_git_config_is_set(&set, g, "user.nothing"),
				 0);
		ck_assert(!set);
		tm_git_free(g);
	}
	unsetenv("GIT_CONFIG_PARAMETERS");
	free(base);
	free(cfg);
	free(repo);
}
END_TEST

/* ---- git's state (git_state.c) ---- */

START_TEST(test_git_sequence_in_progress)
{
	static const char *const dirs[] = {"rebase-merge", "rebase-apply",
					   "sequencer"};
	char *repo = make_repo("seq", 1);
	tm_git *g;
	size_t i;

	g = open_ok(repo, false);
	ck_assert(!tm_git_sequence_in_progress(g));
	tm_git_free(g);
	for (i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		tmt_sh("mkdir '%s/.git/%s'", repo, dirs[i]);
		g = open_ok(repo, false);
		ck_assert(tm_git_sequence_in_progress(g));
		tm_git_free(g);
		tmt_sh("rmdir '%s/.git/%s'", repo, dirs[i]);
	}
	/* a linked worktree has its own */
	tmt_sh("cd '%s' && git worktree add -q ../wt && mkdir "
	       ".git/worktrees/wt/rebase-merge",
	       repo);
	g = open_ok(repo, false);
	ck_assert(!tm_git_sequence_in_progress(g));
	tm_git_free(g);
	{
		char *wt = tmt_join(tmp, "wt");

		g = open_ok(wt, false);
		ck_assert(tm_git_sequence_in_progress(g));
		tm_git_free(g);
		free(wt);
	}
	free(repo);
}
END_TEST

START_TEST(test_git_previous_branch)
{
	char *repo = make_repo("prev", 1), *b = NULL;
	tm_git *g;

	tmt_sh("cd '%s' && git checkout -q -b feature/x && "
	       "git checkout -q -b topic",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_previous_branch(&b, g), 0);
	ck_assert_str_eq(b, "feature/x");
	free(b);
	tm_git_free(g);
	/* from a detached HEAD, or not a checkout last: unknown */
	tmt_sh("cd '%s' && git checkout -q --detach && "
	       "git checkout -q main",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_previous_branch(&b, g), 0);
	ck_assert_ptr_null(b);
	tm_git_free(g);
	tmt_sh("cd '%s' && git checkout -q topic && "
	       "git commit -q --allow-empty -m more",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_previous_branch(&b, g), 0);
	ck_assert_ptr_null(b);
	tm_git_free(g);
	/* detached now */
	tmt_sh("cd '%s' && git checkout -q main && git checkout -q --detach",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_previous_branch(&b, g), 0);
	ck_assert_ptr_null(b);
	tm_git_free(g);
	free(repo);
}
END_TEST

START_TEST(test_git_branch_renamed_from)
{
	char *repo = make_repo("ren", 1);
	tm_strv old = TM_STRV_INIT;
	tm_git *g;
	bool exists;

	tmt_sh("cd '%s' && git branch a && git branch -m a b && "
	       "git branch -c b copy && git branch -m b c && "
	       "git branch other && git branch -m other c2",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_branch_renamed_from(&old, g, "c"), 0);
	ck_assert_uint_eq(old.n, 2);
	ck_assert_str_eq(old.items[0], "b");
	ck_assert_str_eq(old.items[1], "a");
	tm_strv_clear(&old);
	/* a copy is not a rename; a branch never renamed has none */
	ck_assert_int_eq(tm_git_branch_renamed_from(&old, g, "copy"), 0);
	ck_assert_uint_eq(old.n, 0);
	ck_assert_int_eq(tm_git_branch_renamed_from(&old, g, "main"), 0);
	ck_assert_uint_eq(old.n, 0);
	ck_assert_int_eq(tm_git_branch_renamed_from(&old, g, "nothing"), 0);
	ck_assert_uint_eq(old.n, 0);
	ck_assert_int_eq(tm_git_branch_exists(&exists, g, "c"), 0);
	ck_assert(exists);
	ck_assert_int_eq(tm_git_branch_exists(&exists, g, "a"), 0);
	ck_assert(!exists);
	ck_assert_int_eq(tm_git_branch_exists(&exists, g, "bad..name"), 0);
	ck_assert(!exists);
	tm_git_free(g);
	free(repo);
}
END_TEST

/*
 * lib/git/notls.c, linked into this runner as into the executables: libgit2's
 * mbedTLS loads no CA certificate (a file of garbage parses "fine", where
 * mbedTLS itself would fail), and opening a repository still works.
 */
struct mbedtls_x509_crt;
int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain,
				const char *path);
int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain,
				const char *path);

START_TEST(test_git_no_ca_bundle_parsed)
{
	char *bad = tmt_join(tmp, "garbage.pem"), *repo = make_repo("repo", 1);
	tm_git *g;

	tmt_write_file(bad, "-----BEGIN CERTIFICATE-----\nnot base64\n", 40);
	ck_assert_int_eq(mbedtls_x509_crt_parse_file(NULL, bad), 0);
	ck_assert_int_eq(mbedtls_x509_crt_parse_path(NULL, tmp), 0);
	g = open_ok(repo, false);
	ck_assert(tm_git_repository(g) != NULL);
	tm_git_free(g);
	free(repo);
	free(bad);
}
END_TEST

/* The operation a conflict comes from, as git's own status reads it. */
START_TEST(test_git_operation)
{
	char *repo = make_repo("op", 1);
	tm_git *g;

	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_operation(g), TM_GIT_OP_NONE);
	tm_git_free(g);
	tmt_sh("cd '%s' && git checkout -q -b b && echo b >f && git add f && "
	       "git commit -q -m b && git checkout -q main && echo m >f && "
	       "git add f && git commit -q -m m && "
	       "{ git merge -q b >/dev/null 2>&1; test $? -eq 1; }",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_operation(g), TM_GIT_OP_MERGE);
	tm_git_free(g);
	tmt_sh("cd '%s' && git merge --abort && "
	       "{ git cherry-pick b >/dev/null 2>&1; test $? -eq 1; }",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_operation(g), TM_GIT_OP_CHERRY_PICK);
	tm_git_free(g);
	tmt_sh("cd '%s' && git cherry-pick --abort && "
	       "{ git rebase -q b >/dev/null 2>&1; test $? -eq 1; }",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_operation(g), TM_GIT_OP_REBASE);
	tm_git_free(g);
	tmt_sh("cd '%s' && git rebase --abort && echo 1 >g && git add g && "
	       "git commit -q -m 1 && echo 2 >g && git commit -q -am 2 && "
	       "echo 3 >g && git commit -q -am 3 && "
	       "{ git revert HEAD~1 >/dev/null 2>&1; test $? -eq 1; }",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_operation(g), TM_GIT_OP_REVERT);
	tm_git_free(g);
	tmt_sh("cd '%s' && git revert --abort && git format-patch -q -1 b "
	       "-o ../patches && { git am -3 ../patches/*.patch "
	       ">/dev/null 2>&1; test $? -ne 0; }",
	       repo);
	g = open_ok(repo, false);
	ck_assert_int_eq(tm_git_operation(g), TM_GIT_OP_AM);
	tm_git_free(g);
	free(repo);
}
END_TEST

/* ---- the pages of pack files given back (git_mapped.c) ---- */

#ifdef __linux__
/* The resident bytes of this process's mappings with permissions `perms`
 * whose file name ends with `suffix` (/proc/self/smaps). */
static size_t rss_of(const char *suffix, const char *perms)
{
	char line[8192], p[8];
	size_t total = 0, kb, n, e = strlen(suffix);
	unsigned long a, b;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		n = strcspn(line, "\n");
		line[n] = '\0';
		if (sscanf(line, "%lx-%lx %7s ", &a, &b, p) == 3)
			in = !strcmp(p, perms) && n >= e &&
			     !strcmp(line + n - e, suffix);
		else if (in && sscanf(line, "Rss: %zu kB", &kb) == 1)
			total += kb << 10;
	}
	fclose(f);
	return total;
}

/* `path` mapped whole (`len` bytes) with `flags`, every page read. */
static void *map_read(const char *path, size_t len, int flags)
{
	int fd = open(path, O_RDONLY);
	volatile unsigned char sum = 0;
	unsigned char *m;
	size_t i;

	ck_assert_int_ge(fd, 0);
	m = mmap(NULL, len, PROT_READ, flags, fd, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	close(fd);
	for (i = 0; i < len; i += 4096)
		sum += m[i];
	(void)sum;
	return m;
}

/* Blob `id` read through libgit2 (from the pack: libgit2 keeps no blob in
 * its cache) is `want`. */
static void read_blob(git_odb *odb, const git_oid *id, const char *want,
		      size_t len)
{
	git_odb_object *obj;

	ck_assert_int_eq(git_odb_read(&obj, odb, id), 0);
	ck_assert_uint_eq(git_odb_object_size(obj), len);
	ck_assert(memcmp(git_odb_object_data(obj), want, len) == 0);
	git_odb_object_free(obj);
}

/* The trim gives back the pages libgit2 mapped of a pack, only past the
 * bound, only theirs (not the pack's index, not a private mapping of a
 * *.pack file, not another file's shared mapping), and libgit2 reads the
 * same object again. */
START_TEST(test_git_pack_pages_trim)
{
	char *repo = tmt_join(tmp, "r"), *big = tmt_join(repo, "big"),
	     *copy = tmt_join(tmp, "copy.pack"),
	     *other = tmt_join(tmp, "other.data"), *data;
	const size_t len = 4 << 20;
	size_t n, priv_rss, other_rss, idx_rss;
	git_repository *r;
	git_odb *odb;
	git_oid id;
	void *priv, *shared;

	tmt_sh("mkdir -p '%s' && cd '%s' && " GIT "init -q && "
	       "head -c %zu /dev/urandom >big && cp big ../other.data && " GIT
	       "add big && " GIT "commit -qm big && " GIT "gc -q && "
	       "cp .git/objects/pack/*.pack ../copy.pack && rm big",
	       repo, repo, len);
	data = tmt_read_file(other, &n);
	ck_assert_uint_eq(n, len);
	ck_assert_int_eq(tm_git_init(), 0);
	ck_assert_int_eq(git_repository_open(&r, repo), 0);
	ck_assert_int_eq(git_repository_odb(&odb, r), 0);
	ck_assert_int_eq(git_odb_hash(&id, data, len, GIT_OBJECT_BLOB), 0);
	read_blob(odb, &id, data, len);
	ck_assert_uint_ge(rss_of(".pack", "r--s"), len);
	idx_rss = rss_of(".idx", "r--s");
	ck_assert_uint_gt(idx_rss, 0);
	priv = map_read(copy, len, MAP_PRIVATE);
	shared = map_read(other, len, MAP_SHARED);
	priv_rss = rss_of("/copy.pack", "r--p");
	other_rss = rss_of("/other.data", "r--s");
	ck_assert_uint_ge(priv_rss, len / 2);
	ck_assert_uint_ge(other_rss, len / 2);

	tm_git__pack_pages_trim(SIZE_MAX); /* under the bound: kept */
	ck_assert_uint_ge(rss_of(".pack", "r--s"), len);
	tm_git__pack_pages_trim(0);
	ck_assert_uint_eq(rss_of(".pack", "r--s"), 0);
	ck_assert_uint_eq(rss_of(".idx", "r--s"), idx_rss);
	ck_assert_uint_eq(rss_of("/copy.pack", "r--p"), priv_rss);
	ck_assert_uint_eq(rss_of("/other.data", "r--s"), other_rss);
	read_blob(odb, &id, data, len);
	ck_assert_uint_ge(rss_of(".pack", "r--s"), len);

	munmap(priv, len);
	munmap(shared, len);
	git_odb_free(odb);
	git_repository_free(r);
	free(data);
	free(repo);
	free(big);
	free(copy);
	free(other);
}
END_TEST
#endif

Suite *git_suite(void)
{
	Suite *s = suite_create("git");
	TCase *tc = tcase_create("open");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_open_from_subdir);
	tcase_add_test(tc, test_git_open_linked_worktree);
	tcase_add_test(tc, test_git_open_bare);
	tcase_add_test(tc, test_git_open_not_a_repo);
	tcase_add_test(tc, test_git_open_from_env);
	suite_add_tcase(s, tc);
	tc = tcase_create("head");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_branch_main);
	tcase_add_test(tc, test_git_branch_with_slash);
	tcase_add_test(tc, test_git_branch_detached);
	tcase_add_test(tc, test_git_branch_unborn);
	tcase_add_test(tc, test_git_head_matches_rev_parse);
	tcase_add_test(tc, test_git_operation);
	tcase_add_test(tc, test_git_head_unborn);
	tcase_add_test(tc, test_git_fast_path_layouts);
	tcase_add_test(tc, test_git_fast_path_falls_back);
	tcase_add_test(tc, test_git_color_keys_without_libgit2);
	tcase_add_test(tc, test_git_config_is_set_driver_without_libgit2);
	suite_add_tcase(s, tc);
	tc = tcase_create("state");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_sequence_in_progress);
	tcase_add_test(tc, test_git_previous_branch);
	tcase_add_test(tc, test_git_branch_renamed_from);
	suite_add_tcase(s, tc);
	tc = tcase_create("config");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_config_string);
	tcase_add_test(tc, test_git_config_xdg);
	tcase_add_test(tc, test_git_config_command_line);
	tcase_add_test(tc, test_git_config_bool);
	tcase_add_test(tc, test_git_conflict_style);
	suite_add_tcase(s, tc);
	tc = tcase_create("user");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_user_from_config);
	tcase_add_test(tc, test_git_hash_blob);
	suite_add_tcase(s, tc);
	tc = tcase_create("commit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_has_commit);
	tcase_add_test(tc, test_git_last_deletion);
	tcase_add_test(tc, test_git_is_hex_oid);
	suite_add_tcase(s, tc);
	tc = tcase_create("error");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_error_message);
	tcase_add_test(tc, test_git_no_ca_bundle_parsed);
	suite_add_tcase(s, tc);
#ifdef __linux__
	tc = tcase_create("pack pages");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_git_pack_pages_trim);
	suite_add_tcase(s, tc);
#endif
	return s;
}
