/*
 * bench/gen: make the repositories of the benchmarks (DESIGN.md §8).
 *
 *   gen [-r|-g] DIR THREADS COMMITS [SEED]   a repository
 *   gen -m DIR CASES [SEED]               a merge-driver corpus
 *   gen -V                                the generator's version
 *
 * DIR becomes a git repository with COMMITS commits, streamed through
 * `git fast-import` (one process per 50,000 commits; the generator keeps
 * only the shas the threads name, so 1,000,000 commits take no more
 * memory than 100,000): topic branches forked from main and merged
 * back (about 10% of the commits are merges, the topic's files taking the
 * merge's side), files renamed (pure renames, about 2% of the commits on
 * main) and files added, then a ThreadMind store of THREADS threads: a
 * random tree of depth at most 8, `commit` a random commit of the history,
 * `branch` main, written with the library; then one commit adding the
 * store and a last one changing three files, so that HEAD is a commit that
 * `hook post-commit` has work for.
 *
 * Synthetic (default): files src/d00..d99/fN.txt changed uniformly, 1 to 3
 * per commit, `paths` on every other thread (one or two src/dNN folders),
 * every thread active.  Real-shaped (-r): about 40 folders of a project
 * with real-looking names, changes skewed towards a few hot files (1 to 8
 * per commit, now and then 20), `paths` on 70% of the threads (folders,
 * files and globs), 15% done and 5% abandoned, slugs for ids.  Git-shaped
 * (-g): real-shaped, merge-heavy like git/git (about 25% of the commits
 * are merges, half of them on topic branches): a topic opens as soon as
 * the last one is merged, 1 to 3 commits each.
 *
 * The corpus (-m): CASES folders cNNN/ each holding O, A and B, three
 * versions of one thread file where A and B change different things (a
 * title, a status, a section item, `paths`, updatedAt on both sides).
 *
 * Deterministic for a given SEED.  bench/run and bench/huge keep what it
 * generated under build/bench/ and build/bench-huge/, keyed by GEN_VERSION
 * and the checksum of this file, each repository marked with its
 * arguments.
 */
#include "threadmind/threadmind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GEN_VERSION "4"

static unsigned long long rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Biased towards small values: a few hot entries, a long tail. */
static unsigned rnd_skew(unsigned n)
{
	unsigned a = rnd(n), b = rnd(n);

	return (unsigned)((unsigned long long)a * b / n);
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

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "gen: out of memory\n");
		exit(1);
	}
	return p;
}

static bool real_shape, git_shape;

/* ---- names ---- */

static const char *const real_dirs[] = {
	"src/core",
	"src/core/io",
	"src/core/memory",
	"src/net",
	"src/net/http",
	"src/net/tls",
	"src/net/dns",
	"src/ui",
	"src/ui/widgets",
	"src/ui/themes",
	"src/db",
	"src/db/migrations",
	"src/db/query",
	"src/auth",
	"src/auth/oauth",
	"src/api",
	"src/api/v1",
	"src/api/v2",
	"src/util",
	"src/cli",
	"src/sync",
	"src/search",
	"src/search/index",
	"src/plugins",
	"lib/parser",
	"lib/format",
	"lib/compress",
	"include/project",
	"docs",
	"docs/guide",
	"docs/api",
	"tests/unit",
	"tests/integration",
	"tests/fixtures",
	"scripts",
	"tools/build",
	"tools/release",
	"packaging/debian",
	".github/workflows",
	"config",
};
#define NDIRS (sizeof(real_dirs) / sizeof(*real_dirs))

static const char *const words[] = {
	"client", "server", "handler", "session", "cache",  "parser",
	"lexer",  "buffer", "stream",  "pool",    "worker", "queue",
	"router", "config", "logger",  "metrics", "token",  "schema",
	"index",  "query",  "cursor",  "writer",  "reader", "codec",
	"retry",  "limit",  "backoff", "dialog",  "layout", "theme",
	"render", "store",  "commit",  "merge",   "diff",   "patch",
	"upload", "export", "import",  "scanner", "filter", "events",
};
#define NWORDS (sizeof(words) / sizeof(*words))

