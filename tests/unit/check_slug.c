/* Unit tests of lib/format/slug.c: slugs, collisions, id validation,
 * resolution. */
#include "threadmind/slug.h"
#include "threadmind/buf.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* Assert the slug of `title` and that it is a valid id. */
static void check_slug(const char *title, tm_slug_kind kind, const char *want)
{
	char *slug = tm_slugify(title, kind);

	ck_assert_msg(strcmp(slug, want) == 0, "slug of '%s': '%s', want '%s'",
		      title, slug, want);
	ck_assert_msg(tm_id_validate(slug, "thread") == 0, "%s: %s", slug,
		      tm_error_last());
	free(slug);
}

START_TEST(test_slug_seed_mon_app)
{
	check_slug("Mon App", TM_SLUG_THREAD, "mon-app");
}
END_TEST

START_TEST(test_slug_seed_systeme_auth)
{
	check_slug("Système Auth v2", TM_SLUG_THREAD, "systeme-auth-v2");
}
END_TEST

START_TEST(test_slug_seed_api_rest)
{
	check_slug("API (REST)", TM_SLUG_THREAD, "api-rest");
}
END_TEST

START_TEST(test_slug_seed_espaces_symboles)
{
	check_slug("  Espaces & Symboles!! ", TM_SLUG_THREAD,
		   "espaces-symboles");
}
END_TEST

START_TEST(test_slug_seed_coeur_metier)
{
	check_slug("Cœur métier", TM_SLUG_THREAD, "coeur-metier");
}
END_TEST

START_TEST(test_slug_seed_chinese_falls_back)
{
	check_slug("认证模块", TM_SLUG_THREAD, "thread");
	check_slug("认证模块", TM_SLUG_PROJECT, "project");
}
END_TEST

/* UTF-8 encoding of a code point (tests only see valid ones). */
static void put_utf8(tm_buf *b, unsigned long cp)
{
	if (cp < 0x80) {
		tm_buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		tm_buf_putc(b, (char)(0xC0 | (cp >> 6)));
		tm_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		tm_buf_putc(b, (char)(0xE0 | (cp >> 12)));
		tm_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
		tm_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	} else {
		tm_buf_putc(b, (char)(0xF0 | (cp >> 18)));
		tm_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
		tm_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
		tm_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	}
}

static unsigned long hex4(const char *p)
{
	char digits[5];
	char *end;
	unsigned long v;

	memcpy(digits, p, 4);
	digits[4] = '\0';
	v = strtoul(digits, &end, 16);
	ck_assert_msg(*end == '\0' && strlen(digits) == 4, "bad \\u escape");
	return v;
}

/*
 * Parse the JSON string starting at *p (on its opening quote) into `out`
 * and move *p past its closing quote.
 */
static void parse_json_string(const char **p, tm_buf *out)
{
	const char *s = *p;

	ck_assert_msg(*s == '"', "expected a string at: %s", s);
	for (s++; *s != '"'; s++) {
		unsigned long cp, lo;

		ck_assert_msg(*s != '\0' && *s != '\n', "unterminated string");
		if (*s != '\\') {
			tm_buf_putc(out, *s);
			continue;
		}
		switch (*++s) {
		case '"':
		case '\\':
		case '/':
			tm_buf_putc(out, *s);
			break;
		case 'n':
			tm_buf_putc(out, '\n');
			break;
		case 't':
			tm_buf_putc(out, '\t');
			break;
		case 'r':
			tm_buf_putc(out, '\r');
			break;
		case 'b':
			tm_buf_putc(out, '\b');
			break;
		case 'f':
			tm_buf_putc(out, '\f');
			break;
		case 'u':
			cp = hex4(s + 1);
			s += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && s[1] == '\\' &&
			    s[2] == 'u') {
				lo = hex4(s + 3);
				ck_assert_msg(lo >= 0xDC00 && lo < 0xE000,
					      "lone surrogate");
				cp = 0x10000 + ((cp - 0xD800) << 10) +
				     (lo - 0xDC00);
				s += 6;
			}
			put_utf8(out, cp);
			break;
		default:
			ck_abort_msg("bad escape \\%c", *s);
		}
	}
	*p = s + 1;
}

