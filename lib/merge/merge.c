/*
 * The merge entry point: trivial cases, binary input, inputs that already
 * hold conflict markers, line ends, then the merge of the file's kind with
 * a text merge as the fallback (DESIGN.md section 6).
 */
#include "merge.h"
#include "conflict.h"
#include "merge_internal.h"
#include "error.h"
#include "fs.h"
#include "reintegrate.h"
#include "slug.h"

#include <stdlib.h>
#include <string.h>

static bool valid_id(const char *p, size_t len)
{
	size_t i;

	if (!len || len > TM_ID_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		      (p[i] >= '0' && p[i] <= '9') || p[i] == '-'))
			return false;
	return true;
}

/* The i-th last '/'-separated component of `path` (0: the last). */
static bool component(const char *path, size_t i, const char **p, size_t *len)
{
	const char *end = path + strlen(path), *start;

	for (;;) {
		start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (!i--)
			break;
		if (start == path)
			return false;
		end = start - 1;
	}
	*p = start;
	*len = (size_t)(end - start);
	return true;
}

static bool component_is(const char *path, size_t i, const char *want)
{
	const char *p;
	size_t len;

	return component(path, i, &p, &len) && len == strlen(want) &&
	       !memcmp(p, want, len);
}

/* The id of the last component when it is "<id><ext>", else NULL. */
static bool id_with_ext(const char *path, const char *ext, const char **id,
			size_t *idlen)
{
	const char *p;
	size_t len, elen = strlen(ext);

	if (!component(path, 0, &p, &len) || len <= elen ||
	    memcmp(p + len - elen, ext, elen) || !valid_id(p, len - elen))
		return false;
	*id = p;
	*idlen = len - elen;
	return true;
}

tm_merge_kind tm_merge_kind_of_path(const char *path, char **out_id)
{
	const char *id, *proj;
	size_t idlen, projlen;

	if (!path)
		return TM_MERGE_KIND_TEXT;
	if (component_is(path, 3, ".threadmind") &&
	    component_is(path, 2, "threads") &&
	    component(path, 1, &proj, &projlen) && valid_id(proj, projlen) &&
	    id_with_ext(path, ".md", &id, &idlen)) {
		if (out_id)
			*out_id = tm_xstrndup(id, idlen);
		return TM_MERGE_KIND_THREAD;
	}
	if (component_is(path, 2, ".threadmind") &&
	    component_is(path, 1, "projects") &&
	    id_with_ext(path, ".json", &id, &idlen))
		return TM_MERGE_KIND_PROJECT;
	return TM_MERGE_KIND_TEXT;
}

void tm_merge_result_clear(tm_merge_result *r)
{
	if (!r)
		return;
	free(r->data);
	free(r->note);
	memset(r, 0, sizeof(*r));
}

/* A line that opens or closes a conflict: 7 or more '<' or '>', then a
 * blank or the end of the line. */
static bool has_markers(const struct tm_merge__span *s)
{
	const char *p = s->p, *end = s->p + s->len, *q;
	char c;

	while (p < end) {
		c = *p;
		if (c == '<' || c == '>') {
			for (q = p; q < end && *q == c; q++)
				;
			if (q - p >= 7 &&
			    (q == end || *q == ' ' || *q == '\n' || *q == '\r'))
				return true;
		}
		q = memchr(p, '\n', (size_t)(end - p));
		p = q ? q + 1 : end;
	}
	return false;
}

struct line_ends {
	size_t crlf, lf; /* CRLF pairs, LFs without a CR */
};

static struct line_ends count_line_ends(const struct tm_merge__span *s)
{
	struct line_ends e = {0, 0};
	const char *p = s->p, *end = s->p + s->len;

	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		if (p > s->p && p[-1] == '\r')
			e.crlf++;
		else
			e.lf++;
		p++;
	}
	return e;
}

/* Whether the first line (after a BOM) ends in CRLF. */
static bool first_line_crlf(const struct tm_merge__span *s)
{
	const char *nl = memchr(s->p, '\n', s->len);

	return nl && nl > s->p && nl[-1] == '\r';
}

/* Copy with every CRLF made LF. */
static void to_lf(tm_buf *out, const struct tm_merge__span *s)
{
	const char *p = s->p, *end = s->p + s->len, *cr;

	tm_buf_grow(out, s->len);
	while ((cr = memchr(p, '\r', (size_t)(end - p)))) {
		tm_buf_put(out, p, (size_t)(cr - p));
		if (!(cr + 1 < end && cr[1] == '\n'))
			tm_buf_putc(out, '\r');
		p = cr + 1;
	}
	tm_buf_put(out, p, (size_t)(end - p));
}

/* Make every LF of `b` a CRLF. */
static void to_crlf(tm_buf *b)
{
	tm_buf out = TM_BUF_INIT;
	size_t i;

	tm_buf_grow(&out, b->size + b->size / 16 + 1);
	for (i = 0; i < b->size; i++) {
		if (b->ptr[i] == '\n')
			tm_buf_putc(&out, '\r');
		tm_buf_putc(&out, b->ptr[i]);
	}
	tm_buf_release(b);
	*b = out;
}

