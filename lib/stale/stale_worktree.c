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
 * - nothing makes a clean file's bytes differ from its blob: no
 *   attributes file that could apply names a checkout attribute or
 *   defines a macro (attributes_may_apply), neither core.autocrlf=true
 *   nor core.eol=crlf;
 * - the repository has a work tree and its usual index (not GIT_INDEX_FILE).
 * Then the version parsed from the file is the blob's, byte for byte, and
 * goes into the commit index as the blob's would.  Anything else, or any
 * doubt (an index this reader does not take, a folder that cannot be
 * opened), and the blob is read.
 */
#include "stale_internal.h"
#include "error.h"
#include "fs.h"
#include "git_libgit2.h"

#include <errno.h>
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

/* Does the index entry's stat data say `st`?  (git keeps the low 32 bits
 * of each.) */
static bool entry_is(const tm_index_file_entry *e, const struct stat *st)
{
	return S_ISREG(st->st_mode) && e->dev == (uint32_t)st->st_dev &&
	       e->ino == (uint32_t)st->st_ino &&
	       e->size == (uint32_t)st->st_size &&
	       e->mtime_s == (uint32_t)st->st_mtim.tv_sec &&
	       e->mtime_ns == (uint32_t)st->st_mtim.tv_nsec &&
	       e->ctime_s == (uint32_t)st->st_ctim.tv_sec &&
	       e->ctime_ns == (uint32_t)st->st_ctim.tv_nsec;
}

