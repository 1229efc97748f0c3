/*
 * git-style progress on stderr for long library work (tm_progress_fn):
 * "Indexing history:  45% (5400/12000)", then "Indexing history: 100%
 * (12000/12000), done.", as git's; shown only when stderr is a terminal,
 * -q is not given, and the work has run for about a second
 * (GIT_PROGRESS_DELAY seconds when set); never into a pipe or a file, and
 * never from the hooks (they pass no progress callback).
 */
#ifndef TM_CLI_PROGRESS_H
#define TM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct cli_progress {
	bool enabled;     /* a terminal, no -q */
	bool started;     /* the first report came */
	bool shown;       /* a line is on screen */
	double start;     /* when the first report came (seconds) */
	double last;      /* when the line was last drawn */
	double delay;     /* seconds before the first line */
	int pct;          /* the percentage drawn last */
	const char *what; /* the title of the line on screen */
	size_t done, total;
};

/* Set up *p (enabled when stderr is a terminal and -q is not given). */
void cli_progress_init(struct cli_progress *p);
/* A tm_progress_fn: `data` is a struct cli_progress. */
void cli_progress_report(void *data, const char *what, size_t done,
			 size_t total);
/* End the line on screen, if any, with ", done.". */
void cli_progress_end(struct cli_progress *p);

#endif