static void skip_space(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

/*
 * One line {"title": "...", "slug": "..."} (keys in any order) into
 * `title` and `slug`.
 */
static void parse_line(const char *line, tm_buf *title, tm_buf *slug)
{
	const char *p = line;
	bool has_title = false, has_slug = false;

	skip_space(&p);
	ck_assert_msg(*p == '{', "not an object: %s", line);
	p++;
	for (;;) {
		tm_buf key = TM_BUF_INIT, value = TM_BUF_INIT;

		skip_space(&p);
		parse_json_string(&p, &key);
		skip_space(&p);
		ck_assert_msg(*p == ':', "expected ':' in %s", line);
		p++;
		skip_space(&p);
		parse_json_string(&p, &value);
		if (strcmp(tm_buf_cstr(&key), "title") == 0) {
			tm_buf_put(title, value.ptr, value.size);
			has_title = true;
		} else if (strcmp(tm_buf_cstr(&key), "slug") == 0) {
			tm_buf_put(slug, value.ptr, value.size);
			has_slug = true;
		}
		tm_buf_release(&key);
		tm_buf_release(&value);
		skip_space(&p);
		if (*p == '}')
			break;
		ck_assert_msg(*p == ',', "expected ',' in %s", line);
		p++;
	}
	ck_assert_msg(has_title && has_slug, "missing key in %s", line);
}

START_TEST(test_slug_resource_file)
{
	char *path = tmt_resource("slugs.jsonl");
	char *data = tmt_read_file(path, NULL);
	char *line, *next;
	int n = 0;

	for (line = data; *line; line = next) {
		tm_buf title = TM_BUF_INIT, want = TM_BUF_INIT;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (!*line)
			continue;
		parse_line(line, &title, &want);
		check_slug(tm_buf_cstr(&title), TM_SLUG_THREAD,
			   tm_buf_cstr(&want));
		tm_buf_release(&title);
		tm_buf_release(&want);
		n++;
	}
	ck_assert_int_eq(n, 20);
	free(data);
	free(path);
}
END_TEST

START_TEST(test_slug_whitespace_and_marks)
{
	static const struct {
		const char *title, *slug;
	} cases[] = {
		{"a\u00a0b", "a-b"},   /* no-break space */
		{"a\u3000b", "a-b"},   /* ideographic space */
		{"a\u2028b", "a-b"},   /* line separator */
		{"a\302\205b", "a-b"}, /* next line, U+0085 */
		{"a\r\n\v\fb", "a-b"},
		{"__a__b__", "a-b"},
		{"a - _ b", "a-b"},
		{"\u00c9COLE", "ecole"},       /* É */
		{"e\u0301t\u00e9", "ete"},     /* e + combining acute, é */
		{"\uff21\uff22\uff11", "ab1"}, /* full width */
		{"\u0152uvre \u0152IL \u1e9e", "oeuvre-oeil-ss"},
		{"\u00d8RE \u01fe", "ore-o"},  /* Ø, Ǿ (Ø + acute) */
		{"\u0130stanbul", "istanbul"}, /* İ */
		{"x\u00b2", "x2"},             /* superscript two */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_slug(cases[i].title, TM_SLUG_THREAD, cases[i].slug);
	check_slug("", TM_SLUG_PROJECT, "project");
	check_slug(NULL, TM_SLUG_THREAD, "thread");
}
END_TEST

START_TEST(test_slug_invalid_utf8_dropped)
{
	check_slug("caf\xc3", TM_SLUG_THREAD, "caf");
	check_slug("a\xff\xfe"
		   "b",
		   TM_SLUG_THREAD, "ab");
	check_slug("\xc3\xa9\x80\x80z", TM_SLUG_THREAD, "ez");
	check_slug("\xed\xa0\x80x", TM_SLUG_THREAD, "x"); /* a surrogate */
	check_slug("\xc0\xafok", TM_SLUG_THREAD, "ok");   /* overlong '/' */
	check_slug("\xf8\x88\x80\x80\x80", TM_SLUG_THREAD, "thread");
}
END_TEST

START_TEST(test_slug_long_titles_cut)
{
	tm_buf title = TM_BUF_INIT;
	char *slug;
	int i;

	for (i = 0; i < 20000; i++)
		tm_buf_puts(&title, "word ");
	slug = tm_slugify(tm_buf_cstr(&title), TM_SLUG_THREAD);
	ck_assert_uint_le(strlen(slug), TM_SLUG_MAX);
	ck_assert_str_eq(slug, "word-word-word-word-word-word-word-word-word-"
			       "word-word-word-word");
	free(slug);
	tm_buf_release(&title);

	/* accented letters count once their marks are gone */
	for (i = 0; i < 70; i++)
		tm_buf_puts(&title, "é");
	slug = tm_slugify(tm_buf_cstr(&title), TM_SLUG_THREAD);
	ck_assert_uint_eq(strlen(slug), TM_SLUG_MAX);
	ck_assert_int_eq(strspn(slug, "e"), TM_SLUG_MAX);
	free(slug);
	tm_buf_release(&title);
}
END_TEST

START_TEST(test_slug_fallback_helper)
{
	char *s = tm_slugify_or("认证", "user");

	ck_assert_str_eq(s, "user");
	free(s);
	s = tm_slugify_or("!!", NULL);
	ck_assert_str_eq(s, "");
	free(s);
	s = tm_slugify_or("Ada Lovelace", "user");
	ck_assert_str_eq(s, "ada-lovelace");
	free(s);
}
END_TEST

/* A taken-set for tm_slug_unique: a NULL-terminated list of ids. */
static int in_list(const char *id, void *payload)
{
	const char **list = payload;

	for (; *list; list++)
		if (strcmp(*list, id) == 0)
			return 1;
	return 0;
}

START_TEST(test_slug_unique_suffixes)
{
	const char *none[] = {NULL};
	const char *one[] = {"auth", NULL};
	const char *two[] = {"auth-2", "auth", NULL};
	const char *main_taken[] = {"main", NULL};
	char *id, *slug;

	ck_assert_int_eq(tm_slug_unique(&id, "auth", in_list, none), 0);
	ck_assert_str_eq(id, "auth");
	free(id);
	ck_assert_int_eq(tm_slug_unique(&id, "auth", in_list, one), 0);
	ck_assert_str_eq(id, "auth-2");
	free(id);
	ck_assert_int_eq(tm_slug_unique(&id, "auth", in_list, two), 0);
	ck_assert_str_eq(id, "auth-3");
	free(id);
	ck_assert_int_eq(tm_slug_unique(&id, "auth", NULL, NULL), 0);
	ck_assert_str_eq(id, "auth");
	free(id);

	/* the root thread "main" is taken: a thread titled "Main" */
	slug = tm_slugify("Main", TM_SLUG_THREAD);
	ck_assert_int_eq(tm_slug_unique(&id, slug, in_list, main_taken), 0);
	ck_assert_str_eq(id, "main-2");
	ck_assert_int_eq(tm_id_validate(id, "thread"), 0);
	free(id);
	free(slug);
}
END_TEST

/*
 * A taken-set for tm_slug_unique: every candidate whose suffix is below
 * *payload (the bare base counts as 1).  Also checks each candidate's
 * length.
 */
static int taken_below(const char *id, void *payload)
{
	const int *limit = payload;
	const char *dash = strrchr(id, '-');
	long n = dash ? strtol(dash + 1, NULL, 10) : 1;

	ck_assert_uint_le(strlen(id), TM_SLUG_MAX);
	return n < *limit;
}

START_TEST(test_slug_unique_shortens_base)
{
	char base[TM_SLUG_MAX + 1];
	int limit = 12;
	const char *first[] = {base, NULL};
	char *id;

	memset(base, 'a', TM_SLUG_MAX);
	base[TM_SLUG_MAX] = '\0';
	ck_assert_int_eq(tm_slug_unique(&id, base, in_list, first), 0);
	ck_assert_uint_eq(strlen(id), TM_SLUG_MAX);
	ck_assert_int_eq(strncmp(id, base, TM_SLUG_MAX - 2), 0);
	ck_assert_str_eq(id + TM_SLUG_MAX - 2, "-2");
	free(id);

	/* the cut lands just after a dash: no "--" */
	memset(base, 'b', TM_SLUG_MAX);
	base[TM_SLUG_MAX - 3] = '-';
	ck_assert_int_eq(tm_slug_unique(&id, base, in_list, first), 0);
	ck_assert_ptr_null(strstr(id, "--"));
	ck_assert_uint_le(strlen(id), TM_SLUG_MAX);
	/* 61 letters (the dash at 61 trimmed) and "-2" */
	ck_assert_uint_eq(strlen(id), TM_SLUG_MAX - 3 + 2);
	ck_assert_str_eq(id + strlen(id) - 3, "b-2");
	ck_assert_int_eq(tm_id_validate(id, "thread"), 0);
	free(id);

	/* a longer suffix shortens the base further */
	memset(base, 'c', TM_SLUG_MAX);
	ck_assert_int_eq(tm_slug_unique(&id, base, taken_below, &limit), 0);
	ck_assert_uint_eq(strlen(id), TM_SLUG_MAX);
	ck_assert_str_eq(id + TM_SLUG_MAX - 4, "c-12");
	free(id);

	/* a base past the limit is cut even when free */
	{
		char longer[TM_SLUG_MAX + 11];

		memset(longer, 'd', sizeof(longer) - 1);
		longer[sizeof(longer) - 1] = '\0';
		ck_assert_int_eq(tm_slug_unique(&id, longer, NULL, NULL), 0);
		ck_assert_uint_eq(strlen(id), TM_SLUG_MAX);
		free(id);
	}
}
END_TEST

/* Everything is taken: counts the calls in *payload. */
static int all_taken(const char *id, void *payload)
{
	(void)id;
	(*(long *)payload)++;
	return 1;
}

/* A listing error on the third candidate. */
static int fails_third(const char *id, void *payload)
{
	(void)id;
	if (++*(long *)payload == 3)
		return tm_error_set(TM_EINVALID, "cannot list 'x'");
	return 1;
}

START_TEST(test_slug_unique_bounded)
{
	char *id = NULL;
	long calls = 0;

	ck_assert_int_eq(tm_slug_unique(&id, "auth", all_taken, &calls),
			 TM_EEXISTS);
	ck_assert_ptr_null(id);
	ck_assert_int_eq(calls, TM_SLUG_MAX_TRIES);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'auth'"));
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'auth-10000'"));

	calls = 0;
	ck_assert_int_eq(tm_slug_unique(&id, "auth", fails_third, &calls),
			 TM_EINVALID);
	ck_assert_ptr_null(id);
	ck_assert_int_eq(calls, 3);
	ck_assert_str_eq(tm_error_last(), "cannot list 'x'");
}
END_TEST

START_TEST(test_slug_validate_refuses)
{
	static const char *bad[] = {"../x", "Foo", "a/b",  "..",  "",     "a b",
				    "é",    "a_b", "a.md", "-\n", "x\x01"};
	char long_id[TM_ID_MAX + 2];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tm_error_clear();
		ck_assert_msg(tm_id_validate(bad[i], "thread") == TM_EINVALID,
			      "accepted '%s'", bad[i]);
		ck_assert_int_eq(tm_error_last_code(), TM_EINVALID);
		ck_assert_ptr_null(strchr(tm_error_last(), '\n'));
	}
	ck_assert_int_eq(tm_id_validate(NULL, "project"), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "project"));

	ck_assert_int_eq(tm_id_validate("../x", "thread"), TM_EINVALID);
	ck_assert_str_eq(tm_error_last(),
			 "invalid thread id '../x': ids are lower-case "
			 "letters, digits and dashes");

	memset(long_id, 'a', TM_ID_MAX + 1);
	long_id[TM_ID_MAX + 1] = '\0';
	ck_assert_uint_eq(strlen(long_id), 253);
	ck_assert_int_eq(tm_id_validate(long_id, "project"), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "252"));
	/* the message stays short */
	ck_assert_uint_lt(strlen(tm_error_last()), 200);
}
END_TEST

