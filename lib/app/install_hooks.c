/*
 * install / uninstall, the hook half (see install.h): which hooks, their
 * stubs, our block in a user's hook script, where git runs hooks.  Pure
 * text functions; install_plan.c does the file I/O.
 */
#include "install.h"
#include "install_internal.h"

#include "error.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>

const char *const tm_install_hook_names[] = {
	"post-checkout", "post-commit", "post-merge",
	"post-rewrite",  "pre-commit",  NULL,
};

bool tm_install_hook_known(const char *name)
{
	size_t i;

	for (i = 0; name && tm_install_hook_names[i]; i++)
		if (!strcmp(name, tm_install_hook_names[i]))
			return true;
	return false;
}

/* ---- stubs ---- */

static void put_all(tm_buf *out, const char *const *lines)
{
	size_t i;

	for (i = 0; lines[i]; i++) {
		tm_buf_puts(out, lines[i]);
		tm_buf_putc(out, '\n');
	}
}

/*
 * What every stub does before it starts git-threadmind, in the shell
 * alone (a start costs 15-25 ms; these tests, none): nothing where the
 * work tree (git runs hooks at its root) has no .threadmind/, nothing
 * while THREADMIND_HOOKS says off (the values `hook` takes for off), and
 * the git dir found as git does, a `.git` file followed.
 */
static const char *const stub_prologue[] = {
	"[ -e .threadmind ] || exit 0",
	"case ${THREADMIND_HOOKS-} in",
	"0 | [Ff][Aa][Ll][Ss][Ee] | [Nn][Oo] | [Oo][Ff][Ff]) exit 0 ;;",
	"esac",
	"d=${GIT_DIR:-.git}",
	"if [ -f \"$d\" ]; then",
	"\tread -r d <\"$d\"",
	"\td=${d#gitdir: }",
	"fi",
	NULL,
};

/* post-commit: git replays commits (rebase, cherry-pick or revert of
 * several, am); post-rewrite reports a rebase once. */
static const char *const stub_replaying[] = {
	"if [ -d \"$d/rebase-merge\" ] || [ -d \"$d/rebase-apply\" ] ||",
	"\t[ -d \"$d/sequencer\" ]; then",
	"\texit 0",
	"fi",
	NULL,
};

/*
 * threadmind.hooks: `git -c` for this command asks git; else the note
 * `hook` keeps (TM_HOOK_OFF_NOTE in hooks.h) holds while no config file is
 * newer, and post-checkout asks git again once per checkout.
 */
static const char *const stub_off_head[] = {
	"n=$d/threadmind/hooks-off",
	"case ${GIT_CONFIG_PARAMETERS-} in",
	"*[Tt][Hh][Rr][Ee][Aa][Dd][Mm][Ii][Nn][Dd].[Hh][Oo][Oo][Kk][Ss]*)",
	"\t[ \"$(git config --bool threadmind.hooks 2>/dev/null)\" != false "
	"] ||",
	"\t\texit 0",
	"\t;;",
	"*)",
	NULL,
};
static const char *const stub_off_fresh[] = {
	"\tif [ -f \"$n\" ]; then",
	"\t\t# threadmind.hooks is false while no config file is newer",
	"\t\t# (-nt is POSIX since 2024; a shell without it asks git)",
	"\t\tc=$d",
	"\t\tif [ -f \"$d/commondir\" ]; then",
	"\t\t\tread -r c <\"$d/commondir\"",
	"\t\t\tcase $c in /*) ;; *) c=$d/$c ;; esac",
	"\t\tfi",
	"\t\ts=",
	"\t\tfor f in \"$c/config\" \"$d/config.worktree\" \\",
	"\t\t\t\"${GIT_CONFIG_GLOBAL:-$HOME/.gitconfig}\" \\",
	"\t\t\t\"${XDG_CONFIG_HOME:-$HOME/.config}/git/config\" \\",
	"\t\t\t\"${GIT_CONFIG_SYSTEM:-/etc/gitconfig}\"; do",
	"\t\t\t[ ! -e \"$f\" ] || [ \"$n\" -nt \"$f\" ] || s=1",
	"\t\tdone",
	"\t\t[ -n \"$s\" ] || exit 0",
	NULL,
};
static const char *const stub_off_ask[] = {
	"\tif [ -f \"$n\" ]; then",
	"\t\t# threadmind.hooks was false: asked again at each checkout",
	NULL,
};
static const char *const stub_off_tail[] = {
	"\t\tv=$(git config --bool threadmind.hooks 2>/dev/null)",
	"\t\tif [ \"$v\" = false ]; then",
	"\t\t\t: >\"$n\"",
	"\t\t\texit 0",
	"\t\tfi",
	"\tfi",
	"\t;;",
	"esac",
	NULL,
};

