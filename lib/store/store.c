/*
 * The `.threadmind/` store: discovery, the repository, the lock,
 * config.json and projects; threads are in store_thread.c, init and
 * project creation in store_project.c.
 */
#include "store.h"
#include "store_internal.h"

#include "fs.h"
#include "config.h"
#include "error.h"
#include "frontmatter.h"
#include "git.h"
#include "lock.h"
#include "slug.h"
#include "timestamp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tm_store {
	char *root;
	char *dir;
	int dirfd;
	struct tm_git *git;
	bool git_tried;
	char *branch;     /* as stored: tm_config_branch_key */
	char *branch_ref; /* as git has it */
	char head[41];
	bool head_tried, head_known;
	tm_lock *lock; /* held (lock.c counts the nesting), or NULL */
	/* config.json as last read or written, and the file it came from:
	 * a load that finds the same file (one fstatat) reads nothing */
	tm_buf config_data;
	struct stat config_st;
	bool config_cached;
	/* tm_store_config_fallback: warn and use the defaults for a
	 * config.json that cannot be read; `config_broken` once it was. */
	void (*config_warn)(const char *msg, void *payload);
	void *config_warn_payload;
	bool config_fallback, config_broken, config_warned;
};

char *tm_store_path_join(const char *a, const char *b)
{
	tm_buf buf = TM_BUF_INIT;

	tm_buf_puts(&buf, a);
	if (buf.size && buf.ptr[buf.size - 1] != '/')
		tm_buf_putc(&buf, '/');
	tm_buf_puts(&buf, b);
	return tm_buf_detach(&buf);
}

static char *parent_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return tm_xstrdup("/");
	return tm_xstrndup(path, (size_t)(slash - path));
}

static char *absolute(const char *path)
{
	char *r = realpath(path, NULL);

	return r ? r : tm_xstrdup(path);
}

int tm_store_open(tm_store **out, const char *root)
{
	tm_store *s;
	char *dir;
	int fd, error;

	dir = tm_store_path_join(root, TM_STORE_DIRNAME);
	error = tm_fs_open_dir(&fd, dir);
	if (error < 0) {
		if (error == TM_ENOTFOUND)
			tm_error_set(TM_ENOTFOUND,
				     "no %s folder in '%s'; run 'git "
				     "threadmind init' to create one",
				     TM_STORE_DIRNAME, root);
		free(dir);
		return error;
	}
	s = tm_xcalloc(1, sizeof(*s));
	s->root = tm_xstrdup(root);
	s->dir = dir;
	s->dirfd = fd;
	*out = s;
	return 0;
}

static bool has_entry(const char *dir, const char *name, struct stat *st)
{
	char *p = tm_store_path_join(dir, name);
	int r = lstat(p, st);

	free(p);
	return r == 0;
}

int tm_store_discover(tm_store **out, const char *start_dir)
{
	char *dir = absolute(start_dir), *next;
	struct stat st;
	int error;

	for (;;) {
		if (has_entry(dir, TM_STORE_DIRNAME, &st)) {
			error = tm_store_open(out, dir);
			free(dir);
			return error;
		}
		if (has_entry(dir, ".git", &st) || !strcmp(dir, "/"))
			break;
		next = parent_dir(dir);
		free(dir);
		dir = next;
	}
	error = tm_error_set(TM_ENOTFOUND,
			     "not a ThreadMind repository (no %s folder "
			     "from '%s' up to '%s'); run 'git threadmind "
			     "init' to create one",
			     TM_STORE_DIRNAME, start_dir, dir);
	free(dir);
	return error;
}

char *tm_store_init_root(const char *start_dir)
{
	char *dir = absolute(start_dir), *next;
	struct stat st;

	for (;;) {
		if (has_entry(dir, ".git", &st))
			return dir;
		if (!strcmp(dir, "/"))
			break;
		next = parent_dir(dir);
		free(dir);
		dir = next;
	}
	free(dir);
	return absolute(start_dir);
}

