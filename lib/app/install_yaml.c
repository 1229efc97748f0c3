/*
 * The YAML editing of install through a hook manager (install_yaml.h):
 * a config file read with libyaml into a tree of nodes that know their
 * lines, and edited as text by insertions of our blocks, so that
 * tm_install_remove gives the file back byte for byte.
 */
#include "install_yaml.h"

#include "error.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

void tm_install__ynode_free(struct tm_install__ynode *y)
{
	size_t i;

	if (!y)
		return;
	for (i = 0; i < y->n; i++)
		tm_install__ynode_free(y->kids[i]);
	TM_FREE_ALL(y->kids, y->value, y);
}

#define YAML_MAX_DEPTH 64

struct yparse {
	yaml_parser_t p;
	bool explicit_end; /* a `...` line: nothing may follow */
	bool several;      /* more than one document */
};

static int ynode_parse(struct tm_install__ynode **out, struct yparse *yp,
		       yaml_event_t *ev, int depth);

static int yerror(struct yparse *yp)
{
	return tm_error_set(TM_EPARSE, "%s (line %zu)",
			    yp->p.problem ? yp->p.problem : "not YAML",
			    (size_t)yp->p.problem_mark.line + 1);
}

/* The node starting with event `ev` (taken), into *out. */
static int ynode_parse(struct tm_install__ynode **out, struct yparse *yp,
		       yaml_event_t *ev, int depth)
{
	struct tm_install__ynode *y = tm_xcalloc(1, sizeof(*y));
	yaml_event_type_t end;
	int error = 0;

	y->line = ev->start_mark.line;
	y->col = ev->start_mark.column;
	*out = y;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		y->kind = TM_INSTALL__YSCALAR;
		y->value = tm_xstrndup((const char *)ev->data.scalar.value,
				       ev->data.scalar.length);
		y->anchored = ev->data.scalar.anchor || ev->data.scalar.tag;
		yaml_event_delete(ev);
		return 0;
	case YAML_ALIAS_EVENT:
		y->kind = TM_INSTALL__YALIAS;
		yaml_event_delete(ev);
		return 0;
	case YAML_MAPPING_START_EVENT:
		y->kind = TM_INSTALL__YMAP;
		y->flow =
			ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
		y->anchored = ev->data.mapping_start.anchor ||
			      ev->data.mapping_start.tag;
		end = YAML_MAPPING_END_EVENT;
		break;
	case YAML_SEQUENCE_START_EVENT:
		y->kind = TM_INSTALL__YSEQ;
		y->flow = ev->data.sequence_start.style ==
			  YAML_FLOW_SEQUENCE_STYLE;
		y->anchored = ev->data.sequence_start.anchor ||
			      ev->data.sequence_start.tag;
		end = YAML_SEQUENCE_END_EVENT;
		break;
	default:
		yaml_event_delete(ev);
		return tm_error_set(TM_EPARSE, "unexpected YAML event");
	}
	yaml_event_delete(ev);
	if (depth > YAML_MAX_DEPTH)
		return tm_error_set(TM_EPARSE, "nested too deep");
	for (;;) {
		yaml_event_t next;
		struct tm_install__ynode *kid = NULL;

		if (!yaml_parser_parse(&yp->p, &next))
			return yerror(yp);
		if (next.type == end) {
			yaml_event_delete(&next);
			break;
		}
		error = ynode_parse(&kid, yp, &next, depth + 1);
		tm_xgrow((void **)&y->kids, &y->alloc, y->n + 1,
			 sizeof(*y->kids));
		y->kids[y->n++] = kid;
		if (error < 0)
			return error;
	}
	return 0;
}

/*
 * Parse `data` into *out: the root node of its one document, NULL for a
 * file without one (empty, or only comments).  Errors: TM_EPARSE.
 */
static int yaml_tree(struct tm_install__ynode **out, struct yparse *yp,
		     const char *data, size_t len)
{
	yaml_event_t ev;
	int error = 0, docs = 0;

	*out = NULL;
	memset(yp, 0, sizeof(*yp));
	if (!yaml_parser_initialize(&yp->p))
		return tm_error_set(TM_ERROR, "out of memory");
	yaml_parser_set_input_string(&yp->p, (const unsigned char *)data, len);
	for (;;) {
		if (!yaml_parser_parse(&yp->p, &ev)) {
			error = yerror(yp);
			break;
		}
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT) {
			if (++docs > 1)
				yp->several = true;
			yaml_event_delete(&ev);
			continue;
		}
		if (ev.type == YAML_DOCUMENT_END_EVENT) {
			if (!ev.data.document_end.implicit)
				yp->explicit_end = true;
			yaml_event_delete(&ev);
			continue;
		}
		if (ev.type == YAML_STREAM_START_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (*out) {
			yaml_event_delete(&ev);
			yp->several = true;
			continue;
		}
		if ((error = ynode_parse(out, yp, &ev, 0)) < 0)
			break;
	}
	yaml_parser_delete(&yp->p);
	if (error < 0) {
		tm_install__ynode_free(*out);
		*out = NULL;
	}
	return error;
}

