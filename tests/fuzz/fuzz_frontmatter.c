/*
 * libFuzzer harness of the thread-file reader (tm_frontmatter_parse) and
 * writer: it must never crash; a file that parses is written back as a
 * file that parses to the same fields (parse -> write -> parse), writing is
 * idempotent (write(parse(write(t))) == write(t)), and the summary survives
 * a rewrite with itself byte for byte (issue 11, d14).  `make fuzz`.
 */
#include "threadmind/frontmatter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PATH ".threadmind/threads/p/t.md"

static tm_thread *parse_or_abort(const tm_buf *b)
{
	tm_thread *t = NULL;

	if (tm_frontmatter_parse(&t, b->ptr, b->size, "t", PATH) < 0)
		abort(); /* what we write must read back */
	return t;
}

static void write_file(tm_buf *out, const tm_thread *t)
{
	tm_buf_clear(out);
	tm_frontmatter_write(out, t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tm_thread *t = NULL, *back, *again;
	tm_buf w1 = TM_BUF_INIT, w2 = TM_BUF_INIT, h1 = TM_BUF_INIT,
	       h2 = TM_BUF_INIT;
	char *s1, *s2;
	size_t body_len;

	if (tm_frontmatter_parse(&t, (const char *)data, size, "t", PATH) < 0)
		return 0;
	write_file(&w1, t);
	back = parse_or_abort(&w1);
	/* the same fields and body */
	tm_frontmatter_write_header(&h1, t);
	tm_frontmatter_write_header(&h2, back);
	if (h1.size != h2.size || memcmp(h1.ptr, h2.ptr, h1.size) ||
	    back->body_len != t->body_len || back->crlf != t->crlf ||
	    (t->body_len && memcmp(back->body, t->body, t->body_len)))
		abort();
	/* idempotent */
	write_file(&w2, back);
	if (w1.size != w2.size || memcmp(w1.ptr, w2.ptr, w1.size))
		abort();
	/* the summary, set to itself, is a fixed point after one pass */
	s1 = tm_thread_summary(back);
	tm_thread_set_summary(back, s1, strlen(s1));
	body_len = back->body_len;
	s2 = tm_thread_summary(back);
	tm_thread_set_summary(back, s2, strlen(s2));
	if (back->body_len != body_len)
		abort();
	write_file(&w2, back);
	again = parse_or_abort(&w2);
	free(s2);
	s2 = tm_thread_summary(again);
	{
		char *s3;

		tm_thread_set_summary(again, s2, strlen(s2));
		s3 = tm_thread_summary(again);
		if (strcmp(s2, s3))
			abort();
		free(s3);
	}
	free(s1);
	free(s2);
	tm_thread_free(again);
	tm_thread_free(back);
	tm_thread_free(t);
	tm_buf_release(&w1);
	tm_buf_release(&w2);
	tm_buf_release(&h1);
	tm_buf_release(&h2);
	return 0;
}
