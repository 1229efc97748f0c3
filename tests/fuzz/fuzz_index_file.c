/*
 * libFuzzer harness of git's index file reader (tm_index_file_conflicts,
 * and tm_index_file_entries, which must give the same verdict):
 * any bytes as .git/index either are left to libgit2, or refused as
 * damaged past the reader's bounds (with a message naming the file), or
 * give unmerged paths that each start with the prefix, once each, in the
 * index's (strictly increasing byte) order, each shorter than PATH_MAX; a
 * refusal leaves the list as it was.  The seeds (real git's indexes of
 * versions 2, 3 and 4, and hostile version 4 ones) reach every branch of
 * the version 4 path expansion.  `make fuzz`.
 */
#include "index_file.h"
#include "threadmind/error.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check(const char *path, const char *prefix)
{
	tm_strv out = TM_STRV_INIT;
	size_t i;
	int rc;

	tm_strv_push(&out, "sentinel");
	tm_error_clear();
	rc = tm_index_file_conflicts(&out, path, "IDX", prefix);
	if (rc != 0) {
		if (rc != TM_INDEX_FILE_ASK_LIBGIT2 && rc != TM_EPARSE)
			abort();
		if (out.n != 1 || strcmp(out.items[0], "sentinel"))
			abort();
		/* a refusal names the file; leaving it to libgit2 is silent */
		if ((rc == TM_EPARSE) !=
		    (strstr(tm_error_last(), "'IDX'") != NULL))
			abort();
		tm_strv_clear(&out);
		return;
	}
	for (i = 1; i < out.n; i++) {
		if (strncmp(out.items[i], prefix, strlen(prefix)) ||
		    strlen(out.items[i]) >= PATH_MAX)
			abort();
		if (i > 1 && strcmp(out.items[i - 1], out.items[i]) >= 0)
			abort();
	}
	tm_strv_clear(&out);
}

/* tm_index_file_entries on the same bytes: the unmerged paths' reader's
 * verdict (but for the case-insensitive order of unmerged paths, which it
 * does not look at), and entries shorter than PATH_MAX that each start
 * with the prefix and are longer than it, or are a .gitattributes. */
static void check_entries(const char *path, const char *prefix)
{
	tm_index_file_entry sentinel, *e = &sentinel;
	size_t n = 1, i, plen = strlen(prefix), len;
	int64_t mtime[2];
	tm_strv out = TM_STRV_INIT;
	int rc = tm_index_file_entries(&e, &n, mtime, path, prefix),
	    conflicts = tm_index_file_conflicts(&out, path, "IDX", prefix);

	tm_strv_clear(&out);
	if (rc != conflicts &&
	    !(rc == 0 && conflicts == TM_INDEX_FILE_ASK_LIBGIT2))
		abort();
	if (rc != 0) {
		if (e || n)
			abort();
		return;
	}
	for (i = 0; i < n; i++) {
		len = strlen(e[i].path);
		if (len >= PATH_MAX ||
		    ((len <= plen || strncmp(e[i].path, prefix, plen)) &&
		     !strstr(e[i].path, ".gitattributes")))
			abort();
	}
	tm_index_file_entries_free(e, n);
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
	check_entries(path, "");
	check_entries(path, ".threadmind/");
	unlink(path);
	return 0;
}