static const char *dir_ext(const char *dir)
{
	if (!strncmp(dir, "docs", 4))
		return ".md";
	if (!strncmp(dir, "scripts", 7) || !strncmp(dir, "tools", 5))
		return ".sh";
	if (!strncmp(dir, "include", 7))
		return ".h";
	if (!strcmp(dir, "src/db/migrations"))
		return ".sql";
	if (!strncmp(dir, ".github", 7) || !strcmp(dir, "config"))
		return ".yml";
	if (!strncmp(dir, "tests", 5))
		return "_test.c";
	return rnd(3) ? ".c" : ".h";
}

/* ---- the history ---- */

struct file {
	char path[128];
};

static struct file *files;
static unsigned nfiles, files_alloc, name_seq;

static void add_file(const char *path)
{
	if (nfiles == files_alloc) {
		files_alloc = files_alloc ? 2 * files_alloc : 1024;
		files = xrealloc(files, files_alloc * sizeof(*files));
	}
	snprintf(files[nfiles++].path, sizeof(files->path), "%s", path);
}

/* A new file name, never used before. */
static void new_name(char *out, size_t len)
{
	name_seq++;
	if (real_shape) {
		const char *dir = real_dirs[rnd_skew(NDIRS)];

		snprintf(out, len, "%s/%s_%s%u%s", dir, words[rnd(NWORDS)],
			 words[rnd(NWORDS)], name_seq, dir_ext(dir));
	} else {
		snprintf(out, len, "src/d%02u/n%u.txt", rnd(100), name_seq);
	}
}

static unsigned pick_file(unsigned below)
{
	return real_shape ? rnd_skew(below) : rnd(below);
}

static unsigned changes_per_commit(void)
{
	if (!real_shape)
		return 1 + rnd(3);
	if (rnd(100) == 0)
		return 20;
	return 1 + rnd_skew(8);
}

/* The topic branch, open or not; at most one at a time. */
struct topic {
	bool open;
	unsigned fork_files;            /* files that existed at the fork */
	unsigned want, made;            /* its commits, planned and made */
	unsigned tip;                   /* mark of its last commit */
	unsigned *idx, *blob, n, alloc; /* what it changed: file, blob */
};

static unsigned blob_mark;

static void topic_change(struct topic *t, unsigned idx, unsigned blob)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		if (t->idx[i] == idx) {
			t->blob[i] = blob;
			return;
		}
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 16;
		t->idx = xrealloc(t->idx, t->alloc * sizeof(unsigned));
		t->blob = xrealloc(t->blob, t->alloc * sizeof(unsigned));
	}
	t->idx[t->n] = idx;
	t->blob[t->n++] = blob;
}

struct hist_stats {
	unsigned merges, renames, added;
};

static void commit_header(FILE *f, const char *ref, unsigned mark)
{
	fprintf(f, "commit %s\nmark :%u\n", ref, mark);
	fprintf(f, "committer Bench <bench@example.com> %u +0000\n",
		1700000000u + mark * 60);
}

/*
 * The commits each thread names, picked before the history is written so
 * that only their shas are kept (1,000,000 commits would otherwise keep
 * 1,000,000 shas).  A stream of its own, so that the history's does not
 * depend on the number of threads.
 */
struct wanted {
	unsigned mark, thread;
};

static struct wanted *wanted;
static unsigned nwanted;
static char (*thread_sha)[41];

static int cmp_wanted(const void *a, const void *b)
{
	const struct wanted *x = a, *y = b;

	return x->mark < y->mark ? -1 : x->mark > y->mark;
}

