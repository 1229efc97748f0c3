/*
 * Internal to the install files that edit a hook manager's config
 * (install_lefthook.c, install_pre_commit.c): a YAML file as a tree of
 * nodes with their lines (install_yaml.c), and its text edited by
 * insertions of our blocks (between TM_INSTALL_BEGIN and TM_INSTALL_END
 * lines, at column 0).  libyaml stays inside install_yaml.c.
 */
#ifndef TM_INSTALL_YAML_H
#define TM_INSTALL_YAML_H

#include "install_internal.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- the tree ---- */

enum tm_install__ykind {
	TM_INSTALL__YSCALAR,
	TM_INSTALL__YMAP,
	TM_INSTALL__YSEQ,
	TM_INSTALL__YALIAS
};

struct tm_install__ynode {
	enum tm_install__ykind kind;
	bool flow;     /* a flow collection ({...}, [...]) */
	bool anchored; /* an anchor or a tag: not ours to touch */
	size_t line;   /* where it starts, 0-based */
	size_t col;
	char *value; /* a scalar's */
	/* a map: key, value, key, value…; a sequence: the items */
	struct tm_install__ynode **kids;
	size_t n, alloc;
};

void tm_install__ynode_free(struct tm_install__ynode *y);

/*
 * The root node of the first document of `data`, malloc'd (free with
 * tm_install__ynode_free); NULL for a file without one or one that is not
 * YAML (no message left).
 */
struct tm_install__ynode *tm_install__yaml_parse(const char *data, size_t len);

/* The value of `key` in the map `m`, and the key node; NULL when absent. */
struct tm_install__ynode *
tm_install__ymap_get(const struct tm_install__ynode *m, const char *key,
		     struct tm_install__ynode **key_node);

/* A map with an alias or a merge key in it: its keys are not all seen. */
bool tm_install__ymap_merges(const struct tm_install__ynode *m);

/* A plain null scalar (empty, `~`, `null`). */
bool tm_install__ynull(const struct tm_install__ynode *y);

/* ---- the text and its insertions ---- */

struct tm_install__ytext {
	const char *d;
	size_t len;
	size_t *starts; /* where each line starts (malloc'd) */
	size_t nlines;
	const char *eol;
};

/*
 * Split `d` into lines as libyaml counts them; false when it counts some
 * differently (a lone CR, or a Unicode line break: NEL, LS, PS), which
 * this text editing does not follow.  Free t->starts.
 */
bool tm_install__ytext_init(struct tm_install__ytext *t, const char *d,
			    size_t len);

/* One insertion: `text` goes before byte `at`. */
struct tm_install__yins {
	size_t at;
	tm_buf text;
};

struct tm_install__yedit {
	struct tm_install__yins *ins;
	size_t n, alloc;
};

/* A new insertion before byte `at`: the buffer to write it into. */
tm_buf *tm_install__yedit_at(struct tm_install__yedit *e, size_t at);
void tm_install__yedit_clear(struct tm_install__yedit *e);

/*
 * Write `t` with the insertions into `out`.  The one at the very end of a
 * file without a final line end gets one before it, and its own last line
 * end is dropped (tm_install_remove takes both away again).
 */
void tm_install__yedit_apply(tm_buf *out, struct tm_install__yedit *e,
			     const struct tm_install__ytext *t);

void tm_install__put_indent(tm_buf *b, size_t n);

/* A line of our block: `indent` spaces, the formatted text, the line end. */
void tm_install__yline(tm_buf *b, const char *eol, size_t indent,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The first lines of our block, and its last line. */
void tm_install__block_begin(tm_buf *b, const char *eol);
void tm_install__block_end(tm_buf *b, const char *eol);

/* The command as a YAML double-quoted scalar (it has no `"` nor `\`). */
void tm_install__put_command(tm_buf *b, const char *name, const char *args);

/* ---- a config file read for editing ---- */

/* The common start: our blocks removed, the tree and the lines read. */
struct tm_install__yfile {
	tm_buf base; /* the file without our blocks */
	struct tm_install__ynode *root;
	struct tm_install__ytext text;
	size_t top; /* the indentation of the top-level keys */
};

/*
 * Read `data` for editing (clear `f` with tm_install__yfile_clear, even on
 * error).  Errors: TM_EPARSE (not YAML), TM_EINVALID (YAML that this
 * editing does not handle: several documents, a `...` line, a top level
 * that is not a block map, odd line breaks).
 */
int tm_install__yfile_init(struct tm_install__yfile *f, const char *data,
			   size_t len);
void tm_install__yfile_clear(struct tm_install__yfile *f);

/*
 * Where the block children of `value` (a block map or sequence given as
 * the value of `key`, on the lines after it) start, and their indentation;
 * false when it is not such a block.
 */
bool tm_install__block_kids(size_t *at, size_t *indent,
			    const struct tm_install__ytext *t,
			    const struct tm_install__ynode *key,
			    const struct tm_install__ynode *value);

/* Append `end` as a block at the end of the file, when it is not empty
 * (the top-level keys to add). */
void tm_install__put_end_block(struct tm_install__yedit *e,
			       const struct tm_install__ytext *t,
			       const tm_buf *end);

#endif
