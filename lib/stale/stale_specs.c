/*
 * Every thread's pathspecs and file, indexed, so that each changed path is
 * matched against all threads at once: the literal specs in a hash map,
 * probed with each leading folder of the path; the globs by their literal
 * folder (glob_folder), probed the same way, and tried one by one.
 */
#include "stale_internal.h"

#include <string.h>

/* Add item x (whose next link is next[x]) to the chain of `key`. */
static void chain_add(tm_hashmap *m, const char *key, size_t len, size_t *next,
		      size_t x)
{
	size_t *head = tm_hashmap_put(m, key, len, TM_STALE_NONE);

	next[x] = *head;
	*head = x;
}

static size_t chain_head(const tm_hashmap *m, const char *key, size_t len)
{
	const size_t *head = tm_hashmap_get(m, key, len);

	return head ? *head : TM_STALE_NONE;
}

/*
 * The literal folder of a glob spec: its bytes before the first glob
 * character, up to their last '/' (its length, the '/' not counted; 0:
 * none).  Every path the spec matches starts with that folder and its '/'
 * (tm_pathspec_matches: the path is the pattern or under it; fnmatch(3)
 * with no flags, which matches the bytes before the first glob character
 * as they are; or git's tree walk rule, the file's folder spelled at the
 * pattern's start and the rest of the pattern matched against the file's
 * name, which holds no '/' for a literal '/' of the rest to match, so
 * that folder is the literal folder or under it).  A changed path is
 * then tried against the specs of its own leading folders only: on make
 * bench's stores (specs such as "src/ui/widgets/" + "*.c") it tried about
 * 45 globs per changed path by their first byte, 7.5 M instructions of
 * the narrow row's 158 M.
 */
static size_t glob_folder(const tm_pathspec *s)
{
	size_t i = s->glob ? s->plain : 0;

	while (i > 0 && s->pattern[i - 1] != '/')
		i--;
	return i ? i - 1 : 0;
}

void tm_stale__specs_build(struct tm_stale_specs *x,
			   const tm_thread *const *threads, size_t n,
			   const char *threads_dir)
{
	size_t i, k, total = 0, dlen = threads_dir ? strlen(threads_dir) : 0;
	tm_pathspec *s;

	memset(x, 0, sizeof(*x));
	x->other_root = TM_STALE_NONE;
	for (i = 0; i < n; i++)
		total += threads[i]->paths.n;
	x->specs = tm_xcalloc(total + 1, sizeof(*x->specs));
	x->owner = tm_xcalloc(total + 1, sizeof(size_t));
	x->next = tm_xcalloc(total + 1, sizeof(size_t));
	x->files = tm_xcalloc(n + 1, sizeof(char *));
	x->file_next = tm_xcalloc(n + 1, sizeof(size_t));
	x->nthreads = n;
	for (i = 0; i < n; i++) {
		for (k = 0; k < threads[i]->paths.n; k++) {
			s = &x->specs[x->nspecs];
			tm_pathspec_parse(s, threads[i]->paths.items[k]);
			x->owner[x->nspecs] = i;
			if (s->glob || s->all) {
				size_t f = glob_folder(s);

				tm_stale__sizev_push(&x->other, x->nspecs);
				if (f)
					chain_add(&x->other_dirs, s->pattern, f,
						  x->next, x->nspecs);
				else {
					x->next[x->nspecs] = x->other_root;
					x->other_root = x->nspecs;
				}
			} else if (!s->never)
				chain_add(&x->literal, s->pattern, s->len,
					  x->next, x->nspecs);
			x->nspecs++;
		}
		if (threads_dir) {
			/* concatenated by hand: printf was a quarter of
			 * post-commit's user time on 10,000 threads */
			size_t idl = strlen(threads[i]->id), len = dlen + idl;
			char *f = tm_xmalloc(len + 4);

			memcpy(f, threads_dir, dlen);
			memcpy(f + dlen, threads[i]->id, idl);
			memcpy(f + len, ".md", 4);
			x->files[i] = f;
			chain_add(&x->file_map, f, len + 3, x->file_next, i);
		}
	}
}

