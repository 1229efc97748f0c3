/* git-style progress on stderr (see progress.h). */
#include "progress.h"
#include "opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds before a line appears (GIT_PROGRESS_DELAY, as git reads it,
 * says otherwise), and between two redraws of the same percentage (or of a
 * count without total). */
#define DELAY  1.0
#define REDRAW 0.2

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_init(struct cli_progress *p)
{
	const char *delay = getenv("GIT_PROGRESS_DELAY");
	char *end = NULL;
	double d = delay ? strtod(delay, &end) : -1.0;

	memset(p, 0, sizeof(*p));
	p->enabled = !global_opts.quiet && isatty(STDERR_FILENO);
	p->pct = -1;
	p->delay = end && end != delay && !*end && d >= 0 ? d : DELAY;
}

static void draw(struct cli_progress *p, const char *end)
{
	/* git's: the title capitalised, "Counting objects: 41% (5/12)" */
	int first = p->what[0] >= 'a' && p->what[0] <= 'z' ? p->what[0] - 32
							   : p->what[0];

	if (!first)
		return;
	if (p->total)
		fprintf(stderr, "\r%c%s: %3d%% (%zu/%zu)%s", first, p->what + 1,
			p->pct, p->done, p->total, end);
	else
		fprintf(stderr, "\r%c%s: %zu%s", first, p->what + 1, p->done,
			end);
	fflush(stderr);
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->shown)
		draw(p, ", done.\n");
	p->shown = false;
}

void cli_progress_report(void *data, const char *what, size_t done,
			 size_t total)
{
	struct cli_progress *p = data;
	double t;
	int pct;

	if (!p->enabled)
		return;
	t = now();
	if (!p->started) {
		p->started = true;
		p->start = t;
	}
	if (p->what && strcmp(p->what, what))
		cli_progress_end(p);
	pct = total ? (int)((double)done * 100.0 / (double)total) : -1;
	p->what = what;
	p->done = done;
	p->total = total;
	if (t - p->start < p->delay)
		return;
	if (p->shown && pct == p->pct && t - p->last < REDRAW &&
	    !(total && done == total))
		return;
	p->pct = pct;
	p->last = t;
	p->shown = true;
	draw(p, "");
	if (total && done == total)
		cli_progress_end(p);
}