START_TEST(test_slug_validate_accepts)
{
	char long_id[TM_ID_MAX + 1];

	ck_assert_int_eq(tm_id_validate("a", "thread"), 0);
	ck_assert_int_eq(tm_id_validate("auth-ui", "thread"), 0);
	ck_assert_int_eq(tm_id_validate("main-2", NULL), 0);
	ck_assert_int_eq(tm_id_validate("0", "project"), 0);
	memset(long_id, 'z', TM_ID_MAX);
	long_id[TM_ID_MAX] = '\0';
	ck_assert_uint_eq(strlen(long_id), 252);
	ck_assert_int_eq(tm_id_validate(long_id, "thread"), 0);
}
END_TEST

static void fill(tm_strv *v, const char **ids)
{
	for (; *ids; ids++)
		tm_strv_push(v, *ids);
}

START_TEST(test_slug_resolve_exact_and_prefix)
{
	const char *list[] = {"main", "auth-ui", "auth", "billing", NULL};
	tm_strv ids = TM_STRV_INIT;
	char *id = NULL;

	fill(&ids, list);
	ck_assert_int_eq(tm_id_resolve(&id, "auth", &ids, "thread"), 0);
	ck_assert_str_eq(id, "auth");
	free(id);
	ck_assert_int_eq(tm_id_resolve(&id, "auth-", &ids, "thread"), 0);
	ck_assert_str_eq(id, "auth-ui");
	free(id);
	ck_assert_int_eq(tm_id_resolve(&id, "b", &ids, "thread"), 0);
	ck_assert_str_eq(id, "billing");
	free(id);
	ck_assert_int_eq(tm_id_resolve(&id, "main", &ids, NULL), 0);
	ck_assert_str_eq(id, "main");
	free(id);
	tm_strv_clear(&ids);
}
END_TEST