static void pick_thread_commits(unsigned nthreads, unsigned ncommits,
				unsigned long long seed)
{
	unsigned long long saved = rng;
	unsigned i;

	rng = 0x9e3779b97f4a7c15ULL ^ (seed * 0xff51afd7ed558ccdULL);
	wanted = xrealloc(NULL, (nthreads + 1) * sizeof(*wanted));
	thread_sha = xrealloc(NULL, (nthreads + 1) * sizeof(*thread_sha));
	memset(thread_sha, 0, (nthreads + 1) * sizeof(*thread_sha));
	for (i = 1; i < nthreads; i++) {
		wanted[nwanted].mark = 1 + rnd(ncommits);
		wanted[nwanted++].thread = i;
	}
	qsort(wanted, nwanted, sizeof(*wanted), cmp_wanted);
	rng = saved;
}

/* A marks file's line ":MARK SHA": the sha of every thread naming MARK. */
static void keep_mark(unsigned mark, const char *sha)
{
	size_t lo = 0, hi = nwanted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (wanted[mid].mark < mark)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nwanted && wanted[lo].mark == mark; lo++)
		snprintf(thread_sha[wanted[lo].thread], 41, "%s", sha);
}

/*
 * One fast-import process writes at most this many commits: fast-import
 * keeps a table entry for every object it wrote, so a 1,000,000-commit
 * history is written by 20 processes in turn, each starting from the main
 * branch the last one left (no topic branch is open across the boundary).
 */
#ifndef SESSION_COMMITS
#define SESSION_COMMITS 50000u
#endif

static void put_from(FILE *f, unsigned mark, unsigned base)
{
	if (mark > base)
		fprintf(f, "from :%u\n", mark);
	else
		fprintf(f, "from refs/heads/main^0\n");
}

/*
 * Commits 1..ncommits through fast-import (the marks files map :N to
 * shas); the shas of the commits the threads name go to thread_sha.
 */
static void make_history(const char *dir, unsigned ncommits,
			 struct hist_stats *st)
{
	char cmd[4096], line[256];
	struct topic tp = {0};
	unsigned c, k, main_tip = 0, d, i, base, end;
	FILE *f;

