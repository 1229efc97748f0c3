/*
 * `doctor`: every check of a store as one function in the table `checks`,
 * and the safe repairs in the table `repairs` (see doctor.h).
 */
#include "doctor.h"
#include "install.h"

#include "fs.h"
#include "error.h"
#include "git.h"
#include "lock.h"
#include "migrate.h"
#include "slug.h"
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_NAME  ".lock"
#define TMP_SUFFIX ".tmp"

/* One project as the checks see it, loaded once. */
struct project {
	char *id;
	tm_strv bad;        /* file names in threads/ID/ that are no ids */
	tm_strv unreadable; /* ids whose file could not be read ... */
	tm_strv errors;     /* ... and why, in the same order */
	bool folder_link;   /* threads/ID is a symbolic link */
	char *folder_error; /* threads/ID/ could not be listed */
	tm_thread **threads;
	size_t n;
};

struct ctx {
	tm_store *s;
	const tm_doctor_options *o;
	int dirfd; /* the .threadmind folder */
	struct project *projects;
	size_t nprojects;
};

/* ---- the report ---- */

void tm_doctor_report_clear(tm_doctor_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->items[i].file);
		free(r->items[i].project);
		free(r->items[i].thread);
		free(r->items[i].message);
	}
	free(r->items);
	memset(r, 0, sizeof(*r));
}

tm_doctor_problem *tm_doctor_add(tm_doctor_report *r, const char *kind,
                                 const char *file, bool fixable,
                                 const char *fmt, ...)
{
	tm_doctor_problem *p;
	tm_buf msg = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	tm_xgrow((void **)&r->items, &r->alloc, r->n + 1, sizeof(*r->items));
	p = &r->items[r->n++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->file = tm_xstrdup_or_null(file);
	p->message = tm_buf_detach(&msg);
	p->fixable = fixable;
	return p;
}

size_t tm_doctor_count_fixable(const tm_doctor_report *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->n; i++)
		n += r->items[i].fixable;
	return n;
}

/* ---- helpers ---- */

/* ".threadmind/A/B/C" for the parts that are not NULL (malloc'd). */
static char *rel(const char *a, const char *b, const char *c)
{
	tm_buf out = TM_BUF_INIT;

	tm_buf_puts(&out, TM_STORE_DIRNAME);
	if (a)
		tm_buf_printf(&out, "/%s", a);
	if (b)
		tm_buf_printf(&out, "/%s", b);
	if (c)
		tm_buf_printf(&out, "/%s", c);
	return tm_buf_detach(&out);
}

static char *thread_file(const char *project, const char *id)
{
	tm_buf name = TM_BUF_INIT;
	char *r;

	tm_buf_printf(&name, "%s.md", id);
	r = rel("threads", project, tm_buf_cstr(&name));
	tm_buf_release(&name);
	return r;
}

static char *project_file(const char *project)
{
	tm_buf name = TM_BUF_INIT;
	char *r;

	tm_buf_printf(&name, "%s.json", project);
	r = rel("projects", tm_buf_cstr(&name), NULL);
	tm_buf_release(&name);
	return r;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Seconds since the file's last modification. */
static double age_of(const struct stat *st)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double)(now.tv_sec - st->st_mtim.tv_sec) +
	       (double)(now.tv_nsec - st->st_mtim.tv_nsec) / 1e9;
}

/* The names in folder `dirfd` (no "." and ".."), sorted. */
static int list_fd(tm_strv *out, int dirfd)
{
	int fd = dup(dirfd);
	struct dirent *e;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return tm_error_set_errno(TM_ERROR, "cannot list a folder");
	}
	rewinddir(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			tm_strv_push(out, e->d_name);
	closedir(d);
	tm_strv_sort(out);
	return 0;
}

/* The names in subfolder `name` of `dirfd` (not followed if a link). */
static int list_sub(tm_strv *out, int dirfd, const char *name)
{
	int fd, error = tm_fs_open_subdir(&fd, dirfd, name, name, false);

	if (error < 0)
		return error;
	error = list_fd(out, fd);
	close(fd);
	return error;
}

/* lstat of TMDIR/SUB/NAME without following links; false when missing. */
static bool stat_in(struct stat *st, int dirfd, const char *sub,
                    const char *name)
{
	int fd;
	bool found;

	if (tm_fs_open_subdir(&fd, dirfd, sub, sub, false) < 0) {
		tm_error_clear();
		return false;
	}
	found = fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) == 0;
	close(fd);
	return found;
}

