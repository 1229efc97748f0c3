/*
 * The store's threads: listing, loading, saving, deleting, creating under
 * the lock, and the active thread (see store.h).
 */
#include "store.h"
#include "store_internal.h"

#include "active.h"
#include "deadline.h"
#include "fs.h"
#include "error.h"
#include "frontmatter.h"
#include "conflict.h"
#include "slug.h"
#include "text.h"
#include "timestamp.h"
#include "parallel.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- threads ---- */

static char *md_name(const char *id)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_puts(&b, id);
	tm_buf_puts(&b, ".md");
	return tm_buf_detach(&b);
}

int tm_store_list_threads(tm_strv *out, tm_strv *bad, tm_store *s,
			  const char *project)
{
	int fd, error = tm_store_open_threads(&fd, s, project);
	char *display;

	if (error < 0 || fd < 0)
		return error;
	display = tm_store_file_display(s, "threads", NULL, project);
	error = tm_store_list_names(out, bad, fd, display, ".md", "thread");
	free(display);
	close(fd);
	return error;
}

/* File `name` of threads/{project}/ relative to the store's root
 * (".threadmind/threads/p/x.md"), malloc'd: how tm_thread_list names
 * files. */
static char *thread_path(const char *project, const char *name)
{
	tm_buf rel = TM_BUF_INIT;

	tm_buf_printf(&rel, TM_STORE_DIRNAME "/threads/%s/%s", project, name);
	return tm_buf_detach(&rel);
}

/* Read and parse one thread file; with `marked`, whether it holds
 * conflict markers (tm_thread_list's `marked`), parsed or not. */
static int load_thread_at(tm_thread **out, tm_store *s, int fd,
			  const char *project, const char *id, tm_buf *data,
			  bool *marked)
{
	char *name = md_name(id);
	char *display = tm_store_file_display(s, "threads", project, name);
	tm_file_stamp stamp;
	int error;

	tm_buf_clear(data);
	error = tm_deadline_check(display);
	if (error == 0)
		error = tm_fs_read_at_stamped(data, fd, name, display,
					      TM_MAX_FILE_SIZE, &stamp);
	if (error == TM_ENOTFOUND)
		tm_error_set(TM_ENOTFOUND, "no thread '%s' in project '%s'", id,
			     project);
	if (error == 0 && marked)
		*marked =
			tm_conflict_markers_left(tm_buf_cstr(data), data->size);
	if (error == 0)
		error = tm_frontmatter_parse_checked(out, tm_buf_cstr(data),
						     data->size, id, display,
						     tm_deadline_check);
	if (error == 0)
		(*out)->stamp = stamp;
	free(name);
	free(display);
	return error;
}

int tm_store_load_thread(tm_thread **out, tm_store *s, const char *project,
			 const char *id)
{
	tm_buf data = TM_BUF_INIT;
	int fd, error;

	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = tm_id_validate(id, "thread")) < 0)
		return error;
	error = tm_store_open_folder(&fd, s, "threads", project, false);
	if (error == TM_ENOTFOUND)
		return tm_error_set(TM_ENOTFOUND,
				    "no thread '%s' in project '%s'", id,
				    project);
	if (error < 0)
		return error;
	error = load_thread_at(out, s, fd, project, id, &data, NULL);
	close(fd);
	tm_buf_release(&data);
	return error;
}

bool tm_store_thread_exists(tm_store *s, const char *project, const char *id)
{
	struct stat st;
	char *name;
	int fd;
	bool found;

	if (tm_id_validate(project, "project") < 0 ||
	    tm_id_validate(id, "thread") < 0 ||
	    tm_store_open_folder(&fd, s, "threads", project, false) < 0) {
		tm_error_clear();
		return false;
	}
	name = md_name(id);
	found = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		S_ISREG(st.st_mode);
	free(name);
	close(fd);
	return found;
}

int tm_store_save_thread(tm_store *s, const char *project, const tm_thread *t)
{
	tm_buf data = TM_BUF_INIT;
	char *name;
	int error;

	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = tm_id_validate(t->id, "thread")) < 0)
		return error;
	name = md_name(t->id);
	tm_frontmatter_write(&data, t);
	/* Never write what no reader would accept (the size limit holds on
	 * every read and every write). */
	if (data.size > TM_MAX_FILE_SIZE)
		error = tm_store_file_error(
			s, "threads", project, name, TM_EINVALID,
			"would be %zu bytes, more than the 1 MiB limit; not "
			"written (shorten the title, the paths or the summary)",
			data.size);
	else
		error = tm_store_write_file(s, "threads", project, name, &data);
	free(name);
	tm_buf_release(&data);
	return error;
}