	for (base = 0; base < ncommits; base = end) {
		end = ncommits - base > SESSION_COMMITS ? base + SESSION_COMMITS
							: ncommits;
		if (base)
			fprintf(stderr, "gen: %s: %u of %u commits\n", dir,
				base, ncommits);
		snprintf(cmd, sizeof(cmd),
			 "cd '%s' && git fast-import --quiet "
			 "--export-marks=.git/bench-marks",
			 dir);
		f = popen(cmd, "w");
		if (!f)
			die("fast-import");
		blob_mark = ncommits + 1;
		c = base + 1;
		if (!base) {
			/* commit 1: the initial tree */
			commit_header(f, "refs/heads/main", 1);
			fprintf(f, "data <<EOF\nInitial import\nEOF\n");
			if (real_shape) {
				for (d = 0; d < NDIRS; d++)
					for (i = 0; i < 15; i++) {
						snprintf(line, sizeof(line),
							 "%s/%s%s",
							 real_dirs[d],
							 words[(d * 7 + i) %
							       NWORDS],
							 dir_ext(real_dirs[d]));
						/* names can repeat within a
						 * folder: skip */
						for (k = 0; k < nfiles; k++)
							if (!strcmp(files[k].path,
								    line))
								break;
						if (k < nfiles)
							continue;
						add_file(line);
					}
			} else {
				for (d = 0; d < 100; d++)
					for (i = 0; i < 10; i++) {
						snprintf(line, sizeof(line),
							 "src/d%02u/f%u.txt", d,
							 i);
						add_file(line);
					}
			}
			for (k = 0; k < nfiles; k++)
				fprintf(f,
					"M 100644 inline %s\ndata <<EOF\n"
					"init %u\nEOF\n",
					files[k].path, k);
			fputc('\n', f);
			main_tip = 1;
			c = 2;
		}
		for (; c <= end; c++) {
			unsigned n = changes_per_commit();

			if (tp.open && !tp.made && c == end)
				tp.open = false; /* nothing to merge */
			if (tp.open && (tp.made == tp.want || c == end)) {
				/* merge the topic: its files take the merge's
				 * side */
				commit_header(f, "refs/heads/main", c);
				fprintf(f,
					"data <<EOF\nMerge branch "
					"'topic-%u'\nEOF\n",
					c);
				put_from(f, main_tip, base);
				fprintf(f, "merge :%u\n", tp.tip);
				for (i = 0; i < tp.n; i++)
					fprintf(f, "M 100644 :%u %s\n",
						tp.blob[i],
						files[tp.idx[i]].path);
				fputc('\n', f);
				main_tip = c;
				tp.open = false;
				st->merges++;
				continue;
			}
			if (!tp.open && c + 8 < end &&
			    rnd(100) < (git_shape ? 100u : 22u)) {
				tp.open = true;
				tp.fork_files = nfiles;
				tp.want = 1 + rnd(git_shape ? 3 : 4);
				tp.made = 0;
				tp.tip = main_tip;
				tp.n = 0;
			}
			if (tp.open && rnd(3)) {
				/* a topic commit: blobs with marks, for the
				 * merge */
				for (k = 0; k < n; k++) {
					unsigned idx = pick_file(tp.fork_files);

					fprintf(f,
						"blob\nmark :%u\ndata <<EOF\n"
						"%u %u topic\nEOF\n",
						blob_mark, c, k);
					topic_change(&tp, idx, blob_mark++);
				}
				commit_header(f, "refs/heads/topic", c);
				fprintf(f,
					"data <<EOF\ntopic: change %u\nEOF\n",
					c);
				put_from(f, tp.tip, base);
				for (i = 0; i < tp.n; i++)
					fprintf(f, "M 100644 :%u %s\n",
						tp.blob[i],
						files[tp.idx[i]].path);
				fputc('\n', f);
				tp.tip = c;
				tp.made++;
				continue;
			}
			commit_header(f, "refs/heads/main", c);
			fprintf(f, "data <<EOF\nchange %u\nEOF\n", c);
			put_from(f, main_tip, base);
			/* renames only while no topic is open, so that a
			 * topic never changes a path main has moved */
			if (!tp.open && rnd(100) < (real_shape ? 4 : 3)) {
				char to[128];
				unsigned idx = rnd(nfiles);

				new_name(to, sizeof(to));
				fprintf(f, "R %s %s\n", files[idx].path, to);
				snprintf(files[idx].path, sizeof(files->path),
					 "%s", to);
				st->renames++;
				n = rnd(2);
			}
			if (real_shape && rnd(100) < 5) {
				char to[128];

				new_name(to, sizeof(to));
				add_file(to);
				fprintf(f,
					"M 100644 inline %s\ndata <<EOF\nnew "
					"%u\nEOF\n",
					to, c);
				st->added++;
			}
			for (k = 0; k < n; k++)
				fprintf(f,
					"M 100644 inline %s\ndata <<EOF\n%u "
					"%u\nEOF\n",
					files[pick_file(nfiles)].path, c, k);
			fputc('\n', f);
			main_tip = c;
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

			if (sscanf(line, ":%u %40s", &mark, sha) == 2 &&
			    mark > base && mark <= end)
				keep_mark(mark, sha);
		}
		fclose(f);
	}
	free(tp.idx);
	free(tp.blob);
}

/* ---- threads ---- */

static const char summary[] = "## Decisions\n- one\n- two\n\n## State\n"
			      "- working on it\n";

static const char *const verbs[] = {
	"Fix",    "Refactor", "Add",  "Speed up", "Rework",
	"Remove", "Document", "Port", "Harden",   "Split",
};

/* A real-looking summary, a few sections of a few items. */
static void real_summary(tm_buf *b)
{
	static const char *const heads[] = {"Decisions", "State", "Next",
					    "Open questions", "Notes"};
	unsigned s, i, ni, ns = 2 + rnd(3);

	for (s = 0; s < ns; s++) {
		if (s)
			tm_buf_putc(b, '\n');
		tm_buf_printf(b, "## %s\n", heads[s]);
		for (i = 0, ni = 1 + rnd(5); i < ni; i++)
			tm_buf_printf(b, "- %s the %s %s before the %s (%u)\n",
				      verbs[rnd(10)], words[rnd(NWORDS)],
				      words[rnd(NWORDS)], words[rnd(NWORDS)],
				      rnd(1000));
	}
}