/* A line of `data` equal to `want` (or "/" + want), blanks trimmed. */
static bool has_line(const char *data, const char *want, bool anchored)
{
	const char *p = data;
	size_t wlen = strlen(want);

	while (*p) {
		const char *end = strchr(p, '\n'), *e;

		if (!end)
			end = p + strlen(p);
		e = end;
		while (e > p &&
		       (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (anchored && p < e && *p == '/')
			p++;
		if ((size_t)(e - p) == wlen && !memcmp(p, want, wlen))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/* The lines of TM_STORE_GITIGNORE missing from `data`. */
static void missing_ignores(tm_strv *out, const char *data)
{
	const char *p = TM_STORE_GITIGNORE, *nl;

	for (; (nl = strchr(p, '\n')); p = nl + 1) {
		char *line = tm_xstrndup(p, (size_t)(nl - p));

		if (!has_line(data, line, true))
			tm_strv_push_owned(out, line);
		else
			free(line);
	}
}

static void join(tm_buf *out, const tm_strv *v, const char *sep)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		tm_buf_printf(out, "%s%s", i ? sep : "", v->items[i]);
}

/* ---- loading ---- */

static void load_project(struct ctx *c, struct project *p)
{
	tm_strv ids = TM_STRV_INIT;
	struct stat st;
	size_t i;

	if (stat_in(&st, c->dirfd, "threads", p->id) && S_ISLNK(st.st_mode)) {
		p->folder_link = true; /* check_thread_folders says so */
		return;
	}
	if (tm_store_list_threads(&ids, &p->bad, c->s, p->id) < 0) {
		p->folder_error = tm_xstrdup(tm_error_last());
		tm_error_clear();
		return;
	}
	p->threads = tm_xcalloc(ids.n ? ids.n : 1, sizeof(tm_thread *));
	for (i = 0; i < ids.n; i++) {
		tm_thread *t = NULL;

		if (tm_store_load_thread(&t, c->s, p->id, ids.items[i]) == 0) {
			p->threads[p->n++] = t;
		} else {
			tm_strv_push(&p->unreadable, ids.items[i]);
			tm_strv_push(&p->errors, tm_error_last());
		}
	}
	tm_error_clear();
	tm_strv_clear(&ids);
}

static int load(struct ctx *c)
{
	tm_strv ids = TM_STRV_INIT;
	size_t i;
	int error;

	if (c->o->project) {
		tm_buf name = TM_BUF_INIT;
		struct stat st;
		bool found;

		if ((error = tm_id_validate(c->o->project, "project")) < 0)
			return error;
		tm_buf_printf(&name, "%s.json", c->o->project);
		found = stat_in(&st, c->dirfd, "projects",
		                tm_buf_cstr(&name)) ||
		        stat_in(&st, c->dirfd, "threads", c->o->project);
		tm_buf_release(&name);
		if (!found)
			return tm_error_set(TM_ENOTFOUND,
			                    "no project '%s' (see 'git "
			                    "threadmind project list')",
			                    c->o->project);
		tm_strv_push(&ids, c->o->project);
	} else if ((error = tm_store_list_projects(&ids, c->s)) < 0) {
		return error;
	}
	c->projects = tm_xcalloc(ids.n ? ids.n : 1, sizeof(*c->projects));
	for (i = 0; i < ids.n; i++) {
		c->projects[i].id = tm_xstrdup(ids.items[i]);
		c->nprojects++;
		load_project(c, &c->projects[i]);
	}
	tm_strv_clear(&ids);
	return 0;
}

static void unload(struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->nprojects; i++) {
		struct project *p = &c->projects[i];

		free(p->id);
		tm_strv_clear(&p->bad);
		tm_strv_clear(&p->unreadable);
		tm_strv_clear(&p->errors);
		free(p->folder_error);
		tm_thread_array_free(p->threads, p->n);
	}
	free(c->projects);
}

/* ---- the checks: one function each, listed in `checks` below ---- */

static int check_upgrade(tm_doctor_report *out, struct ctx *c)
{
	if (tm_migrate_needed(c->s, false))
		tm_doctor_add(out, TM_DOCTOR_UPGRADE, TM_STORE_DIRNAME "/trees",
		              false,
		              "'%s/trees' is a ThreadMind 0.4 tree index; run "
		              "'git threadmind migrate' to apply and delete it",
		              TM_STORE_DIRNAME);
	return 0;
}

static int check_config(tm_doctor_report *out, struct ctx *c)
{
	tm_config *cfg = NULL;

	if (tm_store_load_config(&cfg, c->s) < 0)
		tm_doctor_add(out, TM_DOCTOR_UNREADABLE,
		              TM_STORE_DIRNAME "/config.json", false, "%s",
		              tm_error_last());
	tm_config_free(cfg);
	tm_error_clear();
	return 0;
}

static void bad_project_name(tm_doctor_report *out, const char *file)
{
	tm_doctor_add(out, TM_DOCTOR_BAD_ID, file, false,
	              "'%s': the name is not a valid project id (lower-case "
	              "letters, digits and dashes); rename it",
	              file);
}

/* Names in projects/ that are no ids (every project: not with a filter). */
static int check_project_names(tm_doctor_report *out, struct ctx *c)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;

	if (c->o->project || list_sub(&names, c->dirfd, "projects") < 0) {
		tm_error_clear();
		return 0;
	}
	for (i = 0; i < names.n; i++) {
		const char *n = names.items[i];
		char *id, *file;

		if (!ends_with(n, ".json"))
			continue;
		id = tm_xstrndup(n, strlen(n) - strlen(".json"));
		if (tm_id_validate(id, "project") < 0) {
			file = rel("projects", n, NULL);
			bad_project_name(out, file);
			free(file);
		}
		tm_error_clear();
		free(id);
	}
	tm_strv_clear(&names);
	return 0;
}

/* threads/NAME: a link, not an id, or without projects/NAME.json. */
static void check_thread_folder(tm_doctor_report *out, struct ctx *c,
                                const char *n)
{
	char *file = rel("threads", n, NULL), *pname = NULL;
	tm_doctor_problem *p = NULL;
	struct stat st;

	if (!stat_in(&st, c->dirfd, "threads", n) ||
	    !(S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode)))
		goto done; /* a stray file: *.tmp are checked apart */
	if (tm_id_validate(n, "project") < 0) {
		tm_error_clear();
		bad_project_name(out, file);
		goto done;
	}
	pname = project_file(n);
	if (S_ISLNK(st.st_mode))
		p = tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file, false,
		                  "'%s' is a symbolic link; threadmind does "
		                  "not follow links inside .threadmind/: "
		                  "replace it with a folder",
		                  file);
	else if (!stat_in(&st, c->dirfd, "projects", strrchr(pname, '/') + 1))
		p = tm_doctor_add(out, TM_DOCTOR_NO_PROJECT, file, false,
		                  "'%s' has no project file '%s', so its "
		                  "threads are invisible; create the file or "
		                  "move the folder away",
		                  file, pname);
	if (p)
		p->project = tm_xstrdup(n);