START_TEST(test_slug_resolve_ambiguous)
{
	const char *list[] = {"auth-ui", "billing", "auth", "api", NULL};
	tm_strv ids = TM_STRV_INIT;
	char *id = NULL;

	fill(&ids, list);
	ck_assert_int_eq(tm_id_resolve(&id, "a", &ids, "thread"),
			 TM_EAMBIGUOUS);
	ck_assert_ptr_null(id);
	ck_assert_str_eq(tm_error_last(), "'a' is ambiguous: api, auth, "
					  "auth-ui (give more characters)");
	ck_assert_int_eq(tm_id_resolve(&id, "au", &ids, "thread"),
			 TM_EAMBIGUOUS);
	ck_assert_str_eq(tm_error_last(), "'au' is ambiguous: auth, auth-ui "
					  "(give more characters)");
	ck_assert_ptr_null(id);

	/* an id listed twice is still one candidate */
	tm_strv_push(&ids, "billing");
	ck_assert_int_eq(tm_id_resolve(&id, "bil", &ids, "thread"), 0);
	ck_assert_str_eq(id, "billing");
	free(id);
	tm_strv_clear(&ids);
}
END_TEST

START_TEST(test_slug_resolve_not_found)
{
	const char *list[] = {"auth", "billing", NULL};
	tm_strv ids = TM_STRV_INIT;
	char *id = NULL;

	fill(&ids, list);
	ck_assert_int_eq(tm_id_resolve(&id, "x", &ids, "thread"), TM_ENOTFOUND);
	ck_assert_str_eq(tm_error_last(), "no thread matches 'x'");
	ck_assert_int_eq(tm_id_resolve(&id, "authx", &ids, "project"),
			 TM_ENOTFOUND);
	ck_assert_str_eq(tm_error_last(), "no project matches 'authx'");
	ck_assert_int_eq(tm_id_resolve(&id, "", &ids, "thread"), TM_ENOTFOUND);
	ck_assert_int_eq(tm_id_resolve(&id, "Auth", &ids, "thread"),
			 TM_ENOTFOUND);
	ck_assert_int_eq(tm_id_resolve(&id, "a", NULL, "thread"), TM_ENOTFOUND);
	ck_assert_int_eq(tm_id_resolve(&id, "a\nb", &ids, "thread"),
			 TM_ENOTFOUND);
	ck_assert_str_eq(tm_error_last(), "no thread matches 'a?b'");
	ck_assert_ptr_null(id);
	tm_strv_clear(&ids);
}
END_TEST