void tm_install_stub(tm_buf *out, const char *name)
{
	bool pre = !strcmp(name, "pre-commit");

	tm_buf_printf(out,
		      "#!/bin/sh\n"
		      "# ThreadMind's %s hook: runs 'git-threadmind hook %s'\n",
		      name, name);
	if (pre)
		tm_buf_puts(
			out,
			"# when git-threadmind is on PATH.  Written by 'git "
			"threadmind install',\n"
			"# removed by 'git threadmind uninstall'.  It "
			"refuses the commit only when\n"
			"# git-threadmind finds conflict markers in a "
			"staged frontmatter (exit 1;\n"
			"# 'git commit --no-verify' skips it).\n");
	else
		tm_buf_puts(out,
			    "# when git-threadmind is on PATH, and never makes "
			    "git fail.  Written by\n"
			    "# 'git threadmind install', removed by 'git "
			    "threadmind uninstall'.\n");
	tm_buf_puts(out, "# It starts nothing where the work tree has no "
			 ".threadmind/, nor while\n"
			 "# THREADMIND_HOOKS=0 or threadmind.hooks=false "
			 "(docs/hooks.md)");
	if (!strcmp(name, "post-commit"))
		tm_buf_puts(out,
			    ",\n# nor while git replays commits (rebase, "
			    "cherry-pick or revert of several\n"
			    "# commits, am): post-rewrite reports a rebase "
			    "once");
	tm_buf_puts(out, ".\n");
	put_all(out, stub_prologue);
	if (!strcmp(name, "post-commit"))
		put_all(out, stub_replaying);
	put_all(out, stub_off_head);
	put_all(out,
		!strcmp(name, "post-checkout") ? stub_off_ask : stub_off_fresh);
	put_all(out, stub_off_tail);
	tm_buf_printf(out,
		      "if command -v git-threadmind >/dev/null 2>&1; then\n"
		      "\tgit-threadmind hook %s \"$@\"\n"
		      "%s"
		      "fi\n"
		      "exit 0\n",
		      name, pre ? "\t[ $? -ne 1 ] || exit 1\n" : "");
}

/* The stub of the versions before the off switch and the replay check
 * moved into it: replaced by install, deleted by uninstall. */
static void stub_v1(tm_buf *out, const char *name)
{
	tm_buf_printf(out,
		      "#!/bin/sh\n"
		      "# ThreadMind's %s hook: runs 'git-threadmind hook %s'\n"
		      "# when git-threadmind is on PATH, and never makes git "
		      "fail.  Written by\n"
		      "# 'git threadmind install', removed by 'git threadmind "
		      "uninstall'.\n"
		      "if command -v git-threadmind >/dev/null 2>&1; then\n"
		      "\tgit-threadmind hook %s \"$@\"\n"
		      "fi\n"
		      "exit 0\n",
		      name, name, name);
}

static bool same_as(void (*make)(tm_buf *, const char *), const char *data,
		    size_t len, const char *name)
{
	tm_buf stub = TM_BUF_INIT;
	bool same;

	make(&stub, name);
	same = stub.size == len && !memcmp(stub.ptr, data, len);
	tm_buf_release(&stub);
	return same;
}

