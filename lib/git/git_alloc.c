/*
 * libgit2's allocations, with a bound per read (tm_git_odb_read_bounded).
 *
 * Why: an object's header says how large it inflates, and libgit2
 * allocates that size before it inflates (a packed object, a delta's
 * result, a loose object).  A few KiB of a hostile pack can say 4 GiB.
 * git_odb_read_header answers the size first, but for a delta it follows
 * the whole delta chain to learn the type, inflating a piece of every
 * object on the way: on a first run over an 80,000-commit history that
 * check cost a quarter of the time (docs/PERFORMANCE.md, issue 20).  Here
 * the read itself is bounded instead: while a bound is set in a thread,
 * any libgit2 allocation larger than it fails there (libgit2 reports "out
 * of memory" and frees what it holds), and the caller learns that the
 * object was too large.  Without a bound, every call is libc's.
 *
 * Every allocation also counts towards the next look at the pack pages
 * this process maps (tm_git__pack_pages_trim, every TM_GIT_PAGES_EVERY
 * bytes): libgit2 allocates what it inflates, so the count follows its
 * reads, whoever calls them.
 */
#include "git_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2/sys/alloc.h>

/* The bound of this thread's read (0: none), and whether it refused. */
static _Thread_local size_t bound;
static _Thread_local bool refused;

/* What this thread's libgit2 allocated since the pack pages were last
 * looked at (tm_git__pack_pages_trim). */
static _Thread_local size_t handed;

/* Whether an allocation of n bytes is refused (counted first). */
static bool too_large(size_t n)
{
	if ((handed += n) >= TM_GIT_PAGES_EVERY) {
		handed = 0;
		tm_git__pack_pages_trim(TM_GIT_PAGES_KEPT);
	}
	if (!bound || n <= bound)
		return false;
	refused = true;
	return true;
}

/* n * m into *out; false when it overflows (refused like a large one). */
static bool times(size_t *out, size_t n, size_t m)
{
	if (m && n > SIZE_MAX / m)
		return false;
	*out = n * m;
	return true;
}

static void *a_malloc(size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	return too_large(n) ? NULL : malloc(n);
}

static void *a_calloc(size_t n, size_t m, const char *file, int line)
{
	size_t all;

	(void)file;
	(void)line;
	if (!times(&all, n, m) || too_large(all))
		return NULL;
	return calloc(n, m);
}

static char *a_substrdup(const char *s, size_t n, const char *file, int line)
{
	char *p;

	if (n == SIZE_MAX || !(p = a_malloc(n + 1, file, line)))
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *a_strdup(const char *s, const char *file, int line)
{
	return a_substrdup(s, strlen(s), file, line);
}

static char *a_strndup(const char *s, size_t n, const char *file, int line)
{
	return a_substrdup(s, strnlen(s, n), file, line);
}

static void *a_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	return too_large(n) ? NULL : realloc(p, n);
}

static void *a_reallocarray(void *p, size_t n, size_t m, const char *file,
			    int line)
{
	size_t all;

	return times(&all, n, m) ? a_realloc(p, all, file, line) : NULL;
}

static void *a_mallocarray(size_t n, size_t m, const char *file, int line)
{
	return a_reallocarray(NULL, n, m, file, line);
}

static void a_free(void *p)
{
	free(p);
}

static git_allocator bounded = {
	a_malloc,  a_calloc,       a_strdup,      a_strndup, a_substrdup,
	a_realloc, a_reallocarray, a_mallocarray, a_free,
};

bool tm_git__alloc_refused(void)
{
	return refused;
}

int tm_git__alloc_install(void)
{
	return git_libgit2_opts(GIT_OPT_SET_ALLOCATOR, &bounded);
}

int tm_git_odb_read_bounded(git_odb_object **out, git_odb *odb,
			    const git_oid *id, size_t max)
{
	int rc;

	*out = NULL;
	if ((rc = tm_git_init()) < 0) /* the allocator in place */
		return rc;
	bound = max < SIZE_MAX ? max + 1 : max; /* libgit2 adds a NUL */
	refused = false;
	rc = git_odb_read(out, odb, id);
	bound = 0;
	if (rc == 0 && git_odb_object_size(*out) > max) {
		git_odb_object_free(*out);
		*out = NULL;
		return 1;
	}
	if (rc < 0 && refused) {
		git_error_clear();
		return 1;
	}
	return rc < 0 ? rc : 0;
}
