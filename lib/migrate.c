/* The 0.4 upgrade: parse trees/{project}.json, align, delete (migrate.h). */
#include "migrate.h"

#include "store_internal.h"

#include "fs.h"
#include "error.h"
#include "json_cjson.h"
#include "slug.h"

#include <fcntl.h>
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

int tm_migrate_parse_index(tm_migrate_index *out, const char *data, size_t len,
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
	if (out->n == 0) {
		tm_migrate_index_clear(out);
		return tm_error_set(TM_EPARSE,
				    "'%s' holds no thread → parent link that "
				    "threadmind understands; move it away and "
				    "check the thread files' parentId by hand",
				    path);
	}
	return 0;
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

bool tm_migrate_needed(tm_store *s, bool prune)
{
	return has_dir(s, "trees") || (prune && has_dir(s, "stats"));
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

/* Align the threads of one project on its index. */
static int align_project(tm_strv *report, tm_store *s, const char *project,
			 const tm_migrate_index *idx, bool dry_run)
{
	tm_thread_list all;
	size_t i;
	int error;

	error = tm_store_load_all(&all, s, project);
	if (error < 0)
		return error;
	if (all.errors.n) {
		error = tm_error_set(TM_EPARSE,
				     "%s; fix it before the 0.4 upgrade "
				     "(trees/%s.json was kept)",
				     all.errors.items[0], project);
		goto done;
	}
	for (i = 0; i < all.n; i++) {
		tm_thread *t = all.threads[i];
		const tm_migrate_link *l = find_link(idx, t->id);
		const char *parent;
		tm_buf line = TM_BUF_INIT;

		if (!l)
			continue;
		parent = l->parent;
		/* 0.4 wrote the string "null" for a root. */
		if (parent && !strcmp(parent, "null") &&
		    !tm_store_thread_exists(s, project, "null"))
			parent = NULL;
		if (!strcmp(t->id, TM_ROOT_THREAD_ID) && parent == NULL &&
		    t->parent_id == NULL)
			continue;
		if (same(parent, t->parent_id))
			continue;
		tm_buf_printf(&line, "%s/%s: parent %s -> %s", project, t->id,
			      t->parent_id ? t->parent_id : "(root)",
			      parent ? parent : "(root)");
		tm_strv_push_owned(report, tm_buf_detach(&line));
		if (dry_run)
			continue;
		tm_thread_set(&t->parent_id, parent);
		if ((error = tm_store_lock_refresh(s)) < 0 ||
		    (error = tm_store_save_thread(s, project, t)) < 0)
			goto done;
	}
	for (i = 0; i < idx->n; i++) {
		tm_buf line = TM_BUF_INIT;

		if (tm_store_thread_exists(s, project, idx->links[i].id))
			continue;
		tm_buf_printf(&line,
			      "%s/%s: in trees/%s.json but has no thread "
			      "file; ignored",
			      project, idx->links[i].id, project);
		tm_strv_push_owned(report, tm_buf_detach(&line));
	}
done:
	tm_thread_list_clear(&all);
	return error;
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

static int remove_dir_if_empty(tm_store *s, const char *name, bool dry_run,
			       tm_strv *report)
{
	tm_buf path = TM_BUF_INIT;
	int error = 0;

	tm_buf_printf(&path, "%s/%s", tm_store_dir(s), name);
	if (!dry_run && rmdir(tm_buf_cstr(&path)) < 0) {
		tm_buf line = TM_BUF_INIT;

		tm_buf_printf(&line, "kept %s/ (not empty)", name);
		tm_strv_push_owned(report, tm_buf_detach(&line));
	}
	tm_buf_release(&path);
	return error;
}

static int migrate_trees(tm_strv *report, tm_store *s, bool dry_run)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;
	int fd = -1, error;

	error = list_folder(&names, s, "trees", &fd);
	if (error < 0)
		return error;
	for (i = 0; i < names.n && error == 0; i++) {
		const char *name = names.items[i];
		size_t len = strlen(name);
		tm_buf data = TM_BUF_INIT, display = TM_BUF_INIT;
		tm_migrate_index idx;
		char *project;

		if (len <= 5 || strcmp(name + len - 5, ".json"))
			continue;
		project = tm_xstrndup(name, len - 5);
		tm_buf_printf(&display, "%s/trees/%s", tm_store_dir(s), name);
		if (tm_id_validate(project, "project") < 0) {
			tm_buf line = TM_BUF_INIT;

			tm_buf_printf(&line, "skipped %s: not a project id",
				      tm_buf_cstr(&display));
			tm_strv_push_owned(report, tm_buf_detach(&line));
			tm_error_clear();
			free(project);
			tm_buf_release(&display);
			continue;
		}
		error = tm_fs_read_at(&data, fd, name, tm_buf_cstr(&display),
				      TM_MAX_FILE_SIZE);
		if (error == 0)
			error = tm_migrate_parse_index(&idx, tm_buf_cstr(&data),
						       data.size,
						       tm_buf_cstr(&display));
		if (error == 0) {
			error = align_project(report, s, project, &idx,
					      dry_run);
			tm_migrate_index_clear(&idx);
		}
		if (error == 0) {
			tm_buf line = TM_BUF_INIT;

			tm_buf_printf(&line, "deleted trees/%s", name);
			tm_strv_push_owned(report, tm_buf_detach(&line));
			if (!dry_run && (error = tm_store_lock_refresh(s)) == 0)
				error = tm_fs_unlink_at(fd, name,
							tm_buf_cstr(&display));
		}
		free(project);
		tm_buf_release(&data);
		tm_buf_release(&display);
	}
	close(fd);
	tm_strv_clear(&names);
	if (error == 0)
		error = remove_dir_if_empty(s, "trees", dry_run, report);
	return error;
}

static int prune_stats(tm_strv *report, tm_store *s, bool dry_run)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;
	int fd = -1, error;

	error = list_folder(&names, s, "stats", &fd);
	if (error < 0)
		return error;
	for (i = 0; i < names.n && error == 0; i++) {
		tm_buf line = TM_BUF_INIT, display = TM_BUF_INIT;

		tm_buf_printf(&display, "%s/stats/%s", tm_store_dir(s),
			      names.items[i]);
		tm_buf_printf(&line, "deleted stats/%s", names.items[i]);
		tm_strv_push_owned(report, tm_buf_detach(&line));
		if (!dry_run && (error = tm_store_lock_refresh(s)) == 0)
			error = tm_fs_unlink_at(fd, names.items[i],
						tm_buf_cstr(&display));
		tm_buf_release(&display);
	}
	close(fd);
	tm_strv_clear(&names);
	if (error == 0)
		error = remove_dir_if_empty(s, "stats", dry_run, report);
	return error;
}

int tm_migrate_run(tm_strv *report, tm_store *s, bool dry_run, bool prune)
{
	int error;

	if (!tm_migrate_needed(s, prune))
		return 0;
	if (!dry_run && (error = tm_store_lock(s)) < 0)
		return error;
	error = 0;
	if (has_dir(s, "trees"))
		error = migrate_trees(report, s, dry_run);
	if (error == 0 && prune && has_dir(s, "stats"))
		error = prune_stats(report, s, dry_run);
	if (!dry_run)
		error = tm_store_unlock_after(s, error);
	return error;
}