bool tm_install_is_stub(const char *data, size_t len, const char *name)
{
	return same_as(tm_install_stub, data, len, name);
}

bool tm_install_is_old_stub(const char *data, size_t len, const char *name)
{
	return strcmp(name, "pre-commit") && same_as(stub_v1, data, len, name);
}

/* ---- what kind of file ---- */

static bool shell_name(const char *s, size_t n)
{
	static const char *const shells[] = {"sh",  "bash", "dash", "zsh",
					     "ksh", "mksh", "ash",  "posh"};
	size_t i;

	for (i = 0; i < sizeof(shells) / sizeof(*shells); i++)
		if (strlen(shells[i]) == n && !memcmp(shells[i], s, n))
			return true;
	return false;
}

static bool word_is_shell(const char *w, size_t n)
{
	const char *slash = w + n;

	while (slash > w && slash[-1] != '/')
		slash--;
	return shell_name(slash, (size_t)(w + n - slash));
}

/* The interpreter named by the `#!` line ("python3", "node", …) into
 * *w / *wn (the last path part), or false without one. */
static bool interpreter(const char *data, size_t len, const char **w,
			size_t *wn)
{
	const char *p, *end, *slash;
	struct tm_install__line l;
	size_t pos = 0;

	if (len < 2 || data[0] != '#' || data[1] != '!')
		return false;
	tm_install__next_line(data, len, &pos, &l);
	p = data + 2;
	end = data + l.end;
	if (!tm_install__next_word(&p, end, w, wn))
		return false;
	if (*wn >= 4 && !memcmp(*w + *wn - 4, "/env", 4)) {
		bool found = false;

		while (!found && tm_install__next_word(&p, end, w, wn))
			found = (*w)[0] != '-' && !memchr(*w, '=', *wn);
		if (!found)
			return false;
	}
	slash = *w + *wn;
	while (slash > *w && slash[-1] != '/')
		slash--;
	*wn = (size_t)(*w + *wn - slash);
	*w = slash;
	return true;
}

static bool starts(const char *w, size_t n, const char *prefix)
{
	size_t m = strlen(prefix);

	return n >= m && !memcmp(w, prefix, m);
}

const char *tm_install_hook_language(const char *data, size_t len)
{
	const char *w;
	size_t wn;

	if (tm_install_is_shell(data, len))
		return "sh";
	if (memchr(data, '\0', len) || !interpreter(data, len, &w, &wn))
		return NULL;
	if (starts(w, wn, "python"))
		return "python";
	if ((wn == 4 && !memcmp(w, "node", 4)) ||
	    (wn == 6 && !memcmp(w, "nodejs", 6)))
		return "node";
	return NULL;
}

void tm_install_call_line_in(tm_buf *out, const char *name, const char *lang)
{
	/* pre-commit refuses a commit when the call exits 1, and only then */
	bool pre = !strcmp(name, "pre-commit");

	if (lang && !strcmp(lang, "sh"))
		tm_install_call_line(out, name);
	else if (lang && !strcmp(lang, "python"))
		tm_buf_printf(out,
			      "import subprocess, sys; subprocess.call("
			      "[\"git-threadmind\", \"hook\", \"%s\"] + "
			      "sys.argv[1:])%s",
			      name, pre ? " == 1 and sys.exit(1)" : "");
	else if (lang && !strcmp(lang, "node"))
		tm_buf_printf(out,
			      "require(\"child_process\").spawnSync("
			      "\"git-threadmind\", [\"hook\", \"%s\", "
			      "...process.argv.slice(2)], {stdio: "
			      "\"inherit\"})%s;",
			      name,
			      pre ? ".status === 1 && process.exit(1)" : "");
	else
		tm_buf_printf(out,
			      "make it run 'git-threadmind hook %s' with the "
			      "hook's arguments%s, %s",
			      name,
			      !strcmp(name, "post-rewrite")
				      ? " and its standard input"
				      : "",
			      pre ? "and fail when it exits 1 (only then)"
				  : "ignoring its exit status");
}

