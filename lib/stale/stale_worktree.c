/*
 * A version of a thread file from the work tree instead of its blob, when
 * git's index vouches that the two are the same bytes (stale_internal.h,
 * tm_stale__worktree_thread).
 *
 * Why: a first run reads the version of every thread file that the
 * store's commits add, and at least the ones at HEAD are, most of the time,
 * the files the caller has just read and parsed from the work tree.  On
 * make bench's narrow store, libgit2 inflating those 350 blobs (most are
 * deltas) was 15 M of the first `status`'s 153 M instructions, their parse
 * 5 M more; one fstatat per file costs about 2.5 µs here.
 *
 * When it is sound (each condition below is needed):
 * - the file's stage-0 entry in git's index names that very blob, and
 *   vouches for the file (no assume-unchanged, skip-worktree or
 *   intent-to-add flag);
 * - the entry is not racy: its mtime is before the index file's, so that a
 *   write after git recorded it would have changed the file's stat data;
 * - the stat data the caller's read took (tm_thread.stamp, fstat just
 *   before the read) are the entry's, and an fstatat now gives them again:
 *   the file was not written between git recording it and now, the read
 *   included (a write, in place or by rename, changes mtime, ctime or the
 *   inode); the stat data before the read alone would not do: a file
 *   changed and added to the index after the read would match the new
 *   entry while the parse is of the old bytes;
 * - nothing makes a clean file's bytes differ from its blob: no file git
 *   takes attributes from (attributes_may_apply), neither
 *   core.autocrlf=true nor core.eol=crlf;
 * - the repository has a work tree and its usual index (not GIT_INDEX_FILE).
 * Then the version parsed from the file is the blob's, byte for byte, and
 * goes into the commit index as the blob's would.  Anything else, or any
 * doubt (an index this reader does not take, a folder that cannot be
 * opened), and the blob is read.
 */
#include "stale_internal.h"
#include "error.h"
#include "git_libgit2.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { WT_UNKNOWN, WT_USABLE, WT_UNUSABLE };

void tm_stale__worktree_init(struct tm_stale_worktree *wt, git_repository *repo,
			     const char *threads_dir,
			     const tm_thread *const *threads, size_t n)
{
	memset(wt, 0, sizeof(*wt));
	wt->repo = repo;
	wt->threads_dir = threads_dir;
	wt->threads = threads;
	wt->n = n;
	wt->dirfd = -1;
	wt->state = threads_dir && n ? WT_UNKNOWN : WT_UNUSABLE;
}

/* Whether a config value says CRLF on checkout. */
static bool crlf_config(git_repository *repo)
{
	git_config *cfg = NULL;
	const char *v;
	int b = 0;
	bool crlf = false;

	if (git_repository_config_snapshot(&cfg, repo) < 0) {
		git_error_clear();
		return true; /* in doubt */
	}
	if (git_config_get_string(&v, cfg, "core.autocrlf") == 0)
		crlf = git_config_parse_bool(&b, v) == 0 && b;
	if (git_config_get_string(&v, cfg, "core.eol") == 0)
		crlf = crlf || !strcmp(v, "crlf");
	git_error_clear();
	git_config_free(cfg);
	return crlf;
}

/* Does `path` exist (whatever it is)? */
static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/*
 * Could an attribute apply to the thread files?  Asked of libgit2 per
 * file, it cost 79,000 instructions a file (it re-checks every attributes
 * file and reads the whole index each time): more than the inflate it
 * saves.  So the question is whether any file git takes attributes from
 * exists (gitattributes(5)): $GIT_DIR/info/attributes, a .gitattributes
 * in the work tree on the way down to the threads' folder or anywhere in
 * the index (`attributes_in_index`), core.attributesFile (by default
 * $XDG_CONFIG_HOME/git/attributes or ~/.config/git/attributes), and the
 * system's gitattributes (/etc, and where libgit2 looks for its system
 * config).  Any of them, and the blobs are read.
 */
static bool attributes_may_apply(struct tm_stale_worktree *wt,
				 const char *workdir, bool attributes_in_index)
{
	git_config *cfg = NULL;
	git_buf file = GIT_BUF_INIT;
	tm_buf path = TM_BUF_INIT;
	git_buf sys = GIT_BUF_INIT;
	const char *home, *xdg, *slash, *dir, *colon;
	bool any = attributes_in_index || exists("/etc/gitattributes");

	/* the system's file where libgit2 looks for it too */
	if (!any && git_libgit2_opts(GIT_OPT_GET_SEARCH_PATH,
				     GIT_CONFIG_LEVEL_SYSTEM, &sys) == 0)
		for (dir = sys.ptr; !any && dir && *dir;
		     dir = colon ? colon + 1 : NULL) {
			colon = strchr(dir, ':');
			tm_buf_clear(&path);
			tm_buf_printf(&path, "%.*s/gitattributes",
				      (int)(colon ? (size_t)(colon - dir)
						  : strlen(dir)),
				      dir);
			any = exists(tm_buf_cstr(&path));
		}
	git_buf_dispose(&sys);
	tm_buf_clear(&path);
	tm_buf_printf(&path, "%sinfo/attributes",
		      git_repository_commondir(wt->repo));
	any = any || exists(tm_buf_cstr(&path));
	for (slash = wt->threads_dir; !any && slash;
	     slash = strchr(slash, '/')) {
		if (*slash == '/')
			slash++;
		tm_buf_clear(&path);
		tm_buf_printf(&path, "%s%.*s.gitattributes", workdir,
			      (int)(slash - wt->threads_dir), wt->threads_dir);
		any = exists(tm_buf_cstr(&path));
		if (!*slash)
			break;
	}
	if (!any && git_repository_config_snapshot(&cfg, wt->repo) == 0 &&
	    git_config_get_path(&file, cfg, "core.attributesFile") == 0) {
		any = exists(file.ptr);
	} else if (!any) {
		tm_buf_clear(&path);
		if ((xdg = getenv("XDG_CONFIG_HOME")) && *xdg)
			tm_buf_printf(&path, "%s/git/attributes", xdg);
		else if ((home = getenv("HOME")))
			tm_buf_printf(&path, "%s/.config/git/attributes", home);
		any = path.size && exists(tm_buf_cstr(&path));
	}
	git_error_clear();
	git_buf_dispose(&file);
	git_config_free(cfg);
	tm_buf_release(&path);
	return any;
}

