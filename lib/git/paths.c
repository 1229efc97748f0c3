/*
 * `paths` entries typed on the command line: normalised from the current
 * folder to the repository root (pure), and checked against HEAD, the
 * index and the work tree (see paths.h).
 */
#include "paths.h"

#include "error.h"
#include "git_libgit2.h"
#include "hashmap.h"
#include "pathspec.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- normalisation (pure) ---- */

/* `s` without its trailing '/' (but "/" stays "/"): its length. */
static size_t trimmed_len(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

char *tm_paths_prefix(const char *root, const char *cwd)
{
	size_t rn = trimmed_len(root), cn = trimmed_len(cwd);
	tm_buf b = TM_BUF_INIT;

	if (rn == 1 && root[0] == '/')
		rn = 0; /* the tree is "/": every folder is in it */
	if (cn < rn || memcmp(root, cwd, rn) || (cn > rn && cwd[rn] != '/'))
		return NULL;
	if (cn > rn + 1) {
		tm_buf_put(&b, cwd + rn + 1, cn - rn - 1);
		tm_buf_putc(&b, '/');
	}
	return tm_buf_detach(&b);
}

bool tm_paths_is_magic(const char *entry)
{
	return entry && entry[0] == ':';
}

bool tm_paths_is_glob(const char *entry)
{
	return entry && strpbrk(entry, "*?[\\") != NULL;
}

/* Push the components of `p` (separated by '/') onto `parts`, resolving
 * "." and "..": false when ".." climbs above the start. */
static bool push_components(tm_strv *parts, const char *p)
{
	while (*p) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (!parts->n)
				return false;
			free(parts->items[--parts->n]);
		} else if (len && !(len == 1 && p[0] == '.')) {
			tm_strv_push_owned(parts, tm_xstrndup(p, len));
		}
		p += len;
		while (*p == '/')
			p++;
	}
	return true;
}

int tm_paths_normalize(char **out, const char *root, const char *prefix,
		       const char *typed)
{
	tm_strv parts = TM_STRV_INIT, base = TM_STRV_INIT;
	tm_buf b = TM_BUF_INIT;
	size_t i, tn = strlen(typed);
	bool ok = true, dir = tn && typed[tn - 1] == '/';
	int error = 0;

	if (!tn)
		return tm_error_set(TM_EINVALID, "an empty path names nothing");
	if (tm_paths_is_magic(typed)) {
		*out = tm_xstrdup(typed);
		return 0;
	}
	if (typed[0] == '/') {
		/* Absolute: it must lie in the tree, after normalisation. */
		ok = push_components(&parts, typed) &&
		     push_components(&base, root);
		for (i = 0; ok && i < base.n; i++)
			ok = i < parts.n &&
			     !strcmp(parts.items[i], base.items[i]);
		if (ok) {
			tm_strv rest = TM_STRV_INIT;

			for (i = base.n; i < parts.n; i++)
				tm_strv_push(&rest, parts.items[i]);
			tm_strv_clear(&parts);
			parts = rest;
		}
	} else {
		ok = push_components(&parts, prefix ? prefix : "") &&
		     push_components(&parts, typed);
	}
	if (!ok) {
		error = tm_error_set(TM_EINVALID,
				     "'%s' is outside the repository at '%s'",
				     typed, root);
		goto done;
	}
	for (i = 0; i < parts.n; i++)
		tm_buf_printf(&b, "%s%s", i ? "/" : "", parts.items[i]);
	if (!parts.n)
		tm_buf_putc(&b, '.');
	else if (dir)
		tm_buf_putc(&b, '/');
	*out = tm_buf_detach(&b);
done:
	tm_buf_release(&b);
	tm_strv_clear(&parts);
	tm_strv_clear(&base);
	return error;
}

/* ---- matching against a repository ---- */

