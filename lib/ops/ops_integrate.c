/*
 * `git threadmind merge`: a child's `## ` sections into its parent, and
 * what a merged child gained afterwards (a git merge brought lines written
 * on another branch) found and added to the parent again.
 */
#include "ops.h"
#include "ops_internal.h"

#include "error.h"
#include "frontmatter.h"
#include "reintegrate.h"
#include "section.h"
#include "slug.h"

#include <stdlib.h>
#include <string.h>

/* ---- merge ---- */

void tm_integrate_result_clear(tm_integrate_result *r)
{
	free(r->parent);
	memset(r, 0, sizeof(*r));
}

/* Refuse what cannot be merged: a root, a finished or merged thread, a
 * thread whose parent is itself, invalid or missing. */
static int check_mergeable(tm_store *s, const char *project, const tm_thread *t)
{
	const char *id = t->id, *p = t->parent_id;

	if (!p)
		return tm_error_set(
			TM_EINVALID,
			"thread '%s' is a root: it has no parent to "
			"merge into",
			id);
	if (t->merged_into)
		return tm_error_set(TM_EINVALID,
				    "thread '%s' was already merged into '%s' "
				    "(to add what it gained since, run 'git "
				    "threadmind merge --again %s')",
				    id, t->merged_into, id);
	if (tm_thread_is_finished(t))
		return tm_error_set(TM_EINVALID,
				    "thread '%s' is %s: reopen it first to "
				    "merge it",
				    id, t->status);
	if (!strcmp(p, id))
		return tm_error_set(TM_EINVALID,
				    "thread '%s' is its own parent: give it "
				    "another parent with 'git threadmind move' "
				    "first",
				    id);
	if (tm_id_validate(p, "thread") < 0) {
		/* The message is formatted into tm_error_last's buffer. */
		char *why = tm_xstrdup(tm_error_last());
		int error = tm_error_set(
			TM_EINVALID, "thread '%s' has an invalid parentId: %s",
			id, why);

		free(why);
		return error;
	}
	if (!tm_store_thread_exists(s, project, p))
		return tm_error_set(TM_ENOTFOUND,
				    "the parent of thread '%s', '%s', does not "
				    "exist: give it a parent with 'git "
				    "threadmind move' first",
				    id, p);
	return 0;
}

static const char *eol(const char *p, const char *e)
{
	const char *nl = memchr(p, '\n', (size_t)(e - p));

	return nl ? nl : e;
}

/* Does the body [p, e) hold the list item `key` (tm_section_item_key form)? */
static bool has_item(const char *p, const char *e, const tm_buf *key,
		     tm_buf *scratch)
{
	while (p < e) {
		const char *le = eol(p, e);

		if (tm_section_is_list_item(p, le)) {
			const char *ie = tm_section_item_end(p, e);

			tm_section_item_key(scratch, p, ie);
			if (scratch->size == key->size &&
			    !memcmp(scratch->ptr, key->ptr, key->size))
				return true;
			p = ie;
			continue;
		}
		p = le < e ? le + 1 : e;
	}
	return false;
}

/*
 * Merge the summary `from` into `into` as tm_section_merge does, leaving
 * out each list item of a section of `from` that the matching section of
 * `into` already has (same lines, trailing blanks ignored): a child that
 * started from its parent's notes, or one merged twice, adds no copies.
 */
static void merge_summaries(tm_buf *out, const char *into, const char *from)
{
	tm_section_list dst = TM_SECTION_LIST_INIT, src = TM_SECTION_LIST_INIT;
	tm_buf body = TM_BUF_INIT, key = TM_BUF_INIT, scratch = TM_BUF_INIT;
	size_t i;

	tm_section_split(&dst, into, strlen(into));
	tm_section_split(&src, from, strlen(from));
	for (i = 0; i < src.n; i++) {
		const tm_section *sec = &src.items[i];
		const char *p = sec->text + sec->body,
			   *e = sec->text + sec->len;
		long at = tm_section_find(&dst, sec->heading);

		tm_buf_clear(&body);
		while (p < e) {
			const char *le = eol(p, e), *next = le < e ? le + 1 : e;

			if (at >= 0 && tm_section_is_list_item(p, le)) {
				const tm_section *d = &dst.items[at];

				next = tm_section_item_end(p, e);
				tm_section_item_key(&key, p, next);
				if (has_item(d->text + d->body,
					     d->text + d->len, &key,
					     &scratch)) {
					p = next;
					continue;
				}
			}
			tm_buf_put(&body, p, (size_t)(next - p));
			p = next;
		}
		tm_section_append(&dst, sec->heading, tm_buf_cstr(&body),
				  body.size);
	}
	tm_section_join(out, &dst);
	tm_section_list_clear(&dst);
	tm_section_list_clear(&src);
	tm_buf_release(&body);
	tm_buf_release(&key);
	tm_buf_release(&scratch);
}