done:
	free(pname);
	free(file);
}

static int check_thread_folders(tm_doctor_report *out, struct ctx *c)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;

	if (c->o->project) {
		check_thread_folder(out, c, c->o->project);
		return 0;
	}
	if (list_sub(&names, c->dirfd, "threads") < 0) {
		tm_error_clear();
		return 0;
	}
	for (i = 0; i < names.n; i++)
		check_thread_folder(out, c, names.items[i]);
	tm_strv_clear(&names);
	return 0;
}

/* Project files: readable, `id` = file name, a root thread. */
static int check_projects(tm_doctor_report *out, struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->nprojects; i++) {
		const struct project *pr = &c->projects[i];
		char *file = project_file(pr->id);
		tm_project *proj = NULL;
		tm_doctor_problem *p = NULL;
		const char *id;
		struct stat st;

		if (!stat_in(&st, c->dirfd, "projects",
		             strrchr(file, '/') + 1)) {
			goto next; /* reported by check_thread_folders */
		} else if (tm_store_load_project(&proj, c->s, pr->id) < 0) {
			p = tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file,
			                  false, "%s", tm_error_last());
		} else if (!(id = tm_project_get(proj, "id")) ||
		           strcmp(id, pr->id)) {
			if (id)
				p = tm_doctor_add(
				        out, TM_DOCTOR_ID_MISMATCH, file, true,
				        "'%s' has id '%s' but its file name "
				        "says '%s' (the file name wins); "
				        "--fix rewrites the id",
				        file, id, pr->id);
			else
				p = tm_doctor_add(
				        out, TM_DOCTOR_ID_MISMATCH, file, true,
				        "'%s' has no string id; --fix "
				        "writes '%s'",
				        file, pr->id);
		}
		if (p)
			p->project = tm_xstrdup(pr->id);
		if (!pr->folder_error && !pr->folder_link &&
		    !tm_strv_contains(&pr->unreadable, TM_ROOT_THREAD_ID) &&
		    !tm_store_thread_exists(c->s, pr->id, TM_ROOT_THREAD_ID)) {
			char *main_file =
			        thread_file(pr->id, TM_ROOT_THREAD_ID);

			p = tm_doctor_add(out, TM_DOCTOR_NO_ROOT, main_file,
			                  false,
			                  "project '%s' has no root thread "
			                  "'%s'; restore it from git or create "
			                  "it (title Main, parentId null)",
			                  pr->id, main_file);
			p->project = tm_xstrdup(pr->id);
			free(main_file);
		}
	next:
		tm_error_clear();
		tm_project_free(proj);
		free(file);
	}
	return 0;
}

static tm_doctor_problem *add_thread(tm_doctor_report *out, const char *kind,
                                     const struct project *pr, const char *id,
                                     bool fixable, const char *message)
{
	char *file = thread_file(pr->id, id);
	tm_doctor_problem *p;

	p = tm_doctor_add(out, kind, file, fixable, "%s", message);
	p->project = tm_xstrdup(pr->id);
	p->thread = tm_xstrdup(id);
	free(file);
	return p;
}

