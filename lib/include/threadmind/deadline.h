/*
 * A deadline that long reads check, so that a hostile store cannot hold a
 * caller past its time budget: the git hooks set one (their 2 s budget,
 * DESIGN.md section 7; it is the hooks' only clock: hooks.h checks it
 * between steps and for the lock wait), and the store's listing and reading
 * loops, the paths index and the staleness walks check it between files;
 * inside one file, at a coarse grain, through the check they give the
 * parsers (tm_parse_check, yaml.h: tm_deadline_check is one).  Nothing else
 * changes: with no deadline set (every command but the hooks) a check costs
 * a load and a branch.
 *
 * A check that finds the deadline passed returns TM_ETIMEOUT with a message
 * naming what was being read; the read gives up there, before anything is
 * written (writes happen after the reads, and every write is atomic).  The
 * deadline belongs to the calling thread.
 */
#ifndef TM_DEADLINE_H
#define TM_DEADLINE_H

#include <stdbool.h>
#include <stddef.h>

/* Iterations of a tight loop between two clock reads (tm_deadline_every). */
#define TM_DEADLINE_EVERY 1024

/*
 * Set the calling thread's deadline `seconds` from now (0 or less: already
 * passed), replacing any earlier one.
 */
void tm_deadline_set(double seconds);

/* Forget the deadline: checks pass again. */
void tm_deadline_clear(void);

/* Whether a deadline is set. */
bool tm_deadline_is_set(void);

/*
 * Seconds left before the deadline (0 or negative once passed), or a huge
 * value (HUGE_VAL) when none is set.
 */
double tm_deadline_left(void);

/*
 * Whether a deadline is set and has passed: what tm_deadline_check sees,
 * without setting an error (for the steps that give up quietly).
 */
bool tm_deadline_passed(void);

/*
 * 0 while the deadline has not passed (or none is set); else TM_ETIMEOUT,
 * with the message "time budget spent while reading '<what>'" (`what` a
 * file or folder for the user, may be NULL).
 */
int tm_deadline_check(const char *what);

/*
 * tm_deadline_check once every TM_DEADLINE_EVERY values of `i` (a loop
 * counter, checked at 0 first), 0 otherwise: for loops whose iterations
 * cost far less than a clock read.
 */
int tm_deadline_every(size_t i, const char *what);

/*
 * For tests only: read the time from `now` (seconds on any monotonic
 * scale) instead of CLOCK_MONOTONIC; NULL restores the real clock.  Set it
 * before tm_deadline_set.
 */
void tm_deadline__set_clock(double (*now)(void));

#endif
