/* The 0.4 upgrade: parse trees/{project}.json, align, delete (migrate.h). */
#include "migrate.h"

#include "store_internal.h"

#include "fs.h"
#include "error.h"
#include "json_cjson.h"
#include "recover.h"
#include "slug.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void add_link(tm_migrate_index *idx, const char *id, const char *parent)
{
	size_t i;

	if (tm_id_validate(id, "thread") < 0) {
		tm_strv_push(&idx->skipped, id);
		tm_error_clear();
		return;
	}
	for (i = 0; i < idx->n; i++) {
		if (!strcmp(idx->links[i].id, id)) {
			free(idx->links[i].parent);
			idx->links[i].parent = tm_xstrdup_or_null(parent);
			return;
		}
	}
	tm_xgrow((void **)&idx->links, &idx->alloc, idx->n + 1,
		 sizeof(tm_migrate_link));
	idx->links[idx->n].id = tm_xstrdup(id);
	idx->links[idx->n].parent = tm_xstrdup_or_null(parent);
	idx->n++;
}

/* The parent named by a value: a string, null, or {parentId|parent}. */
static bool parent_of(const cJSON *v, const char **out)
{
	const cJSON *p;

	if (cJSON_IsNull(v)) {
		*out = NULL;
		return true;
	}
	if (cJSON_IsString(v)) {
		*out = v->valuestring;
		return true;
	}
	if (!cJSON_IsObject(v))
		return false;
	p = cJSON_GetObjectItemCaseSensitive(v, "parentId");
	if (!p)
		p = cJSON_GetObjectItemCaseSensitive(v, "parent");
	if (!p) {
		*out = NULL; /* an entry with no parent is a root */
		return true;
	}
	return parent_of(p, out) && !cJSON_IsObject(p);
}

static bool is_nested_tree(const cJSON *v)
{
	return cJSON_IsObject(v) &&
	       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "id")) &&
	       cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(v, "children"));
}

/* Walk a nested {id, children} tree with an explicit stack. */
static void add_nested(tm_migrate_index *idx, const cJSON *top,
		       const char *top_parent)
{
	struct item {
		const cJSON *node;
		const char *parent;
	} *stack = NULL;
	size_t n = 0, alloc = 0;

	tm_xgrow((void **)&stack, &alloc, 1, sizeof(*stack));
	stack[n].node = top;
	stack[n++].parent = top_parent;
	while (n) {
		struct item it = stack[--n];
		const cJSON *id, *kids, *kid;

		id = cJSON_GetObjectItemCaseSensitive(it.node, "id");
		if (!cJSON_IsString(id))
			continue;
		add_link(idx, id->valuestring, it.parent);
		kids = cJSON_GetObjectItemCaseSensitive(it.node, "children");
		cJSON_ArrayForEach(kid, kids)
		{
			if (!cJSON_IsObject(kid))
				continue;
			tm_xgrow((void **)&stack, &alloc, n + 1,
				 sizeof(*stack));
			stack[n].node = kid;
			stack[n++].parent = id->valuestring;
		}
	}
	free(stack);
}

static void add_array(tm_migrate_index *idx, const cJSON *arr)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, arr)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		const char *parent;

		if (is_nested_tree(e) &&
		    !cJSON_GetObjectItemCaseSensitive(e, "parentId") &&
		    !cJSON_GetObjectItemCaseSensitive(e, "parent"))
			add_nested(idx, e, NULL);
		else if (cJSON_IsString(id) && parent_of(e, &parent))
			add_link(idx, id->valuestring, parent);
		else
			tm_strv_push(&idx->skipped, "(array entry without id)");
	}
}

static void add_map(tm_migrate_index *idx, const cJSON *obj)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, obj)
	{
		const char *parent;

		if (parent_of(e, &parent))
			add_link(idx, e->string, parent);
		else
			tm_strv_push(&idx->skipped, e->string);
	}
}

static void add_any(tm_migrate_index *idx, const cJSON *v)
{
	static const char *wrappers[] = {"nodes", "threads", "tree", "root"};
	size_t i;

	if (cJSON_IsArray(v)) {
		add_array(idx, v);
		return;
	}
	if (!cJSON_IsObject(v))
		return;
	if (is_nested_tree(v)) {
		add_nested(idx, v, NULL);
		return;
	}
	for (i = 0; i < sizeof(wrappers) / sizeof(*wrappers); i++) {
		const cJSON *w =
			cJSON_GetObjectItemCaseSensitive(v, wrappers[i]);

		if (w && (cJSON_IsArray(w) || cJSON_IsObject(w))) {
			add_any(idx, w);
			return;
		}
	}
	add_map(idx, v);
}