/* Thread files: names that are no ids, files that cannot be read. */
static int check_thread_files(tm_doctor_report *out, struct ctx *c)
{
	size_t i, k;

	for (i = 0; i < c->nprojects; i++) {
		const struct project *pr = &c->projects[i];

		if (pr->folder_link)
			continue;
		if (pr->folder_error) {
			char *file = rel("threads", pr->id, NULL);

			tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file, false,
			              "%s", pr->folder_error);
			free(file);
			continue;
		}
		for (k = 0; k < pr->bad.n; k++) {
			char *file = rel("threads", pr->id, pr->bad.items[k]);
			tm_doctor_problem *p;

			p = tm_doctor_add(out, TM_DOCTOR_BAD_ID, file, false,
			                  "'%s': the name is not a valid "
			                  "thread id (lower-case letters, "
			                  "digits and dashes); rename it",
			                  file);
			p->project = tm_xstrdup(pr->id);
			free(file);
		}
		for (k = 0; k < pr->unreadable.n; k++)
			add_thread(out, TM_DOCTOR_UNREADABLE, pr,
			           pr->unreadable.items[k], false,
			           pr->errors.items[k]);
	}
	return 0;
}

/* The `id` field of each thread against its file name. */
static int check_ids(tm_doctor_report *out, struct ctx *c)
{
	tm_buf msg = TM_BUF_INIT;
	size_t i, k;

	for (i = 0; i < c->nprojects; i++) {
		const struct project *pr = &c->projects[i];

		for (k = 0; k < pr->n; k++) {
			const tm_thread *t = pr->threads[k];
			char *file;

			if (t->field_id && !strcmp(t->field_id, t->id))
				continue;
			file = thread_file(pr->id, t->id);
			tm_buf_clear(&msg);
			if (t->field_id)
				tm_buf_printf(&msg,
				              "'%s' has id '%s' but its file "
				              "name says '%s' (the file name "
				              "wins); --fix rewrites the id "
				              "field",
				              file, t->field_id, t->id);
			else
				tm_buf_printf(&msg,
				              "'%s' has no id field; --fix "
				              "writes 'id: %s'",
				              file, t->id);
			add_thread(out, TM_DOCTOR_ID_MISMATCH, pr, t->id, true,
			           tm_buf_cstr(&msg));
			free(file);
		}
	}
	tm_buf_release(&msg);
	return 0;
}

/* Orphans and cycles, from the tree the commands draw. */
static int check_tree(tm_doctor_report *out, struct ctx *c)
{
	tm_buf msg = TM_BUF_INIT;
	size_t i, k;

	for (i = 0; i < c->nprojects; i++) {
		const struct project *pr = &c->projects[i];
		tm_tree *tree = NULL;

		if (tm_tree_build(&tree, (const tm_thread *const *)pr->threads,
		                  pr->n) < 0) {
			tm_error_clear();
			continue;
		}
		for (k = 0; k < tree->n; k++) {
			const tm_tree_node *n = &tree->nodes[k];
			const tm_thread *t = n->thread;

			tm_buf_clear(&msg);
			if ((n->flags & TM_TREE_ORPHAN) &&
			    !tm_strv_contains(&pr->unreadable, t->parent_id))
				tm_buf_printf(&msg,
				              "thread '%s': its parent '%s' "
				              "does not exist; re-parent it "
				              "with 'git threadmind move %s "
				              "<parent>'",
				              t->id, t->parent_id, t->id);
			if (msg.size)
				add_thread(out, TM_DOCTOR_ORPHAN, pr, t->id,
				           false, tm_buf_cstr(&msg));
			tm_buf_clear(&msg);
			if (n->flags & TM_TREE_CYCLE)
				tm_buf_printf(&msg,
				              "thread '%s' is in a parent "
				              "cycle (its parent '%s' descends "
				              "from it); break it with 'git "
				              "threadmind move %s <parent>'",
				              t->id, t->parent_id, t->id);
			if (msg.size)
				add_thread(out, TM_DOCTOR_CYCLE, pr, t->id,
				           false, tm_buf_cstr(&msg));
		}
		tm_tree_free(tree);
	}
	tm_buf_release(&msg);
	return 0;
}

