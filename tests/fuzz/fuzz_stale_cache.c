/*
 * libFuzzer harness of the staleness cache, $GIT_COMMON_DIR/threadmind/
 * stale.cache (lib/stale/stale_cache.c): any payload, framed right
 * (fuzz_cache.h), is either the answer it holds or ignored; the second-run read
 * (tm_stale_cached_ids) and a computation that may carry it forward
 * (tm_stale_compute) never crash, leak or fail on it.  The cache made by
 * the real code is at HEAD~1 (what a computation carries forward over the
 * last commit); the seeds hold it and the one at HEAD.  `make fuzz`.
 */
#include "fuzz_cache.h"

#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "threadmind/git.h"
#include "threadmind/model.h"
#include "record.h"
#include "threadmind/stale.h"

#define TDIR  ".threadmind/threads/p/"
#define MAGIC "TMSTALE5" /* lib/stale/stale_cache.c's */

static tm_git *g;
static tm_thread *threads[3];
static tm_buf real = TM_BUF_INIT; /* the payload at HEAD~1 */

static void compute(void)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;

	tm_stale_compute(&r, g, TDIR, (const tm_thread *const *)threads, 3);
	tm_error_clear();
	tm_stale_report_clear(&r);
}

static void cleanup(void)
{
	size_t i;

	for (i = 0; i < 3; i++)
		tm_thread_free(threads[i]);
	tm_git_free(g);
	tm_buf_release(&real);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tm_buf file = TM_BUF_INIT, base = TM_BUF_INIT;
	const char *seeds = getenv("TM_FUZZ_SEEDS");

	(void)argc;
	(void)argv;
	fz_make_repo();
	fz_sh("git rev-list --max-parents=0 HEAD >.git/base");
	tm_buf_printf(&file, "%s/.git/base", fz_dir);
	if (!fz_read(&base, tm_buf_cstr(&file)) || base.size < 40)
		abort();
	tm_buf_clear(&file);
	base.ptr[40] = '\0';
	threads[0] = fz_thread("auth", base.ptr, "src");
	threads[1] = fz_thread("ui", base.ptr, "ui");
	threads[2] = fz_thread(
		"gone", "0123456789012345678901234567890123456789", "src");
	fz_sh("git checkout -q HEAD~1");
	if (tm_git_open(&g, fz_dir, false) < 0)
		abort();
	compute();
	if (!fz_read(&file, fz_cache_path("stale.cache")) ||
	    file.size < TM_RECORD_FRAME_LEN)
		abort();
	tm_buf_put(&real, file.ptr + TM_RECORD_FRAME_LEN,
		   file.size - TM_RECORD_FRAME_LEN);
	tm_git_free(g);
	fz_sh("git checkout -q main");
	if (tm_git_open(&g, fz_dir, false) < 0)
		abort();
	if (seeds) { /* the seeds: the cache at HEAD~1, then at HEAD */
		tm_buf s = TM_BUF_INIT, p = TM_BUF_INIT;

		tm_buf_putc(&s, 0);
		tm_buf_put(&s, real.ptr, real.size);
		tm_buf_printf(&p, "%s/at-head-1", seeds);
		fz_write(tm_buf_cstr(&p), s.ptr, s.size);
		compute();
		tm_buf_clear(&file);
		if (!fz_read(&file, fz_cache_path("stale.cache")))
			abort();
		tm_buf_clear(&s);
		tm_buf_putc(&s, 0);
		tm_buf_put(&s, file.ptr + TM_RECORD_FRAME_LEN,
			   file.size - TM_RECORD_FRAME_LEN);
		tm_buf_clear(&p);
		tm_buf_printf(&p, "%s/at-head", seeds);
		fz_write(tm_buf_cstr(&p), s.ptr, s.size);
		tm_buf_release(&s);
		tm_buf_release(&p);
	}
	tm_buf_release(&file);
	tm_buf_release(&base);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tm_buf payload = TM_BUF_INIT, file = TM_BUF_INIT;
	tm_strv ids = TM_STRV_INIT;
	unsigned mode = size ? data[0] : 0;

	fz_bytes(&payload, data, size, (const unsigned char *)real.ptr,
		 real.size);
	/* mode bit 2: the frame as the input has it (a bad frame) */
	if (mode & 4)
		tm_buf_put(&file, payload.ptr, payload.size);
	else
		tm_record_frame(&file, MAGIC, payload.ptr, payload.size);
	fz_write(fz_cache_path("stale.cache"), file.ptr, file.size);
	tm_stale_cached_ids(&ids, g, TDIR, (const tm_thread *const *)threads,
			    3);
	tm_error_clear();
	tm_strv_clear(&ids);
	if (!(mode & 8)) /* bit 3: the second-run read alone (faster) */
		compute();
	tm_buf_release(&payload);
	tm_buf_release(&file);
	return 0;
}