/* Plain writes: the generator does not need the store's fsyncs. */
static void write_file(const char *path, const tm_thread *t)
{
	tm_buf data = TM_BUF_INIT;
	FILE *f;

	tm_frontmatter_write(&data, t);
	f = fopen(path, "w");
	if (!f || fwrite(data.ptr, 1, data.size, f) != data.size ||
	    fclose(f) != 0)
		die(path);
	tm_buf_release(&data);
}

static void real_paths(tm_thread *t)
{
	unsigned k, n = 1 + rnd_skew(3);
	char p[160];

	t->has_paths = true;
	for (k = 0; k < n; k++) {
		const char *dir = real_dirs[rnd_skew(NDIRS)];

		switch (rnd(4)) {
		case 0: /* a file */
			snprintf(p, sizeof(p), "%s",
				 files[rnd_skew(nfiles)].path);
			break;
		case 1: /* a glob */
			snprintf(p, sizeof(p), "%s/*%s", dir, dir_ext(dir));
			break;
		default: /* a folder */
			snprintf(p, sizeof(p), "%s", dir);
		}
		tm_strv_push(&t->paths, p);
	}
}

static void real_title(char *out, size_t len, unsigned i)
{
	snprintf(out, len, "%s %s %s (%u)", verbs[rnd(10)], words[rnd(NWORDS)],
		 words[rnd(NWORDS)], i);
}

static void make_threads(const char *dir, unsigned nthreads)
{
	char path[4096];
	tm_store *s = NULL;
	tm_strv ids = TM_STRV_INIT;
	unsigned *depth, i;

	if (tm_store_init(&s, dir, "Bench", NULL) < 0)
		die("init");
	depth = calloc(nthreads + 1, sizeof(unsigned));
	tm_strv_push(&ids, "main");
	for (i = 1; i < nthreads; i++) {
		tm_thread *t = tm_thread_new();
		char id[64], title[128], when[TM_TIME_LEN + 1];
		unsigned parent;
		tm_buf body = TM_BUF_INIT;

		do
			parent = rnd(i);
		while (depth[parent] >= 8);
		depth[i] = depth[parent] + 1;
		if (real_shape) {
			real_title(title, sizeof(title), i);
			snprintf(id, sizeof(id), "%s-%s-%u", words[rnd(NWORDS)],
				 words[rnd(NWORDS)], i);
		} else {
			snprintf(id, sizeof(id), "t%05u", i);
			snprintf(title, sizeof(title), "Thread %u: part %u", i,
				 rnd(1000));
		}
		tm_strv_push(&ids, id);
		t->id = strdup(id);
		t->title = strdup(title);
		t->parent_id = strdup(ids.items[parent]);
		t->author = strdup("bench-0000");
		tm_time_format(when, 1700000000000LL + (int64_t)i * 1000);
		t->created_at = strdup(when);
		t->updated_at = strdup(when);
		t->branch = strdup("main");
		if (!thread_sha[i][0]) {
			fprintf(stderr, "gen: no sha for thread %u\n", i);
			exit(1);
		}
		t->commit = strdup(thread_sha[i]);
		if (real_shape) {
			unsigned r = rnd(100);

			if (r < 15)
				t->status = strdup("done");
			else if (r < 20)
				t->status = strdup("abandoned");
			if (rnd(100) < 70)
				real_paths(t);
			real_summary(&body);
			tm_thread_set_summary(t, body.ptr, body.size);
			tm_buf_release(&body);
		} else {
			if (i % 2 == 0) {
				char p[32];

				t->has_paths = true;
				snprintf(p, sizeof(p), "src/d%02u", rnd(100));
				tm_strv_push(&t->paths, p);
				if (rnd(2)) {
					snprintf(p, sizeof(p), "src/d%02u",
						 rnd(100));
					tm_strv_push(&t->paths, p);
				}
			}
			tm_thread_set_summary(t, summary, strlen(summary));
		}
		snprintf(path, sizeof(path),
			 "%s/.threadmind/threads/bench/%s.md", dir, id);
		write_file(path, t);
		tm_thread_free(t);
	}
	tm_store_free(s);
	tm_strv_clear(&ids);
	free(depth);
}