struct specs {
	tm_pathspec *items;
	bool *matched;
	size_t n, left; /* entries, entries not matched yet */
	/* Plain entries (no glob) by pattern: a path is looked up with each
	 * of its folders, so that matching costs its depth, not n. */
	tm_hashmap plain; /* pattern -> 1 + first entry with it */
	size_t *next;     /* 1 + the next entry with the same pattern, 0 */
	size_t *other;    /* the glob entries, matched one by one */
	size_t nother;
};

/* Mark entry i matched. */
static void hit(struct specs *sp, size_t i)
{
	if (!sp->matched[i]) {
		sp->matched[i] = true;
		sp->left--;
	}
}

/* Mark every entry that `path` matches; true when none is left. */
static bool mark(struct specs *sp, const char *path)
{
	size_t i, k, len = strlen(path);

	for (k = 1; k <= len; k++) {
		size_t *at;

		if (k < len && path[k] != '/')
			continue;
		at = tm_hashmap_get(&sp->plain, path, k);
		for (i = at ? *at : 0; i; i = sp->next[i - 1])
			if (k < len || !sp->items[i - 1].dir_only)
				hit(sp, i - 1);
	}
	for (k = 0; k < sp->nother; k++) {
		i = sp->other[k];
		if (!sp->matched[i] &&
		    tm_pathspec_matches(&sp->items[i], path, len))
			hit(sp, i);
	}
	return sp->left == 0;
}

/* Sort entry i (parsed) into the map or the list. */
static void add_spec(struct specs *sp, size_t i)
{
	const tm_pathspec *s = &sp->items[i];
	size_t *head;

	if (s->never)
		return;
	if (s->glob || s->all || !s->len) {
		sp->other[sp->nother++] = i;
		return;
	}
	head = tm_hashmap_put(&sp->plain, s->pattern, s->len, 0);
	sp->next[i] = *head;
	*head = i + 1;
}

struct walk {
	struct specs *sp;
	tm_buf path;
};

static int walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct walk *w = payload;

	if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
		return 0;
	tm_buf_clear(&w->path);
	tm_buf_puts(&w->path, root);
	tm_buf_puts(&w->path, git_tree_entry_name(e));
	return mark(w->sp, tm_buf_cstr(&w->path)) ? 1 : 0;
}

/* Mark what HEAD's tree matches; 0 also with no HEAD. */
static int mark_head(struct specs *sp, git_repository *repo)
{
	git_object *obj = NULL;
	struct walk w = {sp, TM_BUF_INIT};
	int rc = git_revparse_single(&obj, repo, "HEAD^{tree}");

	if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH)
		return 0;
	if (rc < 0)
		return tm_git_error(TM_ERROR, "cannot read HEAD's tree");
	rc = git_tree_walk((git_tree *)obj, GIT_TREEWALK_PRE, walk_cb, &w);
	git_object_free(obj);
	tm_buf_release(&w.path);
	if (rc < 0 && rc != GIT_EUSER)
		return tm_git_error(TM_ERROR, "cannot walk HEAD's tree");
	return 0;
}

static int mark_index(struct specs *sp, git_repository *repo)
{
	git_index *idx = NULL;
	size_t i, n;
	int error;

	if ((error = tm_git_index_open(&idx, repo)) < 0)
		return error;
	n = git_index_entrycount(idx);
	for (i = 0; i < n && sp->left; i++)
		mark(sp, git_index_get_byindex(idx, i)->path);
	git_index_free(idx);
	return 0;
}

static void mark_worktree(struct specs *sp, const char *const *entries,
			  const char *workdir)
{
	tm_buf p = TM_BUF_INIT;
	struct stat st;
	size_t i;

	for (i = 0; workdir && i < sp->n; i++) {
		if (sp->matched[i] || tm_paths_is_glob(entries[i]) ||
		    sp->items[i].never)
			continue;
		tm_buf_clear(&p);
		tm_buf_printf(&p, "%s%s%.*s", workdir,
			      workdir[strlen(workdir) - 1] == '/' ? "" : "/",
			      (int)sp->items[i].len, sp->items[i].pattern);
		if (lstat(tm_buf_cstr(&p), &st) == 0 &&
		    (!sp->items[i].dir_only || S_ISDIR(st.st_mode))) {
			sp->matched[i] = true;
			sp->left--;
		}
	}
	tm_buf_release(&p);
}

