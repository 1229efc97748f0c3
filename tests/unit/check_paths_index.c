/*
 * Unit tests of lib/stale/paths_index.c: the indexed answer is the full read's
 * on seeded random stores edited in place (same size, same second, mtime
 * put back), renamed, added to and deleted from; the answers themselves
 * are those of tm_store_load_all and of a frontmatter-only read; a
 * corrupt, truncated, foreign or unwritable index is ignored and rebuilt;
 * an unchanged store reads no file; the deadline cuts the load short
 * without writing; concurrent loads leave a valid index.
 */
#include "parallel.h"
#include "paths_index.h"
#include "threadmind/deadline.h"
#include "record.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "test_util.h"

#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *tmp;
static char *repo;
static char *tdir; /* .threadmind/threads/app */
static tm_store *store;
static uint64_t rng;

static void setup(void)
{
	tmp = tmt_sandbox();
	repo = tmt_git_repo(tmp, "repo");
	ck_assert_int_eq(tm_store_init(&store, repo, "App", NULL), 0);
	tdir = tmt_join(repo, ".threadmind/threads/app");
}

static void teardown(void)
{
	tm_store_free(store);
	tmt_sandbox_end(tmp);
	free(repo);
	free(tdir);
	tmp = repo = tdir = NULL;
	store = NULL;
}

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static char *file_of(const char *id)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.md", id);
	return tmt_join(tdir, name);
}

/* A thread file's content for variant v; the same v always gives the same
 * size for the same id width, so that an edit can keep the size. */
static void content(tm_buf *out, const char *id, unsigned v)
{
	static const char *const status[] = {"", "status: done\n",
					     "status: abandoned\n"};
	static const char *const paths[] = {
		"", "paths: []\n", "paths: [\"src/a\"]\n",
		"paths: [\"src/b\", \"docs/*.md\"]\n", "pathsx: nothing\n"};

	tm_buf_clear(out);
	switch (v % 9) {
	case 7: /* no closing line */
		tm_buf_printf(out, "---\nid: %s\ntitle: Broken\n", id);
		return;
	case 8: /* a NUL in the body: the whole file does not parse */
		tm_buf_printf(out, "---\nid: %s\ntitle: Nul\n%s---\nbody ", id,
			      paths[2]);
		tm_buf_putc(out, '\0');
		tm_buf_puts(out, "\n");
		return;
	default:
		break;
	}
	tm_buf_printf(out,
		      "---\nid: %s\ntitle: T%u\nparentId: null\n"
		      "createdAt: 2026-01-01T00:00:0%uZ\n"
		      "updatedAt: 2026-01-02T00:00:0%uZ\n%sbranch: b%u\n"
		      "commit: %040u\n%s---\n",
		      id, v % 10, v % 10, (v / 3) % 10, status[v % 3], v % 4,
		      v % 7, paths[v % 5]);
	/* a blank summary (left out of WITH_PATHS) of the same size */
	if (v % 6 == 5)
		tm_buf_puts(out, "\n \t           \n");
	else
		tm_buf_printf(out, "\n## Summary\nx%u\n", v % 10);
}

static void write_thread(const char *id, unsigned v)
{
	tm_buf b = TM_BUF_INIT;
	char *f = file_of(id);

	content(&b, id, v);
	tmt_write_file(f, b.ptr, b.size);
	tm_buf_release(&b);
	free(f);
}

static void expect_same_thread(const tm_thread *a, const tm_thread *b)
{
	size_t i;

	ck_assert_str_eq(a->id, b->id);
	ck_assert_pstr_eq(a->status, b->status);
	ck_assert_pstr_eq(a->commit, b->commit);
	ck_assert_int_eq(a->has_paths, b->has_paths);
	ck_assert_uint_eq(a->paths.n, b->paths.n);
	for (i = 0; i < a->paths.n; i++)
		ck_assert_str_eq(a->paths.items[i], b->paths.items[i]);
}

static void expect_same_v(const tm_thread *const *a, size_t na,
			  const tm_thread *const *b, size_t nb, bool all)
{
	size_t i;

	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++) {
		expect_same_thread(a[i], b[i]);
		if (all) {
			ck_assert_pstr_eq(a[i]->branch, b[i]->branch);
			ck_assert_pstr_eq(a[i]->updated_at, b[i]->updated_at);
		}
	}
}

