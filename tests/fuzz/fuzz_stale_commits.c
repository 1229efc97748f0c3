/*
 * libFuzzer harness of the commits index, $GIT_COMMON_DIR/threadmind/
 * commits/ (lib/stale/stale_cidx_*.c): its top layer `layer-<id>.idx` made of
 * the input (fuzz_cache.h: over the real top layer), on the real bottom
 * layer, named in `chain`, its id and checksum made right unless the mode
 * says not, and with mode bit 3 stamped as checked whole in `checked`
 * (with its stat data: the loader then skips the checksum and the order
 * checks, never the bounds); with bit 4 the chain names the input's layer
 * alone (no bottom layer).  A computation of staleness then loads the index
 * and must never crash, leak, hang or read out of bounds (issue 24,
 * forged-stamp-layer-oob): a layer that does not check out is ignored and
 * rebuilt.  Seeds: the real top layer.  `make fuzz`.
 */
#include "fuzz_cache.h"

#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "threadmind/git.h"
#include "threadmind/model.h"
#include "record.h"
#include "threadmind/stale.h"
#include "stale_internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <time.h>

#define TDIR        ".threadmind/threads/p/"
#define STAMP_MAGIC "TMCIDXOK" /* lib/stale/stale_cidx_read.c's */
#define CHAIN_MAGIC "threadmind commits chain 1\n"

static tm_git *g;
static tm_thread *threads[2];
static tm_buf bottom = TM_BUF_INIT, top = TM_BUF_INIT;
static char bottom_id[17];
static char dir[200];

static void compute(void)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;

	tm_stale_compute(&r, g, TDIR, (const tm_thread *const *)threads, 2);
	tm_error_clear();
	tm_stale_report_clear(&r);
}

/* The layer `id` of the chain into *out. */
static void read_layer(tm_buf *out, const char *id)
{
	tm_buf p = TM_BUF_INIT;

	tm_buf_printf(&p, "%s/layer-%s.idx", dir, id);
	if (!fz_read(out, tm_buf_cstr(&p)))
		abort();
	tm_buf_release(&p);
}

static void cleanup(void)
{
	tm_thread_free(threads[0]);
	tm_thread_free(threads[1]);
	tm_git_free(g);
	tm_buf_release(&bottom);
	tm_buf_release(&top);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tm_buf chain = TM_BUF_INIT, p = TM_BUF_INIT;
	const char *seeds = getenv("TM_FUZZ_SEEDS");
	char *id;

	(void)argc;
	(void)argv;
	fz_make_repo();
	snprintf(dir, sizeof(dir), "%s/.git/threadmind/commits", fz_dir);
	fz_sh("git checkout -q HEAD~1");
	if (tm_git_open(&g, fz_dir, false) < 0)
		abort();
	/* reviewed at the first commit: the whole history is their range
	 * (an unknown commit would add nothing to it, issue 20) */
	fz_sh("git rev-list --max-parents=0 HEAD >.git/fuzz-root");
	tm_buf_printf(&p, "%s/.git/fuzz-root", fz_dir);
	if (!fz_read(&chain, tm_buf_cstr(&p)) || chain.size < 40)
		abort();
	id = tm_xstrndup(chain.ptr, 40);
	tm_buf_release(&chain);
	tm_buf_release(&p);
	threads[0] = fz_thread("auth", id, "src");
	threads[1] = fz_thread("ui", id, "ui");
	free(id);
	compute(); /* the bottom layer: the history up to HEAD~1 */
	tm_git_free(g);
	fz_sh("git checkout -q main");
	if (tm_git_open(&g, fz_dir, false) < 0)
		abort();
	compute(); /* a layer on top: the last commits */
	tm_buf_printf(&p, "%s/chain", dir);
	/* two layers (6 commits, then 2: not merged), after the magic line */
	if (!fz_read(&chain, tm_buf_cstr(&p)) ||
	    chain.size != strlen(CHAIN_MAGIC) + 34 ||
	    memcmp(chain.ptr, CHAIN_MAGIC, strlen(CHAIN_MAGIC))) {
		fprintf(stderr, "fuzz: not a chain of two layers\n");
		abort();
	}
	id = chain.ptr + strlen(CHAIN_MAGIC);
	id[16] = id[33] = '\0';
	snprintf(bottom_id, sizeof(bottom_id), "%s", id);
	read_layer(&bottom, id);
	read_layer(&top, id + 17);
	if (seeds) {
		tm_buf s = TM_BUF_INIT;

		tm_buf_putc(&s, 0);
		tm_buf_put(&s, top.ptr, top.size);
		tm_buf_clear(&p);
		tm_buf_printf(&p, "%s/top-layer", seeds);
		fz_write(tm_buf_cstr(&p), s.ptr, s.size);
		s.ptr[0] = 8; /* stamped */
		tm_buf_clear(&p);
		tm_buf_printf(&p, "%s/top-layer-stamped", seeds);
		fz_write(tm_buf_cstr(&p), s.ptr, s.size);
		tm_buf_release(&s);
	}
	tm_buf_release(&chain);
	tm_buf_release(&p);
	atexit(cleanup);
	return 0;
}

