/* ISO 8601 timestamps: parse, format, compare (see timestamp.h). */
#include "timestamp.h"
#include "error.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	*y = (int64_t)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y += *m <= 2;
}

static bool is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned month_days(int64_t y, unsigned m)
{
	static const unsigned days[] = {31, 28, 31, 30, 31, 30,
					31, 31, 30, 31, 30, 31};

	return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* Read exactly `n` digits at *p. */
static bool digits(const char **p, int n, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < n; i++) {
		char c = (*p)[i];

		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (unsigned)(c - '0');
	}
	*p += n;
	*out = v;
	return true;
}

static int invalid(const char *s)
{
	return tm_error_set(TM_EINVALID,
			    "'%s' is not an ISO 8601 timestamp with a time "
			    "zone (expected e.g. 2026-04-15T10:00:00.000Z)",
			    s ? s : "(null)");
}

static bool parse(int64_t *out_ms, const char *s)
{
	const char *p = s;
	unsigned y, mo, d, h, mi, sec = 0, ms = 0, oh = 0, om = 0;
	int sign = 0;
	int64_t t;

	if (!s)
		return false;
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d))
		return false;
	if (*p != 'T' && *p != 't' && *p != ' ')
		return false;
	p++;
	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
		return false;
	if (*p == ':') {
		p++;
		if (!digits(&p, 2, &sec))
			return false;
		if (*p == '.' || *p == ',') {
			unsigned scale = 100;

			p++;
			if (*p < '0' || *p > '9')
				return false;
			while (*p >= '0' && *p <= '9') {
				ms += (unsigned)(*p - '0') * scale;
				scale /= 10;
				p++;
			}
		}
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if (!digits(&p, 2, &oh))
			return false;
		if (*p == ':') {
			p++;
			if (!digits(&p, 2, &om))
				return false;
		} else if (*p >= '0' && *p <= '9') {
			if (!digits(&p, 2, &om))
				return false;
		}
	} else {
		return false;
	}
	if (*p)
		return false;
	/* 24:00:00 is midnight at the end of the day; 60 is a leap second. */
	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || mi > 59 ||
	    sec > 60 || oh > 23 || om > 59 ||
	    (h > 23 && !(h == 24 && mi == 0 && sec == 0 && ms == 0)))
		return false;
	if (sec == 60)
		sec = 59, ms = 999;
	t = days_from_civil(y, mo, d) * 86400 + (int64_t)h * 3600 +
	    (int64_t)mi * 60 + sec;
	t -= sign * ((int64_t)oh * 3600 + (int64_t)om * 60);
	*out_ms = t * 1000 + ms;
	return true;
}

int tm_time_parse(int64_t *out_ms, const char *s)
{
	int64_t ms;

	if (!parse(&ms, s))
		return invalid(s);
	*out_ms = ms;
	return 0;
}

bool tm_time_valid(const char *s)
{
	int64_t ms;

	return parse(&ms, s);
}

void tm_time_format(char *out, int64_t ms)
{
	int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
	int64_t rem = ms - secs * 1000;
	int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
	int64_t sod = secs - days * 86400;
	int64_t y;
	unsigned m, d;
	char tmp[64];

	civil_from_days(days, &y, &m, &d);
	/* snprintf into a larger buffer keeps gcc's truncation check quiet. */
	snprintf(tmp, sizeof(tmp), "%04lld-%02u-%02uT%02u:%02u:%02u.%03uZ",
		 (long long)y, m, d, (unsigned)(sod / 3600),
		 (unsigned)(sod / 60 % 60), (unsigned)(sod % 60),
		 (unsigned)rem);
	memcpy(out, tmp, TM_TIME_LEN);
	out[TM_TIME_LEN] = '\0';
}

int64_t tm_time_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tm_time_cmp(const char *a, const char *b)
{
	int64_t ta, tb;
	bool va = parse(&ta, a);
	bool vb = parse(&tb, b);

	if (va && vb)
		return ta < tb ? -1 : ta > tb;
	if (va != vb)
		return va ? 1 : -1;
	if (!a || !b)
		return !a ? (b ? -1 : 0) : 1;
	return strcmp(a, b);
}
