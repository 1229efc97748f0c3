/* Helpers shared by the unit tests: temp folders, resources, file I/O. */
#ifndef TM_TEST_UTIL_H
#define TM_TEST_UTIL_H

#include <stddef.h>

/*
 * A fresh temporary directory (under $TMPDIR or /tmp), removed with
 * tmt_rmtree.  Aborts the test on failure.  Returns a malloc'd path.
 */
char *tmt_mkdtemp(void);
/* rm -rf `path` (never follows symlinks). */
void tmt_rmtree(const char *path);
/* Path of a file under tests/resources (malloc'd). */
char *tmt_resource(const char *rel);
/* Read a whole file (malloc'd, NUL-terminated); *len may be NULL. Aborts the
 * test when the file cannot be read. */
char *tmt_read_file(const char *path, size_t *len);
/* Write a file (creating parent folders); aborts the test on failure. */
void tmt_write_file(const char *path, const char *data, size_t len);
/* mkdir -p */
void tmt_mkdirs(const char *path);
/* Run a shell command (printf format); the test fails unless it succeeds. */
void tmt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The standard output of a shell command (up to 64 KiB, trailing newlines
 * removed, malloc'd); the test fails unless the command succeeds. */
char *tmt_sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A new git repository `dir`/`name` (made with the git binary; malloc'd
 * path) on branch `main`, with no commit yet and, in its own config, a fixed
 * identity (Tester <tester@example.com>), no commit signing and no detached
 * HEAD advice, so that commits work whatever the user's global config.
 * GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE are unset first.  The test
 * fails if git does.
 */
char *tmt_git_repo(const char *dir, const char *name);

/* Join two path parts (malloc'd). */
char *tmt_join(const char *a, const char *b);
/* Write the string `content` to `dir`/`rel` (tmt_write_file). */
void tmt_put(const char *dir, const char *rel, const char *content);
/* Another process takes the lock of the .threadmind folder `tmdir` over:
 * TMDIR/.lock is replaced by a new file (pid 1), then 2 ms pass so that a
 * refresh due "now" sees time has passed. */
void tmt_take_over_lock(const char *tmdir);

/*
 * The shared sandbox of the suites that run git or libgit2: a fresh temp
 * dir (returned, malloc'd) with HOME = TMP/home and XDG_CONFIG_HOME inside
 * it, GIT_CONFIG_NOSYSTEM=1, the GIT_* (and identity) variables of a
 * calling git unset, and libgit2's config search paths pointed at them
 * (no system config).  Call it in a checked fixture's setup; undo it with
 * tmt_sandbox_end(tmp) in its teardown, which also goes back to the
 * folder tmt_sandbox was called from and removes TMP.
 */
char *tmt_sandbox(void);
void tmt_sandbox_end(char *tmp);

/*
 * What bounds on wall time are multiplied by: $TM_TEST_TIME_SCALE when it
 * is set (`make valgrind` runs ~50x slower), else 1.
 */
double tmt_time_scale(void);

/*
 * How many of N seeded rounds a randomized test runs: N, or a quarter of
 * them (at least one) when bounds are scaled (tmt_time_scale() > 1: the
 * sanitizer build and `make valgrind`), where each round costs several
 * times more and finds the same memory errors as the first; the plain
 * build's run covers all N.
 */
unsigned tmt_rounds(unsigned n);

#endif
