/* Helpers of the merge unit tests (see merge_util.h). */
#include "merge_util.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/frontmatter.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

const char mt_base[] = "---\n"
		       "id: t\n"
		       "title: Thread\n"
		       "parentId: main\n"
		       "author: au-1a2b\n"
		       "createdAt: 2026-04-15T10:00:00.000Z\n"
		       "updatedAt: 2026-04-15T12:00:00.000Z\n"
		       "branch: main\n"
		       "commit: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
		       "paths: [\"src/a\",\"src/b\"]\n"
		       "---\n"
		       "\n"
		       "## Decisions\n"
		       "- d1\n"
		       "- d2\n"
		       "\n"
		       "## State\n"
		       "Some prose about the state.\n"
		       "- s1\n";

tm_merge_result mt_merge(const char *o, const char *a, const char *b,
			 const tm_merge_options *opts)
{
	tm_merge_options def = TM_MERGE_OPTIONS_INIT;
	tm_merge_result r;
	int error;

	if (opts)
		def = *opts;
	if (!def.path)
		def.path = MT_PATH;
	error = tm_merge_files(&r, o, strlen(o), a, strlen(a), b, strlen(b),
			       &def);
	ck_assert_msg(error == 0, "merge failed: %s", tm_error_last());
	ck_assert_ptr_nonnull(r.data);
	ck_assert_uint_eq(strlen(r.data), r.len);
	return r;
}

/* Offset of the closing `---` line of the frontmatter. */
static size_t header_end(const char *f)
{
	const char *p = strstr(f + 3, "\n---\n");

	ck_assert_ptr_nonnull(p);
	return (size_t)(p - f) + 1;
}

char *mt_set(const char *f, const char *key, const char *value)
{
	tm_buf b = TM_BUF_INIT;
	size_t end = header_end(f), klen = strlen(key);
	const char *p = f, *nl;
	bool done = false;

	while (p < f + end) {
		nl = strchr(p, '\n');
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			if (value)
				tm_buf_printf(&b, "%s: %s\n", key, value);
			done = true;
		} else {
			tm_buf_put(&b, p, (size_t)(nl - p) + 1);
		}
		p = nl + 1;
	}
	if (!done && value)
		tm_buf_printf(&b, "%s: %s\n", key, value);
	tm_buf_puts(&b, f + end);
	return tm_buf_detach(&b);
}

char *mt_body(const char *f, const char *body)
{
	tm_buf b = TM_BUF_INIT;
	size_t end = header_end(f);

	tm_buf_put(&b, f, end + 4);
	tm_buf_puts(&b, body);
	return tm_buf_detach(&b);
}

tm_thread *mt_parse(const char *data, size_t len)
{
	tm_thread *t = NULL;

	ck_assert_msg(tm_frontmatter_parse(&t, data, len, "t", "merged") == 0,
		      "result does not parse: %s\n%s", tm_error_last(), data);
	return t;
}

char *mt_body_of(const char *data, size_t len)
{
	tm_thread *t = mt_parse(data, len);
	char *body = tm_xstrndup(t->body ? t->body : "", t->body_len);

	tm_thread_free(t);
	return body;
}

size_t mt_count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += len;
	}
	return n;
}

static bool is_marker(const char *p)
{
	return !strncmp(p, "<<<<<<<", 7) || !strncmp(p, ">>>>>>>", 7) ||
	       !strncmp(p, "=======", 7) || !strncmp(p, "|||||||", 7);
}

bool mt_header_has_markers(const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;
	int fences = 0;

	while (p < end && fences < 2) {
		if (is_marker(p))
			return true;
		nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)((nl ? nl : end) - p) >= 3 &&
		    !strncmp(p, "---", 3) &&
		    (nl == p + 3 || (nl == p + 4 && p[3] == '\r')))
			fences++;
		p = nl ? nl + 1 : end;
	}
	return false;
}

bool mt_has_line(const char *data, const char *line)
{
	size_t len = strlen(line);
	const char *p = data;

	while ((p = strstr(p, line))) {
		if ((p == data || p[-1] == '\n') &&
		    (p[len] == '\n' || p[len] == '\0' || p[len] == '\r'))
			return true;
		p++;
	}
	return false;
}

char *mt_crlf(const char *s)
{
	tm_buf b = TM_BUF_INIT;

	for (; *s; s++) {
		if (*s == '\n')
			tm_buf_putc(&b, '\r');
		tm_buf_putc(&b, *s);
	}
	return tm_buf_detach(&b);
}
