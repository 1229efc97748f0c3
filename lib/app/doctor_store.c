/*
 * The checks and repairs of `doctor` about per-user files that git tracks:
 * `.threadmind/.lock` (a tracked lock is never a live lock: every clone gets
 * it and every write waits for it forever) and `.threadmind/config.json`.
 */
#include "doctor.h"
#include "doctor_internal.h"
#include "store_files.h"

#include "error.h"
#include "fs.h"
#include "git.h"
#include "git_libgit2.h"
#include "index_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How deep and how many entries a tracked .lock folder is removed. */
#define REMOVE_MAX_DEPTH   8
#define REMOVE_MAX_ENTRIES 10000

/* The per-user names of .threadmind/ that must never be tracked. */
static const char *const per_user[] = {TM_DOCTOR_LOCK_NAME, "config.json"};

/* The index entries at `path` or under `path/`, appended to `out`. */
static void tracked_under(tm_strv *out, git_index *index, const char *path)
{
	size_t i, n = git_index_entrycount(index), len = strlen(path);

	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);

		if (e && !strncmp(e->path, path, len) &&
		    (e->path[len] == '\0' || e->path[len] == '/'))
			tm_strv_push(out, e->path);
	}
}

/* The repository's index, or NULL (no git, no index, a damaged index:
 * nothing tracked). */
static git_index *open_index(tm_store *s, bool use_git)
{
	tm_git *g = use_git ? tm_store_git(s) : NULL;
	git_index *index = NULL;

	if (!g || tm_git_index_open(&index, tm_git_repository(g)) < 0) {
		tm_error_clear();
		return NULL;
	}
	return index;
}

int tm_doctor_check_tracked(tm_doctor_report *out, tm_doctor_ctx *c)
{
	git_index *index = open_index(c->s, c->o->git);
	char *prefix;
	size_t i;

	if (!index)
		return 0;
	prefix = tm_git_path_in_workdir(tm_store_git(c->s), tm_store_dir(c->s));
	for (i = 0; prefix && i < sizeof(per_user) / sizeof(*per_user); i++) {
		tm_strv paths = TM_STRV_INIT;
		tm_buf path = TM_BUF_INIT;
		char *file = tm_doctor_rel(per_user[i], NULL, NULL);

		tm_buf_printf(&path, "%s%s", prefix, per_user[i]);
		tracked_under(&paths, index, tm_buf_cstr(&path));
		if (paths.n && !strcmp(per_user[i], TM_DOCTOR_LOCK_NAME))
			/* at any age: a young one is a fresh clone's */
			tm_doctor_add(out, TM_DOCTOR_TRACKED, file, true,
				      "'%s' is tracked by git (%zu file%s): "
				      "it should never be committed "
				      "(.gitignore lists it); every clone gets "
				      "it and every write waits for it, but a "
				      "tracked lock is never a live one; --fix "
				      "removes it from the index and the disk "
				      "(or 'git rm -r --cached %s', then "
				      "delete it; commit the removal)",
				      file, paths.n, paths.n == 1 ? "" : "s",
				      file);
		else if (paths.n)
			tm_doctor_add(out, TM_DOCTOR_TRACKED, file, true,
				      "'%s' is tracked by git, but it is "
				      "per-user state (each clone has its "
				      "own); --fix removes it from the index "
				      "and keeps the file (then commit the "
				      "removal)",
				      file);
		tm_strv_clear(&paths);
		tm_buf_release(&path);
		free(file);
	}
	free(prefix);
	git_index_free(index);
	return 0;
}

bool tm_doctor_lock_is_tracked(tm_store *s, bool use_git)
{
	git_index *index = open_index(s, use_git);
	tm_strv paths = TM_STRV_INIT;
	tm_buf path = TM_BUF_INIT;
	char *prefix;
	bool r;

	if (!index)
		return false;
	prefix = tm_git_path_in_workdir(tm_store_git(s), tm_store_dir(s));
	if (prefix) {
		tm_buf_printf(&path, "%s%s", prefix, TM_DOCTOR_LOCK_NAME);
		tracked_under(&paths, index, tm_buf_cstr(&path));
	}
	r = paths.n > 0;
	tm_strv_clear(&paths);
	tm_buf_release(&path);
	free(prefix);
	git_index_free(index);
	return r;
}

/* Remove `name` in `dirfd` and, for a folder, what is inside, without
 * following links; bounded in depth and count. */