/*
 * Give `parent` the summary `merged`, touched (its review point moves to
 * HEAD: its notes now hold the child's) but bound to its own branch still
 * (merging while on another branch must not rebind it), and write it.
 */
static int save_parent(tm_store *s, const char *project, tm_thread *parent,
		       const tm_buf *merged)
{
	char *branch;
	int error;

	tm_thread_set_summary(parent, tm_buf_cstr((tm_buf *)merged),
			      merged->size);
	branch = parent->branch;
	parent->branch = NULL;
	tm_thread_touch(parent, s, true);
	free(parent->branch);
	parent->branch = branch;
	if ((error = tm_store_save_thread(s, project, parent)) == 0)
		error = tm_store_lock_refresh(s);
	return error;
}

/* What merge and merge --again hold while they work (merging_end). */
struct merging {
	tm_integrate_result r;
	tm_thread *child, *parent;
	char *from, *into; /* their summaries */
	tm_buf merged;     /* the parent's summary with the child's */
};

#define MERGING_INIT                                                  \
	{                                                             \
		{NULL, false, 0}, NULL, NULL, NULL, NULL, TM_BUF_INIT \
	}

/* Unlock the store, hand m->r to *out when `error` is 0, free the rest;
 * returns `error` (or the unlock's). */
static int merging_end(tm_integrate_result *out, struct merging *m, tm_store *s,
		       int error)
{
	error = tm_store_unlock_after(s, error);
	if (error == 0)
		TM_MOVE(out, m->r);
	tm_integrate_result_clear(&m->r);
	tm_buf_release(&m->merged);
	free(m->from);
	free(m->into);
	tm_thread_free(m->parent);
	tm_thread_free(m->child);
	return error;
}

int tm_ops_integrate_thread(tm_integrate_result *out, tm_store *s,
			    const char *project, const char *id)
{
	struct merging m = MERGING_INIT;
	int error;

	/* One lock around both writes: nobody sees half a merge. */
	if ((error = tm_ops_lock_thread(&m.child, s, project, id)) < 0)
		return error;
	if ((error = check_mergeable(s, project, m.child)) < 0 ||
	    (error = tm_store_load_thread(&m.parent, s, project,
					  m.child->parent_id)) < 0)
		goto done;
	m.from = tm_thread_summary(m.child);
	m.into = tm_thread_summary(m.parent);
	merge_summaries(&m.merged, m.into, m.from);
	m.r.changed = strcmp(tm_buf_cstr(&m.merged), m.into) != 0;
	m.r.parent = tm_xstrdup(m.parent->id);
	/* The parent first: if the child's write failed, the child would
	 * still be open and nothing would claim a merge that did not land. */
	if (m.r.changed &&
	    (error = save_parent(s, project, m.parent, &m.merged)) < 0)
		goto done;
	tm_thread_set(&m.child->status, TM_STATUS_DONE);
	tm_thread_set(&m.child->merged_into, m.parent->id);
	error = tm_ops_touch_save(s, project, m.child, false);
done:
	return merging_end(out, &m, s, error);
}

/* ---- merge --again ---- */

int tm_ops_integrate_again(tm_integrate_result *out, tm_store *s,
			   const char *project, const char *id)
{
	struct merging m = MERGING_INIT;
	tm_buf missing = TM_BUF_INIT;
	int error;

	if ((error = tm_ops_lock_thread(&m.child, s, project, id)) < 0)
		return error;
	if (!m.child->merged_into) {
		error = tm_error_set(TM_EINVALID,
				     "thread '%s' was not merged into its "
				     "parent: run 'git threadmind merge %s'",
				     id, id);
		goto done;
	}
	if ((error = tm_id_validate(m.child->merged_into, "thread")) < 0)
		goto done;
	if ((error = tm_store_load_thread(&m.parent, s, project,
					  m.child->merged_into)) ==
	    TM_ENOTFOUND)
		error = tm_error_set(
			TM_ENOTFOUND,
			"thread '%s' was merged into '%s', which "
			"no longer exists: reopen it ('git "
			"threadmind reopen %s') and merge it again",
			id, m.child->merged_into, id);
	if (error < 0)
		goto done;
	m.from = tm_thread_summary(m.child);
	m.into = tm_thread_summary(m.parent);
	m.r.parent = tm_xstrdup(m.parent->id);
	m.r.added = tm_summary_missing(&missing, m.into, m.from);
	if (m.r.added) {
		merge_summaries(&m.merged, m.into, tm_buf_cstr(&missing));
		m.r.changed = strcmp(tm_buf_cstr(&m.merged), m.into) != 0;
	}
	if (m.r.changed)
		error = save_parent(s, project, m.parent, &m.merged);
done:
	tm_buf_release(&missing);
	return merging_end(out, &m, s, error);
}
