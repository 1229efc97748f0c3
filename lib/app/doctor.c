/*
 * `doctor`'s report, the helpers its checks (doctor_check.c) and repairs
 * (doctor_fix.c) share, and the thread checks the post-merge hook runs too.
 */
#include "doctor.h"
#include "doctor_internal.h"
#include "yaml.h"
#include "store_files.h"

#include "fs.h"
#include "error.h"
#include "reintegrate.h"
#include "slug.h"
#include "tree.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the report ---- */

void tm_doctor_report_clear(tm_doctor_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		TM_FREE_ALL(r->items[i].file, r->items[i].project,
			    r->items[i].thread, r->items[i].message);
	free(r->items);
	memset(r, 0, sizeof(*r));
}

tm_doctor_problem *tm_doctor_add(tm_doctor_report *r, const char *kind,
				 const char *file, bool fixable,
				 const char *fmt, ...)
{
	tm_doctor_problem *p;
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = tm_xstrvfmt(fmt, ap);
	va_end(ap);
	tm_xgrow((void **)&r->items, &r->alloc, r->n + 1, sizeof(*r->items));
	p = &r->items[r->n++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->file = tm_xstrdup_or_null(file);
	p->message = msg;
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

/* ---- helpers (doctor_internal.h) ---- */

char *tm_doctor_rel(const char *a, const char *b, const char *c)
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

char *tm_doctor_thread_file(const char *project, const char *id)
{
	tm_buf name = TM_BUF_INIT;
	char *r;

	tm_buf_printf(&name, "%s.md", id);
	r = tm_doctor_rel("threads", project, tm_buf_cstr(&name));
	tm_buf_release(&name);
	return r;
}

char *tm_doctor_project_file(const char *project)
{
	tm_buf name = TM_BUF_INIT;
	char *r;

	tm_buf_printf(&name, "%s.json", project);
	r = tm_doctor_rel("projects", tm_buf_cstr(&name), NULL);
	tm_buf_release(&name);
	return r;
}

bool tm_doctor_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

double tm_doctor_age(const struct stat *st)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (double)(now.tv_sec - st->st_mtim.tv_sec) +
	       (double)(now.tv_nsec - st->st_mtim.tv_nsec) / 1e9;
}

int tm_doctor_list(tm_strv *out, tm_store *s, const char *sub)
{
	int fd, error = tm_store_open_folder(&fd, s, sub, NULL, false);
	char *display;

	if (error < 0)
		return error;
	display = tm_store_file_display(s, NULL, NULL, sub);
	error = tm_fs_list_dir(out, fd, display);
	free(display);
	close(fd);
	return error;
}

bool tm_doctor_stat(struct stat *st, tm_store *s, const char *sub,
		    const char *name)
{
	int fd, error;
	bool found;

	error = sub ? tm_store_open_folder(&fd, s, sub, NULL, false)
		    : tm_fs_open_dir(&fd, tm_store_dir(s));
	if (error < 0) {
		tm_error_clear();
		return false;
	}
	found = fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) == 0;
	close(fd);
	return found;
}

bool tm_doctor_dir_is_empty(tm_store *s, const char *name)
{
	tm_strv names = TM_STRV_INIT;
	bool empty = tm_doctor_list(&names, s, name) == 0 && names.n == 0;

	tm_error_clear();
	tm_strv_clear(&names);
	return empty;
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

void tm_doctor_missing_ignores(tm_strv *out, const char *data)
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

void tm_doctor_join(tm_buf *out, const tm_strv *v, const char *sep)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		tm_buf_printf(out, "%s%s", i ? sep : "", v->items[i]);
}

/* ---- loading a project's threads ---- */

