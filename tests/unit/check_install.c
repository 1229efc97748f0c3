/*
 * Unit tests of lib/app/install_hooks.c and install_gitfiles.c (stubs, our
 * block in a user's hook, the attribute lines, where hooks go) and
 * install_plan.c (the plan and carrying it out, in throwaway repositories made
 * with git).
 */
#include "threadmind/error.h"
#include "threadmind/fs.h"
#include "threadmind/git.h"
#include "threadmind/install.h"
#include "test_util.h"

#include <check.h>
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmp; /* the test's sandbox (tmt_sandbox) */

static void setup(void)
{
	tmp = tmt_sandbox();
}

static void teardown(void)
{
	tmt_sandbox_end(tmp);
	tmp = NULL;
}

/* ---- helpers ---- */

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&s, fmt, ap), 0);
	va_end(ap);
	return s;
}

/* Run a shell command; returns its exit status. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	va_list ap;
	char *cmd = NULL;
	int status;

	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&cmd, fmt, ap), 0);
	va_end(ap);
	status = system(cmd);
	free(cmd);
	ck_assert(status != -1 && WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void write_mode(const char *path, const char *data, mode_t mode)
{
	tmt_write_file(path, data, strlen(data));
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* tm_install_insert into a C string; the result as a C string. */
static char *insert(const char *data, const char *name)
{
	tm_buf out = TM_BUF_INIT;

	ck_assert_int_eq(tm_install_insert(&out, data, strlen(data), name), 0);
	return tm_buf_detach(&out);
}

static char *removed(const char *data)
{
	tm_buf out = TM_BUF_INIT;

	ck_assert_int_eq(tm_install_remove(&out, data, strlen(data)), 0);
	return tm_buf_detach(&out);
}

/*
 * A fake git-threadmind in tmp/bin that appends its arguments and stdin to
 * tmp/calls and exits `status`; returns PATH for running scripts with it.
 */
static char *fake_binary(int status)
{
	char *bin = tmt_join(tmp, "bin"), *path, *script, *exe;

	tmt_mkdirs(bin);
	exe = tmt_join(bin, "git-threadmind");
	script = format("#!/bin/sh\n"
			"echo \"args: $*\" >>'%s/calls'\n"
			"if [ \"$2\" = post-rewrite ]; then cat >>'%s/calls'; "
			"fi\n"
			"exit %d\n",
			tmp, tmp, status);
	write_mode(exe, script, 0755);
	path = format("%s:/usr/bin:/bin", bin);
	free(script);
	free(exe);
	free(bin);
	return path;
}

/* ---- stubs ---- */

START_TEST(test_install_stub_matches_hooks_dir)
{
	size_t i;

	for (i = 0; tm_install_hook_names[i]; i++) {
		const char *name = tm_install_hook_names[i];
		char *rel = format("../../hooks/%s", name);
		char *path = tmt_resource(rel);
		tm_buf stub = TM_BUF_INIT;
		struct stat st;
		size_t len;
		char *file = tmt_read_file(path, &len);

		tm_install_stub(&stub, name);
		ck_assert_msg(len == stub.size && !memcmp(file, stub.ptr, len),
			      "hooks/%s differs from tm_install_stub", name);
		ck_assert(tm_install_is_stub(file, len, name));
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_msg(st.st_mode & S_IXUSR,
			      "hooks/%s is not executable", name);
		tm_buf_release(&stub);
		free(file);
		free(path);
		free(rel);
	}
}
END_TEST

START_TEST(test_install_stub_recognised_exactly)
{
	tm_buf stub = TM_BUF_INIT;

	tm_install_stub(&stub, "post-commit");
	ck_assert(tm_install_is_stub(stub.ptr, stub.size, "post-commit"));
	ck_assert(!tm_install_is_stub(stub.ptr, stub.size, "post-merge"));
	ck_assert(!tm_install_is_stub(stub.ptr, stub.size - 1, "post-commit"));
	tm_buf_puts(&stub, "echo mine\n");
	ck_assert(!tm_install_is_stub(stub.ptr, stub.size, "post-commit"));
	ck_assert(tm_install_calls_us(stub.ptr, stub.size));
	ck_assert(tm_install_hook_known("post-rewrite"));
	ck_assert(tm_install_hook_known("pre-commit"));
	ck_assert(!tm_install_hook_known("pre-push"));
	ck_assert(!tm_install_hook_known(NULL));
	tm_buf_release(&stub);
}
END_TEST

START_TEST(test_install_stub_never_fails)
{
	tm_buf stub = TM_BUF_INIT;
	char *hook = tmt_join(tmp, "post-checkout"), *calls, *path;

	tm_install_stub(&stub, "post-checkout");
	write_mode(hook, tm_buf_cstr(&stub), 0755);
	tmt_sh("mkdir '%s/.threadmind'", tmp);
	/* without git-threadmind on PATH: silent, exit 0 */
	ck_assert_int_eq(run("cd '%s' && PATH=/nonexistent '%s' a b 1 "
			     ">out 2>&1 && test ! -s out",
			     tmp, hook),
			 0);
	/* with one that fails: still exit 0, and it got the arguments */
	path = fake_binary(3);
	ck_assert_int_eq(
		run("cd '%s' && PATH='%s' '%s' old new 1", tmp, path, hook), 0);
	calls = tmt_join(tmp, "calls");
	free(path);
	path = tmt_read_file(calls, NULL);
	ck_assert_str_eq(path, "args: hook post-checkout old new 1\n");
	free(path);
	free(calls);
	free(hook);
	tm_buf_release(&stub);
}
END_TEST

/*
 * Run hook `name`'s stub (written to tmp/stub-NAME) in tmp, a git
 * repository with a store, the fake git-threadmind first on PATH and
 * `env` before it; how many times the binary was started.
 */
static int stub_starts(const char *name, const char *env, int status)
{
	tm_buf stub = TM_BUF_INIT;
	char *hook = format("%s/stub-%s", tmp, name), *calls, *path, *got;
	int n = 0, rc;
	const char *p;

	tm_install_stub(&stub, name);
	write_mode(hook, tm_buf_cstr(&stub), 0755);
	path = fake_binary(status);
	calls = tmt_join(tmp, "calls");
	unlink(calls);
	rc = run("cd '%s' && PATH='%s:'\"$PATH\" %s '%s' a b 1 </dev/null", tmp,
		 path, env, hook);
	ck_assert_int_eq(rc, !strcmp(name, "pre-commit") && status == 1);
	if (access(calls, F_OK) == 0) {
		got = tmt_read_file(calls, NULL);
		for (p = got; (p = strstr(p, "args: hook ")); p++)
			n++;
		free(got);
	}
	free(calls);
	free(path);
	free(hook);
	tm_buf_release(&stub);
	return n;
}

