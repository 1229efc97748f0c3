/*
 * post-rewrite's store operations (see hooks.h): the threads whose
 * commit a rebase or an amend rewrote, and, with
 * threadmind.rewriteCommits, their `commit` moved to the new one under
 * the lock.  The list itself is parsed here; read from git's files in
 * hooks_rewrite_list.c.
 */
#include "hooks.h"
#include "hooks_internal.h"

#include "deadline.h"
#include "error.h"
#include "git.h"
#include "paths_index.h"
#include "stale.h"

#include <stdlib.h>
#include <string.h>

/* ---- post-rewrite ---- */

static int cmp_rewrite(const void *a, const void *b)
{
	return strcmp(((const tm_hook_rewrite *)a)->old,
		      ((const tm_hook_rewrite *)b)->old);
}

/* Copy the `n` hex digits at `s` to `dst` in lower case, as git writes
 * them and as tm_hook_rewrites_find looks them up. */
static void copy_lower_hex(char *dst, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = (char)(s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 'a'
							   : s[i]);
	dst[n] = '\0';
}

void tm_hook_rewrites_clear(tm_hook_rewrites *r)
{
	free(r->items);
	memset(r, 0, sizeof(*r));
}

void tm_hook_rewrites_parse(tm_hook_rewrites *out, const char *d)
{
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	while (*d) {
		const char *eol = strchr(d, '\n');
		const char *next = eol ? eol + 1 : d + strlen(d);
		size_t lo = strcspn(d, " \n"), ln;

		if (d[lo] == ' ') {
			ln = strcspn(d + lo + 1, " \n");
			if (tm_git_is_hex_oid(d, lo) &&
			    tm_git_is_hex_oid(d + lo + 1, ln)) {
				tm_hook_rewrite *w;

				tm_xgrow((void **)&out->items, &alloc,
					 out->n + 1, sizeof(*out->items));
				w = &out->items[out->n++];
				copy_lower_hex(w->old, d, lo);
				copy_lower_hex(w->new, d + lo + 1, ln);
			}
		}
		d = next;
	}
	if (out->n)
		qsort(out->items, out->n, sizeof(*out->items), cmp_rewrite);
}

const tm_hook_rewrite *tm_hook_rewrites_find(const tm_hook_rewrites *r,
					     const char *commit)
{
	tm_hook_rewrite key;
	size_t len = commit ? strlen(commit) : 0;

	if (!commit || !r->n || len >= sizeof(key.old))
		return NULL;
	copy_lower_hex(key.old, commit, len);
	return bsearch(&key, r->items, r->n, sizeof(*r->items), cmp_rewrite);
}

void tm_hook_rewrite_result_clear(tm_hook_rewrite_result *r)
{
	tm_strv_clear(&r->anchored);
	tm_strv_clear(&r->rewritten);
	memset(r, 0, sizeof(*r));
}

/* Set `commit` of each anchored thread that still names an old commit. */
static int rewrite_under_lock(tm_hook_rewrite_result *out, tm_store *s,
			      const char *project, const tm_hook_rewrites *rw)
{
	size_t i;
	int error;

	if (tm_deadline_passed())
		return tm_hook__out_of_time();
	if ((error = tm_hook_lock(s)) < 0)
		return error;
	for (i = 0; i < out->anchored.n && !tm_deadline_passed(); i++) {
		const tm_hook_rewrite *w;
		tm_thread *t = NULL;

		/* read again: the file may have changed before the lock */
		if (tm_store_load_thread(&t, s, project,
					 out->anchored.items[i]) < 0) {
			tm_error_clear();
			continue;
		}
		w = tm_hook_rewrites_find(rw, t->commit);
		if (w) {
			tm_thread_set(&t->commit, w->new);
			if (tm_store_save_thread(s, project, t) == 0)
				tm_strv_push(&out->rewritten, t->id);
			tm_error_clear();
		}
		tm_thread_free(t);
	}
	tm_store_unlock(s);
	return 0;
}

int tm_hook_rewrite_touches(tm_strv *ids, tm_store *s, const char *project,
			    const tm_hook_rewrites *rw)
{
	struct tm_git *g = tm_store_git(s);
	tm_strv news = TM_STRV_INIT, all = TM_STRV_INIT;
	tm_paths_index_list list;
	char *dir = NULL;
	size_t i, k;
	int error = 0;

	if (!g || !rw->n || tm_deadline_passed())
		return 0;
	for (i = 0; i < rw->n; i++)
		tm_strv_push(&news, rw->items[i].new);
	tm_strv_sort_unique(&news);
	if ((error = tm_hook__load_with_paths(&list, s, project)) < 0)
		goto done;
	dir = tm_stale_threads_dir(g, tm_store_root(s), project);
	for (i = 0; i < news.n && !tm_deadline_passed(); i++) {
		tm_strv one = TM_STRV_INIT;

		error = tm_stale_commit_touches(
			&one, g, news.items[i], dir,
			(const tm_thread *const *)list.threads, list.n);
		if (error == TM_ENOTFOUND) { /* gone since: nothing to say */
			tm_error_clear();
			error = 0;
		}
		for (k = 0; k < one.n; k++)
			tm_strv_push(&all, one.items[k]);
		tm_strv_clear(&one);
		if (error < 0)
			break;
	}
	tm_paths_index_list_clear(&list);
	if (error == 0 && !tm_deadline_passed()) {
		tm_strv_sort_unique(&all);
		for (k = 0; k < all.n; k++)
			tm_strv_push(ids, all.items[k]);
	}
done:
	free(dir);
	tm_strv_clear(&news);
	tm_strv_clear(&all);
	return error;
}

int tm_hook_rewrite_commits(tm_hook_rewrite_result *out, tm_store *s,
			    const char *project, const tm_hook_rewrites *rw)
{
	tm_thread_list list;
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	if (!rw->n || tm_deadline_passed())
		return 0;
	if ((error = tm_store_load_all(&list, s, project)) < 0)
		return error;
	for (i = 0; i < list.n; i++)
		if (tm_hook_rewrites_find(rw, list.threads[i]->commit))
			tm_strv_push(&out->anchored, list.threads[i]->id);
	tm_thread_list_clear(&list);
	if (!out->anchored.n)
		return 0;
	out->rewrite = tm_hook__config_bool(tm_store_git(s),
					    "threadmind.rewriteCommits", false);
	if (out->rewrite)
		error = rewrite_under_lock(out, s, project, rw);
	return error;
}
