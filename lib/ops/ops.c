/*
 * The operations of ops.h on one thread (status, fields, summary, review
 * mark) and on config.json (project use), with the helpers they share
 * with ops_tree.c.
 */
#include "ops.h"
#include "ops_internal.h"

#include "error.h"
#include "frontmatter.h"
#include "section.h"
#include "slug.h"
#include "stale.h"
#include "timestamp.h"

#include <stdlib.h>
#include <string.h>

void tm_thread_touch(tm_thread *t, tm_store *s, bool summary_changed)
{
	char now[TM_TIME_LEN + 1];

	tm_time_format(now, tm_time_now_ms());
	tm_thread_set(&t->updated_at, now);
	if (!summary_changed)
		return;
	if (tm_store_head(s))
		tm_thread_set(&t->commit, tm_store_head(s));
	if (tm_store_branch(s))
		tm_thread_set(&t->branch, tm_store_branch(s));
}

int tm_ops_check_ids(const char *project, const char *id)
{
	int error;

	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = tm_id_validate(id, "thread")) < 0)
		return error;
	return 0;
}

int tm_ops_lock_thread(tm_thread **out, tm_store *s, const char *project,
		       const char *id)
{
	int error;

	if ((error = tm_ops_check_ids(project, id)) < 0 ||
	    (error = tm_store_lock(s)) < 0)
		return error;
	if ((error = tm_store_load_thread(out, s, project, id)) < 0)
		return tm_store_unlock_after(s, error);
	return 0;
}

int tm_ops_lock_project(tm_strv *ids, tm_config **cfg, tm_store *s,
			const char *project)
{
	int error;

	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = tm_store_lock(s)) < 0)
		return error;
	if ((error = tm_store_require_project(ids, s, project)) < 0 ||
	    (error = tm_store_load_config(cfg, s)) < 0)
		return tm_store_unlock_after(s, error);
	return 0;
}

int tm_ops_touch_save(tm_store *s, const char *project, tm_thread *t,
		      bool summary_changed)
{
	tm_thread_touch(t, s, summary_changed);
	return tm_store_save_thread(s, project, t);
}

/* ---- done / abandon / reopen ---- */

void tm_status_result_clear(tm_status_result *r)
{
	free(r->was_merged);
	memset(r, 0, sizeof(*r));
}

int tm_ops_set_status(tm_status_result *out, tm_store *s, const char *project,
		      const char *id, const char *status)
{
	tm_status_result r = {false, NULL};
	tm_thread *t = NULL;
	int error;

	if ((error = tm_ops_check_ids(project, id)) < 0)
		return error;
	if (status && !strcmp(id, TM_ROOT_THREAD_ID))
		return tm_error_set(TM_EINVALID,
				    "cannot mark '%s' %s: it is the project's "
				    "root thread",
				    id, status);
	if ((error = tm_ops_lock_thread(&t, s, project, id)) < 0)
		return error;
	if (status ? t->status && !strcmp(t->status, status)
		   : !t->status && !t->merged_into)
		goto done;
	r.changed = true;
	if (!status) {
		r.was_merged = tm_xstrdup_or_null(t->merged_into);
		tm_thread_set(&t->merged_into, NULL);
	}
	tm_thread_set(&t->status, status);
	error = tm_ops_touch_save(s, project, t, false);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0)
		TM_MOVE(out, r);
	tm_status_result_clear(&r);
	tm_thread_free(t);
	return error;
}

/* ---- set ---- */

int tm_ops_set_fields(bool *changed, tm_store *s, const char *project,
		      const char *id, const tm_assign *a, size_t n)
{
	tm_thread *t = NULL;
	bool did = false;
	int error;

	if ((error = tm_ops_lock_thread(&t, s, project, id)) < 0)
		return error;
	if ((error = tm_assign_apply(&did, t, a, n)) < 0)
		goto done;
	if (did)
		error = tm_ops_touch_save(s, project, t, false);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0)
		*changed = did;
	tm_thread_free(t);
	return error;
}

/* ---- summary / edit ---- */

static bool body_is(const tm_thread *t, const char *body, size_t len)
{
	return t->body_len == len && (!len || !memcmp(t->body, body, len));
}

/* t's summary with `text` appended under `section` (tm_summary_options),
 * into *out. */
static void append_text(tm_buf *out, const tm_thread *t, const char *text,
			size_t len, const char *section)
{
	char *summary = tm_thread_summary(t);

	tm_section_merge_under(out, summary, strlen(summary), text, len,
			       section);
	free(summary);
}

int tm_ops_write_summary(tm_summary_outcome *out, tm_store *s,
			 const char *project, const char *id, const char *text,
			 size_t len, const tm_summary_options *opts)
{
	tm_summary_options defaults = TM_SUMMARY_OPTIONS_INIT;
	tm_summary_outcome outcome;
	tm_buf appended = TM_BUF_INIT;
	tm_thread *t = NULL;
	int error;

	if (!opts)
		opts = &defaults;
	if (opts->append && opts->section &&
	    (!*opts->section || strpbrk(opts->section, "\r\n")))
		return tm_error_set(TM_EINVALID,
				    "a section to append under is one line "
				    "of text (its heading without '## '), not "
				    "'%s'",
				    opts->section);
	if ((error = tm_ops_lock_thread(&t, s, project, id)) < 0)
		return error;
	/* An editor ran without the lock: nobody may have changed the
	 * summary meanwhile. */
	if (opts->expect_body &&
	    !body_is(t, opts->expect_body, opts->expect_len)) {
		error = tm_error_set(TM_ECONFLICT,
				     "the summary changed while you were "
				     "editing it; nothing was written");
		goto done;
	}
	if ((error = tm_summary_check(&outcome, t, text, len)) < 0)
		goto done;
	if (opts->append) {
		if (outcome == TM_SUMMARY_EMPTY) {
			error = tm_error_set(TM_EINVALID,
					     "nothing to append to the summary "
					     "of '%s': the text is empty; "
					     "nothing was written",
					     id);
			goto done;
		}
		append_text(&appended, t, text, len, opts->section);
		if ((error = tm_summary_check(&outcome, t,
					      tm_buf_cstr(&appended),
					      appended.size)) < 0)
			goto done;
		text = tm_buf_cstr(&appended);
		len = appended.size;
	}
	if (outcome == TM_SUMMARY_EMPTY && !opts->allow_empty) {
		error = tm_error_set(TM_EINVALID,
				     "the new summary of '%s' is empty and "
				     "would erase it; nothing was written (use "
				     "--allow-empty to erase it)",
				     id);
		goto done;
	}
	tm_thread_set_summary(t, text, len);
	error = tm_ops_touch_save(s, project, t, true);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0)
		*out = outcome;
	tm_thread_free(t);
	tm_buf_release(&appended);
	return error;
}