START_TEST(test_install_stub_starts_nothing_when_off)
{
	static const char *const names[] = {"post-checkout", "post-commit",
					    "post-merge", "post-rewrite",
					    "pre-commit"};
	static const char *const off[] = {
		"THREADMIND_HOOKS=0", "THREADMIND_HOOKS=off",
		"THREADMIND_HOOKS=False", "THREADMIND_HOOKS=NO",
		("GIT_CONFIG_PARAMETERS=\"'core.x'='1' "
		 "'ThreadMind.Hooks'='false'\"")};
	char *note = tmt_join(tmp, ".git/threadmind/hooks-off");
	size_t i, k;

	tmt_sh("cd '%s' && git init -q && mkdir .threadmind", tmp);
	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		ck_assert_int_eq(stub_starts(names[i], "", 0), 1);
		ck_assert_int_eq(stub_starts(names[i], "THREADMIND_HOOKS=1", 0),
				 1);
		for (k = 0; k < sizeof(off) / sizeof(*off); k++)
			ck_assert_msg(stub_starts(names[i], off[k], 0) == 0,
				      "%s started with %s", names[i], off[k]);
		/* git -c threadmind.hooks=true for one command wins */
		ck_assert_int_eq(stub_starts(names[i],
					     "GIT_CONFIG_PARAMETERS="
					     "\"'threadmind.hooks'='true'\"",
					     0),
				 1);
	}
	/* the note `hook` writes when the config files say false */
	tmt_sh("cd '%s' && git config threadmind.hooks false && sleep 0.01 "
	       "&& mkdir -p .git/threadmind && : >.git/threadmind/hooks-off",
	       tmp);
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		ck_assert_int_eq(stub_starts(names[i], "", 0), 0);
	/* a config file newer than the note: git is asked, the note
	 * renewed; true: the binary starts (and would remove the note) */
	tmt_sh("cd '%s' && sleep 0.01 && touch .git/config", tmp);
	ck_assert_int_eq(stub_starts("post-merge", "", 0), 0);
	ck_assert_int_eq(run("cd '%s' && test .git/threadmind/hooks-off -nt "
			     ".git/config",
			     tmp),
			 0);
	tmt_sh("cd '%s' && sleep 0.01 && git config threadmind.hooks true",
	       tmp);
	ck_assert_int_eq(stub_starts("post-commit", "", 0), 1);
	/* post-checkout asks git whenever the note is there */
	tmt_sh("cd '%s' && git config --unset threadmind.hooks && sleep 0.01 "
	       "&& : >.git/threadmind/hooks-off",
	       tmp);
	ck_assert_int_eq(stub_starts("post-merge", "", 0), 0);
	ck_assert_int_eq(stub_starts("post-checkout", "", 0), 1);
	unlink(note);
	/* no .threadmind at the worktree root: nothing */
	tmt_sh("cd '%s' && rmdir .threadmind", tmp);
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		ck_assert_int_eq(stub_starts(names[i], "", 0), 0);
	free(note);
}
END_TEST

START_TEST(test_install_stub_post_commit_quiet_while_replaying)
{
	static const char *const dirs[] = {"rebase-merge", "rebase-apply",
					   "sequencer"};
	size_t i;

	tmt_sh("cd '%s' && git init -q && mkdir .threadmind", tmp);
	for (i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		tmt_sh("mkdir '%s/.git/%s'", tmp, dirs[i]);
		ck_assert_int_eq(stub_starts("post-commit", "", 0), 0);
		/* post-rewrite reports the rebase; the others run */
		ck_assert_int_eq(stub_starts("post-rewrite", "", 0), 1);
		ck_assert_int_eq(stub_starts("post-checkout", "", 0), 1);
		ck_assert_int_eq(stub_starts("pre-commit", "", 0), 1);
		tmt_sh("rmdir '%s/.git/%s'", tmp, dirs[i]);
		ck_assert_int_eq(stub_starts("post-commit", "", 0), 1);
	}
	/* a linked worktree: its git dir is named by the .git file */
	tmt_sh("cd '%s' && git -c user.name=a -c user.email=a@b commit -q "
	       "--allow-empty -m x && git worktree add -q wt && "
	       "mkdir wt/.threadmind .git/worktrees/wt/rebase-merge",
	       tmp);
	{
		char *saved = tmp;

		tmp = tmt_join(saved, "wt");
		ck_assert_int_eq(stub_starts("post-commit", "", 0), 0);
		tmt_sh("rmdir '%s/.git/worktrees/wt/rebase-merge'", saved);
		ck_assert_int_eq(stub_starts("post-commit", "", 0), 1);
		free(tmp);
		tmp = saved;
	}
}
END_TEST

START_TEST(test_install_stub_pre_commit_passes_refusal_only)
{
	tmt_sh("cd '%s' && git init -q && mkdir .threadmind", tmp);
	/* exit 1 is the refusal; any other failure never blocks */
	ck_assert_int_eq(stub_starts("pre-commit", "", 1), 1);
	ck_assert_int_eq(stub_starts("pre-commit", "", 3), 1);
	ck_assert_int_eq(stub_starts("pre-commit", "", 128), 1);
	ck_assert_int_eq(stub_starts("post-commit", "", 1), 1);
}
END_TEST

/* post-merge's stub as the versions before the off switch wrote it */
#define OLD_POST_MERGE_STUB                                             \
	"#!/bin/sh\n"                                                   \
	"# ThreadMind's post-merge hook: runs 'git-threadmind hook "    \
	"post-merge'\n"                                                 \
	"# when git-threadmind is on PATH, and never makes git fail.  " \
	"Written by\n"                                                  \
	"# 'git threadmind install', removed by 'git threadmind "       \
	"uninstall'.\n"                                                 \
	"if command -v git-threadmind >/dev/null 2>&1; then\n"          \
	"\tgit-threadmind hook post-merge \"$@\"\n"                     \
	"fi\n"                                                          \
	"exit 0\n"

START_TEST(test_install_old_stub_recognised)
{
	const char *old = OLD_POST_MERGE_STUB;
	tm_buf stub = TM_BUF_INIT;

	ck_assert(tm_install_is_old_stub(old, strlen(old), "post-merge"));
	ck_assert(!tm_install_is_stub(old, strlen(old), "post-merge"));
	ck_assert(!tm_install_is_old_stub(old, strlen(old), "post-commit"));
	ck_assert(!tm_install_is_old_stub(old, strlen(old) - 1, "post-merge"));
	tm_install_stub(&stub, "post-merge");
	ck_assert(!tm_install_is_old_stub(stub.ptr, stub.size, "post-merge"));
	tm_buf_release(&stub);
}
END_TEST

/* ---- shell or not ---- */