bool tm_install_is_shell(const char *data, size_t len)
{
	const char *p, *end, *w;
	size_t wn;
	struct tm_install__line l;
	size_t pos = 0;

	if (memchr(data, '\0', len))
		return false;
	if (len >= 4 && !memcmp(data,
				"\x7f"
				"ELF",
				4))
		return false;
	if (len < 2 || data[0] != '#' || data[1] != '!')
		return true;
	tm_install__next_line(data, len, &pos, &l);
	p = data + 2;
	end = data + l.end;
	if (!tm_install__next_word(&p, end, &w, &wn))
		return false;
	if (wn >= 4 && !memcmp(w + wn - 4, "/env", 4)) {
		/* /usr/bin/env [-S] [VAR=value…] NAME */
		while (tm_install__next_word(&p, end, &w, &wn))
			if (w[0] != '-' && !memchr(w, '=', wn))
				return word_is_shell(w, wn);
		return false;
	}
	return word_is_shell(w, wn);
}

bool tm_install_has_block(const char *data, size_t len)
{
	struct tm_install__line l;
	size_t pos = 0;

	while (tm_install__next_line(data, len, &pos, &l))
		if (tm_install__line_is(data, &l, TM_INSTALL_BEGIN))
			return true;
	return false;
}

bool tm_install_calls_us(const char *data, size_t len)
{
	tm_buf rest = TM_BUF_INIT;
	const char *d = data;
	size_t n = len;
	bool found;

	if (tm_install_has_block(data, len) &&
	    tm_install_remove(&rest, data, len) == 0) {
		d = tm_buf_cstr(&rest);
		n = rest.size;
	}
	tm_error_clear();
	found = memmem(d, n, "git-threadmind", 14) ||
		memmem(d, n, "git threadmind", 14);
	tm_buf_release(&rest);
	return found;
}

void tm_install_call_line(tm_buf *out, const char *name)
{
	if (!strcmp(name, "pre-commit"))
		tm_buf_puts(out, "git-threadmind hook pre-commit \"$@\" || "
				 "[ $? -ne 1 ] || exit 1");
	else
		tm_buf_printf(out, "git-threadmind hook %s \"$@\" || :", name);
}

/* ---- the block ---- */

static void put_lines(tm_buf *out, const char *const *lines, const char *eol)
{
	size_t i;

	for (i = 0; lines[i]; i++) {
		tm_buf_puts(out, lines[i]);
		tm_buf_puts(out, eol);
	}
}

/*
 * Our block for hook `name`.  `append`: at the end of the script, keeping
 * its exit status; `final_eol`: the last line gets a line end.
 */
static void put_block(tm_buf *out, const char *name, const char *eol,
		      bool append, bool final_eol)
{
	static const char *const head[] = {
		TM_INSTALL_BEGIN,
		"# added by 'git threadmind install'; 'git threadmind "
		"uninstall' removes it",
		NULL,
	};
	static const char *const rewrite[] = {
		"if command -v git-threadmind >/dev/null 2>&1; then",
		"\tthreadmind_list=$(cat)",
		"\tprintf '%s\\n' \"$threadmind_list\" |",
		"\t\tgit-threadmind hook post-rewrite \"$@\" || :",
		"\tif [ -n \"$threadmind_list\" ]; then",
		"\t\texec <<threadmind_EOF",
		"$threadmind_list",
		"threadmind_EOF",
		"\telse",
		"\t\texec </dev/null",
		"\tfi",
		"fi",
		NULL,
	};
	/* exit 1 from the hook is its refusal: the commit stops */
	static const char *const refuse[] = {
		"if command -v git-threadmind >/dev/null 2>&1; then",
		"\tgit-threadmind hook pre-commit \"$@\"",
		"\t[ $? -ne 1 ] || exit 1",
		"fi",
		NULL,
	};

	put_lines(out, head, eol);
	if (append) {
		tm_buf_puts(out, "threadmind_status=$?");
		tm_buf_puts(out, eol);
	}
	if (!strcmp(name, "post-rewrite")) {
		put_lines(out, rewrite, eol);
	} else if (!strcmp(name, "pre-commit")) {
		put_lines(out, refuse, eol);
	} else {
		tm_buf_printf(out,
			      "command -v git-threadmind >/dev/null 2>&1 &&%s"
			      "\tgit-threadmind hook %s \"$@\" || :%s",
			      eol, name, eol);
	}
	if (append) {
		tm_buf_puts(out, "exit $threadmind_status");
		tm_buf_puts(out, eol);
	}
	tm_buf_puts(out, TM_INSTALL_END);
	if (final_eol)
		tm_buf_puts(out, eol);
}

