/* Resolving the thread a session starts on (see active.h). */
#include "active.h"

#include "buf.h"
#include "timestamp.h"

#include <string.h>

static bool exists(const char *id, const tm_thread *const *threads, size_t n)
{
	size_t i;

	if (!id)
		return false;
	for (i = 0; i < n; i++)
		if (threads[i] && threads[i]->id && !strcmp(threads[i]->id, id))
			return true;
	return false;
}

/* The latest updated active thread on `branch`, or NULL. */
static const tm_thread *
latest_on_branch(const char *branch, const tm_thread *const *threads, size_t n)
{
	const tm_thread *best = NULL, *t;
	size_t i;
	int c;

	for (i = 0; i < n; i++) {
		t = threads[i];
		if (!t || !t->id || !tm_thread_is_active(t) || !t->branch ||
		    strcmp(t->branch, branch))
			continue;
		if (best) {
			c = tm_time_cmp(t->updated_at, best->updated_at);
			if (c < 0 || (!c && strcmp(t->id, best->id) < 0))
				continue;
		}
		best = t;
	}
	return best;
}

char *tm_active_resolve(const char *branch, const char *branch_thread,
			const char *active_id, const tm_thread *const *threads,
			size_t n, const char **reason)
{
	const tm_thread *latest;
	const char *why, *id;

	if (branch && exists(branch_thread, threads, n)) {
		why = "branchThreads";
		id = branch_thread;
	} else if (branch &&
		   (latest = latest_on_branch(branch, threads, n)) != NULL) {
		why = "branch";
		id = latest->id;
	} else if (exists(active_id, threads, n)) {
		why = "activeThreadId";
		id = active_id;
	} else {
		why = "default";
		id = TM_ROOT_THREAD_ID;
	}
	if (reason)
		*reason = why;
	return tm_xstrdup(id);
}