int tm_paths_unmatched(tm_strv *unmatched, tm_git *g,
		       const char *const *entries, size_t n, bool worktree)
{
	git_repository *repo = tm_git_repository(g);
	struct specs sp;
	size_t i;
	int error;

	sp.items = tm_xcalloc(n ? n : 1, sizeof(*sp.items));
	sp.matched = tm_xcalloc(n ? n : 1, sizeof(*sp.matched));
	sp.n = n;
	sp.left = n;
	sp.plain = (tm_hashmap)TM_HASHMAP_INIT;
	sp.next = tm_xcalloc(n ? n : 1, sizeof(*sp.next));
	sp.other = tm_xcalloc(n ? n : 1, sizeof(*sp.other));
	sp.nother = 0;
	for (i = 0; i < n; i++) {
		tm_pathspec_parse(&sp.items[i], entries[i]);
		if (tm_paths_is_magic(entries[i])) {
			sp.matched[i] = true; /* not ours to judge */
			sp.left--;
		} else {
			add_spec(&sp, i);
		}
	}
	error = sp.left ? mark_head(&sp, repo) : 0;
	if (error == 0 && worktree && sp.left)
		error = mark_index(&sp, repo);
	if (error == 0 && worktree && sp.left)
		mark_worktree(&sp, entries, tm_git_workdir(g));
	for (i = 0; error == 0 && i < n; i++)
		if (!sp.matched[i])
			tm_strv_push(unmatched, entries[i]);
	TM_FREE_ITEMS(sp.items, n, tm_pathspec_free);
	TM_FREE_ALL(sp.matched, sp.next, sp.other);
	tm_hashmap_release(&sp.plain);
	return error;
}

/* ---- renames ---- */

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

/* One commit's tree with its folders, each loaded once however many
 * entries look into it (libgit2 does not cache a large tree: a lookup per
 * entry read the root tree again each time). */
struct tree_cache {
	git_repository *repo;
	git_tree *root;  /* NULL: none */
	tm_hashmap dirs; /* folder -> 1 + index in trees, SIZE_MAX: none */
	git_tree **trees;
	size_t n, alloc;
	size_t work; /* entries of the folders loaded */
};

/* `root` is the cache's from now on (freed with it). */
static void cache_init(struct tree_cache *h, git_repository *repo,
		       git_tree *root)
{
	memset(h, 0, sizeof(*h));
	h->repo = repo;
	h->root = root;
	if (root)
		h->work = git_tree_entrycount(root);
}

/* The tree of folder `dir` (`len` bytes, "" the root), or NULL. */
static git_tree *cache_folder(struct tree_cache *h, const char *dir, size_t len)
{
	size_t *at, plen = len, got;
	git_tree *parent, *t = NULL;
	const git_tree_entry *e;
	char *name;

	if (!len)
		return h->root;
	at = tm_hashmap_get(&h->dirs, dir, len);
	if (at)
		return *at == SIZE_MAX ? NULL : h->trees[*at - 1];
	while (plen && dir[plen - 1] != '/')
		plen--;
	parent = cache_folder(h, dir, plen ? plen - 1 : 0);
	name = tm_xstrndup(dir + plen, len - plen);
	e = parent ? git_tree_entry_byname(parent, name) : NULL;
	free(name);
	if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE &&
	    git_tree_lookup(&t, h->repo, git_tree_entry_id(e)) == 0) {
		tm_xgrow((void **)&h->trees, &h->alloc, h->n + 1,
			 sizeof(*h->trees));
		h->trees[h->n++] = t;
		h->work += git_tree_entrycount(t);
		got = h->n;
	} else {
		t = NULL;
		got = SIZE_MAX;
	}
	tm_error_clear();
	*tm_hashmap_put(&h->dirs, dir, len, 0) = got;
	return t;
}