static int check_status(tm_doctor_report *out, struct ctx *c)
{
	tm_buf msg = TM_BUF_INIT;
	size_t i, k;

	for (i = 0; i < c->nprojects; i++) {
		const struct project *pr = &c->projects[i];

		for (k = 0; k < pr->n; k++) {
			const tm_thread *t = pr->threads[k];

			if (!t->status || !strcmp(t->status, TM_STATUS_DONE) ||
			    !strcmp(t->status, TM_STATUS_ABANDONED))
				continue;
			tm_buf_clear(&msg);
			tm_buf_printf(&msg,
			              "thread '%s' has an unknown status "
			              "'%s' (known: done, abandoned, or none "
			              "for active); set it with 'git "
			              "threadmind done|abandon|reopen %s'",
			              t->id, t->status, t->id);
			add_thread(out, TM_DOCTOR_UNKNOWN_STATUS, pr, t->id,
			           false, tm_buf_cstr(&msg));
		}
	}
	tm_buf_release(&msg);
	return 0;
}

static bool dir_is_empty(int dirfd, const char *name)
{
	tm_strv names = TM_STRV_INIT;
	bool empty = list_sub(&names, dirfd, name) == 0 && names.n == 0;

	tm_error_clear();
	tm_strv_clear(&names);
	return empty;
}

static int check_lock(tm_doctor_report *out, struct ctx *c)
{
	const char *file = TM_STORE_DIRNAME "/" LOCK_NAME;
	char *holder = NULL;
	struct stat st;
	double age;
	bool fixable;

	if (fstatat(c->dirfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	age = age_of(&st);
	if (age <= c->o->lock_stale_after)
		return 0;
	if (tm_lock_holder(&holder, tm_store_dir(c->s)) < 0)
		holder = tm_xstrdup("unknown holder");
	tm_error_clear();
	fixable = !S_ISDIR(st.st_mode) || dir_is_empty(c->dirfd, LOCK_NAME);
	if (fixable)
		tm_doctor_add(out, TM_DOCTOR_STALE_LOCK, file, true,
		              "'%s' (%s) has not been touched for %.0f s: it "
		              "is stale, its process is gone; --fix removes it",
		              file, holder, age);
	else
		tm_doctor_add(out, TM_DOCTOR_STALE_LOCK, file, false,
		              "'%s' is a folder with files in it, untouched "
		              "for %.0f s; remove it by hand if no program "
		              "uses it",
		              file, age);
	free(holder);
	return 0;
}

/* *.tmp in `dirfd` (shown as `shown`), and `depth` more folders down. */
static void find_tmp(tm_doctor_report *out, struct ctx *c, int dirfd,
                     const char *shown, int depth)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;

	if (list_fd(&names, dirfd) < 0) {
		tm_error_clear();
		return;
	}
	for (i = 0; i < names.n; i++) {
		const char *n = names.items[i];
		tm_buf file = TM_BUF_INIT;
		struct stat st;
		int fd;

		if (fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		tm_buf_printf(&file, "%s/%s", shown, n);
		if (S_ISDIR(st.st_mode) && depth > 0 &&
		    tm_fs_open_subdir(&fd, dirfd, n, n, false) == 0) {
			find_tmp(out, c, fd, tm_buf_cstr(&file), depth - 1);
			close(fd);
		} else if (!S_ISDIR(st.st_mode) && ends_with(n, TMP_SUFFIX)) {
			double age = age_of(&st);

			if (age > c->o->tmp_min_age)
				tm_doctor_add(
				        out, TM_DOCTOR_STRAY_TMP,
				        tm_buf_cstr(&file), true,
				        "'%s' is a temporary file left by "
				        "an interrupted write; --fix "
				        "removes it",
				        tm_buf_cstr(&file));
			else
				tm_doctor_add(out, TM_DOCTOR_STRAY_TMP,
				              tm_buf_cstr(&file), false,
				              "'%s' is a temporary file from "
				              "%.0f s ago (a write may be in "
				              "progress); --fix removes it "
				              "once it is %.0f s old",
				              tm_buf_cstr(&file), age,
				              c->o->tmp_min_age);
		}
		tm_error_clear();
		tm_buf_release(&file);
	}
	tm_strv_clear(&names);
}

static int check_tmp(tm_doctor_report *out, struct ctx *c)
{
	find_tmp(out, c, c->dirfd, TM_STORE_DIRNAME, 2);
	return 0;
}

static int read_top(tm_buf *out, struct ctx *c, const char *name)
{
	tm_buf display = TM_BUF_INIT;
	int error;

	tm_buf_printf(&display, "%s/%s", TM_STORE_DIRNAME, name);
	error = tm_fs_read_at(out, c->dirfd, name, tm_buf_cstr(&display),
	                      TM_MAX_FILE_SIZE);
	tm_buf_release(&display);
	return error;
}

static int check_gitignore(tm_doctor_report *out, struct ctx *c)
{
	const char *file = TM_STORE_DIRNAME "/.gitignore";
	tm_buf data = TM_BUF_INIT, list = TM_BUF_INIT;
	tm_strv missing = TM_STRV_INIT;
	int error = read_top(&data, c, ".gitignore");

	if (error < 0 && error != TM_ENOTFOUND) {
		tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file, false, "%s",
		              tm_error_last());
		goto done;
	}
	missing_ignores(&missing, tm_buf_cstr(&data));
	join(&list, &missing, ", ");
	if (error == TM_ENOTFOUND)
		tm_doctor_add(out, TM_DOCTOR_GITIGNORE, file, true,
		              "'%s' is missing, so git would track the "
		              "per-user config.json; --fix writes it",
		              file);
	else if (missing.n)
		tm_doctor_add(out, TM_DOCTOR_GITIGNORE, file, true,
		              "'%s' does not ignore %s; --fix adds the "
		              "line%s",
		              file, tm_buf_cstr(&list),
		              missing.n > 1 ? "s" : "");
done:
	tm_error_clear();
	tm_strv_clear(&missing);
	tm_buf_release(&list);
	tm_buf_release(&data);
	return 0;
}

static int check_merge_driver(tm_doctor_report *out, struct ctx *c)
{
	struct tm_git *g = c->o->git ? tm_store_git(c->s) : NULL;
	char *value = NULL;
	int error;

	if (!g)
		return 0;
	error = tm_git_config_string(&value, g, "merge.threadmind.driver");
	if (error == TM_ENOTFOUND || (error == 0 && !*value))
		tm_doctor_add(out, TM_DOCTOR_MERGE_DRIVER, NULL, false,
		              "git config merge.threadmind.driver is not "
		              "set, so thread files conflict with plain "
		              "markers; run 'git threadmind install'");
	tm_error_clear();
	free(value);
	return 0;
}

/* A line "PATTERN ... merge=threadmind ..." in .gitattributes `data`. */
static bool has_attribute(const char *data, const char *pattern)
{
	const char *p = data;
	size_t plen = strlen(pattern);

	while (*p) {
		const char *end = strchr(p, '\n'), *q;

		if (!end)
			end = p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) > plen && !memcmp(p, pattern, plen) &&
		    (p[plen] == ' ' || p[plen] == '\t')) {
			for (q = p + plen; q < end;) {
				size_t n;

				while (q < end && strchr(" \t\r", *q))
					q++;
				n = strcspn(q, " \t\r\n");
				if (n == strlen("merge=threadmind") &&
				    !memcmp(q, "merge=threadmind", n))
					return true;
				q += n;
			}
		}
		p = *end ? end + 1 : end;
	}
	return false;
}

