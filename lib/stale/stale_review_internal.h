/*
 * Shared by the files of phase 0 only (stale_review.c, the rule;
 * stale_review_git.c, the versions read from git without the commit index).
 */
#ifndef TM_STALE_REVIEW_INTERNAL_H
#define TM_STALE_REVIEW_INTERNAL_H

#include "stale_internal.h"

/* A version of a thread file that may belong to a thread. */
struct tm_stale_version {
	git_oid at;             /* the commit whose first-parent diff adds it */
	git_oid review;         /* its `commit` (zero: none) */
	uint64_t ident;         /* its identity */
	const tm_thread *owner; /* the thread whose own file it is, or NULL */
	bool reachable;         /* HEAD reaches `review` */
	bool introduced; /* `at` introduces it (stale_review.c, at the top) */
};

struct tm_stale_versions {
	struct tm_stale_version *v;
	size_t n, alloc;
	tm_hashmap idents; /* the threads' identities (8 bytes each) */
	tm_hashmap own;    /* "<id>.md" -> the thread whose file it is */
	bool *reached;     /* per thread: HEAD reaches its own `commit` */
};

/* Without the commit index: the versions of the thread files of
 * `threads_dir` in HEAD's history into *vs, by one walk over the store's
 * life (stale_review.c, at the top), and which review commits HEAD reaches. */
int tm_stale__review_collect_git(struct tm_stale_pass *s,
				 struct tm_stale_versions *vs,
				 const char *threads_dir);

#endif
