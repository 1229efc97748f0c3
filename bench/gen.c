/*
 * bench/gen: make a synthetic repository for the benchmarks (DESIGN.md §8).
 *
 *   gen DIR THREADS COMMITS [SEED]
 *
 * DIR becomes a git repository with COMMITS commits (made through
 * `git fast-import`: 1 to 3 files changed each, under src/d00..d99/) and a
 * ThreadMind store of THREADS threads: a random tree of depth at most 8,
 * `paths` on every other thread (one or two src/dNN folders), `commit` a
 * random commit of the history, `branch` main, written with the library.
 */
#include "lib/threadmind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned long long rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void die(const char *what)
{
	fprintf(stderr, "gen: %s: %s\n", what, tm_error_last());
	exit(1);
}

static void sh(const char *cmd)
{
	if (system(cmd) != 0) {
		fprintf(stderr, "gen: failed: %s\n", cmd);
		exit(1);
	}
}

/* The history, through fast-import; the marks file maps :N to shas. */
static char **make_history(const char *dir, unsigned ncommits)
{
	char cmd[4096], line[256];
	char **shas = calloc(ncommits + 1, sizeof(char *));
	FILE *f;
	unsigned c, k;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && git fast-import --quiet "
		 "--export-marks=.git/bench-marks",
		 dir);
	f = popen(cmd, "w");
	if (!f)
		die("fast-import");
	for (c = 1; c <= ncommits; c++) {
		unsigned nfiles = 1 + rnd(3);

		fprintf(f, "commit refs/heads/main\nmark :%u\n", c);
		fprintf(f, "committer Bench <bench@example.com> %u +0000\n",
			1700000000u + c * 60);
		fprintf(f, "data <<EOF\ncommit %u\nEOF\n", c);
		if (c > 1)
			fprintf(f, "from :%u\n", c - 1);
		for (k = 0; k < nfiles; k++) {
			fprintf(f, "M 100644 inline src/d%02u/f%u.txt\n",
				rnd(100), rnd(10));
			fprintf(f, "data <<EOF\n%u %u\nEOF\n", c, k);
		}
		fputc('\n', f);
	}
	if (pclose(f) != 0)
		die("fast-import");
	snprintf(cmd, sizeof(cmd), "%s/.git/bench-marks", dir);
	f = fopen(cmd, "r");
	if (!f)
		die("marks");
	while (fgets(line, sizeof(line), f)) {
		unsigned mark;
		char sha[41];

		if (sscanf(line, ":%u %40s", &mark, sha) == 2 && mark >= 1 &&
		    mark <= ncommits)
			shas[mark] = strdup(sha);
	}
	fclose(f);
	return shas;
}

static const char summary[] = "## Decisions\n- one\n- two\n\n## State\n"
			      "- working on it\n";

/* Plain writes: the generator does not need the store's fsyncs. */
static void write_thread(const char *dir, const tm_thread *t)
{
	tm_buf data = TM_BUF_INIT;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/.threadmind/threads/bench/%s.md", dir,
		 t->id);
	tm_frontmatter_write(&data, t);
	f = fopen(path, "w");
	if (!f || fwrite(data.ptr, 1, data.size, f) != data.size ||
	    fclose(f) != 0)
		die(path);
	tm_buf_release(&data);
}

int main(int argc, char **argv)
{
	unsigned nthreads, ncommits, i;
	char cmd[4096], **shas;
	unsigned *depth;
	tm_store *s = NULL;
	tm_strv ids = TM_STRV_INIT;

	if (argc < 4) {
		fprintf(stderr, "usage: gen DIR THREADS COMMITS [SEED]\n");
		return 2;
	}
	nthreads = (unsigned)atoi(argv[2]);
	ncommits = (unsigned)atoi(argv[3]);
	if (argc > 4)
		rng ^= strtoull(argv[4], NULL, 10) * 2654435761ULL;
	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s' && git init -q -b main '%s' && "
		 "git -C '%s' config user.name Bench && "
		 "git -C '%s' config user.email bench@example.com",
		 argv[1], argv[1], argv[1], argv[1]);
	sh(cmd);
	shas = make_history(argv[1], ncommits);
	snprintf(cmd, sizeof(cmd), "cd '%s' && git checkout -q -f main",
		 argv[1]);
	sh(cmd);
	if (tm_store_init(&s, argv[1], "Bench", NULL) < 0)
		die("init");
	depth = calloc(nthreads + 1, sizeof(unsigned));
	tm_strv_push(&ids, "main");
	for (i = 1; i < nthreads; i++) {
		tm_thread *t = tm_thread_new();
		char id[32], title[64], when[TM_TIME_LEN + 1];
		unsigned parent;

		do
			parent = rnd(i);
		while (depth[parent] >= 8);
		depth[i] = depth[parent] + 1;
		snprintf(id, sizeof(id), "t%05u", i);
		snprintf(title, sizeof(title), "Thread %u: part %u", i,
			 rnd(1000));
		tm_strv_push(&ids, id);
		t->id = strdup(id);
		t->title = strdup(title);
		t->parent_id = strdup(ids.items[parent]);
		t->author = strdup("bench-0000");
		tm_time_format(when, 1700000000000LL + (int64_t)i * 1000);
		t->created_at = strdup(when);
		t->updated_at = strdup(when);
		t->branch = strdup("main");
		t->commit = strdup(shas[1 + rnd(ncommits)]);
		if (i % 2 == 0) {
			char p[32];

			t->has_paths = true;
			snprintf(p, sizeof(p), "src/d%02u", rnd(100));
			tm_strv_push(&t->paths, p);
			if (rnd(2)) {
				snprintf(p, sizeof(p), "src/d%02u", rnd(100));
				tm_strv_push(&t->paths, p);
			}
		}
		tm_thread_set_summary(t, summary, strlen(summary));
		write_thread(argv[1], t);
		tm_thread_free(t);
	}
	tm_store_free(s);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && git add .threadmind && git commit -q -m threads",
		 argv[1]);
	sh(cmd);
	tm_strv_clear(&ids);
	for (i = 0; i <= ncommits; i++)
		free(shas[i]);
	free(shas);
	free(depth);
	return 0;
}