void tm_store_free(tm_store *s)
{
	if (!s)
		return;
	while (s->lock)
		tm_store_unlock(s);
	tm_buf_release(&s->config_data);
	tm_fs_close(s->dirfd);
	tm_git_free(s->git);
	TM_FREE_ALL(s->branch, s->branch_ref, s->root, s->dir, s);
}

const char *tm_store_root(const tm_store *s)
{
	return s->root;
}

const char *tm_store_dir(const tm_store *s)
{
	return s->dir;
}

int tm_store_dirfd(const tm_store *s)
{
	return s->dirfd;
}

struct tm_git *tm_store_git(tm_store *s)
{
	if (!s->git_tried) {
		s->git_tried = true;
		if (tm_git_open(&s->git, s->root, true) < 0)
			s->git = NULL;
		if (s->git && tm_git_current_branch(&s->branch_ref, s->git) < 0)
			s->branch_ref = NULL;
		if (s->branch_ref) {
			tm_buf key = TM_BUF_INIT;

			tm_config_branch_key(&key, s->branch_ref);
			s->branch = tm_buf_detach(&key);
		}
		tm_error_clear();
	}
	return s->git;
}

const char *tm_store_branch(tm_store *s)
{
	tm_store_git(s);
	return s->branch;
}

const char *tm_store_branch_ref(tm_store *s)
{
	tm_store_git(s);
	return s->branch_ref;
}

const char *tm_store_head(tm_store *s)
{
	/* read when asked: prompt and post-checkout need the branch only */
	if (!s->head_tried && tm_store_git(s)) {
		s->head_known = tm_git_head(s->head, s->git) == 0;
		tm_error_clear();
	}
	s->head_tried = true;
	return s->head_known ? s->head : NULL;
}

/* ---- lock ---- */

int tm_store_lock_timeout(double *out, tm_store *s)
{
	*out = 15.0;
	if (!tm_store_git(s))
		return 0;
	return tm_git_config_seconds(out, s->git, "threadmind.lockTimeout",
				     15.0);
}

/* The test seam of tm_store__set_refresh_hook. */
static void (*refresh_hook)(tm_store *s, void *payload);
static void *refresh_payload;
static bool refresh_eager;

void tm_store__set_refresh_hook(void (*hook)(tm_store *s, void *payload),
				void *payload, bool eager)
{
	refresh_hook = hook;
	refresh_payload = payload;
	refresh_eager = eager;
}

int tm_store_lock_within(tm_store *s, double max_wait)
{
	tm_lock_options opts = TM_LOCK_OPTIONS_INIT;
	int error;

	/* held: lock.c's nesting, no config to read again */
	if (s->lock)
		return tm_lock_acquire(&s->lock, s->dir, NULL);
	if ((error = tm_store_lock_timeout(&opts.timeout, s)) < 0)
		return error;
	if (max_wait >= 0 && opts.timeout > max_wait)
		opts.timeout = max_wait;
	if (refresh_eager)
		opts.refresh_after = 0;
	return tm_lock_acquire(&s->lock, s->dir, &opts);
}

int tm_store_lock(tm_store *s)
{
	return tm_store_lock_within(s, -1);
}

int tm_store_unlock(tm_store *s)
{
	tm_lock *lock = s->lock;

	if (!lock)
		return 0;
	if (tm_lock_depth(lock) == 1)
		s->lock = NULL;
	return tm_lock_release(lock);
}

int tm_store_unlock_after(tm_store *s, int error)
{
	int unlock_error = tm_store_unlock(s);

	return error < 0 ? error : unlock_error;
}

int tm_store_lock_refresh(tm_store *s)
{
	if (refresh_hook)
		refresh_hook(s, refresh_payload);
	return s->lock ? tm_lock_refresh(s->lock) : 0;
}

/* ---- helpers: folders and files ---- */