START_TEST(test_install_shell_detection)
{
	static const char *const yes[] = {
		"#!/bin/sh\necho hi\n",
		"#!/bin/bash -e\n",
		"#! /usr/bin/dash\n",
		"#!/usr/bin/env bash\n",
		"#!/usr/bin/env -S zsh -f\n",
		"#!/usr/bin/env LC_ALL=C ksh\n",
		"#!/bin/sh\r\necho crlf\r\n",
		"echo no shebang\n",
		"",
	};
	static const char *const no[] = {
		"#!/usr/bin/env python3\nprint(1)\n",
		"#!/usr/bin/perl\n",
		"#!/bin/shell\n",
		"#!\n",
		"#!/usr/bin/env\n",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		ck_assert_msg(tm_install_is_shell(yes[i], strlen(yes[i])),
			      "should be a shell script: %s", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(*no); i++)
		ck_assert_msg(!tm_install_is_shell(no[i], strlen(no[i])),
			      "should not be a shell script: %s", no[i]);
	ck_assert(!tm_install_is_shell("\x7f"
				       "ELF\x02\x01",
				       6));
	ck_assert(!tm_install_is_shell("echo a\0b\n", 9));
}
END_TEST

/* ---- our block ---- */

START_TEST(test_install_insert_above_final_exit)
{
	char *out = insert("#!/bin/sh\necho hi\nexit 0\n", "post-commit");
	const char *begin = strstr(out, TM_INSTALL_BEGIN "\n");
	const char *end = strstr(out, TM_INSTALL_END "\n");

	ck_assert_ptr_nonnull(begin);
	ck_assert_ptr_nonnull(end);
	ck_assert(!strncmp(out, "#!/bin/sh\necho hi\n" TM_INSTALL_BEGIN "\n",
			   strlen("#!/bin/sh\necho hi\n") +
				   strlen(TM_INSTALL_BEGIN) + 1));
	ck_assert_str_eq(end, TM_INSTALL_END "\nexit 0\n");
	ck_assert_ptr_nonnull(strstr(out, "git-threadmind hook post-commit "
					  "\"$@\" || :\n"));
	/* above an exit, the status is the exit's own: nothing saved */
	ck_assert_ptr_null(strstr(out, "threadmind_status"));
	free(out);
}
END_TEST

START_TEST(test_install_insert_above_final_exec)
{
	const char *in = "#!/bin/sh\nset -e\nexec some-tool \\\n"
			 "\t--flag \"$@\"\n\n# the end\n";
	char *out = insert(in, "post-merge");
	const char *end = strstr(out, TM_INSTALL_END "\n");

	ck_assert_ptr_nonnull(end);
	/* above the first line of the continued exec command */
	ck_assert_str_eq(end + strlen(TM_INSTALL_END "\n"),
			 "exec some-tool \\\n\t--flag \"$@\"\n\n# the end\n");
	ck_assert(!strncmp(out, "#!/bin/sh\nset -e\n" TM_INSTALL_BEGIN,
			   strlen("#!/bin/sh\nset -e\n" TM_INSTALL_BEGIN)));
	free(out);
}
END_TEST

/* The text after our block's end line. */
static const char *after_block(const char *out)
{
	const char *end = strstr(out, TM_INSTALL_END "\n");

	ck_assert_ptr_nonnull(end);
	return end + strlen(TM_INSTALL_END "\n");
}

START_TEST(test_install_insert_above_last_command_that_exits)
{
	static const struct {
		const char *in, *after;
	} cases[] = {
		{"#!/bin/sh\necho a\ntrue; exit 0\n", "true; exit 0\n"},
		{"#!/bin/sh\necho done; exit 0 # comment\n",
		 "echo done; exit 0 # comment\n"},
		{"#!/bin/sh\ncase $# in\n0) exit 0 ;;\n*) echo $# ;;\nesac\n",
		 "case $# in\n0) exit 0 ;;\n*) echo $# ;;\nesac\n"},
		{"#!/bin/sh\nif [ -n \"$x\" ]\nthen\n\texit 3\nfi\n",
		 "if [ -n \"$x\" ]\nthen\n\texit 3\nfi\n"},
		{"#!/bin/sh\n[ -x t ] &&\n\texec t\n",
		 "[ -x t ] &&\n\texec t\n"},
		/* a here-document holding `exit`, then an exit */
		{"#!/bin/sh\ncat <<'EOF'\nexit 1\nEOF\nf() { exit 2; }\nf\n",
		 NULL},
		{"#!/bin/sh\ncat <<EOF\nfi\nEOF\necho x; exit 0\n",
		 "echo x; exit 0\n"},
		/* `exit` quoted or in a comment ends nothing */
		{"#!/bin/sh\necho 'exit 0' \"; exit\" # exit\n", NULL},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *out = insert(cases[i].in, "post-commit");

		if (cases[i].after)
			ck_assert_str_eq(after_block(out), cases[i].after);
		else /* appended */
			ck_assert_str_eq(after_block(out), "");
		free(out);
	}
}
END_TEST

START_TEST(test_install_insert_post_rewrite_above_user_code)
{
	char *out = insert("#!/bin/sh\n# mine\nwhile read a b; do :; done\n",
			   "post-rewrite");

	ck_assert(
		!strncmp(out, "#!/bin/sh\n# mine\n" TM_INSTALL_BEGIN "\n",
			 strlen("#!/bin/sh\n# mine\n" TM_INSTALL_BEGIN "\n")));
	ck_assert_str_eq(after_block(out), "while read a b; do :; done\n");
	free(out);
}
END_TEST

START_TEST(test_install_block_misplaced)
{
	const char *dead = "#!/bin/sh\necho a; exit 0\n" TM_INSTALL_BEGIN
			   "\n:\n" TM_INSTALL_END "\n";
	const char *late =
		"#!/bin/sh\nwhile read a; do :; done\n" TM_INSTALL_BEGIN
		"\n:\n" TM_INSTALL_END "\n";
	char *good = insert("#!/bin/sh\necho a; exit 0\n", "post-commit");
	char *good_rw =
		insert("#!/bin/sh\nwhile read a; do :; done\n", "post-rewrite");

	ck_assert_ptr_nonnull(strstr(
		tm_install_block_misplaced(dead, strlen(dead), "post-commit"),
		"may never run"));
	ck_assert_ptr_nonnull(strstr(
		tm_install_block_misplaced(late, strlen(late), "post-rewrite"),
		"standard input"));
	ck_assert_ptr_null(
		tm_install_block_misplaced(good, strlen(good), "post-commit"));
	ck_assert_ptr_null(tm_install_block_misplaced(good_rw, strlen(good_rw),
						      "post-rewrite"));
	ck_assert_ptr_null(tm_install_block_misplaced("#!/bin/sh\nexit 0\n", 17,
						      "post-commit"));
	free(good);
	free(good_rw);
}
END_TEST

START_TEST(test_install_insert_appends_keeping_status)
{
	char *hook = tmt_join(tmp, "hook"), *path = fake_binary(0);
	char *out = insert("#!/bin/sh\necho mine >\"$MARK\"\nfalse\n",
			   "post-checkout");
	char *calls = tmt_join(tmp, "calls"), *mark = tmt_join(tmp, "mark");
	char *got;

	ck_assert(
		!strncmp(out, "#!/bin/sh\necho mine >\"$MARK\"\nfalse\n", 35));
	ck_assert_ptr_nonnull(strstr(out, "threadmind_status=$?"));
	write_mode(hook, out, 0755);
	/* the user's last command failed: the hook still exits 1, after
	 * running our call */
	ck_assert_int_eq(
		run("PATH='%s' MARK='%s' sh '%s' a b 1", path, mark, hook), 1);
	got = tmt_read_file(calls, NULL);
	ck_assert_str_eq(got, "args: hook post-checkout a b 1\n");
	free(got);
	got = tmt_read_file(mark, NULL);
	ck_assert_str_eq(got, "mine\n");
	free(got);
	free(out);
	free(calls);
	free(mark);
	free(path);
	free(hook);
}
END_TEST

START_TEST(test_install_insert_without_final_newline)
{
	char *out = insert("#!/bin/sh\necho hi", "post-commit");
	char *back = removed(out);
	size_t n = strlen(out);

	ck_assert(!strncmp(out, "#!/bin/sh\necho hi\n" TM_INSTALL_BEGIN, 28));
	/* the end line has no line end, as the file had none */
	ck_assert_str_eq(out + n - strlen(TM_INSTALL_END), TM_INSTALL_END);
	ck_assert_str_eq(back, "#!/bin/sh\necho hi");
	free(out);
	free(back);
}
END_TEST

START_TEST(test_install_insert_keeps_crlf)
{
	const char *in = "#!/bin/sh\r\necho hi\r\nexit 0\r\n";
	char *out = insert(in, "post-commit"), *back;
	const char *p;

	for (p = strchr(out, '\n'); p; p = strchr(p + 1, '\n'))
		ck_assert_msg(p > out && p[-1] == '\r', "a bare LF in %s", out);
	ck_assert_ptr_nonnull(strstr(out, "\r\n" TM_INSTALL_BEGIN "\r\n"));
	back = removed(out);
	ck_assert_str_eq(back, in);
	free(back);
	free(out);
}
END_TEST

START_TEST(test_install_insert_is_idempotent)
{
	static const char *const inputs[] = {
		"#!/bin/sh\nexit 0\n",
		"#!/bin/sh\necho hi\n",
		"#!/bin/sh\necho hi",
		"",
	};
	size_t i;

	for (i = 0; i < sizeof(inputs) / sizeof(*inputs); i++) {
		char *once = insert(inputs[i], "post-rewrite");
		char *twice = insert(once, "post-rewrite");

		ck_assert_str_eq(once, twice);
		ck_assert_int_eq(tm_install_has_block(once, strlen(once)), 1);
		free(once);
		free(twice);
	}
}
END_TEST

START_TEST(test_install_remove_restores_bytes)
{
	static const char *const inputs[] = {
		"",
		"\n",
		"#!/bin/sh\n",
		"#!/bin/sh",
		"#!/bin/bash\n# only comments\n\n",
		"#!/bin/sh\necho a\nexit 0\n",
		"#!/bin/sh\necho a\nexit 0",
		"#!/bin/sh\nexec foo \\\n  bar\n# trailing\n\n\n",
		"echo no shebang\r\nexit 3\r\n",
		"#!/bin/sh\r\necho crlf without end",
		"#!/bin/sh\nif x; then\n  exit 1\nfi\necho last\n",
		"#!/bin/sh\n\texit\n",
		"#!/bin/sh\nexit 0 # done\n",
		"#!/bin/sh\nexiting=1\n",
	};
	size_t i, k;

	for (i = 0; i < sizeof(inputs) / sizeof(*inputs); i++)
		for (k = 0; tm_install_hook_names[k]; k++) {
			char *in = insert(inputs[i], tm_install_hook_names[k]);
			char *back = removed(in);

			ck_assert_msg(!strcmp(back, inputs[i]),
				      "input %zu (%s) came back as '%s'", i,
				      tm_install_hook_names[k], back);
			ck_assert(!tm_install_has_block(back, strlen(back)));
			free(in);
			free(back);
		}
}
END_TEST

START_TEST(test_install_exit_words)
{
	char *a = insert("#!/bin/sh\nexiting=1\n", "post-commit");
	char *b = insert("#!/bin/sh\nexit;\n", "post-commit");
	char *c = insert("#!/bin/sh\n  exec\tfoo\n", "post-commit");

	/* `exiting=1` is no exit: the block is appended */
	ck_assert_ptr_nonnull(strstr(a, "exiting=1\n" TM_INSTALL_BEGIN));
	ck_assert_ptr_nonnull(strstr(b, TM_INSTALL_END "\nexit;\n"));
	ck_assert_ptr_nonnull(strstr(c, TM_INSTALL_END "\n  exec\tfoo\n"));
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_install_remove_several_and_broken)
{
	const char *two = "a\n" TM_INSTALL_BEGIN "\nx\n" TM_INSTALL_END
			  "\nb\n" TM_INSTALL_BEGIN "\n" TM_INSTALL_END "\nc\n";
	const char *broken = "a\n" TM_INSTALL_BEGIN "\nx\n";
	tm_buf out = TM_BUF_INIT;
	char *back = removed(two);

	ck_assert_str_eq(back, "a\nb\nc\n");
	tm_buf_puts(&out, "kept");
	ck_assert_int_eq(tm_install_remove(&out, broken, strlen(broken)),
			 TM_EPARSE);
	ck_assert_str_eq(tm_buf_cstr(&out), "kept");
	ck_assert_ptr_nonnull(strstr(tm_error_last(), TM_INSTALL_END));
	tm_buf_clear(&out);
	ck_assert_int_eq(
		tm_install_insert(&out, broken, strlen(broken), "post-commit"),
		TM_EPARSE);
	free(back);
	tm_buf_release(&out);
}
END_TEST

START_TEST(test_install_calls_us_outside_block_only)
{
	char *in = insert("#!/bin/sh\necho hi\n", "post-commit");
	const char *hand = "#!/bin/sh\ngit threadmind hook post-commit\n";

	ck_assert(!tm_install_calls_us(in, strlen(in)));
	ck_assert(tm_install_calls_us(hand, strlen(hand)));
	ck_assert(!tm_install_calls_us("#!/bin/sh\n", 10));
	free(in);
}
END_TEST

START_TEST(test_install_empty_script)
{
	ck_assert(tm_install_is_empty_script("", 0));
	ck_assert(tm_install_is_empty_script("#!/bin/sh\n\n  \n", 14));
	ck_assert(tm_install_is_empty_script("#!/bin/sh\r\n\r\n", 13));
	ck_assert(!tm_install_is_empty_script("#!/bin/sh\n# c\n", 14));
	ck_assert(!tm_install_is_empty_script("echo\n", 5));
}
END_TEST

START_TEST(test_install_rewrite_block_gives_stdin_back)
{
	char *path = fake_binary(0), *hook = tmt_join(tmp, "hook");
	char *calls = tmt_join(tmp, "calls"), *seen = tmt_join(tmp, "seen");
	char *out = insert("#!/bin/sh\nexec cat >\"$SEEN\"\n", "post-rewrite");
	const char *list = "1111 2222\n3333 4444\n";
	char *got;

	write_mode(hook, out, 0755);
	ck_assert_int_eq(run("printf '%s' | PATH='%s' SEEN='%s' sh '%s' "
			     "amend",
			     list, path, seen, hook),
			 0);
	got = tmt_read_file(calls, NULL);
	ck_assert_str_eq(got, "args: hook post-rewrite amend\n1111 2222\n"
			      "3333 4444\n");
	free(got);
	got = tmt_read_file(seen, NULL);
	ck_assert_str_eq(got, list);
	free(got);
	/* an empty list stays empty for the user's script */
	ck_assert_int_eq(run("PATH='%s' SEEN='%s' sh '%s' rebase </dev/null",
			     path, seen, hook),
			 0);
	got = tmt_read_file(seen, NULL);
	ck_assert_str_eq(got, "");
	free(got);
	free(out);
	free(seen);
	free(calls);
	free(hook);
	free(path);
}
END_TEST

/* ---- .gitattributes ---- */

START_TEST(test_install_attributes_add)
{
	tm_buf out = TM_BUF_INIT;
	const char *mine = "*.png binary\n";
	const char *has = "projects/*.json  -diff merge=threadmind\n";

	ck_assert(tm_install_attributes_add(&out, "", 0));
	ck_assert_str_eq(tm_buf_cstr(&out), TM_INSTALL_ATTR_THREADS
			 "\n" TM_INSTALL_ATTR_PROJECTS "\n");
	tm_buf_clear(&out);
	ck_assert(tm_install_attributes_add(&out, mine, strlen(mine)));
	ck_assert_str_eq(tm_buf_cstr(&out),
			 "*.png binary\n" TM_INSTALL_ATTR_THREADS
			 "\n" TM_INSTALL_ATTR_PROJECTS "\n");
	tm_buf_clear(&out);
	ck_assert(tm_install_attributes_add(&out, "x y", 3));
	ck_assert_str_eq(tm_buf_cstr(&out), "x y\n" TM_INSTALL_ATTR_THREADS
					    "\n" TM_INSTALL_ATTR_PROJECTS "\n");
	tm_buf_clear(&out);
	/* a line setting merge=threadmind among others counts */
	ck_assert(tm_install_attributes_add(&out, has, strlen(has)));
	ck_assert_str_eq(tm_buf_cstr(&out),
			 "projects/*.json  -diff "
			 "merge=threadmind\n" TM_INSTALL_ATTR_THREADS "\n");
	{
		char *again = tm_buf_detach(&out);

		ck_assert(
			!tm_install_attributes_add(&out, again, strlen(again)));
		ck_assert_str_eq(tm_buf_cstr(&out), again);
		free(again);
	}
	tm_buf_release(&out);
}
END_TEST

/* The thread line of earlier versions is upgraded where it stands. */
START_TEST(test_install_attributes_upgrade)
{
	static const struct {
		const char *in, *out;
		bool changed;
	} cases[] = {
		/* old line in place, user lines untouched, CRLF kept */
		{"# mine\r\nthreads/**/*.md merge=threadmind\r\n*.png "
		 "binary\r\nprojects/*.json merge=threadmind\r\n",
		 "# mine\r\n" TM_INSTALL_ATTR_THREADS "\r\n*.png binary\r\n"
		 "projects/*.json merge=threadmind\r\n",
		 true},
		/* blanks inside, no line end at the end */
		{"threads/**/*.md\t merge=threadmind",
		 TM_INSTALL_ATTR_THREADS "\n" TM_INSTALL_ATTR_PROJECTS "\n",
		 true},
		/* current: nothing to do (twice is once) */
		{TM_INSTALL_ATTR_THREADS "\n" TM_INSTALL_ATTR_PROJECTS "\n",
		 TM_INSTALL_ATTR_THREADS "\n" TM_INSTALL_ATTR_PROJECTS "\n",
		 false},
		/* attributes in another order count */
		{"threads/**/*.md diff=markdown  merge=threadmind\n"
		 "projects/*.json merge=threadmind\n",
		 "threads/**/*.md diff=markdown  merge=threadmind\n"
		 "projects/*.json merge=threadmind\n",
		 false},
		/* the user's own diff choice, on this or another line, stays */
		{"threads/**/*.md merge=threadmind "
		 "-diff\n" TM_INSTALL_ATTR_PROJECTS "\n",
		 "threads/**/*.md merge=threadmind "
		 "-diff\n" TM_INSTALL_ATTR_PROJECTS "\n",
		 false},
		{"threads/**/*.md merge=threadmind\nthreads/**/*.md "
		 "diff=other\n" TM_INSTALL_ATTR_PROJECTS "\n",
		 "threads/**/*.md merge=threadmind\nthreads/**/*.md "
		 "diff=other\n" TM_INSTALL_ATTR_PROJECTS "\n",
		 false},
		/* a user line (more than ours) is not ours to change: ours
		 * goes at the end */
		{"threads/**/*.md merge=threadmind "
		 "text\n" TM_INSTALL_ATTR_PROJECTS "\n",
		 "threads/**/*.md merge=threadmind "
		 "text\n" TM_INSTALL_ATTR_PROJECTS "\n" TM_INSTALL_ATTR_THREADS
		 "\n",
		 true},
		/* diff=markdown without our merge driver: our line is added */
		{"threads/**/*.md diff=markdown\n" TM_INSTALL_ATTR_PROJECTS
		 "\n",
		 "threads/**/*.md diff=markdown\n" TM_INSTALL_ATTR_PROJECTS
		 "\n" TM_INSTALL_ATTR_THREADS "\n",
		 true},
	};
	tm_buf out = TM_BUF_INIT, again = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tm_buf_clear(&out);
		ck_assert_msg(tm_install_attributes_add(&out, cases[i].in,
							strlen(cases[i].in)) ==
				      cases[i].changed,
			      "case %zu", i);
		ck_assert_str_eq(tm_buf_cstr(&out), cases[i].out);
		/* idempotent */
		tm_buf_clear(&again);
		ck_assert(!tm_install_attributes_add(&again, tm_buf_cstr(&out),
						     out.size));
		ck_assert_str_eq(tm_buf_cstr(&again), cases[i].out);
	}
	tm_buf_release(&out);
	tm_buf_release(&again);
}
END_TEST