/* tm_migrate_parse_index, but `out->skipped` is kept on TM_EPARSE for a
 * shape with no valid link (the entries to name in the report). */
static int parse_index(tm_migrate_index *out, const char *data, size_t len,
		       const char *path)
{
	cJSON *root = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	error = tm_json_parse(&root, data, len, path);
	if (error < 0)
		return error;
	add_any(out, root);
	cJSON_Delete(root);
	if (out->n == 0)
		return tm_error_set(TM_EPARSE,
				    "'%s' holds no thread → parent link that "
				    "threadmind understands; move it away and "
				    "check the thread files' parentId by hand",
				    path);
	return 0;
}

int tm_migrate_parse_index(tm_migrate_index *out, const char *data, size_t len,
			   const char *path)
{
	int error = parse_index(out, data, len, path);

	if (error < 0)
		tm_migrate_index_clear(out);
	return error;
}

void tm_migrate_index_clear(tm_migrate_index *idx)
{
	size_t i;

	for (i = 0; i < idx->n; i++) {
		free(idx->links[i].id);
		free(idx->links[i].parent);
	}
	free(idx->links);
	tm_strv_clear(&idx->skipped);
	memset(idx, 0, sizeof(*idx));
}

/* ---- running it ---- */

/* What one run shares. */
typedef struct {
	tm_store *s;
	tm_strv *report;
	tm_strv *left;
	bool dry_run;
	int fd; /* trees/ or stats/, open */
} run_ctx;