/* Open threads/{project} (or projects/ when project is NULL). */
int tm_store_open_folder(int *out_fd, tm_store *s, const char *top,
			 const char *project, bool create)
{
	char *display = tm_store_path_join(s->dir, top);
	int fd, pfd, error;

	error = tm_fs_open_subdir(&fd, s->dirfd, top, display, create);
	if (error < 0 || !project) {
		free(display);
		if (error == 0)
			*out_fd = fd;
		return error;
	}
	{
		char *pdisplay = tm_store_path_join(display, project);

		error = tm_fs_open_subdir(&pfd, fd, project, pdisplay, create);
		free(pdisplay);
	}
	close(fd);
	free(display);
	if (error == 0)
		*out_fd = pfd;
	return error;
}

int tm_store_open_threads(int *fd, tm_store *s, const char *project)
{
	int error = tm_id_validate(project, "project");

	*fd = -1;
	if (error == 0)
		error = tm_store_open_folder(fd, s, "threads", project, false);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		return 0;
	}
	return error;
}

char *tm_store_file_display(tm_store *s, const char *top, const char *project,
			    const char *name)
{
	tm_buf b = TM_BUF_INIT;

	/* puts, not printf: once per file of every load */
	tm_buf_puts(&b, s->dir);
	tm_buf_putc(&b, '/');
	if (top) {
		tm_buf_puts(&b, top);
		tm_buf_putc(&b, '/');
	}
	if (project) {
		tm_buf_puts(&b, project);
		tm_buf_putc(&b, '/');
	}
	tm_buf_puts(&b, name);
	return tm_buf_detach(&b);
}

int tm_store_file_error(tm_store *s, const char *top, const char *project,
			const char *name, int code, const char *fmt, ...)
{
	char *display = tm_store_file_display(s, top, project, name);
	tm_buf what = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_buf_vprintf(&what, fmt, ap);
	va_end(ap);
	tm_error_set(code, "'%s' %s", display, tm_buf_cstr(&what));
	tm_buf_release(&what);
	free(display);
	return code;
}

int tm_store_read_file(tm_buf *out, tm_store *s, const char *top,
		       const char *project, const char *name)
{
	char *display = tm_store_file_display(s, top, project, name);
	int fd, error;

	if (top) {
		error = tm_store_open_folder(&fd, s, top, project, false);
		if (error == 0) {
			error = tm_fs_read_at(out, fd, name, display,
					      TM_MAX_FILE_SIZE);
			close(fd);
		}
	} else {
		error = tm_fs_read_at(out, s->dirfd, name, display,
				      TM_MAX_FILE_SIZE);
	}
	if (error == TM_ENOTFOUND)
		tm_error_set(TM_ENOTFOUND, "'%s' does not exist", display);
	free(display);
	return error;
}

int tm_store_write_file(tm_store *s, const char *top, const char *project,
			const char *name, const tm_buf *data)
{
	char *display = tm_store_file_display(s, top, project, name);
	int fd = s->dirfd, error = 0;

	if (top)
		error = tm_store_open_folder(&fd, s, top, project, true);
	if (error == 0) {
		error = tm_atomic_write_at(fd, name, display, tm_buf_cstr(data),
					   data->size);
		if (top)
			close(fd);
	}
	free(display);
	return error;
}

int tm_store_list_names(tm_strv *out, tm_strv *bad, int fd, const char *display,
			const char *suffix, const char *what)
{
	tm_strv names = TM_STRV_INIT;
	size_t i, slen = strlen(suffix);
	int error = tm_fs_list_dir(&names, fd, display);

	for (i = 0; error == 0 && i < names.n; i++) {
		const char *n = names.items[i];
		size_t len = strlen(n);
		char *id;

		if (len < slen || strcmp(n + len - slen, suffix))
			continue;
		/* ".md" is ThreadMind 0.4's thread with an empty id (a title
		 * without an ASCII letter or digit): a bad name, never hidden;
		 * other dot files are no one's */
		if (n[0] == '.' && len > slen)
			continue;
		id = tm_xstrndup(n, len - slen);
		if (tm_id_validate(id, what) == 0) {
			tm_strv_push_owned(out, id);
		} else {
			if (bad)
				tm_strv_push(bad, n);
			free(id);
		}
	}
	tm_strv_clear(&names);
	if (error < 0)
		return error;
	tm_error_clear();
	tm_strv_sort(out);
	if (bad)
		tm_strv_sort(bad);
	return 0;
}