Suite *slug_suite(void)
{
	Suite *s = suite_create("slug");
	TCase *tc = tcase_create("seed");

	tcase_add_test(tc, test_slug_seed_mon_app);
	tcase_add_test(tc, test_slug_seed_systeme_auth);
	tcase_add_test(tc, test_slug_seed_api_rest);
	tcase_add_test(tc, test_slug_seed_espaces_symboles);
	tcase_add_test(tc, test_slug_seed_coeur_metier);
	tcase_add_test(tc, test_slug_seed_chinese_falls_back);
	tcase_add_test(tc, test_slug_resource_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("slugify");
	tcase_add_test(tc, test_slug_whitespace_and_marks);
	tcase_add_test(tc, test_slug_invalid_utf8_dropped);
	tcase_add_test(tc, test_slug_long_titles_cut);
	tcase_add_test(tc, test_slug_fallback_helper);
	suite_add_tcase(s, tc);
	tc = tcase_create("unique");
	tcase_add_test(tc, test_slug_unique_suffixes);
	tcase_add_test(tc, test_slug_unique_shortens_base);
	tcase_add_test(tc, test_slug_unique_bounded);
	suite_add_tcase(s, tc);
	tc = tcase_create("validate");
	tcase_add_test(tc, test_slug_validate_refuses);
	tcase_add_test(tc, test_slug_validate_accepts);
	suite_add_tcase(s, tc);
	tc = tcase_create("resolve");
	tcase_add_test(tc, test_slug_resolve_exact_and_prefix);
	tcase_add_test(tc, test_slug_resolve_ambiguous);
	tcase_add_test(tc, test_slug_resolve_not_found);
	suite_add_tcase(s, tc);
	return s;
}