/* Does the cached tree hold `path` (a file or a folder)? */
static bool cache_has(struct tree_cache *h, const char *path)
{
	size_t len = strlen(path), dlen = len;
	git_tree *dir;

	while (dlen && path[dlen - 1] != '/')
		dlen--;
	dir = cache_folder(h, path, dlen ? dlen - 1 : 0);
	return dir && git_tree_entry_byname(dir, path + dlen) != NULL;
}

static void cache_free(struct tree_cache *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		git_tree_free(h->trees[i]);
	free(h->trees);
	tm_hashmap_release(&h->dirs);
	git_tree_free(h->root);
	memset(h, 0, sizeof(*h));
}

/*
 * Did the commit of tree `c` (its parent's: `p`) remove `path`: p holds it
 * and c does not?  A folder on the way that both trees hold with the same
 * id changed nothing under it, and is not read.
 */
static bool removed(struct tree_cache *p, struct tree_cache *c,
		    const char *path)
{
	size_t len = strlen(path), at = 0, end;
	git_tree *tp = p->root, *tc = c->root;
	tm_buf name = TM_BUF_INIT;
	bool result = false;

	while (tp && tc && !git_oid_equal(git_tree_id(tp), git_tree_id(tc))) {
		const char *slash = memchr(path + at, '/', len - at);
		const git_tree_entry *ep, *ec;

		end = slash ? (size_t)(slash - path) : len;
		tm_buf_clear(&name);
		tm_buf_put(&name, path + at, end - at);
		ep = git_tree_entry_byname(tp, tm_buf_cstr(&name));
		ec = git_tree_entry_byname(tc, tm_buf_cstr(&name));
		if (!ep)
			break;
		if (end == len) {
			result = !ec;
			break;
		}
		if (!ec || git_tree_entry_type(ec) != GIT_OBJECT_TREE) {
			result = cache_has(p, path);
			break;
		}
		if (git_oid_equal(git_tree_entry_id(ep), git_tree_entry_id(ec)))
			break;
		tp = cache_folder(p, path, end);
		tc = cache_folder(c, path, end);
		at = end + 1;
	}
	tm_buf_release(&name);
	return result;
}

/* Does the work tree have `path` (one lstat: what the work tree has is
 * HEAD's, but for changes not committed yet, and HEAD's trees are costly
 * to read)? */
static bool in_worktree(tm_git *g, const char *path)
{
	const char *wd = tm_git_workdir(g);
	tm_buf full = TM_BUF_INIT;
	struct stat st;
	bool has;

	if (!wd)
		return false;
	tm_buf_printf(&full, "%s%s%s", wd,
		      *wd && wd[strlen(wd) - 1] == '/' ? "" : "/", path);
	has = lstat(tm_buf_cstr(&full), &st) == 0;
	tm_buf_release(&full);
	return has;
}

/* What the search knows of one entry. */
struct search {
	tm_pathspec spec;
	char *path; /* spec's pattern without its '/': what a tree holds */
	bool open;  /* still looked for */
	char *to;   /* the new name, or NULL */
	git_oid by;
};

/* The tree of `c` into a new cache; false when it cannot be read. */
static bool commit_cache(struct tree_cache *h, git_repository *repo,
			 const git_commit *c)
{
	git_tree *t = NULL;

	if (git_commit_tree(&t, c) < 0)
		return false;
	cache_init(h, repo, t);
	return true;
}

