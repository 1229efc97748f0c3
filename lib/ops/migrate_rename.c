/*
 * The 0.4 upgrade's first step (migrate.h): ThreadMind 0.4 gave a title
 * without an ASCII letter or digit the empty id, a file named `.md`; it
 * gets the id the seed's rules make of its title, its children follow.
 */
#include "migrate.h"
#include "migrate_internal.h"

#include "store_files.h"

#include "config.h"
#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "slug.h"
#include "text.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The projects whose folder holds threads/{project}/.md, sorted. */
void tm_migrate__empty_id_projects(tm_strv *out, tm_store *s)
{
	tm_strv names = TM_STRV_INIT;
	struct stat st;
	tm_buf name = TM_BUF_INIT;
	size_t i;
	int fd;

	if (!tm_migrate__has_dir(s, "threads") ||
	    tm_migrate__list_folder(&names, s, "threads", &fd) < 0) {
		tm_error_clear();
		return;
	}
	for (i = 0; i < names.n; i++) {
		if (tm_id_validate(names.items[i], "project") < 0)
			continue;
		tm_buf_clear(&name);
		tm_buf_printf(&name, "%s/.md", names.items[i]);
		if (fstatat(fd, tm_buf_cstr(&name), &st, AT_SYMLINK_NOFOLLOW) ==
			    0 &&
		    S_ISREG(st.st_mode))
			tm_strv_push(out, names.items[i]);
	}
	tm_error_clear();
	close(fd);
	tm_buf_release(&name);
	tm_strv_clear(&names);
}

/* The new id of `project`'s empty-id thread, NULL when it has none. */
const char *tm_migrate__renamed_to(const tm_migrate_ctx *c, const char *project)
{
	size_t i;

	for (i = 0; i < c->nrenames; i++)
		if (!strcmp(c->renames[i].project, project))
			return c->renames[i].to;
	return NULL;
}

/* An id as the upgrade sees it: "" is the empty-id thread's new id. */
const char *tm_migrate__mapped(const tm_migrate_ctx *c, const char *project,
			       const char *id)
{
	const char *to;

	if (id && !*id && (to = tm_migrate__renamed_to(c, project)))
		return to;
	return id;
}

/* Load thread `id`; with --dry-run the renamed thread is still in `.md`. */
int tm_migrate__load_thread(tm_thread **out, tm_migrate_ctx *c,
			    const char *project, const char *id)
{
	tm_buf data = TM_BUF_INIT;
	char *display;
	int error;

	if (!c->dry_run || !tm_migrate__renamed_to(c, project) ||
	    strcmp(tm_migrate__renamed_to(c, project), id))
		return tm_store_load_thread(out, c->s, project, id);
	display = tm_store_file_display(c->s, "threads", project, ".md");
	error = tm_store_read_file(&data, c->s, "threads", project, ".md");
	if (error == 0)
		error = tm_frontmatter_parse(out, tm_buf_cstr(&data), data.size,
					     id, display);
	free(display);
	tm_buf_release(&data);
	return error;
}

/* Children written with 0.4's empty parentId follow the renamed thread. */
static int repoint_children(tm_migrate_ctx *c, const char *project,
			    const char *to, const tm_strv *ids)
{
	tm_thread *t = NULL;
	size_t i;
	int error = 0;

	for (i = 0; i < ids->n && error == 0; i++) {
		if (tm_store_load_thread(&t, c->s, project, ids->items[i]) <
		    0) {
			tm_error_clear();
			continue; /* unreadable: reported elsewhere */
		}
		if (t->parent_id && !*t->parent_id) {
			tm_migrate__say(c->report, "%s/%s: parent '' -> '%s'",
					project, t->id, to);
			if (!c->dry_run) {
				tm_thread_set(&t->parent_id, to);
				if ((error = tm_store_lock_refresh(c->s)) == 0)
					error = tm_store_save_thread(
						c->s, project, t);
			}
		}
		tm_thread_free(t);
		t = NULL;
	}
	return error;
}

