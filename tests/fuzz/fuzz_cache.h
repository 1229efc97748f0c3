/*
 * Shared by the harnesses of the cache files under
 * $GIT_COMMON_DIR/threadmind/ (fuzz_stale_cache.c, fuzz_stale_commits.c,
 * fuzz_paths_index.c): one small repository made once per process, and
 * the fuzz input turned into a file's bytes.
 *
 * Input: a mode byte, then its bytes.  Each harness has the file the real
 * code wrote in that repository (`real`); the mode's low two bits say how
 * the input becomes the new file (or its payload, for the framed files):
 *   0  the bytes as they are;
 *   1  `real` with the bytes (after a 2-byte offset) written over it there;
 *   2  `real` cut at the offset, the bytes appended;
 *   3  `real` with the bytes XORed into it from the offset on (a few bits
 *      flipped deep in a sound file).
 * The other bits are each harness's.  A framed file's frame (magic, length,
 * checksum: record.h) is made right by the harness, so that the fuzzer
 * reaches the decoders behind the checksum.
 */
#ifndef FUZZ_CACHE_H
#define FUZZ_CACHE_H

#include "threadmind/buf.h"
#include "threadmind/frontmatter.h"
#include "threadmind/model.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fz_dir[64];

static inline void fz_cleanup(void)
{
	char cmd[128];

	if (!fz_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fz_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: cannot remove %s\n", fz_dir);
}

/* Run the shell command `cmd` in the repository; abort on failure. */
static inline void fz_sh(const char *cmd)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_printf(&b,
		      "cd '%s' && export GIT_CONFIG_NOSYSTEM=1 HOME='%s' "
		      "GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@e.x "
		      "GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@e.x "
		      "GIT_AUTHOR_DATE='1700000000 +0000' "
		      "GIT_COMMITTER_DATE='1700000000 +0000' && (%s) "
		      ">/dev/null 2>&1",
		      fz_dir, fz_dir, cmd);
	if (system(tm_buf_cstr(&b)) != 0) {
		fprintf(stderr, "fuzz: setup failed: %s\n", cmd);
		abort();
	}
	tm_buf_release(&b);
}

/*
 * The repository, made once: project `p` with threads `auth` (paths src,
 * summarised, reviewed at the first commit) and `ui` (paths ui), src and
 * ui changed in later commits; the same bytes, so the same commit ids, in
 * every process (the seeds under tests/fuzz/corpus/ hold its keys).
 */
static inline void fz_make_repo(void)
{
	snprintf(fz_dir, sizeof(fz_dir), "/tmp/tm-fuzz-XXXXXX");
	if (!mkdtemp(fz_dir))
		abort();
	atexit(fz_cleanup);
	fz_sh("git init -q -b main . && mkdir -p src ui .threadmind/threads/p "
	      "&& echo a >src/a.c && echo u >ui/u.c && git add . && "
	      "git commit -q -m c1");
	fz_sh("printf -- '---\\nid: auth\\ntitle: Auth\\nparentId: main\\n"
	      "createdAt: 2026-01-01T00:00:00.000Z\\ncommit: '$(git rev-parse "
	      "HEAD)'\\npaths: [\"src\"]\\n---\\nLogin works.\\n' "
	      ">.threadmind/threads/p/auth.md && "
	      "printf -- '---\\nid: ui\\ntitle: UI\\nparentId: main\\n"
	      "commit: '$(git rev-parse HEAD)'\\npaths: [\"ui\", \"doc/*.md\"]"
	      "\\n---\\nScreens.\\n' >.threadmind/threads/p/ui.md && "
	      "printf -- '---\\nid: main\\ntitle: Main\\n---\\n' "
	      ">.threadmind/threads/p/main.md && "
	      "git add . && git commit -q -m threads");
	fz_sh("for i in 1 2 3; do echo $i >>src/a.c && git commit -q -am s$i; "
	      "done && mkdir doc && echo d >doc/x.md && echo v >>ui/u.c && "
	      "git add . && git commit -q -m ui && git checkout -q -b side "
	      "HEAD~2 && echo s >>src/b.c && git add . && git commit -q -m "
	      "side && git checkout -q main && git merge -q --no-ff side -m m");
}

/* The path of `name` under $GIT_COMMON_DIR/threadmind/ (static buffer). */
static inline const char *fz_cache_path(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/.git/threadmind/%s", fz_dir, name);
	return p;
}

static inline void fz_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f))
		abort();
}

/* The whole of `path` into *out (false when it cannot be read). */
static inline int fz_read(tm_buf *out, const char *path)
{
	char chunk[4096];
	FILE *f = fopen(path, "rb");
	size_t got;

	if (!f)
		return 0;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		tm_buf_put(out, chunk, got);
	fclose(f);
	return 1;
}

/* The input (mode byte first) made into bytes after `real` (see above). */
static inline void fz_bytes(tm_buf *out, const uint8_t *data, size_t size,
			    const unsigned char *real, size_t real_len)
{
	size_t at, i;

	tm_buf_clear(out);
	if (!size)
		return;
	if ((data[0] & 3) == 0 || size < 3) {
		tm_buf_put(out, data + 1, size - 1);
		return;
	}
	at = ((size_t)data[1] | (size_t)data[2] << 8) % (real_len + 1);
	data += 3;
	size -= 3;
	switch (data[-3] & 3) {
	case 1:
		tm_buf_put(out, real, real_len);
		for (i = 0; i < size; i++) {
			if (at + i < out->size)
				out->ptr[at + i] = (char)data[i];
			else
				tm_buf_putc(out, (char)data[i]);
		}
		break;
	case 2:
		tm_buf_put(out, real, at);
		tm_buf_put(out, data, size);
		break;
	default:
		tm_buf_put(out, real, real_len);
		for (i = 0; i < size && at + i < out->size; i++)
			out->ptr[at + i] ^= (char)data[i];
		break;
	}
}

/* Remove every file of `dir` whose name starts with `prefix`. */
static inline void fz_remove_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
}

/* A thread reviewed at `commit` with one `paths` entry and a summary (so
 * that it can be stale). */
static inline tm_thread *fz_thread(const char *id, const char *commit,
				   const char *path)
{
	tm_thread *t = tm_thread_new();

	tm_thread_set(&t->id, id);
	tm_thread_set(&t->commit, commit);
	tm_thread_set_summary(t, "Summary.\n", 9);
	t->has_paths = true;
	tm_strv_push(&t->paths, path);
	return t;
}

#endif