int tm_doctor_project_load(tm_doctor_project *out, tm_store *s, const char *id)
{
	tm_strv ids = TM_STRV_INIT;
	struct stat st;
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = tm_id_validate(id, "project")) < 0)
		return error;
	out->id = tm_xstrdup(id);
	if (tm_doctor_stat(&st, s, "threads", id) && S_ISLNK(st.st_mode)) {
		out->folder_link = true; /* check_thread_folders says so */
		return 0;
	}
	if ((error = tm_store_list_threads(&ids, &out->bad, s, id)) < 0) {
		if (error == TM_ETIMEOUT)
			goto done;
		out->folder_error = tm_xstrdup(tm_error_last());
		tm_error_clear();
		return 0;
	}
	out->threads = tm_xcalloc(ids.n ? ids.n : 1, sizeof(tm_thread *));
	for (i = 0; i < ids.n; i++) {
		tm_thread *t = NULL;

		if ((error = tm_store_load_thread(&t, s, id, ids.items[i])) ==
		    0) {
			out->threads[out->n++] = t;
		} else if (error == TM_ETIMEOUT) {
			goto done; /* a hook's budget is spent */
		} else {
			tm_strv_push(&out->unreadable, ids.items[i]);
			tm_strv_push(&out->errors, tm_error_last());
		}
	}
	error = 0;
	tm_error_clear();
done:
	tm_strv_clear(&ids);
	return error;
}

void tm_doctor_project_clear(tm_doctor_project *p)
{
	free(p->id);
	tm_strv_clear(&p->bad);
	tm_strv_clear(&p->unreadable);
	tm_strv_clear(&p->errors);
	free(p->folder_error);
	tm_thread_array_free(p->threads, p->n);
	memset(p, 0, sizeof(*p));
}

/* ---- the thread checks (shared with the post-merge hook) ---- */

tm_doctor_problem *tm_doctor_add_thread(tm_doctor_report *out, const char *kind,
					const tm_doctor_project *pr,
					const char *id, bool fixable,
					const char *message)
{
	char *file = tm_doctor_thread_file(pr->id, id);
	tm_doctor_problem *p;

	p = tm_doctor_add(out, kind, file, fixable, "%s", message);
	p->project = tm_xstrdup(pr->id);
	p->thread = tm_xstrdup(id);
	free(file);
	return p;
}

/*
 * The checks of one project's threads, each of one kind (`msg` is scratch
 * for its messages).  tm_doctor_check_threads runs each over every project,
 * so that the report lists the problems kind by kind.
 */
typedef void (*thread_check)(tm_doctor_report *out, const tm_doctor_project *pr,
			     tm_buf *msg);

/* Thread files: names that are no ids, files that cannot be read. */
static void check_files(tm_doctor_report *out, const tm_doctor_project *pr,
			tm_buf *msg)
{
	size_t k;

	(void)msg;
	if (pr->folder_link)
		return;
	if (pr->folder_error) {
		char *file = tm_doctor_rel("threads", pr->id, NULL);

		tm_doctor_add(out, TM_DOCTOR_UNREADABLE, file, false, "%s",
			      pr->folder_error);
		free(file);
		return;
	}
	for (k = 0; k < pr->bad.n; k++) {
		char *file = tm_doctor_rel("threads", pr->id, pr->bad.items[k]);
		tm_doctor_problem *p;

		if (!strcmp(pr->bad.items[k], ".md"))
			p = tm_doctor_add(out, TM_DOCTOR_BAD_ID, file, false,
					  "'%s': a ThreadMind 0.4 thread with "
					  "an empty id; the upgrade ('git "
					  "threadmind migrate', or --fix) "
					  "gives it an id from its title",
					  file);
		else
			p = tm_doctor_add(out, TM_DOCTOR_BAD_ID, file, false,
					  "'%s': the name is not a valid "
					  "thread id (lower-case letters, "
					  "digits and dashes); rename it",
					  file);
		p->project = tm_xstrdup(pr->id);
		free(file);
	}
	for (k = 0; k < pr->unreadable.n; k++)
		tm_doctor_add_thread(out, TM_DOCTOR_UNREADABLE, pr,
				     pr->unreadable.items[k], false,
				     pr->errors.items[k]);
}