static int remove_tree(int dirfd, const char *name, const char *display,
		       int depth, size_t *count)
{
	struct stat st;
	tm_strv names = TM_STRV_INIT;
	size_t i;
	int fd, error = 0;

	if (++*count > REMOVE_MAX_ENTRIES || depth > REMOVE_MAX_DEPTH)
		return tm_error_set(TM_EINVALID,
				    "'%s' is too deep or too large to remove "
				    "safely; remove it by hand",
				    display);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0
				       : tm_error_set_errno(TM_ERROR,
							    "cannot stat '%s'",
							    display);
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return tm_error_set_errno(
				TM_ERROR, "cannot remove '%s'", display);
		return 0;
	}
	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return tm_error_set_errno(TM_ERROR, "cannot open '%s'",
					  display);
	error = tm_fs_list_dir(&names, fd, display);
	for (i = 0; error == 0 && i < names.n; i++)
		error = remove_tree(fd, names.items[i], display, depth + 1,
				    count);
	close(fd);
	tm_strv_clear(&names);
	if (error == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) < 0 &&
	    errno != ENOENT)
		error = tm_error_set_errno(TM_ERROR, "cannot remove '%s'",
					   display);
	return error;
}

/*
 * Is `name` the tracked lock: a folder (a live lock is always a file), or a
 * file with the content of the tracked blob `oid` (NULL: the tracked entry
 * was a folder's files, so a file there now is not it)?
 */
static bool same_as_tracked(const git_oid *oid, int dirfd, const char *name)
{
	struct stat st;
	tm_buf data = TM_BUF_INIT;
	git_oid now;
	bool r;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return true; /* gone: nothing to remove */
	if (S_ISDIR(st.st_mode))
		return true;
	if (!oid || !S_ISREG(st.st_mode) ||
	    tm_fs_read_at(&data, dirfd, name, name, 1 << 16) < 0) {
		tm_error_clear();
		tm_buf_release(&data);
		return false;
	}
	r = git_odb_hash(&now, data.ptr ? data.ptr : "", data.size,
			 GIT_OBJECT_BLOB) == 0 &&
	    git_oid_equal(&now, oid);
	tm_buf_release(&data);
	return r;
}

int tm_doctor_repair_tracked(tm_strv *done, tm_store *s, int dirfd,
			     const tm_doctor_problem *p)
{
	git_index *index = open_index(s, true);
	tm_strv paths = TM_STRV_INIT;
	tm_buf path = TM_BUF_INIT, line = TM_BUF_INIT;
	const git_index_entry *e;
	git_oid tracked_oid;
	const git_oid *index_entry = NULL;
	const char *name = NULL;
	char *prefix = NULL;
	size_t i, count = 0;
	int error = 0;

	for (i = 0; p->file && i < sizeof(per_user) / sizeof(*per_user); i++)
		if (tm_doctor_ends_with(p->file, per_user[i]))
			name = per_user[i];
	if (!index || !name)
		goto done;
	prefix = tm_git_path_in_workdir(tm_store_git(s), tm_store_dir(s));
	if (!prefix)
		goto done;
	tm_buf_printf(&path, "%s%s", prefix, name);
	tracked_under(&paths, index, tm_buf_cstr(&path));
	if (!paths.n)
		goto done; /* already gone */
	e = git_index_get_bypath(index, tm_buf_cstr(&path), 0);
	if (e) {
		tracked_oid = e->id;
		index_entry = &tracked_oid;
	}
	for (i = 0; i < paths.n && error == 0; i++)
		if (git_index_remove_bypath(index, paths.items[i]) < 0)
			error = tm_git_error(TM_ERROR, "cannot untrack '%s'",
					     paths.items[i]);
	if (error == 0 && git_index_write(index) < 0)
		error = tm_git_error(TM_ERROR, "cannot write the git index");
	if (error < 0)
		goto done;
	tm_buf_printf(&line, "untracked '%s' (commit the removal)", p->file);
	/* The lock on disk is the tracked one, never a live one: a live lock
	 * is a file this process could not have checked out. */
	if (!strcmp(name, TM_DOCTOR_LOCK_NAME)) {
		if (!same_as_tracked(index_entry, dirfd, name))
			tm_buf_printf(&line, "; left the file on disk: it "
					     "differs from the tracked one (a "
					     "live lock?)");
		else if ((error = remove_tree(dirfd, name, p->file, 0,
					      &count)) == 0)
			tm_buf_printf(&line, " and removed it");
	}
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_buf_release(&line);
	tm_buf_release(&path);
	tm_strv_clear(&paths);
	free(prefix);
	if (index)
		git_index_free(index);
	return error;
}