static void expect_same(const tm_paths_index_list *a,
			const tm_paths_index_list *b, bool all)
{
	expect_same_v(a->threads, a->n, b->threads, b->n, all);
}

static void expect_same_ref(const tm_paths_index_list *a,
			    const tm_thread_list *b, bool all)
{
	expect_same_v(a->threads, a->n, (const tm_thread *const *)b->threads,
		      b->n, all);
}

/* The reference of WITH_PATHS: every file read, parsed frontmatter-only
 * when a line may be `paths`, whose body is not blank. */
static void reference_with_paths(tm_thread_list *out)
{
	tm_strv ids = TM_STRV_INIT;
	size_t i, alloc = 0;

	memset(out, 0, sizeof(*out));
	ck_assert_int_eq(tm_store_list_threads(&ids, NULL, store, "app"), 0);
	for (i = 0; i < ids.n; i++) {
		char *f = file_of(ids.items[i]);
		size_t len, blen;
		char *d = tmt_read_file(f, &len);
		tm_thread *t = NULL;

		if (d && tm_frontmatter_may_have(d, len, "paths") &&
		    (blen = tm_frontmatter_block_len(d, len)) &&
		    !tm_summary_blank(d + blen, len - blen) &&
		    tm_frontmatter_parse(&t, d, blen, ids.items[i], f) == 0) {
			tm_xgrow((void **)&out->threads, &alloc, out->n + 1,
				 sizeof(*out->threads));
			out->threads[out->n++] = t;
		}
		tm_error_clear();
		free(d);
		free(f);
	}
	tm_strv_clear(&ids);
}

/* Both kinds of answer, indexed, equal the full read and the reference. */
static void check_answers(void)
{
	tm_paths_index_options no = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list a, b;
	tm_thread_list ref;
	int what;

	no.no_index = true;
	for (what = 0; what < 2; what++) {
		ck_assert_int_eq(
			tm_paths_index_load(&a, store, "app", what, NULL), 0);
		ck_assert_int_eq(
			tm_paths_index_load(&b, store, "app", what, &no), 0);
		expect_same(&a, &b, what == TM_PATHS_INDEX_ALL);
		if (what == TM_PATHS_INDEX_ALL)
			ck_assert_int_eq(tm_store_load_all(&ref, store, "app"),
					 0);
		else
			reference_with_paths(&ref);
		expect_same_ref(&b, &ref, what == TM_PATHS_INDEX_ALL);
		tm_paths_index_list_clear(&a);
		tm_paths_index_list_clear(&b);
		tm_thread_list_clear(&ref);
	}
}

/* Overwrite `id`'s file in place with variant v of the same size when
 * there is one, putting the old mtime back: only ctime can tell. */
static void edit_in_place(const char *id, unsigned old_v)
{
	tm_buf a = TM_BUF_INIT, b = TM_BUF_INIT;
	char *f = file_of(id);
	struct stat st;
	struct timespec times[2];
	unsigned v, tries;
	int fd;

	content(&a, id, old_v);
	for (tries = 0, v = old_v + 1; tries < 40; tries++, v++) {
		content(&b, id, v);
		if (b.size == a.size && memcmp(a.ptr, b.ptr, a.size))
			break;
	}
	ck_assert_int_eq(lstat(f, &st), 0);
	fd = open(f, O_WRONLY); /* no O_TRUNC: in place */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b.ptr, b.size), (ssize_t)b.size);
	ck_assert_int_eq(ftruncate(fd, (off_t)b.size), 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	ck_assert_int_eq(futimens(fd, times), 0);
	close(fd);
	tm_buf_release(&a);
	tm_buf_release(&b);
	free(f);
}

