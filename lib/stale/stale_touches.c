/*
 * Staleness for the post-commit hook and the commands (stale.h): the
 * threads one commit touches, the threads folder, a commit's description.
 */
#include "stale_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "git_libgit2.h"
#include "timestamp.h"
#include "treediff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- one commit, for the post-commit hook ---- */

/* Commit `hex` (40 hex digits) of `repo` into *out, its id into *oid. */
static int commit_of(git_commit **out, git_oid *oid, git_repository *repo,
		     const char *hex)
{
	int error;

	if (!tm_stale__is_hex40(hex) || git_oid_fromstr(oid, hex) < 0)
		return tm_error_set(TM_EINVALID,
				    "'%s' is not a full commit hash",
				    hex ? hex : "");
	error = git_commit_lookup(out, repo, oid);
	if (error == GIT_ENOTFOUND)
		return tm_error_set(TM_ENOTFOUND,
				    "no commit %s in this repository", hex);
	if (error < 0)
		return tm_git_error(TM_ERROR, "cannot read commit %s", hex);
	return 0;
}

/* Changed paths up to which the threads' specs are tried one by one rather
 * than indexed: a commit changes a few paths, and indexing the specs of
 * 10,000 threads cost post-commit more than its tree diff. */
#define FEW_CHANGED 16

/* Whether a spec of t names one of `changed`. */
static bool names_any(const tm_thread *t, const tm_strv *changed)
{
	tm_pathspec spec;
	size_t k, i;
	bool hit = false;

	for (k = 0; k < t->paths.n && !hit; k++) {
		tm_pathspec_parse(&spec, t->paths.items[k]);
		for (i = 0; i < changed->n && !hit; i++) {
			const char *p = changed->items[i];
			size_t len = strlen(p);

			hit = tm_treediff_is_prefix(p, len)
				      ? tm_pathspec_may_match_under(&spec, p,
								    len - 1)
				      : tm_pathspec_matches(&spec, p, len);
		}
		tm_pathspec_free(&spec);
	}
	return hit;
}

int tm_stale_commit_touches(tm_strv *out_ids, tm_git *g, const char *hex,
			    const char *threads_dir,
			    const tm_thread *const *threads, size_t n)
{
	git_repository *repo = tm_git_repository(g);
	git_commit *c = NULL, *p = NULL;
	tm_strv changed = TM_STRV_INIT, ids = TM_STRV_INIT;
	tm_strv skipped = TM_STRV_INIT;
	struct tm_stale_specs x;
	struct tm_stale_sizev hits = {NULL, 0, 0};
	const tm_thread **cand;
	git_oid oid, *shallow = NULL;
	size_t i, k, f, ncand = 0, nshallow = 0;
	uint64_t *touched, *covers;
	int error;

	if ((error = commit_of(&c, &oid, repo, hex)) < 0)
		return error;
	tm_stale__read_shallow(&shallow, &nshallow, repo);
	if (git_commit_parentcount(c) > 0 &&
	    !tm_stale__shallow_has(shallow, nshallow, &oid) &&
	    git_commit_parent(&p, c, 0) < 0)
		p = NULL; /* missing: compare with the empty tree */
	free(shallow);
	/* an object that cannot be read: its folder counts as changed,
	   quietly (stale says it) */
	error = tm_treediff(&changed, &skipped, repo,
			    p ? git_commit_tree_id(p) : NULL,
			    git_commit_tree_id(c));
	tm_strv_clear(&skipped);
	git_commit_free(p);
	git_commit_free(c);
	if (error < 0) {
		tm_strv_clear(&changed);
		return error;
	}

	cand = tm_xcalloc(n + 1, sizeof(*cand));
	for (i = 0; i < n; i++)
		if (threads[i] && threads[i]->has_paths &&
		    threads[i]->paths.n && !tm_thread_is_finished(threads[i]) &&
		    !(threads[i]->commit &&
		      !strcasecmp(threads[i]->commit, hex)) &&
		    (changed.n > FEW_CHANGED ||
		     names_any(threads[i], &changed)))
			cand[ncand++] = threads[i];
	tm_stale__specs_build(&x, cand, ncand, threads_dir);
	touched = tm_xcalloc(TM_STALE_WORDS(ncand) + 1, sizeof(uint64_t));
	covers = tm_xcalloc(TM_STALE_WORDS(ncand) + 1, sizeof(uint64_t));
	for (i = 0; i < changed.n; i++) {
		hits.n = 0;
		tm_stale__specs_match(&x, changed.items[i], &hits);
		for (k = 0; k < hits.n; k++)
			tm_stale__bit_set(touched, hits.v[k]);
		for (f = tm_stale__specs_file(&x, changed.items[i]);
		     f != TM_STALE_NONE; f = x.file_next[f])
			tm_stale__bit_set(covers, f);
	}
	for (i = 0; i < ncand; i++)
		if (tm_stale__bit_get(touched, i) &&
		    !tm_stale__bit_get(covers, i))
			tm_strv_push(&ids, cand[i]->id);
	tm_strv_sort_unique(&ids);
	*out_ids = ids;
	TM_FREE_ALL(touched, covers, hits.v);
	tm_stale__specs_free(&x);
	free(cand);
	tm_strv_clear(&changed);
	return 0;
}

/* ---- helpers for the commands ---- */

char *tm_stale_threads_dir(tm_git *g, const char *store_root,
			   const char *project)
{
	tm_buf out = TM_BUF_INIT;
	char *rel;

	if (!project || !(rel = tm_git_path_in_workdir(g, store_root)))
		return NULL;
	tm_buf_printf(&out, "%s.threadmind/threads/%s/", rel, project);
	free(rel);
	return tm_buf_detach(&out);
}

int tm_stale_describe_commit(char **out_short, char **out_subject, tm_git *g,
			     const char *hex)
{
	git_commit *c = NULL;
	git_buf buf = GIT_BUF_INIT;
	git_oid oid;
	const char *subject;
	int error;

	if ((error = commit_of(&c, &oid, tm_git_repository(g), hex)) < 0)
		return error;
	if (git_object_short_id(&buf, (const git_object *)c) < 0) {
		error = tm_git_error(TM_ERROR, "cannot read commit %s", hex);
		git_commit_free(c);
		return error;
	}
	subject = git_commit_summary(c);
	*out_short = tm_xstrdup(buf.ptr);
	*out_subject = tm_xstrdup(subject ? subject : "");
	git_buf_dispose(&buf);
	git_commit_free(c);
	return 0;
}
