/*
 * The temporary files of interrupted writes in .threadmind/: ours,
 * `{name}.{uuid-v4}.tmp` (fs.h), and ThreadMind 0.4's, `{name}.{8 hex}.tmp`.
 * 0.4 writes its tmp in full, then truncates and rewrites the target in
 * place, then deletes the tmp: after a crash the tmp can be the only
 * complete copy and the target empty, cut short or missing.  This module
 * tells such a recovery from a stray tmp (the pure rule), restores a
 * recovery, removes a stray that is safe to remove, and hands the 0.4
 * upgrade the complete index a trees/ tmp holds.
 */
#ifndef TM_RECOVER_H
#define TM_RECOVER_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* What a target's content must parse as (by where it is in .threadmind/). */
typedef enum {
	TM_RECOVER_OTHER,  /* no content rule: never a recovery */
	TM_RECOVER_THREAD, /* threads/P/ID.md: tm_frontmatter_parse */
	TM_RECOVER_OBJECT, /* projects/P.json, config.json: a JSON object */
	TM_RECOVER_INDEX   /* trees/P.json (the 0.4 index): JSON */
} tm_recover_format;

/* What a temp file is, against its target. */
typedef enum {
	/* the tmp parses and the target is missing, empty, shorter or does
	 * not parse: the tmp is the complete copy, to be put in its place */
	TM_RECOVER_RESTORE,
	/* a stray older than its target (mtime) and no larger: removable */
	TM_RECOVER_STRAY_OLD,
	/* any other stray (or a name that names no target): kept */
	TM_RECOVER_STRAY
} tm_recover_verdict;

/* The target as the rule saw it. */
typedef enum {
	TM_RECOVER_TARGET_FINE, /* parses and is no shorter than the tmp */
	TM_RECOVER_TARGET_MISSING,
	TM_RECOVER_TARGET_EMPTY,
	TM_RECOVER_TARGET_SHORTER, /* parses, but is shorter than the tmp */
	TM_RECOVER_TARGET_BROKEN,  /* does not parse */
	TM_RECOVER_TARGET_UNREAD   /* exists but was not read (a link, a
				    * folder, over 1 MiB): never replaced */
} tm_recover_state;

/* One side of the rule: a file as found on disk. */
typedef struct {
	bool exists;
	const char *data; /* its bytes, or NULL when not read */
	size_t size;      /* its size (st_size) */
	struct timespec mtime;
} tm_recover_file;

/* ---- the rule (pure: no I/O) ---- */

/*
 * The name of the file a temp file `name` was written for: `name` without
 * its ".{8 hex}.tmp" (0.4) or ".{8-4-4-4-12 hex}.tmp" (ours) ending
 * (malloc'd), or NULL when `name` has neither ending or nothing before it.
 */
char *tm_recover_target_name(const char *name);

/*
 * The format of the file `target` in the folder `rel_dir` of .threadmind/
 * ("" for .threadmind itself, "projects", "trees", "threads/P"): THREAD for
 * "threads/P" and a name ending in ".md", OBJECT for "projects" and a name
 * ending in ".json" and for config.json at the top, INDEX for "trees" and a
 * name ending in ".json", OTHER for anything else.
 */
tm_recover_format tm_recover_format_of(const char *rel_dir, const char *target);

/*
 * Do the `len` bytes at `data` parse as `format` says?  `target` is the
 * target's file name (a thread file's id is its name without ".md").
 * OTHER never parses.  Leaves no error message.
 */
bool tm_recover_parses(tm_recover_format format, const char *target,
		       const char *data, size_t len);

/*
 * The rule, for the temp file `tmp` of the file `target` (its name) of
 * format `format`: RESTORE when the tmp's bytes parse as `format` while
 * the target is missing, empty, does not parse or is shorter than the tmp;
 * else STRAY_OLD when the target exists, the tmp's mtime is before the
 * target's and the tmp is no larger; else STRAY.  A target whose bytes were
 * not read (data NULL) is never replaced.  *state (may be NULL) gets what
 * the target is.
 */
tm_recover_verdict tm_recover_classify(tm_recover_state *state,
				       tm_recover_format format,
				       const char *target,
				       const tm_recover_file *tmp,
				       const tm_recover_file *target_file);

/* "is missing", "is empty", "is cut short", "does not parse", ... */
const char *tm_recover_state_text(tm_recover_state state);

/* ---- on disk ---- */

/* One temp file, classified (tm_recover_check_at). */
typedef struct {
	char *target; /* its target's name, NULL for no temp file name */
	tm_recover_format format;
	tm_recover_verdict verdict; /* STRAY when target is NULL */
	tm_recover_state state;
	double age;  /* seconds since the tmp was last modified */
	bool newer;  /* the tmp is not older than its target (which exists) */
	bool larger; /* the tmp is larger than its target (which exists) */
} tm_recover_item;

/*
 * Classify the temp file `name` in the open folder `dirfd`, which is
 * `rel_dir` inside .threadmind/ (see tm_recover_format_of): both files
 * are looked at without following links and read up to 1 MiB.  Clear
 * *out with tm_recover_item_clear.  Errors: TM_ENOTFOUND when `name` is
 * gone; TM_ERROR when it cannot be looked at.
 */
int tm_recover_check_at(tm_recover_item *out, int dirfd, const char *rel_dir,
			const char *name);
void tm_recover_item_clear(tm_recover_item *it);

/*
 * Restore the temp file `name` of `dirfd` (folder `rel_dir`) over its
 * target, if it is still a RESTORE (checked again first) of a format other
 * than INDEX (the upgrade is what reads those) and older than `min_age`
 * seconds (younger, a write may be in progress).  A target that exists and
 * is not empty is kept first as "{target}.broken" ("{target}.broken-2", ...
 * when taken; a hard link, so nothing is copied or overwritten); then the
 * tmp is fsync'd and renamed over the target (atomically: a reader sees the
 * old file or the complete one), and the folder fsync'd.  On success
 * *restored tells whether it was done and *out_broken (may be NULL) gets
 * the name of the kept file (malloc'd) or NULL.
 * Errors: TM_ERROR (naming the file) when a step fails; the old target is
 * then still in place and no .broken is left behind.
 */
int tm_recover_restore_at(bool *restored, char **out_broken, int dirfd,
			  const char *rel_dir, const char *name,
			  double min_age);

/*
 * Remove the temp file `name` of `dirfd` (folder `rel_dir`) if it is still
 * a STRAY_OLD (checked again first) older than `min_age` seconds; *removed
 * tells whether it was.  Errors: those of tm_fs_unlink_at.
 */
int tm_recover_remove_at(bool *removed, int dirfd, const char *rel_dir,
			 const char *name, double min_age);

/*
 * The file a restore kept: `name` ends in ".broken" or ".broken-N"; *out
 * (may be NULL) gets the name before that ending (malloc'd).
 */
bool tm_recover_is_broken_name(char **out, const char *name);

/*
 * The 0.4 upgrade's read of the index trees/NAME (`dirfd` is trees/,
 * `display` names the file): its bytes into `out`, as tm_fs_read_at reads
 * them (same errors).  When they are empty or not JSON and a complete
 * index waits in a "NAME.{8 hex}.tmp" (or our uuid) temp file beside it (a
 * RESTORE by the rule; the newest when several), `out` gets the tmp's bytes
 * instead and one line naming the tmp goes to `report` ("would use" with
 * `dry_run`).  The tmp is never removed: the upgrade keeps it and doctor
 * names it for a human.
 */
int tm_recover_index_read(tm_buf *out, tm_strv *report, int dirfd,
			  const char *name, const char *display, bool dry_run);

#endif