START_TEST(test_random_stores_match_the_full_read)
{
	unsigned round, k, n = 30;
	unsigned *var = calloc(200, sizeof(unsigned));
	bool *live = calloc(200, sizeof(bool));
	char id[32];

	rng = 0x9e3779b97f4a7c15u ^ ((uint64_t)_i * 2654435761u + 1);
	/* odd seeds: one-second timestamps, where an edit in place in the
	 * same second leaves the stat data as it was */
	tm_paths_index__coarse_times(_i % 2);
	for (k = 0; k < n; k++) {
		snprintf(id, sizeof(id), "t%03u", k);
		var[k] = rnd(1000);
		live[k] = true;
		write_thread(id, var[k]);
	}
	check_answers();
	for (round = 0; round < 40; round++) {
		unsigned op = rnd(6), m = rnd(3) + 1, j;

		for (j = 0; j < m; j++) {
			k = rnd(n);
			snprintf(id, sizeof(id), "t%03u", k);
			if (!live[k]) { /* new file */
				var[k] = rnd(1000);
				live[k] = true;
				write_thread(id, var[k]);
			} else if (op <= 1) {
				edit_in_place(id, var[k]);
				var[k] = UINT32_MAX; /* unknown now */
			} else if (op == 2) {
				char *f = file_of(id);

				ck_assert_int_eq(unlink(f), 0);
				live[k] = false;
				free(f);
			} else if (op == 3 && n < 200) { /* rename */
				char *from = file_of(id), *to;

				snprintf(id, sizeof(id), "t%03u", n);
				to = file_of(id);
				ck_assert_int_eq(rename(from, to), 0);
				live[n] = true;
				var[n] = var[k];
				live[k] = false;
				n++;
				free(from);
				free(to);
			} else if (var[k] != UINT32_MAX) { /* rewrite */
				var[k] = rnd(1000);
				write_thread(id, var[k]);
			}
		}
		check_answers();
	}
	tm_paths_index__coarse_times(false);
	free(var);
	free(live);
}
END_TEST

/* Wait, when need be, for the start of a second, so that what follows
 * (a few writes) does not run into the next one. */
static void early_in_a_second(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (now.tv_nsec > 300000000)
		usleep((useconds_t)((1000000000 - now.tv_nsec) / 1000));
}

/* On one-second timestamps: written, indexed and edited in place within
 * the same second, the file has the stat data the index holds; only the
 * racy rule makes the load read it again. */
START_TEST(test_racy_edit_in_the_same_second)
{
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	int tries;

	tm_paths_index__coarse_times(true);
	for (tries = 0; tries < 5; tries++) {
		early_in_a_second();
		write_thread("r", 2); /* paths: ["src/a"] */
		ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
						     TM_PATHS_INDEX_WITH_PATHS,
						     &o),
				 0);
		tm_paths_index_list_clear(&l);
		edit_in_place("r", 2); /* same size, mtime put back */
		check_answers();
	}
	tm_paths_index__coarse_times(false);
}
END_TEST

START_TEST(test_unchanged_store_reads_no_file)
{
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	char *f;

	write_thread("a", 2);
	write_thread("b", 3);
	write_thread("c", 0);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	tm_paths_index_list_clear(&l);
	ck_assert(o.written);
	/* the files are older than the stamp after a moment */
	usleep(30000);
	tmt_sh("touch -d '2020-01-01' '%s'/*.md", tdir);
	usleep(30000); /* the stamp in a later clock tick than the touch */
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	tm_paths_index_list_clear(&l);
	ck_assert_uint_eq(o.reread,
			  4); /* touch changed their ctime (main too) */
	ck_assert(o.written);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	ck_assert_uint_eq(o.reread, 0);
	ck_assert(!o.written);
	ck_assert_uint_eq(l.n, 2); /* a and b have paths */
	tm_paths_index_list_clear(&l);
	/* one edit in place: only that file is read */
	edit_in_place("a", 2);
	usleep(30000); /* past the edit's tick: not racy once indexed */
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	ck_assert_uint_eq(o.reread, 1);
	tm_paths_index_list_clear(&l);
	/* a new file and a removed one show through the folder */
	write_thread("d", 2);
	f = file_of("c");
	ck_assert_int_eq(unlink(f), 0);
	free(f);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	ck_assert_uint_eq(o.reread, 1);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.threads[2]->id, "d");
	tm_paths_index_list_clear(&l);
	check_answers();
}
END_TEST

/* The folder's listing is the index's while the folder's stat data is the
 * recorded one: an edit in place is still seen (the files are lstat-ed);
 * a file added, removed or renamed changes the folder's ctime, even with
 * its mtime put back. */