int tm_store_delete_thread(tm_store *s, const char *project, const char *id)
{
	char *name, *display;
	int fd, error;

	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = tm_id_validate(id, "thread")) < 0)
		return error;
	error = tm_store_open_folder(&fd, s, "threads", project, false);
	if (error < 0)
		return error;
	name = md_name(id);
	display = tm_store_file_display(s, "threads", project, name);
	error = tm_fs_unlink_at(fd, name, display);
	free(name);
	free(display);
	close(fd);
	return error;
}

/*
 * Files one loading thread is worth, files a thread claims at a time, and
 * the most threads.  A file costs about 20 us (open, read, close, parse:
 * docs/PERFORMANCE.md); a thread costs its start and a malloc arena of its
 * own, grown a page at a time (an mprotect call each): on 350 files two
 * threads took as long as one.
 */
#define LOAD_THREAD_COST 512
#define LOAD_CHUNK       16
#define LOAD_MAX_THREADS 8

static unsigned load_threads_forced; /* tm_store__load_threads */

void tm_store__load_threads(unsigned n)
{
	load_threads_forced = n;
}

/* One file of tm_store_load_all, as its thread leaves it. */
struct loaded {
	tm_thread *t;
	char *error; /* when not loaded: the message (NULL: not tried) */
	int code;    /* 0, or why not loaded */
	bool marked;
};

/* What the threads of one tm_store_load_all share (parallel.h): each file
 * is one thread's alone. */
struct load {
	tm_store *s;
	int fd;
	const char *project;
	const tm_strv *ids;
	struct loaded *files;
	atomic_bool timeout; /* a file met the deadline: the rest is not read */
};

static void load_range(void *ctx, size_t from, size_t to)
{
	struct load *l = ctx;
	tm_buf data = TM_BUF_INIT;
	size_t i;

	for (i = from; i < to; i++) {
		struct loaded *f = &l->files[i];

		if (atomic_load(&l->timeout)) {
			f->code = TM_ETIMEOUT;
			continue;
		}
		f->code = load_thread_at(&f->t, l->s, l->fd, l->project,
					 l->ids->items[i], &data, &f->marked);
		if (f->code < 0) {
			f->error = tm_xstrdup(tm_error_last());
			if (f->code == TM_ETIMEOUT)
				atomic_store(&l->timeout, true);
		}
	}
	tm_buf_release(&data);
	tm_error_clear();
}

static unsigned load_threads(size_t n)
{
	return load_threads_forced ? load_threads_forced
				   : tm_parallel_threads(n, LOAD_THREAD_COST,
							 LOAD_MAX_THREADS);
}

int tm_store_load_all(tm_thread_list *out, tm_store *s, const char *project)
{
	tm_strv ids = TM_STRV_INIT, bad = TM_STRV_INIT;
	struct load l;
	size_t i;
	int fd, error;

	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	error = tm_store_list_threads(&ids, &bad, s, project);
	if (error < 0)
		return error;
	for (i = 0; i < bad.n; i++) {
		tm_strv_push_owned(
			&out->errors,
			tm_store_bad_name_message(s, project, bad.items[i]));
		tm_strv_push_owned(&out->error_paths,
				   thread_path(project, bad.items[i]));
	}
	if (ids.n == 0)
		goto done;
	error = tm_store_open_folder(&fd, s, "threads", project, false);
	if (error < 0)
		goto done;
	/* read and parse on a few threads, then the results in the ids'
	   order, as one thread would have left them */
	l.s = s;
	l.fd = fd;
	l.project = project;
	l.ids = &ids;
	l.files = tm_xcalloc(ids.n, sizeof(*l.files));
	atomic_init(&l.timeout, false);
	tm_parallel_for(ids.n, LOAD_CHUNK, load_threads(ids.n), load_range, &l);
	close(fd);
	out->threads = tm_xcalloc(ids.n, sizeof(tm_thread *));
	for (i = 0; i < ids.n; i++) {
		struct loaded *f = &l.files[i];
		char *name;

		if (f->code == TM_ETIMEOUT) {
			/* past a hook's budget (before a file or inside
			   one): nothing */
			if (f->error)
				error = tm_error_set(TM_ETIMEOUT, "%s",
						     f->error);
			continue;
		}
		if (error == TM_ETIMEOUT)
			continue;
		name = md_name(ids.items[i]);
		if (f->marked)
			tm_strv_push_owned(&out->marked,
					   thread_path(project, name));
		if (f->code == 0) {
			out->threads[out->n++] = f->t;
			f->t = NULL;
		} else {
			tm_strv_push(&out->errors, f->error);
			tm_strv_push_owned(&out->error_paths,
					   thread_path(project, name));
		}
		free(name);
	}
	if (error == TM_ETIMEOUT) {
		tm_thread_list_clear(out);
		goto done;
	}
	error = 0;
	tm_error_clear();
done:
	for (i = 0; l.files && i < ids.n; i++) {
		tm_thread_free(l.files[i].t);
		free(l.files[i].error);
	}
	free(l.files);
	tm_strv_clear(&ids);
	tm_strv_clear(&bad);
	return error;
}