START_TEST(test_install_attributes_ask_driver)
{
	static const char *const yes[] = {
		TM_INSTALL_ATTR_THREADS "\n",
		"# ours\nprojects/*.json   merge=threadmind\n",
		"*.md text merge=threadmind -diff\r\n",
	};
	static const char *const no[] = {
		"",
		"threads/**/*.md diff=markdown\n",
		"# threads/**/*.md merge=threadmind\n",
		"*.md merge=threadmind2\n",
		"merge=threadmind\n", /* a pattern, not an attribute */
		"*.md -merge\n",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		ck_assert_msg(tm_install_attributes_ask_driver(yes[i],
							       strlen(yes[i])),
			      "%s", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(*no); i++)
		ck_assert_msg(
			!tm_install_attributes_ask_driver(no[i], strlen(no[i])),
			"%s", no[i]);
}
END_TEST

START_TEST(test_install_driver_missing)
{
	char *dir = tmt_git_repo(tmp, "clone");
	char *store = tmt_join(dir, ".threadmind");
	char *attrs = tmt_join(store, ".gitattributes");
	tm_git *g = NULL;
	int fd;

	tmt_mkdirs(store);
	ck_assert_int_eq(tm_fs_open_dir(&fd, store), 0);
	ck_assert_int_eq(tm_git_open(&g, dir, false), 0);
	/* no attributes file, or one that does not ask: nothing to say */
	ck_assert(!tm_install_driver_missing(g, fd));
	tmt_write_file(attrs, "*.md diff=markdown\n", 19);
	ck_assert(!tm_install_driver_missing(g, fd));
	tmt_write_file(attrs, TM_INSTALL_ATTR_THREADS "\n",
		       strlen(TM_INSTALL_ATTR_THREADS) + 1);
	ck_assert(tm_install_driver_missing(g, fd));
	tm_git_free(g);
	tmt_sh("git -C '%s' config merge.threadmind.driver true", dir);
	ck_assert_int_eq(tm_git_open(&g, dir, false), 0);
	ck_assert(!tm_install_driver_missing(g, fd));
	ck_assert(!tm_install_driver_missing(NULL, fd));
	close(fd);
	tm_git_free(g);
	free(attrs);
	free(store);
	free(dir);
}
END_TEST

START_TEST(test_install_attributes_remove)
{
	const char *in = "*.png binary\r\n" TM_INSTALL_ATTR_THREADS "\r\n"
			 "projects/*.json merge=threadmind -diff\r\n"
			 "threads/**/*.md merge=threadmind\r\n"
			 "threads/**/*.md  diff=markdown merge=threadmind\r\n"
			 "threads/**/*.md merge=threadmind diff=other\r\n"
			 "projects/*.json\tmerge=threadmind\r\n";
	tm_buf out = TM_BUF_INIT;

	ck_assert(tm_install_attributes_remove(&out, in, strlen(in)));
	/* only the exact lines go; others setting more stay */
	ck_assert_str_eq(tm_buf_cstr(&out),
			 "*.png binary\r\nprojects/*.json merge=threadmind "
			 "-diff\r\nthreads/**/*.md merge=threadmind "
			 "diff=other\r\n");
	tm_buf_clear(&out);
	ck_assert(!tm_install_attributes_remove(&out, "a b\n", 4));
	ck_assert_str_eq(tm_buf_cstr(&out), "a b\n");
	tm_buf_release(&out);
}
END_TEST

/* ---- the config file ---- */

START_TEST(test_install_config_drop_section)
{
	static const struct {
		const char *in, *out;
		bool dropped;
	} cases[] = {
		{"[core]\n\tbare = false\n[merge \"threadmind\"]\n",
		 "[core]\n\tbare = false\n", true},
		{"[merge \"threadmind\"]\n\n[user]\n\tname = x\n",
		 "\n[user]\n\tname = x\n", true},
		{"[Merge \"threadmind\"]  \n", "", true},
		{"[merge \"threadmind\"]\n\tname = x\n",
		 "[merge \"threadmind\"]\n\tname = x\n", false},
		{"[merge \"threadmind\"]\n# mine\n",
		 "[merge \"threadmind\"]\n# mine\n", false},
		{"[merge \"other\"]\n", "[merge \"other\"]\n", false},
		{"[merge \"ThreadMind\"]\n", "[merge \"ThreadMind\"]\n", false},
	};
	tm_buf out = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tm_buf_clear(&out);
		ck_assert_int_eq(
			tm_install_config_drop_section(&out, cases[i].in,
						       strlen(cases[i].in)),
			cases[i].dropped);
		ck_assert_str_eq(tm_buf_cstr(&out), cases[i].out);
	}
	tm_buf_release(&out);
}
END_TEST