START_TEST(test_folder_listing_is_reused)
{
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	struct stat st;
	struct timespec times[2];
	char *f, *g;

	write_thread("a", 2);
	write_thread("b", 3);
	usleep(30000);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	tm_paths_index_list_clear(&l);
	ck_assert(o.listed);
	usleep(30000); /* past the stamp's tick */
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	tm_paths_index_list_clear(&l);
	ck_assert(!o.listed); /* the index's names */
	ck_assert_uint_eq(o.reread, 0);
	/* an edit in place, folder untouched: not listed, the file read */
	edit_in_place("a", 2);
	ck_assert_int_eq(stat(tdir, &st), 0);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	tm_paths_index_list_clear(&l);
	ck_assert(!o.listed);
	ck_assert_uint_eq(o.reread, 1);
	check_answers();
	usleep(30000);
	check_answers(); /* the index now past the edit */
	/* a new file, the folder's mtime put back: its ctime tells */
	ck_assert_int_eq(stat(tdir, &st), 0);
	write_thread("c", 2);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	ck_assert_int_eq(utimensat(AT_FDCWD, tdir, times, 0), 0);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	ck_assert(o.listed);
	ck_assert_uint_eq(l.n, 3);
	tm_paths_index_list_clear(&l);
	check_answers();
	/* a rename: listed again, the new name read */
	usleep(30000);
	check_answers();
	f = file_of("c");
	g = file_of("d");
	ck_assert_int_eq(rename(f, g), 0);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	ck_assert(o.listed);
	tm_paths_index_list_clear(&l);
	check_answers();
	free(f);
	free(g);
}
END_TEST

/* On one-second timestamps a file added in the second the folder was
 * listed leaves the folder's stat data as recorded (same second, size,
 * inode): only the racy rule, applied to the folder, lists it again. */
START_TEST(test_racy_folder_in_the_same_second)
{
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	char id[16];
	int tries;

	tm_paths_index__coarse_times(true);
	for (tries = 0; tries < 3; tries++) {
		early_in_a_second();
		snprintf(id, sizeof(id), "p%d", tries);
		write_thread(id, 3);
		ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
						     TM_PATHS_INDEX_ALL, &o),
				 0);
		tm_paths_index_list_clear(&l);
		ck_assert(o.written);
		snprintf(id, sizeof(id), "q%d", tries);
		write_thread(id, 2); /* the same second */
		ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
						     TM_PATHS_INDEX_ALL, &o),
				 0);
		ck_assert(o.listed);
		ck_assert_str_eq(l.threads[l.n - 1]->id, id);
		tm_paths_index_list_clear(&l);
	}
	tm_paths_index__coarse_times(false);
	check_answers();
}
END_TEST

/* The lstat pass: as git's preload-index, one thread per 500 files up to
 * the online CPUs, one with core.preloadIndex false; forced counts give
 * the answers of one thread, edits in place included. */
