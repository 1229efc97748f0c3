/*
 * Questions about one path's history that the 0.4 upgrade asks (git.h):
 * when HEAD's history deleted it, and whether a file is as it was then.
 */
#include "git.h"
#include "git_libgit2.h"

#include "buf.h"
#include "error.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

/* What a walk remembers: the last top folder seen and whether the path was
 * in it (consecutive commits mostly share it). */
struct memo {
	git_oid top;
	bool valid, present;
};

/* Is `path` (its first component `top_name`) in commit `c`'s tree? */
static int has_path(bool *out, git_commit *c, const char *path,
		    const char *top_name, struct memo *m)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	const git_tree_entry *top;
	int error;

	if ((error = git_commit_tree(&tree, c)) < 0)
		return error;
	top = git_tree_entry_byname(tree, top_name);
	if (!top) {
		*out = false;
		goto done;
	}
	if (m->valid && git_oid_equal(&m->top, git_tree_entry_id(top))) {
		*out = m->present;
		goto done;
	}
	error = git_tree_entry_bypath(&e, tree, path);
	if (error == GIT_ENOTFOUND)
		error = 0;
	*out = e != NULL;
	git_oid_cpy(&m->top, git_tree_entry_id(top));
	m->valid = error == 0;
	m->present = *out;
done:
	git_tree_entry_free(e);
	git_tree_free(tree);
	return error;
}

int tm_git_last_deletion(char *out_hex41, tm_git *g, const char *path)
{
	git_repository *repo = tm_git_repository(g);
	git_revwalk *walk = NULL;
	git_commit *c = NULL, *parent = NULL;
	git_oid oid;
	struct memo mine = {{{0}}, false, false}, theirs = mine;
	char *top_name = tm_xstrdup(path), *slash = strchr(top_name, '/');
	unsigned i;
	bool here, there;
	int error, found = 0;

	if (slash)
		*slash = '\0';
	if ((error = git_revwalk_new(&walk, repo)) < 0)
		goto fail;
	git_revwalk_sorting(walk, GIT_SORT_TIME);
	error = git_revwalk_push_head(walk);
	if (error == GIT_ENOTFOUND || error == GIT_EUNBORNBRANCH) {
		error = 0; /* no commit yet */
		goto done;
	}
	if (error < 0)
		goto fail;
	while (!found && (error = git_revwalk_next(&oid, walk)) == 0) {
		if ((error = git_commit_lookup(&c, repo, &oid)) < 0 ||
		    (error = has_path(&here, c, path, top_name, &mine)) < 0)
			goto fail;
		for (i = 0; !here && !found && i < git_commit_parentcount(c);
		     i++) {
			if ((error = git_commit_parent(&parent, c, i)) < 0 ||
			    (error = has_path(&there, parent, path, top_name,
					      &theirs)) < 0)
				goto fail;
			git_commit_free(parent);
			parent = NULL;
			if (there) {
				git_oid_tostr(out_hex41, 41, &oid);
				found = 1;
			}
		}
		git_commit_free(c);
		c = NULL;
	}
	if (error == GIT_ITEROVER)
		error = 0;
	if (error < 0)
		goto fail;
	goto done;
fail:
	error = tm_git_error(TM_ERROR, "cannot read the history of '%s'", path);
done:
	git_commit_free(parent);
	git_commit_free(c);
	git_revwalk_free(walk);
	free(top_name);
	return error < 0 ? error : found;
}

int tm_git_same_as_at(tm_git *g, const char *hex, const char *path,
		      const char *file)
{
	git_repository *repo = tm_git_repository(g);
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_oid oid, now;
	int error;

	if ((error = git_oid_fromstr(&oid, hex)) < 0 ||
	    (error = git_commit_lookup(&c, repo, &oid)) < 0 ||
	    (error = git_commit_tree(&tree, c)) < 0)
		goto fail;
	error = git_tree_entry_bypath(&e, tree, path);
	if (error == GIT_ENOTFOUND) {
		error = TM_GIT_ABSENT_THEN;
		goto done;
	}
	if (error < 0)
		goto fail;
	if (git_odb_hashfile(&now, file, GIT_OBJECT_BLOB) < 0) {
		error = TM_GIT_CHANGED; /* gone or unreadable: not as then */
		goto done;
	}
	error = git_oid_equal(&now, git_tree_entry_id(e)) ? TM_GIT_SAME
							  : TM_GIT_CHANGED;
	goto done;
fail:
	error = tm_git_error(TM_ERROR, "cannot read '%s' at commit %.7s", path,
			     hex);
done:
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(c);
	git_error_clear();
	return error;
}
