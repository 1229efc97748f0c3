/*
 * Unit tests of lib/format/yaml.c: when a scalar is written plain or quoted
 * (every trigger of the design, the quoting.jsonl fixture), and entry reading.
 */
#include "threadmind/yaml.h"
#include "threadmind/error.h"
#include "threadmind/frontmatter.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/*
 * Write a thread titled `value`: its title line must be `line`; reading the
 * file back gives the same title, and writing that gives the same bytes.
 */
static void check_title(const char *value, const char *line)
{
	tm_thread *t = tm_thread_new(), *back = NULL;
	tm_buf first = TM_BUF_INIT, second = TM_BUF_INIT;
	const char *start, *end;
	char *got;

	t->id = tm_xstrdup("t");
	t->title = tm_xstrdup(value);
	tm_frontmatter_write(&first, t);
	start = strstr(tm_buf_cstr(&first), "\ntitle: ");
	ck_assert_msg(start != NULL, "no title line in:\n%s", first.ptr);
	start++;
	end = strchr(start, '\n');
	got = tm_xstrndup(start, end - start);
	ck_assert_str_eq(got, line);
	ck_assert_msg(tm_frontmatter_parse(&back, first.ptr, first.size, "t",
					   "t.md") == 0,
		      "%s: %s", line, tm_error_last());
	ck_assert_ptr_nonnull(back->title);
	ck_assert_str_eq(back->title, value);
	tm_frontmatter_write(&second, back);
	ck_assert_uint_eq(second.size, first.size);
	ck_assert(!memcmp(second.ptr, first.ptr, first.size));
	free(got);
	tm_buf_release(&first);
	tm_buf_release(&second);
	tm_thread_free(t);
	tm_thread_free(back);
}

static void check_quoted(const char *value, const char *line)
{
	ck_assert_msg(!tm_yaml_plain_ok(value), "'%s' is plain", value);
	check_title(value, line);
}

static void check_plain(const char *value)
{
	tm_buf line = TM_BUF_INIT;

	ck_assert_msg(tm_yaml_plain_ok(value), "'%s' is not plain", value);
	tm_buf_printf(&line, "title: %s", value);
	check_title(value, line.ptr);
	tm_buf_release(&line);
}

START_TEST(test_yaml_quote_colon_space)
{
	check_quoted("Fix: login", "title: \"Fix: login\"");
	check_quoted("a: b: c", "title: \"a: b: c\"");
	check_plain("a:b");
}
END_TEST

START_TEST(test_yaml_quote_space_hash)
{
	check_quoted("Fix #12 login", "title: \"Fix #12 login\"");
	check_quoted("x # y", "title: \"x # y\"");
	check_plain("C#");
}
END_TEST

START_TEST(test_yaml_quote_leading_double_quote)
{
	check_quoted("\"quoted\" start", "title: \"\\\"quoted\\\" start\"");
	check_quoted("\"", "title: \"\\\"\"");
	check_plain("say \"hi\"");
}
END_TEST

START_TEST(test_yaml_quote_leading_single_quote)
{
	check_quoted("'single' start", "title: \"'single' start\"");
	check_quoted("'", "title: \"'\"");
	check_plain("it's fine");
}
END_TEST

START_TEST(test_yaml_quote_leading_dash)
{
	check_quoted("- dash", "title: \"- dash\"");
	check_quoted("---", "title: \"---\"");
	check_quoted("-", "title: \"-\"");
	check_plain("a -- b");
}
END_TEST

START_TEST(test_yaml_quote_dash_x)
{
	check_quoted("-x", "title: \"-x\"");
	check_quoted("-foo-bar", "title: \"-foo-bar\"");
	check_plain("x-");
}
END_TEST

START_TEST(test_yaml_quote_leading_hash)
{
	check_quoted("# heading", "title: \"# heading\"");
	check_quoted("#x", "title: \"#x\"");
}
END_TEST

START_TEST(test_yaml_quote_leading_question)
{
	check_quoted("?q", "title: \"?q\"");
	check_quoted("? q", "title: \"? q\"");
	check_plain("q?");
}
END_TEST

START_TEST(test_yaml_quote_leading_colon)
{
	check_quoted(":x", "title: \":x\"");
	check_quoted("::", "title: \"::\"");
}
END_TEST