/* Where the script's code starts: after its `#!` line and the comment
 * lines that follow it. */
static size_t code_start(const char *d, size_t len)
{
	struct tm_install__line l;
	size_t pos = 0, at = 0, i;

	while (tm_install__next_line(d, len, &pos, &l)) {
		for (i = l.start; i < l.end && tm_install__is_blank(d[i]); i++)
			;
		if (i >= l.end || d[i] != '#')
			break;
		at = l.next;
	}
	return at;
}

/*
 * Where our block goes in hook `name` when not at its end: above its last
 * command when that command may end the script (an `exit` or `exec` in it,
 * anywhere: after it the block would be dead code); for post-rewrite, above
 * the script's code, so that the block reads git's list on standard input
 * before the user's code does (the block then hands it on, see put_block).
 */
static bool insert_point(size_t *out, const char *d, size_t len,
			 const char *name)
{
	size_t start, end;
	bool ends;

	if (!tm_install__last_command(d, len, &start, &end, &ends))
		return false;
	if (!strcmp(name, "post-rewrite"))
		*out = code_start(d, len);
	else if (ends)
		*out = start;
	else
		return false;
	return true;
}

const char *tm_install_block_misplaced(const char *data, size_t len,
				       const char *name)
{
	struct tm_install__line l;
	tm_buf rest = TM_BUF_INIT;
	size_t pos = 0, begin = 0, start, end;
	bool found = false, ends = false, has = false;
	const char *why = NULL;

	while (tm_install__next_line(data, len, &pos, &l))
		if (tm_install__line_is(data, &l, TM_INSTALL_BEGIN)) {
			begin = l.start;
			has = true;
			break;
		}
	if (!has || tm_install_remove(&rest, data, len) < 0) {
		tm_error_clear();
		tm_buf_release(&rest);
		return NULL;
	}
	found = tm_install__last_command(rest.ptr ? rest.ptr : "", rest.size,
					 &start, &end, &ends);
	if (found && !strcmp(name, "post-rewrite") &&
	    begin > code_start(rest.ptr ? rest.ptr : "", rest.size))
		why = "comes after the hook's own code, which may read git's "
		      "list of rewritten commits on standard input first";
	else if (found && ends && end <= begin)
		why = "comes after the command that may end the script "
		      "('exit' or 'exec'), so it may never run";
	tm_buf_release(&rest);
	return why;
}

int tm_install_insert(tm_buf *out, const char *data, size_t len,
		      const char *name)
{
	tm_buf base = TM_BUF_INIT;
	const char *eol;
	size_t at;
	int error;

	if (tm_install_has_block(data, len)) {
		if ((error = tm_install_remove(&base, data, len)) < 0)
			return error;
		data = tm_buf_cstr(&base);
		len = base.size;
	}
	eol = tm_install__file_eol(data, len);
	if (insert_point(&at, data, len, name)) {
		tm_buf_put(out, data, at);
		put_block(out, name, eol, false, true);
		tm_buf_put(out, data + at, len - at);
	} else {
		bool ends = len == 0 || data[len - 1] == '\n';

		tm_buf_put(out, data, len);
		if (!ends)
			tm_buf_puts(out, eol);
		put_block(out, name, eol, true, ends);
	}
	tm_buf_release(&base);
	return 0;
}

