/*
 * git-threadmind-merge: git's merge driver for .threadmind/ files.  Only
 * the file I/O and the exit code live here; the merge is lib/merge/merge.c.
 */
#include "threadmind/fs.h"
#include "threadmind/error.h"
#include "threadmind/git.h"
#include "threadmind/merge.h"
#include "threadmind/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest input accepted. */
#define MAX_INPUT (64u * 1024 * 1024)

static const char usage[] =
	"usage: git-threadmind-merge <base> <ours> <theirs> <marker-size> "
	"<path> [<base-label> <ours-label> <theirs-label>]\n"
	"\n"
	"Registered as: git config merge.threadmind.driver "
	"'git-threadmind-merge %O %A %B %L %P'\n"
	"Writes the merge into <ours>; exits 0 when clean, 1 when conflict\n"
	"markers were left, 2 when a file could not be read or written.\n"
	"THREADMIND_MERGE=0 makes it a plain line merge.\n";

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * "git-threadmind-merge: …" on stderr, control characters as '?' as the
 * CLI shows them: %P and the labels come from the repository, and git
 * passes them on to the user's terminal.
 */
static void say(const char *fmt, ...)
{
	tm_buf out = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_text_vmessage(&out, "git-threadmind-merge: ", fmt, ap);
	va_end(ap);
	fwrite(out.ptr, 1, out.size, stderr);
	tm_buf_release(&out);
}

/* Read the whole file `path` into `out`; on error, print why. */
static int read_input(tm_buf *out, const char *path)
{
	struct stat st;
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		say("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		say("'%s' is not a file", path);
		close(fd);
		return -1;
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out->size + (size_t)n > MAX_INPUT) {
			say("'%s' is larger than "
			    "64 MiB; refusing to merge it",
			    path);
			close(fd);
			return -1;
		}
		tm_buf_put(out, chunk, (size_t)n);
	}
	if (n < 0)
		say("cannot read '%s': %s", path, strerror(errno));
	close(fd);
	return n < 0 ? -1 : 0;
}

/* A placeholder git did not expand (an older git): "%S", "%L"... */
static bool unexpanded(const char *arg)
{
	return arg[0] == '%' && arg[1] && !arg[2];
}

static int marker_size(const char *arg)
{
	char *end;
	long v;

	if (unexpanded(arg))
		return 7;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1)
		return 7;
	return v > TM_MERGE_MARKER_MAX ? TM_MERGE_MARKER_MAX : (int)v;
}

/* merge.conflictStyle of the repository in the current folder. */
static tm_conflict_style conflict_style(void)
{
	tm_git *g = NULL;
	tm_conflict_style style;

	if (tm_git_open(&g, NULL, true) < 0)
		g = NULL;
	style = tm_git_conflict_style(g);
	tm_git_free(g);
	return style;
}

/* tm_merge_files on the three inputs; -1 (said on stderr) when it fails. */
static int merge(tm_merge_result *r, const tm_buf in[3],
		 const tm_merge_options *opts)
{
	if (tm_merge_files(r, in[0].ptr, in[0].size, in[1].ptr, in[1].size,
			   in[2].ptr, in[2].size, opts) == 0)
		return 0;
	say("%s", tm_error_last());
	return -1;
}

/* Is git rebasing here (rebase, pull --rebase)? */
static bool rebasing(void)
{
	tm_git *g = NULL;
	bool r;

	if (tm_git_open(&g, NULL, true) < 0) {
		tm_error_clear();
		return false;
	}
	r = tm_git_operation(g) == TM_GIT_OP_REBASE;
	tm_git_free(g);
	return r;
}

/*
 * An edit of a thread that an earlier split moved to another id, met while
 * a rebase replays the commits that made it (the second local commit of a
 * `pull --rebase`): %A keeps ours and git stops, but the edit is merged at
 * once into the thread's own file in the work tree, where the person who
 * made it looks for it; `git threadmind resolve` stages it (merging it
 * again, to the same bytes, from the index) and `rebase --abort` drops it
 * with the rest.  Only in a rebase (a plain merge's `merge --abort` keeps
 * work-tree changes it did not make), and only a clean merge is written.
 */