START_TEST(test_yaml_quote_leading_comma)
{
	check_quoted(",comma", "title: \",comma\"");
	check_plain("a, b");
}
END_TEST

START_TEST(test_yaml_quote_leading_open_bracket)
{
	check_quoted("[draft] notes", "title: \"[draft] notes\"");
	check_plain("notes [draft]");
}
END_TEST

START_TEST(test_yaml_quote_leading_close_bracket)
{
	check_quoted("]x", "title: \"]x\"");
}
END_TEST

START_TEST(test_yaml_quote_leading_open_brace)
{
	check_quoted("{x}", "title: \"{x}\"");
	check_plain("a {x}");
}
END_TEST

START_TEST(test_yaml_quote_leading_close_brace)
{
	check_quoted("}x", "title: \"}x\"");
}
END_TEST

START_TEST(test_yaml_quote_leading_ampersand)
{
	check_quoted("&anchor", "title: \"&anchor\"");
	check_plain("R&D");
}
END_TEST

START_TEST(test_yaml_quote_leading_star)
{
	check_quoted("*star", "title: \"*star\"");
	check_plain("a*b");
}
END_TEST

START_TEST(test_yaml_quote_leading_bang)
{
	check_quoted("!tag", "title: \"!tag\"");
	check_plain("wow!");
}
END_TEST

START_TEST(test_yaml_quote_leading_pipe)
{
	check_quoted("|pipe", "title: \"|pipe\"");
	check_plain("a|b");
}
END_TEST

START_TEST(test_yaml_quote_leading_gt)
{
	check_quoted(">gt", "title: \">gt\"");
	check_plain("a > b");
}
END_TEST

START_TEST(test_yaml_quote_leading_percent)
{
	check_quoted("%pct", "title: \"%pct\"");
	check_plain("100%");
}
END_TEST

START_TEST(test_yaml_quote_leading_at)
{
	check_quoted("@at", "title: \"@at\"");
	check_plain("me@host");
}
END_TEST

START_TEST(test_yaml_quote_leading_backtick)
{
	check_quoted("`tick`", "title: \"`tick`\"");
	check_plain("a `b`");
}
END_TEST

START_TEST(test_yaml_quote_trailing_colon)
{
	check_quoted("ends with colon:", "title: \"ends with colon:\"");
	check_quoted("a:", "title: \"a:\"");
	check_plain("a:b");
}
END_TEST

START_TEST(test_yaml_quote_null)
{
	check_quoted("null", "title: \"null\"");
	check_quoted("Null", "title: \"Null\"");
	check_quoted("NULL", "title: \"NULL\"");
	check_quoted("~", "title: \"~\"");
	check_plain("nullable");
	check_plain("~x");
}
END_TEST

START_TEST(test_yaml_quote_bool)
{
	static const char *const words[] = {"true",  "True",  "TRUE",
					    "false", "False", "FALSE"};
	tm_buf line = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(*words); i++) {
		tm_buf_clear(&line);
		tm_buf_printf(&line, "title: \"%s\"", words[i]);
		check_quoted(words[i], line.ptr);
	}
	tm_buf_release(&line);
	check_plain("truthy");
}
END_TEST

START_TEST(test_yaml_quote_yaml11_bool)
{
	static const char *const words[] = {"yes", "Yes", "YES", "no",
					    "No",  "off", "On",  "ON",
					    "y",   "N",   "yEs", "oFF"};
	tm_buf line = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(*words); i++) {
		tm_buf_clear(&line);
		tm_buf_printf(&line, "title: \"%s\"", words[i]);
		check_quoted(words[i], line.ptr);
	}
	tm_buf_release(&line);
	check_plain("Yes/No");
	check_plain("nope");
}
END_TEST

START_TEST(test_yaml_quote_integer)
{
	check_quoted("2024", "title: \"2024\"");
	check_quoted("007", "title: \"007\"");
	check_quoted("+7", "title: \"+7\"");
	check_quoted("-12", "title: \"-12\"");
	check_quoted("0o17", "title: \"0o17\"");
	check_plain("2024a");
	check_plain("0o19");
	check_plain("v2");
}
END_TEST

START_TEST(test_yaml_quote_float)
{
	check_quoted("1.5", "title: \"1.5\"");
	check_quoted("1e3", "title: \"1e3\"");
	check_quoted("-2.5E-3", "title: \"-2.5E-3\"");
	check_quoted(".5", "title: \".5\"");
	check_quoted("1.", "title: \"1.\"");
	check_quoted("+1.0e+9", "title: \"+1.0e+9\"");
	check_plain("1.2.3");
	check_plain("1e");
	check_plain("e3");
}
END_TEST