static int make_repo(const char *dir, unsigned nthreads, unsigned ncommits,
		     unsigned long long seed)
{
	struct hist_stats st = {0, 0, 0};
	char cmd[8192];
	unsigned i;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s' && git init -q -b main '%s' && "
		 "git -C '%s' config user.name Bench && "
		 "git -C '%s' config user.email bench@example.com",
		 dir, dir, dir, dir);
	sh(cmd);
	pick_thread_commits(nthreads, ncommits, seed);
	make_history(dir, ncommits, &st);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && git update-ref -d refs/heads/topic 2>/dev/null;"
		 " git checkout -q -f main",
		 dir);
	if (system(cmd) != 0)
		die("checkout");
	make_threads(dir, nthreads);
	/* the store, then a commit that changes three files */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && git add .threadmind && "
		 "GIT_COMMITTER_DATE='@%u +0000' GIT_AUTHOR_DATE='@%u +0000' "
		 "git commit -q -m threads",
		 dir, 1700000000u + (ncommits + 1) * 60,
		 1700000000u + (ncommits + 1) * 60);
	sh(cmd);
	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), "%s/%s", dir,
			 files[rnd_skew(nfiles)].path);
		f = fopen(cmd, "a");
		if (!f)
			die(cmd);
		fprintf(f, "last %u\n", i);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && git add -A -- . ':!.threadmind' && "
		 "GIT_COMMITTER_DATE='@%u +0000' GIT_AUTHOR_DATE='@%u +0000' "
		 "git commit -q -m 'Change three files'",
		 dir, 1700000000u + (ncommits + 2) * 60,
		 1700000000u + (ncommits + 2) * 60);
	sh(cmd);
	fprintf(stderr,
		"gen: %s: %u commits (%u merges, %u renames, %u files added), "
		"%u threads\n",
		dir, ncommits + 2, st.merges, st.renames, st.added, nthreads);
	free(wanted);
	free(thread_sha);
	free(files);
	return 0;
}

/* ---- the merge corpus ---- */

static void corpus_change(tm_thread *t, unsigned what, const char *side)
{
	char buf[256];

	switch (what) {
	case 0:
		snprintf(buf, sizeof(buf), "%s (%s)", t->title, side);
		tm_thread_set(&t->title, buf);
		break;
	case 1:
		tm_thread_set(&t->status, "done");
		break;
	case 2:
		snprintf(buf, sizeof(buf), "src/%s", side);
		t->has_paths = true;
		tm_strv_push(&t->paths, buf);
		break;
	case 3: { /* an item appended to the body's first section */
		const char *nl = memchr(t->body, '\n', t->body_len);
		tm_buf b = TM_BUF_INIT;
		size_t at = nl ? (size_t)(nl - t->body) + 1 : t->body_len;

		tm_buf_put(&b, t->body, at);
		tm_buf_printf(&b, "- added on %s\n", side);
		tm_buf_put(&b, t->body + at, t->body_len - at);
		tm_thread_set_body(t, b.ptr, b.size);
		tm_buf_release(&b);
		break;
	}
	default: { /* a section appended */
		tm_buf b = TM_BUF_INIT;

		tm_buf_put(&b, t->body, t->body_len);
		tm_buf_printf(&b, "\n## From %s\n- one more thing\n", side);
		tm_thread_set_body(t, b.ptr, b.size);
		tm_buf_release(&b);
	}
	}
}

