/* git threadmind log: the commits that changed a thread, and how. */
#include "builtin.h"
#include "cli.h"
#include "diffview.h"
#include "revargs.h"

#include "threadmind/thread_log.h"
#include "threadmind/timestamp.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const log_usage[] = {
	"git threadmind log [<options>] [<thread>] [<revision-range>]",
	"git threadmind log [<options>] [<revision-range>] -- [<thread>]",
	NULL,
};

/* --since: an ISO 8601 date or date-time (UTC unless it says), "@<unix
 * seconds>", or "<n> <unit>[s] ago" (seconds to years).  False when it is
 * none of these. */
static bool parse_since(int64_t *out, const char *s)
{
	static const struct {
		const char *unit;
		int64_t seconds;
	} units[] = {{"second", 1},     {"minute", 60},   {"hour", 3600},
		     {"day", 86400},    {"week", 604800}, {"month", 2592000},
		     {"year", 31536000}};
	char buf[64], unit[16], *end;
	int64_t ms;
	long n;
	size_t i, len;

	if (s[0] == '@' && s[1]) {
		long long v = strtoll(s + 1, &end, 10);

		*out = v;
		return !*end;
	}
	if (strlen(s) == 10 && s[4] == '-' && s[7] == '-') {
		snprintf(buf, sizeof(buf), "%sT00:00:00Z", s);
		s = buf;
	}
	if (tm_time_parse(&ms, s) == 0) {
		*out = ms / 1000;
		return true;
	}
	tm_error_clear();
	n = strtol(s, &end, 10);
	if (end == s || n < 0)
		return false;
	while (*end == ' ' || *end == '.' || *end == '_')
		end++;
	for (len = 0; isalpha((unsigned char)end[len]) && len < 15; len++)
		unit[len] = (char)tolower((unsigned char)end[len]);
	unit[len] = '\0';
	end += len;
	if (len > 1 && unit[len - 1] == 's')
		unit[--len] = '\0';
	while (*end == ' ' || *end == '.' || *end == '_')
		end++;
	if (*end && strcmp(end, "ago"))
		return false;
	for (i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (!strcmp(unit, units[i].unit)) {
			*out = (int64_t)time(NULL) -
			       (int64_t)n * units[i].seconds;
			return true;
		}
	return false;
}

/* "2026-04-15 10:00:00 +0200", git's --date=iso. */
static void format_date(char *out, size_t size, int64_t t, int offset)
{
	time_t local = (time_t)(t + (int64_t)offset * 60);
	struct tm tm;
	int off = offset < 0 ? -offset : offset;

	gmtime_r(&local, &tm);
	snprintf(out, size, "%04d-%02d-%02d %02d:%02d:%02d %c%02d%02d",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, offset < 0 ? '-' : '+', off / 60,
		 off % 60);
}

/* "2026-04-15T10:00:00+02:00" for JSON. */
static void format_iso(char *out, size_t size, int64_t t, int offset)
{
	time_t local = (time_t)(t + (int64_t)offset * 60);
	struct tm tm;
	int off = offset < 0 ? -offset : offset;

	gmtime_r(&local, &tm);
	snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, offset < 0 ? '-' : '+', off / 60,
		 off % 60);
}

/* What a commit changed, in one line: "auth: done, +1 items". */
static void oneline_changes(tm_buf *out, const tm_log_entry *e)
{
	size_t i, k;

	for (i = 0; i < e->diff.n; i++) {
		const tm_store_diff_project *p = &e->diff.items[i];

		if (p->old_project && strcmp(p->old_project, p->project))
			tm_buf_printf(out, "%sproject %s renamed from %s",
				      out->size ? "; " : "", p->project,
				      p->old_project);
		for (k = 0; k < p->diff.n; k++) {
			tm_buf parts = TM_BUF_INIT;

			dv_stat_parts(&parts, &p->diff.items[k]);
			tm_buf_printf(out, "%s%s: %s", out->size ? "; " : "",
				      p->diff.items[k].id, tm_buf_cstr(&parts));
			tm_buf_release(&parts);
		}
	}
}

static void print_entry(const tm_log_entry *e, bool patch, bool oneline,
			bool first)
{
	char date[64];
	size_t i;

	if (oneline) {
		tm_buf b = TM_BUF_INIT;

		oneline_changes(&b, e);
		printf("%s%.7s%s %s (%s)\n", dv_c(DV_COMMIT), e->commit,
		       *dv_c(DV_COMMIT) ? dv_c(DV_RESET) : "",
		       cli_safe(e->subject), cli_safe(tm_buf_cstr(&b)));
		tm_buf_release(&b);
		return;
	}
	if (!first)
		putchar('\n');
	printf("%scommit %s%s\n", dv_c(DV_COMMIT), e->commit,
	       *dv_c(DV_COMMIT) ? dv_c(DV_RESET) : "");
	if (e->parents.n > 1) {
		fputs("Merge:", stdout);
		for (i = 0; i < e->parents.n; i++)
			printf(" %.7s", e->parents.items[i]);
		putchar('\n');
	}
	format_date(date, sizeof(date), e->time, e->offset);
	printf("Author: %s <%s>\n", cli_safe(e->author_name),
	       cli_safe(e->author_email));
	printf("Date:   %s\n\n    %s\n\n", date, cli_safe(e->subject));
	if (e->combined && e->against == 0)
		printf("    (merge: combined both sides; the change against "
		       "the first parent)\n\n");
	else if (e->combined)
		printf("    (merge: the change against parent %zu, %.7s, "
		       "where the thread came from)\n\n",
		       e->against + 1, e->parents.items[e->against]);
	dv_print(&e->diff, patch ? DV_PATCH : DV_SUMMARY, "");
}

