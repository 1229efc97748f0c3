/* Allocation helpers of the in-memory thread (see model.h). */
#include "model.h"
#include "timestamp.h"

#include <stdlib.h>
#include <string.h>

tm_thread *tm_thread_new(void)
{
	return tm_xcalloc(1, sizeof(tm_thread));
}

tm_thread *tm_thread_dup(const tm_thread *t)
{
	tm_thread *c = tm_thread_new();
	size_t i;

	c->id = tm_xstrdup_or_null(t->id);
	c->field_id = tm_xstrdup_or_null(t->field_id);
	c->title = tm_xstrdup_or_null(t->title);
	c->parent_id = tm_xstrdup_or_null(t->parent_id);
	c->author = tm_xstrdup_or_null(t->author);
	c->created_at = tm_xstrdup_or_null(t->created_at);
	c->updated_at = tm_xstrdup_or_null(t->updated_at);
	c->status = tm_xstrdup_or_null(t->status);
	c->branch = tm_xstrdup_or_null(t->branch);
	c->commit = tm_xstrdup_or_null(t->commit);
	c->has_paths = t->has_paths;
	tm_strv_copy(&c->paths, &t->paths);
	c->merged_into = tm_xstrdup_or_null(t->merged_into);
	if (t->nextra) {
		c->extra = tm_xcalloc(t->nextra, sizeof(tm_extra_field));
		for (i = 0; i < t->nextra; i++) {
			c->extra[i].key = tm_xstrdup_or_null(t->extra[i].key);
			c->extra[i].raw = tm_xstrdup_or_null(t->extra[i].raw);
		}
		c->nextra = t->nextra;
	}
	if (t->body)
		tm_thread_set_body(c, t->body, t->body_len);
	c->crlf = t->crlf;
	return c;
}

void tm_thread_free(tm_thread *t)
{
	size_t i;

	if (!t)
		return;
	TM_FREE_ALL(t->id, t->field_id, t->title, t->parent_id, t->author,
		    t->created_at, t->updated_at, t->status, t->branch,
		    t->commit, t->merged_into);
	tm_strv_clear(&t->paths);
	for (i = 0; i < t->nextra; i++)
		TM_FREE_ALL(t->extra[i].key, t->extra[i].raw);
	TM_FREE_ALL(t->extra, t->body, t);
}

void tm_thread_set(char **field, const char *value)
{
	char *copy = tm_xstrdup_or_null(value);

	free(*field);
	*field = copy;
}

void tm_thread_set_body(tm_thread *t, const char *body, size_t len)
{
	char *copy = tm_xstrndup(body, len);

	free(t->body);
	t->body = copy;
	t->body_len = len;
}

bool tm_thread_is_active(const tm_thread *t)
{
	return t->status == NULL;
}

bool tm_thread_is_finished(const tm_thread *t)
{
	return t->status && (!strcmp(t->status, TM_STATUS_DONE) ||
			     !strcmp(t->status, TM_STATUS_ABANDONED));
}

void tm_thread_array_free(tm_thread **threads, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		tm_thread_free(threads[i]);
	free(threads);
}

bool tm_thread_same_identity(const char *created_a, const char *author_a,
			     const char *created_b, const char *author_b)
{
	if (created_a && created_b && tm_time_cmp(created_a, created_b))
		return false;
	return !author_a || !author_b || !strcmp(author_a, author_b);
}