struct tm_install__ynode *tm_install__yaml_parse(const char *data, size_t len)
{
	struct tm_install__ynode *root = NULL;
	struct yparse yp;

	if (yaml_tree(&root, &yp, data, len) < 0)
		tm_error_clear();
	return root;
}

/* The value of `key` in the map `m`, and the key node; NULL when absent. */
struct tm_install__ynode *
tm_install__ymap_get(const struct tm_install__ynode *m, const char *key,
		     struct tm_install__ynode **key_node)
{
	size_t i;

	if (!m || m->kind != TM_INSTALL__YMAP)
		return NULL;
	for (i = 0; i + 1 < m->n; i += 2)
		if (m->kids[i]->kind == TM_INSTALL__YSCALAR &&
		    !strcmp(m->kids[i]->value, key)) {
			if (key_node)
				*key_node = m->kids[i];
			return m->kids[i + 1];
		}
	return NULL;
}

/* A map with an alias or a merge key in it: its keys are not all seen. */
bool tm_install__ymap_merges(const struct tm_install__ynode *m)
{
	size_t i;

	for (i = 0; i + 1 < m->n; i += 2)
		if (m->kids[i]->kind != TM_INSTALL__YSCALAR ||
		    !strcmp(m->kids[i]->value, "<<"))
			return true;
	return false;
}

bool tm_install__ynull(const struct tm_install__ynode *y)
{
	return y->kind == TM_INSTALL__YSCALAR && !y->anchored &&
	       (!*y->value || !strcmp(y->value, "~") ||
		!strcmp(y->value, "null"));
}

/* ---- editing the text: lines, insertions ---- */

/*
 * Split `d` into lines as libyaml counts them; false when it counts some
 * differently (a lone CR, or a Unicode line break: NEL, LS, PS), which
 * this text editing does not follow.
 */
bool tm_install__ytext_init(struct tm_install__ytext *t, const char *d,
			    size_t len)
{
	size_t i, alloc = 0;

	memset(t, 0, sizeof(*t));
	t->d = d;
	t->len = len;
	t->eol = tm_install__file_eol(d, len);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)d[i];

		if (c == '\r' && (i + 1 >= len || d[i + 1] != '\n'))
			return false;
		if (c == 0xc2 && i + 1 < len && (unsigned char)d[i + 1] == 0x85)
			return false;
		if (c == 0xe2 && i + 2 < len &&
		    (unsigned char)d[i + 1] == 0x80 &&
		    ((unsigned char)d[i + 2] == 0xa8 ||
		     (unsigned char)d[i + 2] == 0xa9))
			return false;
	}
	for (i = 0; i <= len; i++) {
		if (i == 0 || d[i - 1] == '\n') {
			if (i == len && i != 0)
				break;
			tm_xgrow((void **)&t->starts, &alloc, t->nlines + 1,
				 sizeof(*t->starts));
			t->starts[t->nlines++] = i;
		}
	}
	return true;
}

/* Leading blanks of line `n`, or (size_t)-1 when it has a tab in them. */
static size_t ytext_indent(const struct tm_install__ytext *t, size_t n)
{
	size_t i = t->starts[n];

	while (i < t->len && t->d[i] == ' ')
		i++;
	if (i < t->len && t->d[i] == '\t')
		return (size_t)-1;
	return i - t->starts[n];
}

tm_buf *tm_install__yedit_at(struct tm_install__yedit *e, size_t at)
{
	struct tm_install__yins *in;

	tm_xgrow((void **)&e->ins, &e->alloc, e->n + 1, sizeof(*e->ins));
	in = &e->ins[e->n++];
	in->at = at;
	tm_buf_init(&in->text);
	return &in->text;
}

void tm_install__yedit_clear(struct tm_install__yedit *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		tm_buf_release(&e->ins[i].text);
	free(e->ins);
	memset(e, 0, sizeof(*e));
}