/* Did the read that took stamp `s` see the file as `st` is now? */
static bool stamp_is(const tm_file_stamp *s, const struct stat *st)
{
	return s->set && (uint64_t)st->st_dev == s->dev &&
	       (uint64_t)st->st_ino == s->ino &&
	       (uint64_t)st->st_size == s->size &&
	       (int64_t)st->st_mtim.tv_sec == s->mtime_s &&
	       (int64_t)st->st_mtim.tv_nsec == s->mtime_ns &&
	       (int64_t)st->st_ctim.tv_sec == s->ctime_s &&
	       (int64_t)st->st_ctim.tv_nsec == s->ctime_ns;
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

/* The index's entry of `path`, or NULL. */
static const tm_index_file_entry *entry_of(const struct tm_stale_worktree *wt,
					   const char *path)
{
	size_t i;

	for (i = 0; i < wt->ne; i++)
		if (!strcmp(wt->e[i].path, path))
			return &wt->e[i];
	return NULL;
}

/* The attributes that change a file's bytes on checkout (text and crlf
 * with core.eol or core.autocrlf, eol, filter, ident,
 * working-tree-encoding), and a macro's definition, which may set any of
 * them: an attributes file holding one of these words anywhere (a
 * comment, a pattern, a longer word) may apply to the thread files. */
static const char *const checkout_words[] = {
	"text", "crlf", "eol", "filter", "ident", "encoding", "[attr]",
};

/*
 * Could the attributes file `path` change how the thread files are checked
 * out?  Missing: no.  Present: yes when it is not a regular file, larger
 * than TM_MAX_FILE_SIZE, unreadable, or holds a word of checkout_words.
 */
static bool may_change_checkout(const char *path)
{
	struct stat st;
	tm_buf data = TM_BUF_INIT;
	char chunk[4096];
	ssize_t got;
	size_t i;
	int fd;
	bool yes;

	if (lstat(path, &st) < 0)
		return errno != ENOENT && errno != ENOTDIR;
	if (!S_ISREG(st.st_mode) || st.st_size > TM_MAX_FILE_SIZE ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return true;
	while ((got = read(fd, chunk, sizeof(chunk))) > 0 &&
	       data.size <= TM_MAX_FILE_SIZE)
		tm_buf_put(&data, chunk, (size_t)got);
	yes = got < 0 || data.size > TM_MAX_FILE_SIZE;
	close(fd);
	for (i = 0;
	     !yes && i < sizeof(checkout_words) / sizeof(*checkout_words); i++)
		yes = data.size &&
		      memmem(data.ptr, data.size, checkout_words[i],
			     strlen(checkout_words[i])) != NULL;
	tm_buf_release(&data);
	return yes;
}

/*
 * Could an attribute make the thread files' checked-out bytes differ from
 * their blobs?  Asked of libgit2 per file, it cost 79,000 instructions a
 * file (it re-checks every attributes file and reads the whole index each
 * time): more than the inflate it saves.  So every file git takes
 * attributes from (gitattributes(5)) is looked at once, and may not hold a
 * word of checkout_words: the system's gitattributes (/etc, and where
 * libgit2 looks for its system config), core.attributesFile (by default
 * $XDG_CONFIG_HOME/git/attributes or ~/.config/git/attributes),
 * $GIT_DIR/info/attributes, and the .gitattributes of each folder from the
 * work tree's root down to the threads' folder.  When the index holds one
 * of those, checkout read the index's (git reads it first in that
 * direction): the work tree's must then be its copy, as its entry's stat
 * data (not racy, no flag) vouch, else the answer is yes.  `install`'s own
 * lines in .threadmind/.gitattributes (merge=threadmind diff=markdown) say
 * no.
 */
static bool attributes_may_apply(struct tm_stale_worktree *wt,
				 const char *workdir)
{
	git_config *cfg = NULL;
	git_buf file = GIT_BUF_INIT, sys = GIT_BUF_INIT;
	tm_buf path = TM_BUF_INIT, rel = TM_BUF_INIT;
	const char *home, *xdg, *slash, *dir, *colon;
	const tm_index_file_entry *e;
	struct stat st;
	bool any = may_change_checkout("/etc/gitattributes");

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
			any = may_change_checkout(tm_buf_cstr(&path));
		}
	tm_buf_clear(&path);
	tm_buf_printf(&path, "%sinfo/attributes",
		      git_repository_commondir(wt->repo));
	any = any || may_change_checkout(tm_buf_cstr(&path));
	for (slash = wt->threads_dir; !any && slash;
	     slash = strchr(slash, '/')) {
		if (*slash == '/')
			slash++;
		tm_buf_clear(&rel);
		tm_buf_printf(&rel, "%.*s.gitattributes",
			      (int)(slash - wt->threads_dir), wt->threads_dir);
		tm_buf_clear(&path);
		tm_buf_printf(&path, "%s%s", workdir, tm_buf_cstr(&rel));
		e = entry_of(wt, tm_buf_cstr(&rel));
		any = e ? !e->vouched || racy(wt, e) ||
				      lstat(tm_buf_cstr(&path), &st) < 0 ||
				      !entry_is(e, &st) ||
				      may_change_checkout(tm_buf_cstr(&path))
			: may_change_checkout(tm_buf_cstr(&path));
		if (!*slash)
			break;
	}
	if (!any && git_repository_config_snapshot(&cfg, wt->repo) == 0 &&
	    git_config_get_path(&file, cfg, "core.attributesFile") == 0) {
		any = may_change_checkout(file.ptr);
	} else if (!any) {
		tm_buf_clear(&path);
		if ((xdg = getenv("XDG_CONFIG_HOME")) && *xdg)
			tm_buf_printf(&path, "%s/git/attributes", xdg);
		else if ((home = getenv("HOME")))
			tm_buf_printf(&path, "%s/.config/git/attributes", home);
		any = path.size && may_change_checkout(tm_buf_cstr(&path));
	}
	git_error_clear();
	git_buf_dispose(&file);
	git_buf_dispose(&sys);
	git_config_free(cfg);
	tm_buf_release(&path);
	tm_buf_release(&rel);
	return any;
}

static void load(struct tm_stale_worktree *wt)
{
	const char *workdir = git_repository_workdir(wt->repo);
	size_t i, plen = strlen(wt->threads_dir);
	tm_buf path = TM_BUF_INIT, key = TM_BUF_INIT;
	const char *name;
	size_t len;

	wt->state = WT_UNUSABLE;
	if (!workdir || getenv("GIT_INDEX_FILE") || crlf_config(wt->repo))
		return;
	tm_buf_printf(&path, "%sindex", git_repository_path(wt->repo));
	if (tm_index_file_entries(&wt->e, &wt->ne, wt->index_mtime,
				  tm_buf_cstr(&path), wt->threads_dir) != 0) {
		tm_error_clear();
		goto done;
	}
	if (attributes_may_apply(wt, workdir))
		goto done;
	for (i = 0; i < wt->ne; i++) {
		name = wt->e[i].path + plen;
		len = strlen(wt->e[i].path);
		if (len > plen &&
		    !strncmp(wt->e[i].path, wt->threads_dir, plen) &&
		    !strchr(name, '/') && len - plen > 3 &&
		    !strcmp(wt->e[i].path + len - 3, ".md"))
			*tm_hashmap_puts(&wt->entries, name, 0) = i + 1;
	}
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
	    !entry_is(e, &st) || !stamp_is(&t->stamp, &st))
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