/* ---- where hooks go ---- */

START_TEST(test_install_hooks_path)
{
	char *p = NULL;

	ck_assert_int_eq(tm_install_hooks_path(&p, NULL, "/w/", "/w/.git/",
					       "/w/.git/", "/h"),
			 0);
	ck_assert_str_eq(p, "/w/.git/hooks");
	free(p);
	/* a linked worktree: the common dir's hooks */
	ck_assert_int_eq(tm_install_hooks_path(&p, "", "/l/",
					       "/w/.git/worktrees/l/",
					       "/w/.git/", NULL),
			 0);
	ck_assert_str_eq(p, "/w/.git/hooks");
	free(p);
	ck_assert_int_eq(tm_install_hooks_path(&p, "tools/hooks/", "/w/",
					       "/w/.git/", "/w/.git/", NULL),
			 0);
	ck_assert_str_eq(p, "/w/tools/hooks");
	free(p);
	ck_assert_int_eq(tm_install_hooks_path(&p, "hooks", NULL, "/b.git/",
					       "/b.git/", NULL),
			 0);
	ck_assert_str_eq(p, "/b.git/hooks");
	free(p);
	ck_assert_int_eq(tm_install_hooks_path(&p, "/abs/h", "/w/", "/w/.git/",
					       "/w/.git/", NULL),
			 0);
	ck_assert_str_eq(p, "/abs/h");
	free(p);
	ck_assert_int_eq(tm_install_hooks_path(&p, "~/githooks", "/w/",
					       "/w/.git/", "/w/.git/",
					       "/home/me/"),
			 0);
	ck_assert_str_eq(p, "/home/me/githooks");
	free(p);
	p = NULL;
	ck_assert_int_eq(tm_install_hooks_path(&p, "~/githooks", "/w/",
					       "/w/.git/", "/w/.git/", NULL),
			 TM_EINVALID);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(tm_install_hooks_path(&p, "~root/h", "/w/", "/w/.git/",
					       "/w/.git/", NULL),
			 0);
	{
		struct passwd *pw = getpwnam("root");
		char *want;

		ck_assert_ptr_nonnull(pw);
		want = format("%s/h",
			      strcmp(pw->pw_dir, "/") ? pw->pw_dir : "");
		ck_assert_str_eq(p, want);
		free(want);
	}
	free(p);
}
END_TEST