/* The hooks `install` would write or change (missing, outdated, not ours). */
static int check_hooks(tm_doctor_report *out, struct ctx *c)
{
	tm_install_options opts = TM_INSTALL_OPTIONS_INIT;
	tm_install_plan plan = TM_INSTALL_PLAN_INIT;
	struct tm_git *g = c->o->git ? tm_store_git(c->s) : NULL;
	size_t i, dlen;

	if (!g ||
	    tm_install_plan_make(&plan, g, tm_store_dir(c->s), &opts) < 0) {
		tm_error_clear();
		return 0;
	}
	dlen = plan.hooks_dir ? strlen(plan.hooks_dir) : 0;
	for (i = 0; i < plan.n; i++) {
		const tm_install_step *st = &plan.steps[i];

		if (st->done || !st->path || !dlen ||
		    strncmp(st->path, plan.hooks_dir, dlen))
			continue;
		tm_doctor_add(out, TM_DOCTOR_HOOKS, NULL, false,
		              "%s; run 'git threadmind install'%s", st->what,
		              st->refused ? " (or add the line by hand)" : "");
	}
	tm_install_plan_clear(&plan);
	return 0;
}

static int check_gitattributes(tm_doctor_report *out, struct ctx *c)
{
	static const char *const patterns[] = {TM_DOCTOR_ATTR_THREADS,
	                                       TM_DOCTOR_ATTR_PROJECTS};
	const char *file = TM_STORE_DIRNAME "/.gitattributes";
	tm_buf data = TM_BUF_INIT, list = TM_BUF_INIT;
	size_t i;
	int error;

	if (!c->o->git || !tm_store_git(c->s))
		return 0;
	error = read_top(&data, c, ".gitattributes");
	if (error == TM_ENOTFOUND) {
		tm_doctor_add(out, TM_DOCTOR_GITATTRIBUTES, file, false,
		              "'%s' is missing, so git does not use the "
		              "threadmind merge driver; run 'git threadmind "
		              "install'",
		              file);
	} else if (error < 0) {
		tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file, false, "%s",
		              tm_error_last());
	} else {
		for (i = 0; i < 2; i++)
			if (!has_attribute(tm_buf_cstr(&data), patterns[i]))
				tm_buf_printf(&list, "%s'%s merge=threadmind'",
				              list.size ? ", " : "",
				              patterns[i]);
		if (list.size)
			tm_doctor_add(out, TM_DOCTOR_GITATTRIBUTES, file, false,
			              "'%s' lacks %s; run 'git threadmind "
			              "install'",
			              file, tm_buf_cstr(&list));
	}
	tm_error_clear();
	tm_buf_release(&list);
	tm_buf_release(&data);
	return 0;
}

