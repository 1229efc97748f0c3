/*
 * Where a thread's file is in a commit's tree, for its history
 * (thread_log_internal.h): an entry by path read from raw trees and
 * remembered per tree and path, and the thread's file found again in a
 * parent after a project rename or a split by resolve.
 */
#include "thread_log_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "git_libgit2.h"
#include "treediff.h"

#include <stdlib.h>
#include <string.h>

void tm_log__trees_clear(struct tm_log__trees *w)
{
	free(w->memo_oid);
	free(w->memo_present);
	tm_hashmap_release(&w->memo);
}

char *tm_log__path_of(const struct tm_log__trees *w, const char *project,
		      const char *id)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_puts(&b, w->prefix);
	tm_buf_puts(&b, ".threadmind/threads/");
	tm_buf_puts(&b, project);
	if (id) {
		tm_buf_putc(&b, '/');
		tm_buf_puts(&b, id);
		tm_buf_puts(&b, ".md");
	}
	return tm_buf_detach(&b);
}

/* The entry `name` (`len` bytes) of a raw tree, whose entries are
 * "<octal mode> <name>\0<20-byte id>": its id and whether it is a
 * folder.  False when the tree has none (or is malformed). */
static bool raw_entry(git_oid *out, bool *folder, const char *p,
		      const char *end, const char *name, size_t len)
{
	while (p < end) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		const char *nul =
			sp ? memchr(sp, '\0', (size_t)(end - sp)) : NULL;

		if (!nul || end - nul < GIT_OID_RAWSZ + 1)
			return false;
		if ((size_t)(nul - sp - 1) == len &&
		    !memcmp(sp + 1, name, len)) {
			git_oid_fromraw(out, (const unsigned char *)nul + 1);
			*folder = sp - p == 5 && p[0] == '4';
			return true;
		}
		p = nul + 1 + GIT_OID_RAWSZ;
	}
	return false;
}

/*
 * What `path` is in tree `root`: true with its id in *out, false when the
 * tree has no such entry.  Remembered per tree and path, so that commits
 * sharing a folder read it once.  Raw trees, not git_tree_lookup: that
 * parses every entry of every root tree (its entries, modes and an object
 * each), 80 M of the 483 M instructions of `log <thread>` on the
 * 12,000-commit bench history (callgrind).
 */
int tm_log__entry_at(bool *present, git_oid *out, struct tm_log__trees *w,
		     const git_oid *root, const char *path)
{
	char small[256];
	tm_buf big = TM_BUF_INIT;
	const char *slash = strchr(path, '/'), *key = small;
	size_t *at, len = slash ? (size_t)(slash - path) : strlen(path), m;
	size_t plen = strlen(path), klen = GIT_OID_RAWSZ + plen;
	git_odb_object *obj = NULL;
	const char *data;
	git_oid found;
	bool folder = false, has;
	int error = 0;

	if (klen <= sizeof(small)) {
		memcpy(small, root->id, GIT_OID_RAWSZ);
		memcpy(small + GIT_OID_RAWSZ, path, plen);
	} else {
		tm_buf_put(&big, root->id, GIT_OID_RAWSZ);
		tm_buf_put(&big, path, plen);
		key = big.ptr;
	}
	at = tm_hashmap_get(&w->memo, key, klen);
	if (at) {
		*present = w->memo_present[*at];
		git_oid_cpy(out, &w->memo_oid[*at]);
		tm_buf_release(&big);
		return 0;
	}
	*present = false;
	if (git_odb_read(&obj, w->odb, root) < 0 ||
	    git_odb_object_type(obj) != GIT_OBJECT_TREE) {
		git_odb_object_free(obj);
		tm_buf_release(&big);
		return tm_git_error(TM_ERROR, "cannot read tree %s",
				    git_oid_tostr_s(root));
	}
	data = git_odb_object_data(obj);
	has = raw_entry(&found, &folder, data, data + git_odb_object_size(obj),
			path, len);
	git_odb_object_free(obj);
	if (has && !slash) {
		*present = true;
		git_oid_cpy(out, &found);
	} else if (has && folder) {
		error = tm_log__entry_at(present, out, w, &found, slash + 1);
	}
	if (error == 0) {
		m = w->nmemo++;
		tm_xgrow((void **)&w->memo_oid, &w->amemo, w->nmemo,
			 sizeof(*w->memo_oid));
		w->memo_present =
			tm_xrealloc(w->memo_present, w->amemo * sizeof(bool));
		w->memo_present[m] = *present;
		if (*present)
			git_oid_cpy(&w->memo_oid[m], out);
		else
			memset(&w->memo_oid[m], 0, sizeof(git_oid));
		*tm_hashmap_put(&w->memo, key, klen, m) = m;
	}
	tm_buf_release(&big);
	return error;
}

