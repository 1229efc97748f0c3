/* What the CLI says besides a command's output (see usage.h). */
#include "usage.h"

#include "cli.h"
#include "threadmind/text.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_vreport(const char *prefix, const char *fmt, va_list ap)
{
	tm_buf out = TM_BUF_INIT;

	fflush(stdout);
	tm_text_vmessage(&out, prefix, fmt, ap);
	fwrite(out.ptr, 1, out.size, stderr);
	tm_buf_release(&out);
}

void cli_exec_signals(void)
{
	signal(SIGXFSZ, SIG_DFL);
}

const char *cli_safe(const char *s)
{
	static tm_buf ring[8];
	static unsigned next;
	tm_buf *b;

	if (!s)
		return "";
	if (!tm_text_needs_sanitize(s, strlen(s), 0))
		return s;
	b = &ring[next++ % 8];
	tm_buf_clear(b);
	tm_text_sanitize(b, s, strlen(s), 0);
	return tm_buf_cstr(b);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport("fatal: ", fmt, ap);
	va_end(ap);
	/* Freeing the store releases a lock still held: no stale .lock. */
	tm_store_free(cli.store);
	cli.store = NULL;
	exit(EXIT_FATAL);
}

void die_lib(void)
{
	const char *msg = tm_error_last();

	die("%s", *msg ? msg : "unknown error");
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport("warning: ", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (global_opts.quiet)
		return;
	va_start(ap, fmt);
	cli_vreport("", fmt, ap);
	va_end(ap);
}

void inform(const char *fmt, ...)
{
	va_list ap;

	if (global_opts.quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Weights of git's suggestion distance: typed -> command name. */
#define W_SWAP   0
#define W_SUBST  2
#define W_INSERT 1
#define W_DELETE 3
#define MAX_NAME 128

static int min2(int a, int b)
{
	return a < b ? a : b;
}

int cli_edit_distance(const char *typed, const char *name)
{
	int rows[3][MAX_NAME + 1];
	int *before = rows[0], *prev = rows[1], *cur = rows[2], *t;
	size_t lt = strlen(typed), ln = strlen(name), i, j;

	if (ln > MAX_NAME)
		return CLI_SIMILARITY_FLOOR * 100;
	for (j = 0; j <= ln; j++)
		cur[j] = (int)j * W_INSERT;
	for (i = 1; i <= lt; i++) {
		t = before;
		before = prev;
		prev = cur;
		cur = t;
		cur[0] = (int)i * W_DELETE;
		for (j = 1; j <= ln; j++) {
			int c = prev[j - 1] +
				(typed[i - 1] == name[j - 1] ? 0 : W_SUBST);

			if (i > 1 && j > 1 && typed[i - 1] == name[j - 2] &&
			    typed[i - 2] == name[j - 1])
				c = min2(c, before[j - 2] + W_SWAP);
			c = min2(c, prev[j] + W_DELETE);
			c = min2(c, cur[j - 1] + W_INSERT);
			cur[j] = c;
		}
	}
	return cur[ln];
}

size_t cli_closest(tm_buf *out, const char *const *names, const int *score,
		   size_t n)
{
	int best = CLI_SIMILARITY_FLOOR;
	size_t i, count = 0, shown = 0;

	for (i = 0; i < n; i++)
		if (score[i] < best)
			best = score[i];
	for (i = 0; i < n; i++)
		count += score[i] == best;
	for (i = 0; best < CLI_SIMILARITY_FLOOR && i < n; i++) {
		if (score[i] != best)
			continue;
		shown++;
		tm_buf_printf(out, "%s'%s'",
			      shown == 1       ? ""
			      : shown == count ? " or "
					       : ", ",
			      names[i]);
	}
	return shown;
}