static cJSON *entry_json(const tm_log_entry *e)
{
	cJSON *o = cJSON_CreateObject(), *a;
	char date[64];
	size_t i;

	cJSON_AddStringToObject(o, "commit", e->commit);
	a = cJSON_AddArrayToObject(o, "parents");
	for (i = 0; i < e->parents.n; i++)
		cJSON_AddItemToArray(a,
				     cJSON_CreateString(e->parents.items[i]));
	a = cJSON_AddObjectToObject(o, "author");
	cJSON_AddStringToObject(a, "name", e->author_name);
	cJSON_AddStringToObject(a, "email", e->author_email);
	format_iso(date, sizeof(date), e->time, e->offset);
	cJSON_AddStringToObject(a, "date", date);
	cJSON_AddStringToObject(o, "subject", e->subject);
	cJSON_AddBoolToObject(o, "merge", e->parents.n > 1);
	cJSON_AddBoolToObject(o, "combined", e->combined);
	if (e->against == SIZE_MAX)
		cJSON_AddNullToObject(o, "against");
	else
		cJSON_AddStringToObject(o, "against",
					e->parents.items[e->against]);
	cJSON_AddStringToObject(o, "project", e->project);
	if (e->id)
		cJSON_AddStringToObject(o, "thread", e->id);
	else
		cJSON_AddNullToObject(o, "thread");
	cJSON_AddItemToObject(o, "projects", dv_json_projects(&e->diff));
	return o;
}

int cmd_log(int argc, const char **argv)
{
	bool patch = false, oneline = false, as_json = false, reverse = false;
	bool all_fields = false;
	const char *max = NULL, *since = NULL;
	const struct option opts[] = {
		OPT_BOOL_('p', "patch", &patch, "show the items' lines too"),
		OPT_BOOL_(0, "oneline", &oneline, "one line per commit"),
		OPT_STRING_('n', "max-count", &max, "number",
			    "show at most <number> commits"),
		OPT_STRING_(0, "since", &since, "date",
			    "only commits since <date>"),
		OPT_BOOL_(0, "reverse", &reverse, "oldest first"),
		OPT_BOOL_(0, "json", &as_json, "print JSON (docs/json.md)"),
		OPT_BOOL_(0, "all-fields", &all_fields,
			  "also show updatedAt and the id field"),
		OPT_GLOBALS,
		OPT_THREADS_(),
		OPT_END_(),
	};
	tm_log_options lo = TM_LOG_OPTIONS_INIT;
	tm_log log = TM_LOG_INIT;
	struct revargs ra;
	char *project = NULL, *end;
	size_t i;
	int n;

	revargs_dashdash(&ra, argc, argv);
	n = parse_options(argc, argv, opts, log_usage);
	if (max) {
		long v = strtol(max, &end, 10);

		if (!*max || *end || v < 0)
			usage_msg(log_usage, opts,
				  "-n takes a number, not '%s'", max);
		lo.max_count = (size_t)v;
		if (!v)
			return 0;
	}
	if (since) {
		if (!parse_since(&lo.since, since))
			usage_msg(
				log_usage, opts,
				"--since: cannot read '%s' as a date "
				"(2026-04-15, 2026-04-15T10:00Z, @1776247200, "
				"'2 weeks ago')",
				since);
		lo.has_since = true;
	}
	if (as_json && oneline)
		usage_msg(log_usage, opts,
			  "--json and --oneline cannot be used together");
	cli_open_flags(CLI_OPEN_NO_PROJECT);
	revargs_split(&ra, argv, n, true, log_usage, opts);
	if (tm_store_current_project(&project, cli.store, global_opts.project) <
	    0)
		die_lib();
	lo.project = project;
	lo.thread = ra.threads.n ? ra.threads.items[0] : NULL;
	lo.revs = (const char *const *)ra.revs.items;
	lo.nrevs = ra.revs.n;
	lo.all_fields = all_fields;
	if (tm_log_read(&log, revargs_git(), revargs_prefix(), &lo) < 0)
		die_lib();
	if (as_json) {
		cJSON *doc = cJSON_CreateObject(), *arr;

		cJSON_AddStringToObject(doc, "project", project);
		if (lo.thread)
			cJSON_AddStringToObject(doc, "thread", lo.thread);
		else
			cJSON_AddNullToObject(doc, "thread");
		arr = cJSON_AddArrayToObject(doc, "commits");
		for (i = 0; i < log.n; i++)
			cJSON_AddItemToArray(
				arr,
				entry_json(&log.items[reverse ? log.n - 1 - i
							      : i]));
		cli_print_json(doc);
	} else {
		for (i = 0; i < log.n; i++)
			print_entry(&log.items[reverse ? log.n - 1 - i : i],
				    patch, oneline, !i);
	}
	tm_log_clear(&log);
	revargs_clear(&ra);
	free(project);
	return 0;
}