/* ---- the plan, in a real repository ---- */

struct repo {
	char *dir;   /* the worktree */
	char *hooks; /* .git/hooks */
	char *store; /* .threadmind */
	tm_git *g;
};

static void repo_open(struct repo *r)
{
	r->dir = tmt_git_repo(tmp, "repo");
	r->hooks = tmt_join(r->dir, ".git/hooks");
	r->store = tmt_join(r->dir, ".threadmind");
	tmt_mkdirs(r->store);
	/* git may or may not ship sample hooks: start from none */
	ck_assert_int_eq(run("rm -rf '%s' && mkdir '%s'", r->hooks, r->hooks),
			 0);
	ck_assert_int_eq(tm_git_open(&r->g, r->dir, false), 0);
}

static void repo_close(struct repo *r)
{
	tm_git_free(r->g);
	free(r->dir);
	free(r->hooks);
	free(r->store);
}

/* Plan and carry out; returns how many steps were applied. */
static size_t do_install(struct repo *r, bool uninstall, bool attributes)
{
	tm_install_options opts = TM_INSTALL_OPTIONS_INIT;
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	size_t i, n = 0;

	opts.uninstall = uninstall;
	opts.attributes = attributes;
	ck_assert_int_eq(tm_install_plan_make(&plan, r->g, r->store, &opts), 0);
	ck_assert_msg(tm_install_apply(&plan) == 0, "%s", tm_error_last());
	for (i = 0; i < plan.n; i++)
		n += plan.steps[i].applied;
	tm_install_plan_clear(&plan);
	return n;
}

static char *hook_path(struct repo *r, const char *name)
{
	return tmt_join(r->hooks, name);
}

static char *config(struct repo *r, const char *key)
{
	char *v = NULL;

	if (tm_git_config_string(&v, r->g, key) < 0) {
		tm_error_clear();
		return NULL;
	}
	return v;
}

START_TEST(test_install_plan_fresh_then_nothing)
{
	struct repo r;
	char *attrs, *v, *p, *cfg0;
	size_t i;
	struct stat st;

	repo_open(&r);
	p = tmt_join(r.dir, ".git/config");
	cfg0 = tmt_read_file(p, NULL);
	free(p);
	/* 2 config keys, .gitattributes, 5 hooks */
	ck_assert_uint_eq(do_install(&r, false, false), 8);
	for (i = 0; tm_install_hook_names[i]; i++) {
		tm_buf stub = TM_BUF_INIT;
		char *got;

		p = hook_path(&r, tm_install_hook_names[i]);
		got = tmt_read_file(p, NULL);
		tm_install_stub(&stub, tm_install_hook_names[i]);
		ck_assert_str_eq(got, tm_buf_cstr(&stub));
		ck_assert_int_eq(stat(p, &st), 0);
		ck_assert_int_eq(st.st_mode & 0777, 0755);
		tm_buf_release(&stub);
		free(got);
		free(p);
	}
	p = tmt_join(r.store, ".gitattributes");
	attrs = tmt_read_file(p, NULL);
	ck_assert_str_eq(attrs, TM_INSTALL_ATTR_THREADS
			 "\n" TM_INSTALL_ATTR_PROJECTS "\n");
	free(attrs);
	free(p);
	v = config(&r, TM_INSTALL_DRIVER_KEY);
	ck_assert_str_eq(v, TM_INSTALL_DRIVER);
	free(v);
	v = config(&r, TM_INSTALL_NAME_KEY);
	ck_assert_str_eq(v, TM_INSTALL_NAME);
	free(v);
	/* twice: nothing to do */
	ck_assert_uint_eq(do_install(&r, false, false), 0);
	/* uninstall: 2 keys and 5 hooks; the attributes stay */
	ck_assert_uint_eq(do_install(&r, true, false), 7);
	ck_assert_ptr_null(v = config(&r, TM_INSTALL_DRIVER_KEY));
	p = tmt_join(r.dir, ".git/config");
	v = tmt_read_file(p, NULL);
	ck_assert_str_eq(v, cfg0);
	free(v);
	free(p);
	free(cfg0);
	p = hook_path(&r, "post-commit");
	ck_assert_int_eq(access(p, F_OK), -1);
	free(p);
	p = tmt_join(r.store, ".gitattributes");
	ck_assert_int_eq(access(p, F_OK), 0);
	ck_assert_uint_eq(do_install(&r, true, true), 1);
	ck_assert_int_eq(access(p, F_OK), -1);
	ck_assert_uint_eq(do_install(&r, true, true), 0);
	free(p);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_driver_old_style)
{
	ck_assert(tm_install_driver_is_old(TM_INSTALL_DRIVER_OLD));
	ck_assert(tm_install_driver_is_old("  git-threadmind-merge %O %A %B"));
	ck_assert(!tm_install_driver_is_old(TM_INSTALL_DRIVER));
	ck_assert(!tm_install_driver_is_old(NULL));
	/* an absolute path, another driver: not ours to upgrade */
	ck_assert(!tm_install_driver_is_old("/opt/bin/git-threadmind-merge "
					    "%O %A %B %L %P"));
	ck_assert(!tm_install_driver_is_old("my-merge %O %A %B"));
	/* the fallback is there */
	ck_assert(strstr(TM_INSTALL_DRIVER, "git merge-file --marker-size=%L "
					    "-L ours -L base -L theirs "
					    "%A %O %B"));
	ck_assert(strstr(TM_INSTALL_DRIVER, "127"));
}
END_TEST

/* The driver command falls back to markers when the binary is missing. */
START_TEST(test_install_driver_fallback_runs)
{
	char *dir = tmt_join(tmp, "fb"), *o, *a, *b, *got;
	tm_buf cmd = TM_BUF_INIT;
	const char *p;

	tmt_mkdirs(dir);
	o = tmt_join(dir, "o");
	a = tmt_join(dir, "a");
	b = tmt_join(dir, "b");
	tmt_write_file(o, "x\n", 2);
	tmt_write_file(a, "ours\n", 5);
	tmt_write_file(b, "theirs\n", 7);
	/* expand the placeholders as git does (quoted), PATH without us */
	tm_buf_printf(&cmd,
		      "cd '%s' && PATH=/nonexistent:$(dirname "
		      "\"$(command -v git)\") sh -c '",
		      dir);
	for (p = TM_INSTALL_DRIVER; *p; p++) {
		if (*p == '%' && strchr("OABLP", p[1])) {
			const char *v = p[1] == 'O'   ? "o"
					: p[1] == 'A' ? "a"
					: p[1] == 'B' ? "b"
					: p[1] == 'L' ? "9"
						      : "t.md";
			tm_buf_puts(&cmd, v);
			p++;
		} else if (*p == '\'') {
			tm_buf_puts(&cmd, "'\\''");
		} else {
			tm_buf_putc(&cmd, *p);
		}
	}
	tm_buf_puts(&cmd, "' 2>err");
	ck_assert_int_eq(run("%s", tm_buf_cstr(&cmd)), 1);
	got = tmt_read_file(a, NULL);
	ck_assert_str_eq(got, "<<<<<<<<< ours\nours\n=========\ntheirs\n"
			      ">>>>>>>>> theirs\n");
	free(got);
	tm_buf_release(&cmd);
	free(o);
	free(a);
	free(b);
	free(dir);
}
END_TEST