START_TEST(test_yaml_quote_hex)
{
	check_quoted("0x1F", "title: \"0x1F\"");
	check_quoted("0xdeadBEEF", "title: \"0xdeadBEEF\"");
	check_plain("0x1G");
	check_plain("0x");
}
END_TEST

START_TEST(test_yaml_quote_inf_nan)
{
	check_quoted(".inf", "title: \".inf\"");
	check_quoted("-.Inf", "title: \"-.Inf\"");
	check_quoted("+.INF", "title: \"+.INF\"");
	check_quoted(".nan", "title: \".nan\"");
	check_quoted(".NaN", "title: \".NaN\"");
	check_plain(".info");
	check_plain("nan");
}
END_TEST

START_TEST(test_yaml_quote_leading_space)
{
	check_quoted(" padded", "title: \" padded\"");
	check_quoted("  two", "title: \"  two\"");
}
END_TEST

START_TEST(test_yaml_quote_trailing_space)
{
	check_quoted("padded ", "title: \"padded \"");
	check_quoted(" ", "title: \" \"");
	check_plain("in side");
}
END_TEST

START_TEST(test_yaml_quote_control_chars)
{
	check_quoted("tab\there", "title: \"tab\\there\"");
	check_quoted("line\nbreak", "title: \"line\\nbreak\"");
	check_quoted("cr\r", "title: \"cr\\r\"");
	check_quoted("bell\a", "title: \"bell\\u0007\"");
	check_quoted("del\x7f", "title: \"del\\u007f\"");
	check_quoted("c1 \xc2\x85 nel", "title: \"c1 \\u0085 nel\"");
	check_quoted("c1 \xc2\x9f", "title: \"c1 \\u009f\"");
	check_plain("nbsp\xc2\xa0inside");
}
END_TEST

START_TEST(test_yaml_quote_empty)
{
	check_quoted("", "title: \"\"");
}
END_TEST

/* Characters YAML cannot hold raw even in quotes, or reads as breaks. */
START_TEST(test_yaml_quote_yaml_only_escapes)
{
	check_quoted("a\xef\xbf\xbe", "title: \"a\\ufffe\"");
	check_quoted("\xef\xbf\xbf", "title: \"\\uffff\"");
	check_quoted("line\xe2\x80\xa8sep", "title: \"line\\u2028sep\"");
	check_quoted("a \xe2\x80\xa9 b", "title: \"a \\u2029 b\"");
	check_quoted("\xe2\x80\xa8\xe2\x80\xa8 x\xef\xbf\xbe",
		     "title: \"\\u2028\\u2028 x\\ufffe\"");
	/* their neighbours stay raw: U+2027, U+202A, U+FFFD */
	check_quoted("a: \xe2\x80\xa7\xe2\x80\xaa\xef\xbf\xbd",
		     "title: \"a: \xe2\x80\xa7\xe2\x80\xaa\xef\xbf\xbd\"");
}
END_TEST

START_TEST(test_yaml_plain_values)
{
	static const char *const plain[] = {
		"Auth UI",
		"a:b",
		"C#",
		"it's fine",
		"100%",
		"Yes/No",
		"v2",
		"2026-04-15",
		"back\\slash",
		"Cœur métier",
		"认证模块",
		"a -- b",
		"2026-04-15T10:00:00.000Z",
		"3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f",
		"feature/auth-ui",
		"...",
	};
	tm_buf out = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(plain) / sizeof(*plain); i++) {
		check_plain(plain[i]);
		tm_buf_clear(&out);
		tm_yaml_put_scalar(&out, plain[i]);
		ck_assert_str_eq(tm_buf_cstr(&out), plain[i]);
	}
	tm_buf_release(&out);
}
END_TEST