/* The thread in blob `oid` (its frontmatter), or NULL. */
tm_thread *tm_log__read_thread(struct tm_log__trees *w, const git_oid *oid,
			       const char *id)
{
	git_blob *blob = NULL;
	tm_thread *t = NULL;
	size_t len;

	if (git_blob_lookup(&blob, w->repo, oid) < 0) {
		tm_error_clear();
		return NULL;
	}
	len = tm_frontmatter_block_len(git_blob_rawcontent(blob),
				       (size_t)git_blob_rawsize(blob));
	if (!len || tm_frontmatter_parse(&t, git_blob_rawcontent(blob), len, id,
					 id) < 0)
		t = NULL;
	tm_error_clear();
	git_blob_free(blob);
	return t;
}

static bool same_thread(const tm_thread *a, const tm_thread *b)
{
	return a && b && a->created_at && a->author &&
	       tm_thread_same_identity(a->created_at, a->author, b->created_at,
				       b->author);
}

/* The tree of the threads folder of commit node `c` (NULL: none). */
static git_tree *threads_tree(struct tm_log__trees *w, const git_oid *tree)
{
	char *path = tm_log__path_of(w, "", NULL);
	git_tree *t = NULL;
	git_oid oid;
	bool present = false;

	path[strlen(path) - 1] = '\0'; /* the trailing '/' */
	if (tm_log__entry_at(&present, &oid, w, tree, path) < 0 || !present ||
	    git_tree_lookup(&t, w->repo, &oid) < 0) {
		tm_error_clear();
		t = NULL;
	}
	free(path);
	return t;
}

/* Does thread file `id` of `project` in node `p` hold `want`'s thread? */
static bool holds(struct tm_log__trees *w, const git_oid *tree,
		  const char *project, const char *id, const tm_thread *want)
{
	char *path = tm_log__path_of(w, project, id);
	tm_thread *t = NULL;
	git_oid oid;
	bool present = false, same;

	if (tm_log__entry_at(&present, &oid, w, tree, path) < 0)
		tm_error_clear();
	free(path);
	if (!present)
		return false;
	t = tm_log__read_thread(w, &oid, id);
	same = same_thread(t, want);
	tm_thread_free(t);
	return same;
}

/* The first project folder of `pt` (parent tree `ptree`'s threads/),
 * other than `skip` (or NULL), that holds `t` as thread `id`: its name,
 * owned by `pt`; NULL when none does. */
static const char *project_holding(struct tm_log__trees *w, git_tree *pt,
				   const git_oid *ptree, const char *skip,
				   const char *id, const tm_thread *t)
{
	size_t i, n = git_tree_entrycount(pt);

	for (i = 0; i < n; i++) {
		const char *name =
			git_tree_entry_name(git_tree_entry_byindex(pt, i));

		if ((!skip || strcmp(name, skip)) &&
		    holds(w, ptree, name, id, t))
			return name;
	}
	return NULL;
}

/*
 * Where parent node `p` has the thread of commit node `c` (its project and
 * id there, `t` read from c): under the same id in another project (a
 * project renamed), else under an id of the project whose file differs
 * from c's (a split by resolve).  False when it has none.
 */
bool tm_log__find_thread(char **project, char **id, struct tm_log__trees *w,
			 const git_oid *ctree, const git_oid *ptree,
			 const char *cur_project, const tm_thread *t)
{
	git_tree *pt = threads_tree(w, ptree), *ct;
	tm_strv changed = TM_STRV_INIT;
	const git_tree_entry *pe, *ce;
	const char *name;
	bool found = false;
	size_t i;

	if (!pt)
		return false;
	name = project_holding(w, pt, ptree, cur_project, t->id, t);
	if (name) {
		*project = tm_xstrdup(name);
		*id = tm_xstrdup(t->id);
		found = true;
	}
	pe = git_tree_entry_byname(pt, cur_project);
	ct = threads_tree(w, ctree);
	ce = ct ? git_tree_entry_byname(ct, cur_project) : NULL;
	if (!found && pe &&
	    tm_treediff(&changed, NULL, w->repo, git_tree_entry_id(pe),
			ce ? git_tree_entry_id(ce) : NULL) == 0) {
		for (i = 0; i < changed.n && !found; i++) {
			const char *name = changed.items[i];
			size_t len = strlen(name);
			char *other;

			if (len < 4 || strcmp(name + len - 3, ".md") ||
			    strchr(name, '/'))
				continue;
			other = tm_xstrndup(name, len - 3);
			if (strcmp(other, t->id) &&
			    holds(w, ptree, cur_project, other, t)) {
				*project = tm_xstrdup(cur_project);
				*id = other;
				found = true;
			} else {
				free(other);
			}
		}
	}
	tm_error_clear();
	tm_strv_clear(&changed);
	git_tree_free(ct);
	git_tree_free(pt);
	return found;
}

/* With every thread: the project folder of parent `p` whose root thread
 * is `root` (the project renamed), or NULL. */
char *tm_log__find_project(struct tm_log__trees *w, const git_oid *ptree,
			   const tm_thread *root)
{
	git_tree *pt = threads_tree(w, ptree);
	char *found;

	if (!pt)
		return NULL;
	found = tm_xstrdup_or_null(
		project_holding(w, pt, ptree, NULL, TM_ROOT_THREAD_ID, root));
	git_tree_free(pt);
	return found;
}
