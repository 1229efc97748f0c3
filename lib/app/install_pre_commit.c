/*
 * install through the pre-commit framework, the text half (install.h): our
 * local repo of hooks and the hook types in .pre-commit-config.yaml,
 * edited through install_yaml.h.  Pure functions; install_manager_plan.c
 * does the file I/O.
 */
#include "install.h"
#include "install_yaml.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

/* The hook types pre-commit installs for us, in its list's order. */
static const char *const pre_commit_types[] = {
	"pre-commit", "post-checkout", "post-commit",
	"post-merge", "post-rewrite",  NULL,
};

/*
 * The stage of hook `name` in pre-commit's config.  pre-commit before 3.2
 * knows the stage of the pre-commit hook only as `commit`, and 3.2 and
 * later still take it (with a warning): `pre-commit` only when the config
 * asks for 3.2 or later (minimum_pre_commit_version).
 */
static const char *pre_commit_stage(const char *name, bool new_names)
{
	return strcmp(name, "pre-commit") || new_names ? name : "commit";
}

/* minimum_pre_commit_version: 3.2 or later. */
static bool min_version_new(const struct tm_install__ynode *root)
{
	const struct tm_install__ynode *v =
		tm_install__ymap_get(root, "minimum_pre_commit_version", NULL);
	char *end;
	long major, minor = 0;

	if (!v || v->kind != TM_INSTALL__YSCALAR)
		return false;
	major = strtol(v->value, &end, 10);
	if (*end == '.')
		minor = strtol(end + 1, NULL, 10);
	return major > 3 || (major == 3 && minor >= 2);
}

static void pre_commit_hooks(tm_buf *b, const char *eol, size_t indent,
			     const char *const *names, bool new_names)
{
	size_t i;

	tm_install__yline(b, eol, indent, "- repo: local");
	tm_install__yline(b, eol, indent + 2, "hooks:");
	for (i = 0; names[i]; i++) {
		const char *name = names[i];

		tm_install__yline(b, eol, indent + 2, "- id: threadmind-%s",
				  name);
		tm_install__yline(b, eol, indent + 4, "name: threadmind %s",
				  name);
		tm_install__put_indent(b, indent + 4);
		tm_buf_puts(b, "entry: \"sh -c '");
		tm_install_manager_command(b, name, NULL);
		tm_buf_puts(b, "'\"");
		tm_buf_puts(b, eol);
		tm_install__yline(b, eol, indent + 4, "language: system");
		tm_install__yline(b, eol, indent + 4, "stages: [%s]",
				  pre_commit_stage(name, new_names));
		tm_install__yline(b, eol, indent + 4, "always_run: true");
		tm_install__yline(b, eol, indent + 4, "pass_filenames: false");
		tm_install__yline(b, eol, indent + 4, "verbose: true");
	}
}

static void pre_commit_types_line(tm_buf *b, const char *eol, size_t indent)
{
	size_t i;

	tm_install__put_indent(b, indent);
	tm_buf_puts(b, "default_install_hook_types: [");
	for (i = 0; pre_commit_types[i]; i++)
		tm_buf_printf(b, "%s%s", i ? ", " : "", pre_commit_types[i]);
	tm_buf_puts(b, "]");
	tm_buf_puts(b, eol);
}

void tm_install_pre_commit_snippet(tm_buf *out, const char *const *names,
				   const char *data, size_t len)
{
	struct tm_install__ynode *root = tm_install__yaml_parse(data, len);
	bool new_names;

	new_names = min_version_new(root);
	tm_install__ynode_free(root);
	tm_buf_puts(out, "repos:\n");
	pre_commit_hooks(out, "\n", 0, names, new_names);
}

/* The hook types of `types` that the list `seq` lacks. */
static void missing_types(tm_strv *out, const struct tm_install__ynode *seq)
{
	size_t i, k;

	for (i = 0; pre_commit_types[i]; i++) {
		bool found = false;

		for (k = 0; seq && k < seq->n; k++)
			if (seq->kids[k]->kind == TM_INSTALL__YSCALAR &&
			    !strcmp(seq->kids[k]->value, pre_commit_types[i]))
				found = true;
		if (!found)
			tm_strv_push(out, pre_commit_types[i]);
	}
}

int tm_install_pre_commit_add(tm_buf *out, tm_strv *types_left,
			      const char *data, size_t len,
			      const char *const *names)
{
	struct tm_install__yfile f;
	struct tm_install__yedit e = {NULL, 0, 0};
	tm_buf end = TM_BUF_INIT, *b;
	struct tm_install__ynode *key = NULL, *repos, *types;
	tm_strv missing = TM_STRV_INIT;
	size_t at, indent, i;
	bool new_names;
	int error;

	if ((error = tm_install__yfile_init(&f, data, len)) < 0)
		goto done;
	new_names = min_version_new(f.root);
	if (names[0]) {
		repos = tm_install__ymap_get(f.root, "repos", &key);
		if (!repos || tm_install__ynull(repos)) {
			if (repos) {
				error = tm_error_set(
					TM_EINVALID,
					"its 'repos' key has no list");
				goto done;
			}
			tm_install__yline(&end, f.text.eol, f.top, "repos:");
			pre_commit_hooks(&end, f.text.eol, f.top, names,
					 new_names);
		} else if (repos->kind != TM_INSTALL__YSEQ ||
			   !tm_install__block_kids(&at, &indent, &f.text, key,
						   repos)) {
			error = tm_error_set(TM_EINVALID,
					     "its 'repos' key is not a plain "
					     "block list");
			goto done;
		} else {
			b = tm_install__yedit_at(&e, at);
			tm_install__block_begin(b, f.text.eol);
			pre_commit_hooks(b, f.text.eol, indent, names,
					 new_names);
			tm_install__block_end(b, f.text.eol);
		}
	}
	types = tm_install__ymap_get(f.root, "default_install_hook_types",
				     &key);
	if (!types) {
		pre_commit_types_line(&end, f.text.eol, f.top);
	} else {
		missing_types(&missing,
			      types->kind == TM_INSTALL__YSEQ ? types : NULL);
		if (!missing.n) {
			/* already listed */
		} else if (types->kind != TM_INSTALL__YSEQ ||
			   !tm_install__block_kids(&at, &indent, &f.text, key,
						   types)) {
			/* not ours to edit: the caller says what to add */
			for (i = 0; i < missing.n; i++)
				tm_strv_push(types_left, missing.items[i]);
		} else {
			b = tm_install__yedit_at(&e, at);
			tm_install__block_begin(b, f.text.eol);
			for (i = 0; i < missing.n; i++)
				tm_install__yline(b, f.text.eol, indent, "- %s",
						  missing.items[i]);
			tm_install__block_end(b, f.text.eol);
		}
	}
	tm_install__put_end_block(&e, &f.text, &end);
	tm_install__yedit_apply(out, &e, &f.text);
done:
	tm_strv_clear(&missing);
	tm_buf_release(&end);
	tm_install__yedit_clear(&e);
	tm_install__yfile_clear(&f);
	return error;
}
