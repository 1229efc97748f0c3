/*
 * Unit tests of lib/format/json.c: JSON.stringify's exact output and located
 * parse errors.
 */
#include "threadmind/json.h"
#include "json_cjson.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Parse `json` (must succeed) and return it stringified (malloc'd). */
static char *restringify(const char *json, bool pretty)
{
	tm_buf b = TM_BUF_INIT;
	cJSON *v = NULL;

	ck_assert_msg(tm_json_parse(&v, json, strlen(json), "t.json") == 0,
		      "%s", tm_error_last());
	if (pretty)
		tm_json_stringify(&b, v);
	else
		tm_json_stringify_compact(&b, v);
	cJSON_Delete(v);
	return tm_buf_detach(&b);
}

static void assert_restringify(const char *json, const char *want)
{
	char *got = restringify(json, true);

	ck_assert_str_eq(got, want);
	free(got);
}

static char *number_text(double d)
{
	tm_buf b = TM_BUF_INIT;

	tm_json_put_number(&b, d);
	return tm_buf_detach(&b);
}

/* Stringify */

START_TEST(test_json_stringify_nested)
{
	assert_restringify("{\"a\":[1,{\"b\":[],\"c\":{}},[[]]],\"\":{},"
			   "\"d\":\"x\"}",
			   "{\n"
			   "  \"a\": [\n"
			   "    1,\n"
			   "    {\n"
			   "      \"b\": [],\n"
			   "      \"c\": {}\n"
			   "    },\n"
			   "    [\n"
			   "      []\n"
			   "    ]\n"
			   "  ],\n"
			   "  \"\": {},\n"
			   "  \"d\": \"x\"\n"
			   "}");
}
END_TEST

START_TEST(test_json_stringify_empty_top)
{
	assert_restringify("  { } ", "{}");
	assert_restringify("[\n]", "[]");
	assert_restringify("[{}]", "[\n  {}\n]");
	assert_restringify("\"s\"", "\"s\"");
}
END_TEST

START_TEST(test_json_stringify_literals)
{
	assert_restringify("[true,false,null]",
			   "[\n  true,\n  false,\n  null\n]");
	assert_restringify("{\"t\":true,\"n\":null}",
			   "{\n  \"t\": true,\n  \"n\": null\n}");
}
END_TEST

START_TEST(test_json_stringify_key_order_kept)
{
	assert_restringify("{\"z\":1,\"a\":2,\"m\":{\"y\":3,\"b\":4}}",
			   "{\n  \"z\": 1,\n  \"a\": 2,\n  \"m\": {\n"
			   "    \"y\": 3,\n    \"b\": 4\n  }\n}");
}
END_TEST

START_TEST(test_json_stringify_compact)
{
	char *got = restringify("{ \"a\" : [ 1 , { } , [ ] , \"x y\" ] ,"
				" \"b\" : { \"c\" : null } }",
				false);

	ck_assert_str_eq(got, "{\"a\":[1,{},[],\"x y\"],\"b\":{\"c\":null}}");
	free(got);
}
END_TEST

START_TEST(test_json_stringify_escapes)
{
	/* every escape JSON.stringify writes, and what it leaves raw */
	static const char in[] = "q\"b\\\b\f\n\r\t\x01\x1f/\x7f\xc2\x85"
				 "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
				 "\xe2\x80\xa8";
	static const char want[] = "\"q\\\"b\\\\\\b\\f\\n\\r\\t\\u0001\\u001f/"
				   "\x7f\xc2\x85\xc3\xa9\xe2\x82\xac"
				   "\xf0\x9f\x98\x80\xe2\x80\xa8\"";
	tm_buf b = TM_BUF_INIT;
	cJSON *v = cJSON_CreateString(in);

	tm_json_put_string_js(&b, in, strlen(in));
	ck_assert_str_eq(tm_buf_cstr(&b), want);
	tm_buf_clear(&b);
	tm_json_stringify(&b, v);
	ck_assert_str_eq(tm_buf_cstr(&b), want);
	tm_buf_clear(&b);
	/* an embedded NUL byte */
	tm_json_put_string_js(&b, "a\0b", 3);
	ck_assert_str_eq(tm_buf_cstr(&b), "\"a\\u0000b\"");
	cJSON_Delete(v);
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_json_string_yaml_mode_escapes_more)
{
	tm_buf b = TM_BUF_INIT;

	tm_json_put_string(&b,
			   "a\x7f"
			   "b\xc2\x85"
			   "c\xc2\xa0\t",
			   9);
	ck_assert_str_eq(tm_buf_cstr(&b), "\"a\\u007fb\\u0085c\xc2\xa0\\t\"");
	tm_buf_clear(&b);
	tm_json_put_string_js(&b,
			      "a\x7f"
			      "b\xc2\x85"
			      "c\xc2\xa0\t",
			      9);
	ck_assert_str_eq(tm_buf_cstr(&b), "\"a\x7f"
					  "b\xc2\x85"
					  "c\xc2\xa0\\t\"");
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_json_stringify_keys_escaped)
{
	assert_restringify("{\"a\\\"b\\n\":1,\"\\u00e9\":2}",
			   "{\n  \"a\\\"b\\n\": 1,\n  \"\xc3\xa9\": 2\n}");
}
END_TEST

