/*
 * How `diff` and `log` print what changed in the threads: text (with the
 * item lines, or only their counts), --stat, --name-status, --json and
 * --format=markdown, in the colours of git's color.diff slots.
 */
#ifndef TM_CLI_DIFFVIEW_H
#define TM_CLI_DIFFVIEW_H

#include "cli.h"

#include "threadmind/git_threads.h"

enum dv_mode {
	DV_PATCH,       /* every change, the items' lines too (diff) */
	DV_SUMMARY,     /* every change, items as counts (log without -p) */
	DV_STAT,        /* one line per thread */
	DV_NAME_STATUS, /* a letter and the id per thread */
	DV_MARKDOWN     /* a comment for a pull request */
};

/* The color.diff slots used. */
enum dv_slot {
	DV_META,   /* a thread's first line (bold) */
	DV_FRAG,   /* a section's heading (cyan) */
	DV_OLD,    /* what was removed (red) */
	DV_NEW,    /* what was added (green) */
	DV_COMMIT, /* log's commit line (yellow) */
	DV_RESET,
	DV_NSLOTS
};

/*
 * Decide the colours once (needs cli.store): --color / --no-color, then
 * NO_COLOR, then color.diff, then color.threadmind and color.ui as every
 * command; each slot from color.diff.<slot> (git's colour syntax: "bold
 * red", "#ff0000", "reverse 214"; a bad value is fatal, naming the key).
 */
void dv_colors_load(void);
/* The escape sequence of a slot, "" without colour. */
const char *dv_c(enum dv_slot slot);

/* The letter of an entry in --name-status: A, D, M, R, S (the status
 * changed), U (conflicted), X (unreadable). */
char dv_letter(const tm_tdiff_entry *e);

/* Print a diff in one of the text modes (not markdown) on stdout, each
 * line after `indent`. */
void dv_print(const tm_store_diff *d, enum dv_mode mode, const char *indent);

/* The --stat parts of an entry ("added, +3 items", "+1 -1 items, moved,
 * done") appended to `out`. */
void dv_stat_parts(tm_buf *out, const tm_tdiff_entry *e);

/* The entries in all projects (for counts). */
size_t dv_count(const tm_store_diff *d);

/* Print a diff as Markdown, headed by `title` (a level-3 heading). */
void dv_print_markdown(const tm_store_diff *d, const char *title);

/* The "projects" array of docs/json.md for a diff. */
struct cJSON *dv_json_projects(const tm_store_diff *d);

#endif
