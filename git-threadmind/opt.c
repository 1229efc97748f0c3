/* Option parsing shared by every command (see opt.h). */
#include "opt.h"

#include "cli.h"

#include <errno.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct global_options global_opts;

static void print_usage(FILE *f, const char *const *usage,
			const struct option *opts)
{
	const struct option *o;
	size_t i;

	for (i = 0; usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	fputc('\n', f);
	for (o = opts; o->type != OPT_END; o++) {
		char left[64];
		int n = 0;

		if (o->type == OPT_GROUP) {
			fprintf(f, "\n%s\n", o->help);
			continue;
		}
		if (o->type == OPT_THREADS || !o->help)
			continue;
		if (o->short_name && o->long_name)
			n = snprintf(left, sizeof(left), "-%c, --%s",
				     o->short_name, o->long_name);
		else if (o->short_name)
			n = snprintf(left, sizeof(left), "-%c", o->short_name);
		else
			n = snprintf(left, sizeof(left), "--%s", o->long_name);
		if (o->argh && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n,
				 o->type == OPT_OPTARG ? "[=<%s>]" : " <%s>",
				 o->argh);
		fprintf(f, "    %-24s %s\n", left, o->help);
	}
}

void usage_with_options(const char *const *usage, const struct option *opts,
			bool to_stdout)
{
	print_usage(to_stdout ? stdout : stderr, usage, opts);
	exit(129);
}

void usage_msg(const char *const *usage, const struct option *opts,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vreport("error: ", fmt, ap);
	va_end(ap);
	usage_with_options(usage, opts, false);
}

static void add_list(tm_strv *v, const char *arg)
{
	const char *p = arg, *comma;

	for (;;) {
		comma = strchr(p, ',');
		if (!comma) {
			if (*p)
				tm_strv_push(v, p);
			break;
		}
		if (comma > p)
			tm_strv_push_owned(v,
					   tm_xstrndup(p, (size_t)(comma - p)));
		p = comma + 1;
	}
}

/* Store `arg` for option `o`; argh options take it from *i+1 if NULL. */
static void set_value(const struct option *o, const char *arg, int argc,
		      const char **argv, int *i, const char *const *usage,
		      const struct option *opts, const char *spelled)
{
	if (o->type == OPT_BOOL) {
		if (arg)
			usage_msg(usage, opts, "option '%s' takes no value",
				  spelled);
		*(bool *)o->value = true;
		return;
	}
	if (o->type == OPT_OPTARG) {
		if (arg && !o->argh)
			usage_msg(usage, opts, "option '%s' takes no value",
				  spelled);
		*(const char **)o->value = arg ? arg : o->defval;
		return;
	}
	if (!arg) {
		if (*i + 1 >= argc)
			usage_msg(usage, opts, "option '%s' requires a value",
				  spelled);
		arg = argv[++*i];
	}
	if (o->type == OPT_STRING)
		*(const char **)o->value = arg;
	else
		add_list((tm_strv *)o->value, arg);
}

/* A long name of `o` as typed options spell it: "no-" + name for the
 * negation of a boolean. */
struct long_form {
	const struct option *o;
	bool negated;
};

static size_t form_len(const struct long_form *f)
{
	return strlen(f->o->long_name) + (f->negated ? 3 : 0);
}

/* Does form `f` start with (or, `exact`, equal) name[0..len)? */
static bool form_matches(const struct long_form *f, const char *name,
			 size_t len, bool exact)
{
	const char *l = f->o->long_name;

	if (exact ? form_len(f) != len : form_len(f) < len)
		return false;
	if (f->negated) {
		size_t head = len < 3 ? len : 3;

		if (strncmp(name, "no-", head))
			return false;
		return len <= 3 || !strncmp(l, name + 3, len - 3);
	}
	return !strncmp(l, name, len);
}

/*
 * The long option name[0..len) names, exactly or as an abbreviation (git's
 * parse-options rule: an exact name wins; otherwise the one form it is a
 * prefix of).  *negated for `--no-X` of a boolean X.  NULL when it names
 * none; an ambiguous prefix is a usage error naming the candidates.
 */
static const struct option *find_long(const struct option *opts,
				      const char *name, size_t len,
				      bool *negated, const char *const *usage)
{
	struct long_form forms[2], found[8];
	const struct option *o;
	size_t nfound = 0, i, k;
	tm_buf names = TM_BUF_INIT;

	*negated = false;
	for (k = 0; k < 2; k++)
		for (o = opts; o->type != OPT_END; o++) {
			size_t nforms = 0;

			if (!o->long_name)
				continue;
			forms[nforms++] = (struct long_form){o, false};
			if (o->type == OPT_BOOL)
				forms[nforms++] = (struct long_form){o, true};
			for (i = 0; i < nforms; i++) {
				if (!form_matches(&forms[i], name, len, !k))
					continue;
				if (!k) {
					*negated = forms[i].negated;
					return o;
				}
				if (nfound < sizeof(found) / sizeof(*found))
					found[nfound] = forms[i];
				nfound++;
			}
		}
	if (nfound == 1) {
		*negated = found[0].negated;
		return found[0].o;
	}
	if (!nfound || !len)
		return NULL;
	if (nfound > sizeof(found) / sizeof(*found))
		nfound = sizeof(found) / sizeof(*found);
	for (i = 0; i < nfound; i++)
		tm_buf_printf(&names, "%s'--%s%s'",
			      !i                ? ""
			      : i + 1 == nfound ? " or "
						: ", ",
			      found[i].negated ? "no-" : "",
			      found[i].o->long_name);
	usage_msg(usage, opts, "ambiguous option '--%.*s': could be %s",
		  (int)len, name, tm_buf_cstr(&names));
}

/* The first switch of the cluster `a` ("-xyz") that is no short option
 * of `opts`, or 0 when all are (one taking a value takes the rest). */
static char unknown_short(const char *a, const struct option *opts)
{
	const char *c;

	for (c = a + 1; *c; c++) {
		const struct option *o;

		for (o = opts; o->type != OPT_END; o++)
			if (o->short_name == *c)
				break;
		if (o->type == OPT_END)
			return *c;
		if (o->type != OPT_BOOL)
			return 0;
	}
	return 0;
}

static bool takes_threads(const struct option *opts)
{
	const struct option *o;

	for (o = opts; o->type != OPT_END; o++)
		if (o->type == OPT_THREADS)
			return true;
	return false;
}

/* "-" and digits: what ThreadMind 0.4 made of a title with no letter. */
static bool looks_like_04_id(const char *a)
{
	return a[0] == '-' && a[1] &&
	       strspn(a + 1, "0123456789") == strlen(a + 1);
}

/*
 * The usage error for `a`, an unknown option or a cluster with an unknown
 * switch; in a command taking threads, a hint for a 0.4 id (`-2`).
 */
static void unknown_option(const char *a, const struct option *opts,
			   const char *const *usage, const char *command)
	__attribute__((noreturn));
static void unknown_option(const char *a, const struct option *opts,
			   const char *const *usage, const char *command)
{
	if (a[1] == '-')
		fprintf(stderr, "error: unknown option '%s'\n", cli_safe(a));
	else
		fprintf(stderr, "error: unknown switch '%c'\n",
			unknown_short(a, opts));
	if (takes_threads(opts) && looks_like_04_id(a))
		fprintf(stderr,
			"hint: a thread id that starts with '-' goes after "
			"'--': 'git threadmind %s -- %s'\n",
			command, cli_safe(a));
	usage_with_options(usage, opts, false);
}

static void parse_long(const char *a, int argc, const char **argv, int *i,
		       const struct option *o, bool negated,
		       const char *const *usage, const struct option *opts)
{
	const char *eq = strchr(a, '=');
	char spelled[80];

	snprintf(spelled, sizeof(spelled), "--%s%s", negated ? "no-" : "",
		 o->long_name);
	if (negated) {
		if (eq)
			usage_msg(usage, opts, "option '%s' takes no value",
				  spelled);
		*(bool *)o->value = false;
		return;
	}
	set_value(o, eq ? eq + 1 : NULL, argc, argv, i, usage, opts, spelled);
}

static void parse_short(const char *a, int argc, const char **argv, int *i,
			const char *const *usage, const struct option *opts)
{
	const char *c;

	for (c = a + 1; *c; c++) {
		const struct option *o;
		char spelled[3] = {'-', *c, 0};

		for (o = opts; o->type != OPT_END; o++)
			if (o->short_name == *c)
				break;
		if (o->type == OPT_END)
			usage_msg(usage, opts, "unknown switch '%c'", *c);
		if (o->type == OPT_BOOL) {
			*(bool *)o->value = true;
			continue;
		}
		set_value(o, c[1] ? c + 1 : NULL, argc, argv, i, usage, opts,
			  spelled);
		break;
	}
}

/* --color must be always, never or auto: a usage error (129) otherwise. */
static void check_global_options(const char *const *usage,
				 const struct option *opts)
{
	const char *c = global_opts.color;

	if (c && strcmp(c, "always") && strcmp(c, "never") && strcmp(c, "auto"))
		usage_msg(usage, opts,
			  "option '--color' expects \"always\", \"auto\" or "
			  "\"never\", not '%s'",
			  c);
}

void open_manual(void)
{
	fflush(NULL);
	cli_exec_signals();
	execlp("git", "git", "help", "git-threadmind", (char *)NULL);
	fprintf(stderr, "fatal: cannot run 'git help git-threadmind': %s\n",
		strerror(errno));
	exit(128);
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage)
{
	return parse_options_flags(argc, argv, opts, usage, 0);
}

int parse_options_flags(int argc, const char **argv, const struct option *opts,
			const char *const *usage, unsigned flags)
{
	const char *command = argv[0];
	int i, stop, npos = 0, nmaybe = 0, *maybe;
	bool dashdash = false, threads = takes_threads(opts);

	/* Positions (in the positional arguments) of unknown switches that
	 * may name a thread, decided once every option is parsed. */
	maybe = tm_xcalloc((size_t)argc + 1, sizeof(*maybe));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (dashdash || a[0] != '-' || !a[1]) {
			if (flags & PARSE_OPT_STOP_AT_NON_OPTION)
				break;
			argv[npos++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
			continue;
		}
		if (flags & PARSE_OPT_NO_INTERNAL_HELP)
			;
		else if (!strcmp(a, "-h"))
			usage_with_options(usage, opts, true);
		else if (!strcmp(a, "--help"))
			open_manual();
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			bool negated;
			const struct option *o =
				find_long(opts, name, len, &negated, usage);

			if (o)
				parse_long(a, argc, argv, &i, o, negated, usage,
					   opts);
			else if (threads)
				argv[maybe[nmaybe++] = npos++] = a;
			else
				unknown_option(a, opts, usage, command);
		} else if (threads && unknown_short(a, opts)) {
			argv[maybe[nmaybe++] = npos++] = a;
		} else {
			parse_short(a, argc, argv, &i, usage, opts);
		}
	}
	stop = i;
	check_global_options(usage, opts);
	for (i = 0; i < nmaybe; i++)
		if (!cli_names_thread(argv[maybe[i]]))
			unknown_option(argv[maybe[i]], opts, usage, command);
	free(maybe);
	return flags & PARSE_OPT_STOP_AT_NON_OPTION ? stop : npos;
}
