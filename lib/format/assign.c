/* Field assignments of `git threadmind set` (see assign.h). */
#include "assign.h"

#include "buf.h"
#include "error.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#define SETTABLE "title, paths and branch can be set"

/* Fields that exist but that `set` does not change, and why. */
static const struct {
	const char *key;
	const char *hint;
} fixed_fields[] = {
	{"id", "a thread's id is its file name and never changes"},
	{"parentId", "use 'git threadmind move' to change the parent"},
	{"status", "use 'git threadmind done', 'abandon' or 'reopen'"},
	{"commit", "use 'git threadmind touch' to set it to HEAD"},
	{"mergedInto", "it is set by 'git threadmind merge'"},
	{"author", "it is set when the thread is created"},
	{"createdAt", "it is set when the thread is created"},
	{"updatedAt", "it is set by every change"},
};

int tm_assign_parse(tm_assign *out, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t klen, i;

	if (!eq)
		return tm_error_set(TM_EINVALID,
				    "'%s' is not a field assignment: write "
				    "<field>=<value> (" SETTABLE ")",
				    arg);
	klen = (size_t)(eq - arg);
	if (klen == 5 && !strncmp(arg, "title", 5))
		out->field = TM_ASSIGN_TITLE;
	else if (klen == 5 && !strncmp(arg, "paths", 5))
		out->field = TM_ASSIGN_PATHS;
	else if (klen == 6 && !strncmp(arg, "branch", 6))
		out->field = TM_ASSIGN_BRANCH;
	else {
		for (i = 0; i < sizeof(fixed_fields) / sizeof(*fixed_fields);
		     i++)
			if (strlen(fixed_fields[i].key) == klen &&
			    !strncmp(arg, fixed_fields[i].key, klen))
				return tm_error_set(TM_EINVALID,
						    "'%s' cannot be set: %s",
						    fixed_fields[i].key,
						    fixed_fields[i].hint);
		return tm_error_set(TM_EINVALID,
				    "unknown field '%.*s': " SETTABLE,
				    (int)klen, arg);
	}
	out->value = eq + 1;
	return 0;
}

/* Add the comma-separated items of `list` to `v` (no empty, no repeat). */
static void add_paths(tm_strv *v, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		char *item;

		if (len > 0) {
			item = tm_xstrndup(p, len);
			if (tm_strv_contains(v, item))
				free(item);
			else
				tm_strv_push_owned(v, item);
		}
		p += len;
		if (*p == ',')
			p++;
	}
}

static int check_value(const tm_thread *t, const tm_assign *a)
{
	const char *id = t->id ? t->id : "?";
	const char *v = a->value;

	switch (a->field) {
	case TM_ASSIGN_TITLE: {
		tm_buf what = TM_BUF_INIT;
		char *title = NULL;
		int error;

		tm_buf_printf(&what, "the title of '%s'", id);
		error = tm_text_title(&title, v, tm_buf_cstr(&what));
		tm_buf_release(&what);
		free(title);
		return error;
	}
	case TM_ASSIGN_BRANCH:
		if (*v && !tm_assign_branch_valid(v))
			return tm_error_set(TM_EINVALID,
					    "'%s' is not a valid branch name "
					    "(for thread '%s'); 'branch=' "
					    "removes the field",
					    v, id);
		return 0;
	case TM_ASSIGN_PATHS:
		if (!tm_utf8_valid(v, strlen(v)))
			return tm_error_set(TM_EINVALID,
					    "the new paths of '%s' are not "
					    "valid UTF-8",
					    id);
		return 0;
	}
	return tm_error_set(TM_EINVALID, "bad assignment for thread '%s'", id);
}

static bool same_string(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

int tm_assign_apply(bool *changed, tm_thread *t, const tm_assign *a, size_t n)
{
	const char *branch = NULL;
	char *title = NULL;
	bool set_branch = false, set_paths = false, differs = false;
	tm_strv paths = TM_STRV_INIT;
	size_t i;
	int error;

	for (i = 0; i < n; i++)
		if ((error = check_value(t, &a[i])) < 0)
			return error;
	for (i = 0; i < n; i++) {
		switch (a[i].field) {
		case TM_ASSIGN_TITLE:
			free(title);
			tm_text_title(&title, a[i].value, NULL);
			break;
		case TM_ASSIGN_BRANCH:
			set_branch = true;
			branch = *a[i].value ? a[i].value : NULL;
			break;
		case TM_ASSIGN_PATHS:
			set_paths = true;
			add_paths(&paths, a[i].value);
			break;
		}
	}
	if (title && !same_string(title, t->title)) {
		tm_thread_set(&t->title, title);
		differs = true;
	}
	if (set_branch && !same_string(branch, t->branch)) {
		tm_thread_set(&t->branch, branch);
		differs = true;
	}
	if (set_paths) {
		bool has = paths.n > 0;

		if (has != t->has_paths ||
		    (has && !tm_strv_equal(&paths, &t->paths))) {
			tm_strv_clear(&t->paths);
			if (has)
				tm_strv_copy(&t->paths, &paths);
			t->has_paths = has;
			differs = true;
		}
	}
	tm_strv_clear(&paths);
	free(title);
	if (changed)
		*changed = differs;
	return 0;
}

bool tm_assign_branch_valid(const char *name)
{
	const char *p, *comp;

	if (!name || !*name || *name == '-' || !strcmp(name, "HEAD") ||
	    !tm_utf8_valid(name, strlen(name)))
		return false;
	for (p = comp = name;; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '/' || c == '\0') {
			size_t len = (size_t)(p - comp);

			if (len == 0 || comp[0] == '.' ||
			    (len >= 5 && !memcmp(p - 5, ".lock", 5)))
				return false;
			if (c == '\0')
				break;
			comp = p + 1;
			continue;
		}
		if (c < 0x20 || c == 0x7f || strchr(" ~^:?*[\\", c))
			return false;
		if ((c == '.' && p[1] == '.') || (c == '@' && p[1] == '{'))
			return false;
	}
	return p[-1] != '.';
}