/* ---- config.json ---- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Remember `data` as config.json's content when the file is still the
 * one `st` (taken before it was read or after it was written) says. */
static void config_remember(tm_store *s, const tm_buf *data,
			    const struct stat *st)
{
	s->config_cached = false;
	if (!S_ISREG(st->st_mode))
		return;
	tm_buf_clear(&s->config_data);
	tm_buf_put(&s->config_data, data->ptr, data->size);
	s->config_st = *st;
	s->config_cached = true;
}

/* config.json's bytes into *out: from the last read when the file is the
 * same (inode, size and times), else read (and remembered). */
static int config_read(tm_buf *out, tm_store *s)
{
	struct stat st;
	bool known =
		fstatat(s->dirfd, "config.json", &st, AT_SYMLINK_NOFOLLOW) == 0;
	int error;

	if (known && s->config_cached && same_file(&st, &s->config_st)) {
		tm_buf_put(out, s->config_data.ptr, s->config_data.size);
		return 0;
	}
	s->config_cached = false;
	error = tm_store_read_file(out, s, NULL, NULL, "config.json");
	if (error == 0 && known)
		config_remember(s, out, &st);
	return error;
}

int tm_store_load_config_strict(tm_config **out, tm_store *s)
{
	tm_buf data = TM_BUF_INIT;
	char *display;
	int error = config_read(&data, s);

	if (error == TM_ENOTFOUND) {
		tm_buf_release(&data);
		tm_error_clear();
		*out = tm_config_new();
		return 0;
	}
	if (error < 0) {
		tm_buf_release(&data);
		return error;
	}
	display = tm_store_path_join(s->dir, "config.json");
	error = tm_config_parse(out, tm_buf_cstr(&data), data.size, display);
	free(display);
	tm_buf_release(&data);
	return error;
}

void tm_store_config_fallback(tm_store *s,
			      void (*warn)(const char *msg, void *payload),
			      void *payload)
{
	s->config_fallback = true;
	s->config_warn = warn;
	s->config_warn_payload = payload;
}

int tm_store_load_config(tm_config **out, tm_store *s)
{
	int error = tm_store_load_config_strict(out, s);
	tm_buf msg = TM_BUF_INIT;

	/* Only for readers: a writer (under the lock) loads config.json to
	 * rewrite it, and must stop before writing anything. */
	if (error == 0 || !s->config_fallback || s->lock ||
	    (error != TM_EPARSE && error != TM_EINVALID))
		return error;
	s->config_broken = true;
	if (!s->config_warned && s->config_warn) {
		tm_buf_printf(&msg,
			      "%s; using the defaults (no active project or "
			      "thread) until 'git threadmind doctor --fix' "
			      "sets it aside",
			      tm_error_last());
		s->config_warn(tm_buf_cstr(&msg), s->config_warn_payload);
		tm_buf_release(&msg);
	}
	s->config_warned = true;
	tm_error_clear();
	*out = tm_config_new();
	return 0;
}

int tm_store_save_config(tm_store *s, tm_config *cfg)
{
	tm_buf data = TM_BUF_INIT;
	int error;

	/* With the fallback, the defaults may stand in for a config.json
	 * that cannot be read: never overwrite it (its error, again). */
	if (s->config_fallback) {
		tm_config *cur = NULL;

		if ((error = tm_store_load_config_strict(&cur, s)) < 0)
			return error;
		tm_config_free(cur); /* readable again: fine to write */
		s->config_broken = false;
	}
	if (!tm_config_get_string(cfg, "author")) {
		char *author = NULL;

		error = tm_store_author(&author, s, cfg);
		if (error < 0)
			return error;
		tm_config_set_string(cfg, "author", author);
		free(author);
	}
	tm_config_write(&data, cfg);
	s->config_cached = false;
	error = tm_store_write_file(s, NULL, NULL, "config.json", &data);
	if (error == 0) {
		struct stat st;

		if (fstatat(s->dirfd, "config.json", &st,
			    AT_SYMLINK_NOFOLLOW) == 0)
			config_remember(s, &data, &st);
	}
	tm_buf_release(&data);
	return error;
}