static void follow_edit(const tm_buf in[3], const tm_merge_options *opts)
{
	tm_merge_result res;
	char *to = NULL, *id = NULL;
	bool moved;

	if (!opts->path ||
	    tm_merge_kind_of_path(opts->path, &id) != TM_MERGE_KIND_THREAD)
		return;
	moved = tm_merge_thread_identity(in[0].ptr, in[0].size, in[1].ptr,
					 in[1].size, in[2].ptr, in[2].size,
					 id) == TM_MERGE_OURS_OTHER;
	free(id);
	if (!moved || !rebasing() ||
	    !tm_merge_follow_worktree(&to, &res, in[0].ptr, in[0].size,
				      in[2].ptr, in[2].size, opts))
		return;
	if (!res.conflicted && !res.two_threads &&
	    res.len <= TM_MAX_FILE_SIZE &&
	    tm_atomic_write(to, res.data, res.len) == 0)
		say("%s: the edit is to the thread "
		    "now in %s: merged there in the work tree; 'git "
		    "threadmind resolve' stages it",
		    opts->path, to);
	tm_error_clear();
	tm_merge_result_clear(&res);
	free(to);
}

int main(int argc, char **argv)
{
	tm_buf in[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	tm_merge_options opts = TM_MERGE_OPTIONS_INIT;
	tm_merge_result r;
	const char *env = getenv("THREADMIND_MERGE");
	int i, rc = 2;

	/* over `ulimit -f`, writing %A fails (EFBIG, reported) rather than
	 * killing the driver with SIGXFSZ */
	signal(SIGXFSZ, SIG_IGN);
	if (argc == 2 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return 129;
	}
	if (argc < 6 || argc > 9) {
		fputs(usage, stderr);
		return 129;
	}
	for (i = 0; i < 3; i++)
		if (read_input(&in[i], argv[1 + i]) < 0)
			goto done;
	opts.marker_size = marker_size(argv[4]);
	opts.path = unexpanded(argv[5]) ? NULL : argv[5];
	/* git >= 2.44 expands %S %X %Y; older ones pass them as is */
	if (argc > 6 && !unexpanded(argv[6]))
		opts.ancestor_label = argv[6];
	if (argc > 7 && !unexpanded(argv[7]))
		opts.our_label = argv[7];
	if (argc > 8 && !unexpanded(argv[8]))
		opts.their_label = argv[8];
	opts.plain = env && !strcmp(env, "0");
	if (merge(&r, in, &opts) < 0)
		goto done;
	/* a merged thread or project file over the 1 MiB limit is the line
	 * merge of the whole file, in conflict (tm_merge_files) */
	if (r.conflicted && opts.style == TM_CONFLICT_STYLE_MERGE &&
	    (opts.style = conflict_style()) != TM_CONFLICT_STYLE_MERGE) {
		/* the style only shapes the markers: read it when needed */
		tm_merge_result_clear(&r);
		if (merge(&r, in, &opts) < 0)
			goto done;
	}
	if (r.two_threads && !opts.plain)
		follow_edit(in, &opts);
	if (r.note)
		say("%s%s%s", opts.path ? opts.path : "", opts.path ? ": " : "",
		    r.note);
	/* %A is git's temporary file, read back at once: no fsync */
	if (tm_atomic_write_nosync(argv[2], r.data, r.len) < 0)
		say("%s; '%s' still holds ours", tm_error_last(), argv[2]);
	else
		rc = r.conflicted ? 1 : 0;
	tm_merge_result_clear(&r);
done:
	for (i = 0; i < 3; i++)
		tm_buf_release(&in[i]);
	return rc;
}