void tm_thread_list_clear(tm_thread_list *l)
{
	tm_thread_array_free(l->threads, l->n);
	tm_strv_clear(&l->errors);
	tm_strv_clear(&l->error_paths);
	tm_strv_clear(&l->marked);
	memset(l, 0, sizeof(*l));
}

char *tm_store_bad_name_message(tm_store *s, const char *project,
				const char *name)
{
	tm_buf msg = TM_BUF_INIT;

	if (!strcmp(name, ".md"))
		tm_buf_printf(&msg,
			      "'%s/threads/%s/.md': a ThreadMind 0.4 thread "
			      "with an empty id; run 'git threadmind "
			      "migrate' to give it an id from its title",
			      tm_store_dir(s), project);
	else
		tm_buf_printf(&msg,
			      "'%s/threads/%s/%s': the file name is not a "
			      "valid thread id (lower-case letters, digits "
			      "and dashes); rename it",
			      tm_store_dir(s), project, name);
	return tm_buf_detach(&msg);
}

struct taken_ctx {
	const tm_strv *ids; /* sorted (strcmp) */
};

static int cmp_id(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A binary search: a project may hold tens of thousands of threads and
 * tm_slug_unique tries up to TM_SLUG_MAX_TRIES candidates. */
static int id_taken(const char *id, void *payload)
{
	struct taken_ctx *ctx = payload;

	if (!strcmp(id, TM_ROOT_THREAD_ID))
		return 1;
	return ctx->ids->n && bsearch(&id, ctx->ids->items, ctx->ids->n,
				      sizeof(char *), cmp_id) != NULL;
}

int tm_store_unique_thread_id(char **out, tm_strv *ids, const char *base)
{
	struct taken_ctx ctx;

	tm_strv_sort(ids);
	ctx.ids = ids;
	return tm_slug_unique(out, base, id_taken, &ctx);
}

int tm_store_create_thread(tm_thread **out, tm_store *s, const char *project,
			   const tm_new_thread_options *opts)
{
	tm_strv ids = TM_STRV_INIT;
	tm_config *cfg = NULL;
	tm_thread *t = NULL;
	char *base = NULL, *author = NULL, *title = NULL;
	char now[TM_TIME_LEN + 1];
	const char *parent = opts->parent ? opts->parent : TM_ROOT_THREAD_ID;
	int error;

	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = tm_id_validate(parent, "thread")) < 0 ||
	    (error = tm_text_title(&title, opts->title, "the new title")) < 0)
		return error;
	error = tm_store_lock(s);
	if (error < 0) {
		free(title);
		return error;
	}
	if (!tm_store_thread_exists(s, project, parent)) {
		error = tm_error_set(TM_ENOTFOUND,
				     "no thread '%s' in project '%s' to be the "
				     "parent",
				     parent, project);
		goto done;
	}
	if ((error = tm_store_list_threads(&ids, NULL, s, project)) < 0 ||
	    (error = tm_store_load_config(&cfg, s)) < 0 ||
	    (error = tm_store_author(&author, s, cfg)) < 0)
		goto done;
	if (!tm_config_get_string(cfg, "author")) {
		tm_config_set_string(cfg, "author", author);
		if ((error = tm_store_save_config(s, cfg)) < 0 ||
		    (error = tm_store_lock_refresh(s)) < 0)
			goto done;
	}
	base = tm_slugify(title, TM_SLUG_THREAD);
	t = tm_thread_new();
	if ((error = tm_store_unique_thread_id(&t->id, &ids, base)) < 0)
		goto done;
	t->title = title;
	title = NULL;
	t->parent_id = tm_xstrdup(parent);
	t->author = tm_xstrdup(author);
	tm_store_now(now);
	t->created_at = tm_xstrdup(now);
	t->updated_at = tm_xstrdup(now);
	t->branch = tm_xstrdup_or_null(opts->branch);
	t->commit = tm_xstrdup_or_null(opts->commit);
	if (opts->paths) {
		t->has_paths = true;
		tm_strv_copy(&t->paths, opts->paths);
	}
	if (opts->summary)
		tm_thread_set_summary(t, opts->summary, strlen(opts->summary));
	error = tm_store_save_thread(s, project, t);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0 && out)
		TM_MOVE(out, t);
	tm_thread_free(t);
	TM_FREE_ALL(base, author, title);
	tm_config_free(cfg);
	tm_strv_clear(&ids);
	return error;
}

