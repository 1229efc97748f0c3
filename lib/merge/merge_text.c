/*
 * Line-based text merge: git_merge_file with our options, conflict markers,
 * and the one-conflict result for input libgit2 takes for binary.
 */
#include "merge_internal.h"
#include "git_libgit2.h"
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
	if (opts->style != TM_CONFLICT_STYLE_MERGE) {
		tm_merge__put_marker(out, '|', opts->marker_size,
				     opts->ancestor_label);
		put_lines(out, &s[TM_MERGE__BASE]);
	}
	tm_merge__put_marker(out, '=', opts->marker_size, NULL);
	put_lines(out, &s[TM_MERGE__THEIRS]);
	tm_merge__put_marker(out, '>', opts->marker_size, opts->their_label);
}

static int fill_input(git_merge_file_input *in, const struct tm_merge__span *s)
{
	if (git_merge_file_input_init(in, GIT_MERGE_FILE_INPUT_VERSION) < 0)
		return tm_git_error(TM_ERROR,
				    "cannot set up a three-way merge");
	in->ptr = s->len ? s->p : "";
	in->size = s->len;
	return 0;
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
		if (fill_input(&in[i], &s[i]) < 0)
			return TM_ERROR;
	if (git_merge_file_options_init(&gopts,
					GIT_MERGE_FILE_OPTIONS_VERSION) < 0)
		return tm_git_error(TM_ERROR,
				    "cannot set up a three-way merge");
	gopts.ancestor_label = opts->ancestor_label;
	gopts.our_label = opts->our_label;
	gopts.their_label = opts->their_label;
	gopts.marker_size = (unsigned short)opts->marker_size;
	if (opts->style == TM_CONFLICT_STYLE_DIFF3)
		gopts.flags |= GIT_MERGE_FILE_STYLE_DIFF3;
	else if (opts->style == TM_CONFLICT_STYLE_ZDIFF3)
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