/* What JavaScript's JSON.stringify prints for each number. */
static const struct {
	double v;
	const char *js;
} numbers[] = {
	{0.0, "0"},
	{-0.0, "0"},
	{1150, "1150"},
	{48200, "48200"},
	{-7, "-7"},
	{1.5, "1.5"},
	{-1.5, "-1.5"},
	{0.1, "0.1"},
	{0.1 + 0.2, "0.30000000000000004"},
	{1e21, "1e+21"},
	{1e20, "100000000000000000000"},
	{9.999999999999999e20, "999999999999999900000"},
	{1e-6, "0.000001"},
	{1e-7, "1e-7"},
	{1.5e-7, "1.5e-7"},
	{123e-20, "1.23e-18"},
	{123456789012.0, "123456789012"},
	{9007199254740992.0, "9007199254740992"},
	{1152921504606846976.0, "1152921504606847000"},
	{1.7976931348623157e308, "1.7976931348623157e+308"},
	{-1.7976931348623157e308, "-1.7976931348623157e+308"},
	{5e-324, "5e-324"},
	{2.2250738585072014e-308, "2.2250738585072014e-308"},
	{1e23, "1e+23"},
	{3.14159, "3.14159"},
};

START_TEST(test_json_number_like_javascript)
{
	char *got = number_text(numbers[_i].v);

	ck_assert_str_eq(got, numbers[_i].js);
	free(got);
}
END_TEST

START_TEST(test_json_number_closest_of_shortest)
{
	/*
	 * At 2^-1017 the correctly rounded 16 digits (...044) do not read
	 * back, but the other neighbour does: JavaScript prints that one.
	 */
	char *got = number_text(ldexp(1, -1017));

	ck_assert_str_eq(got, "7.120236347223045e-307");
	free(got);
	got = number_text(ldexp(1, -1007));
	ck_assert_str_eq(got, "7.291122019556398e-304");
	free(got);
}
END_TEST

START_TEST(test_json_number_not_finite)
{
	char *got = number_text(INFINITY);

	ck_assert_str_eq(got, "null");
	free(got);
	got = number_text(NAN);
	ck_assert_str_eq(got, "null");
	free(got);
	/* 1e400 parses as infinity: written as JSON.stringify would */
	got = restringify("[1e400, 2.50]", false);
	ck_assert_str_eq(got, "[null,2.5]");
	free(got);
}
END_TEST

START_TEST(test_json_number_in_tree)
{
	tm_buf b = TM_BUF_INIT;
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, cJSON_CreateNumber(-0.0));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(1152921504606846976.0));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(1e-7));
	tm_json_stringify_compact(&b, a);
	ck_assert_str_eq(tm_buf_cstr(&b), "[0,1152921504606847000,1e-7]");
	cJSON_Delete(a);
	tm_buf_release(&b);
}
END_TEST

/* Parse errors */

static void assert_parse_error(const char *json, size_t len, const char *msg)
{
	cJSON *v = (cJSON *)&v; /* must stay untouched */

	ck_assert_int_eq(tm_json_parse(&v, json, len, "dir/x.json"), TM_EPARSE);
	ck_assert_ptr_eq(v, (cJSON *)&v);
	ck_assert_str_eq(tm_error_last(), msg);
}

#define NOT_VALID(pos)                                                       \
	"'dir/x.json' is not valid JSON (" pos "): fix it or delete it; it " \
	"was not modified"

START_TEST(test_json_parse_truncated)
{
	const char *s = "{\n  \"a\": 1,\n  \"b\": [1, 2";

	/* the end of the input: one past the last character of line 3 */
	assert_parse_error(s, strlen(s), NOT_VALID("line 3, column 13"));
	assert_parse_error("{\"a\": \"b", 8, NOT_VALID("line 1, column 9"));
}
END_TEST