/* ---- touch ---- */

/* TM_EINVALID unless HEAD is a commit to mark threads reviewed at;
 * `what` names the thread(s) in the message. */
static int check_head(tm_store *s, const char *what)
{
	if (!tm_store_git(s))
		return tm_error_set(TM_EINVALID,
				    "cannot mark %s as reviewed at HEAD: not "
				    "in a git repository",
				    what);
	if (!tm_store_head(s))
		return tm_error_set(TM_EINVALID,
				    "cannot mark %s as reviewed at HEAD: HEAD "
				    "has no commit yet (commit first)",
				    what);
	return 0;
}

int tm_ops_touch(const char **out_head, tm_store *s, const char *project,
		 const char *id)
{
	return tm_ops_touch_threads(out_head, s, project, &id, 1);
}

int tm_ops_touch_threads(const char **out_head, tm_store *s,
			 const char *project, const char *const *ids, size_t n)
{
	tm_thread **t = tm_xcalloc(n + 1, sizeof(*t));
	tm_buf what = TM_BUF_INIT;
	size_t i;
	int error = 0;

	for (i = 0; i < n && !error; i++)
		error = tm_ops_check_ids(project, ids[i]);
	if (!error) {
		if (n == 1)
			tm_buf_printf(&what, "'%s'", ids[0]);
		else
			tm_buf_printf(&what, "%zu threads", n);
		error = check_head(s, tm_buf_cstr(&what));
	}
	if (error < 0 || (error = tm_store_lock(s)) < 0)
		goto out;
	/* Every thread is read before the first write. */
	for (i = 0; i < n && !error; i++)
		error = tm_store_load_thread(&t[i], s, project, ids[i]);
	for (i = 0; i < n && !error; i++)
		error = tm_ops_touch_save(s, project, t[i], true);
	error = tm_store_unlock_after(s, error);
	if (error == 0 && out_head)
		*out_head = tm_store_head(s);
out:
	for (i = 0; i < n; i++)
		tm_thread_free(t[i]);
	free(t);
	tm_buf_release(&what);
	return error;
}

int tm_ops_touch_stale(tm_strv *out_ids, const char **out_head, tm_store *s,
		       const char *project, tm_store_warn_cb warn,
		       void *payload)
{
	tm_stale_report r = TM_STALE_REPORT_INIT;
	tm_strv touched = TM_STRV_INIT;
	tm_thread_list list;
	char *dir = NULL;
	size_t i, k;
	int error;

	if ((error = tm_id_validate(project, "project")) < 0 ||
	    (error = check_head(s, "the stale threads")) < 0)
		return error;
	if ((error = tm_store_lock(s)) < 0)
		return error;
	if ((error = tm_store_load_all(&list, s, project)) < 0)
		goto done;
	for (i = 0; warn && i < list.errors.n; i++)
		warn(list.errors.items[i], payload);
	dir = tm_stale_threads_dir(tm_store_git(s), tm_store_root(s), project);
	if ((error = tm_stale_compute(&r, tm_store_git(s), dir,
				      (const tm_thread *const *)list.threads,
				      list.n)) < 0)
		goto done;
	for (i = 0; i < r.n && !error; i++)
		for (k = 0; k < list.n; k++)
			if (!strcmp(list.threads[k]->id, r.stale[i].id)) {
				error = tm_ops_touch_save(
					s, project, list.threads[k], true);
				tm_strv_push(&touched, r.stale[i].id);
				break;
			}
done:
	tm_thread_list_clear(&list);
	error = tm_store_unlock_after(s, error);
	if (error == 0) {
		TM_MOVE(out_ids, touched);
		if (out_head)
			*out_head = tm_store_head(s);
	}
	tm_strv_clear(&touched);
	tm_stale_report_clear(&r);
	free(dir);
	return error;
}

/* ---- project use ---- */

int tm_ops_use_project(char **out_thread, tm_store *s, const char *project)
{
	tm_strv ids = TM_STRV_INIT;
	tm_config *cfg = NULL;
	char *thread = NULL;
	int error;

	if ((error = tm_ops_lock_project(&ids, &cfg, s, project)) < 0)
		goto out;
	if ((error = tm_store_active_thread(&thread, s, project, cfg, NULL,
					    0)) < 0)
		goto done;
	tm_config_set_string(cfg, "activeProjectId", project);
	tm_config_set_string(cfg, "activeThreadId", thread);
	tm_store_record_identity(s, cfg, project, thread);
	error = tm_store_save_config(s, cfg);
done:
	error = tm_store_unlock_after(s, error);
	if (error == 0)
		TM_MOVE(out_thread, thread);
out:
	free(thread);
	tm_config_free(cfg);
	tm_strv_clear(&ids);
	return error;
}