static void say(tm_strv *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(tm_strv *v, const char *fmt, ...)
{
	tm_buf line = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_buf_vprintf(&line, fmt, ap);
	va_end(ap);
	tm_strv_push_owned(v, tm_buf_detach(&line));
}

static bool has_dir(tm_store *s, const char *name)
{
	char *path = NULL;
	struct stat st;
	tm_buf b = TM_BUF_INIT;
	bool r;

	tm_buf_printf(&b, "%s/%s", tm_store_dir(s), name);
	path = tm_buf_detach(&b);
	r = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
	free(path);
	return r;
}

static bool is_index_name(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && !strcmp(name + len - 5, ".json");
}

/* The names in folder `name` of the store (sorted), and the open folder. */
static int list_folder(tm_strv *out, tm_store *s, const char *name, int *out_fd)
{
	tm_buf display = TM_BUF_INIT;
	int fd, error;

	tm_buf_printf(&display, "%s/%s", tm_store_dir(s), name);
	error = tm_fs_open_dir(&fd, tm_buf_cstr(&display));
	if (error == 0 &&
	    (error = tm_fs_list_dir(out, fd, tm_buf_cstr(&display))) < 0)
		close(fd);
	tm_buf_release(&display);
	if (error < 0)
		return error;
	*out_fd = fd;
	return 0;
}

/* trees/ holds a *.json index (or cannot be listed: migrate says why). */
static bool has_index(tm_store *s)
{
	tm_strv names = TM_STRV_INIT;
	bool r = false;
	size_t i;
	int fd;

	if (!has_dir(s, "trees"))
		return false;
	if (list_folder(&names, s, "trees", &fd) < 0) {
		tm_error_clear();
		return true;
	}
	close(fd);
	for (i = 0; i < names.n && !r; i++)
		r = is_index_name(names.items[i]);
	tm_strv_clear(&names);
	return r;
}

bool tm_migrate_needed(tm_store *s, bool prune)
{
	return has_index(s) || (prune && has_dir(s, "stats"));
}

static const tm_migrate_link *find_link(const tm_migrate_index *idx,
					const char *id)
{
	size_t i;

	for (i = 0; i < idx->n; i++)
		if (!strcmp(idx->links[i].id, id))
			return &idx->links[i];
	return NULL;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Align one thread on its link; a file that cannot be read is counted in
 * *pending and named in c->left. */
static int align_thread(run_ctx *c, const char *project, const char *id,
			const tm_migrate_link *l, size_t *pending)
{
	tm_thread *t = NULL;
	const char *parent = l->parent;
	int error;

	if (tm_store_load_thread(&t, c->s, project, id) < 0) {
		say(c->left,
		    "%s; its parent from trees/%s.json (%s) is not applied "
		    "and the index is kept: fix the file, then run 'git "
		    "threadmind migrate'",
		    tm_error_last(), project, parent ? parent : "(root)");
		tm_error_clear();
		(*pending)++;
		return 0;
	}
	/* 0.4 wrote the string "null" for a root. */
	if (parent && !strcmp(parent, "null") &&
	    !tm_store_thread_exists(c->s, project, "null"))
		parent = NULL;
	error = 0;
	if ((!strcmp(t->id, TM_ROOT_THREAD_ID) && parent == NULL &&
	     t->parent_id == NULL) ||
	    same(parent, t->parent_id))
		goto done;
	say(c->report, "%s/%s: parent %s -> %s", project, t->id,
	    t->parent_id ? t->parent_id : "(root)", parent ? parent : "(root)");
	if (c->dry_run)
		goto done;
	tm_thread_set(&t->parent_id, parent);
	if ((error = tm_store_lock_refresh(c->s)) == 0)
		error = tm_store_save_thread(c->s, project, t);
done:
	tm_thread_free(t);
	return error;
}

/* Align the threads of one project on its index; *pending counts the
 * links that could not be applied. */
static int align_project(run_ctx *c, const char *project,
			 const tm_migrate_index *idx, size_t *pending)
{
	tm_strv ids = TM_STRV_INIT;
	size_t i;
	int error = 0;

	*pending = 0;
	if (tm_store_list_threads(&ids, NULL, c->s, project) < 0) {
		say(c->left,
		    "%s; trees/%s.json is kept: fix it, then run 'git "
		    "threadmind migrate'",
		    tm_error_last(), project);
		tm_error_clear();
		*pending = 1;
		return 0;
	}
	for (i = 0; i < ids.n && error == 0; i++) {
		const tm_migrate_link *l = find_link(idx, ids.items[i]);

		if (l)
			error = align_thread(c, project, ids.items[i], l,
					     pending);
	}
	for (i = 0; i < idx->n && error == 0; i++) {
		if (tm_strv_contains(&ids, idx->links[i].id))
			continue;
		say(c->report,
		    "%s/%s: in trees/%s.json but has no thread file; %s",
		    project, idx->links[i].id, project,
		    c->dry_run ? "would be ignored" : "ignored");
	}
	tm_strv_clear(&ids);
	return error;
}

/* The entries of an index that were not understood, one line each. */
static void report_skipped(run_ctx *c, const char *name, const tm_strv *skipped)
{
	size_t i;

	for (i = 0; i < skipped->n; i++)
		say(c->report,
		    "trees/%s: entry '%s' skipped (not a valid thread id)",
		    name, skipped->items[i]);
}

/*
 * Rename trees/NAME to trees/NAME.invalid (or NAME.invalid-2, … when taken)
 * so that it no longer stops anything; `why` says what is wrong with it.
 */
static void set_aside(run_ctx *c, const char *name, const char *why)
{
	tm_buf target = TM_BUF_INIT;
	struct stat st;
	unsigned k;

	for (k = 1; k <= 100; k++) {
		tm_buf_clear(&target);
		tm_buf_printf(&target, "%s.invalid", name);
		if (k > 1)
			tm_buf_printf(&target, "-%u", k);
		if (fstatat(c->fd, tm_buf_cstr(&target), &st,
			    AT_SYMLINK_NOFOLLOW) < 0)
			break;
	}
	if (k > 100) {
		say(c->left,
		    "%s; move trees/%s away by hand (trees/%s.invalid-* are "
		    "all taken)",
		    why, name, name);
		goto done;
	}
	if (c->dry_run) {
		say(c->report, "would set aside trees/%s as trees/%s", name,
		    tm_buf_cstr(&target));
		say(c->left,
		    "%s; migrate would set it aside as trees/%s: then check "
		    "the thread files' parentId by hand",
		    why, tm_buf_cstr(&target));
		goto done;
	}
	if (tm_store_lock_refresh(c->s) < 0 ||
	    renameat(c->fd, name, c->fd, tm_buf_cstr(&target)) < 0) {
		say(c->left,
		    "%s; could not set trees/%s aside (%s): move it "
		    "away by hand",
		    why, name,
		    *tm_error_last() ? tm_error_last() : strerror(errno));
		tm_error_clear();
		goto done;
	}
	say(c->report, "set aside trees/%s as trees/%s", name,
	    tm_buf_cstr(&target));
	say(c->left,
	    "%s; it was set aside as trees/%s: check the thread files' "
	    "parentId by hand, then delete it",
	    why, tm_buf_cstr(&target));
done:
	tm_buf_release(&target);
}

/* The upgrade of one trees/NAME index. */
static int migrate_index(run_ctx *c, const char *name)
{
	tm_buf data = TM_BUF_INIT, display = TM_BUF_INIT, why = TM_BUF_INIT;
	tm_migrate_index idx;
	size_t pending = 0;
	char *project = tm_xstrndup(name, strlen(name) - 5);
	int error = 0;

	memset(&idx, 0, sizeof(idx));
	tm_buf_printf(&display, "%s/trees/%s", tm_store_dir(c->s), name);
	if (tm_id_validate(project, "project") < 0) {
		tm_buf_printf(&why, "'%s': '%s' is not a project id",
			      tm_buf_cstr(&display), project);
		tm_error_clear();
		set_aside(c, name, tm_buf_cstr(&why));
		goto done;
	}
	/* an empty or broken index: 0.4's complete .tmp of it, if any */
	if (tm_recover_index_read(&data, c->report, c->fd, name,
				  tm_buf_cstr(&display), c->dry_run) < 0 ||
	    parse_index(&idx, tm_buf_cstr(&data), data.size,
			tm_buf_cstr(&display)) < 0) {
		report_skipped(c, name, &idx.skipped);
		if (idx.skipped.n)
			tm_buf_printf(&why,
				      "'%s': none of its %zu entries names a "
				      "valid thread id",
				      tm_buf_cstr(&display), idx.skipped.n);
		else
			tm_buf_puts(&why, tm_error_last());
		tm_error_clear();
		set_aside(c, name, tm_buf_cstr(&why));
		goto done;
	}
	report_skipped(c, name, &idx.skipped);
	if ((error = align_project(c, project, &idx, &pending)) < 0)
		goto done;
	if (pending)
		goto done; /* kept: c->left says why */
	say(c->report, "%s trees/%s", c->dry_run ? "would delete" : "deleted",
	    name);
	if (!c->dry_run && (error = tm_store_lock_refresh(c->s)) == 0)
		error = tm_fs_unlink_at(c->fd, name, tm_buf_cstr(&display));
done:
	tm_migrate_index_clear(&idx);
	free(project);
	tm_buf_release(&data);
	tm_buf_release(&display);
	tm_buf_release(&why);
	return error;
}

/* Remove the folder once empty (a kept or set-aside index stays in it:
 * c->left names those). */
static void remove_dir_if_empty(run_ctx *c, const char *name)
{
	tm_buf path = TM_BUF_INIT;

	tm_buf_printf(&path, "%s/%s", tm_store_dir(c->s), name);
	if (!c->dry_run)
		(void)rmdir(tm_buf_cstr(&path));
	tm_buf_release(&path);
}

static int migrate_trees(run_ctx *c)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;
	int error;

	if (list_folder(&names, c->s, "trees", &c->fd) < 0) {
		say(c->left,
		    "%s; the 0.4 upgrade needs it: fix it (or move it away), "
		    "then run 'git threadmind migrate'",
		    tm_error_last());
		tm_error_clear();
		return 0;
	}
	error = 0;
	for (i = 0; i < names.n && error == 0; i++)
		if (is_index_name(names.items[i]))
			error = migrate_index(c, names.items[i]);
	close(c->fd);
	tm_strv_clear(&names);
	if (error == 0)
		remove_dir_if_empty(c, "trees");
	return error;
}

static int prune_stats(run_ctx *c)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;
	int error;

	error = list_folder(&names, c->s, "stats", &c->fd);
	if (error < 0)
		return error;
	for (i = 0; i < names.n && error == 0; i++) {
		tm_buf display = TM_BUF_INIT;

		tm_buf_printf(&display, "%s/stats/%s", tm_store_dir(c->s),
			      names.items[i]);
		say(c->report, "%s stats/%s",
		    c->dry_run ? "would delete" : "deleted", names.items[i]);
		if (!c->dry_run && (error = tm_store_lock_refresh(c->s)) == 0)
			error = tm_fs_unlink_at(c->fd, names.items[i],
						tm_buf_cstr(&display));
		tm_buf_release(&display);
	}
	close(c->fd);
	tm_strv_clear(&names);
	if (error == 0)
		remove_dir_if_empty(c, "stats");
	return error;
}

int tm_migrate_run(tm_strv *report, tm_strv *left, tm_store *s, bool dry_run,
		   bool prune)
{
	run_ctx c = {s, report, left, dry_run, -1};
	int error;

	if (!tm_migrate_needed(s, prune))
		return 0;
	if (!dry_run && (error = tm_store_lock(s)) < 0)
		return error;
	error = 0;
	if (has_index(s))
		error = migrate_trees(&c);
	if (error == 0 && prune && has_dir(s, "stats"))
		error = prune_stats(&c);
	if (!dry_run)
		error = tm_store_unlock_after(s, error);
	return error;
}