int tm_install_remove(tm_buf *out, const char *data, size_t len)
{
	tm_buf rest = TM_BUF_INIT;
	struct tm_install__line b, e;
	size_t pos = 0, copied = 0, cut;
	bool ended;

	while (tm_install__next_line(data, len, &pos, &b)) {
		if (!tm_install__line_is(data, &b, TM_INSTALL_BEGIN))
			continue;
		ended = false;
		while (tm_install__next_line(data, len, &pos, &e))
			if (tm_install__line_is(data, &e, TM_INSTALL_END)) {
				ended = true;
				break;
			}
		if (!ended) {
			tm_buf_release(&rest);
			return tm_error_set(TM_EPARSE,
					    "a '%s' line has no '%s' line "
					    "after it",
					    TM_INSTALL_BEGIN, TM_INSTALL_END);
		}
		cut = b.start;
		/* An end line without a line end: the one before was ours. */
		if (e.next == e.end && cut > copied) {
			size_t eol = b.next - b.end;

			if (cut - copied >= eol &&
			    !memcmp(data + cut - eol, data + b.end, eol))
				cut -= eol;
		}
		tm_buf_put(&rest, data + copied, cut - copied);
		copied = e.next;
	}
	tm_buf_put(&rest, data + copied, len - copied);
	tm_buf_put(out, rest.ptr ? rest.ptr : "", rest.size);
	tm_buf_release(&rest);
	return 0;
}

bool tm_install_is_empty_script(const char *data, size_t len)
{
	struct tm_install__line l;
	size_t pos = 0, i;
	bool first = true;

	while (tm_install__next_line(data, len, &pos, &l)) {
		if (first && l.end - l.start >= 2 && data[l.start] == '#' &&
		    data[l.start + 1] == '!') {
			first = false;
			continue;
		}
		first = false;
		for (i = l.start; i < l.end; i++)
			if (!tm_install__is_blank(data[i]) && data[i] != '\r')
				return false;
	}
	return true;
}

/* ---- where the hooks go ---- */

static void put_dir(tm_buf *b, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	tm_buf_put(b, dir, n);
}

static int expand_tilde(tm_buf *b, const char *path, const char *home)
{
	const char *slash = strchr(path, '/');
	size_t ulen = slash ? (size_t)(slash - path - 1) : strlen(path + 1);

	if (ulen == 0) {
		if (!home || !*home)
			return tm_error_set(TM_EINVALID,
					    "core.hooksPath '%s' starts with "
					    "'~' but HOME is not set",
					    path);
		put_dir(b, home);
	} else {
		struct passwd pw, *res = NULL;
		char buf[4096];
		char *user = tm_xstrndup(path + 1, ulen);

		getpwnam_r(user, &pw, buf, sizeof(buf), &res);
		free(user);
		if (!res)
			return tm_error_set(TM_EINVALID,
					    "core.hooksPath '%s': no such "
					    "user",
					    path);
		put_dir(b, res->pw_dir);
	}
	if (slash)
		tm_buf_puts(b, slash);
	return 0;
}

int tm_install_hooks_path(char **out, const char *hooks_path,
			  const char *workdir, const char *gitdir,
			  const char *commondir, const char *home)
{
	tm_buf b = TM_BUF_INIT;
	int error;

	if (!hooks_path || !*hooks_path) {
		put_dir(&b, commondir);
		tm_buf_puts(&b, "/hooks");
	} else if (hooks_path[0] == '~') {
		if ((error = expand_tilde(&b, hooks_path, home)) < 0) {
			tm_buf_release(&b);
			return error;
		}
	} else if (hooks_path[0] == '/') {
		tm_buf_puts(&b, hooks_path);
	} else {
		put_dir(&b, workdir ? workdir : gitdir);
		tm_buf_putc(&b, '/');
		tm_buf_puts(&b, hooks_path);
	}
	while (b.size > 1 && b.ptr[b.size - 1] == '/')
		tm_buf_truncate(&b, b.size - 1);
	*out = tm_buf_detach(&b);
	return 0;
}
