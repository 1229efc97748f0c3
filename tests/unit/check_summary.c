/*
 * Unit tests of lib/ops/summary.c: what a new summary text would do to a
 * thread, and the editor chosen as git chooses it.
 */
#include "threadmind/summary.h"
#include "threadmind/fs.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define HEADER             \
	"---\n"            \
	"id: auth\n"       \
	"title: Auth\n"    \
	"parentId: main\n" \
	"---\n"

static tm_thread *parse(const char *data)
{
	tm_thread *t = NULL;

	ck_assert_msg(tm_frontmatter_parse(&t, data, strlen(data), "auth",
					   "auth.md") == 0,
		      "%s", tm_error_last());
	return t;
}

/* The outcome for `text` on the thread read from `file`; the thread must
 * come out unchanged. */
static tm_summary_outcome outcome_len(const char *file, const char *text,
				      size_t len)
{
	tm_thread *t = parse(file);
	tm_summary_outcome out = (tm_summary_outcome)-1;
	tm_buf before = TM_BUF_INIT, after = TM_BUF_INIT;

	tm_frontmatter_write(&before, t);
	ck_assert_msg(tm_summary_check(&out, t, text, len) == 0, "%s",
		      tm_error_last());
	tm_frontmatter_write(&after, t);
	ck_assert_str_eq(tm_buf_cstr(&after), tm_buf_cstr(&before));
	tm_buf_release(&before);
	tm_buf_release(&after);
	tm_thread_free(t);
	return out;
}

static tm_summary_outcome outcome(const char *file, const char *text)
{
	return outcome_len(file, text, strlen(text));
}

/* tm_summary_check refuses `len` bytes of `text` with a message holding
 * `want`, leaving the outcome untouched. */
static void check_refused(const char *text, size_t len, const char *want)
{
	tm_thread *t = parse(HEADER "\n## A\n");
	tm_summary_outcome out = TM_SUMMARY_UNCHANGED;

	ck_assert_int_eq(tm_summary_check(&out, t, text, len), TM_EINVALID);
	ck_assert_int_eq(out, TM_SUMMARY_UNCHANGED);
	ck_assert_msg(strstr(tm_error_last(), want), "'%s' lacks '%s'",
		      tm_error_last(), want);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'auth'"));
	tm_thread_free(t);
}

/* ---- check ---- */

START_TEST(test_summary_check_changed)
{
	ck_assert_int_eq(outcome(HEADER "\n## A\n- one\n", "## A\n- two\n"),
			 TM_SUMMARY_CHANGED);
	ck_assert_int_eq(outcome(HEADER, "## New\n"), TM_SUMMARY_CHANGED);
	/* leading blank lines are content */
	ck_assert_int_eq(outcome(HEADER "\n## A\n", "\n## A\n"),
			 TM_SUMMARY_CHANGED);
}
END_TEST

START_TEST(test_summary_check_unchanged_after_normalising)
{
	const char *file = HEADER "\n## A\n- one\n";

	ck_assert_int_eq(outcome(file, "## A\n- one\n"), TM_SUMMARY_UNCHANGED);
	ck_assert_int_eq(outcome(file, "## A\n- one"), TM_SUMMARY_UNCHANGED);
	ck_assert_int_eq(outcome(file, "## A\n- one\n\n  \n"),
			 TM_SUMMARY_UNCHANGED);
	ck_assert_int_eq(outcome(file, "## A\r\n- one\r\n"),
			 TM_SUMMARY_UNCHANGED);
}
END_TEST

START_TEST(test_summary_check_unchanged_hand_written_body)
{
	/* no blank line after the header, trailing blank lines, CRLF */
	const char *file = "---\r\n"
			   "id: auth\r\n"
			   "---\r\n"
			   "## A\r\n"
			   "---\r\n"
			   "- x\r\n"
			   "\r\n"
			   "\r\n";

	ck_assert_int_eq(outcome(file, "## A\n---\n- x\n"),
			 TM_SUMMARY_UNCHANGED);
	ck_assert_int_eq(outcome(file, "## A\n---\n- y\n"), TM_SUMMARY_CHANGED);
}
END_TEST

START_TEST(test_summary_check_empty)
{
	ck_assert_int_eq(outcome(HEADER "\n## A\n", ""), TM_SUMMARY_EMPTY);
	ck_assert_int_eq(outcome(HEADER "\n## A\n", " \n\t\r\n\n"),
			 TM_SUMMARY_EMPTY);
	/* empty wins over unchanged */
	ck_assert_int_eq(outcome(HEADER, ""), TM_SUMMARY_EMPTY);
	ck_assert_int_eq(outcome(HEADER "\n", "\n"), TM_SUMMARY_EMPTY);
}
END_TEST