/* The `id` field of each thread against its file name. */
static void check_ids(tm_doctor_report *out, const tm_doctor_project *pr,
		      tm_buf *msg)
{
	size_t k;

	for (k = 0; k < pr->n; k++) {
		const tm_thread *t = pr->threads[k];
		char *file;

		if (t->field_id && !strcmp(t->field_id, t->id))
			continue;
		file = tm_doctor_thread_file(pr->id, t->id);
		tm_buf_clear(msg);
		if (t->field_id)
			tm_buf_printf(msg,
				      "'%s' has id '%s' but its file name "
				      "says '%s' (the file name wins); --fix "
				      "rewrites the id field",
				      file, t->field_id, t->id);
		else {
			/* the line as the writer writes it */
			tm_buf_printf(msg,
				      "'%s' has no id field; --fix writes "
				      "'id: ",
				      file);
			tm_yaml_put_scalar(msg, t->id);
			tm_buf_putc(msg, '\'');
		}
		tm_doctor_add_thread(out, TM_DOCTOR_ID_MISMATCH, pr, t->id,
				     true, tm_buf_cstr(msg));
		free(file);
	}
}

/* A problem of `kind` with thread t's parent: "thread 'T'BEFORE 'PARENT'
 * AFTER; VERB it with 'git threadmind move T <parent>'" (`msg` is scratch). */
static void add_tree_problem(tm_doctor_report *out, tm_buf *msg,
			     const tm_doctor_project *pr, const tm_thread *t,
			     const char *kind, const char *before,
			     const char *after, const char *verb)
{
	tm_buf_clear(msg);
	tm_buf_printf(msg,
		      "thread '%s'%s '%s' %s; %s it with 'git threadmind move "
		      "%s <parent>'",
		      t->id, before, t->parent_id, after, verb, t->id);
	tm_doctor_add_thread(out, kind, pr, t->id, false, tm_buf_cstr(msg));
}

/* Orphans and cycles, from the tree the commands draw. */
static void check_tree(tm_doctor_report *out, const tm_doctor_project *pr,
		       tm_buf *msg)
{
	tm_tree *tree = NULL;
	size_t k;

	if (tm_tree_build(&tree, (const tm_thread *const *)pr->threads, pr->n) <
	    0) {
		tm_error_clear();
		return;
	}
	for (k = 0; k < tree->n; k++) {
		const tm_tree_node *n = &tree->nodes[k];
		const tm_thread *t = n->thread;

		if ((n->flags & TM_TREE_ORPHAN) &&
		    !tm_strv_contains(&pr->unreadable, t->parent_id))
			add_tree_problem(out, msg, pr, t, TM_DOCTOR_ORPHAN,
					 ": its parent", "does not exist",
					 "re-parent");
		if (n->flags & TM_TREE_CYCLE)
			add_tree_problem(out, msg, pr, t, TM_DOCTOR_CYCLE,
					 " is in a parent cycle (its parent",
					 "descends from it)", "break");
	}
	tm_tree_free(tree);
}

/* Merged threads holding lines their parent lacks (reintegrate.h). */
static void check_unintegrated(tm_doctor_report *out,
			       const tm_doctor_project *pr, tm_buf *msg)
{
	tm_unintegrated_list l;
	size_t k;

	tm_find_unintegrated(&l, (const tm_thread *const *)pr->threads, pr->n);
	for (k = 0; k < l.n; k++) {
		const tm_unintegrated *u = &l.items[k];

		tm_buf_clear(msg);
		tm_buf_printf(msg,
			      "thread '%s' was merged into '%s' but holds %zu "
			      "line%s that '%s' lacks (written on a branch the "
			      "merge had not reached); run 'git threadmind "
			      "merge --again %s'",
			      u->id, u->into, u->missing,
			      u->missing == 1 ? "" : "s", u->into, u->id);
		tm_doctor_add_thread(out, TM_DOCTOR_UNINTEGRATED, pr, u->id,
				     false, tm_buf_cstr(msg));
	}
	tm_unintegrated_list_clear(&l);
}

void tm_doctor_check_threads(tm_doctor_report *out,
			     const tm_doctor_project *projects, size_t n)
{
	static const thread_check checks[] = {check_files, check_ids,
					      check_tree, check_unintegrated};
	tm_buf msg = TM_BUF_INIT;
	size_t c, i;

	for (c = 0; c < sizeof(checks) / sizeof(*checks); c++)
		for (i = 0; i < n; i++)
			checks[c](out, &projects[i], &msg);
	tm_buf_release(&msg);
}