/* ---- active thread ---- */

void tm_active_moved_clear(tm_active_moved *m)
{
	if (!m)
		return;
	TM_FREE_ALL(m->from, m->to, m->was_title, m->was_author, m->now_title,
		    m->now_author);
	memset(m, 0, sizeof(*m));
}

/* tm_store_record_identity; *title (title not NULL): the thread's title
 * as that read found it (malloc'd; NULL when none or unreadable). */
static void record_identity(tm_store *s, tm_config *cfg, const char *project,
			    const char *id, char **title)
{
	tm_thread *t = NULL;

	if (tm_store_load_thread(&t, s, project, id) == 0)
		tm_config_set_active_identity(cfg, project, id, t->created_at,
					      t->author);
	else
		tm_config_set_active_identity(cfg, NULL, NULL, NULL, NULL);
	if (title)
		*title = t ? tm_xstrdup_or_null(t->title) : NULL;
	tm_error_clear();
	tm_thread_free(t);
}

void tm_store_record_identity(tm_store *s, tm_config *cfg, const char *project,
			      const char *id)
{
	record_identity(s, cfg, project, id, NULL);
}

static const tm_thread *find_thread(const tm_thread *const *threads, size_t n,
				    const char *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (threads[i] && threads[i]->id && !strcmp(threads[i]->id, id))
			return threads[i];
	return NULL;
}

/*
 * The guard of tm_store_active_thread_checked.  *bt and *active (config's
 * entries) are replaced by *to (malloc'd, or NULL) when they name a thread
 * that moved.  Returns 0 (also when nothing moved), or an error of
 * tm_store_load_all.
 */
static int follow_identity(tm_active_moved *m, char **to, const char **bt,
			   const char **active, tm_store *s,
			   const char *project, tm_config *cfg,
			   const tm_thread *const *threads, size_t n)
{
	tm_config_identity r;
	tm_thread *loaded = NULL;
	tm_thread_list all = {NULL, 0, TM_STRV_INIT, TM_STRV_INIT,
			      TM_STRV_INIT};
	const tm_thread *now = NULL, *was = NULL;
	size_t i;
	int error = 0;

	/* the root is one thread in every clone (two roots merge as one) */
	if (!tm_config_active_identity(cfg, &r) || strcmp(r.project, project) ||
	    !strcmp(r.id, TM_ROOT_THREAD_ID) ||
	    !((*bt && !strcmp(*bt, r.id)) ||
	      (*active && !strcmp(*active, r.id))))
		return 0;
	/* this branch's entry decides, and it names another thread */
	if (*bt && strcmp(*bt, r.id) &&
	    (threads ? find_thread(threads, n, *bt) != NULL
		     : tm_store_thread_exists(s, project, *bt)))
		return 0;
	if (threads) {
		now = find_thread(threads, n, r.id);
		/* not in the list but there: unreadable, left alone */
		if (!now && tm_store_thread_exists(s, project, r.id))
			return 0;
	} else if ((error = tm_store_load_thread(&loaded, s, project, r.id)) ==
		   0) {
		now = loaded;
	} else if (error != TM_ENOTFOUND) {
		tm_error_clear();
		return 0;
	}
	error = 0;
	if (now && tm_thread_same_identity(now->created_at, now->author,
					   r.created_at, r.author))
		goto done;
	if (!threads) {
		if ((error = tm_store_load_all(&all, s, project)) < 0)
			goto done;
		threads = (const tm_thread *const *)all.threads;
		n = all.n;
	}
	for (i = 0; i < n && !was; i++)
		if (threads[i] && threads[i]->id &&
		    strcmp(threads[i]->id, r.id) &&
		    tm_thread_same_identity(threads[i]->created_at,
					    threads[i]->author, r.created_at,
					    r.author))
			was = threads[i];
	if (!now && !was) /* deleted: the usual fallbacks apply */
		goto done;
	*to = was ? tm_xstrdup(was->id) : NULL;
	if (m) {
		m->from = tm_xstrdup(r.id);
		m->to = tm_xstrdup_or_null(*to);
		m->was_title = was ? tm_xstrdup_or_null(was->title) : NULL;
		m->was_author = tm_xstrdup_or_null(r.author);
		m->now_title = now ? tm_xstrdup_or_null(now->title) : NULL;
		m->now_author = now ? tm_xstrdup_or_null(now->author) : NULL;
	}
	/* r.id lives in cfg, which stays as it is */
	if (*bt && !strcmp(*bt, r.id))
		*bt = *to;
	if (*active && !strcmp(*active, r.id))
		*active = *to;
done:
	tm_thread_free(loaded);
	tm_thread_list_clear(&all);
	return error;
}

