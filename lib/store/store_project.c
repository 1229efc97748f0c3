/*
 * Creating a store and its projects: `init` and `project new` share
 * tm_store_create_project, so that both write a project the same way.
 */
#include "store.h"
#include "store_internal.h"

#include "error.h"
#include "slug.h"
#include "text.h"
#include "timestamp.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- creating a project ---- */

struct taken_ctx {
	tm_store *s;
	const tm_strv *ids; /* the project ids */
};

/* An id is taken by a project file or by a threads/ folder of that name
 * holding files.  A threads/ folder that cannot be listed (a symbolic
 * link, a file, no permission) is an error, not a taken id. */
static int project_taken(const char *id, void *payload)
{
	struct taken_ctx *ctx = payload;
	tm_strv threads = TM_STRV_INIT, bad = TM_STRV_INIT;
	int r = 1;

	if (!tm_strv_contains(ctx->ids, id)) {
		r = tm_store_list_threads(&threads, &bad, ctx->s, id);
		if (r == 0)
			r = threads.n || bad.n;
	}
	tm_strv_clear(&threads);
	tm_strv_clear(&bad);
	return r;
}

/* Undo the root thread of a project whose file could not be written:
 * its file, and its folder when we created it.  Best effort: the error
 * that made us roll back is what the caller reports. */
static void remove_root_thread(tm_store *s, const char *id, bool folder_new)
{
	int fd;

	tm_store_delete_thread(s, id, TM_ROOT_THREAD_ID);
	if (folder_new &&
	    tm_store_open_folder(&fd, s, "threads", NULL, false) == 0) {
		unlinkat(fd, id, AT_REMOVEDIR);
		close(fd);
	}
}

static bool folder_exists(tm_store *s, const char *top, const char *project)
{
	int fd;

	if (tm_store_open_folder(&fd, s, top, project, false) < 0)
		return false;
	close(fd);
	return true;
}

int tm_store_create_project(char **out_id, tm_store *s, const char *title,
			    const char *mode)
{
	struct taken_ctx ctx;
	tm_strv ids = TM_STRV_INIT;
	tm_config *cfg = NULL;
	tm_project *p = NULL;
	tm_thread *root = NULL;
	char *base = NULL, *id = NULL, *author = NULL, *clean = NULL;
	char now[TM_TIME_LEN + 1];
	bool folder_new;
	int error;

	if (mode && strcmp(mode, "solo") && strcmp(mode, "team"))
		return tm_error_set(TM_EINVALID,
				    "mode must be 'solo' or 'team', not '%s'",
				    mode);
	if ((error = tm_text_title(&clean, title, "the project title")) < 0)
		return error;
	title = clean;
	if ((error = tm_store_lock(s)) < 0) {
		free(clean);
		return error;
	}
	if ((error = tm_store_list_projects(&ids, s)) < 0 ||
	    (error = tm_store_load_config(&cfg, s)) < 0 ||
	    (error = tm_store_author(&author, s, cfg)) < 0)
		goto done;
	base = tm_slugify(title, TM_SLUG_PROJECT);
	ctx.s = s;
	ctx.ids = &ids;
	if ((error = tm_slug_unique(&id, base, project_taken, &ctx)) < 0)
		goto done;
	folder_new = !folder_exists(s, "threads", id);

	tm_store_now(now);
	root = tm_thread_new();
	root->id = tm_xstrdup(TM_ROOT_THREAD_ID);
	root->title = tm_xstrdup("Main");
	root->author = tm_xstrdup(author);
	root->created_at = tm_xstrdup(now);
	root->updated_at = tm_xstrdup(now);
	p = tm_project_new(id, title);
	if (mode)
		tm_project_set(p, "mode", mode);
	/*
	 * The root thread first, then the project file: projects are listed
	 * from projects/, so a project never shows without its root thread
	 * (every command would fail on it), while a lone threads/{id}/ shows
	 * nowhere.  Should the project file fail, the thread goes too.
	 */
	if ((error = tm_store_lock_refresh(s)) < 0 ||
	    (error = tm_store_save_thread(s, id, root)) < 0)
		goto rollback;
	if ((error = tm_store_lock_refresh(s)) < 0 ||
	    (error = tm_store_save_project(s, p)) < 0)
		goto rollback;
	/* The author id is kept once computed (DESIGN.md section 2). */
	if (!tm_config_get_string(cfg, "author") &&
	    (error = tm_store_lock_refresh(s)) == 0)
		error = tm_store_save_config(s, cfg);
	goto done;
rollback:
	remove_root_thread(s, id, folder_new);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0)
		TM_MOVE(out_id, id);
	tm_project_free(p);
	tm_thread_free(root);
	tm_config_free(cfg);
	tm_strv_clear(&ids);
	TM_FREE_ALL(author, base, id, clean);
	return error;
}

/* ---- init ---- */

int tm_store_init(tm_store **out, const char *root, const char *title,
		  const char *mode)
{
	tm_store *s = NULL;
	tm_buf data = TM_BUF_INIT;
	char *dir = tm_store_path_join(root, TM_STORE_DIRNAME), *name = NULL,
	     *id = NULL;
	const char *base;
	struct stat st;
	int error;

	if (mode && strcmp(mode, "solo") && strcmp(mode, "team")) {
		error = tm_error_set(TM_EINVALID,
				     "mode must be 'solo' or 'team', not '%s'",
				     mode);
		goto done;
	}
	if (lstat(dir, &st) == 0) {
		error = tm_error_set(TM_EEXISTS,
				     "'%s' already exists; not touching it "
				     "(see 'git threadmind status')",
				     dir);
		goto done;
	}
	if (mkdir(dir, 0777) < 0) {
		error = tm_error_set_errno(TM_ERROR, "cannot create '%s'", dir);
		goto done;
	}
	if ((error = tm_store_open(&s, root)) < 0)
		goto done;
	base = strrchr(root, '/');
	base = base && base[1] ? base + 1 : root;
	name = tm_xstrdup(title ? title : base);

	tm_buf_puts(&data, TM_STORE_GITIGNORE);
	if ((error = tm_store_write_file(s, NULL, NULL, ".gitignore", &data)) <
		    0 ||
	    (error = tm_store_create_project(&id, s, name, mode)) < 0)
		goto done;
	/* activeProjectId, activeThreadId and this branch's thread. */
	error = tm_store_set_active(s, id, TM_ROOT_THREAD_ID);
done:
	if (error == 0 && out)
		TM_MOVE(out, s);
	tm_store_free(s);
	tm_buf_release(&data);
	TM_FREE_ALL(dir, name, id);
	return error;
}