/* Decode a JSON string literal starting at *p (just past its quote). */
static char *json_string(const char **p)
{
	tm_buf out = TM_BUF_INIT;
	const char *s = *p;

	for (; *s && *s != '"'; s++) {
		if (*s != '\\') {
			tm_buf_putc(&out, *s);
			continue;
		}
		switch (*++s) {
		case 't':
			tm_buf_putc(&out, '\t');
			break;
		case 'n':
			tm_buf_putc(&out, '\n');
			break;
		case '"':
		case '\\':
		case '/':
			tm_buf_putc(&out, *s);
			break;
		default:
			ck_abort_msg("unexpected escape \\%c in quoting.jsonl",
				     *s);
		}
	}
	ck_assert_msg(*s == '"', "unterminated string in quoting.jsonl");
	*p = s + 1;
	return tm_buf_detach(&out);
}

/* The string value of "key" in a one-line JSON object. */
static char *json_field(const char *line, const char *key)
{
	tm_buf pat = TM_BUF_INIT;
	const char *p;

	tm_buf_printf(&pat, "\"%s\": \"", key);
	p = strstr(line, pat.ptr);
	ck_assert_msg(p != NULL, "no %s in %s", key, line);
	p += pat.size;
	tm_buf_release(&pat);
	return json_string(&p);
}

START_TEST(test_yaml_quoting_fixture)
{
	char *path = tmt_resource("quoting.jsonl");
	char *data = tmt_read_file(path, NULL);
	char *line = data, *nl, *value, *want;
	int n = 0;

	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		*nl = '\0';
		value = json_field(line, "value");
		want = json_field(line, "line");
		check_title(value, want);
		ck_assert(tm_yaml_plain_ok(value) == !strchr(want, '"'));
		free(value);
		free(want);
		n++;
	}
	ck_assert_int_eq(n, 49);
	free(data);
	free(path);
}
END_TEST

/* Read `text` as one entry that must parse. */
static void read_ok(tm_yaml_value *v, const char *text)
{
	ck_assert_msg(tm_yaml_read_entry(v, text, strlen(text), "k", "f.md", 2,
					 NULL) == 0,
		      "%s: %s", text, tm_error_last());
}

/* Read `text` as one entry that must fail with a message holding `what`. */
static void read_fails(const char *text, const char *what)
{
	tm_yaml_value v = TM_YAML_VALUE_INIT;

	ck_assert_int_eq(tm_yaml_read_entry(&v, text, strlen(text), "k", "f.md",
					    7, NULL),
			 TM_EPARSE);
	ck_assert_msg(strstr(tm_error_last(), what) != NULL, "'%s' not in '%s'",
		      what, tm_error_last());
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'f.md' line "));
	ck_assert_int_eq(v.kind, TM_YAML_NULL);
	ck_assert_ptr_null(v.str);
}

START_TEST(test_yaml_entry_scalars)
{
	tm_yaml_value v = TM_YAML_VALUE_INIT;

	read_ok(&v, "k: \"null\"\n");
	ck_assert_int_eq(v.kind, TM_YAML_STRING);
	ck_assert_str_eq(v.str, "null");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: 'it''s'\n");
	ck_assert_str_eq(v.str, "it's");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: \"tab\\there \\u00e9\"\n");
	ck_assert_str_eq(v.str, "tab\there é");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: |\n  one\n  two\n");
	ck_assert_str_eq(v.str, "one\ntwo\n");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: !!str null\n");
	ck_assert_int_eq(v.kind, TM_YAML_STRING);
	ck_assert_str_eq(v.str, "null");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: &a plain\n");
	ck_assert_str_eq(v.str, "plain");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: ''\n");
	ck_assert_int_eq(v.kind, TM_YAML_STRING);
	ck_assert_str_eq(v.str, "");
	tm_yaml_value_clear(&v);
	ck_assert_ptr_null(v.str);
}
END_TEST

START_TEST(test_yaml_entry_nulls)
{
	static const char *const nulls[] = {
		"k:\n",      "k: null\n",     "k: ~\n",         "k: NULL\n",
		"k: Null\n", "k: !!null x\n", "k:  # comment\n"};
	tm_yaml_value v = TM_YAML_VALUE_INIT;
	size_t i;

	for (i = 0; i < sizeof(nulls) / sizeof(*nulls); i++) {
		read_ok(&v, nulls[i]);
		ck_assert_msg(v.kind == TM_YAML_NULL, "%s", nulls[i]);
		ck_assert_ptr_null(v.str);
	}
}
END_TEST