START_TEST(test_stat_threads)
{
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l, full;
	unsigned k, t;
	char id[16];

	tm_buf b = TM_BUF_INIT;
	for (k = 0; k < 1600; k++) {
		char *f;

		snprintf(id, sizeof(id), "m%04u", k);
		f = file_of(id);
		content(&b, id, k);
		tmt_write_file(f, b.ptr, b.size);
		free(f);
	}
	tm_buf_release(&b);
	usleep(30000);
	tm_parallel__cpus(8);
	check_answers(); /* builds the index */
	usleep(30000);
	ck_assert_int_eq(
		tm_paths_index_load(&l, store, "app", TM_PATHS_INDEX_ALL, &o),
		0);
	tm_paths_index_list_clear(&l);
	ck_assert_uint_eq(o.stat_threads, 3); /* 1601 files / 500 */
	tm_parallel__cpus(2);
	ck_assert_int_eq(
		tm_paths_index_load(&l, store, "app", TM_PATHS_INDEX_ALL, &o),
		0);
	tm_paths_index_list_clear(&l);
	ck_assert_uint_eq(o.stat_threads, 2); /* the CPUs */
	tmt_sh("git -C '%s' config core.preloadIndex false", repo);
	tm_store_free(store);
	ck_assert_int_eq(tm_store_open(&store, repo), 0);
	ck_assert_int_eq(
		tm_paths_index_load(&l, store, "app", TM_PATHS_INDEX_ALL, &o),
		0);
	tm_paths_index_list_clear(&l);
	ck_assert_uint_eq(o.stat_threads, 1);
	tm_parallel__cpus(0);
	/* forced counts, an edit in place in each slice */
	for (t = 1; t <= 7; t += 3) {
		tm_paths_index_options f = TM_PATHS_INDEX_OPTIONS_INIT;

		f.threads = t;
		/* settle: the last round's edits read again with a stamp past
		 * them, so that only this round's edits are read below */
		usleep(30000);
		ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
						     TM_PATHS_INDEX_ALL, &o),
				 0);
		tm_paths_index_list_clear(&l);
		for (k = 0; k < t; k++) {
			snprintf(id, sizeof(id), "m%04u", 1600 / t * k + 7);
			edit_in_place(id, 1600 / t * k + 7);
		}
		ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
						     TM_PATHS_INDEX_ALL, &f),
				 0);
		ck_assert_uint_eq(f.stat_threads, t);
		ck_assert_uint_eq(f.reread, t);
		f.no_index = true;
		ck_assert_int_eq(tm_paths_index_load(&full, store, "app",
						     TM_PATHS_INDEX_ALL, &f),
				 0);
		expect_same(&l, &full, true);
		tm_paths_index_list_clear(&l);
		tm_paths_index_list_clear(&full);
	}
	{ /* a forced count is bounded too */
		tm_paths_index_options f = TM_PATHS_INDEX_OPTIONS_INIT;

		f.threads = 25;
		ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
						     TM_PATHS_INDEX_ALL, &f),
				 0);
		ck_assert_uint_eq(f.stat_threads, 20);
		tm_paths_index_list_clear(&l);
	}
	check_answers();
}
END_TEST

/* Each way of damaging the index file: the answer stays, the file is
 * rewritten. */
START_TEST(test_damaged_index_is_rebuilt)
{
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	char *ix = NULL, *data;
	size_t len;
	unsigned k;

	for (k = 0; k < 12; k++) {
		char id[16];

		snprintf(id, sizeof(id), "x%u", k);
		write_thread(id, k);
	}
	usleep(30000); /* indexed in a later clock tick: none racy */
	check_answers();
	ix = tm_paths_index_file(store, "app");
	ck_assert_ptr_nonnull(ix);
	data = tmt_read_file(ix, &len);
	ck_assert_ptr_nonnull(data);
	ck_assert_uint_gt(len, 100);
	switch (_i) {
	case 0: /* truncated */
		tmt_write_file(ix, data, len / 2);
		break;
	case 1: /* one byte flipped in the payload */
		data[len - 20] ^= 0x40;
		tmt_write_file(ix, data, len);
		break;
	case 2: /* foreign magic */
		memcpy(data, "TMSTALE1", 8);
		tmt_write_file(ix, data, len);
		break;
	case 3: /* empty */
		tmt_write_file(ix, "", 0);
		break;
	case 4: /* garbage */
		memset(data, 0xff, len);
		tmt_write_file(ix, data, len);
		break;
	case 5: { /* another folder's index, valid in itself */
		tm_paths_index_options no = TM_PATHS_INDEX_OPTIONS_INIT;
		tm_paths_index_list a, b;
		char *other, *pid = NULL;

		ck_assert_int_eq(
			tm_store_create_project(&pid, store, "Other", NULL), 0);
		other = tm_paths_index_file(store, pid);
		ck_assert_str_ne(other, ix);
		tmt_sh("mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", other,
		       ix, other);
		ck_assert_int_eq(tm_paths_index_load(&a, store, pid,
						     TM_PATHS_INDEX_ALL, &o),
				 0);
		ck_assert(o.written);
		ck_assert_uint_eq(o.reread, a.n);
		no.no_index = true;
		ck_assert_int_eq(tm_paths_index_load(&b, store, pid,
						     TM_PATHS_INDEX_ALL, &no),
				 0);
		ck_assert_uint_ge(a.n, 1);
		expect_same(&a, &b, true);
		tm_paths_index_list_clear(&a);
		tm_paths_index_list_clear(&b);
		free(other);
		free(pid);
		break;
	}
	case 6: /* a folder where the file goes: not writable, no error */
		unlink(ix);
		tmt_mkdirs(ix);
		break;
	default:
		break;
	}
	free(data);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	tm_paths_index_list_clear(&l);
	ck_assert(o.written == (_i < 5));
	check_answers();
	free(ix);
}
END_TEST

