/*
 * libFuzzer harness of the JSON reader (tm_json_parse) and the two files
 * built on it (config.json, a projects/ file): it must never crash; what
 * parses is written as JSON.stringify does, and that text parses back to
 * the same text (write idempotence).  `make fuzz`.
 */
#include "threadmind/config.h"
#include "threadmind/json.h"
#include "json_cjson.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void same_or_abort(const tm_buf *a, const tm_buf *b)
{
	if (a->size != b->size || memcmp(a->ptr, b->ptr, a->size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	tm_buf w1 = TM_BUF_INIT, w2 = TM_BUF_INIT;
	cJSON *v = NULL, *back = NULL;
	tm_config *c = NULL, *c2 = NULL;
	tm_project *p = NULL, *p2 = NULL;

	if (tm_json_parse(&v, s, size, "f.json") == 0) {
		tm_json_stringify(&w1, v);
		if (tm_json_parse(&back, w1.ptr, w1.size, "w.json") < 0)
			abort();
		tm_json_stringify(&w2, back);
		same_or_abort(&w1, &w2);
		cJSON_Delete(back);
		cJSON_Delete(v);
	}
	tm_buf_clear(&w1);
	tm_buf_clear(&w2);
	if (tm_config_parse(&c, s, size, "config.json") == 0) {
		tm_config_write(&w1, c);
		if (tm_config_parse(&c2, w1.ptr, w1.size, "config.json") < 0)
			abort();
		tm_config_write(&w2, c2);
		same_or_abort(&w1, &w2);
		tm_config_free(c2);
		tm_config_free(c);
	}
	tm_buf_clear(&w1);
	tm_buf_clear(&w2);
	if (tm_project_parse(&p, s, size, "p.json") == 0) {
		tm_project_write(&w1, p);
		if (tm_project_parse(&p2, w1.ptr, w1.size, "p.json") < 0)
			abort();
		tm_project_write(&w2, p2);
		same_or_abort(&w1, &w2);
		tm_project_free(p2);
		tm_project_free(p);
	}
	tm_buf_release(&w1);
	tm_buf_release(&w2);
	return 0;
}
