/* The 0.4 upgrade's reading of trees/{project}.json (migrate.h). */
#include "migrate.h"
#include "migrate_internal.h"

#include "error.h"
#include "json_cjson.h"
#include "slug.h"

#include <stdlib.h>
#include <string.h>

static void add_link(tm_migrate_index *idx, const char *id, const char *parent)
{
	size_t i;

	/* "" is 0.4's id of a title without an ASCII letter or digit: the
	 * upgrade renames that thread and maps its entry */
	if (*id && tm_id_validate(id, "thread") < 0) {
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

int tm_migrate__parse_index(tm_migrate_index *out, const char *data, size_t len,
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
	int error = tm_migrate__parse_index(out, data, len, path);

	if (error < 0)
		tm_migrate_index_clear(out);
	return error;
}

static void link_clear(tm_migrate_link *l)
{
	TM_FREE_ALL(l->id, l->parent);
}

void tm_migrate_index_clear(tm_migrate_index *idx)
{
	TM_FREE_ITEMS(idx->links, idx->n, link_clear);
	tm_strv_clear(&idx->skipped);
	memset(idx, 0, sizeof(*idx));
}

void tm_migrate__write_index(tm_buf *out, const tm_migrate_index *idx)
{
	cJSON *root = cJSON_CreateObject(), *nodes = cJSON_CreateObject();
	size_t i;

	cJSON_AddItemToObject(root, "nodes", nodes);
	for (i = 0; i < idx->n; i++) {
		const tm_migrate_link *l = &idx->links[i];
		cJSON *node = cJSON_CreateObject();

		if (l->parent)
			cJSON_AddStringToObject(node, "parentId", l->parent);
		else
			cJSON_AddNullToObject(node, "parentId");
		cJSON_AddItemToObject(nodes, l->id, node);
	}
	tm_json_stringify(out, root);
	cJSON_Delete(root);
}
