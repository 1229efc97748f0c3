/*
 * Timestamps: written as YYYY-MM-DDTHH:MM:SS.mmmZ (UTC, milliseconds), read
 * in any ISO 8601 date-time form with `Z` or an offset, compared as instants.
 */
#ifndef TM_TIMESTAMP_H
#define TM_TIMESTAMP_H

#include <stdbool.h>
#include <stdint.h>

/* Length of a formatted timestamp, without the NUL. */
#define TM_TIME_LEN 24

/*
 * Parse an ISO 8601 date-time: `YYYY-MM-DD`, `T` (or `t`, or a space),
 * `HH:MM[:SS[.fraction]]`, then `Z`/`z` or `+HH:MM`, `+HHMM`, `+HH` (or
 * `-`).  The extended form only; fractions of any length (cut to
 * milliseconds).  Writes milliseconds since the Unix epoch to *out_ms.
 * Returns 0, or TM_EINVALID (with a message) for anything else, including
 * a missing offset and impossible dates (Feb 30, hour 25).
 */
int tm_time_parse(int64_t *out_ms, const char *s);

/* True when `s` parses (tm_time_parse would return 0). */
bool tm_time_valid(const char *s);

/* Write `ms` as YYYY-MM-DDTHH:MM:SS.mmmZ into out (TM_TIME_LEN + 1 bytes). */
void tm_time_format(char *out, int64_t ms);

/* Now, in milliseconds since the epoch (wall clock). */
int64_t tm_time_now_ms(void);

/*
 * Compare two timestamp strings as instants: <0, 0, >0.  A NULL or
 * unparseable string sorts before every valid one; two invalid ones compare
 * bytewise (NULL first), so the order is total and deterministic.
 */
int tm_time_cmp(const char *a, const char *b);

#endif
