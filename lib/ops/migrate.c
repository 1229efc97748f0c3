/*
 * The 0.4 upgrade (migrate.h): 0.4's empty id renamed, trees/{project}.json
 * applied once per entry, then deleted; an index that comes back after the
 * upgrade never overrides a thread file changed since.
 */
#include "migrate.h"
#include "migrate_internal.h"

#include "store_files.h"

#include "error.h"
#include "fs.h"
#include "git.h"
#include "recover.h"
#include "slug.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tm_migrate__say(tm_strv *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tm_strv_push_owned(v, tm_xstrvfmt(fmt, ap));
	va_end(ap);
}

/* A parent as messages name it: 'id' in quotes (the thread `null` is no
 * root), or (root).  Written to `b` (cleared first). */
static const char *parent_name(tm_buf *b, const char *id)
{
	tm_buf_clear(b);
	if (id)
		tm_buf_printf(b, "'%s'", id);
	else
		tm_buf_puts(b, "(root)");
	return tm_buf_cstr(b);
}

bool tm_migrate__has_dir(tm_store *s, const char *name)
{
	char *path = NULL;
	struct stat st;
	tm_buf b = TM_BUF_INIT;
	bool r;

	tm_buf_printf(&b, "%s/%s", tm_store_dir(s), name);
	path = tm_buf_detach(&b);
	r = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
	free(path);
	return r;
}

static bool is_index_name(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && !strcmp(name + len - 5, ".json");
}

/* The names in folder `name` of the store (sorted), and the open folder. */
int tm_migrate__list_folder(tm_strv *out, tm_store *s, const char *name,
			    int *out_fd)
{
	tm_buf display = TM_BUF_INIT;
	int fd, error;

	tm_buf_printf(&display, "%s/%s", tm_store_dir(s), name);
	error = tm_fs_open_dir(&fd, tm_buf_cstr(&display));
	if (error == 0 &&
	    (error = tm_fs_list_dir(out, fd, tm_buf_cstr(&display))) < 0)
		close(fd);
	tm_buf_release(&display);
	if (error < 0)
		return error;
	*out_fd = fd;
	return 0;
}

/* trees/ holds a *.json index (or cannot be listed: migrate says why). */
static bool has_index(tm_store *s)
{
	tm_strv names = TM_STRV_INIT;
	bool r = false;
	size_t i;
	int fd;

	if (!tm_migrate__has_dir(s, "trees"))
		return false;
	if (tm_migrate__list_folder(&names, s, "trees", &fd) < 0) {
		tm_error_clear();
		return true;
	}
	close(fd);
	for (i = 0; i < names.n && !r; i++)
		r = is_index_name(names.items[i]);
	tm_strv_clear(&names);
	return r;
}

bool tm_migrate_needed(tm_store *s, bool prune)
{
	tm_strv projects = TM_STRV_INIT;
	bool r;

	if (has_index(s) || (prune && tm_migrate__has_dir(s, "stats")))
		return true;
	tm_migrate__empty_id_projects(&projects, s);
	r = projects.n > 0;
	tm_strv_clear(&projects);
	return r;
}

bool tm_migrate_is_04_index(const char *path)
{
	const char *at = strstr(path, ".threadmind/trees/"), *name;

	if (!at || (at != path && at[-1] != '/'))
		return false;
	name = at + strlen(".threadmind/trees/");
	return !strchr(name, '/') && is_index_name(name);
}

const char *tm_migrate_closing_line(void)
{
	return "hint: commit .threadmind/ so that the others get it too; "
	       "ThreadMind 0.4 cannot read the store any more: the whole "
	       "team upgrades together (README: Upgrading from ThreadMind "
	       "0.4)";
}

const char *tm_migrate_came_back_advice(void)
{
	return "ThreadMind 0.4's index came back with a merge: someone still "
	       "runs 0.4; 'git threadmind resolve' applies what it may and "
	       "drops it; ask them to upgrade (README: Upgrading from "
	       "ThreadMind 0.4)";
}

/* ---- the index ---- */