static int make_corpus(const char *dir, unsigned cases)
{
	char path[4096], when[TM_TIME_LEN + 1];
	unsigned c;

	real_shape = true;
	for (c = 0; c < NDIRS * 15; c++)
		add_file(real_dirs[c % NDIRS]);
	snprintf(path, sizeof(path), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	sh(path);
	for (c = 0; c < cases; c++) {
		tm_thread *o = tm_thread_new(), *a, *b;
		tm_buf body = TM_BUF_INIT;
		char title[128], id[64];
		unsigned wa = rnd(5), wb = (wa + 1 + rnd(4)) % 5;

		real_title(title, sizeof(title), c);
		snprintf(id, sizeof(id), "%s-%u", words[rnd(NWORDS)], c);
		o->id = strdup(id);
		o->title = strdup(title);
		o->parent_id = strdup("main");
		o->author = strdup("bench-0000");
		tm_time_format(when, 1700000000000LL + (int64_t)c * 1000);
		o->created_at = strdup(when);
		o->updated_at = strdup(when);
		o->branch = strdup("main");
		o->commit = strdup("0123456789abcdef0123456789abcdef01234567");
		if (rnd(2))
			real_paths(o);
		real_summary(&body);
		tm_thread_set_summary(o, body.ptr, body.size);
		tm_buf_release(&body);
		a = tm_thread_dup(o);
		b = tm_thread_dup(o);
		corpus_change(a, wa, "ours");
		corpus_change(b, wb, "theirs");
		tm_time_format(when, 1710000000000LL + (int64_t)c * 1000);
		tm_thread_set(&a->updated_at, when);
		tm_time_format(when, 1710000500000LL + (int64_t)c * 1000);
		tm_thread_set(&b->updated_at, when);
		snprintf(path, sizeof(path), "%s/c%03u", dir, c);
		if (mkdir(path, 0777) < 0)
			die(path);
		snprintf(path, sizeof(path), "%s/c%03u/O", dir, c);
		write_file(path, o);
		snprintf(path, sizeof(path), "%s/c%03u/A", dir, c);
		write_file(path, a);
		snprintf(path, sizeof(path), "%s/c%03u/B", dir, c);
		write_file(path, b);
		snprintf(path, sizeof(path), "%s/c%03u/P", dir, c);
		{
			FILE *f = fopen(path, "w");

			if (!f)
				die(path);
			fprintf(f, ".threadmind/threads/bench/%s.md\n", id);
			fclose(f);
		}
		tm_thread_free(o);
		tm_thread_free(a);
		tm_thread_free(b);
	}
	free(files);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;
	bool corpus = false;
	unsigned long long seed = 0;

	/*
	 * git fast-import (and checkout) give memory back to the system and
	 * take it again at every commit: on this machine 90% of fast-import's
	 * system time was brk.  Larger glibc thresholds for the children
	 * (fast-import 11.4 s -> 4.1 s wall on 10,000 commits, the same
	 * objects).  Only the generator's children: nothing measured.
	 */
	setenv("GLIBC_TUNABLES",
	       "glibc.malloc.top_pad=67108864:"
	       "glibc.malloc.trim_threshold=134217728:"
	       "glibc.malloc.mmap_threshold=33554432",
	       0);
	if (argc == 2 && !strcmp(argv[1], "-V")) {
		puts(GEN_VERSION);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-r"))
		real_shape = true, i++;
	else if (argc > 1 && !strcmp(argv[1], "-g"))
		real_shape = git_shape = true, i++;
	else if (argc > 1 && !strcmp(argv[1], "-m"))
		corpus = true, i++;
	if (argc - i < (corpus ? 2 : 3)) {
		fprintf(stderr,
			"usage: gen [-r|-g] DIR THREADS COMMITS [SEED]\n"
			"       gen -m DIR CASES [SEED]\n"
			"       gen -V\n");
		return 2;
	}
	if (corpus) {
		if (argc - i > 2)
			rng ^= strtoull(argv[i + 2], NULL, 10) * 2654435761ULL;
		return make_corpus(argv[i], (unsigned)atoi(argv[i + 1]));
	}
	if (argc - i > 3)
		seed = strtoull(argv[i + 3], NULL, 10);
	rng ^= seed * 2654435761ULL;
	return make_repo(argv[i], (unsigned)atoi(argv[i + 1]),
			 (unsigned)atoi(argv[i + 2]), seed);
}
