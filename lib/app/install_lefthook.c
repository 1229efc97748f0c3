/*
 * install through lefthook, the text half (install.h): our entries in
 * lefthook's config, YAML (edited through install_yaml.h) or TOML (a
 * table per hook appended).  Pure functions; install_manager_plan.c does
 * the file I/O.
 */
#include "install.h"
#include "install_yaml.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

/* The hooks and the arguments lefthook passes on to each ({N}: git's). */
static const char *lefthook_args(const char *name)
{
	if (!strcmp(name, "post-checkout"))
		return " {1} {2} {3}";
	if (!strcmp(name, "post-merge") || !strcmp(name, "post-rewrite"))
		return " {1}";
	return "";
}

/* Our entry of hook `name` at `indent`, headed by `head`: `threadmind:`
 * under `commands:`, `- name: threadmind` under `jobs:`. */
static void lefthook_entry(tm_buf *b, const char *eol, size_t indent,
			   const char *head, const char *name)
{
	tm_install__yline(b, eol, indent, "%s", head);
	tm_install__put_indent(b, indent + 2);
	tm_buf_puts(b, "run: ");
	tm_install__put_command(b, name, lefthook_args(name));
	tm_buf_puts(b, eol);
	if (!strcmp(name, "post-rewrite"))
		tm_install__yline(b, eol, indent + 2, "use_stdin: true");
}

static void lefthook_command(tm_buf *b, const char *eol, size_t indent,
			     const char *name)
{
	lefthook_entry(b, eol, indent, "threadmind:", name);
}

static void lefthook_job(tm_buf *b, const char *eol, size_t indent,
			 const char *name)
{
	lefthook_entry(b, eol, indent, "- name: threadmind", name);
}

/* The top-level key of hook `name` with our command, at `indent`. */
static void lefthook_hook(tm_buf *b, const char *eol, size_t indent,
			  const char *name)
{
	tm_install__yline(b, eol, indent, "%s:", name);
	tm_install__yline(b, eol, indent + 2, "commands:");
	lefthook_command(b, eol, indent + 4, name);
}

void tm_install_lefthook_snippet(tm_buf *out, const char *const *names,
				 tm_install_config_format format)
{
	size_t i;

	for (i = 0; names[i]; i++) {
		const char *name = names[i];

		if (format == TM_INSTALL_CONFIG_TOML) {
			tm_buf_printf(out, "[%s.commands.threadmind]\nrun = \"",
				      name);
			tm_install_manager_command(out, name,
						   lefthook_args(name));
			tm_buf_puts(out, "\"\n");
			if (!strcmp(name, "post-rewrite"))
				tm_buf_puts(out, "use_stdin = true\n");
		} else if (format == TM_INSTALL_CONFIG_JSON) {
			tm_buf_printf(out,
				      "\"%s\": {\"commands\": {\"threadmind\": "
				      "{\"run\": \"",
				      name);
			tm_install_manager_command(out, name,
						   lefthook_args(name));
			tm_buf_printf(out, "\"%s}}}%s\n",
				      !strcmp(name, "post-rewrite")
					      ? ", \"use_stdin\": true"
					      : "",
				      names[i + 1] ? "," : "");
		} else {
			lefthook_hook(out, "\n", 0, name);
		}
	}
}

/* Plan the insertion for hook `name` of the lefthook config. */
static int lefthook_one(struct tm_install__yedit *e, tm_buf *end,
			struct tm_install__yfile *f, const char *name)
{
	const struct tm_install__ytext *t = &f->text;
	struct tm_install__ynode *hkey = NULL, *ckey = NULL, *hook, *cmds,
				 *jobs;
	size_t at, indent;
	tm_buf *b;
	/* what goes in: our command under `commands:`, our job under
	 * `jobs:`, or `commands:` with our command */
	enum { COMMAND, JOB, COMMANDS } what = COMMANDS;

	hook = tm_install__ymap_get(f->root, name, &hkey);
	if (!hook) {
		lefthook_hook(end, t->eol, f->top, name);
		return 0;
	}
	if (hook->kind != TM_INSTALL__YMAP || tm_install__ymap_merges(hook) ||
	    !tm_install__block_kids(&at, &indent, t, hkey, hook))
		return tm_error_set(TM_EINVALID,
				    "its '%s' key is not a plain block map",
				    name);
	if ((cmds = tm_install__ymap_get(hook, "commands", &ckey))) {
		if (cmds->kind != TM_INSTALL__YMAP ||
		    tm_install__ymap_merges(cmds) ||
		    !tm_install__block_kids(&at, &indent, t, ckey, cmds))
			return tm_error_set(TM_EINVALID,
					    "'%s' has 'commands' that are not "
					    "a plain block map",
					    name);
		if (tm_install__ymap_get(cmds, "threadmind", NULL))
			return tm_error_set(TM_EINVALID,
					    "'%s' already has a command "
					    "named 'threadmind'",
					    name);
		what = COMMAND;
	} else if ((jobs = tm_install__ymap_get(hook, "jobs", &ckey))) {
		if (jobs->kind != TM_INSTALL__YSEQ ||
		    !tm_install__block_kids(&at, &indent, t, ckey, jobs))
			return tm_error_set(TM_EINVALID,
					    "'%s' has 'jobs' that are not a "
					    "plain block list",
					    name);
		what = JOB;
	}
	b = tm_install__yedit_at(e, at);
	tm_install__block_begin(b, t->eol);
	if (what == COMMAND) {
		lefthook_command(b, t->eol, indent, name);
	} else if (what == JOB) {
		lefthook_job(b, t->eol, indent, name);
	} else {
		tm_install__yline(b, t->eol, indent, "commands:");
		lefthook_command(b, t->eol, indent + 2, name);
	}
	tm_install__block_end(b, t->eol);
	return 0;
}