START_TEST(test_yaml_entry_sequences)
{
	tm_yaml_value v = TM_YAML_VALUE_INIT;

	read_ok(&v, "k:\n  - src/auth\n  - \"lib\"\n");
	ck_assert_int_eq(v.kind, TM_YAML_LIST);
	ck_assert_uint_eq(v.items.n, 2);
	ck_assert_str_eq(v.items.items[0], "src/auth");
	ck_assert_str_eq(v.items.items[1], "lib");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: [1, true, null, ~, 'a b', \"c\"]\n");
	ck_assert_int_eq(v.kind, TM_YAML_LIST);
	ck_assert_uint_eq(v.items.n, 6);
	ck_assert_str_eq(v.items.items[0], "1");
	ck_assert_str_eq(v.items.items[1], "true");
	ck_assert_str_eq(v.items.items[2], "null");
	ck_assert_str_eq(v.items.items[3], "~");
	ck_assert_str_eq(v.items.items[4], "a b");
	ck_assert_str_eq(v.items.items[5], "c");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: []\n");
	ck_assert_int_eq(v.kind, TM_YAML_LIST);
	ck_assert_uint_eq(v.items.n, 0);
	tm_yaml_value_clear(&v);
	read_ok(&v, "k:\n- a\n- b\n");
	ck_assert_int_eq(v.kind, TM_YAML_LIST);
	ck_assert_uint_eq(v.items.n, 2);
	tm_yaml_value_clear(&v);
}
END_TEST

START_TEST(test_yaml_entry_collections)
{
	tm_yaml_value v = TM_YAML_VALUE_INIT;

	read_ok(&v, "k:\n  a: 1\n  b: [x, y]\n");
	ck_assert_int_eq(v.kind, TM_YAML_OTHER);
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: {a: 1}\n");
	ck_assert_int_eq(v.kind, TM_YAML_OTHER);
	tm_yaml_value_clear(&v);
	read_ok(&v, "k:\n  - a\n  - [b, c]\n");
	ck_assert_int_eq(v.kind, TM_YAML_OTHER);
	tm_yaml_value_clear(&v);
	read_ok(&v, "k:\n  - a\n  - {b: c}\n");
	ck_assert_int_eq(v.kind, TM_YAML_OTHER);
	tm_yaml_value_clear(&v);
}
END_TEST

START_TEST(test_yaml_entry_errors)
{
	read_fails("k: \"unterminated\n",
		   "'f.md' line 7: cannot read field 'k'");
	read_fails("k: *alias\n", "aliases are not supported");
	read_fails("k: [&a x, *a]\n", "aliases are not supported");
	read_fails("k: \"a\\0b\"\n", "NUL character");
	read_fails("k: [\"a\\0b\"]\n", "NUL character");
	read_fails("k: a\nj: b\n", "more than one key");
	read_fails("k: [a,\n  b,\n  c\n", "'f.md' line 9:");
	read_fails("k: x\n  y: z\n", "'f.md' line 8:");
	read_fails("- x\n", "not a 'key: value' entry");
}
END_TEST

START_TEST(test_yaml_entry_nesting_refused)
{
	/* issue 11, d8: libyaml's time grows with depth squared */
	tm_buf text = TM_BUF_INIT;
	tm_yaml_value v = TM_YAML_VALUE_INIT;
	size_t i;

	tm_buf_puts(&text, "k: ");
	for (i = 0; i < 100000; i++)
		tm_buf_putc(&text, i % 3 ? '[' : '{');
	tm_buf_putc(&text, '\n');
	read_fails(text.ptr, "'f.md' line 7: cannot read field 'k': lists or "
			     "mappings nested more than 2 deep");
	read_fails("k: [[[a]]]\n", "nested more than 2 deep");
	read_fails("k:\n  - a\n  - [b, {c: [d]}]\n",
		   "'f.md' line 9: cannot read field 'k': lists or mappings "
		   "nested");
	read_fails("k: [[\n  [\n", "line 8: cannot read field 'k': lists");
	/* refused on the raw text, before libyaml: libyaml alone would stop
	 * at the bad escape first */
	read_fails("k: [\"\\q\", [[a]]]\n", "nested more than 2 deep");
	/* what the raw check cannot see (tags), libyaml's events stop */
	read_fails("k: !!seq [ !!seq [ !!seq [ a ] ] ]\n",
		   "nested more than 2 deep");
	read_fails("k:\n  a:\n    b: [c]\n", "nested more than 2 deep");
	/* two levels are read (and refused later as not a list of strings);
	 * brackets in quotes, comments and plain text are no nesting */
	read_ok(&v, "k: [[a], {b: c}]\n");
	ck_assert_int_eq(v.kind, TM_YAML_OTHER);
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: ['[[[', \"{{{\\\"[[\", 'it''s [[[']\n");
	ck_assert_int_eq(v.kind, TM_YAML_LIST);
	ck_assert_str_eq(v.items.items[1], "{{{\"[[");
	ck_assert_str_eq(v.items.items[2], "it's [[[");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k:\n  - app/[slug]/[[...all]]/page.tsx # [[[\n  - b\n");
	ck_assert_int_eq(v.kind, TM_YAML_LIST);
	ck_assert_str_eq(v.items.items[0], "app/[slug]/[[...all]]/page.tsx");
	tm_yaml_value_clear(&v);
	read_ok(&v, "k: \"a [[[ b\"\n");
	ck_assert_str_eq(v.str, "a [[[ b");
	tm_yaml_value_clear(&v);
	tm_buf_release(&text);
}
END_TEST