/* Point config.json's active thread at the new id. */
static int follow_in_config(tm_migrate_ctx *c, const char *project,
			    const char *to)
{
	tm_config *cfg = NULL;
	const char *active;
	int error;

	if (tm_store_load_config_strict(&cfg, c->s) < 0) {
		tm_error_clear(); /* never overwritten: commands warn */
		return 0;
	}
	active = tm_config_get_string(cfg, "activeThreadId");
	error = 0;
	if (active && !*active) {
		tm_config_rename_thread(cfg, project, "", to);
		if ((error = tm_store_lock_refresh(c->s)) == 0)
			error = tm_store_save_config(c->s, cfg);
	}
	tm_config_free(cfg);
	return error;
}

/*
 * Give threads/{project}/.md (0.4's id for a title without an ASCII letter
 * or digit) the id the seed's rules make of its title ("thread" when none,
 * a suffix on collision), re-point its children, and remember it for the
 * index.  A file that cannot be parsed is renamed as it is.
 */
static int rename_empty_id(tm_migrate_ctx *c, const char *project)
{
	tm_buf data = TM_BUF_INIT, title = TM_BUF_INIT;
	tm_strv ids = TM_STRV_INIT;
	tm_thread *t = NULL;
	char *display = tm_store_file_display(c->s, "threads", project, ".md");
	char *base = NULL, *to = NULL;
	int error, fd = -1;

	error = tm_store_read_file(&data, c->s, "threads", project, ".md");
	if (error == 0 && tm_frontmatter_parse(&t, tm_buf_cstr(&data),
					       data.size, "", display) < 0)
		tm_error_clear(); /* renamed as it is, unreadable still */
	if (error < 0 ||
	    (error = tm_store_list_threads(&ids, NULL, c->s, project)) < 0) {
		tm_migrate__say(
			c->left,
			"%s; it is ThreadMind 0.4's thread with an empty id: "
			"rename it to a valid id by hand",
			tm_error_last());
		tm_error_clear();
		error = 0;
		goto done;
	}
	base = tm_slugify(t ? t->title : NULL, TM_SLUG_THREAD);
	if ((error = tm_store_unique_thread_id(&to, &ids, base)) < 0)
		goto done;
	if (t && t->title)
		tm_text_sanitize(&title, t->title, strlen(t->title), 0);
	tm_migrate__say(
		c->report,
		"%s/.md: ThreadMind 0.4's empty id; %s threads/%s/%s.md%s%s%s",
		project, c->dry_run ? "would be renamed" : "renamed", project,
		to, t && t->title ? " (title '" : "", tm_buf_cstr(&title),
		t && t->title ? "')" : "");
	if (!c->dry_run) {
		if ((error = tm_store_lock_refresh(c->s)) < 0)
			goto done;
		if (t) {
			free(t->id);
			t->id = tm_xstrdup(to);
			error = tm_store_save_thread(c->s, project, t);
		} else {
			tm_buf file = TM_BUF_INIT;

			tm_buf_printf(&file, "%s.md", to);
			error = tm_store_write_file(c->s, "threads", project,
						    tm_buf_cstr(&file), &data);
			tm_buf_release(&file);
		}
		if (error == 0 &&
		    (error = tm_store_open_folder(&fd, c->s, "threads", project,
						  false)) == 0)
			error = tm_fs_unlink_at(fd, ".md", display);
		if (error < 0)
			goto done;
	}
	tm_xgrow((void **)&c->renames, &c->arenames, c->nrenames + 1,
		 sizeof(*c->renames));
	c->renames[c->nrenames].project = tm_xstrdup(project);
	c->renames[c->nrenames++].to = to;
	to = NULL;
	error = repoint_children(c, project, tm_migrate__mapped(c, project, ""),
				 &ids);
	if (error == 0 && !c->dry_run)
		error = follow_in_config(c, project,
					 tm_migrate__mapped(c, project, ""));
done:
	tm_fs_close(fd);
	tm_thread_free(t);
	tm_strv_clear(&ids);
	tm_buf_release(&data);
	tm_buf_release(&title);
	TM_FREE_ALL(display, base, to);
	return error;
}

int tm_migrate__rename_empty_ids(tm_migrate_ctx *c)
{
	tm_strv projects = TM_STRV_INIT;
	size_t i;
	int error = 0;

	tm_migrate__empty_id_projects(&projects, c->s);
	for (i = 0; i < projects.n && error == 0; i++)
		error = rename_empty_id(c, projects.items[i]);
	tm_strv_clear(&projects);
	return error;
}