/* `checked` stamping layer `id` (file `path`) as checked whole, newer than
 * the layer (git's racy rule). */
static void stamp(const char *path, uint64_t id)
{
	tm_buf payload = TM_BUF_INIT, file = TM_BUF_INIT, p = TM_BUF_INIT;
	struct timespec t[2];
	struct stat st;
	uint64_t v[6];
	size_t i;

	if (stat(path, &st) < 0)
		abort();
	v[0] = id;
	v[1] = (uint64_t)st.st_dev;
	v[2] = (uint64_t)st.st_ino;
	v[3] = (uint64_t)st.st_size;
	v[4] = (uint64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	v[5] = (uint64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	tm_record_put_u64(&payload, 1);
	for (i = 0; i < 6; i++)
		tm_record_put_u64(&payload, v[i]);
	tm_record_frame(&file, STAMP_MAGIC, payload.ptr, payload.size);
	tm_buf_printf(&p, "%s/checked", dir);
	fz_write(tm_buf_cstr(&p), file.ptr, file.size);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec += 2;
	t[1] = t[0];
	if (utimensat(AT_FDCWD, tm_buf_cstr(&p), t, 0) < 0)
		abort();
	tm_buf_release(&payload);
	tm_buf_release(&file);
	tm_buf_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tm_buf layer = TM_BUF_INIT, p = TM_BUF_INIT, chain = TM_BUF_INIT;
	unsigned mode = size ? data[0] : 0;
	uint64_t id = 0x1234;

	fz_remove_prefixed(dir, "layer-");
	fz_remove_prefixed(dir, "checked");
	fz_bytes(&layer, data, size, (const unsigned char *)top.ptr, top.size);
	if (layer.size >= 16 && !(mode & 4)) {
		id = tm_record_sum(layer.ptr + 16, layer.size - 16);
		memcpy(layer.ptr + 8, &id, 8);
	} else if (layer.size >= 16) {
		memcpy(&id, layer.ptr + 8, 8);
	}
	tm_buf_puts(&chain, CHAIN_MAGIC);
	if (!(mode & 16)) {
		tm_buf_printf(&p, "%s/layer-%s.idx", dir, bottom_id);
		fz_write(tm_buf_cstr(&p), bottom.ptr, bottom.size);
		tm_buf_printf(&chain, "%s\n", bottom_id);
	}
	tm_buf_printf(&chain, "%016" PRIx64 "\n", id);
	tm_buf_clear(&p);
	tm_buf_printf(&p, "%s/layer-%016" PRIx64 ".idx", dir, id);
	fz_write(tm_buf_cstr(&p), layer.ptr, layer.size);
	if (mode & 8)
		stamp(tm_buf_cstr(&p), id);
	tm_buf_clear(&p);
	tm_buf_printf(&p, "%s/chain", dir);
	fz_write(tm_buf_cstr(&p), chain.ptr, chain.size);
	unlink(fz_cache_path("stale.cache"));
	tm_stale__stamp_min = (mode & 8) ? 0 : (uint64_t)1 << 40;
	compute();
	tm_buf_release(&layer);
	tm_buf_release(&p);
	tm_buf_release(&chain);
	return 0;
}
