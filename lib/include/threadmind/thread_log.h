/*
 * The history of a thread, or of every thread of a project (`git
 * threadmind log`): the commits that changed its file, newest first, each
 * with what it changed (git_threads.h's diff), following the thread when
 * its project was renamed or a `resolve` split gave it a new id.  Reads
 * git objects only.
 */
#ifndef TM_THREAD_LOG_H
#define TM_THREAD_LOG_H

#include "git_threads.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	char commit[41];
	tm_strv parents; /* 40-hex ids, in order */
	char *author_name;
	char *author_email;
	int64_t time; /* the author date: seconds since the epoch */
	int offset;   /* its time zone: minutes east of UTC */
	char *subject;
	/* A merge whose thread file (or project folder) differs from every
	 * parent's: the merge combined both sides. */
	bool combined;
	/* The parent the change is against (the first one, unless only
	 * another one had the thread); SIZE_MAX for a root commit. */
	size_t against;
	char *project; /* the thread's project in this commit */
	char *id;      /* the thread's id in this commit (NULL: every thread) */
	tm_store_diff diff;
} tm_log_entry;

typedef struct {
	tm_log_entry *items;
	size_t n;
	size_t alloc;
} tm_log;

/* clang-format off */
#define TM_LOG_INIT {NULL, 0, 0}
/* clang-format on */

typedef struct {
	unsigned version;
	const char *project; /* the project (required) */
	const char *thread;  /* the thread's id; NULL: every thread */
	/* Where to start, as `git log` takes them: "B", "A..B", "A...B",
	 * "^A"; none: HEAD. */
	const char *const *revs;
	size_t nrevs;
	size_t max_count; /* 0: no limit */
	bool has_since;   /* only commits at or after `since` */
	int64_t since;    /* seconds since the epoch (commit date) */
	bool all_fields;  /* tm_tdiff_options.all_fields */
} tm_log_options;

#define TM_LOG_OPTIONS_VERSION 1
#define TM_LOG_OPTIONS_INIT                                               \
	{                                                                 \
		TM_LOG_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, false, 0, \
			false                                             \
	}

/*
 * The commits of the revisions' history that changed the thread's file
 * (or any thread file of the project), newest first by commit date, into
 * *out (TM_LOG_INIT; clear it with tm_log_clear).  The history is
 * simplified as `git log -- <file>` does: a commit whose file is the same
 * as one of its parents' is not listed and only that parent is followed
 * (so a branch that did not touch the thread is skipped).  A merge is
 * listed when its file differs from every parent's (combined); its change
 * is against the first parent.  When a commit has the thread and a parent
 * does not have that file, the parent's files are searched for the same
 * thread (createdAt + author): under the same id in another project (a
 * project renamed) or under another id of the project (a split by
 * `resolve`), and the walk goes on there; with every thread, a project
 * folder a parent lacks is looked for by its root thread.  A commit whose
 * change is empty (only `updatedAt`, without opts->all_fields) is not
 * listed.
 *
 * Errors: those of tm_git_resolve_commit for a bad revision; TM_EINVALID
 * for a bad project or thread id; TM_ERROR when git cannot read.
 */
int tm_log_read(tm_log *out, tm_git *g, const char *prefix,
		const tm_log_options *opts);

void tm_log_clear(tm_log *l);

#endif