static const tm_migrate_link *find_link(const tm_migrate_index *idx,
					const char *id)
{
	return tm_find_by_string(idx->links, idx->n, sizeof(*idx->links),
				 offsetof(tm_migrate_link, id), id);
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* What applying one index does. */
typedef struct {
	const char *project;
	const char *name;      /* trees/{name} */
	const char *since;     /* the commit that deleted it before, or NULL */
	tm_migrate_index kept; /* the links that wait (unreadable files) */
	size_t overridden;     /* links not taken: the file changed since */
} index_run;

/*
 * Whether a link may set the parent of thread `id`: always on a first
 * upgrade; for an index that came back after the upgrade (ir->since) only
 * when the thread file is what it was at that upgrade, or is new since.
 */
static bool may_apply(tm_migrate_ctx *c, index_run *ir, const char *id)
{
	tm_buf rel = TM_BUF_INIT, file = TM_BUF_INIT;
	int r;

	if (!ir->since)
		return true;
	tm_buf_printf(&rel, "%sthreads/%s/%s.md", c->prefix, ir->project, id);
	tm_buf_printf(&file, "%s/threads/%s/%s.md", tm_store_dir(c->s),
		      ir->project, id);
	r = tm_git_same_as_at(tm_store_git(c->s), ir->since, tm_buf_cstr(&rel),
			      tm_buf_cstr(&file));
	tm_error_clear();
	tm_buf_release(&rel);
	tm_buf_release(&file);
	return r == TM_GIT_SAME || r == TM_GIT_ABSENT_THEN;
}

/* Align one thread on its link; a file that cannot be read waits in
 * ir->kept and is named in c->left. */
static int align_thread(tm_migrate_ctx *c, index_run *ir, const char *id,
			const tm_migrate_link *l)
{
	tm_buf from = TM_BUF_INIT, to = TM_BUF_INIT;
	tm_thread *t = NULL;
	const char *parent = tm_migrate__mapped(c, ir->project, l->parent);
	int error = 0;

	if (tm_migrate__load_thread(&t, c, ir->project, id) < 0) {
		tm_migrate__say(
			c->left,
			"%s; its parent from trees/%s (%s) waits in the index, "
			"which is kept: fix the file, then run 'git threadmind "
			"migrate'",
			tm_error_last(), ir->name, parent_name(&to, parent));
		tm_error_clear();
		tm_xgrow((void **)&ir->kept.links, &ir->kept.alloc,
			 ir->kept.n + 1, sizeof(tm_migrate_link));
		ir->kept.links[ir->kept.n].id = tm_xstrdup(l->id);
		ir->kept.links[ir->kept.n++].parent =
			tm_xstrdup_or_null(l->parent);
		goto done;
	}
	/* 0.4 wrote the string "null" for a root. */
	if (parent && !strcmp(parent, "null") &&
	    !tm_store_thread_exists(c->s, ir->project, "null"))
		parent = NULL;
	if ((!strcmp(t->id, TM_ROOT_THREAD_ID) && parent == NULL &&
	     t->parent_id == NULL) ||
	    same(parent, t->parent_id))
		goto done;
	if (!may_apply(c, ir, id)) {
		tm_migrate__say(
			c->report,
			"%s/%s: trees/%s (ThreadMind 0.4) says parent %s; kept "
			"%s: the file changed since the upgrade (%.7s)",
			ir->project, t->id, ir->name, parent_name(&to, parent),
			parent_name(&from, t->parent_id), ir->since);
		ir->overridden++;
		goto done;
	}
	tm_migrate__say(c->report, "%s/%s: parent %s -> %s", ir->project, t->id,
			parent_name(&from, t->parent_id),
			parent_name(&to, parent));
	if (c->dry_run)
		goto done;
	tm_thread_set(&t->parent_id, parent);
	if ((error = tm_store_lock_refresh(c->s)) == 0)
		error = tm_store_save_thread(c->s, ir->project, t);
done:
	tm_thread_free(t);
	tm_buf_release(&from);
	tm_buf_release(&to);
	return error;
}

/* Align the threads of one project on its index (ids mapped already). */
static int align_project(tm_migrate_ctx *c, index_run *ir,
			 const tm_migrate_index *idx, bool *unlisted)
{
	tm_strv ids = TM_STRV_INIT;
	const char *renamed = tm_migrate__renamed_to(c, ir->project);
	size_t i;
	int error = 0;

	*unlisted = false;
	if (tm_store_list_threads(&ids, NULL, c->s, ir->project) < 0) {
		tm_migrate__say(c->left,
				"%s; trees/%s is kept: fix it, then run 'git "
				"threadmind "
				"migrate'",
				tm_error_last(), ir->name);
		tm_error_clear();
		*unlisted = true;
		return 0;
	}
	if (c->dry_run && renamed && !tm_strv_contains(&ids, renamed))
		tm_strv_push(&ids, renamed); /* still in .md */
	for (i = 0; i < ids.n && error == 0; i++) {
		const tm_migrate_link *l = find_link(idx, ids.items[i]);

		if (l)
			error = align_thread(c, ir, ids.items[i], l);
	}
	for (i = 0; i < idx->n && error == 0; i++) {
		if (tm_strv_contains(&ids, idx->links[i].id))
			continue;
		tm_migrate__say(c->report,
				"%s/%s: in trees/%s but has no thread file; %s",
				ir->project,
				*idx->links[i].id ? idx->links[i].id : "''",
				ir->name,
				c->dry_run ? "would be ignored" : "ignored");
	}
	tm_strv_clear(&ids);
	return error;
}

/* The entries of an index that were not understood, one line each. */
static void report_skipped(tm_migrate_ctx *c, const char *name,
			   const tm_strv *skipped)
{
	size_t i;

	for (i = 0; i < skipped->n; i++)
		tm_migrate__say(
			c->report,
			"trees/%s: entry '%s' skipped (not a valid thread id)",
			name, skipped->items[i]);
}

/* Map 0.4's empty id in every link to the renamed thread's new id. */
static void map_links(tm_migrate_ctx *c, const char *project,
		      tm_migrate_index *idx)
{
	const char *to = tm_migrate__renamed_to(c, project);
	size_t i;

	for (i = 0; to && i < idx->n; i++) {
		if (!*idx->links[i].id)
			tm_thread_set(&idx->links[i].id, to);
		if (idx->links[i].parent && !*idx->links[i].parent)
			tm_thread_set(&idx->links[i].parent, to);
	}
}
/*
 * Rename trees/NAME to trees/NAME.invalid (or NAME.invalid-2, … when taken)
 * so that it no longer stops anything; `why` says what is wrong with it.
 */
static void set_aside(tm_migrate_ctx *c, const char *name, const char *why)
{
	tm_buf target = TM_BUF_INIT, base = TM_BUF_INIT;

	tm_buf_printf(&base, "%s.invalid", name);
	if (!tm_fs_unused_name(&target, c->fd, tm_buf_cstr(&base))) {
		tm_migrate__say(c->left,
				"%s; move trees/%s away by hand "
				"(trees/%s.invalid-* are "
				"all taken)",
				why, name, name);
		goto done;
	}
	if (c->dry_run) {
		tm_migrate__say(c->report,
				"would set aside trees/%s as trees/%s", name,
				tm_buf_cstr(&target));
		tm_migrate__say(c->left,
				"%s; migrate would set it aside as trees/%s: "
				"then check "
				"the thread files' parentId by hand",
				why, tm_buf_cstr(&target));
		goto done;
	}
	if (tm_store_lock_refresh(c->s) < 0 ||
	    renameat(c->fd, name, c->fd, tm_buf_cstr(&target)) < 0) {
		tm_migrate__say(
			c->left,
			"%s; could not set trees/%s aside (%s): move it "
			"away by hand",
			why, name,
			*tm_error_last() ? tm_error_last() : strerror(errno));
		tm_error_clear();
		goto done;
	}
	tm_migrate__say(c->report, "set aside trees/%s as trees/%s", name,
			tm_buf_cstr(&target));
	tm_migrate__say(
		c->left,
		"%s; it was set aside as trees/%s: check the thread files' "
		"parentId by hand, then delete it",
		why, tm_buf_cstr(&target));
done:
	tm_buf_release(&target);
	tm_buf_release(&base);
}

/*
 * When trees/{name} was deleted before in HEAD's history (the upgrade's
 * commit), the index came back with a merge of someone still on 0.4: that
 * commit, in `hex`.
 */
static bool came_back(char *hex, tm_migrate_ctx *c, const char *name)
{
	tm_buf path = TM_BUF_INIT;
	int r;

	if (!c->prefix)
		return false;
	tm_buf_printf(&path, "%strees/%s", c->prefix, name);
	r = tm_git_last_deletion(hex, tm_store_git(c->s), tm_buf_cstr(&path));
	tm_error_clear(); /* no history to ask: a first upgrade */
	tm_buf_release(&path);
	return r == 1;
}

/* Write what waits of the index back (only those links: an entry is
 * applied once), or delete it when nothing waits. */
static int settle_index(tm_migrate_ctx *c, index_run *ir,
			const tm_migrate_index *idx, const char *display)
{
	tm_buf data = TM_BUF_INIT;
	int error = 0;

	if (ir->kept.n) {
		if (ir->kept.n == idx->n && !idx->skipped.n)
			return 0; /* nothing applied: as it is */
		tm_migrate__say(c->report,
				"trees/%s: %s with the %zu entr%s that wait%s",
				ir->name, c->dry_run ? "would be kept" : "kept",
				ir->kept.n, ir->kept.n == 1 ? "y" : "ies",
				ir->kept.n == 1 ? "s" : "");
		if (c->dry_run)
			return 0;
		tm_migrate__write_index(&data, &ir->kept);
		if ((error = tm_store_lock_refresh(c->s)) == 0)
			error = tm_store_write_file(c->s, "trees", NULL,
						    ir->name, &data);
		tm_buf_release(&data);
		return error;
	}
	tm_migrate__say(c->report, "%s trees/%s",
			c->dry_run ? "would delete" : "deleted", ir->name);
	if (!c->dry_run && (error = tm_store_lock_refresh(c->s)) == 0)
		error = tm_fs_unlink_at(c->fd, ir->name, display);
	return error;
}

/* The upgrade of one trees/NAME index. */
static int migrate_index(tm_migrate_ctx *c, const char *name)
{
	tm_buf data = TM_BUF_INIT, display = TM_BUF_INIT, why = TM_BUF_INIT;
	tm_migrate_index idx;
	index_run ir;
	char since[41];
	char *project = tm_xstrndup(name, strlen(name) - 5);
	bool unlisted;
	int error = 0;

	memset(&idx, 0, sizeof(idx));
	memset(&ir, 0, sizeof(ir));
	ir.project = project;
	ir.name = name;
	tm_buf_printf(&display, "%s/trees/%s", tm_store_dir(c->s), name);
	if (tm_id_validate(project, "project") < 0) {
		tm_buf_printf(&why, "'%s': '%s' is not a project id",
			      tm_buf_cstr(&display), project);
		tm_error_clear();
		set_aside(c, name, tm_buf_cstr(&why));
		goto done;
	}
	/* an empty or broken index: 0.4's complete .tmp of it, if any */
	if (tm_recover_index_read(&data, c->report, c->fd, name,
				  tm_buf_cstr(&display), c->dry_run) < 0 ||
	    tm_migrate__parse_index(&idx, tm_buf_cstr(&data), data.size,
				    tm_buf_cstr(&display)) < 0) {
		report_skipped(c, name, &idx.skipped);
		if (idx.skipped.n)
			tm_buf_printf(&why,
				      "'%s': none of its %zu entries names a "
				      "valid thread id",
				      tm_buf_cstr(&display), idx.skipped.n);
		else
			tm_buf_puts(&why, tm_error_last());
		tm_error_clear();
		set_aside(c, name, tm_buf_cstr(&why));
		goto done;
	}
	report_skipped(c, name, &idx.skipped);
	map_links(c, project, &idx);
	if (came_back(since, c, name))
		ir.since = since;
	if ((error = align_project(c, &ir, &idx, &unlisted)) < 0 || unlisted)
		goto done;
	if ((error = settle_index(c, &ir, &idx, tm_buf_cstr(&display))) < 0)
		goto done;
	if (ir.since)
		tm_migrate__say(
			c->left,
			"trees/%s came back after the upgrade (commit %.7s): "
			"someone still writes it with ThreadMind 0.4; %s%s; "
			"ask "
			"them to upgrade (README: Upgrading from ThreadMind "
			"0.4); "
			"'git threadmind resolve' stages the deletion while "
			"the "
			"merge is in progress",
			name, ir.since,
			ir.overridden
				? "the parents it holds for threads "
				  "changed since were not applied (above)"
				: "its parents agree with the thread files",
			c->dry_run ? "" : ", it was deleted again");
done:
	tm_migrate_index_clear(&idx);
	tm_migrate_index_clear(&ir.kept);
	free(project);
	tm_buf_release(&data);
	tm_buf_release(&display);
	tm_buf_release(&why);
	return error;
}

/* Remove the folder once empty (a kept or set-aside index stays in it:
 * c->left names those). */
static void remove_dir_if_empty(tm_migrate_ctx *c, const char *name)
{
	tm_buf path = TM_BUF_INIT;

	tm_buf_printf(&path, "%s/%s", tm_store_dir(c->s), name);
	if (!c->dry_run)
		(void)rmdir(tm_buf_cstr(&path));
	tm_buf_release(&path);
}

static int migrate_trees(tm_migrate_ctx *c)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;
	int error;

	if (tm_migrate__list_folder(&names, c->s, "trees", &c->fd) < 0) {
		tm_migrate__say(c->left,
				"%s; the 0.4 upgrade needs it: fix it (or move "
				"it away), "
				"then run 'git threadmind migrate'",
				tm_error_last());
		tm_error_clear();
		return 0;
	}
	error = 0;
	for (i = 0; i < names.n && error == 0; i++)
		if (is_index_name(names.items[i]))
			error = migrate_index(c, names.items[i]);
	close(c->fd);
	tm_strv_clear(&names);
	if (error == 0)
		remove_dir_if_empty(c, "trees");
	return error;
}