Suite *yaml_suite(void)
{
	Suite *s = suite_create("yaml");
	TCase *tc;

	tc = tcase_create("quote");
	tcase_add_test(tc, test_yaml_quote_colon_space);
	tcase_add_test(tc, test_yaml_quote_space_hash);
	tcase_add_test(tc, test_yaml_quote_leading_double_quote);
	tcase_add_test(tc, test_yaml_quote_leading_single_quote);
	tcase_add_test(tc, test_yaml_quote_leading_dash);
	tcase_add_test(tc, test_yaml_quote_dash_x);
	tcase_add_test(tc, test_yaml_quote_leading_hash);
	tcase_add_test(tc, test_yaml_quote_leading_question);
	tcase_add_test(tc, test_yaml_quote_leading_colon);
	tcase_add_test(tc, test_yaml_quote_leading_comma);
	tcase_add_test(tc, test_yaml_quote_leading_open_bracket);
	tcase_add_test(tc, test_yaml_quote_leading_close_bracket);
	tcase_add_test(tc, test_yaml_quote_leading_open_brace);
	tcase_add_test(tc, test_yaml_quote_leading_close_brace);
	tcase_add_test(tc, test_yaml_quote_leading_ampersand);
	tcase_add_test(tc, test_yaml_quote_leading_star);
	tcase_add_test(tc, test_yaml_quote_leading_bang);
	tcase_add_test(tc, test_yaml_quote_leading_pipe);
	tcase_add_test(tc, test_yaml_quote_leading_gt);
	tcase_add_test(tc, test_yaml_quote_leading_percent);
	tcase_add_test(tc, test_yaml_quote_leading_at);
	tcase_add_test(tc, test_yaml_quote_leading_backtick);
	tcase_add_test(tc, test_yaml_quote_trailing_colon);
	tcase_add_test(tc, test_yaml_quote_null);
	tcase_add_test(tc, test_yaml_quote_bool);
	tcase_add_test(tc, test_yaml_quote_yaml11_bool);
	tcase_add_test(tc, test_yaml_quote_integer);
	tcase_add_test(tc, test_yaml_quote_float);
	tcase_add_test(tc, test_yaml_quote_hex);
	tcase_add_test(tc, test_yaml_quote_inf_nan);
	tcase_add_test(tc, test_yaml_quote_leading_space);
	tcase_add_test(tc, test_yaml_quote_trailing_space);
	tcase_add_test(tc, test_yaml_quote_control_chars);
	tcase_add_test(tc, test_yaml_quote_empty);
	tcase_add_test(tc, test_yaml_quote_yaml_only_escapes);
	suite_add_tcase(s, tc);

	tc = tcase_create("plain");
	tcase_add_test(tc, test_yaml_plain_values);
	tcase_add_test(tc, test_yaml_quoting_fixture);
	suite_add_tcase(s, tc);

	tc = tcase_create("entry");
	tcase_add_test(tc, test_yaml_entry_scalars);
	tcase_add_test(tc, test_yaml_entry_nulls);
	tcase_add_test(tc, test_yaml_entry_sequences);
	tcase_add_test(tc, test_yaml_entry_collections);
	tcase_add_test(tc, test_yaml_entry_errors);
	tcase_add_test(tc, test_yaml_entry_nesting_refused);
	suite_add_tcase(s, tc);
	return s;
}
