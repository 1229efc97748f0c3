/*
 * libFuzzer harness of git's index file reader (tm_index_file_conflicts):
 * any bytes as .git/index either are refused (the caller asks libgit2) or
 * give unmerged paths that each start with the prefix, once each, in the
 * index's (strictly increasing byte) order; a refusal leaves the list as
 * it was.  `make fuzz`.
 */
#include "lib/index_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check(const char *path, const char *prefix)
{
	tm_strv out = TM_STRV_INIT;
	size_t i;

	tm_strv_push(&out, "sentinel");
	if (!tm_index_file_conflicts(&out, path, prefix)) {
		if (out.n != 1 || strcmp(out.items[0], "sentinel"))
			abort();
		tm_strv_clear(&out);
		return;
	}
	for (i = 1; i < out.n; i++) {
		if (strncmp(out.items[i], prefix, strlen(prefix)))
			abort();
		if (i > 1 && strcmp(out.items[i - 1], out.items[i]) >= 0)
			abort();
	}
	tm_strv_clear(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz-index-%ld",
			 (long)getpid());
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	check(path, "");
	check(path, ".threadmind/");
	unlink(path);
	return 0;
}
