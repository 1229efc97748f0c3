/*
 * doctor's check of `paths` entries (DESIGN.md section 11): every entry
 * that matches nothing in HEAD is reported, naming the new name when a
 * commit of the recent history renamed what it named.
 */
#include "doctor_internal.h"

#include "error.h"
#include "git_libgit2.h"
#include "paths.h"
#include "pathspec.h"

#include <stdlib.h>
#include <string.h>

/* The most entries a thread may have for a message to spell out the
 * `set paths=` that fixes it (each message would hold them all). */
#define SUGGEST_MAX 50

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is `s` in the sorted vector v? */
static bool in_sorted(const tm_strv *v, const char *s)
{
	return v->n && bsearch(&s, v->items, v->n, sizeof(*v->items), cmp_str);
}

static int cmp_rename(const void *a, const void *b)
{
	return strcmp(((const tm_paths_rename *)a)->entry,
		      ((const tm_paths_rename *)b)->entry);
}

/* "a,b,c": the thread's paths with `entry` replaced by `by` (NULL: left
 * out), for the command the message suggests. */
static void paths_without(tm_buf *out, const tm_thread *t, const char *entry,
			  const char *by)
{
	size_t i;
	bool first = true;

	for (i = 0; i < t->paths.n; i++) {
		const char *p = t->paths.items[i];

		if (!strcmp(p, entry))
			p = by;
		if (!p)
			continue;
		tm_buf_printf(out, "%s%s", first ? "" : ",", p);
		first = false;
	}
}

static void report_thread(tm_doctor_report *out, const tm_doctor_project *pr,
			  const tm_thread *t, const tm_strv *unmatched,
			  const tm_paths_rename *r, size_t n)
{
	tm_buf msg = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < t->paths.n; i++) {
		const char *e = t->paths.items[i], *to = NULL, *abbrev = "";
		tm_paths_rename key, *found;

		if (!in_sorted(unmatched, e))
			continue;
		key.entry = (char *)e;
		found = n ? bsearch(&key, r, n, sizeof(*r), cmp_rename) : NULL;
		if (found) {
			to = found->to;
			abbrev = found->commit;
		}
		tm_buf_clear(&msg);
		tm_buf_printf(&msg,
			      "thread '%s': paths entry '%s' matches nothing "
			      "in HEAD",
			      t->id, e);
		if (to)
			tm_buf_printf(&msg, "; renamed to '%s' in %.7s", to,
				      abbrev);
		if (t->paths.n > SUGGEST_MAX) {
			/* the whole list in each message: quadratic */
			tm_buf_printf(&msg, "; %s in its paths (%zu entries)",
				      to ? "follow it" : "fix or drop it",
				      t->paths.n);
		} else {
			tm_buf_printf(&msg,
				      "; %s at the repository root with 'git "
				      "threadmind set %s paths=",
				      to ? "follow it" : "fix or drop it",
				      t->id);
			paths_without(&msg, t, e, to);
			tm_buf_puts(&msg, "'");
		}
		tm_doctor_add_thread(out, TM_DOCTOR_UNMATCHED_PATH, pr, t->id,
				     false, tm_buf_cstr(&msg));
	}
	tm_buf_release(&msg);
}

int tm_doctor_check_paths(tm_doctor_report *out, tm_doctor_ctx *c)
{
	struct tm_git *g = c->o->git ? tm_store_git(c->s) : NULL;
	tm_strv entries = TM_STRV_INIT, unmatched = TM_STRV_INIT;
	size_t i, k, j;
	int error;

	if (!g)
		return 0;
	/* Every entry of every thread, once (sorted, so that a thread of
	 * 20,000 entries costs n log n): one walk of HEAD's tree. */
	for (i = 0; i < c->nprojects; i++)
		for (k = 0; k < c->projects[i].n; k++) {
			const tm_thread *t = c->projects[i].threads[k];

			for (j = 0; j < t->paths.n; j++)
				tm_strv_push(&entries, t->paths.items[j]);
		}
	tm_strv_sort_unique(&entries);
	error = entries.n
			? tm_paths_unmatched(&unmatched, g,
					     (const char *const *)entries.items,
					     entries.n, false)
			: 0;
	if (error == 0 && unmatched.n) {
		tm_paths_rename *r = NULL;
		size_t nr = 0;

		if (tm_paths_find_renames(&r, &nr, g, &unmatched,
					  TM_PATHS_RENAME_DEPTH))
			tm_doctor_add(out, TM_DOCTOR_UNMATCHED_PATH, NULL,
				      false,
				      "the search for renamed paths entries "
				      "stopped at its bound (%u checks, "
				      "docs/SECURITY.md): entries not reached "
				      "are reported without their new name",
				      (unsigned)TM_PATHS_RENAME_WORK);
		if (nr)
			qsort(r, nr, sizeof(*r), cmp_rename);
		tm_strv_sort(&unmatched);
		for (i = 0; i < c->nprojects; i++)
			for (k = 0; k < c->projects[i].n; k++)
				report_thread(out, &c->projects[i],
					      c->projects[i].threads[k],
					      &unmatched, r, nr);
		tm_paths_renames_free(r, nr);
	}
	tm_strv_clear(&entries);
	tm_strv_clear(&unmatched);
	return error;
}