START_TEST(test_json_parse_trailing_comma)
{
	const char *s = "{\"a\": [1, 2,]}";

	assert_parse_error(s, strlen(s), NOT_VALID("line 1, column 13"));
	s = "{\n  \"a\": 1,\n}\n";
	assert_parse_error(s, strlen(s), NOT_VALID("line 3, column 1"));
}
END_TEST

START_TEST(test_json_parse_junk_after_value)
{
	const char *s = "{\"a\": 1}\n\n  x\n";

	assert_parse_error(s, strlen(s), NOT_VALID("line 3, column 3"));
	/* a NUL byte is junk too */
	assert_parse_error("[1] \0", 5, NOT_VALID("line 1, column 5"));
}
END_TEST

START_TEST(test_json_parse_empty)
{
	assert_parse_error("", 0, NOT_VALID("line 1, column 1"));
	assert_parse_error(NULL, 0, NOT_VALID("line 1, column 1"));
	assert_parse_error(" \n ", 3, NOT_VALID("line 2, column 2"));
}
END_TEST

START_TEST(test_json_parse_column_counts_characters)
{
	/* "é€" is 5 bytes but 2 characters; CRLF ends line 1 */
	const char *s = "{\"\xc3\xa9\xe2\x82\xac\": tru}";

	/* "tru" could go on: the '}' is the first character that cannot */
	assert_parse_error(s, strlen(s), NOT_VALID("line 1, column 11"));
	s = "{\r\n\"a\": x}";
	assert_parse_error(s, strlen(s), NOT_VALID("line 2, column 6"));
}
END_TEST

START_TEST(test_json_parse_strict)
{
	/* what cJSON alone would accept, or locate one byte too far */
	assert_parse_error("[01]", 4, NOT_VALID("line 1, column 3"));
	assert_parse_error("[1.]", 4, NOT_VALID("line 1, column 4"));
	assert_parse_error("[-]", 3, NOT_VALID("line 1, column 3"));
	assert_parse_error("[1e+]", 5, NOT_VALID("line 1, column 5"));
	assert_parse_error("{\"a\": \"x\ty\"}", 12,
			   NOT_VALID("line 1, column 9"));
	assert_parse_error("[\"\\u12G4\"]", 10, NOT_VALID("line 1, column 7"));
	assert_parse_error("[\"\\x\"]", 6, NOT_VALID("line 1, column 4"));
	assert_parse_error("{\"a\": 1, x}", 11, NOT_VALID("line 1, column 10"));
	assert_parse_error("[True]", 6, NOT_VALID("line 1, column 2"));
}
END_TEST

START_TEST(test_json_parse_cjson_limits)
{
	static const char prefix[] = "'x' is not valid JSON (line 1, column ";
	tm_buf b = TM_BUF_INIT;
	cJSON *v = NULL;
	int i;

	/* valid JSON, but cJSON refuses a lone surrogate */
	ck_assert_int_eq(tm_json_parse(&v, "\"\\ud800\"", 8, "x"), TM_EPARSE);
	ck_assert_int_eq(strncmp(tm_error_last(), prefix, strlen(prefix)), 0);
	/* and nesting deeper than 1000 */
	for (i = 0; i < 1001; i++)
		tm_buf_putc(&b, '[');
	for (i = 0; i < 1001; i++)
		tm_buf_putc(&b, ']');
	ck_assert_int_eq(tm_json_parse(&v, b.ptr, b.size, "x"), TM_EPARSE);
	ck_assert_int_eq(strncmp(tm_error_last(), prefix, strlen(prefix)), 0);
	ck_assert_int_eq(tm_json_parse(&v, b.ptr + 1, b.size - 2, "x"), 0);
	cJSON_Delete(v);
	/* a byte order mark is skipped */
	ck_assert_int_eq(tm_json_parse(&v, "\xef\xbb\xbf{}", 5, "x"), 0);
	ck_assert(cJSON_IsObject(v));
	cJSON_Delete(v);
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_json_parse_bounded_by_length)
{
	cJSON *v = NULL;
	tm_buf b = TM_BUF_INIT;

	/* only the first `len` bytes count: no NUL needed after them */
	ck_assert_int_eq(tm_json_parse(&v, "[1, 2]xyz", 6, "x"), 0);
	tm_json_stringify_compact(&b, v);
	ck_assert_str_eq(tm_buf_cstr(&b), "[1,2]");
	cJSON_Delete(v);
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_json_parse_object)
{
	cJSON *v = (cJSON *)&v;

	ck_assert_int_eq(tm_json_parse_object(&v, "\n  [1, 2]\n", 10, "a.json"),
			 TM_EPARSE);
	ck_assert_ptr_eq(v, (cJSON *)&v);
	ck_assert_str_eq(tm_error_last(),
			 "'a.json' does not hold a JSON object (line 2, "
			 "column 3): fix it or delete it; it was not modified");
	/* located past a byte order mark */
	ck_assert_int_eq(tm_json_parse_object(&v, "\xef\xbb\xbf 1", 5, "b"),
			 TM_EPARSE);
	ck_assert_str_eq(tm_error_last(),
			 "'b' does not hold a JSON object (line 1, column 3): "
			 "fix it or delete it; it was not modified");
	/* a syntax error is reported as such */
	ck_assert_int_eq(tm_json_parse_object(&v, "{\n\"a\":}", 7, "cfg"),
			 TM_EPARSE);
	ck_assert_str_eq(
		tm_error_last(),
		"'cfg' is not valid JSON (line 2, column 5): fix it or "
		"delete it; it was not modified");
	ck_assert_int_eq(tm_json_parse_object(&v, " {\"a\": 1} ", 10, "c"), 0);
	ck_assert(cJSON_IsObject(v));
	cJSON_Delete(v);
}
END_TEST