/*
 * Every check, in the order of the report.  To add one: write
 * `static int check_x(tm_doctor_report *out, struct ctx *c)` (append
 * problems with tm_doctor_add; return 0, or an error that stops doctor) and
 * list it here; if it finds fixable problems, list a repair in `repairs`.
 */
/* clang-format off */
static int (*const checks[])(tm_doctor_report *, struct ctx *) = {
	check_upgrade,
	check_config,
	check_project_names,
	check_thread_folders,
	check_projects,
	check_thread_files,
	check_ids,
	check_tree,
	check_status,
	check_lock,
	check_tmp,
	check_gitignore,
	check_merge_driver,
	check_gitattributes,
	check_hooks,
};
/* clang-format on */

int tm_doctor_check(tm_doctor_report *out, tm_store *s,
                    const tm_doctor_options *opts)
{
	tm_doctor_options defaults = TM_DOCTOR_OPTIONS_INIT;
	struct ctx c;
	size_t i;
	int error;

	if (!opts)
		opts = &defaults;
	if (opts->version != TM_DOCTOR_OPTIONS_VERSION)
		return tm_error_set(TM_EINVALID,
		                    "doctor options of version %u, expected "
		                    "%u",
		                    opts->version, TM_DOCTOR_OPTIONS_VERSION);
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.o = opts;
	if ((error = tm_fs_open_dir(&c.dirfd, tm_store_dir(s))) < 0)
		return error;
	error = load(&c);
	for (i = 0; error == 0 && i < sizeof(checks) / sizeof(*checks); i++)
		error = checks[i](out, &c);
	unload(&c);
	close(c.dirfd);
	return error;
}

/* ---- repairs ---- */

struct fix_ctx {
	tm_store *s;
	const tm_doctor_options *o;
	int dirfd;
};

static int repair_thread_id(tm_strv *done, struct fix_ctx *f,
                            const tm_doctor_problem *p)
{
	tm_thread *t = NULL;
	tm_buf line = TM_BUF_INIT;
	int error;

	error = tm_store_load_thread(&t, f->s, p->project, p->thread);
	if (error < 0 || (t->field_id && !strcmp(t->field_id, t->id)))
		goto done;
	/* The writer takes the id from the file name. */
	if ((error = tm_store_save_thread(f->s, p->project, t)) < 0)
		goto done;
	tm_buf_printf(&line, "rewrote the id field of '%s' (%s -> %s)", p->file,
	              t->field_id ? t->field_id : "none", t->id);
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_thread_free(t);
	return error;
}

static int repair_project_id(tm_strv *done, struct fix_ctx *f,
                             const tm_doctor_problem *p)
{
	tm_project *proj = NULL;
	tm_buf line = TM_BUF_INIT;
	const char *old;
	int error;

	error = tm_store_load_project(&proj, f->s, p->project);
	if (error < 0)
		return error;
	old = tm_project_get(proj, "id");
	if (old && !strcmp(old, p->project))
		goto done;
	tm_buf_printf(&line, "rewrote the id of '%s' (%s -> %s)", p->file,
	              old ? old : "none", p->project);
	tm_project_set(proj, "id", p->project);
	if ((error = tm_store_save_project(f->s, proj)) < 0)
		goto done;
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_buf_release(&line);
	tm_project_free(proj);
	return error;
}

static int repair_id(tm_strv *done, struct fix_ctx *f,
                     const tm_doctor_problem *p)
{
	if (!p->project)
		return 0;
	return p->thread ? repair_thread_id(done, f, p)
	                 : repair_project_id(done, f, p);
}

static int repair_gitignore(tm_strv *done, struct fix_ctx *f,
                            const tm_doctor_problem *p)
{
	const char *display = TM_STORE_DIRNAME "/.gitignore";
	tm_buf data = TM_BUF_INIT, list = TM_BUF_INIT, line = TM_BUF_INIT;
	tm_strv missing = TM_STRV_INIT;
	size_t i;
	int error;
	bool crlf;

	(void)p;
	error = tm_fs_read_at(&data, f->dirfd, ".gitignore", display,
	                      TM_MAX_FILE_SIZE);
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		error = 0;
	}
	if (error < 0)
		goto done;
	missing_ignores(&missing, tm_buf_cstr(&data));
	if (!missing.n)
		goto done;
	crlf = strstr(tm_buf_cstr(&data), "\r\n") != NULL;
	if (data.size && data.ptr[data.size - 1] != '\n')
		tm_buf_puts(&data, crlf ? "\r\n" : "\n");
	for (i = 0; i < missing.n; i++)
		tm_buf_printf(&data, "%s%s", missing.items[i],
		              crlf ? "\r\n" : "\n");
	error = tm_atomic_write_at(f->dirfd, ".gitignore", display,
	                           tm_buf_cstr(&data), data.size);
	if (error < 0)
		goto done;
	join(&list, &missing, ", ");
	tm_buf_printf(&line, "added %s to '%s'", tm_buf_cstr(&list), display);
	tm_strv_push_owned(done, tm_buf_detach(&line));
