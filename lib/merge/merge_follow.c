/*
 * The driver's side of an edit that belongs to a thread an earlier split
 * moved (merge.h, tm_merge_follow_worktree): that thread's file in the
 * work tree, found by identity, gets the edit; `resolve` stages it.
 */
#include "merge.h"

#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The thread (frontmatter only) of `len` bytes, or NULL. */
static tm_thread *head_of(const char *data, size_t len, const char *id)
{
	size_t n = tm_frontmatter_block_len(data, len);
	tm_thread *t = NULL;

	if (!n || tm_frontmatter_parse(&t, data, n, id, id) < 0)
		tm_error_clear();
	return t;
}

int tm_merge_follow_worktree(char **out_path, tm_merge_result *out,
			     const char *o, size_t olen, const char *b,
			     size_t blen, const tm_merge_options *opts)
{
	const char *slash = opts->path ? strrchr(opts->path, '/') : NULL;
	char *dir = NULL, *id = NULL;
	tm_strv names = TM_STRV_INIT;
	tm_buf data = TM_BUF_INIT, path = TM_BUF_INIT;
	tm_thread *anc = NULL, *t = NULL;
	tm_merge_options mopts = *opts;
	size_t i;
	int fd = -1, found = 0;

	if (!slash ||
	    tm_merge_kind_of_path(opts->path, &id) != TM_MERGE_KIND_THREAD ||
	    !(anc = head_of(o, olen, id)) || !anc->created_at || !anc->author)
		goto done;
	dir = tm_xstrndup(opts->path, (size_t)(slash - opts->path));
	if (tm_fs_open_dir(&fd, dir) < 0 || tm_fs_list_dir(&names, fd, dir) < 0)
		goto done;
	for (i = 0; i < names.n && !found; i++) {
		const char *n = names.items[i];
		size_t len = strlen(n);

		if (len <= 3 || strcmp(n + len - 3, ".md") ||
		    !strcmp(n, slash + 1))
			continue;
		tm_buf_clear(&data);
		if (tm_fs_read_at(&data, fd, n, n, TM_MAX_FILE_SIZE) < 0)
			continue;
		tm_thread_free(t);
		if (!(t = head_of(tm_buf_cstr(&data), data.size, n)))
			continue;
		if (!tm_thread_same_identity(anc->created_at, anc->author,
					     t->created_at, t->author))
			continue;
		tm_buf_printf(&path, "%s/%s", dir, n);
		mopts.path = tm_buf_cstr(&path);
		if (tm_merge_files(out, o, olen, tm_buf_cstr(&data), data.size,
				   b, blen, &mopts) == 0)
			found = 1;
	}
	if (found)
		*out_path = tm_buf_detach(&path);
done:
	tm_error_clear();
	tm_fs_close(fd);
	tm_thread_free(anc);
	tm_thread_free(t);
	tm_strv_clear(&names);
	tm_buf_release(&data);
	tm_buf_release(&path);
	free(dir);
	free(id);
	return found;
}