/* Duplicate keys: JSON.parse's rule */

START_TEST(test_json_parse_duplicate_keys_last_wins)
{
	char *got;

	/* the last value, at the first one's place; the others dropped */
	got = restringify("{\"a\":1,\"b\":2,\"a\":3,\"c\":4,\"a\":5}", false);
	ck_assert_str_eq(got, "{\"a\":5,\"b\":2,\"c\":4}");
	free(got);
	/* nested objects, and a whole value replaced (not merged) */
	got = restringify("{\"x\":{\"k\":1,\"k\":2},\"o\":{\"p\":1},"
			  "\"o\":{\"q\":[{\"z\":1,\"z\":null}]}}",
			  false);
	ck_assert_str_eq(got, "{\"x\":{\"k\":2},\"o\":{\"q\":[{\"z\":null}]}}");
	free(got);
	/* keys are compared exactly: case and escapes */
	got = restringify("{\"A\":1,\"a\":2,\"\\u0061\":3}", false);
	ck_assert_str_eq(got, "{\"A\":1,\"a\":3}");
	free(got);
}
END_TEST

START_TEST(test_json_parse_many_duplicate_keys_fast)
{
	tm_buf in = TM_BUF_INIT;
	cJSON *v = NULL;
	int i;

	/* 100,000 members, half of them repeats: sorted once, not n^2 */
	tm_buf_puts(&in, "{");
	for (i = 0; i < 100000; i++)
		tm_buf_printf(&in, "%s\"k%d\":%d", i ? "," : "", i % 50000, i);
	tm_buf_puts(&in, "}");
	ck_assert_int_eq(tm_json_parse(&v, tm_buf_cstr(&in), in.size, "t"), 0);
	ck_assert_int_eq(cJSON_GetArraySize(v), 50000);
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(v, "k7")->valueint,
			 50007);
	cJSON_Delete(v);
	tm_buf_release(&in);
}
END_TEST

/* The writer */

/* A document written value by value is what stringify writes of it. */
START_TEST(test_json_writer_streams_the_stringify_layout)
{
	tm_buf piece = TM_BUF_INIT, all = TM_BUF_INIT;
	tm_json_writer w;
	char *want = restringify("{\"p\":\"x\",\"t\":[{\"a\":1},[],{},null,"
				 "true,\"s\"],\"e\":{}}",
				 true);

	tm_json_writer_init(&w, &piece, TM_JSON_PRETTY);
	tm_json_open(&w, '{');
	tm_json_key(&w, "p");
	tm_json_string(&w, "x");
	tm_json_key(&w, "t");
	tm_json_open(&w, '[');
	/* the caller takes the text out between values */
	tm_buf_put(&all, piece.ptr, piece.size);
	tm_buf_clear(&piece);
	tm_json_open(&w, '{');
	tm_json_key(&w, "a");
	tm_json_number(&w, 1);
	tm_json_close(&w, '}');
	tm_json_open(&w, '[');
	tm_json_close(&w, ']');
	tm_buf_put(&all, piece.ptr, piece.size);
	tm_buf_clear(&piece);
	tm_json_open(&w, '{');
	tm_json_close(&w, '}');
	tm_json_string(&w, NULL);
	tm_json_bool(&w, true);
	tm_json_raw(&w, "\"s\"");
	tm_json_close(&w, ']');
	tm_json_key(&w, "e");
	tm_json_open(&w, '{');
	tm_json_close(&w, '}');
	tm_json_close(&w, '}');
	tm_buf_put(&all, piece.ptr, piece.size);
	ck_assert_str_eq(tm_buf_cstr(&all), want);
	free(want);
	tm_buf_release(&piece);
	tm_buf_release(&all);
}
END_TEST

