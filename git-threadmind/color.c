/* Colour and line drawing (see color.h). */
#include "color.h"

#include "cli.h"

#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* What a colour setting says: 1 always, 0 never, -1 auto, -2 not a word of
 * ours (a boolean then, as git's colorbool). */
static int color_word(const char *value)
{
	if (!strcasecmp(value, "always"))
		return 1;
	if (!strcasecmp(value, "never"))
		return 0;
	if (!strcasecmp(value, "auto"))
		return -1;
	return -2;
}

/*
 * The colour config `key` as git reads color.ui: always, never, auto, or a
 * boolean (true: auto).  -3 when unset; dies naming the key on a value that
 * is none of these.
 */
static int color_config(struct tm_git *g, const char *key)
{
	char *v = NULL;
	bool b;
	int w, error = tm_git_config_string(&v, g, key);

	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		return -3;
	}
	if (error < 0)
		die_lib();
	w = color_word(v);
	free(v);
	if (w != -2)
		return w;
	if (tm_git_config_bool(&b, g, key, false) < 0)
		die_lib();
	return b ? -1 : 0;
}

bool cli_color(void)
{
	static int decided = -2;
	const char *no_color = getenv("NO_COLOR"), *term;

	if (decided != -2)
		return decided;
	if (global_opts.color) {
		decided = color_word(global_opts.color);
	} else if (no_color && *no_color) {
		decided = 0;
	} else {
		struct tm_git *g = cli.store ? tm_store_git(cli.store) : NULL;

		decided = color_config(g, "color.threadmind");
		if (decided == -3)
			decided = color_config(g, "color.ui");
		if (decided == -3)
			decided = -1;
	}
	if (decided == -1) {
		term = getenv("TERM");
		decided = isatty(STDOUT_FILENO) && term && *term &&
			  strcmp(term, "dumb");
	}
	return decided;
}

const char *cli_c(const char *name)
{
	static const struct {
		const char *name, *seq;
	} colors[] = {
		{"red", "\033[31m"},    {"green", "\033[32m"},
		{"yellow", "\033[33m"}, {"blue", "\033[34m"},
		{"cyan", "\033[36m"},   {"dim", "\033[2m"},
		{"bold", "\033[1m"},    {"reset", "\033[m"},
	};
	size_t i;

	if (!cli_color())
		return "";
	for (i = 0; i < sizeof(colors) / sizeof(*colors); i++)
		if (!strcmp(colors[i].name, name))
			return colors[i].seq;
	return "";
}

bool cli_unicode(void)
{
	const char *cs;

	if (global_opts.ascii)
		return false;
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}