bool tm_paths_find_renames(tm_paths_rename **out, size_t *n, tm_git *g,
			   const tm_strv *entries, unsigned depth)
{
	git_repository *repo = tm_git_repository(g);
	struct search *r = tm_xcalloc(entries->n + 1, sizeof(*r));
	struct tree_cache ht, prev;
	git_commit *head = NULL;
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t i, left = 0, alloc = *n, work = 0;
	unsigned seen = 0;
	bool stopped = false;

	cache_init(&ht, repo, NULL);
	cache_init(&prev, repo, NULL);
	if (entries->n && git_revparse_single((git_object **)&head, repo,
					      "HEAD^{commit}") == 0)
		commit_cache(&ht, repo, head);
	git_commit_free(head);
	for (i = 0; i < entries->n; i++) {
		const char *e = entries->items[i];

		tm_pathspec_parse(&r[i].spec, e);
		r[i].path = tm_xstrndup(r[i].spec.pattern, r[i].spec.len);
		r[i].open = !tm_paths_is_glob(e) && !tm_paths_is_magic(e) &&
			    !r[i].spec.all && !r[i].spec.never &&
			    r[i].spec.len && !in_worktree(g, r[i].path) &&
			    !cache_has(&ht, r[i].path);
		left += r[i].open;
	}
	if (!left || git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push_head(walk) < 0)
		goto done;
	while (left && !stopped && seen++ < depth &&
	       git_revwalk_next(&oid, walk) == 0) {
		git_commit *c = NULL, *p = NULL;
		struct tree_cache ct, pt;
		git_diff *d = NULL;
		git_diff_find_options fo;

		cache_init(&ct, repo, NULL);
		cache_init(&pt, repo, NULL);
		if (git_commit_lookup(&c, repo, &oid) < 0 ||
		    git_commit_parentcount(c) == 0 ||
		    git_commit_parent(&p, c, 0) < 0)
			goto next;
		/* In a line of history, this commit's tree is the parent's
		 * of the commit before: its folders are read already. */
		if (prev.root && git_oid_equal(git_tree_id(prev.root),
					       git_commit_tree_id(c))) {
			ct = prev;
			cache_init(&prev, repo, NULL);
		} else if (!commit_cache(&ct, repo, c)) {
			goto next;
		}
		if (!commit_cache(&pt, repo, p))
			goto next;
		for (i = 0; i < entries->n; i++) {
			if (!r[i].open)
				continue;
			if (work + ct.work + pt.work >= TM_PATHS_RENAME_WORK) {
				stopped = true;
				break;
			}
			work++;
			if (!removed(&pt, &ct, r[i].path))
				continue;
			if (!d) {
				if (git_diff_tree_to_tree(&d, repo, pt.root,
							  ct.root, NULL) < 0)
					break;
				git_diff_find_options_init(
					&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
				fo.flags = GIT_DIFF_FIND_RENAMES;
				if (git_diff_find_similar(d, &fo) < 0)
					break;
			}
			/* Removed here: renamed or not, older commits say
			 * nothing newer about it. */
			r[i].open = false;
			left--;
			r[i].to = renamed_in(d, &r[i].spec, entries->items[i]);
			git_oid_cpy(&r[i].by, &oid);
		}
	next:
		git_diff_free(d);
		/* the folders read count once, whichever commit reads them */
		work += ct.work + prev.work;
		cache_free(&ct);
		cache_free(&prev);
		prev = pt;
		git_commit_free(p);
		git_commit_free(c);
	}
done:
	for (i = 0; i < entries->n; i++) {
		if (r[i].to) {
			tm_paths_rename *x;

			tm_xgrow((void **)out, &alloc, *n + 1, sizeof(**out));
			x = &(*out)[(*n)++];
			x->entry = tm_xstrdup(entries->items[i]);
			x->to = r[i].to;
			git_oid_tostr(x->commit, sizeof(x->commit), &r[i].by);
		}
		tm_pathspec_free(&r[i].spec);
		free(r[i].path);
	}
	free(r);
	git_revwalk_free(walk);
	cache_free(&ht);
	cache_free(&prev);
	tm_error_clear();
	return stopped;
}

void tm_paths_renames_free(tm_paths_rename *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].entry);
		free(r[i].to);
	}
	free(r);
}

void tm_paths_follow_renames(tm_strv *out, const tm_strv *paths,
			     const tm_paths_rename *r, size_t n)
{
	size_t i, k;

	for (i = 0; i < paths->n; i++) {
		for (k = 0; k < n && strcmp(r[k].entry, paths->items[i]); k++)
			;
		tm_strv_push(out, k < n ? r[k].to : paths->items[i]);
	}
}