/* An old-style registration is upgraded, and the step says so. */
START_TEST(test_install_plan_upgrades_old_driver)
{
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	struct repo r;
	char *v;
	size_t i;
	bool said = false;

	repo_open(&r);
	ck_assert_int_eq(run("git -C '%s' config merge.threadmind.driver "
			     "'%s'",
			     r.dir, TM_INSTALL_DRIVER_OLD),
			 0);
	ck_assert_int_eq(tm_install_plan_make(&plan, r.g, r.store, NULL), 0);
	for (i = 0; i < plan.n; i++)
		if (plan.steps[i].key &&
		    !strcmp(plan.steps[i].key, TM_INSTALL_DRIVER_KEY)) {
			ck_assert(!plan.steps[i].done);
			said = strstr(plan.steps[i].what, "upgrade") != NULL;
		}
	ck_assert(said);
	ck_assert_msg(tm_install_apply(&plan) == 0, "%s", tm_error_last());
	tm_install_plan_clear(&plan);
	v = config(&r, TM_INSTALL_DRIVER_KEY);
	ck_assert_str_eq(v, TM_INSTALL_DRIVER);
	free(v);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_plan_user_hook_round_trip)
{
	const char *mine = "#!/bin/bash\n# my hook\necho mine\nexit 0";
	struct repo r;
	char *p, *got;
	struct stat st;

	repo_open(&r);
	p = hook_path(&r, "post-commit");
	write_mode(p, mine, 0700);
	ck_assert_uint_eq(do_install(&r, false, false), 8);
	got = tmt_read_file(p, NULL);
	ck_assert_ptr_nonnull(strstr(got, TM_INSTALL_BEGIN));
	ck_assert_ptr_nonnull(strstr(got, "echo mine\n" TM_INSTALL_BEGIN));
	free(got);
	/* the mode of the user's file is kept */
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_uint_eq(do_install(&r, false, false), 0);
	ck_assert_uint_eq(do_install(&r, true, false), 7);
	got = tmt_read_file(p, NULL);
	ck_assert_str_eq(got, mine);
	free(got);
	free(p);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_plan_only_block_left_is_deleted)
{
	struct repo r;
	char *p = NULL;

	repo_open(&r);
	p = hook_path(&r, "post-merge");
	write_mode(p, "#!/bin/sh\n", 0755);
	ck_assert_uint_eq(do_install(&r, false, false), 8);
	ck_assert_uint_eq(do_install(&r, true, false), 7);
	ck_assert_int_eq(access(p, F_OK), -1);
	free(p);
	repo_close(&r);
}
END_TEST

static const tm_install_step *find_step(const tm_install_plan *plan,
					const char *name)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		const char *path = plan->steps[i].path;
		size_t n = strlen(path), k = strlen(name);

		if (n > k && path[n - k - 1] == '/' &&
		    !strcmp(path + n - k, name))
			return &plan->steps[i];
	}
	return NULL;
}

START_TEST(test_install_hook_language)
{
	static const struct {
		const char *content, *lang, *line;
	} cases[] = {
		{"#!/bin/sh\n", "sh", "git-threadmind hook post-merge \"$@\""},
		{"#!/usr/bin/env python3\nprint(1)\n", "python",
		 "subprocess.call([\"git-threadmind\", \"hook\", "
		 "\"post-merge\"] + sys.argv[1:])"},
		{"#!/usr/bin/python\n", "python", "import subprocess"},
		{"#!/usr/bin/env -S node --no-warnings\n", "node",
		 "spawnSync(\"git-threadmind\", [\"hook\", \"post-merge\", "
		 "...process.argv.slice(2)]"},
		{"#!/usr/bin/ruby\n", NULL,
		 "make it run 'git-threadmind hook post-merge'"},
		{"\x7f"
		 "ELF\x02\x01",
		 NULL, "make it run"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *lang = tm_install_hook_language(
			cases[i].content, strlen(cases[i].content));
		tm_buf line = TM_BUF_INIT;

		if (cases[i].lang)
			ck_assert_str_eq(lang, cases[i].lang);
		else
			ck_assert_ptr_null(lang);
		tm_install_call_line_in(&line, "post-merge", lang);
		ck_assert_msg(strstr(tm_buf_cstr(&line), cases[i].line),
			      "%zu: %s", i, tm_buf_cstr(&line));
		tm_buf_release(&line);
	}
}
END_TEST

START_TEST(test_install_plan_non_shell_hook_is_the_one_step_left)
{
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	const tm_install_step *st;
	struct repo r;
	char *p;

	repo_open(&r);
	p = hook_path(&r, "post-commit");
	write_mode(p, "#!/usr/bin/env python3\nprint(1)\n", 0755);
	free(p);
	ck_assert_int_eq(tm_install_plan_make(&plan, r.g, r.store, NULL), 0);
	ck_assert(!tm_install_plan_refused(&plan));
	st = find_step(&plan, "post-commit");
	ck_assert_int_eq(st->kind, TM_INSTALL_MANUAL);
	ck_assert(!st->refused && !st->done);
	ck_assert_ptr_nonnull(strstr(st->what, "is a python script"));
	ck_assert_ptr_nonnull(strstr(st->data, "subprocess.call"));
	/* Everything else is installed. */
	ck_assert_int_eq(tm_install_apply(&plan), 0);
	p = hook_path(&r, "post-checkout");
	ck_assert_int_eq(access(p, X_OK), 0);
	free(p);
	p = config(&r, TM_INSTALL_DRIVER_KEY);
	ck_assert_ptr_nonnull(p);
	free(p);
	tm_install_plan_clear(&plan);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_plan_refuses_what_it_cannot_change)
{
	static const struct {
		const char *name, *content;
		mode_t mode;
		const char *why;
	} cases[] = {
		{"post-commit", "#!/bin/sh\necho big\n", 0444,
		 "not executable"},
		{"post-merge", "#!/bin/sh\necho off\n", 0644, "not executable"},
	};
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	const tm_install_step *st;
	struct repo r;
	size_t i;
	char *p, *target, *got;

	repo_open(&r);
	for (i = 0; i < 2; i++) {
		p = hook_path(&r, cases[i].name);
		write_mode(p, cases[i].content, cases[i].mode);
		free(p);
	}
	target = tmt_join(tmp, "elsewhere");
	write_mode(target, "#!/bin/sh\n", 0755);
	p = hook_path(&r, "post-rewrite");
	ck_assert_int_eq(symlink(target, p), 0);
	free(p);
	ck_assert_int_eq(tm_install_plan_make(&plan, r.g, r.store, NULL), 0);
	ck_assert(tm_install_plan_refused(&plan));
	for (i = 0; i < 2; i++) {
		st = find_step(&plan, cases[i].name);
		ck_assert_ptr_nonnull(st);
		ck_assert_int_eq(st->kind, TM_INSTALL_MANUAL);
		ck_assert(st->refused);
		ck_assert_msg(strstr(st->what, cases[i].why), "%s", st->what);
		ck_assert_ptr_nonnull(strstr(st->data, cases[i].name));
	}
	st = find_step(&plan, "post-rewrite");
	ck_assert(st->refused);
	ck_assert_ptr_nonnull(strstr(st->what, "symbolic link"));
	/* nothing is written */
	ck_assert_int_eq(tm_install_apply(&plan), TM_EINVALID);
	p = hook_path(&r, "post-checkout");
	ck_assert_int_eq(access(p, F_OK), -1);
	free(p);
	got = tmt_read_file(target, NULL);
	ck_assert_str_eq(got, "#!/bin/sh\n");
	free(got);
	p = config(&r, TM_INSTALL_DRIVER_KEY);
	ck_assert_ptr_null(p);
	tm_install_plan_clear(&plan);
	free(target);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_plan_hand_made_call_left_alone)
{
	const char *hand = "#!/usr/bin/env python3\n"
			   "import subprocess  # git-threadmind hook\n";
	tm_install_options opts = TM_INSTALL_OPTIONS_INIT;
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	const tm_install_step *st;
	struct repo r;
	char *p, *got;

	repo_open(&r);
	p = hook_path(&r, "post-commit");
	write_mode(p, hand, 0755);
	ck_assert_int_eq(tm_install_plan_make(&plan, r.g, r.store, NULL), 0);
	ck_assert(!tm_install_plan_refused(&plan));
	st = find_step(&plan, "post-commit");
	ck_assert(st->done);
	ck_assert_int_eq(tm_install_apply(&plan), 0);
	got = tmt_read_file(p, NULL);
	ck_assert_str_eq(got, hand);
	free(got);
	/* uninstall leaves it, as a step for the user */
	opts.uninstall = true;
	ck_assert_int_eq(tm_install_plan_make(&plan, r.g, r.store, &opts), 0);
	st = find_step(&plan, "post-commit");
	ck_assert_int_eq(st->kind, TM_INSTALL_MANUAL);
	ck_assert(!st->done && !st->refused);
	ck_assert_int_eq(tm_install_apply(&plan), 0);
	got = tmt_read_file(p, NULL);
	ck_assert_str_eq(got, hand);
	free(got);
	tm_install_plan_clear(&plan);
	free(p);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_plan_replaces_old_stub)
{
	struct repo r;
	tm_buf stub = TM_BUF_INIT;
	char *p, *got;

	repo_open(&r);
	p = hook_path(&r, "post-merge");
	write_mode(p, OLD_POST_MERGE_STUB, 0755);
	ck_assert_uint_eq(do_install(&r, false, false), 8);
	got = tmt_read_file(p, NULL);
	tm_install_stub(&stub, "post-merge");
	ck_assert_str_eq(got, tm_buf_cstr(&stub));
	free(got);
	ck_assert_uint_eq(do_install(&r, false, false), 0);
	/* uninstall deletes an earlier stub as well */
	write_mode(p, OLD_POST_MERGE_STUB, 0755);
	ck_assert_uint_eq(do_install(&r, true, false), 7);
	ck_assert_int_eq(access(p, F_OK), -1);
	tm_buf_release(&stub);
	free(p);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_plan_hooks_path)
{
	struct repo r;
	char *p;

	repo_open(&r);
	ck_assert_int_eq(
		run("git -C '%s' config core.hooksPath my/hooks", r.dir), 0);
	ck_assert_uint_eq(do_install(&r, false, false), 8);
	p = tmt_join(r.dir, "my/hooks/post-checkout");
	ck_assert_int_eq(access(p, X_OK), 0);
	free(p);
	p = hook_path(&r, "post-checkout");
	ck_assert_int_eq(access(p, F_OK), -1);
	free(p);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_apply_checks_for_changes)
{
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	struct repo r;
	char *p, *got;

	repo_open(&r);
	p = hook_path(&r, "post-commit");
	write_mode(p, "#!/bin/sh\necho 1\n", 0755);
	ck_assert_int_eq(tm_install_plan_make(&plan, r.g, r.store, NULL), 0);
	write_mode(p, "#!/bin/sh\necho 2\n", 0755);
	ck_assert_int_eq(tm_install_apply(&plan), TM_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "post-commit"));
	got = tmt_read_file(p, NULL);
	ck_assert_str_eq(got, "#!/bin/sh\necho 2\n");
	free(got);
	tm_install_plan_clear(&plan);
	free(p);
	repo_close(&r);
}
END_TEST

