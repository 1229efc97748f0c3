/* What every command shares (see cli.h). */
#include "cli.h"

#include "lib/json_cjson.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cli_state cli;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap);
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
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (global_opts.quiet)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

static void config_warning(const char *msg, void *payload)
{
	(void)payload;
	warning("%s", msg);
}

static void auto_migrate(void)
{
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	size_t i;

	if (!tm_migrate_needed(cli.store, false))
		return;
	/* Never a dead end: what cannot be upgraded is a warning, and the
	 * command goes on with the thread files as they are. */
	if (tm_migrate_run(&report, &left, cli.store, false, false) < 0)
		warning("upgrade from 0.4 not done: %s; run 'git threadmind "
			"migrate' once it is fixed",
			tm_error_last());
	else if (report.n)
		fprintf(stderr,
			"threadmind: upgraded .threadmind/ from 0.4 (%zu "
			"change%s: trees/ aligned); commit it\n",
			report.n, report.n == 1 ? "" : "s");
	for (i = 0; i < left.n; i++)
		warning("%s", left.items[i]);
	tm_error_clear();
	tm_strv_clear(&report);
	tm_strv_clear(&left);
}

bool cli_open_flags(unsigned flags)
{
	char *cwd = getcwd(NULL, 0);
	int error;

	if (!cwd)
		die("cannot read the current folder: %s", strerror(errno));
	error = tm_store_discover(&cli.store, cwd);
	free(cwd);
	if (error == TM_ENOTFOUND && (flags & CLI_OPEN_QUIET_MISSING))
		return false;
	if (error < 0)
		die_lib();
	/* config.json is per-user state: read commands warn and go on. */
	tm_store_config_fallback(cli.store, config_warning, NULL);
	if (!(flags & CLI_OPEN_NO_UPGRADE))
		auto_migrate();
	if (!(flags & CLI_OPEN_NO_PROJECT) &&
	    tm_store_current_project(&cli.project, cli.store,
				     global_opts.project) < 0)
		die_lib();
	return true;
}

void cli_open(void)
{
	cli_open_flags(0);
}

char *cli_resolve_thread(const char *arg)
{
	tm_strv ids = TM_STRV_INIT;
	char *id = NULL;

	/* "../x" or "Foo" can name no thread: say why, not "no match". */
	if (tm_id_validate(arg, "thread") < 0 ||
	    tm_store_list_threads(&ids, NULL, cli.store, cli.project) < 0 ||
	    tm_id_resolve(&id, arg, &ids, "thread") < 0)
		die_lib();
	tm_strv_clear(&ids);
	return id;
}

tm_thread *cli_load_thread(const char *id)
{
	tm_thread *t = NULL;

	if (tm_store_load_thread(&t, cli.store, cli.project, id) < 0)
		die_lib();
	return t;
}

void cli_load_all(tm_thread_list *out)
{
	size_t i;

	if (tm_store_load_all(out, cli.store, cli.project) < 0)
		die_lib();
	for (i = 0; i < out->errors.n; i++)
		warning("skipping %s", out->errors.items[i]);
}

char *cli_active_thread(const tm_thread *const *threads, size_t n)
{
	tm_config *cfg = NULL;
	char *id = NULL;

	if (tm_store_load_config(&cfg, cli.store) < 0 ||
	    tm_store_active_thread(&id, cli.store, cli.project, cfg, threads,
				   n) < 0)
		die_lib();
	tm_config_free(cfg);
	return id;
}

void cli_warn_skipping(const char *msg, void *payload)
{
	(void)payload;
	warning("skipping %s", msg);
}

/* ---- colour ---- */

static int color_setting(const char *value)
{
	if (!strcasecmp(value, "always"))
		return 1;
	if (!strcasecmp(value, "never") || !strcasecmp(value, "false") ||
	    !strcasecmp(value, "no") || !strcasecmp(value, "off") ||
	    !strcmp(value, "0"))
		return 0;
	return -1; /* auto, true, … */
}

bool cli_color(void)
{
	static int decided = -2;
	const char *no_color = getenv("NO_COLOR");

	if (decided != -2)
		return decided;
	decided = -1;
	if (global_opts.no_color || (no_color && *no_color)) {
		decided = 0;
	} else {
		static const char *keys[] = {"color.threadmind", "color.ui"};
		struct tm_git *g = cli.store ? tm_store_git(cli.store) : NULL;
		size_t i;

		for (i = 0; i < 2; i++) {
			char *v = NULL;

			if (tm_git_config_string(&v, g, keys[i]) == 0) {
				decided = color_setting(v);
				free(v);
				break;
			}
		}
		tm_error_clear();
	}
	if (decided == -1)
		decided = isatty(STDOUT_FILENO);
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

/* ---- JSON ---- */

void cli_print_json(cJSON *doc)
{
	tm_buf out = TM_BUF_INIT;

	tm_json_stringify(&out, doc);
	tm_buf_putc(&out, '\n');
	fwrite(out.ptr, 1, out.size, stdout);
	tm_buf_release(&out);
	cJSON_Delete(doc);
}

static void add_string_or_null(cJSON *o, const char *key, const char *value)
{
	if (value)
		cJSON_AddStringToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *cli_thread_json(const tm_thread *t, bool active, unsigned flags)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {{TM_TREE_ORPHAN, "orphan"},
		     {TM_TREE_CYCLE, "cycle"},
		     {CLI_FLAG_STALE, "stale"},
		     {CLI_FLAG_UNREADABLE, "unreadable"}};
	cJSON *o = cJSON_CreateObject(), *arr;
	size_t i;

	add_string_or_null(o, "id", t->id);
	add_string_or_null(o, "title", t->title);
	add_string_or_null(o, "parentId", t->parent_id);
	add_string_or_null(o, "author", t->author);
	add_string_or_null(o, "createdAt", t->created_at);
	add_string_or_null(o, "updatedAt", t->updated_at);
	add_string_or_null(o, "status", t->status);
	add_string_or_null(o, "branch", t->branch);
	add_string_or_null(o, "commit", t->commit);
	arr = cJSON_AddArrayToObject(o, "paths");
	for (i = 0; i < t->paths.n; i++)
		cJSON_AddItemToArray(arr,
				     cJSON_CreateString(t->paths.items[i]));
	add_string_or_null(o, "mergedInto", t->merged_into);
	cJSON_AddBoolToObject(o, "active", active);
	arr = cJSON_AddArrayToObject(o, "flags");
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (flags & names[i].bit)
			cJSON_AddItemToArray(arr,
					     cJSON_CreateString(names[i].name));
	return o;
}
