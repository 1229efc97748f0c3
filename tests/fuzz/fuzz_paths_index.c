/*
 * libFuzzer harness of the thread index of the hooks,
 * $GIT_COMMON_DIR/threadmind/paths-<hash>.index (lib/stale/paths_index.c): the
 * payload made of the input (fuzz_cache.h: over the real index, whose
 * entries' stat data match the thread files, so that they are decoded),
 * framed right unless mode bit 3 says not; a load (mode bit 2: every
 * thread, else those with paths) must never crash, leak or hang, and
 * gives each thread file of the folder at most once, in id order, with
 * an id that names a file.  Seeds: the real index.  `make fuzz`.
 */
#include "fuzz_cache.h"

#include "threadmind/error.h"
#include "threadmind/model.h"
#include "paths_index.h"
#include "record.h"
#include "threadmind/slug.h"
#include "threadmind/store.h"

#define MAGIC "TMPIDX04" /* lib/stale/paths_index.c's */

static tm_store *store;
static char *index_path;
static tm_buf real = TM_BUF_INIT; /* the payload */

static void load(tm_paths_index_what what)
{
	tm_paths_index_options opts = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	size_t i;

	opts.threads = 1;
	if (tm_paths_index_load(&l, store, "p", what, &opts) < 0)
		abort(); /* the folder is there: a bad index is no error */
	for (i = 0; i < l.n; i++) {
		if (!l.threads[i]->id ||
		    tm_id_validate(l.threads[i]->id, NULL) < 0)
			abort();
		if (i && strcmp(l.threads[i - 1]->id, l.threads[i]->id) >= 0)
			abort();
	}
	if (l.n > 4)
		abort(); /* the folder holds four files */
	tm_paths_index_list_clear(&l);
	tm_error_clear();
}

static void cleanup(void)
{
	tm_store_free(store);
	free(index_path);
	tm_buf_release(&real);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tm_buf file = TM_BUF_INIT, s = TM_BUF_INIT, p = TM_BUF_INIT;
	const char *seeds = getenv("TM_FUZZ_SEEDS");

	(void)argc;
	(void)argv;
	fz_make_repo();
	fz_sh("printf -- '---\\nid: odd\\ntitle: Odd\\nstatus: done\\n"
	      "paths: [\"a\", \"b/c\"]\\n---\\n' >.threadmind/threads/p/odd.md "
	      "&& mkdir -p .threadmind/projects && printf '{\"id\": \"p\", "
	      "\"title\": \"P\", \"rootThreadId\": \"main\"}\\n' "
	      ">.threadmind/projects/p.json && printf '{\"activeProjectId\": "
	      "\"p\", \"version\": 1}\\n' >.threadmind/config.json");
	if (tm_store_open(&store, fz_dir) < 0 ||
	    !(index_path = tm_paths_index_file(store, "p"))) {
		fprintf(stderr, "fuzz: %s\n", tm_error_last());
		abort();
	}
	fz_sh("mkdir -p .git/threadmind && sleep 1"); /* files older than
							 the stamp */
	load(TM_PATHS_INDEX_ALL);
	if (!fz_read(&file, index_path) || file.size < TM_RECORD_FRAME_LEN)
		abort();
	tm_buf_put(&real, file.ptr + TM_RECORD_FRAME_LEN,
		   file.size - TM_RECORD_FRAME_LEN);
	if (seeds) {
		tm_buf_putc(&s, 0);
		tm_buf_put(&s, real.ptr, real.size);
		tm_buf_printf(&p, "%s/index", seeds);
		fz_write(tm_buf_cstr(&p), s.ptr, s.size);
	}
	tm_buf_release(&file);
	tm_buf_release(&s);
	tm_buf_release(&p);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tm_buf payload = TM_BUF_INIT, file = TM_BUF_INIT;
	unsigned mode = size ? data[0] : 0;

	fz_bytes(&payload, data, size, (const unsigned char *)real.ptr,
		 real.size);
	if (mode & 8)
		tm_buf_put(&file, payload.ptr, payload.size);
	else
		tm_record_frame(&file, MAGIC, payload.ptr, payload.size);
	fz_write(index_path, file.ptr, file.size);
	load(mode & 4 ? TM_PATHS_INDEX_ALL : TM_PATHS_INDEX_WITH_PATHS);
	tm_buf_release(&payload);
	tm_buf_release(&file);
	return 0;
}
