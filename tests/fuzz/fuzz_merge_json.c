/*
 * libFuzzer harness of the project-file merge (tm_merge_files on a
 * projects/ path): it must never crash, and a clean JSON merge must give
 * valid JSON.  Build: see docs/merge.md ("Fuzzing").
 */
#include "json_cjson.h"
#include "threadmind/merge.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool same(const char *x, size_t xl, const char *y, size_t yl)
{
	return xl == yl && (!xl || !memcmp(x, y, xl));
}

/* Input: as fuzz_merge_thread.c (options, two lengths, three sides). */
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_merge_result r;
	cJSON *v = NULL;
	size_t lo, la, lb;
	const char *s;

	if (n < 5)
		return 0;
	opts.style = (tm_conflict_style)(d[0] % 3);
	opts.marker_size = 1 + (d[0] >> 2) % 12;
	opts.path = ".threadmind/projects/p.json";
	lo = ((size_t)d[1] << 8 | d[2]) % (n - 4);
	la = ((size_t)d[3] << 8 | d[4]) % (n - 4 - lo);
	lb = n - 5 - lo - la;
	s = (const char *)d + 5;
	if (tm_merge_files(&r, s, lo, s + lo, la, s + lo + la, lb, &opts) < 0)
		abort();
	/* one side unchanged gives the other verbatim, whatever it holds */
	if (r.kind == TM_MERGE_KIND_PROJECT && !r.conflicted &&
	    !same(s, lo, s + lo, la) && !same(s, lo, s + lo + la, lb) &&
	    !same(s + lo, la, s + lo + la, lb)) {
		if (tm_json_parse(&v, r.data, r.len, NULL) < 0)
			abort();
		cJSON_Delete(v);
	}
	tm_merge_result_clear(&r);
	return 0;
}