int tm_install_lefthook_add(tm_buf *out, const char *data, size_t len,
			    const char *const *names)
{
	struct tm_install__yfile f;
	struct tm_install__yedit e = {NULL, 0, 0};
	tm_buf end = TM_BUF_INIT;
	size_t i;
	int error;

	if ((error = tm_install__yfile_init(&f, data, len)) == 0)
		for (i = 0; names[i] && error == 0; i++)
			error = lefthook_one(&e, &end, &f, names[i]);
	if (error == 0) {
		tm_install__put_end_block(&e, &f.text, &end);
		tm_install__yedit_apply(out, &e, &f.text);
	}
	tm_buf_release(&end);
	tm_install__yedit_clear(&e);
	tm_install__yfile_clear(&f);
	return error;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && tm_install__is_blank(*p))
		p++;
	return p;
}

/* lefthook.toml: a table header or a key at the start of a line. */
static bool toml_key_is(const char *p, const char *end, const char *key,
			const char **after)
{
	size_t n = strlen(key);
	bool quoted = p < end && (*p == '"' || *p == '\'');

	if (quoted)
		p++;
	if ((size_t)(end - p) < n || memcmp(p, key, n))
		return false;
	p += n;
	if (quoted) {
		if (p >= end || (*p != '"' && *p != '\''))
			return false;
		p++;
	}
	p = skip_blanks(p, end);
	*after = p;
	return p < end && (*p == '=' || *p == '.' || *p == ']');
}

/*
 * Whether a TOML table `[name.commands.threadmind]` can be added: `name`
 * is not given in another form (a value, an inline table, dotted keys
 * under the tables that lead to ours), and ours is not there yet.
 */
static int toml_check(const char *d, size_t len, const char *name)
{
	const char *keys[3];
	struct tm_install__line l;
	size_t pos = 0;
	/* 0: the root table, 1: [name], 2: [name.commands], 3: elsewhere */
	int table = 0, k;

	keys[0] = name;
	keys[1] = "commands";
	keys[2] = "threadmind";
	while (tm_install__next_line(d, len, &pos, &l)) {
		const char *end = d + l.end, *after;
		const char *p = skip_blanks(d + l.start, end);

		if (p >= end || *p == '#')
			continue;
		if (*p == '[') {
			bool array = p + 1 < end && p[1] == '[';

			/* [name], [name.commands], [name.commands.threadmind]
			 */
			p += array ? 2 : 1;
			table = 3;
			for (k = 0; k < 3; k++) {
				p = skip_blanks(p, end);
				if (!toml_key_is(p, end, keys[k], &after))
					break;
				if (k == 2)
					goto refuse;
				if (*after == ']') {
					if (array)
						goto refuse;
					table = k + 1;
					break;
				}
				p = after + 1;
			}
			continue;
		}
		if (table < 3 && toml_key_is(p, end, keys[table], &after))
			goto refuse;
	}
	return 0;
refuse:
	return tm_error_set(TM_EINVALID,
			    "'%s' is given in a form that a table "
			    "[%s.commands.threadmind] cannot be added to",
			    name, name);
}

int tm_install_lefthook_toml_add(tm_buf *out, const char *data, size_t len,
				 const char *const *names)
{
	tm_buf base = TM_BUF_INIT, tables = TM_BUF_INIT;
	struct tm_install__ytext t;
	struct tm_install__yedit e = {NULL, 0, 0};
	size_t i;
	int error;

	if ((error = tm_install_remove(&base, data, len)) < 0)
		return error;
	for (i = 0; names[i] && error == 0; i++)
		error = toml_check(tm_buf_cstr(&base), base.size, names[i]);
	if (error == 0 &&
	    !tm_install__ytext_init(&t, tm_buf_cstr(&base), base.size))
		error = tm_error_set(TM_EINVALID,
				     "it has line breaks other than LF and "
				     "CRLF");
	if (error == 0) {
		tm_buf *b;

		for (i = 0; names[i]; i++) {
			tm_buf snippet = TM_BUF_INIT;
			struct tm_install__line l;
			size_t pos = 0;
			const char *only[2];

			only[0] = names[i];
			only[1] = NULL;
			tm_install_lefthook_snippet(&snippet, only,
						    TM_INSTALL_CONFIG_TOML);
			while (tm_install__next_line(snippet.ptr, snippet.size,
						     &pos, &l)) {
				tm_buf_put(&tables, snippet.ptr + l.start,
					   l.end - l.start);
				tm_buf_puts(&tables, t.eol);
			}
			tm_buf_release(&snippet);
		}
		b = tm_install__yedit_at(&e, t.len);
		tm_install__block_begin(b, t.eol);
		tm_buf_put(b, tables.ptr, tables.size);
		tm_install__block_end(b, t.eol);
		tm_install__yedit_apply(out, &e, &t);
		free(t.starts);
	}
	tm_install__yedit_clear(&e);
	tm_buf_release(&tables);
	tm_buf_release(&base);
	return error;
}
