/*
 * What is waiting for resolve (resolve.h, tm_resolve_pending): the
 * conflicted thread and project files of the index, and the files that
 * hold conflict markers.
 */
#include "resolve_internal.h"

#include "error.h"
#include "fs.h"
#include "index_file.h"
#include "git_libgit2.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pending_unmerged(tm_strv *out, tm_store *s)
{
	tm_git *g = tm_store_git(s);
	git_index *index = NULL;
	struct tm_resolve__conflict *list = NULL;
	size_t n = 0, i, plen;
	char *prefix;
	int error = 0;

	if (!g || !(prefix = tm_git_path_in_workdir(g, tm_store_root(s))))
		return 0;
	plen = strlen(prefix);
	if (!getenv("GIT_INDEX_FILE")) { /* else libgit2 knows the file */
		tm_buf file = TM_BUF_INIT, want = TM_BUF_INIT;
		size_t first = out->n;

		tm_buf_puts(&file, tm_git_gitdir(g));
		tm_buf_puts(&file, "index");
		tm_buf_puts(&want, prefix);
		tm_buf_puts(&want, TM_STORE_DIRNAME "/");
		/* a damaged index past the reader's bounds is an error:
		 * libgit2 would take gigabytes to read it */
		error = tm_index_file_conflicts(out, tm_buf_cstr(&file), NULL,
						tm_buf_cstr(&want));
		for (i = first; error == 0 && i < out->n; i++)
			memmove(out->items[i], out->items[i] + plen,
				strlen(out->items[i] + plen) + 1);
		tm_buf_release(&file);
		tm_buf_release(&want);
		if (error != TM_INDEX_FILE_ASK_LIBGIT2) {
			free(prefix);
			return error;
		}
		error = 0;
	}
	if ((error = tm_git_index_open(&index, tm_git_repository(g))) < 0)
		goto done;
	if ((error = tm_resolve__list_conflicts(&list, &n, index)) < 0)
		goto done;
	for (i = 0; i < n; i++)
		if (!strncmp(list[i].path, prefix, plen) &&
		    !strncmp(list[i].path + plen, TM_STORE_DIRNAME "/",
			     strlen(TM_STORE_DIRNAME) + 1))
			tm_strv_push(out, list[i].path + plen);
done:
	for (i = 0; i < n; i++)
		free(list[i].path);
	free(list);
	git_index_free(index);
	free(prefix);
	return error;
}

/* With `loaded`, project `lp`'s files are taken from its `marked` (the
 * load read them just now) instead of being read again. */
static int pending_marked(tm_strv *out, tm_store *s, const char *lp,
			  const tm_thread_list *loaded)
{
	tm_strv projects = TM_STRV_INIT, ids = TM_STRV_INIT;
	tm_buf dir = TM_BUF_INIT, name = TM_BUF_INIT, data = TM_BUF_INIT;
	size_t i, k;
	int fd, error;

	if ((error = tm_store_list_projects(&projects, s)) < 0)
		return error;
	for (i = 0; error == 0 && i < projects.n; i++) {
		const char *p = projects.items[i];

		if (loaded && !strcmp(p, lp)) {
			for (k = 0; k < loaded->marked.n; k++)
				tm_strv_push(out, loaded->marked.items[k]);
			continue;
		}
		tm_strv_clear(&ids);
		if ((error = tm_store_list_threads(&ids, NULL, s, p)) < 0 ||
		    !ids.n)
			continue;
		tm_buf_clear(&dir);
		tm_buf_printf(&dir, "%s/threads/%s", tm_store_dir(s), p);
		if (tm_fs_open_dir(&fd, tm_buf_cstr(&dir)) < 0)
			continue;
		for (k = 0; k < ids.n; k++) {
			tm_buf_clear(&name);
			tm_buf_clear(&data);
			tm_buf_printf(&name, "%s.md", ids.items[k]);
			if (tm_fs_read_at(&data, fd, tm_buf_cstr(&name),
					  tm_buf_cstr(&name),
					  TM_MAX_FILE_SIZE) == 0 &&
			    tm_conflict_markers_left(tm_buf_cstr(&data),
						     data.size)) {
				tm_buf rel = TM_BUF_INIT;

				tm_buf_printf(&rel, "%s/threads/%s/%s",
					      TM_STORE_DIRNAME, p,
					      tm_buf_cstr(&name));
				tm_strv_push_owned(out, tm_buf_detach(&rel));
			}
		}
		close(fd);
	}
	tm_error_clear();
	tm_strv_clear(&projects);
	tm_strv_clear(&ids);
	tm_buf_release(&dir);
	tm_buf_release(&name);
	tm_buf_release(&data);
	return error;
}

int tm_resolve_pending(tm_strv *unmerged, tm_strv *marked, tm_store *s)
{
	return tm_resolve_pending_loaded(unmerged, marked, s, NULL, NULL);
}

int tm_resolve_pending_loaded(tm_strv *unmerged, tm_strv *marked, tm_store *s,
			      const char *project, const tm_thread_list *loaded)
{
	int error = pending_unmerged(unmerged, s);
	char *msg;

	if (error == 0)
		return pending_marked(marked, s, project, loaded);
	/* the files with markers still count; the index's error is said */
	msg = tm_xstrdup(tm_error_last());
	(void)pending_marked(marked, s, project, loaded);
	tm_error_set(error, "%s", msg);
	free(msg);
	return error;
}
