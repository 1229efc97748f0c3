/*
 * install / uninstall, the text half (see install.h): hook stubs, our block
 * in a user's hook, .gitattributes lines, where hooks go, --manual's shell
 * lines.  No file I/O (install_plan.c does that).
 */
#include "install.h"

#include "error.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const tm_install_hook_names[] = {
        "post-checkout", "post-commit", "post-merge", "post-rewrite", NULL,
};

bool tm_install_hook_known(const char *name)
{
	size_t i;

	for (i = 0; name && tm_install_hook_names[i]; i++)
		if (!strcmp(name, tm_install_hook_names[i]))
			return true;
	return false;
}

/* ---- lines ---- */

/* One line of a buffer: [start, end) without its line end, next after. */
struct line {
	size_t start, end, next;
};

static bool next_line(const char *d, size_t len, size_t *pos, struct line *l)
{
	const char *nl;

	if (*pos >= len)
		return false;
	l->start = *pos;
	nl = memchr(d + *pos, '\n', len - *pos);
	l->end = nl ? (size_t)(nl - d) : len;
	l->next = nl ? l->end + 1 : len;
	if (l->end > l->start && d[l->end - 1] == '\r')
		l->end--;
	*pos = l->next;
	return true;
}

static bool line_is(const char *d, const struct line *l, const char *text)
{
	size_t n = strlen(text);

	return l->end - l->start == n && !memcmp(d + l->start, text, n);
}

