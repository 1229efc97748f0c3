/*
 * Line-based pieces of the merge: git_merge_file with our options, the
 * one-conflict result for binary input, and the order of merged lists.
 */
#include "merge_internal.h"
#include "git_internal.h"
#include "error.h"

#include <git2/errors.h>
#include <git2/global.h>
#include <git2/merge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const tm_merge__side_name[3] = {"the ancestor", "ours", "theirs"};

void tm_merge__normalize_options(tm_merge_options *out,
                                 const tm_merge_options *in)
{
	tm_merge_options dflt = TM_MERGE_OPTIONS_INIT;

	*out = in ? *in : dflt;
	if (out->marker_size < 1)
		out->marker_size = 7;
	if (out->marker_size > TM_MERGE_MARKER_MAX)
		out->marker_size = TM_MERGE_MARKER_MAX;
	if (!out->ancestor_label)
		out->ancestor_label = "base";
	if (!out->our_label)
		out->our_label = "ours";
	if (!out->their_label)
		out->their_label = "theirs";
}

bool tm_merge__span_eq(const struct tm_merge__span *x,
                       const struct tm_merge__span *y)
{
	return x->len == y->len && (!x->len || !memcmp(x->p, y->p, x->len));
}

void tm_merge__put_marker(tm_buf *out, char c, int size, const char *label)
{
	int i;

	tm_buf_grow(out, (size_t)size + 2);
	for (i = 0; i < size; i++)
		tm_buf_putc(out, c);
	if (label && *label) {
		tm_buf_putc(out, ' ');
		tm_buf_puts(out, label);
	}
	tm_buf_putc(out, '\n');
}

/* `len` bytes, then a newline unless they are empty or end in one. */
static void put_lines(tm_buf *out, const struct tm_merge__span *s)
{
	if (!s->len)
		return;
	tm_buf_put(out, s->p, s->len);
	if (s->p[s->len - 1] != '\n')
		tm_buf_putc(out, '\n');
}

void tm_merge__whole_conflict(tm_buf *out, const struct tm_merge__span s[3],
                              const tm_merge_options *opts)
{
	tm_merge__put_marker(out, '<', opts->marker_size, opts->our_label);
	put_lines(out, &s[TM_MERGE__OURS]);
	if (opts->style != TM_MERGE_STYLE_MERGE) {
		tm_merge__put_marker(out, '|', opts->marker_size,
		                     opts->ancestor_label);
		put_lines(out, &s[TM_MERGE__BASE]);
	}
	tm_merge__put_marker(out, '=', opts->marker_size, NULL);
	put_lines(out, &s[TM_MERGE__THEIRS]);
	tm_merge__put_marker(out, '>', opts->marker_size, opts->their_label);
}

static void fill_input(git_merge_file_input *in, const struct tm_merge__span *s)
{
	memset(in, 0, sizeof(*in));
	in->version = GIT_MERGE_FILE_INPUT_VERSION;
	in->ptr = s->len ? s->p : "";
	in->size = s->len;
}

int tm_merge__text(tm_buf *out, bool *conflicted,
                   const struct tm_merge__span s[3],
                   const tm_merge_options *opts)
{
	git_merge_file_input in[3];
	git_merge_file_options gopts;
	git_merge_file_result res;
	int i;

	if (tm_git_init() < 0)
		return TM_ERROR;
	for (i = 0; i < 3; i++)
		fill_input(&in[i], &s[i]);
	memset(&gopts, 0, sizeof(gopts));
	gopts.version = GIT_MERGE_FILE_OPTIONS_VERSION;
	gopts.ancestor_label = opts->ancestor_label;
	gopts.our_label = opts->our_label;
	gopts.their_label = opts->their_label;
	gopts.marker_size = (unsigned short)opts->marker_size;
	if (opts->style == TM_MERGE_STYLE_DIFF3)
		gopts.flags |= GIT_MERGE_FILE_STYLE_DIFF3;
	else if (opts->style == TM_MERGE_STYLE_ZDIFF3)
		gopts.flags |= GIT_MERGE_FILE_STYLE_ZDIFF3;
	if (git_merge_file(&res, &in[0], &in[1], &in[2], &gopts) < 0)
		return tm_git_error(TM_ERROR, "three-way merge failed");
	if (!res.ptr && !res.automergeable) {
		/* libgit2 refuses what it takes for binary: keep both */
		tm_merge__whole_conflict(out, s, opts);
		*conflicted = true;
	} else {
		if (res.len)
			tm_buf_put(out, res.ptr, res.len);
		*conflicted = !res.automergeable;
	}
	git_merge_file_result_free(&res);
	return 0;
}

