/* The per-thread deadline of long reads (see deadline.h). */
#include "deadline.h"

#include "error.h"

#include <math.h>
#include <time.h>

static _Thread_local bool deadline_set;
static _Thread_local double deadline_at; /* on clock_now()'s scale */
static double (*test_clock)(void);

static double clock_now(void)
{
	struct timespec ts;

	if (test_clock)
		return test_clock();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tm_deadline_set(double seconds)
{
	deadline_at = clock_now() + (seconds > 0 ? seconds : 0);
	deadline_set = true;
}

void tm_deadline_clear(void)
{
	deadline_set = false;
}

bool tm_deadline_is_set(void)
{
	return deadline_set;
}

double tm_deadline_left(void)
{
	return deadline_set ? deadline_at - clock_now() : HUGE_VAL;
}

bool tm_deadline_passed(void)
{
	return deadline_set && clock_now() >= deadline_at;
}

int tm_deadline_check(const char *what)
{
	if (!tm_deadline_passed())
		return 0;
	if (what)
		return tm_error_set(TM_ETIMEOUT,
				    "time budget spent while reading '%s'",
				    what);
	return tm_error_set(TM_ETIMEOUT, "time budget spent");
}

int tm_deadline_every(size_t i, const char *what)
{
	if (!deadline_set || i % TM_DEADLINE_EVERY)
		return 0;
	return tm_deadline_check(what);
}

void tm_deadline__set_clock(double (*now)(void))
{
	test_clock = now;
}