/* An index whose hash is right but which names a file outside the
 * folder: ignored as a whole, never used as a file name. */
START_TEST(test_forged_name_is_refused)
{
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	char *ix, *data, *at;
	size_t len, i;
	uint64_t h;

	write_thread("ab", 2);
	check_answers();
	ix = tm_paths_index_file(store, "app");
	data = tmt_read_file(ix, &len);
	/* the id "ab": its length (2, little-endian u64), "ab", NUL */
	at = NULL;
	for (i = 0; i + 11 <= len && !at; i++)
		if (!memcmp(data + i, "\2\0\0\0\0\0\0\0ab", 11))
			at = data + i + 8;
	ck_assert_ptr_nonnull(at);
	memcpy(at, "..", 2);
	h = tm_record_sum(data + TM_RECORD_FRAME_LEN,
			  len - TM_RECORD_FRAME_LEN);
	for (i = 0; i < 8; i++)
		data[16 + i] = (char)(unsigned char)(h >> (8 * i));
	tmt_write_file(ix, data, len);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	ck_assert(o.written); /* rebuilt */
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.threads[0]->id, "ab");
	tm_paths_index_list_clear(&l);
	check_answers();
	free(data);
	free(ix);
}
END_TEST

/* Fields are decoded only when output: a forged entry with a right
 * checksum (a path whose length runs past the entry, or NULL) is read
 * safely, its bad paths left out, never a NULL path. */
START_TEST(test_forged_fields_are_read_safely)
{
	static const uint64_t lens[] = {UINT64_MAX - 1, UINT64_MAX, 1000};
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	char *ix, *data, *at;
	size_t len, i, k;
	uint64_t h;

	write_thread("ab", 2); /* paths: ["src/a"] */
	usleep(30000);         /* indexed in a later tick: not racy */
	check_answers();
	ix = tm_paths_index_file(store, "app");
	for (k = 0; k < sizeof(lens) / sizeof(*lens); k++) {
		data = tmt_read_file(ix, &len);
		at = NULL;
		for (i = 0; i + 13 <= len && !at; i++)
			if (!memcmp(data + i, "\5\0\0\0\0\0\0\0src/a", 13))
				at = data + i;
		ck_assert_ptr_nonnull(at);
		for (i = 0; i < 8; i++)
			at[i] = (char)(unsigned char)(lens[k] >> (8 * i));
		h = tm_record_sum(data + TM_RECORD_FRAME_LEN,
				  len - TM_RECORD_FRAME_LEN);
		for (i = 0; i < 8; i++)
			data[16 + i] = (char)(unsigned char)(h >> (8 * i));
		tmt_write_file(ix, data, len);
		ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
						     TM_PATHS_INDEX_WITH_PATHS,
						     &o),
				 0);
		ck_assert_uint_eq(l.n, 1);
		ck_assert_str_eq(l.threads[0]->id, "ab");
		ck_assert_uint_le(l.threads[0]->paths.n, 1);
		for (i = 0; i < l.threads[0]->paths.n; i++)
			ck_assert_ptr_nonnull(l.threads[0]->paths.items[i]);
		tm_paths_index_list_clear(&l);
		free(data);
		unlink(ix); /* the next round forges a right one again */
		check_answers();
	}
	free(ix);
}
END_TEST

/* The fake clock of the deadline: 1 ms a read. */
static double fake_now;

static double fake_clock(void)
{
	return fake_now += 0.001;
}

/* The reads stop at the deadline (deadline.h, the hooks' one clock):
 * the list says it is incomplete, and what was read is kept in the
 * index, so that the next load goes on from there (issue 24: a hook that
 * saved nothing started over every time). */