static void set_note(char **note, const char *fmt, const char *arg)
	__attribute__((format(printf, 2, 0)));

static void set_note(char **note, const char *fmt, const char *arg)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_printf(&b, fmt, arg);
	*note = tm_buf_detach(&b);
}

/*
 * The text merge of the whole file.  When each side has one style of
 * line ends, they are compared without CR and the result takes ours'
 * style; a side that mixes them is merged byte for byte.
 */
static int merge_text(tm_buf *out, bool *conflicted,
		      const struct tm_merge__span s[3],
		      const tm_merge_options *opts)
{
	tm_buf lf[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	struct tm_merge__span n[3];
	struct line_ends e;
	bool crlf = false, pure = true;
	int x, error;

	for (x = 0; x < 3; x++) {
		e = count_line_ends(&s[x]);
		pure &= !(e.crlf && e.lf);
		if (x == TM_MERGE__OURS)
			crlf = e.crlf > 0;
	}
	if (!pure || (!crlf && !count_line_ends(&s[0]).crlf &&
		      !count_line_ends(&s[2]).crlf))
		return tm_merge__text(out, conflicted, s, opts);
	for (x = 0; x < 3; x++) {
		to_lf(&lf[x], &s[x]);
		n[x].p = tm_buf_cstr(&lf[x]);
		n[x].len = lf[x].size;
	}
	error = tm_merge__text(out, conflicted, n, opts);
	if (!error && crlf)
		to_crlf(out);
	for (x = 0; x < 3; x++)
		tm_buf_release(&lf[x]);
	return error;
}

/* The merge of a thread or project file, sides made LF first. */
static int merge_structured(tm_buf *out, bool *conflicted, char **note,
			    const struct tm_merge__span s[3],
			    tm_merge_kind kind, const char *id,
			    const tm_merge_options *opts)
{
	tm_buf lf[3] = {TM_BUF_INIT, TM_BUF_INIT, TM_BUF_INIT};
	struct tm_merge__span n[3];
	int x, error;

	for (x = 0; x < 3; x++) {
		to_lf(&lf[x], &s[x]);
		n[x].p = tm_buf_cstr(&lf[x]);
		n[x].len = lf[x].size;
	}
	if (kind == TM_MERGE_KIND_THREAD)
		error = tm_merge__thread(out, conflicted, note, n, id, opts);
	else
		error = tm_merge__project(out, conflicted, note, n, opts);
	if (!error && first_line_crlf(&s[TM_MERGE__OURS]))
		to_crlf(out);
	for (x = 0; x < 3; x++)
		tm_buf_release(&lf[x]);
	return error;
}

/* The first side holding a NUL byte, or -1. */
static int binary_side(const struct tm_merge__span s[3])
{
	int x;

	for (x = 0; x < 3; x++)
		if (memchr(s[x].p, '\0', s[x].len))
			return x;
	return -1;
}

/*
 * The frontmatter of a thread file: its first line through the closing
 * `---` line, or the whole file when it has none (it does not parse).
 */
static struct tm_merge__span frontmatter_of(const struct tm_merge__span *s)
{
	struct tm_merge__span f = *s;
	const char *p = s->p, *end = s->p + s->len, *nl;
	size_t len;
	bool first = true;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl ? nl : end) - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (!first && len == 3 && !memcmp(p, "---", 3)) {
			f.len = (size_t)((nl ? nl + 1 : end) - s->p);
			break;
		}
		first = false;
		p = nl ? nl + 1 : end;
	}
	return f;
}

/*
 * The first side holding conflict markers, or -1.  In a thread file only
 * markers in ours' or theirs' frontmatter count: the body's are text (a
 * fenced example), and an ancestor whose frontmatter does not parse is
 * read as the empty ancestor (tm_merge__thread).
 */
static int marked_side(const struct tm_merge__span s[3], tm_merge_kind kind)
{
	struct tm_merge__span f;
	int x;

	for (x = 0; x < 3; x++) {
		if (kind == TM_MERGE_KIND_THREAD && x == TM_MERGE__BASE)
			continue;
		f = kind == TM_MERGE_KIND_THREAD ? frontmatter_of(&s[x]) : s[x];
		if (has_markers(&f))
			return x;
	}
	return -1;
}

