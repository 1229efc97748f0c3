/* git-style progress on stderr (see progress.h). */
#include "progress.h"
#include "opt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds before a line appears, and between two redraws of the same
 * percentage (or of a count without total). */
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
	memset(p, 0, sizeof(*p));
	p->enabled = !global_opts.quiet && isatty(STDERR_FILENO);
	p->pct = -1;
}

static void draw(struct cli_progress *p, const char *end)
{
	if (p->total)
		fprintf(stderr, "\rthreadmind: %s: %3d%% (%zu/%zu)%s", p->what,
			p->pct, p->done, p->total, end);
	else
		fprintf(stderr, "\rthreadmind: %s: %zu%s", p->what, p->done,
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
	if (t - p->start < DELAY)
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