void tm_stale__specs_free(struct tm_stale_specs *x)
{
	size_t i;

	TM_FREE_ITEMS(x->specs, x->nspecs, tm_pathspec_free);
	for (i = 0; i < x->nthreads; i++)
		free(x->files[i]);
	TM_FREE_ALL(x->owner, x->next, x->files, x->file_next);
	tm_hashmap_release(&x->literal);
	tm_hashmap_release(&x->other_dirs);
	tm_hashmap_release(&x->file_map);
	free(x->other.v);
	free(x->by_pattern);
	memset(x, 0, sizeof(*x));
}

static const struct tm_stale_specs *sort_index;

static int pattern_cmp(const void *a, const void *b)
{
	return strcmp(sort_index->specs[*(const size_t *)a].pattern,
		      sort_index->specs[*(const size_t *)b].pattern);
}

/* The literal specs in pattern order, for prefixes. */
static void sort_literals(struct tm_stale_specs *x)
{
	size_t i;

	x->sorted = true;
	x->by_pattern = tm_xcalloc(x->nspecs + 1, sizeof(size_t));
	for (i = 0; i < x->nspecs; i++)
		if (!x->specs[i].glob && !x->specs[i].all && !x->specs[i].never)
			x->by_pattern[x->nliteral++] = i;
	sort_index = x;
	qsort(x->by_pattern, x->nliteral, sizeof(size_t), pattern_cmp);
	sort_index = NULL;
}

/* The threads with a spec that may name a path under `dir` (dlen bytes,
 * 0: the root). */
static void match_prefix(struct tm_stale_specs *x, const char *dir, size_t dlen,
			 struct tm_stale_sizev *out)
{
	size_t i, k, lo, hi, mid;

	if (!x->sorted)
		sort_literals(x);
	/* literal specs naming the folder or one above it */
	for (i = 1; i <= dlen; i++) {
		if (i < dlen && dir[i] != '/')
			continue;
		for (k = chain_head(&x->literal, dir, i); k != TM_STALE_NONE;
		     k = x->next[k])
			tm_stale__sizev_push(out, x->owner[k]);
	}
	/* literal specs under it: those whose pattern starts with "dir/" */
	lo = 0;
	hi = x->nliteral;
	while (dlen && lo < hi) {
		const char *p;
		int c;

		mid = lo + (hi - lo) / 2;
		p = x->specs[x->by_pattern[mid]].pattern;
		c = strncmp(p, dir, dlen);
		if (c == 0)
			c = p[dlen] < '/' ? -1 : 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < x->nliteral; i++) {
		const tm_pathspec *s = &x->specs[x->by_pattern[i]];

		if (dlen &&
		    (strncmp(s->pattern, dir, dlen) || s->pattern[dlen] != '/'))
			break;
		tm_stale__sizev_push(out, x->owner[x->by_pattern[i]]);
	}
	for (i = 0; i < x->other.n; i++) {
		k = x->other.v[i];
		if (tm_pathspec_may_match_under(&x->specs[k], dir, dlen))
			tm_stale__sizev_push(out, x->owner[k]);
	}
}

/* The threads of the glob specs of chain k (glob_folder) matching path. */
static void match_others(const struct tm_stale_specs *x, size_t k,
			 const char *path, size_t plen,
			 struct tm_stale_sizev *out)
{
	for (; k != TM_STALE_NONE; k = x->next[k])
		if (tm_pathspec_matches(&x->specs[k], path, plen))
			tm_stale__sizev_push(out, x->owner[k]);
}

void tm_stale__specs_match(struct tm_stale_specs *x, const char *path,
			   struct tm_stale_sizev *out)
{
	size_t plen = strlen(path), i, k;

	if (plen && path[plen - 1] == '/') {
		match_prefix(x, path, plen - 1, out);
		return;
	}

	/* the globs with no literal folder, then those of each folder of
	   the path, and the literal specs naming it or a folder above it */
	match_others(x, x->other_root, path, plen, out);
	for (i = 1; i <= plen; i++) {
		if (i < plen && path[i] != '/')
			continue;
		for (k = chain_head(&x->literal, path, i); k != TM_STALE_NONE;
		     k = x->next[k])
			if (i < plen || !x->specs[k].dir_only)
				tm_stale__sizev_push(out, x->owner[k]);
		if (i < plen && x->other.n)
			match_others(x, chain_head(&x->other_dirs, path, i),
				     path, plen, out);
	}
}

size_t tm_stale__specs_file(const struct tm_stale_specs *x, const char *path)
{
	return chain_head(&x->file_map, path, strlen(path));
}
