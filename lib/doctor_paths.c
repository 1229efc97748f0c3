/*
 * doctor's check of `paths` entries (DESIGN.md section 11): every entry
 * that matches nothing in HEAD is reported, naming the new name when a
 * commit of the recent history renamed what it named.
 */
#include "doctor_internal.h"

#include "error.h"
#include "git_internal.h"
#include "paths.h"
#include "pathspec.h"

#include <stdlib.h>
#include <string.h>

/* How far back (commits from HEAD) a rename of a vanished path is looked
 * for: the recent history, so that doctor stays quick on a long one. */
#define RENAME_DEPTH 1000
/* The most entries a thread may have for a message to spell out the
 * `set paths=` that fixes it (each message would hold them all). */
#define SUGGEST_MAX 50

/* Does `tree` hold `path` (a file or a folder)? */
static bool tree_has(git_tree *tree, const char *path)
{
	git_tree_entry *e = NULL;
	bool has = git_tree_entry_bypath(&e, tree, path) == 0;

	git_tree_entry_free(e);
	return has;
}

/* The new name of `old` (spec `s`) in the renames of diff `d`, or NULL. */
static char *renamed_in(git_diff *d, const tm_pathspec *s, const char *old)
{
	size_t i, n = git_diff_num_deltas(d);

	for (i = 0; i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);
		const char *from = dl->old_file.path, *to = dl->new_file.path;
		size_t fl = strlen(from), tl = strlen(to), rest;

		if (dl->status != GIT_DELTA_RENAMED ||
		    !tm_pathspec_matches(s, from, fl))
			continue;
		if (fl == s->len)
			return tm_xstrdup(to); /* the file itself */
		/* A file under the folder: the folder's new name, when the
		 * file kept its place under it. */
		rest = fl - s->len; /* "/name…" */
		if (tl > rest && !strcmp(to + tl - rest, from + s->len)) {
			tm_buf b = TM_BUF_INIT;

			tm_buf_put(&b, to, tl - rest);
			if (s->dir_only || old[strlen(old) - 1] == '/')
				tm_buf_putc(&b, '/');
			return tm_buf_detach(&b);
		}
	}
	return NULL;
}

/* What the rename search found for one unmatched entry. */
struct rename {
	const char *entry;
	tm_pathspec spec;
	char *path; /* spec's pattern without its '/': what a tree holds */
	bool plain; /* looked up at all (no glob, no magic, not the root) */
	char *to;   /* the new name, or NULL */
	char abbrev[8];
};

/*
 * For each entry of `unmatched`, the newest rename of what it named within
 * RENAME_DEPTH commits of HEAD (newest first, one walk for every entry): a
 * commit whose first parent's tree has the path and whose own tree does
 * not is diffed with rename detection.  Only plain entries are looked up;
 * git errors leave the entries without a new name (still reported).
 * Returns the array (unmatched->n items; free with free_renames).
 */
static struct rename *find_renames(git_repository *repo,
				   const tm_strv *unmatched)
{
	struct rename *r =
		tm_xcalloc(unmatched->n ? unmatched->n : 1, sizeof(*r));
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t i, left = 0;
	int depth = 0;

	for (i = 0; i < unmatched->n; i++) {
		r[i].entry = unmatched->items[i];
		tm_pathspec_parse(&r[i].spec, r[i].entry);
		r[i].path = tm_xstrndup(r[i].spec.pattern, r[i].spec.len);
		r[i].plain = !tm_paths_is_glob(r[i].entry) &&
			     !tm_paths_is_magic(r[i].entry) && !r[i].spec.all &&
			     !r[i].spec.never && r[i].spec.len;
		left += r[i].plain;
	}
	if (!left || git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push_head(walk) < 0)
		goto done;
	while (left && depth++ < RENAME_DEPTH &&
	       git_revwalk_next(&oid, walk) == 0) {
		git_commit *c = NULL, *p = NULL;
		git_tree *ct = NULL, *pt = NULL;
		git_diff *d = NULL;
		git_diff_find_options fo;

		if (git_commit_lookup(&c, repo, &oid) < 0 ||
		    git_commit_parentcount(c) == 0 ||
		    git_commit_parent(&p, c, 0) < 0 ||
		    git_commit_tree(&ct, c) < 0 || git_commit_tree(&pt, p) < 0)
			goto next;
		for (i = 0; i < unmatched->n; i++) {
			if (!r[i].plain || r[i].to ||
			    !tree_has(pt, r[i].path) || tree_has(ct, r[i].path))
				continue;
			if (!d) {
				if (git_diff_tree_to_tree(&d, repo, pt, ct,
							  NULL) < 0)
					break;
				git_diff_find_options_init(
					&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
				fo.flags = GIT_DIFF_FIND_RENAMES;
				if (git_diff_find_similar(d, &fo) < 0)
					break;
			}
			/* Removed here: renamed or not, older commits say
			 * nothing newer about it. */
			r[i].plain = false;
			left--;
			r[i].to = renamed_in(d, &r[i].spec, r[i].entry);
			if (r[i].to)
				git_oid_tostr(r[i].abbrev, sizeof(r[i].abbrev),
					      &oid);
		}
	next:
		git_diff_free(d);
		git_tree_free(ct);
		git_tree_free(pt);
		git_commit_free(p);
		git_commit_free(c);
	}
done:
	git_revwalk_free(walk);
	tm_error_clear();
	return r;
}

static int cmp_rename(const void *a, const void *b)
{
	return strcmp(((const struct rename *)a)->entry,
		      ((const struct rename *)b)->entry);
}

static void free_renames(struct rename *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		tm_pathspec_free(&r[i].spec);
		free(r[i].path);
		free(r[i].to);
	}
	free(r);
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
			  const tm_thread *t, const struct rename *r, size_t n)
{
	tm_buf msg = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < t->paths.n; i++) {
		const char *e = t->paths.items[i], *to, *abbrev;
		struct rename key, *found;

		key.entry = e;
		if (!(found = bsearch(&key, r, n, sizeof(*r), cmp_rename)))
			continue;
		to = found->to;
		abbrev = found->abbrev;
		tm_buf_clear(&msg);
		tm_buf_printf(&msg,
			      "thread '%s': paths entry '%s' matches nothing "
			      "in HEAD",
			      t->id, e);
		if (to)
			tm_buf_printf(&msg, "; renamed to '%s' in %s", to,
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
		struct rename *r =
			find_renames(tm_git_repository(g), &unmatched);

		qsort(r, unmatched.n, sizeof(*r), cmp_rename);

		for (i = 0; i < c->nprojects; i++)
			for (k = 0; k < c->projects[i].n; k++)
				report_thread(out, &c->projects[i],
					      c->projects[i].threads[k], r,
					      unmatched.n);
		free_renames(r, unmatched.n);
	}
	tm_strv_clear(&entries);
	tm_strv_clear(&unmatched);
	return error;
}