/* Merge by kind, falling back to text with a note; r->kind is updated. */
static int merge_kind(tm_buf *out, tm_merge_result *r,
		      const struct tm_merge__span s[3], const char *id,
		      const tm_merge_options *opts)
{
	int x, error;

	if (r->kind == TM_MERGE_KIND_TEXT) {
		if (opts->path)
			r->note = tm_xstrdup("not a thread or project file: "
					     "merged as text");
	} else if ((x = binary_side(s)) >= 0) {
		set_note(&r->note,
			 "%s holds a NUL byte: ours and theirs are kept "
			 "whole between conflict markers",
			 tm_merge__side_name[x]);
		tm_merge__whole_conflict(out, s, opts);
		r->conflicted = true;
		r->kind = TM_MERGE_KIND_TEXT;
		return 0;
	} else if ((x = marked_side(s, r->kind)) >= 0) {
		set_note(&r->note, "%s already holds conflict markers",
			 tm_merge__side_name[x]);
	} else {
		error = merge_structured(out, &r->conflicted, &r->note, s,
					 r->kind, id, opts);
		if (error == TM_ECONFLICT) {
			/* different threads: keep ours whole, `resolve`
			 * sorts them out (DESIGN.md section 11) */
			tm_buf_put(out, s[1].p, s[1].len);
			r->conflicted = true;
			r->two_threads = true;
			return 0;
		}
		if (error != TM_EPARSE)
			return error;
	}
	r->kind = TM_MERGE_KIND_TEXT;
	tm_buf_clear(out);
	r->conflicted = false;
	if (binary_side(s) >= 0) {
		tm_merge__whole_conflict(out, s, opts);
		r->conflicted = true;
		return 0;
	}
	if ((error = merge_text(out, &r->conflicted, s, opts)) < 0)
		return error;
	/* markers a side held and the merge kept: not a clean result */
	if (!r->conflicted && marked_side(s, TM_MERGE_KIND_TEXT) >= 0) {
		struct tm_merge__span res = {out->ptr, out->size};

		r->conflicted = has_markers(&res);
	}
	return 0;
}

/* The line merge of the whole file (git's, without a driver), or ours and
 * theirs whole around one conflict when a side holds a NUL byte. */
static int merge_plain(tm_buf *out, bool *conflicted,
		       const struct tm_merge__span s[3],
		       const tm_merge_options *opts)
{
	if (binary_side(s) >= 0) {
		tm_merge__whole_conflict(out, s, opts);
		*conflicted = true;
		return 0;
	}
	return tm_merge__text(out, conflicted, s, opts);
}

/*
 * The one size rule of a merge (docs/merge.md, "Limits"): a thread or
 * project file whose merge would be over TM_MAX_FILE_SIZE, which every
 * read refuses, is never a result: it becomes the line merge of the whole
 * file, always in conflict, with a note saying why, so that git (the
 * driver) and `resolve` both stop on it.
 */
static int limit_size(tm_buf *buf, tm_merge_result *r,
		      const struct tm_merge__span s[3],
		      const tm_merge_options *opts)
{
	size_t merged = buf->size;
	tm_buf note = TM_BUF_INIT;
	int error;

	tm_buf_clear(buf);
	r->kind = TM_MERGE_KIND_TEXT;
	r->two_threads = false;
	if ((error = merge_plain(buf, &r->conflicted, s, opts)) < 0)
		return error;
	r->conflicted = true;
	tm_buf_printf(&note,
		      "the merged file would be %zu bytes, over the 1 MiB "
		      "limit of threadmind's reads: left as a line merge, in "
		      "conflict; shorten it, then 'git add' it",
		      merged);
	free(r->note);
	r->note = tm_buf_detach(&note);
	return 0;
}

int tm_merge_files(tm_merge_result *out, const char *o, size_t olen,
		   const char *a, size_t alen, const char *b, size_t blen,
		   const tm_merge_options *given)
{
	struct tm_merge__span s[3] = {{o ? o : "", o ? olen : 0},
				      {a ? a : "", a ? alen : 0},
				      {b ? b : "", b ? blen : 0}};
	tm_merge_options opts;
	tm_merge_result r = {NULL, 0, false, TM_MERGE_KIND_TEXT, NULL, false};
	tm_buf buf = TM_BUF_INIT;
	char *id = NULL;
	bool limited = false;
	int error = 0;

	tm_merge__normalize_options(&opts, given);
	if (opts.plain) {
		error = merge_plain(&buf, &r.conflicted, s, &opts);
	} else {
		r.kind = tm_merge_kind_of_path(opts.path, &id);
		limited = r.kind != TM_MERGE_KIND_TEXT;
		/* one side unchanged (or both alike): nothing to decide */
		if (tm_merge__span_eq(&s[1], &s[2]) ||
		    tm_merge__span_eq(&s[0], &s[2]))
			tm_buf_put(&buf, s[1].p, s[1].len);
		else if (tm_merge__span_eq(&s[0], &s[1]))
			tm_buf_put(&buf, s[2].p, s[2].len);
		else
			error = merge_kind(&buf, &r, s, id, &opts);
		/* a thread merged into its parent on one side, added to on
		 * the other: say where the new lines must go */
		if (error == 0 && !r.note && r.kind == TM_MERGE_KIND_THREAD)
			r.note = tm_reintegrate_note(s[0].p, s[0].len, s[1].p,
						     s[1].len, s[2].p, s[2].len,
						     id);
		if (error == 0 && limited && buf.size > TM_MAX_FILE_SIZE)
			error = limit_size(&buf, &r, s, &opts);
	}
	free(id);
	if (error < 0) {
		free(r.note);
		tm_buf_release(&buf);
		return error;
	}
	r.len = buf.size;
	r.data = tm_buf_detach(&buf);
	*out = r;
	return 0;
}
