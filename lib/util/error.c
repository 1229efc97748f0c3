/* The per-thread last error message (see error.h). */
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TM_ERROR_MAX 1024

static _Thread_local char last_msg[TM_ERROR_MAX];
static _Thread_local int last_code;

int tm_error_set(int code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(last_msg, sizeof(last_msg), fmt, ap) < 0)
		last_msg[0] = '\0';
	va_end(ap);
	last_code = code;
	errno = saved;
	return code;
}

int tm_error_append_errno(int code)
{
	int saved = errno;
	size_t len = strlen(last_msg);

	snprintf(last_msg + len, sizeof(last_msg) - len, ": %s",
		 strerror(saved));
	errno = saved;
	return code;
}

const char *tm_error_last(void)
{
	return last_msg;
}

int tm_error_last_code(void)
{
	return last_code;
}

void tm_error_clear(void)
{
	last_msg[0] = '\0';
	last_code = 0;
}

int tm_error_ignore(int error, int code)
{
	if (error != code)
		return error;
	tm_error_clear();
	return 0;
}

const char *tm_error_name(int code)
{
	switch (code) {
	case TM_OK:
		return "ok";
	case TM_ENOTFOUND:
		return "not found";
	case TM_EEXISTS:
		return "exists";
	case TM_ELOCKED:
		return "locked";
	case TM_EPARSE:
		return "parse error";
	case TM_EINVALID:
		return "invalid";
	case TM_ECONFLICT:
		return "conflict";
	case TM_EAMBIGUOUS:
		return "ambiguous";
	case TM_ETIMEOUT:
		return "timeout";
	default:
		return "error";
	}
}