done:
	tm_strv_clear(&missing);
	tm_buf_release(&list);
	tm_buf_release(&data);
	return error;
}

/* Remove p->file (".threadmind/a/b.tmp") if it is still an old temp file. */
static int repair_tmp(tm_strv *done, struct fix_ctx *f,
                      const tm_doctor_problem *p)
{
	const char *prefix = TM_STORE_DIRNAME "/";
	tm_buf line = TM_BUF_INIT;
	char *path, *part, *next;
	struct stat st;
	int fd, sub, error = 0;

	if (!p->file || strncmp(p->file, prefix, strlen(prefix)) ||
	    !ends_with(p->file, TMP_SUFFIX))
		return 0;
	if ((fd = dup(f->dirfd)) < 0)
		return tm_error_set_errno(TM_ERROR, "cannot open '%s'",
		                          TM_STORE_DIRNAME);
	path = tm_xstrdup(p->file + strlen(prefix));
	/* Walk down without following links. */
	for (part = path; (next = strchr(part, '/')); part = next + 1) {
		*next = '\0';
		error = tm_fs_open_subdir(&sub, fd, part, p->file, false);
		close(fd);
		if (error < 0)
			goto done;
		fd = sub;
	}
	if (fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    S_ISDIR(st.st_mode) || age_of(&st) <= f->o->tmp_min_age)
		goto close;
	if ((error = tm_fs_unlink_at(fd, part, p->file)) < 0)
		goto close;
	tm_buf_printf(&line, "removed '%s'", p->file);
	tm_strv_push_owned(done, tm_buf_detach(&line));
close:
	close(fd);
done:
	if (error == TM_ENOTFOUND) {
		tm_error_clear();
		error = 0;
	}
	free(path);
	return error;
}

/*
 * The safe repairs, by kind.  A stale lock needs none: taking the store
 * lock takes it over (see tm_doctor_fix).
 */
static const struct {
	const char *kind;
	int (*run)(tm_strv *done, struct fix_ctx *f,
	           const tm_doctor_problem *p);
} repairs[] = {
        {TM_DOCTOR_ID_MISMATCH, repair_id},
        {TM_DOCTOR_GITIGNORE, repair_gitignore},
        {TM_DOCTOR_STRAY_TMP, repair_tmp},
};

/* Is the .lock stale now (and removable by a take-over)? */
static bool lock_is_stale(struct fix_ctx *f)
{
	struct stat st;

	return fstatat(f->dirfd, LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       age_of(&st) > f->o->lock_stale_after &&
	       (!S_ISDIR(st.st_mode) || dir_is_empty(f->dirfd, LOCK_NAME));
}

int tm_doctor_fix(tm_strv *done, tm_strv *failed, tm_store *s,
                  const tm_doctor_report *problems,
                  const tm_doctor_options *opts)
{
	tm_doctor_options defaults = TM_DOCTOR_OPTIONS_INIT;
	struct fix_ctx f;
	size_t i, k;
	bool stale;
	int error;

	if (!opts)
		opts = &defaults;
	if (!tm_doctor_count_fixable(problems))
		return 0;
	f.s = s;
	f.o = opts;
	if ((error = tm_fs_open_dir(&f.dirfd, tm_store_dir(s))) < 0)
		return error;
	stale = lock_is_stale(&f);
	if ((error = tm_store_lock(s)) < 0) {
		close(f.dirfd);
		return error;
	}
	for (i = 0; i < problems->n; i++) {
		const tm_doctor_problem *p = &problems->items[i];

		if (!p->fixable)
			continue;
		if (!strcmp(p->kind, TM_DOCTOR_STALE_LOCK) && stale) {
			tm_buf line = TM_BUF_INIT;

			tm_buf_printf(&line, "removed the stale lock '%s'",
			              p->file);
			tm_strv_push_owned(done, tm_buf_detach(&line));
			stale = false;
		}
		for (k = 0; k < sizeof(repairs) / sizeof(*repairs); k++) {
			if (strcmp(p->kind, repairs[k].kind))
				continue;
			if (repairs[k].run(done, &f, p) < 0)
				tm_strv_push(failed, tm_error_last());
			tm_error_clear();
		}
		tm_store_lock_refresh(s);
	}
	tm_store_unlock(s);
	close(f.dirfd);
	return 0;
}
