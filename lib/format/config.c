/*
 * The store's two JSON files (see config.h): config.json (AppState) and
 * projects/{id}.json (ProjectConfig), kept as cJSON trees so that unknown
 * keys survive, written back through the codec (json.c).
 */
#include "config.h"
#include "json_cjson.h"
#include "error.h"
#include "model.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_NAME  "config.json"
#define IDENTITY_KEY "activeThreadIdentity"

struct tm_config {
	cJSON *root; /* always an object */
	char *path;  /* for error messages */
};

struct tm_project {
	cJSON *root; /* always an object */
};

/* cJSON reports allocation failure with NULL; like tm_xmalloc, give up. */
static cJSON *must(cJSON *item)
{
	if (!item)
		abort();
	return item;
}

static cJSON *member(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static const char *string_member(const cJSON *obj, const char *key)
{
	const cJSON *v = member(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Put `item` in `old`'s place in `parent`, under the same key; frees `old`. */
static void replace_member(cJSON *parent, cJSON *old, cJSON *item)
{
	item->string = old->string;
	item->type |= old->type & cJSON_StringIsConst;
	old->string = NULL;
	old->type &= ~cJSON_StringIsConst;
	cJSON_ReplaceItemViaPointer(parent, old, item);
}

/* obj[key] = item: in place when the key exists, else appended. */
static void set_member(cJSON *obj, const char *key, cJSON *item)
{
	cJSON_bool ok;

	if (member(obj, key))
		ok = cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
	else
		ok = cJSON_AddItemToObject(obj, key, item);
	if (!ok)
		abort();
}

static cJSON *string_or_null(const char *value)
{
	return must(value ? cJSON_CreateString(value) : cJSON_CreateNull());
}

/* ---- config.json ---- */

tm_config *tm_config_new(void)
{
	tm_config *c = tm_xcalloc(1, sizeof(*c));

	c->root = must(cJSON_CreateObject());
	c->path = tm_xstrdup(CONFIG_NAME);
	set_member(c->root, "activeProjectId", must(cJSON_CreateNull()));
	set_member(c->root, "activeThreadId", must(cJSON_CreateNull()));
	set_member(c->root, "version", must(cJSON_CreateNumber(1)));
	set_member(c->root, "branchThreads", must(cJSON_CreateObject()));
	set_member(c->root, "sessions", must(cJSON_CreateArray()));
	return c;
}

int tm_config_parse(tm_config **out, const char *data, size_t len,
		    const char *path)
{
	cJSON *root;
	tm_config *c;
	int error;

	if (!path)
		path = CONFIG_NAME;
	if ((error = tm_json_parse_object(&root, data, len, path)) < 0)
		return error;
	c = tm_xcalloc(1, sizeof(*c));
	c->root = root;
	c->path = tm_xstrdup(path);
	*out = c;
	return 0;
}

void tm_config_free(tm_config *c)
{
	if (!c)
		return;
	cJSON_Delete(c->root);
	free(c->path);
	free(c);
}

/* A JSON file's text: the document and its final newline. */
static void write_file(tm_buf *out, const cJSON *root)
{
	tm_json_stringify(out, root);
	tm_buf_putc(out, '\n');
}

void tm_config_write(tm_buf *out, const tm_config *c)
{
	write_file(out, c->root);
}

const char *tm_config_get_string(const tm_config *c, const char *key)
{
	return string_member(c->root, key);
}

void tm_config_set_string(tm_config *c, const char *key, const char *value)
{
	set_member(c->root, key, string_or_null(value));
}

/* branchThreads[project], when it is an object. */
static cJSON *project_threads(const tm_config *c, const char *project)
{
	cJSON *bt = member(c->root, "branchThreads");
	cJSON *pt = cJSON_IsObject(bt) ? member(bt, project) : NULL;

	return cJSON_IsObject(pt) ? pt : NULL;
}

void tm_config_branch_key(tm_buf *out, const char *branch)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = strlen(branch), i = 0, ok;

	while (i < len) {
		ok = tm_utf8_valid_prefix(branch + i, len - i);
		tm_buf_put(out, branch + i, ok);
		i += ok;
		if (i < len) {
			unsigned char c = (unsigned char)branch[i++];

			tm_buf_printf(out, "\\x%c%c", hex[c >> 4], hex[c & 15]);
		}
	}
	tm_buf_grow(out, 0);
	out->ptr[out->size] = '\0';
}

const char *tm_config_branch_thread(const tm_config *c, const char *project,
				    const char *branch)
{
	tm_buf key = TM_BUF_INIT;
	const char *v;

	tm_config_branch_key(&key, branch);
	v = string_member(project_threads(c, project), tm_buf_cstr(&key));
	tm_buf_release(&key);
	return v;
}

static int not_an_object(const tm_config *c, const char *project)
{
	if (project)
		return tm_error_set(TM_EPARSE,
				    "'branchThreads.%s' in '%s' is not an "
				    "object: fix it or delete it; it was not "
				    "modified",
				    project, c->path);
	return tm_error_set(TM_EPARSE,
			    "'branchThreads' in '%s' is not an object: fix it "
			    "or delete it; it was not modified",
			    c->path);
}

int tm_config_set_branch_thread(tm_config *c, const char *project,
				const char *branch_name, const char *thread)
{
	tm_buf key = TM_BUF_INIT;
	const char *branch;
	cJSON *bt, *pt, *old;
	int error = 0;

	tm_config_branch_key(&key, branch_name);
	branch = tm_buf_cstr(&key);
	if (!thread) {
		pt = project_threads(c, project);
		while ((old = member(pt, branch)) != NULL)
			cJSON_Delete(cJSON_DetachItemViaPointer(pt, old));
		goto done;
	}
	/* check both levels before changing anything */
	bt = member(c->root, "branchThreads");
	if (bt && !cJSON_IsObject(bt) && !cJSON_IsNull(bt)) {
		error = not_an_object(c, NULL);
		goto done;
	}
	pt = cJSON_IsObject(bt) ? member(bt, project) : NULL;
	if (pt && !cJSON_IsObject(pt) && !cJSON_IsNull(pt)) {
		error = not_an_object(c, project);
		goto done;
	}
	if (!cJSON_IsObject(bt)) {
		bt = must(cJSON_CreateObject());
		set_member(c->root, "branchThreads", bt);
	}
	if (!cJSON_IsObject(pt)) {
		pt = must(cJSON_CreateObject());
		set_member(bt, project, pt);
	}
	set_member(pt, branch, must(cJSON_CreateString(thread)));
done:
	tm_buf_release(&key);
	return error;
}

bool tm_config_active_identity(const tm_config *c, tm_config_identity *out)
{
	const cJSON *r = member(c->root, IDENTITY_KEY);

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(r))
		return false;
	out->project = string_member(r, "project");
	out->id = string_member(r, "id");
	out->created_at = string_member(r, "createdAt");
	out->author = string_member(r, "author");
	if (out->project && out->id && (out->created_at || out->author))
		return true;
	memset(out, 0, sizeof(*out));
	return false;
}

static void forget_identity(tm_config *c)
{
	cJSON *old;

	while ((old = member(c->root, IDENTITY_KEY)) != NULL)
		cJSON_Delete(cJSON_DetachItemViaPointer(c->root, old));
}

/* Whether activeThreadIdentity is about `id` (any id when NULL) of
 * `project`. */
static bool identity_is(const tm_config *c, const char *project, const char *id)
{
	tm_config_identity r;

	return tm_config_active_identity(c, &r) &&
	       !strcmp(r.project, project) && (!id || !strcmp(r.id, id));
}

/* The position of `key` among the members of `obj`, or -1. */
static int member_index(const cJSON *obj, const char *key)
{
	const cJSON *m;
	int i = 0;

	for (m = obj->child; m; m = m->next, i++)
		if (m->string && !strcmp(m->string, key))
			return i;
	return -1;
}

void tm_config_set_active_identity(tm_config *c, const char *project,
				   const char *id, const char *created_at,
				   const char *author)
{
	cJSON *r, *old;
	int at;

	if (!project || !id || (!created_at && !author)) {
		forget_identity(c);
		return;
	}
	r = must(cJSON_CreateObject());
	set_member(r, "project", must(cJSON_CreateString(project)));
	set_member(r, "id", must(cJSON_CreateString(id)));
	if (created_at)
		set_member(r, "createdAt",
			   must(cJSON_CreateString(created_at)));
	if (author)
		set_member(r, "author", must(cJSON_CreateString(author)));
	if ((old = member(c->root, IDENTITY_KEY)) != NULL) {
		replace_member(c->root, old, r);
		return;
	}
	/* a new key goes next to the activeThreadId it is about: appended,
	 * then the keys between them moved after it, in their order */
	set_member(c->root, IDENTITY_KEY, r);
	at = member_index(c->root, "activeThreadId");
	if (at < 0)
		return;
	while ((old = cJSON_GetArrayItem(c->root, at + 1)) != r) {
		old = cJSON_DetachItemViaPointer(c->root, old);
		if (!cJSON_AddItemToArray(c->root, old))
			abort();
	}
}

size_t tm_config_forget_thread(tm_config *c, const char *project,
			       const char *thread)
{
	cJSON *pt = project_threads(c, project), *m, *next;
	char *name = tm_xstrdup(thread); /* `thread` may live in the tree */
	size_t n = 0;

	if (identity_is(c, project, name))
		forget_identity(c);
	for (m = pt ? pt->child : NULL; m; m = next) {
		next = m->next;
		if (cJSON_IsString(m) && !strcmp(m->valuestring, name)) {
			cJSON_Delete(cJSON_DetachItemViaPointer(pt, m));
			n++;
		}
	}
	free(name);
	return n;
}

void tm_config_rename_thread(tm_config *c, const char *project,
			     const char *from, const char *to)
{
	cJSON *pt = project_threads(c, project), *m, *next;
	/* copies: `from` and `to` may live in the tree */
	char *old_id = tm_xstrdup(from), *new_id = tm_xstrdup(to);
	const char *active_project, *active;

	for (m = pt ? pt->child : NULL; m; m = next) {
		next = m->next;
		if (cJSON_IsString(m) && !strcmp(m->valuestring, old_id))
			replace_member(pt, m, must(cJSON_CreateString(new_id)));
	}
	active_project = tm_config_get_string(c, "activeProjectId");
	active = tm_config_get_string(c, "activeThreadId");
	if (active && !strcmp(active, old_id) &&
	    (!active_project || !strcmp(active_project, project)))
		tm_config_set_string(c, "activeThreadId", new_id);
	if (identity_is(c, project, old_id))
		set_member(member(c->root, IDENTITY_KEY), "id",
			   must(cJSON_CreateString(new_id)));
	free(old_id);
	free(new_id);
}

size_t tm_config_session_count(const tm_config *c)
{
	const cJSON *s = member(c->root, "sessions");

	return cJSON_IsArray(s) ? (size_t)cJSON_GetArraySize(s) : 0;
}

int tm_config_version(const tm_config *c)
{
	const cJSON *v = member(c->root, "version");
	double d;

	if (!cJSON_IsNumber(v) || isnan(v->valuedouble))
		return 0;
	d = v->valuedouble;
	if (d >= (double)INT_MAX)
		return INT_MAX;
	if (d <= (double)INT_MIN)
		return INT_MIN;
	return (int)d;
}

/* ---- projects/{id}.json ---- */

tm_project *tm_project_new(const char *id, const char *title)
{
	tm_project *p = tm_xcalloc(1, sizeof(*p));

	p->root = must(cJSON_CreateObject());
	set_member(p->root, "id", string_or_null(id));
	set_member(p->root, "title", string_or_null(title));
	set_member(p->root, "systemContext", string_or_null(""));
	set_member(p->root, "mode", string_or_null("solo"));
	set_member(p->root, "rootThreadId", string_or_null(TM_ROOT_THREAD_ID));
	return p;
}

int tm_project_parse(tm_project **out, const char *data, size_t len,
		     const char *path)
{
	cJSON *root;
	tm_project *p;
	int error;

	if (!path)
		path = "project file";
	if ((error = tm_json_parse_object(&root, data, len, path)) < 0)
		return error;
	p = tm_xcalloc(1, sizeof(*p));
	p->root = root;
	*out = p;
	return 0;
}

void tm_project_free(tm_project *p)
{
	if (!p)
		return;
	cJSON_Delete(p->root);
	free(p);
}

void tm_project_write(tm_buf *out, const tm_project *p)
{
	write_file(out, p->root);
}

const char *tm_project_get(const tm_project *p, const char *key)
{
	return string_member(p->root, key);
}

void tm_project_set(tm_project *p, const char *key, const char *value)
{
	set_member(p->root, key, string_or_null(value));
}

void tm_config_rename_project(tm_config *c, const char *from, const char *to)
{
	cJSON *bt = member(c->root, "branchThreads"), *pt;
	const char *active = string_member(c->root, "activeProjectId");

	if (active && !strcmp(active, from))
		tm_config_set_string(c, "activeProjectId", to);
	if (identity_is(c, from, NULL))
		set_member(member(c->root, IDENTITY_KEY), "project",
			   must(cJSON_CreateString(to)));
	if (!cJSON_IsObject(bt) || !(pt = member(bt, from)))
		return;
	while (member(bt, to))
		cJSON_Delete(cJSON_DetachItemFromObjectCaseSensitive(bt, to));
	pt = cJSON_DetachItemViaPointer(bt, pt);
	set_member(bt, to, pt);
}

void tm_config_forget_project(tm_config *c, const char *project)
{
	cJSON *bt = member(c->root, "branchThreads");
	const char *active = string_member(c->root, "activeProjectId");

	if (active && !strcmp(active, project)) {
		tm_config_set_string(c, "activeProjectId", NULL);
		tm_config_set_string(c, "activeThreadId", NULL);
	}
	if (identity_is(c, project, NULL))
		forget_identity(c);
	while (cJSON_IsObject(bt) && member(bt, project))
		cJSON_Delete(
			cJSON_DetachItemFromObjectCaseSensitive(bt, project));
}
