/*
 * Unit tests of lib/util/text.c: control characters shown as '?', and titles as
 * they are typed.
 */
#include "threadmind/text.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *sanitized(const char *s, size_t len, unsigned flags)
{
	tm_buf b = TM_BUF_INIT;

	tm_text_sanitize(&b, s, len, flags);
	ck_assert_int_eq(tm_text_needs_sanitize(s, len, flags),
			 b.size != len || memcmp(b.ptr ? b.ptr : "", s, len));
	return tm_buf_detach(&b);
}

static void assert_sanitized(const char *s, unsigned flags, const char *want)
{
	char *got = sanitized(s, strlen(s), flags);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_text_sanitize_controls)
{
	/* an OSC sequence that sets the terminal title */
	assert_sanitized("\x1b]0;PWNED\x07", 0, "?]0;PWNED?");
	assert_sanitized("a\tb\nc\rd\x7f", 0, "a?b?c?d?");
	assert_sanitized("a\tb\nc\rd", TM_TEXT_KEEP_LF | TM_TEXT_KEEP_TAB,
			 "a\tb\nc?d");
	/* C1 controls (CSI is U+009B), one '?' each; U+00A0 is text */
	assert_sanitized("x\xc2\x9b"
			 "2J\xc2\x80\xc2\x9f\xc2\xa0",
			 0, "x?2J??\xc2\xa0");
	/* bytes that are not UTF-8, one '?' per byte */
	assert_sanitized("caf\xe9!\xe2\x82", 0, "caf?!??");
	/* text without controls is unchanged */
	assert_sanitized("Système Auth v2 — 认证 🚀", 0,
			 "Système Auth v2 — 认证 🚀");
	assert_sanitized("", 0, "");
}
END_TEST

START_TEST(test_text_sanitize_nul)
{
	char *got = sanitized("a\0b", 3, TM_TEXT_KEEP_LF);

	ck_assert_str_eq(got, "a?b");
	free(got);
}
END_TEST

START_TEST(test_text_json_escape_c1)
{
	tm_buf b = TM_BUF_INIT;
	const char *in = "{\"t\": \"a\xc2\x9b"
			 "2J\x7f\xc2\xa0\\u001b\xc2\x80\"}";

	tm_text_json_escape(&b, in, strlen(in));
	ck_assert_str_eq(
		tm_buf_cstr(&b),
		"{\"t\": \"a\\u009b2J\\u007f\xc2\xa0\\u001b\\u0080\"}");
	tm_buf_clear(&b);
	tm_text_json_escape(&b, "plain \xc3\xa9", 8);
	ck_assert_str_eq(tm_buf_cstr(&b), "plain \xc3\xa9");
	tm_buf_release(&b);
}
END_TEST

static void assert_title(const char *in, const char *want)
{
	char *got = NULL;

	ck_assert_msg(tm_text_title(&got, in, NULL) == 0, "%s",
		      tm_error_last());
	ck_assert_str_eq(got, want);
	free(got);
}

static void assert_title_refused(const char *in, const char *msg)
{
	char *got = NULL;

	ck_assert_int_eq(tm_text_title(&got, in, "the title of 'x'"),
			 TM_EINVALID);
	ck_assert_ptr_null(got);
	ck_assert_msg(strstr(tm_error_last(), msg), "%s", tm_error_last());
}

START_TEST(test_text_title_newlines_and_trim)
{
	assert_title("Auth", "Auth");
	assert_title("a\nb", "a b");
	assert_title("a\rb", "a b");
	assert_title("a\r\nb", "a b");
	assert_title("a\n\n\r\nb\nc", "a b c");
	assert_title("  \n Spaced out \r\n", "    Spaced out  ");
	assert_title("Cœur  métier", "Cœur  métier");
}
END_TEST

START_TEST(test_text_title_refused)
{
	assert_title_refused("", "the title of 'x' cannot be empty");
	assert_title_refused(NULL, "cannot be empty");
	assert_title_refused(" \r\n \n\t", "cannot be empty");
	assert_title_refused("\x1b]0;PWNED\x07",
			     "holds a control character ('?]0;PWNED?'");
	assert_title_refused("a\tb", "control character");
	assert_title_refused("a\xc2\x9b"
			     "b",
			     "control character");
	assert_title_refused("caf\xe9", "is not valid UTF-8");
}
END_TEST

static char *message(const char *prefix, const char *fmt, ...)
{
	tm_buf b = TM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tm_text_vmessage(&b, prefix, fmt, ap);
	va_end(ap);
	return tm_buf_detach(&b);
}

START_TEST(test_text_message_filters_arguments)
{
	char *m = message("x: ", "'%s': %s\tend\nnext", "a\033]0;T\007.md",
			  "b\302\233c");

	ck_assert_str_eq(m, "x: 'a?]0;T?.md': b?c\tend\nnext\n");
	free(m);
	m = message("", "%s", "");
	ck_assert_str_eq(m, "\n");
	free(m);
}
END_TEST

START_TEST(test_text_thread_name)
{
	tm_buf b = TM_BUF_INIT;

	tm_text_thread_name(&b, "Search", "ana-1a2b");
	ck_assert_str_eq(tm_buf_cstr(&b), "'Search' by ana-1a2b");
	tm_buf_clear(&b);
	tm_text_thread_name(&b, "Evil\x1b]0;x\x07", "bob\n");
	ck_assert_str_eq(tm_buf_cstr(&b), "'Evil?]0;x?' by bob?");
	tm_buf_clear(&b);
	tm_text_thread_name(&b, NULL, NULL);
	ck_assert_str_eq(tm_buf_cstr(&b), "'(untitled)' by an unknown author");
	tm_buf_release(&b);
}
END_TEST

Suite *text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("sanitize");

	tcase_add_test(tc, test_text_sanitize_controls);
	tcase_add_test(tc, test_text_sanitize_nul);
	tcase_add_test(tc, test_text_json_escape_c1);
	tcase_add_test(tc, test_text_thread_name);
	tcase_add_test(tc, test_text_message_filters_arguments);
	suite_add_tcase(s, tc);
	tc = tcase_create("titles");
	tcase_add_test(tc, test_text_title_newlines_and_trim);
	tcase_add_test(tc, test_text_title_refused);
	suite_add_tcase(s, tc);
	return s;
}