START_TEST(test_summary_check_refuses_nul)
{
	check_refused("## A\n\0x\n", 6, "NUL byte");
}
END_TEST

START_TEST(test_summary_check_refuses_invalid_utf8)
{
	check_refused("caf\xe9\n", 5, "not valid UTF-8");
	check_refused("\xed\xa0\x80\n", 4, "not valid UTF-8"); /* surrogate */
	check_refused("\xc0\xaf\n", 3, "not valid UTF-8");     /* overlong */
}
END_TEST

START_TEST(test_summary_check_refuses_too_large)
{
	size_t len = TM_MAX_FILE_SIZE;
	char *text = tm_xmalloc(len);
	tm_summary_outcome out;
	tm_thread *t = parse(HEADER);
	size_t header = strlen(HEADER);

	memset(text, 'a', len);
	check_refused(text, len, "larger than 1 MiB");
	/* the whole file may be exactly 1 MiB: header, blank line, text, LF */
	len = TM_MAX_FILE_SIZE - header - 2;
	ck_assert_int_eq(tm_summary_check(&out, t, text, len), 0);
	ck_assert_int_eq(out, TM_SUMMARY_CHANGED);
	check_refused(text, len + 1, "larger than 1 MiB");
	tm_thread_free(t);
	free(text);
}
END_TEST

/* ---- editor ---- */

START_TEST(test_summary_editor_order)
{
	ck_assert_str_eq(tm_summary_editor("ge", "ce", "vis", "ed", "xterm"),
			 "ge");
	ck_assert_str_eq(tm_summary_editor(NULL, "ce", "vis", "ed", "xterm"),
			 "ce");
	ck_assert_str_eq(tm_summary_editor(NULL, NULL, "vis", "ed", "xterm"),
			 "vis");
	ck_assert_str_eq(tm_summary_editor(NULL, NULL, NULL, "ed", "xterm"),
			 "ed");
	ck_assert_str_eq(tm_summary_editor(NULL, NULL, NULL, NULL, "xterm"),
			 "vi");
}
END_TEST

START_TEST(test_summary_editor_empty_is_unset)
{
	ck_assert_str_eq(tm_summary_editor("", "", "", "ed", "xterm"), "ed");
	ck_assert_str_eq(tm_summary_editor("", "ce", "vis", "ed", "xterm"),
			 "ce");
	ck_assert_str_eq(tm_summary_editor("", "", "", "", "xterm"), "vi");
}
END_TEST

START_TEST(test_summary_editor_dumb_terminal)
{
	const char *ge = "sed -i s/a/b/";

	ck_assert_ptr_eq(tm_summary_editor(ge, "ce", "vis", "ed", "dumb"), ge);
	ck_assert_str_eq(tm_summary_editor(NULL, "ce", "vis", "ed", "dumb"),
			 "ce");
	/* VISUAL is skipped, EDITOR is not */
	ck_assert_str_eq(tm_summary_editor(NULL, NULL, "vis", "ed", "dumb"),
			 "ed");
	ck_assert_str_eq(tm_summary_editor(NULL, NULL, "vis", "ed", NULL),
			 "ed");
	/* no vi on a dumb terminal */
	ck_assert_ptr_null(tm_summary_editor(NULL, NULL, "vis", NULL, "dumb"));
	ck_assert_ptr_null(tm_summary_editor("", "", "", "", NULL));
}
END_TEST

/* ---- template ---- */

#define TEMPLATE_THREAD               \
	"---\n"                       \
	"id: auth-ui\n"               \
	"title: Auth UI\n"            \
	"parentId: main\n"            \
	"paths: [src/auth, src/ui]\n" \
	"---\n"

/* The summary tm_summary_strip_template makes of `text`. */
static char *stripped(const tm_thread *t, const char *text)
{
	tm_buf out = TM_BUF_INIT;

	tm_summary_strip_template(&out, t, "shop", text, strlen(text));
	return tm_buf_detach(&out);
}