int tm_store_active_thread(char **out, tm_store *s, const char *project,
			   tm_config *cfg, const tm_thread *const *threads,
			   size_t n)
{
	return tm_store_active_thread_checked(out, NULL, s, project, cfg,
					      threads, n);
}

/* tm_store_active_thread_checked; `seen`: the caller saw the file of
 * this branch's entry (config's, before the guard). */
static int active_thread(char **out, tm_active_moved *moved, tm_store *s,
			 const char *project, tm_config *cfg,
			 const tm_thread *const *threads, size_t n, bool seen)
{
	const char *branch = tm_store_branch(s);
	const char *bt =
		branch ? tm_config_branch_thread(cfg, project, branch) : NULL;
	const char *entry = bt;
	const char *active = tm_config_get_string(cfg, "activeThreadId");
	tm_thread_list all;
	char *to = NULL;
	int error;

	if (moved)
		memset(moved, 0, sizeof(*moved));
	if ((error = follow_identity(moved, &to, &bt, &active, s, project, cfg,
				     threads, n)) < 0)
		goto done;
	if (threads) {
		*out = tm_active_resolve(branch, bt, active, threads, n, NULL);
		goto done;
	}
	/* Fast paths first: they need no thread file. */
	if (bt &&
	    ((seen && bt == entry) || tm_store_thread_exists(s, project, bt))) {
		*out = tm_xstrdup(bt);
		goto done;
	}
	if (!branch) {
		*out = tm_xstrdup(
			active && tm_store_thread_exists(s, project, active)
				? active
				: TM_ROOT_THREAD_ID);
		goto done;
	}
	if ((error = tm_store_load_all(&all, s, project)) < 0)
		goto done;
	*out = tm_active_resolve(branch, bt, active,
				 (const tm_thread *const *)all.threads, all.n,
				 NULL);
	tm_thread_list_clear(&all);
done:
	if (error < 0)
		tm_active_moved_clear(moved);
	free(to);
	return error;
}

int tm_store_active_thread_checked(char **out, tm_active_moved *moved,
				   tm_store *s, const char *project,
				   tm_config *cfg,
				   const tm_thread *const *threads, size_t n)
{
	return active_thread(out, moved, s, project, cfg, threads, n, false);
}

int tm_store_active_thread_entry_seen(char **out, tm_store *s,
				      const char *project, tm_config *cfg)
{
	return active_thread(out, NULL, s, project, cfg, NULL, 0, true);
}

int tm_store_set_active(tm_store *s, const char *project, const char *thread)
{
	return tm_store_set_active_title(s, project, thread, NULL);
}

int tm_store_set_active_title(tm_store *s, const char *project,
			      const char *thread, char **title)
{
	tm_config *cfg = NULL;
	const char *branch = tm_store_branch(s);
	int error;

	if (title)
		*title = NULL;
	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = tm_id_validate(thread, "thread")) < 0)
		return error;
	if ((error = tm_store_lock(s)) < 0)
		return error;
	if ((error = tm_store_load_config(&cfg, s)) < 0)
		goto done;
	tm_config_set_string(cfg, "activeProjectId", project);
	tm_config_set_string(cfg, "activeThreadId", thread);
	record_identity(s, cfg, project, thread, title);
	if (branch && (error = tm_config_set_branch_thread(cfg, project, branch,
							   thread)) < 0)
		goto done;
	error = tm_store_save_config(s, cfg);
done:
	tm_config_free(cfg);
	error = tm_store_unlock_after(s, error);
	if (error < 0 && title) {
		free(*title);
		*title = NULL;
	}
	return error;
}