static void load(struct tm_stale_worktree *wt)
{
	const char *workdir = git_repository_workdir(wt->repo);
	size_t i, plen = strlen(wt->threads_dir);
	tm_buf path = TM_BUF_INIT, key = TM_BUF_INIT;
	bool attributes_in_index = false;

	wt->state = WT_UNUSABLE;
	if (!workdir || getenv("GIT_INDEX_FILE") || crlf_config(wt->repo))
		return;
	tm_buf_printf(&path, "%sindex", git_repository_path(wt->repo));
	if (tm_index_file_entries(&wt->e, &wt->ne, wt->index_mtime,
				  &attributes_in_index, tm_buf_cstr(&path),
				  wt->threads_dir) != 0) {
		tm_error_clear();
		goto done;
	}
	if (attributes_may_apply(wt, workdir, attributes_in_index))
		goto done;
	for (i = 0; i < wt->ne; i++)
		if (!strchr(wt->e[i].path + plen, '/'))
			*tm_hashmap_puts(&wt->entries, wt->e[i].path + plen,
					 0) = i + 1;
	tm_buf_clear(&path);
	tm_buf_printf(&path, "%s%s", workdir, wt->threads_dir);
	wt->dirfd = open(tm_buf_cstr(&path),
			 O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (wt->dirfd < 0)
		goto done;
	for (i = 0; i < wt->n; i++) {
		if (!wt->threads[i]->stamp.set)
			continue;
		tm_buf_clear(&key);
		tm_buf_printf(&key, "%s.md", wt->threads[i]->id);
		*tm_hashmap_puts(&wt->byname, tm_buf_cstr(&key), 0) = i + 1;
	}
	wt->state = WT_USABLE;
done:
	tm_buf_release(&path);
	tm_buf_release(&key);
}

/* Were the entry's stat data, the stamp and st taken of the same file,
 * unchanged?  (git keeps the low 32 bits of each.) */
static bool same_file(const tm_index_file_entry *e, const tm_file_stamp *s,
		      const struct stat *st)
{
	return S_ISREG(st->st_mode) && (uint64_t)st->st_dev == s->dev &&
	       (uint64_t)st->st_ino == s->ino &&
	       (uint64_t)st->st_size == s->size &&
	       (int64_t)st->st_mtim.tv_sec == s->mtime_s &&
	       (int64_t)st->st_mtim.tv_nsec == s->mtime_ns &&
	       (int64_t)st->st_ctim.tv_sec == s->ctime_s &&
	       (int64_t)st->st_ctim.tv_nsec == s->ctime_ns &&
	       e->dev == (uint32_t)s->dev && e->ino == (uint32_t)s->ino &&
	       e->size == (uint32_t)s->size &&
	       e->mtime_s == (uint32_t)s->mtime_s &&
	       e->mtime_ns == (uint32_t)s->mtime_ns &&
	       e->ctime_s == (uint32_t)s->ctime_s &&
	       e->ctime_ns == (uint32_t)s->ctime_ns;
}

/* Changed at or after the index was written: its stat data prove
 * nothing (git's racy rule). */
static bool racy(const struct tm_stale_worktree *wt,
		 const tm_index_file_entry *e)
{
	return (int64_t)e->mtime_s > wt->index_mtime[0] ||
	       ((int64_t)e->mtime_s == wt->index_mtime[0] &&
		(int64_t)e->mtime_ns >= wt->index_mtime[1]);
}

const tm_thread *tm_stale__worktree_thread(struct tm_stale_worktree *wt,
					   const git_oid *blob,
					   const char *name)
{
	const size_t *ti, *ei;
	const tm_index_file_entry *e;
	const tm_thread *t;
	struct stat st;

	if (!wt || wt->state == WT_UNUSABLE)
		return NULL;
	if (wt->state == WT_UNKNOWN)
		load(wt);
	if (wt->state != WT_USABLE ||
	    !(ti = tm_hashmap_gets(&wt->byname, name)) ||
	    !(ei = tm_hashmap_gets(&wt->entries, name)))
		return NULL;
	t = wt->threads[*ti - 1];
	e = &wt->e[*ei - 1];
	if (!e->vouched || memcmp(e->id, blob->id, GIT_OID_RAWSZ) ||
	    racy(wt, e) ||
	    fstatat(wt->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !same_file(e, &t->stamp, &st))
		return NULL;
	return t;
}

void tm_stale__worktree_free(struct tm_stale_worktree *wt)
{
	if (wt->dirfd >= 0)
		close(wt->dirfd);
	tm_index_file_entries_free(wt->e, wt->ne);
	tm_hashmap_release(&wt->entries);
	tm_hashmap_release(&wt->byname);
	memset(wt, 0, sizeof(*wt));
	wt->dirfd = -1;
}