START_TEST(test_summary_template_sections_and_comments)
{
	tm_thread *t = parse(TEMPLATE_THREAD);
	tm_buf out = TM_BUF_INIT;
	const char *text;
	size_t i;

	tm_summary_template(&out, t, "shop");
	text = tm_buf_cstr(&out);
	/* the seed's five sections, in order */
	ck_assert(!strncmp(text,
			   "## Decisions\n\n## Constraints\n\n## State\n\n"
			   "## Open questions\n\n## Next steps\n\n# ",
			   strlen("## Decisions\n\n## Constraints\n\n## "
				  "State\n\n## Open questions\n\n## Next "
				  "steps\n\n# ")));
	for (i = 0; tm_summary_sections[i]; i++)
		;
	ck_assert_uint_eq(i, 5);
	/* the id is the file's name (parse: "auth") */
	ck_assert_ptr_nonnull(strstr(text, "\n# Summary of thread 'auth' "
					   "(Auth UI), project 'shop'.\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# Paths: src/auth, src/ui\n"));
	ck_assert_ptr_nonnull(strstr(text, "to abort"));
	/* every line after the sections is a "# " comment */
	ck_assert_ptr_null(strstr(strstr(text, "\n# "), "\n\n"));
	tm_buf_release(&out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_summary_template_no_paths_and_controls)
{
	tm_thread *t = parse("---\nid: x\ntitle: \"a\\u0007b\"\n"
			     "parentId: main\n---\n");
	tm_buf out = TM_BUF_INIT;

	tm_summary_template(&out, t, "p");
	ck_assert_ptr_nonnull(strstr(tm_buf_cstr(&out), "(a?b)"));
	ck_assert_ptr_nonnull(strstr(tm_buf_cstr(&out),
				     "# Paths: none (git threadmind set auth "
				     "paths=<path>,..."));
	tm_buf_release(&out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_summary_strip_template)
{
	tm_thread *t = parse(TEMPLATE_THREAD);
	tm_buf tpl = TM_BUF_INIT;
	tm_buf edited = TM_BUF_INIT;
	char *got;
	const char *state;

	tm_summary_template(&tpl, t, "shop");
	/* unchanged: nothing left */
	got = stripped(t, tm_buf_cstr(&tpl));
	ck_assert_str_eq(got, "");
	free(got);
	/* one section filled, an H1 of the user's, comment lines with CRLF
	 * and trailing blanks: only the filled section and the H1 stay */
	state = strstr(tm_buf_cstr(&tpl), "## State\n") + strlen("## State\n");
	tm_buf_puts(&edited, "# My notes\n");
	tm_buf_put(&edited, tm_buf_cstr(&tpl),
		   (size_t)(state - tm_buf_cstr(&tpl)));
	tm_buf_puts(&edited, "- login done\n");
	tm_buf_puts(&edited, state);
	tm_buf_puts(&edited, "# Paths: src/auth, src/ui  \r\n");
	got = stripped(t, tm_buf_cstr(&edited));
	ck_assert_str_eq(got, "# My notes\n## State\n- login done\n\n");
	free(got);
	/* a heading of the user's left empty, a changed comment line: kept */
	got = stripped(t, "## Decisions\n\n## Mine\n\n# Paths: src/x\n");
	ck_assert_str_eq(got, "## Mine\n\n# Paths: src/x\n");
	free(got);
	tm_buf_release(&tpl);
	tm_buf_release(&edited);
	tm_thread_free(t);
}
END_TEST

Suite *summary_suite(void)
{
	Suite *s = suite_create("summary");
	TCase *tc;

	tc = tcase_create("check");
	tcase_add_test(tc, test_summary_check_changed);
	tcase_add_test(tc, test_summary_check_unchanged_after_normalising);
	tcase_add_test(tc, test_summary_check_unchanged_hand_written_body);
	tcase_add_test(tc, test_summary_check_empty);
	tcase_add_test(tc, test_summary_check_refuses_nul);
	tcase_add_test(tc, test_summary_check_refuses_invalid_utf8);
	tcase_add_test(tc, test_summary_check_refuses_too_large);
	suite_add_tcase(s, tc);

	tc = tcase_create("editor");
	tcase_add_test(tc, test_summary_editor_order);
	tcase_add_test(tc, test_summary_editor_empty_is_unset);
	tcase_add_test(tc, test_summary_editor_dumb_terminal);
	suite_add_tcase(s, tc);

	tc = tcase_create("template");
	tcase_add_test(tc, test_summary_template_sections_and_comments);
	tcase_add_test(tc, test_summary_template_no_paths_and_controls);
	tcase_add_test(tc, test_summary_strip_template);
	suite_add_tcase(s, tc);
	return s;
}