START_TEST(test_json_writer_compact_and_c1)
{
	tm_buf b = TM_BUF_INIT;
	tm_json_writer w;

	tm_json_writer_init(&w, &b, 0);
	tm_json_open(&w, '{');
	tm_json_key(&w, "k\x7f");
	tm_json_string(&w, "a\xc2\x85\n");
	tm_json_close(&w, '}');
	ck_assert_str_eq(tm_buf_cstr(&b), "{\"k\x7f\":\"a\xc2\x85\\n\"}");
	tm_buf_clear(&b);
	tm_json_writer_init(&w, &b, TM_JSON_ESCAPE_C1);
	tm_json_open(&w, '[');
	tm_json_string(&w, "k\x7f");
	tm_json_string(&w, "a\xc2\x85");
	tm_json_close(&w, ']');
	ck_assert_str_eq(tm_buf_cstr(&b), "[\"k\\u007f\",\"a\\u0085\"]");
	tm_buf_release(&b);
}
END_TEST

/* outdent takes levels off what is written while it is set, nothing else */
START_TEST(test_json_writer_outdent)
{
	tm_buf b = TM_BUF_INIT;
	tm_json_writer w;

	tm_json_writer_init(&w, &b, TM_JSON_PRETTY);
	tm_json_open(&w, '[');
	tm_json_open(&w, '[');
	w.outdent = 1;
	tm_json_number(&w, 1);
	w.outdent = 5; /* more than the depth: no indentation */
	tm_json_number(&w, 2);
	w.outdent = 0;
	tm_json_close(&w, ']');
	tm_json_close(&w, ']');
	ck_assert_str_eq(tm_buf_cstr(&b), "[\n  [\n  1,\n2\n  ]\n]");
	tm_buf_release(&b);
}
END_TEST

Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("stringify");

	tcase_add_test(tc, test_json_stringify_nested);
	tcase_add_test(tc, test_json_stringify_empty_top);
	tcase_add_test(tc, test_json_stringify_literals);
	tcase_add_test(tc, test_json_stringify_key_order_kept);
	tcase_add_test(tc, test_json_stringify_compact);
	tcase_add_test(tc, test_json_stringify_escapes);
	tcase_add_test(tc, test_json_string_yaml_mode_escapes_more);
	tcase_add_test(tc, test_json_stringify_keys_escaped);
	tcase_add_test(tc, test_json_writer_streams_the_stringify_layout);
	tcase_add_test(tc, test_json_writer_compact_and_c1);
	tcase_add_test(tc, test_json_writer_outdent);
	suite_add_tcase(s, tc);
	tc = tcase_create("numbers");
	tcase_add_loop_test(tc, test_json_number_like_javascript, 0,
			    sizeof(numbers) / sizeof(*numbers));
	tcase_add_test(tc, test_json_number_closest_of_shortest);
	tcase_add_test(tc, test_json_number_not_finite);
	tcase_add_test(tc, test_json_number_in_tree);
	suite_add_tcase(s, tc);
	tc = tcase_create("parse errors");
	tcase_add_test(tc, test_json_parse_truncated);
	tcase_add_test(tc, test_json_parse_trailing_comma);
	tcase_add_test(tc, test_json_parse_junk_after_value);
	tcase_add_test(tc, test_json_parse_empty);
	tcase_add_test(tc, test_json_parse_column_counts_characters);
	tcase_add_test(tc, test_json_parse_strict);
	tcase_add_test(tc, test_json_parse_cjson_limits);
	tcase_add_test(tc, test_json_parse_bounded_by_length);
	tcase_add_test(tc, test_json_parse_object);
	suite_add_tcase(s, tc);
	tc = tcase_create("duplicate keys");
	tcase_add_test(tc, test_json_parse_duplicate_keys_last_wins);
	tcase_add_test(tc, test_json_parse_many_duplicate_keys_fast);
	suite_add_tcase(s, tc);
	return s;
}