START_TEST(test_install_plan_needs_repo_or_global)
{
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;

	ck_assert_int_eq(tm_install_plan_make(&plan, NULL, NULL, NULL),
			 TM_EINVALID);
	ck_assert_uint_eq(plan.n, 0);
}
END_TEST

Suite *install_suite(void)
{
	Suite *s = suite_create("install");
	TCase *tc;

	tc = tcase_create("stub");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_install_stub_matches_hooks_dir);
	tcase_add_test(tc, test_install_stub_recognised_exactly);
	tcase_add_test(tc, test_install_stub_never_fails);
	tcase_add_test(tc, test_install_stub_starts_nothing_when_off);
	tcase_add_test(tc, test_install_stub_post_commit_quiet_while_replaying);
	tcase_add_test(tc, test_install_stub_pre_commit_passes_refusal_only);
	tcase_add_test(tc, test_install_old_stub_recognised);
	suite_add_tcase(s, tc);

	tc = tcase_create("shell");
	tcase_add_test(tc, test_install_shell_detection);
	suite_add_tcase(s, tc);

	tc = tcase_create("block");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_install_insert_above_final_exit);
	tcase_add_test(tc, test_install_insert_above_final_exec);
	tcase_add_test(tc, test_install_insert_above_last_command_that_exits);
	tcase_add_test(tc, test_install_insert_post_rewrite_above_user_code);
	tcase_add_test(tc, test_install_block_misplaced);
	tcase_add_test(tc, test_install_insert_appends_keeping_status);
	tcase_add_test(tc, test_install_insert_without_final_newline);
	tcase_add_test(tc, test_install_insert_keeps_crlf);
	tcase_add_test(tc, test_install_insert_is_idempotent);
	tcase_add_test(tc, test_install_remove_restores_bytes);
	tcase_add_test(tc, test_install_exit_words);
	tcase_add_test(tc, test_install_remove_several_and_broken);
	tcase_add_test(tc, test_install_calls_us_outside_block_only);
	tcase_add_test(tc, test_install_empty_script);
	tcase_add_test(tc, test_install_rewrite_block_gives_stdin_back);
	suite_add_tcase(s, tc);

	tc = tcase_create("attributes");
	tcase_add_test(tc, test_install_attributes_add);
	tcase_add_test(tc, test_install_attributes_upgrade);
	tcase_add_test(tc, test_install_attributes_remove);
	tcase_add_test(tc, test_install_attributes_ask_driver);
	suite_add_tcase(s, tc);

	tc = tcase_create("config");
	tcase_add_test(tc, test_install_config_drop_section);
	tcase_add_test(tc, test_install_driver_old_style);
	suite_add_tcase(s, tc);

	tc = tcase_create("hooks_path");
	tcase_add_test(tc, test_install_hooks_path);
	suite_add_tcase(s, tc);

	tc = tcase_create("plan");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_install_plan_fresh_then_nothing);
	tcase_add_test(tc, test_install_plan_upgrades_old_driver);
	tcase_add_test(tc, test_install_driver_fallback_runs);
	tcase_add_test(tc, test_install_plan_user_hook_round_trip);
	tcase_add_test(tc, test_install_plan_only_block_left_is_deleted);
	tcase_add_test(tc, test_install_plan_refuses_what_it_cannot_change);
	tcase_add_test(tc, test_install_hook_language);
	tcase_add_test(tc,
		       test_install_plan_non_shell_hook_is_the_one_step_left);
	tcase_add_test(tc, test_install_plan_hand_made_call_left_alone);
	tcase_add_test(tc, test_install_plan_replaces_old_stub);
	tcase_add_test(tc, test_install_driver_missing);
	tcase_add_test(tc, test_install_plan_hooks_path);
	tcase_add_test(tc, test_install_apply_checks_for_changes);
	tcase_add_test(tc, test_install_plan_needs_repo_or_global);
	suite_add_tcase(s, tc);
	return s;
}
