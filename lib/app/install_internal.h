/*
 * Internal to the install files: the line reader the text halves edit
 * with (install_hooks.c, install_gitfiles.c, the managers'), and the
 * plan's helpers (install_plan.c, install_plan_hooks.c,
 * install_manager_plan.c).  Not part of the umbrella header.
 */
#ifndef TM_INSTALL_INTERNAL_H
#define TM_INSTALL_INTERNAL_H

#include "install.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* One line of a buffer: [start, end) without its line end, next after. */
struct tm_install__line {
	size_t start, end, next;
};

static inline bool tm_install__next_line(const char *d, size_t len, size_t *pos,
					 struct tm_install__line *l)
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

static inline bool tm_install__line_is(const char *d,
				       const struct tm_install__line *l,
				       const char *text)
{
	size_t n = strlen(text);

	return l->end - l->start == n && !memcmp(d + l->start, text, n);
}

/* The line end of the file: that of its first line, LF by default. */
static inline const char *tm_install__file_eol(const char *d, size_t len)
{
	const char *nl = memchr(d, '\n', len);

	return nl && nl > d && nl[-1] == '\r' ? "\r\n" : "\n";
}

static inline bool tm_install__is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated word of [*p, end) into [*w, *w + *wn). */
static inline bool tm_install__next_word(const char **p, const char *end,
					 const char **w, size_t *wn)
{
	while (*p < end && tm_install__is_blank(**p))
		(*p)++;
	if (*p >= end)
		return false;
	*w = *p;
	while (*p < end && !tm_install__is_blank(**p))
		(*p)++;
	*wn = (size_t)(*p - *w);
	return true;
}

/* ---- the plan's helpers ---- */

struct tm_git;

/*
 * The last top-level command of shell script `d` (a complete command: a
 * list, a pipeline, a compound command, over as many lines as it takes):
 * [*start, *end), *start at the start of its first line; *ends when `exit`
 * or `exec` is in command position anywhere in it (it may end the script,
 * so code after it may never run).  False when the script has no command.
 */
bool tm_install__last_command(const char *d, size_t len, size_t *start,
			      size_t *end, bool *ends);

/* A new step of `p` (path copied, or NULL), the other fields zero. */
tm_install_step *tm_install__add_step(tm_install_plan *p, tm_install_kind kind,
				      const char *path);
void tm_install__set_what(tm_install_step *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A copy of `b` as the step's data / as what the file held. */
void tm_install__set_data(tm_install_step *st, const tm_buf *b);
void tm_install__set_old(tm_install_step *st, const tm_buf *b);

/* "<dir>/<name>" (trailing slashes of `dir` dropped), malloc'd. */
char *tm_install__join(const char *dir, const char *name);

/*
 * Append everything `fd` holds, up to TM_MAX_FILE_SIZE + 1 bytes (more
 * says "too large"), NUL-terminated.  -1 with errno on a read error.
 */
int tm_install__read_all(int fd, tm_buf *out);

/*
 * Read the file at `path` (up to TM_MAX_FILE_SIZE + 1 bytes) into `data`:
 * *exists false when there is nothing there; *regular false for anything
 * but a regular file (a symbolic link, a folder, a file over 1 MiB), whose
 * content is not read then.  Errors: TM_ERROR.
 */
int tm_install__read_file(tm_buf *data, bool *exists, bool *regular,
			  const char *path);

enum tm_install__mode {
	TM_INSTALL__HOOK,   /* install a hook git runs */
	TM_INSTALL__HUSKY,  /* install into a husky script */
	TM_INSTALL__UNHOOK, /* uninstall */
	TM_INSTALL__CLEAN   /* uninstall, with no step where nothing is ours */
};

/*
 * Plan the hook file `path` of hook `name` as install or uninstall does
 * (docs/hooks.md), per `mode`.  Steps other than HOOK and UNHOOK are marked
 * `manager`.  Errors: TM_ERROR when it cannot be read.
 */
int tm_install__plan_hook_file(tm_install_plan *p, const char *path,
			       const char *name, enum tm_install__mode mode);

/*
 * The steps of the hook files of `g` (install_plan_hooks.c): sets
 * p->hooks_dir (core.hooksPath, `home` for `~`); through a hook manager
 * when there is one (tm_install__plan_manager).  Errors: TM_ERROR.
 */
int tm_install__plan_hooks(tm_install_plan *p, struct tm_git *g, bool uninstall,
			   const char *home);

/*
 * The steps of the hook manager of `g`, when there is one
 * (install_manager_plan.c); p->hooks_dir is set.  Returns 1 when install
 * goes through a manager (the hooks folder is then left to it), 0 when
 * git runs the hooks from p->hooks_dir as usual, or an error.
 */
int tm_install__plan_manager(tm_install_plan *p, struct tm_git *g,
			     bool uninstall, const char *home);

#endif