/* ---- projects ---- */

int tm_store_list_projects(tm_strv *out, tm_store *s)
{
	int fd, error = tm_store_open_folder(&fd, s, "projects", NULL, false);
	char *display;

	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		return 0;
	}
	if (error < 0)
		return error;
	display = tm_store_file_display(s, NULL, NULL, "projects");
	error = tm_store_list_names(out, NULL, fd, display, ".json", "project");
	free(display);
	close(fd);
	return error;
}

static char *json_name(const char *id)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_printf(&b, "%s.json", id);
	return tm_buf_detach(&b);
}

int tm_store_no_project(const char *id)
{
	return tm_error_set(TM_ENOTFOUND,
			    "no project '%s' (see 'git threadmind project "
			    "list')",
			    id);
}

int tm_store_require_project(tm_strv *ids, tm_store *s, const char *id)
{
	int error = tm_store_list_projects(ids, s);

	if (error == 0 && !tm_strv_contains(ids, id))
		error = tm_store_no_project(id);
	return error;
}

int tm_store_load_project(tm_project **out, tm_store *s, const char *id)
{
	tm_buf data = TM_BUF_INIT;
	char *name, *display;
	int error = tm_id_validate(id, "project");

	if (error < 0)
		return error;
	name = json_name(id);
	error = tm_store_read_file(&data, s, "projects", NULL, name);
	if (error == TM_ENOTFOUND)
		tm_store_no_project(id);
	if (error == 0) {
		display = tm_store_file_display(s, "projects", NULL, name);
		error = tm_project_parse(out, tm_buf_cstr(&data), data.size,
					 display);
		free(display);
	}
	free(name);
	tm_buf_release(&data);
	return error;
}

int tm_store_save_project(tm_store *s, const tm_project *p)
{
	const char *id = tm_project_get(p, "id");
	tm_buf data = TM_BUF_INIT;
	char *name;
	int error = tm_id_validate(id, "project");

	if (error < 0)
		return error;
	name = json_name(id);
	tm_project_write(&data, p);
	error = tm_store_write_file(s, "projects", NULL, name, &data);
	free(name);
	tm_buf_release(&data);
	return error;
}

int tm_store_current_project(char **out, tm_store *s, const char *requested)
{
	tm_strv ids = TM_STRV_INIT;
	tm_config *cfg = NULL;
	const char *active;
	int error;

	if (requested) {
		error = tm_id_validate(requested, "project");
		if (error < 0)
			return error;
	}
	if (requested) {
		if ((error = tm_store_require_project(&ids, s, requested)) == 0)
			*out = tm_xstrdup(requested);
		goto done;
	}
	error = tm_store_list_projects(&ids, s);
	if (error < 0)
		return error;
	error = tm_store_load_config(&cfg, s);
	if (error < 0)
		goto done;
	active = tm_config_get_string(cfg, "activeProjectId");
	if (active && tm_strv_contains(&ids, active)) {
		*out = tm_xstrdup(active);
	} else if (ids.n == 1) {
		*out = tm_xstrdup(ids.items[0]);
	} else if (ids.n == 0) {
		error = tm_error_set(TM_ENOTFOUND,
				     "no project in '%s/projects'; run 'git "
				     "threadmind project new <title>'",
				     s->dir);
	} else {
		tm_buf names = TM_BUF_INIT;
		size_t i;

		for (i = 0; i < ids.n; i++)
			tm_buf_printf(&names, "%s%s", i ? ", " : "",
				      ids.items[i]);
		error = tm_error_set(TM_EAMBIGUOUS,
				     "several projects (%s) and none active; "
				     "pass --project <id> or run 'git "
				     "threadmind project use <id>'",
				     tm_buf_cstr(&names));
		tm_buf_release(&names);
	}
done:
	tm_config_free(cfg);
	tm_strv_clear(&ids);
	return error;
}

void tm_store_now(char *out)
{
	tm_time_format(out, tm_time_now_ms());
}