/* An item of a list sorted by identity, for lookups. */
struct entry {
	const char *id;
	size_t idx;
};

struct tm_merge__index {
	struct entry *e;
	size_t n;
};

static int entry_cmp(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = strcmp(a->id, b->id);

	if (c)
		return c;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

tm_merge__index *tm_merge__index_new(const char *const *ids, size_t n)
{
	tm_merge__index *ix = tm_xmalloc(sizeof(*ix));
	size_t i;

	ix->e = tm_xcalloc(n ? n : 1, sizeof(*ix->e));
	ix->n = n;
	for (i = 0; i < n; i++) {
		ix->e[i].id = ids[i];
		ix->e[i].idx = i;
	}
	qsort(ix->e, n, sizeof(*ix->e), entry_cmp);
	return ix;
}

long tm_merge__index_find(const tm_merge__index *ix, const char *id)
{
	size_t lo = 0, hi = ix->n, mid;

	/* the first entry not below id: equal ids are sorted by index */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(ix->e[mid].id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->n && !strcmp(ix->e[lo].id, id))
		return (long)ix->e[lo].idx;
	return -1;
}

void tm_merge__index_free(tm_merge__index *ix)
{
	if (!ix)
		return;
	free(ix->e);
	free(ix);
}

char **tm_merge__ids(const char *const *keys, size_t n)
{
	tm_merge__index *ix = tm_merge__index_new(keys, n);
	struct entry *e = ix->e;
	char **ids = tm_xcalloc(n ? n : 1, sizeof(char *));
	size_t i, nth = 0;
	tm_buf b = TM_BUF_INIT;

	for (i = 0; i < n; i++) {
		/* equal keys are sorted in list order (ties on idx) */
		nth = i && !strcmp(e[i].id, e[i - 1].id) ? nth + 1 : 0;
		tm_buf_printf(&b, "%zu:%s", nth, e[i].id);
		ids[e[i].idx] = tm_buf_detach(&b);
	}
	tm_merge__index_free(ix);
	return ids;
}

void tm_merge__ids_free(char **ids, size_t n)
{
	size_t i;

	if (!ids)
		return;
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

size_t *tm_merge__order(size_t *out_n, const char *const *a, const bool *keep_a,
                        size_t na, const char *const *b, const bool *keep_b,
                        size_t nb)
{
	tm_merge__index *ia = tm_merge__index_new(a, na);
	tm_merge__index *ib = tm_merge__index_new(b, nb);
	size_t *res = tm_xcalloc(na + nb + 1, sizeof(size_t));
	/* bucket k + 1 holds the b-only items placed after a[k]; 0: first */
	size_t *head = tm_xcalloc(na + 1, sizeof(size_t));
	size_t *tail = tm_xcalloc(na + 1, sizeof(size_t));
	size_t *next = tm_xcalloc(nb + 1, sizeof(size_t));
	size_t *pending = tm_xcalloc(na + 1, sizeof(size_t));
	bool *anchor = tm_xcalloc(na + 1, sizeof(bool));
	size_t n = 0, npending = 0, i, j, k, bucket = 0;
	long pos;

	/* an anchor is an item of both lists that is kept */
	for (i = 0; i < na; i++)
		anchor[i] = keep_a[i] && tm_merge__index_find(ib, a[i]) >= 0;
	/* lists are 1-based so that 0 ends them */
	for (j = 0; j < nb; j++) {
		pos = tm_merge__index_find(ia, b[j]);
		if (pos >= 0) {
			if (anchor[pos])
				bucket = (size_t)pos + 1;
			continue;
		}
		if (!keep_b[j])
			continue;
		if (!head[bucket])
			head[bucket] = j + 1;
		else
			next[tail[bucket] - 1] = j + 1;
		tail[bucket] = j + 1;
	}
	pending[npending++] = 0;
	for (i = 0; i <= na; i++) {
		if (i == na || anchor[i]) {
			for (k = 0; k < npending; k++)
				for (j = head[pending[k]]; j; j = next[j - 1])
					res[n++] = na + j - 1;
			npending = 0;
		}
		if (i == na || !keep_a[i])
			continue;
		res[n++] = i;
		if (anchor[i])
			pending[npending++] = i + 1;
	}
	tm_merge__index_free(ia);
	tm_merge__index_free(ib);
	free(head);
	free(tail);
	free(next);
	free(pending);
	free(anchor);
	*out_n = n;
	return res;
}
