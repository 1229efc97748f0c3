/*
 * For lib/git*.c only: what the libgit2 wrapper's files share — the
 * tm_git type, the fast path (git_discover.c) and its small readers, used
 * by the HEAD reader (git_head.c) and the config reader (git_config.c).
 */
#ifndef TM_GIT_PRIV_H
#define TM_GIT_PRIV_H

#include "buf.h"
#include "git.h"

#include <git2.h>
#include <stdbool.h>

/*
 * A repository found by the fast path (fast_discover) is not opened with
 * libgit2 until a call needs it (need_repo): `prompt` and the hooks' common
 * cases read HEAD, a ref and config.json only, and never initialise libgit2
 * (whose initialisation parses the system CA bundle: docs/PERFORMANCE.md).
 * Anything the fast path does not fully understand is left to libgit2,
 * opened at once as before.
 */
struct tm_git {
	git_repository *repo; /* NULL until needed (fast path) */
	char *path;           /* tm_git_open's arguments, for the lazy open */
	bool from_env;
	/* found by the fast path (all NULL when libgit2 opened it at once) */
	char *workdir, *gitdir, *commondir;
	/* the keys of tm_git_config_fast the scan of the config files
	 * looked for (the first fast_scanned), and, bit i, whether a file
	 * that libgit2 would read mentions key i */
	unsigned fast_scanned, fast_mentioned;
	/* a config file sets merge.threadmind.driver (the hint of every
	 * command asks, tm_git_config_is_set) */
	bool config_merge_driver;
};

/* The most the fast path reads of a config file and of packed-refs. */
#define TM_GIT_FAST_CONFIG_MAX (1024 * 1024)
#define TM_GIT_FAST_PACKED_MAX (16 * 1024 * 1024)

/* Outcome of a fast-path step: done, or "leave it to libgit2". */
#define FAST_OK      0
#define FAST_UNUSUAL 1

/* a + "/" + b (no second '/' when a ends with one), malloc'd. */
char *tm_git__path_join(const char *a, const char *b);

/*
 * The content of the file `path` (NUL-terminated, at most `max` bytes)
 * into `out`: FAST_OK, ENOENT-like absence as -1 with *missing set, or
 * FAST_UNUSUAL for anything else (unreadable, too large, not a file).
 */
int tm_git__read_small(tm_buf *out, const char *path, size_t max,
		       bool *missing);

/* Note in g which keys of tm_git_config_fast the config file text
 * `lower` (lower-cased) mentions. */
void tm_git__note_mentions(tm_git *g, const char *lower);

/* An environment variable, NULL when unset or empty. */
const char *tm_git__env(const char *name);

/*
 * git_discover.c: find the repository of `path` (or of the environment)
 * as libgit2 would, into g's workdir / gitdir / commondir, and scan the
 * config files: FAST_OK, or FAST_UNUSUAL for anything left to libgit2
 * (then tm_git__forget_fast clears what it set).
 */
int tm_git__fast_discover(tm_git *g, const char *path, bool from_env);
void tm_git__forget_fast(tm_git *g);

/* libgit2's repository behind g, opened now when the fast path found it. */
int tm_git__need_repo(tm_git *g);

#endif
