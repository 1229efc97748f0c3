/*
 * Thread files (threads/{project}/{thread}.md): the YAML frontmatter block
 * read into a tm_thread and written back canonically, and the summary body.
 */
#ifndef TM_FRONTMATTER_H
#define TM_FRONTMATTER_H

#include "buf.h"
#include "model.h"
#include "yaml.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Parse a thread file: `len` bytes of `data` (no NUL needed at the end).
 * `id` (not NULL) is the thread id from the file name, copied to t->id; the
 * `id` field only goes to t->field_id.  `path` (not NULL) names the file in
 * error messages.
 *
 * A UTF-8 BOM is skipped; the first line must be `---` and the block ends
 * at the next line that is exactly `---` (CRLF accepted; t->crlf tells the
 * opening line ended in CRLF).  A value on the key's line is its raw rest,
 * trimmed (`title: Fix #12 login`, `title: [WIP] Auth`, `title: null`: the
 * texts ThreadMind 0.4 wrote unquoted and showed), unless the whole of it
 * is one double- or single-quoted YAML scalar (read with libyaml) -- and
 * for `title`, one whose text needs quoting: `title: "quoted"` is 0.4's
 * text with its quotes, as no quoting writer quotes it.  `paths` on one
 * line is a flow sequence or a quoted or plain string; multi-line values
 * are read with libyaml.  Nothing after the colon leaves a field absent,
 * but parentId: that is the empty id (0.4's child of its `.md` thread).
 * Only parentId has a null (plain null, ~, Null, NULL: a root).  Unknown
 * fields and
 * `#` comment lines are kept in t->extra, in order; blank lines between
 * entries are dropped.  The body is every byte after the closing line.
 *
 * On success *out is a new thread (free with tm_thread_free) and 0 is
 * returned.  Otherwise *out is untouched and TM_EPARSE is returned with a
 * message naming `path` (and the line): no opening or closing `---`, a NUL
 * byte anywhere, invalid UTF-8 in the block, a line that is no entry,
 * comment, continuation or blank, a duplicate key, a known field holding a
 * collection (or `paths` holding a mapping), a libyaml error.
 */
int tm_frontmatter_parse(tm_thread **out, const char *data, size_t len,
			 const char *id, const char *path);

/*
 * tm_frontmatter_parse that calls `check` (may be NULL: never) with `path`
 * on entry and every TM_PARSE_CHECK_EVERY lines, entries and YAML events
 * (yaml.h): what it returns below 0 (a time budget spent: tm_deadline_check)
 * stops the parse and is returned, *out untouched.
 */
int tm_frontmatter_parse_checked(tm_thread **out, const char *data, size_t len,
				 const char *id, const char *path,
				 tm_parse_check check);

/*
 * The frontmatter-only read, for callers that need a few fields of many
 * files: the length of `data` up to and including its closing `---` line
 * (what tm_frontmatter_parse reads as the block; a BOM counts), or 0 when
 * the opening or closing line is missing.  Parsing just those bytes gives
 * the thread with an empty body.
 */
size_t tm_frontmatter_block_len(const char *data, size_t len);

/*
 * Whether the frontmatter block of `data` may hold the entry `key`
 * ("paths"): false only when no line of the block, blanks and quotes
 * aside, starts with it, so that a caller may skip parsing the file.
 */
bool tm_frontmatter_may_have(const char *data, size_t len, const char *key);

/*
 * Append the whole canonical file to `out`: the frontmatter block as
 * tm_frontmatter_write_header writes it, but with CRLF line ends when
 * t->crlf, then the body bytes unchanged.
 */
void tm_frontmatter_write(tm_buf *out, const tm_thread *t);

/*
 * Append only the frontmatter block, "---" to "---" included: id (t->id,
 * or t->field_id when t->id is NULL), title, parentId (`null` for a root),
 * author, createdAt, updatedAt, status, branch, commit, paths (a JSON array
 * as JSON.stringify writes it), mergedInto -- each but id and parentId only
 * when set -- then the extra fields and comments in order.  Scalars go
 * through tm_yaml_put_scalar.  Lines always end in LF (t->crlf is ignored)
 * and no BOM is written, so that the merge can compare and tie-break sides
 * bytewise whatever their line ends.
 */
void tm_frontmatter_write_header(tm_buf *out, const tm_thread *t);

/*
 * Replace the body with a new summary: a blank line, then `text` (`len`
 * bytes) without its trailing blank or whitespace-only lines, with exactly
 * one final newline.  A line of `text` ends in LF or CRLF (one CR only: the
 * text of a line ending in CR CR LF ends in CR); each line is written with
 * the file's line end (CRLF when t->crlf, else LF).  The body becomes ""
 * when the text is empty or only whitespace.
 */
void tm_thread_set_summary(tm_thread *t, const char *text, size_t len);

/*
 * The summary of a thread: its body without the one leading blank line
 * that tm_thread_set_summary writes (when present), each line with LF --
 * or with CRLF when the line's own text ends in CR -- so that
 * tm_thread_set_summary of it writes the same bytes back: body bytes
 * survive any number of rewrites exactly (a CR CR LF line in a CRLF file,
 * a CR LF line in an LF file).  A CRLF file's lines lose exactly one CR
 * (their line end); a bare LF in it is a line end too.  Returns a malloc'd
 * string (free it); "" when there is no body.
 */
char *tm_thread_summary(const tm_thread *t);

/*
 * Whether `len` bytes of a thread's body hold no summary: nothing but
 * blanks (space, tab, CR, LF, FF, VT), the body tm_thread_set_summary
 * writes for an empty text.  A thread whose summary is blank has nothing
 * that can be outdated: it is never stale (DESIGN.md section 11).
 */
bool tm_summary_blank(const char *body, size_t len);
/* tm_summary_blank of t's body (a NULL body is blank). */
bool tm_thread_summary_blank(const tm_thread *t);

#endif