static int prune_stats(tm_migrate_ctx *c)
{
	tm_strv names = TM_STRV_INIT;
	size_t i;
	int error;

	error = tm_migrate__list_folder(&names, c->s, "stats", &c->fd);
	if (error < 0)
		return error;
	for (i = 0; i < names.n && error == 0; i++) {
		tm_buf display = TM_BUF_INIT;

		tm_buf_printf(&display, "%s/stats/%s", tm_store_dir(c->s),
			      names.items[i]);
		tm_migrate__say(c->report, "%s stats/%s",
				c->dry_run ? "would delete" : "deleted",
				names.items[i]);
		if (!c->dry_run && (error = tm_store_lock_refresh(c->s)) == 0)
			error = tm_fs_unlink_at(c->fd, names.items[i],
						tm_buf_cstr(&display));
		tm_buf_release(&display);
	}
	close(c->fd);
	tm_strv_clear(&names);
	if (error == 0)
		remove_dir_if_empty(c, "stats");
	return error;
}

int tm_migrate_run(tm_strv *report, tm_strv *left, tm_store *s, bool dry_run,
		   bool prune)
{
	tm_migrate_ctx c;
	size_t i;
	int error;

	if (!tm_migrate_needed(s, prune))
		return 0;
	if (!dry_run && (error = tm_store_lock(s)) < 0)
		return error;
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.report = report;
	c.left = left;
	c.dry_run = dry_run;
	c.fd = -1;
	c.prefix = tm_git_path_in_workdir(tm_store_git(s), tm_store_dir(s));
	error = tm_migrate__rename_empty_ids(&c);
	if (error == 0 && has_index(s))
		error = migrate_trees(&c);
	if (error == 0 && prune && tm_migrate__has_dir(s, "stats"))
		error = prune_stats(&c);
	if (!dry_run)
		error = tm_store_unlock_after(s, error);
	for (i = 0; i < c.nrenames; i++) {
		free(c.renames[i].project);
		free(c.renames[i].to);
	}
	free(c.renames);
	free(c.prefix);
	return error;
}
