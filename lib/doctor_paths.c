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

/*
 * The newest rename of `entry` within RENAME_DEPTH commits of HEAD: the
 * new name (malloc'd) and the commit's abbreviated id in `abbrev`, or
 * NULL.  Only plain entries (no glob, no magic) are looked up; git errors
 * give NULL (the entry is still reported, without a new name).
 */
static char *find_rename(git_repository *repo, const char *entry,
			 char abbrev[8])
{
	git_revwalk *walk = NULL;
	git_oid oid;
	tm_pathspec s;
	char *found = NULL;
	int depth = 0;

	if (tm_paths_is_glob(entry) || tm_paths_is_magic(entry))
		return NULL;
	tm_pathspec_parse(&s, entry);
	if (s.all || s.never || git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push_head(walk) < 0)
		goto done;
	while (!found && depth++ < RENAME_DEPTH &&
	       git_revwalk_next(&oid, walk) == 0) {
		git_commit *c = NULL, *p = NULL;
		git_tree *ct = NULL, *pt = NULL;
		git_diff *d = NULL;
		git_diff_find_options fo;
		char *path = tm_xstrndup(s.pattern, s.len);

		if (git_commit_lookup(&c, repo, &oid) == 0 &&
		    git_commit_parentcount(c) > 0 &&
		    git_commit_parent(&p, c, 0) == 0 &&
		    git_commit_tree(&ct, c) == 0 &&
		    git_commit_tree(&pt, p) == 0 && tree_has(pt, path) &&
		    !tree_has(ct, path) &&
		    git_diff_tree_to_tree(&d, repo, pt, ct, NULL) == 0) {
			git_diff_find_options_init(
				&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
			fo.flags = GIT_DIFF_FIND_RENAMES;
			if (git_diff_find_similar(d, &fo) == 0)
				found = renamed_in(d, &s, entry);
			if (found)
				git_oid_tostr(abbrev, 8, &oid);
		}
		free(path);
		git_diff_free(d);
		git_tree_free(ct);
		git_tree_free(pt);
		git_commit_free(p);
		git_commit_free(c);
	}
done:
	git_revwalk_free(walk);
	tm_pathspec_free(&s);
	tm_error_clear();
	return found;
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
			  git_repository *repo)
{
	tm_buf msg = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < unmatched->n; i++) {
		const char *e = unmatched->items[i];
		char abbrev[8] = "", *to = find_rename(repo, e, abbrev);

		tm_buf_clear(&msg);
		tm_buf_printf(&msg,
			      "thread '%s': paths entry '%s' matches nothing "
			      "in HEAD",
			      t->id, e);
		if (to)
			tm_buf_printf(&msg, "; renamed to '%s' in %s", to,
				      abbrev);
		tm_buf_printf(&msg,
			      "; %s at the repository root with 'git "
			      "threadmind set %s paths=",
			      to ? "follow it" : "fix or drop it", t->id);
		paths_without(&msg, t, e, to);
		tm_buf_puts(&msg, "'");
		tm_doctor_add_thread(out, TM_DOCTOR_UNMATCHED_PATH, pr, t->id,
				     false, tm_buf_cstr(&msg));
		free(to);
	}
	tm_buf_release(&msg);
}

int tm_doctor_check_paths(tm_doctor_report *out, tm_doctor_ctx *c)
{
	struct tm_git *g = c->o->git ? tm_store_git(c->s) : NULL;
	size_t i, k;
	int error = 0;

	if (!g)
		return 0;
	for (i = 0; error == 0 && i < c->nprojects; i++) {
		const tm_doctor_project *pr = &c->projects[i];

		for (k = 0; error == 0 && k < pr->n; k++) {
			const tm_thread *t = pr->threads[k];
			tm_strv unmatched = TM_STRV_INIT;

			if (!t->paths.n)
				continue;
			error = tm_paths_unmatched(
				&unmatched, g,
				(const char *const *)t->paths.items, t->paths.n,
				false);
			if (error == 0)
				report_thread(out, pr, t, &unmatched,
					      tm_git_repository(g));
			tm_strv_clear(&unmatched);
		}
	}
	return error;
}