static int ins_cmp(const void *a, const void *b)
{
	const struct tm_install__yins *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Write `t` with the insertions into `out`.  The one at the very end of a
 * file without a final line end gets one before it, and its own last line
 * end is dropped (tm_install_remove takes both away again).
 */
void tm_install__yedit_apply(tm_buf *out, struct tm_install__yedit *e,
			     const struct tm_install__ytext *t)
{
	size_t i, copied = 0;

	if (e->n) /* qsort's array may not be NULL, even empty */
		qsort(e->ins, e->n, sizeof(*e->ins), ins_cmp);
	for (i = 0; i < e->n; i++) {
		const struct tm_install__yins *in = &e->ins[i];
		size_t n = in->text.size;

		tm_buf_put(out, t->d + copied, in->at - copied);
		copied = in->at;
		if (in->at == t->len && t->len && t->d[t->len - 1] != '\n') {
			tm_buf_puts(out, t->eol);
			n -= strlen(t->eol);
		}
		tm_buf_put(out, in->text.ptr, n);
	}
	tm_buf_put(out, t->d + copied, t->len - copied);
}

void tm_install__put_indent(tm_buf *b, size_t n)
{
	while (n--)
		tm_buf_putc(b, ' ');
}

void tm_install__yline(tm_buf *b, const char *eol, size_t indent,
		       const char *fmt, ...)
{
	va_list ap;

	tm_install__put_indent(b, indent);
	va_start(ap, fmt);
	tm_buf_vprintf(b, fmt, ap);
	va_end(ap);
	tm_buf_puts(b, eol);
}

void tm_install__block_begin(tm_buf *b, const char *eol)
{
	tm_install__yline(b, eol, 0, "%s", TM_INSTALL_BEGIN);
	tm_install__yline(
		b, eol, 0,
		"# added by 'git threadmind install'; 'git threadmind "
		"uninstall' removes it");
}

void tm_install__block_end(tm_buf *b, const char *eol)
{
	tm_install__yline(b, eol, 0, "%s", TM_INSTALL_END);
}

/* The command as a YAML double-quoted scalar (it has no `"` nor `\`). */
void tm_install__put_command(tm_buf *b, const char *name, const char *args)
{
	tm_buf_putc(b, '"');
	tm_install_manager_command(b, name, args);
	tm_buf_putc(b, '"');
}

/* Where the text after line `n` starts; false when `n` is the last. */
static bool after_line(size_t *at, const struct tm_install__ytext *t, size_t n)
{
	if (n + 1 >= t->nlines)
		return false;
	*at = t->starts[n + 1];
	return true;
}

void tm_install__yfile_clear(struct tm_install__yfile *f)
{
	tm_buf_release(&f->base);
	tm_install__ynode_free(f->root);
	free(f->text.starts);
	memset(f, 0, sizeof(*f));
}

/*
 * Read `data` for editing.  Errors: TM_EPARSE (not YAML), TM_EINVALID
 * (YAML that this editing does not handle: several documents, a `...`
 * line, a top level that is not a block map, odd line breaks).
 */
int tm_install__yfile_init(struct tm_install__yfile *f, const char *data,
			   size_t len)
{
	struct yparse yp;
	int error;

	memset(f, 0, sizeof(*f));
	if ((error = tm_install_remove(&f->base, data, len)) < 0)
		return error;
	if (!tm_install__ytext_init(&f->text, tm_buf_cstr(&f->base),
				    f->base.size))
		return tm_error_set(TM_EINVALID,
				    "it has line breaks other than LF and "
				    "CRLF");
	if ((error = yaml_tree(&f->root, &yp, tm_buf_cstr(&f->base),
			       f->base.size)) < 0)
		return error;
	if (yp.several || yp.explicit_end)
		return tm_error_set(TM_EINVALID,
				    "it holds several YAML documents, or a "
				    "'...' line");
	if (f->root && tm_install__ynull(f->root)) {
		tm_install__ynode_free(f->root);
		f->root = NULL;
	}
	if (f->root && (f->root->kind != TM_INSTALL__YMAP || f->root->flow ||
			f->root->anchored || tm_install__ymap_merges(f->root)))
		return tm_error_set(TM_EINVALID,
				    "its top level is not a plain block map");
	f->top = f->root ? f->root->col : 0;
	return 0;
}

/*
 * Where the block children of `value` (a block map or sequence given as
 * the value of `key`, on the lines after it) start, and their indentation.
 */
bool tm_install__block_kids(size_t *at, size_t *indent,
			    const struct tm_install__ytext *t,
			    const struct tm_install__ynode *key,
			    const struct tm_install__ynode *value)
{
	size_t ind;

	if (value->flow || value->anchored || value->line <= key->line ||
	    value->line >= t->nlines)
		return false;
	ind = ytext_indent(t, value->line);
	if (ind != value->col)
		return false;
	*indent = ind;
	return after_line(at, t, key->line);
}

/* Append the block of the top-level keys, when there is one. */
void tm_install__put_end_block(struct tm_install__yedit *e,
			       const struct tm_install__ytext *t,
			       const tm_buf *end)
{
	tm_buf *b;

	if (!end->size)
		return;
	b = tm_install__yedit_at(e, t->len);
	tm_install__block_begin(b, t->eol);
	tm_buf_put(b, end->ptr, end->size);
	tm_install__block_end(b, t->eol);
}