/* The line end of the file: that of its first line, LF by default. */
static const char *file_eol(const char *d, size_t len)
{
	const char *nl = memchr(d, '\n', len);

	return nl && nl > d && nl[-1] == '\r' ? "\r\n" : "\n";
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- stubs ---- */

void tm_install_stub(tm_buf *out, const char *name)
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

bool tm_install_is_stub(const char *data, size_t len, const char *name)
{
	tm_buf stub = TM_BUF_INIT;
	bool same;

	tm_install_stub(&stub, name);
	same = stub.size == len && !memcmp(stub.ptr, data, len);
	tm_buf_release(&stub);
	return same;
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

/* The next blank-separated word of [*p, end) into [*w, *w + *wn). */
static bool next_word(const char **p, const char *end, const char **w,
                      size_t *wn)
{
	while (*p < end && is_blank(**p))
		(*p)++;
	if (*p >= end)
		return false;
	*w = *p;
	while (*p < end && !is_blank(**p))
		(*p)++;
	*wn = (size_t)(*p - *w);
	return true;
}

static bool word_is_shell(const char *w, size_t n)
{
	const char *slash = w + n;

	while (slash > w && slash[-1] != '/')
		slash--;
	return shell_name(slash, (size_t)(w + n - slash));
}

bool tm_install_is_shell(const char *data, size_t len)
{
	const char *p, *end, *w;
	size_t wn;
	struct line l;
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
	next_line(data, len, &pos, &l);
	p = data + 2;
	end = data + l.end;
	if (!next_word(&p, end, &w, &wn))
		return false;
	if (wn >= 4 && !memcmp(w + wn - 4, "/env", 4)) {
		/* /usr/bin/env [-S] [VAR=value…] NAME */
		while (next_word(&p, end, &w, &wn))
			if (w[0] != '-' && !memchr(w, '=', wn))
				return word_is_shell(w, wn);
		return false;
	}
	return word_is_shell(w, wn);
}

bool tm_install_has_block(const char *data, size_t len)
{
	struct line l;
	size_t pos = 0;

	while (next_line(data, len, &pos, &l))
		if (line_is(data, &l, TM_INSTALL_BEGIN))
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

	put_lines(out, head, eol);
	if (append) {
		tm_buf_puts(out, "threadmind_status=$?");
		tm_buf_puts(out, eol);
	}
	if (!strcmp(name, "post-rewrite")) {
		put_lines(out, rewrite, eol);
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

/* Does the command at [p, end) start with the word `exit` or `exec`? */
static bool exits(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	if (end - p < 4 || (memcmp(p, "exit", 4) && memcmp(p, "exec", 4)))
		return false;
	p += 4;
	return p == end || is_blank(*p) || *p == ';';
}

static bool is_code(const char *d, const struct line *l)
{
	size_t i = l->start;

	while (i < l->end && is_blank(d[i]))
		i++;
	return i < l->end && d[i] != '#';
}

static bool continues(const char *d, const struct line *l)
{
	return l->end > l->start && d[l->end - 1] == '\\';
}

/*
 * Where the last command starts when it is an `exit` or `exec`; false
 * otherwise.
 */
static bool final_exit(size_t *out, const char *d, size_t len)
{
	struct line *lines = NULL, l;
	size_t n = 0, alloc = 0, pos = 0, last = 0;
	bool found = false, result = false;

	while (next_line(d, len, &pos, &l)) {
		tm_xgrow((void **)&lines, &alloc, n + 1, sizeof(*lines));
		lines[n] = l;
		if (is_code(d, &l)) {
			last = n;
			found = true;
		}
		n++;
	}
	if (found) {
		while (last > 0 && continues(d, &lines[last - 1]))
			last--;
		if (exits(d + lines[last].start, d + lines[last].end)) {
			*out = lines[last].start;
			result = true;
		}
	}
	free(lines);
	return result;
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
	eol = file_eol(data, len);
	if (final_exit(&at, data, len)) {
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
	struct line b, e;
	size_t pos = 0, copied = 0, cut;
	bool ended;

	while (next_line(data, len, &pos, &b)) {
		if (!line_is(data, &b, TM_INSTALL_BEGIN))
			continue;
		ended = false;
		while (next_line(data, len, &pos, &e))
			if (line_is(data, &e, TM_INSTALL_END)) {
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
	struct line l;
	size_t pos = 0, i;
	bool first = true;

	while (next_line(data, len, &pos, &l)) {
		if (first && l.end - l.start >= 2 && data[l.start] == '#' &&
		    data[l.start + 1] == '!') {
			first = false;
			continue;
		}
		first = false;
		for (i = l.start; i < l.end; i++)
			if (!is_blank(data[i]) && data[i] != '\r')
				return false;
	}
	return true;
}

/* ---- .gitattributes ---- */

/* Is the line `pattern` followed by attributes among which `attr`
 * (`exact`: and nothing else)? */
static bool attr_line(const char *d, const struct line *l, const char *want,
                      bool exact)
{
	const char *p = d + l->start, *end = d + l->end, *w;
	const char *space = strchr(want, ' ');
	size_t wn, plen = (size_t)(space - want);
	const char *attr = space + 1;
	bool has = false;

	if (!next_word(&p, end, &w, &wn) || wn != plen || memcmp(w, want, wn))
		return false;
	while (next_word(&p, end, &w, &wn)) {
		if (wn == strlen(attr) && !memcmp(w, attr, wn))
			has = true;
		else if (exact)
			return false;
	}
	return has;
}

static bool attr_present(const char *d, size_t len, const char *want)
{
	struct line l;
	size_t pos = 0;

	while (next_line(d, len, &pos, &l))
		if (attr_line(d, &l, want, false))
			return true;
	return false;
}

bool tm_install_attributes_add(tm_buf *out, const char *data, size_t len)
{
	static const char *const ours[] = {TM_INSTALL_ATTR_THREADS,
	                                   TM_INSTALL_ATTR_PROJECTS};
	const char *eol = file_eol(data, len);
	bool added = false;
	size_t i;

	tm_buf_put(out, data, len);
	for (i = 0; i < 2; i++) {
		if (attr_present(data, len, ours[i]))
			continue;
		if (!added && len && data[len - 1] != '\n')
			tm_buf_puts(out, eol);
		tm_buf_puts(out, ours[i]);
		tm_buf_puts(out, eol);
		added = true;
	}
	return added;
}

bool tm_install_attributes_remove(tm_buf *out, const char *data, size_t len)
{
	struct line l;
	size_t pos = 0;
	bool removed = false;

	while (next_line(data, len, &pos, &l)) {
		if (attr_line(data, &l, TM_INSTALL_ATTR_THREADS, true) ||
		    attr_line(data, &l, TM_INSTALL_ATTR_PROJECTS, true)) {
			removed = true;
			continue;
		}
		tm_buf_put(out, data + l.start, l.next - l.start);
	}
	return removed;
}

/* ---- the config file ---- */

/* Is the line `[merge "threadmind"]` (blanks around, `merge` in any case)? */
static bool our_section(const char *d, const struct line *l)
{
	const char *p = d + l->start, *end = d + l->end;

	while (p < end && is_blank(*p))
		p++;
	while (end > p && is_blank(end[-1]))
		end--;
	return end - p == 20 && !strncasecmp(p, "[merge ", 7) &&
	       !memcmp(p + 7, "\"threadmind\"]", 13);
}

static bool blank_line(const char *d, const struct line *l)
{
	size_t i;

	for (i = l->start; i < l->end; i++)
		if (!is_blank(d[i]))
			return false;
	return true;
}

/* Does the line start a section (`[` after blanks)? */
static bool section_line(const char *d, const struct line *l)
{
	size_t i = l->start;

	while (i < l->end && is_blank(d[i]))
		i++;
	return i < l->end && d[i] == '[';
}

bool tm_install_config_drop_section(tm_buf *out, const char *data, size_t len)
{
	struct line l, m;
	size_t pos = 0, after;
	bool empty;

	while (next_line(data, len, &pos, &l)) {
		if (!our_section(data, &l))
			continue;
		after = pos;
		empty = true;
		while (next_line(data, len, &after, &m)) {
			if (blank_line(data, &m))
				continue;
			empty = section_line(data, &m);
			break;
		}
		if (!empty)
			continue;
		tm_buf_put(out, data, l.start);
		tm_buf_put(out, data + l.next, len - l.next);
		return true;
	}
	tm_buf_put(out, data, len);
	return false;
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

/* ---- --manual ---- */

void tm_install_sh_quote(tm_buf *out, const char *s)
{
	tm_buf_putc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			tm_buf_puts(out, "'\\''");
		else
			tm_buf_putc(out, *s);
	}
	tm_buf_putc(out, '\'');
}

#define HEREDOC "THREADMIND_EOF"

static bool heredoc_ok(const char *d, size_t len)
{
	struct line l;
	size_t pos = 0;

	if (len == 0 || d[len - 1] != '\n' || memchr(d, '\0', len))
		return false;
	while (next_line(d, len, &pos, &l))
		if (line_is(d, &l, HEREDOC))
			return false;
	return true;
}

static void script_write(tm_buf *out, const tm_install_step *st)
{
	const char *slash = strrchr(st->path, '/');

	if (st->make_dir && slash && slash != st->path) {
		char *dir = tm_xstrndup(st->path, (size_t)(slash - st->path));

		tm_buf_puts(out, "mkdir -p ");
		tm_install_sh_quote(out, dir);
		tm_buf_putc(out, '\n');
		free(dir);
	}
	if (heredoc_ok(st->data, st->len)) {
		tm_buf_puts(out, "cat >");
		tm_install_sh_quote(out, st->path);
		tm_buf_puts(out, " <<'" HEREDOC "'\n");
		tm_buf_put(out, st->data, st->len);
		tm_buf_puts(out, HEREDOC "\n");
	} else {
		tm_buf_puts(out, "printf '%s' ");
		tm_install_sh_quote(out, st->data);
		tm_buf_puts(out, " >");
		tm_install_sh_quote(out, st->path);
		tm_buf_putc(out, '\n');
	}
	if (!st->existed && st->mode) {
		tm_buf_printf(out, "chmod %o ", st->mode);
		tm_install_sh_quote(out, st->path);
		tm_buf_putc(out, '\n');
	}
}

void tm_install_step_script(tm_buf *out, const tm_install_step *st)
{
	if (st->done) {
		tm_buf_printf(out, "# already done: %s\n", st->what);
		return;
	}
	tm_buf_printf(out, "# %s\n", st->what);
	switch (st->kind) {
	case TM_INSTALL_SET_CONFIG:
	case TM_INSTALL_UNSET_CONFIG:
		tm_buf_puts(out, "git config ");
		if (st->global)
			tm_buf_puts(out, "--global ");
		if (st->kind == TM_INSTALL_UNSET_CONFIG)
			tm_buf_puts(out, "--unset ");
		tm_buf_puts(out, st->key);
		if (st->kind == TM_INSTALL_SET_CONFIG) {
			tm_buf_putc(out, ' ');
			tm_install_sh_quote(out, st->value);
		}
		tm_buf_putc(out, '\n');
		break;
	case TM_INSTALL_WRITE_FILE:
		script_write(out, st);
		break;
	case TM_INSTALL_DELETE_FILE:
		tm_buf_puts(out, "rm ");
		tm_install_sh_quote(out, st->path);
		tm_buf_putc(out, '\n');
		break;
	case TM_INSTALL_MANUAL:
		if (st->data)
			tm_buf_printf(out, "#     %s\n", st->data);
		break;
	}
}
