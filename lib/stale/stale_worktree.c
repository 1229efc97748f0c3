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

#include <fcntl.h>
#include <stdlib.h>
#include <stddef.h>
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

/* Whether the config says CRLF on checkout. */
static bool crlf_config(git_config *cfg)
{
	const char *v;
	int b = 0;
	bool crlf = false;

	if (git_config_get_string(&v, cfg, "core.autocrlf") == 0)
		crlf = git_config_parse_bool(&b, v) == 0 && b;
	if (git_config_get_string(&v, cfg, "core.eol") == 0)
		crlf = crlf || !strcmp(v, "crlf");
	git_error_clear();
	return crlf;
}

/* Does the index entry's stat data say what stamp `s` does?  (git keeps
 * the low 32 bits of each.) */
static bool entry_is(const tm_index_file_entry *e, const tm_file_stamp *s)
{
	return s->set && e->dev == (uint32_t)s->dev &&
	       e->ino == (uint32_t)s->ino && e->size == (uint32_t)s->size &&
	       e->mtime_s == (uint32_t)s->mtime_s &&
	       e->mtime_ns == (uint32_t)s->mtime_ns &&
	       e->ctime_s == (uint32_t)s->ctime_s &&
	       e->ctime_ns == (uint32_t)s->ctime_ns;
}

static bool same_stamp(const tm_file_stamp *a, const tm_file_stamp *b)
{
	return a->set && b->set && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime_s == b->mtime_s &&
	       a->mtime_ns == b->mtime_ns && a->ctime_s == b->ctime_s &&
	       a->ctime_ns == b->ctime_ns;
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
	return tm_find_by_string(wt->e, wt->ne, sizeof(*wt->e),
				 offsetof(tm_index_file_entry, path), path);
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
 * Could the attributes file at `path` change how the thread files are
 * checked out?  Missing, it or its folder: no, unless the index holds it
 * (`e`, its entry, or NULL).  Present: yes when it cannot be read as a
 * regular file of at most TM_MAX_FILE_SIZE bytes (tm_fs_read_at), holds a
 * word of checkout_words, or, when the index holds it, is not the copy
 * the entry's stat data vouch for (not racy, no flag).
 */
static bool may_change_checkout(const struct tm_stale_worktree *wt,
				const char *path, const tm_index_file_entry *e)
{
	const char *slash = strrchr(path, '/');
	tm_buf dir = TM_BUF_INIT, data = TM_BUF_INIT;
	tm_file_stamp stamp;
	size_t i;
	int fd = -1, error;
	bool yes;

	if (!slash)
		return true;
	tm_buf_put(&dir, path, slash > path ? (size_t)(slash - path) : 1);
	error = tm_fs_open_dir(&fd, tm_buf_cstr(&dir));
	if (!error)
		error = tm_fs_read_at_stamped(&data, fd, slash + 1, path,
					      TM_MAX_FILE_SIZE, &stamp);
	if (error == TM_ENOTFOUND)
		yes = e != NULL;
	else
		yes = error < 0 || (e && (!e->vouched || racy(wt, e) ||
					  !entry_is(e, &stamp)));
	for (i = 0;
	     !yes && i < sizeof(checkout_words) / sizeof(*checkout_words); i++)
		yes = data.size &&
		      memmem(data.ptr, data.size, checkout_words[i],
			     strlen(checkout_words[i])) != NULL;
	tm_fs_close(fd);
	tm_error_clear();
	tm_buf_release(&dir);
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
static bool attributes_may_apply(const struct tm_stale_worktree *wt,
				 const char *workdir, git_config *cfg)
{
	git_buf file = GIT_BUF_INIT, sys = GIT_BUF_INIT;
	tm_buf path = TM_BUF_INIT, rel = TM_BUF_INIT;
	const char *home, *xdg, *slash, *dir, *colon;
	bool any = may_change_checkout(wt, "/etc/gitattributes", NULL);

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
			any = may_change_checkout(wt, tm_buf_cstr(&path), NULL);
		}
	tm_buf_clear(&path);
	tm_buf_printf(&path, "%sinfo/attributes",
		      git_repository_commondir(wt->repo));
	any = any || may_change_checkout(wt, tm_buf_cstr(&path), NULL);
	for (slash = wt->threads_dir; !any && slash;
	     slash = strchr(slash, '/')) {
		if (*slash == '/')
			slash++;
		tm_buf_clear(&rel);
		tm_buf_printf(&rel, "%.*s.gitattributes",
			      (int)(slash - wt->threads_dir), wt->threads_dir);
		tm_buf_clear(&path);
		tm_buf_printf(&path, "%s%s", workdir, tm_buf_cstr(&rel));
		any = may_change_checkout(wt, tm_buf_cstr(&path),
					  entry_of(wt, tm_buf_cstr(&rel)));
		if (!*slash)
			break;
	}
	if (!any &&
	    git_config_get_path(&file, cfg, "core.attributesFile") == 0) {
		any = may_change_checkout(wt, file.ptr, NULL);
	} else if (!any) {
		tm_buf_clear(&path);
		if ((xdg = getenv("XDG_CONFIG_HOME")) && *xdg)
			tm_buf_printf(&path, "%s/git/attributes", xdg);
		else if ((home = getenv("HOME")))
			tm_buf_printf(&path, "%s/.config/git/attributes", home);
		any = path.size &&
		      may_change_checkout(wt, tm_buf_cstr(&path), NULL);
	}
	git_error_clear();
	git_buf_dispose(&file);
	git_buf_dispose(&sys);
	tm_buf_release(&path);
	tm_buf_release(&rel);
	return any;
}

static void load(struct tm_stale_worktree *wt)
{
	const char *workdir = git_repository_workdir(wt->repo);
	size_t i, plen = strlen(wt->threads_dir);
	tm_buf path = TM_BUF_INIT, key = TM_BUF_INIT;
	git_config *cfg = NULL;
	const char *name;
	size_t len;

	wt->state = WT_UNUSABLE;
	if (!workdir || getenv("GIT_INDEX_FILE"))
		return;
	if (git_repository_config_snapshot(&cfg, wt->repo) < 0 ||
	    crlf_config(cfg))
		goto done; /* in doubt, or CRLF */
	tm_buf_printf(&path, "%sindex", git_repository_path(wt->repo));
	if (tm_index_file_entries(&wt->e, &wt->ne, wt->index_mtime,
				  tm_buf_cstr(&path), wt->threads_dir) != 0) {
		tm_error_clear();
		goto done;
	}
	if (attributes_may_apply(wt, workdir, cfg))
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
	git_error_clear();
	git_config_free(cfg);
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
	tm_file_stamp now;
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
	    !S_ISREG(st.st_mode))
		return NULL;
	tm_fs_stamp(&now, &st);
	return entry_is(e, &now) && same_stamp(&t->stamp, &now) ? t : NULL;
}

void tm_stale__worktree_free(struct tm_stale_worktree *wt)
{
	tm_fs_close(wt->dirfd);
	tm_index_file_entries_free(wt->e, wt->ne);
	tm_hashmap_release(&wt->entries);
	tm_hashmap_release(&wt->byname);
	memset(wt, 0, sizeof(*wt));
	wt->dirfd = -1;
}