START_TEST(test_deadline_cuts_short_keeping_what_was_read)
{
	tm_paths_index_options o = TM_PATHS_INDEX_OPTIONS_INIT;
	tm_paths_index_list l;
	char *ix;
	size_t first;
	unsigned k;

	for (k = 0; k < 6; k++) {
		char id[16];

		snprintf(id, sizeof(id), "s%u", k);
		write_thread(id, 2);
	}
	fake_now = 0;
	tm_deadline__set_clock(fake_clock);
	tm_deadline_set(0.0045); /* a few clock reads: two files */
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	tm_deadline_clear();
	tm_deadline__set_clock(NULL);
	ck_assert(o.cut_short);
	ck_assert_uint_gt(o.reread, 0);
	ck_assert_uint_lt(o.reread, 6);
	ck_assert_uint_lt(l.n, 6);
	ck_assert(o.written);
	first = o.reread;
	tm_paths_index_list_clear(&l);
	ix = tm_paths_index_file(store, "app");
	ck_assert_int_eq(access(ix, F_OK), 0);
	free(ix);
	/* the next load reads only what the first did not, lists the
	   folder again (its record was left out) and answers in full */
	ck_assert_int_eq(tm_paths_index_load(&l, store, "app",
					     TM_PATHS_INDEX_WITH_PATHS, &o),
			 0);
	ck_assert(!o.cut_short);
	ck_assert(o.listed);
	ck_assert_uint_eq(o.reread, 7 - first); /* with main.md */
	tm_paths_index_list_clear(&l);
	check_answers();
	/* a deadline passed before the first read: nothing read at all,
	   nothing written */
	ix = tm_paths_index_file(store, "app");
	ck_assert_int_eq(unlink(ix), 0);
	tm_deadline_set(0);
	ck_assert_int_eq(
		tm_paths_index_load(&l, store, "app", TM_PATHS_INDEX_ALL, &o),
		0);
	tm_deadline_clear();
	ck_assert(o.cut_short);
	ck_assert(!o.written);
	ck_assert_int_ne(access(ix, F_OK), 0);
	free(ix);
	ck_assert_uint_eq(o.reread, 0);
	ck_assert_uint_eq(l.n, 0);
	tm_paths_index_list_clear(&l);
	check_answers();
}
END_TEST

START_TEST(test_missing_folder_and_bad_project)
{
	tm_paths_index_list l;

	ck_assert_int_eq(tm_paths_index_load(&l, store, "nope",
					     TM_PATHS_INDEX_ALL, NULL),
			 0);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_int_eq(tm_paths_index_load(&l, store, "../x",
					     TM_PATHS_INDEX_ALL, NULL),
			 TM_EINVALID);
	ck_assert_uint_eq(l.n, 0);
}
END_TEST

/* Loads in parallel while files change: every answer right, the index
 * left valid. */
START_TEST(test_concurrent_loads)
{
	pid_t pids[4];
	int i, status;
	unsigned k;

	for (k = 0; k < 40; k++) {
		char id[16];

		snprintf(id, sizeof(id), "c%02u", k);
		write_thread(id, k);
	}
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			tm_paths_index_list l;
			int r, bad = 0;

			for (r = 0; r < 15; r++) {
				char id[16];

				snprintf(id, sizeof(id), "c%02d",
					 (r * 7 + i) % 40);
				write_thread(id, (unsigned)(r + i));
				if (tm_paths_index_load(&l, store, "app",
							TM_PATHS_INDEX_ALL,
							NULL) < 0)
					bad = 1;
				tm_paths_index_list_clear(&l);
			}
			_exit(bad);
		}
	}
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	check_answers();
}
END_TEST

Suite *paths_index_suite(void)
{
	Suite *s = suite_create("paths_index");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_random_stores_match_the_full_read, 0, 6);
	tcase_add_test(tc, test_racy_edit_in_the_same_second);
	tcase_add_test(tc, test_unchanged_store_reads_no_file);
	tcase_add_test(tc, test_folder_listing_is_reused);
	tcase_add_test(tc, test_racy_folder_in_the_same_second);
	tcase_add_test(tc, test_stat_threads);
	tcase_add_loop_test(tc, test_damaged_index_is_rebuilt, 0, 7);
	tcase_add_test(tc, test_forged_name_is_refused);
	tcase_add_test(tc, test_forged_fields_are_read_safely);
	tcase_add_test(tc, test_deadline_cuts_short_keeping_what_was_read);
	tcase_add_test(tc, test_missing_folder_and_bad_project);
	tcase_add_test(tc, test_concurrent_loads);
	suite_add_tcase(s, tc);
	return s;
}
