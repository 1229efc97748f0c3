/* Option parsing shared by every command (see opt.h). */
#include "opt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

static const struct option *find_long(const struct option *opts,
				      const char *name, size_t len,
				      bool *negated)
{
	const struct option *o;

	*negated = false;
	for (o = opts; o->type != OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    !strncmp(o->long_name, name, len))
			return o;
	/* --no-X for a boolean --X */
	if (len > 3 && !strncmp(name, "no-", 3)) {
		for (o = opts; o->type != OPT_END; o++)
			if (o->type == OPT_BOOL && o->long_name &&
			    strlen(o->long_name) == len - 3 &&
			    !strncmp(o->long_name, name + 3, len - 3)) {
				*negated = true;
				return o;
			}
	}
	return NULL;
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage)
{
	int i, npos = 0;
	bool dashdash = false;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (dashdash || a[0] != '-' || !a[1]) {
			argv[npos++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			usage_with_options(usage, opts, true);
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			bool negated;
			const struct option *o =
				find_long(opts, name, len, &negated);

			if (!o)
				usage_msg(usage, opts, "unknown option '%s'",
					  a);
			if (negated) {
				if (eq)
					usage_msg(usage, opts,
						  "option '%s' takes no value",
						  a);
				*(bool *)o->value = false;
				continue;
			}
			set_value(o, eq ? eq + 1 : NULL, argc, argv, &i, usage,
				  opts, a);
		} else {
			const char *c;

			for (c = a + 1; *c; c++) {
				const struct option *o;
				char spelled[3] = {'-', *c, 0};

				for (o = opts; o->type != OPT_END; o++)
					if (o->short_name == *c)
						break;
				if (o->type == OPT_END)
					usage_msg(usage, opts,
						  "unknown switch '%c'", *c);
				if (o->type == OPT_BOOL) {
					*(bool *)o->value = true;
					continue;
				}
				set_value(o, c[1] ? c + 1 : NULL, argc, argv,
					  &i, usage, opts, spelled);
				break;
			}
		}
	}
	check_global_options(usage, opts);
	return npos;
}

void check_global_options(const char *const *usage, const struct option *opts)
{
	const char *c = global_opts.color;

	if (c && strcmp(c, "always") && strcmp(c, "never") && strcmp(c, "auto"))
		usage_msg(usage, opts,
			  "option '--color' expects \"always\", \"auto\" or "
			  "\"never\", not '%s'",
			  c);
}
