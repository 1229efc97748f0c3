/*
 * Unit tests of lib/format/config.c: the config.json and project file models,
 * and their round trips through the JSON codec.
 */
#include "threadmind/config.h"
#include "json_cjson.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * The seed's config.json, byte for byte as the format spec shows it (not in
 * canonical layout: branchThreads["mon-app"] on one line).
 */
static const char seed_config[] =
	"{\n"
	"  \"activeProjectId\": \"mon-app\",\n"
	"  \"activeThreadId\": \"auth-ui\",\n"
	"  \"author\": \"mahmoud-a3f9\",\n"
	"  \"version\": 1,\n"
	"  \"branchThreads\": {\n"
	"    \"mon-app\": { \"main\": \"main\", \"feature/auth-ui\": "
	"\"auth-ui\" }\n"
	"  },\n"
	"  \"sessions\": [\n"
	"    {\n"
	"      \"sessionId\": \"b1f3\xe2\x80\xa6\",\n"
	"      \"projectId\": \"mon-app\",\n"
	"      \"startedAt\": \"2026-09-27T09:00:00.000Z\",\n"
	"      \"source\": \"clear\",\n"
	"      \"injectedTokens\": 1150,\n"
	"      \"endedAt\": \"2026-09-27T11:40:00.000Z\",\n"
	"      \"endReason\": \"clear\",\n"
	"      \"finalContextTokens\": 48200\n"
	"    }\n"
	"  ]\n"
	"}\n";

/* The same content as JSON.stringify(JSON.parse(seed), null, 2) + "\n". */
static const char seed_canonical[] =
	"{\n"
	"  \"activeProjectId\": \"mon-app\",\n"
	"  \"activeThreadId\": \"auth-ui\",\n"
	"  \"author\": \"mahmoud-a3f9\",\n"
	"  \"version\": 1,\n"
	"  \"branchThreads\": {\n"
	"    \"mon-app\": {\n"
	"      \"main\": \"main\",\n"
	"      \"feature/auth-ui\": \"auth-ui\"\n"
	"    }\n"
	"  },\n"
	"  \"sessions\": [\n"
	"    {\n"
	"      \"sessionId\": \"b1f3\xe2\x80\xa6\",\n"
	"      \"projectId\": \"mon-app\",\n"
	"      \"startedAt\": \"2026-09-27T09:00:00.000Z\",\n"
	"      \"source\": \"clear\",\n"
	"      \"injectedTokens\": 1150,\n"
	"      \"endedAt\": \"2026-09-27T11:40:00.000Z\",\n"
	"      \"endReason\": \"clear\",\n"
	"      \"finalContextTokens\": 48200\n"
	"    }\n"
	"  ]\n"
	"}\n";

static tm_config *config_of(const char *json)
{
	tm_config *c = NULL;

	ck_assert_msg(tm_config_parse(&c, json, strlen(json), "config.json") ==
			      0,
		      "%s", tm_error_last());
	return c;
}

static char *config_text(const tm_config *c)
{
	tm_buf b = TM_BUF_INIT;

	tm_config_write(&b, c);
	return tm_buf_detach(&b);
}

static void assert_config_text(const tm_config *c, const char *want)
{
	char *got = config_text(c);

	ck_assert_str_eq(got, want);
	free(got);
}

static char *project_text(const tm_project *p)
{
	tm_buf b = TM_BUF_INIT;

	tm_project_write(&b, p);
	return tm_buf_detach(&b);
}

/* Parse errors */

START_TEST(test_config_parse_not_object)
{
	tm_config *c = (tm_config *)&c;
	tm_project *p = (tm_project *)&p;

	ck_assert_int_eq(
		tm_config_parse(&c, "\n  [1, 2]\n", 10, "a/config.json"),
		TM_EPARSE);
	ck_assert_ptr_eq(c, (tm_config *)&c);
	ck_assert_str_eq(tm_error_last(),
			 "'a/config.json' does not hold a JSON object (line 2, "
			 "column 3): fix it or delete it; it was not modified");
	ck_assert_int_eq(tm_project_parse(&p, "\"x\"", 3, "projects/p.json"),
			 TM_EPARSE);
	ck_assert_ptr_eq(p, (tm_project *)&p);
	ck_assert_str_eq(tm_error_last(),
			 "'projects/p.json' does not hold a JSON object (line "
			 "1, column 1): fix it or delete it; it was not "
			 "modified");
	/* a syntax error is reported as such, with the given path */
	ck_assert_int_eq(tm_config_parse(&c, "{\n\"a\":}", 7, "cfg"),
			 TM_EPARSE);
	ck_assert_str_eq(
		tm_error_last(),
		"'cfg' is not valid JSON (line 2, column 5): fix it or "
		"delete it; it was not modified");
}
END_TEST

/* Round trips */

START_TEST(test_config_roundtrip_canonical_identical)
{
	tm_config *c = config_of(seed_canonical);

	assert_config_text(c, seed_canonical);
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_roundtrip_seed_canonicalised)
{
	tm_config *c = config_of(seed_config);
	cJSON *a = NULL, *b = NULL;
	char *text = config_text(c);

	ck_assert_str_eq(text, seed_canonical);
	/* same tree: every key, value and sessions element kept */
	ck_assert_int_eq(
		tm_json_parse(&a, seed_config, strlen(seed_config), "seed"), 0);
	ck_assert_int_eq(tm_json_parse(&b, text, strlen(text), "written"), 0);
	ck_assert(cJSON_Compare(a, b, 1));
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(b, "sessions")),
			 1);
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(text);
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_roundtrip_sessions_untouched_by_update)
{
	tm_config *c = config_of(seed_config);
	char *before = config_text(c), *after;

	tm_config_set_string(c, "activeThreadId", "main");
	ck_assert_int_eq(
		tm_config_set_branch_thread(c, "mon-app", "dev", "auth"), 0);
	after = config_text(c);
	ck_assert_str_ne(before, after);
	ck_assert_ptr_nonnull(strstr(after, "\"sessions\""));
	ck_assert_str_eq(strstr(after, "\"sessions\""),
			 strstr(before, "\"sessions\""));
	ck_assert_uint_eq(tm_config_session_count(c), 1);
	free(before);
	free(after);
	tm_config_free(c);
}
END_TEST

/* config.json */

START_TEST(test_config_defaults)
{
	tm_config *c = tm_config_new();

	assert_config_text(c, "{\n"
			      "  \"activeProjectId\": null,\n"
			      "  \"activeThreadId\": null,\n"
			      "  \"version\": 1,\n"
			      "  \"branchThreads\": {},\n"
			      "  \"sessions\": []\n"
			      "}\n");
	ck_assert_ptr_null(tm_config_get_string(c, "activeProjectId"));
	ck_assert_ptr_null(tm_config_get_string(c, "author"));
	ck_assert_int_eq(tm_config_version(c), 1);
	ck_assert_uint_eq(tm_config_session_count(c), 0);
	tm_config_free(c);
	tm_config_free(NULL);
}
END_TEST

START_TEST(test_config_getters)
{
	tm_config *c = config_of(seed_config);

	ck_assert_str_eq(tm_config_get_string(c, "activeProjectId"), "mon-app");
	ck_assert_str_eq(tm_config_get_string(c, "activeThreadId"), "auth-ui");
	ck_assert_str_eq(tm_config_get_string(c, "author"), "mahmoud-a3f9");
	ck_assert_ptr_null(tm_config_get_string(c, "version"));
	ck_assert_ptr_null(tm_config_get_string(c, "nope"));
	ck_assert_int_eq(tm_config_version(c), 1);
	ck_assert_uint_eq(tm_config_session_count(c), 1);
	ck_assert_str_eq(
		tm_config_branch_thread(c, "mon-app", "feature/auth-ui"),
		"auth-ui");
	ck_assert_str_eq(tm_config_branch_thread(c, "mon-app", "main"), "main");
	ck_assert_ptr_null(tm_config_branch_thread(c, "mon-app", "other"));
	ck_assert_ptr_null(tm_config_branch_thread(c, "other", "main"));
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_odd_types)
{
	tm_config *c = config_of("{\"activeThreadId\": 3, \"author\": null,"
				 " \"version\": \"1\", \"sessions\": {},"
				 " \"branchThreads\": {\"p\": {\"b\": 4}}}");

	ck_assert_ptr_null(tm_config_get_string(c, "activeThreadId"));
	ck_assert_ptr_null(tm_config_get_string(c, "author"));
	ck_assert_int_eq(tm_config_version(c), 0);
	ck_assert_uint_eq(tm_config_session_count(c), 0);
	ck_assert_ptr_null(tm_config_branch_thread(c, "p", "b"));
	tm_config_free(c);
	c = config_of("{\"version\": 1e12}");
	ck_assert_int_eq(tm_config_version(c), INT_MAX);
	ck_assert_uint_eq(tm_config_session_count(c), 0);
	tm_config_free(c);
	c = config_of("{\"version\": 2.9, \"sessions\": [{}, 1, []]}");
	ck_assert_int_eq(tm_config_version(c), 2);
	ck_assert_uint_eq(tm_config_session_count(c), 3);
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_set_keeps_position)
{
	tm_config *c = config_of("{\"a\": 1, \"activeThreadId\": 5, \"z\": [],"
				 " \"author\": \"x\"}");

	tm_config_set_string(c, "activeThreadId", "auth");
	tm_config_set_string(c, "author", NULL);
	assert_config_text(c, "{\n"
			      "  \"a\": 1,\n"
			      "  \"activeThreadId\": \"auth\",\n"
			      "  \"z\": [],\n"
			      "  \"author\": null\n"
			      "}\n");
	ck_assert_str_eq(tm_config_get_string(c, "activeThreadId"), "auth");
	ck_assert_ptr_null(tm_config_get_string(c, "author"));
	/* the first member too */
	tm_config_set_string(c, "a", "first");
	ck_assert_str_eq(tm_config_get_string(c, "a"), "first");
	/* setting a value from the tree itself */
	tm_config_set_string(c, "activeThreadId",
			     tm_config_get_string(c, "activeThreadId"));
	assert_config_text(c, "{\n"
			      "  \"a\": \"first\",\n"
			      "  \"activeThreadId\": \"auth\",\n"
			      "  \"z\": [],\n"
			      "  \"author\": null\n"
			      "}\n");
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_set_appends_new_keys)
{
	tm_config *c = tm_config_new();

	tm_config_set_string(c, "author", "mahmoud-a3f9");
	tm_config_set_string(c, "activeProjectId", "mon-app");
	tm_config_set_string(c, "extra", NULL);
	assert_config_text(c, "{\n"
			      "  \"activeProjectId\": \"mon-app\",\n"
			      "  \"activeThreadId\": null,\n"
			      "  \"version\": 1,\n"
			      "  \"branchThreads\": {},\n"
			      "  \"sessions\": [],\n"
			      "  \"author\": \"mahmoud-a3f9\",\n"
			      "  \"extra\": null\n"
			      "}\n");
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_unknown_keys_kept)
{
	static const char in[] = "{\n"
				 "  \"zeta\": {\n"
				 "    \"nested\": [\n"
				 "      1,\n"
				 "      {\n"
				 "        \"b\": true\n"
				 "      }\n"
				 "    ]\n"
				 "  },\n"
				 "  \"activeThreadId\": \"old\",\n"
				 "  \"alpha\": \"\xc3\xa9t\xc3\xa9\",\n"
				 "  \"n\": 0.5\n"
				 "}\n";
	tm_config *c = config_of(in);
	char *want = tm_xstrdup(in), *at;

	at = strstr(want, "\"old\"");
	memcpy(at, "\"new\"", 5);
	tm_config_set_string(c, "activeThreadId", "new");
	assert_config_text(c, want);
	free(want);
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_branch_threads_set)
{
	tm_config *c = tm_config_new();

	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "main", "main"),
			 0);
	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "feat/x", "x"), 0);
	ck_assert_int_eq(tm_config_set_branch_thread(c, "q", "main", "m"), 0);
	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "main", "y"), 0);
	ck_assert_str_eq(tm_config_branch_thread(c, "p", "main"), "y");
	ck_assert_str_eq(tm_config_branch_thread(c, "p", "feat/x"), "x");
	ck_assert_str_eq(tm_config_branch_thread(c, "q", "main"), "m");
	assert_config_text(c, "{\n"
			      "  \"activeProjectId\": null,\n"
			      "  \"activeThreadId\": null,\n"
			      "  \"version\": 1,\n"
			      "  \"branchThreads\": {\n"
			      "    \"p\": {\n"
			      "      \"main\": \"y\",\n"
			      "      \"feat/x\": \"x\"\n"
			      "    },\n"
			      "    \"q\": {\n"
			      "      \"main\": \"m\"\n"
			      "    }\n"
			      "  },\n"
			      "  \"sessions\": []\n"
			      "}\n");
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_branch_threads_created)
{
	tm_config *c = config_of("{\"x\": 1}");

	/* absent: created at the end */
	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "b", "t"), 0);
	assert_config_text(c, "{\n  \"x\": 1,\n  \"branchThreads\": {\n"
			      "    \"p\": {\n      \"b\": \"t\"\n    }\n"
			      "  }\n}\n");
	tm_config_free(c);
	/* null: replaced in place, at both levels */
	c = config_of("{\"branchThreads\": null, \"x\": 1}");
	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "b", "t"), 0);
	assert_config_text(c, "{\n  \"branchThreads\": {\n"
			      "    \"p\": {\n      \"b\": \"t\"\n    }\n"
			      "  },\n  \"x\": 1\n}\n");
	tm_config_free(c);
	c = config_of("{\"branchThreads\": {\"p\": null, \"q\": {}}}");
	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "b", "t"), 0);
	ck_assert_str_eq(tm_config_branch_thread(c, "p", "b"), "t");
	assert_config_text(c, "{\n  \"branchThreads\": {\n"
			      "    \"p\": {\n      \"b\": \"t\"\n    },\n"
			      "    \"q\": {}\n  }\n}\n");
	tm_config_free(c);
}
END_TEST

static char *branch_key(const char *name)
{
	tm_buf b = TM_BUF_INIT;

	tm_config_branch_key(&b, name);
	return tm_buf_detach(&b);
}

/* A branch name that is not UTF-8 never makes config.json invalid. */
START_TEST(test_config_branch_threads_not_utf8)
{
	tm_config *c = config_of("{}");
	char *k, *text;

	k = branch_key("feat-\xff\xfe");
	ck_assert_str_eq(k, "feat-\\xff\\xfe");
	free(k);
	/* valid UTF-8 as is; a cut sequence and an overlong form escaped */
	k = branch_key("caf\xc3\xa9/x\xc3-\xc0\xaf");
	ck_assert_str_eq(k, "caf\xc3\xa9/x\\xc3-\\xc0\\xaf");
	free(k);
	/* idempotent: the stored form is its own key */
	k = branch_key("feat-\\xff");
	ck_assert_str_eq(k, "feat-\\xff");
	free(k);

	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "a\x80", "t"), 0);
	ck_assert_str_eq(tm_config_branch_thread(c, "p", "a\x80"), "t");
	text = config_text(c);
	ck_assert(tm_utf8_valid(text, strlen(text)));
	ck_assert_msg(strstr(text, "\"a\\\\x80\": \"t\"") != NULL, "%s", text);
	free(text);
	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "a\x80", NULL), 0);
	ck_assert_ptr_null(tm_config_branch_thread(c, "p", "a\x80"));
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_branch_threads_refused)
{
	static const char *bad[] = {
		"{\"branchThreads\": [], \"a\": 1}",
		"{\"branchThreads\": \"p\"}",
		"{\"branchThreads\": {\"p\": 3, \"q\": {}}}",
		"{\"branchThreads\": {\"p\": [\"b\"]}}",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		tm_config *c = config_of(bad[i]);
		char *before = config_text(c);

		ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "b", "t"),
				 TM_EPARSE);
		ck_assert_str_eq(tm_error_last(),
				 i < 2 ? "'branchThreads' in 'config.json' is "
					 "not an object: fix it or delete it; "
					 "it was not modified"
				       : "'branchThreads.p' in 'config.json' "
					 "is not an object: fix it or delete "
					 "it; it was not modified");
		assert_config_text(c, before);
		free(before);
		tm_config_free(c);
	}
}
END_TEST

START_TEST(test_config_branch_threads_remove)
{
	tm_config *c = config_of(seed_config);
	char *before;

	ck_assert_int_eq(
		tm_config_set_branch_thread(c, "mon-app", "main", NULL), 0);
	ck_assert_ptr_null(tm_config_branch_thread(c, "mon-app", "main"));
	ck_assert_str_eq(
		tm_config_branch_thread(c, "mon-app", "feature/auth-ui"),
		"auth-ui");
	ck_assert_int_eq(tm_config_set_branch_thread(c, "mon-app",
						     "feature/auth-ui", NULL),
			 0);
	/* the emptied project object stays, the rest is untouched */
	before = config_text(c);
	ck_assert_ptr_nonnull(strstr(before, "\"author\": \"mahmoud-a3f9\",\n"
					     "  \"version\": 1,\n"
					     "  \"branchThreads\": {\n"
					     "    \"mon-app\": {}\n"
					     "  },\n"
					     "  \"sessions\": [\n"));
	free(before);
	tm_config_free(c);
	/* nothing to remove: nothing created, nothing refused */
	c = config_of("{\"branchThreads\": 7}");
	before = config_text(c);
	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "b", NULL), 0);
	assert_config_text(c, before);
	free(before);
	tm_config_free(c);
	c = config_of("{\"a\": 1}");
	ck_assert_int_eq(tm_config_set_branch_thread(c, "p", "b", NULL), 0);
	assert_config_text(c, "{\n  \"a\": 1\n}\n");
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_forget_thread)
{
	tm_config *c = config_of("{\"branchThreads\": {\"p\": {\"main\": \"a\","
				 " \"f1\": \"b\", \"f2\": \"a\", \"o\": 5},"
				 " \"q\": {\"main\": \"a\"}},"
				 " \"activeThreadId\": \"a\"}");

	ck_assert_uint_eq(tm_config_forget_thread(c, "p", "a"), 2);
	ck_assert_uint_eq(tm_config_forget_thread(c, "p", "a"), 0);
	ck_assert_uint_eq(tm_config_forget_thread(c, "none", "a"), 0);
	assert_config_text(c, "{\n  \"branchThreads\": {\n"
			      "    \"p\": {\n      \"f1\": \"b\",\n"
			      "      \"o\": 5\n    },\n"
			      "    \"q\": {\n      \"main\": \"a\"\n    }\n"
			      "  },\n  \"activeThreadId\": \"a\"\n}\n");
	/* a name that lives in the tree itself */
	ck_assert_uint_eq(
		tm_config_forget_thread(c, "p",
					tm_config_branch_thread(c, "p", "f1")),
		1);
	ck_assert_ptr_null(tm_config_branch_thread(c, "p", "f1"));
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_rename_thread)
{
	tm_config *c = config_of("{\"activeProjectId\": \"p\","
				 " \"activeThreadId\": \"a\","
				 " \"branchThreads\": {\"p\": {\"main\": \"a\","
				 " \"f\": \"b\", \"g\": \"a\"},"
				 " \"q\": {\"main\": \"a\"}}}");

	tm_config_rename_thread(c, "p", "a", "z");
	assert_config_text(c, "{\n  \"activeProjectId\": \"p\",\n"
			      "  \"activeThreadId\": \"z\",\n"
			      "  \"branchThreads\": {\n"
			      "    \"p\": {\n      \"main\": \"z\",\n"
			      "      \"f\": \"b\",\n      \"g\": \"z\"\n"
			      "    },\n"
			      "    \"q\": {\n      \"main\": \"a\"\n    }\n"
			      "  }\n}\n");
	tm_config_free(c);
	/* the active thread of another project is another thread */
	c = config_of("{\"activeProjectId\": \"q\", \"activeThreadId\": \"a\","
		      " \"branchThreads\": {\"p\": {\"main\": \"a\"}}}");
	tm_config_rename_thread(c, "p", "a", "z");
	ck_assert_str_eq(tm_config_get_string(c, "activeThreadId"), "a");
	ck_assert_str_eq(tm_config_branch_thread(c, "p", "main"), "z");
	tm_config_free(c);
	/* from a name that lives in the tree */
	c = config_of("{\"activeThreadId\": \"a\"}");
	tm_config_rename_thread(c, "p",
				tm_config_get_string(c, "activeThreadId"), "b");
	ck_assert_str_eq(tm_config_get_string(c, "activeThreadId"), "b");
	tm_config_free(c);
}
END_TEST

START_TEST(test_config_active_identity)
{
	tm_config *c = config_of("{\"activeProjectId\": \"p\","
				 " \"activeThreadId\": \"a\", \"x\": 1}");
	tm_config_identity r;
	char *text;

	ck_assert(!tm_config_active_identity(c, &r));
	ck_assert_ptr_null(r.id);
	/* a new record goes right after activeThreadId */
	tm_config_set_active_identity(c, "p", "a", "2026-04-15T10:00:00.000Z",
				      "ana-1a2b");
	assert_config_text(c,
			   "{\n  \"activeProjectId\": \"p\",\n"
			   "  \"activeThreadId\": \"a\",\n"
			   "  \"activeThreadIdentity\": {\n"
			   "    \"project\": \"p\",\n    \"id\": \"a\",\n"
			   "    \"createdAt\": \"2026-04-15T10:00:00.000Z\",\n"
			   "    \"author\": \"ana-1a2b\"\n  },\n"
			   "  \"x\": 1\n}\n");
	ck_assert(tm_config_active_identity(c, &r));
	ck_assert_str_eq(r.project, "p");
	ck_assert_str_eq(r.id, "a");
	ck_assert_str_eq(r.created_at, "2026-04-15T10:00:00.000Z");
	ck_assert_str_eq(r.author, "ana-1a2b");
	/* replaced in place; a thread without an author */
	tm_config_set_active_identity(c, "p", "b", "2026-04-16T10:00:00.000Z",
				      NULL);
	ck_assert(tm_config_active_identity(c, &r));
	ck_assert_str_eq(r.id, "b");
	ck_assert_ptr_null(r.author);
	/* renamed with its thread, only in its project */
	tm_config_rename_thread(c, "q", "b", "z");
	ck_assert(tm_config_active_identity(c, &r) && !strcmp(r.id, "b"));
	tm_config_rename_thread(c, "p", "b", "b-2");
	ck_assert(tm_config_active_identity(c, &r) && !strcmp(r.id, "b-2"));
	tm_config_rename_project(c, "p", "p2");
	ck_assert(tm_config_active_identity(c, &r) && !strcmp(r.project, "p2"));
	/* forgotten with its thread */
	tm_config_forget_thread(c, "p2", "other");
	ck_assert(tm_config_active_identity(c, &r));
	tm_config_forget_thread(c, "p2", "b-2");
	ck_assert(!tm_config_active_identity(c, &r));
	/* no identity to record: the key goes */
	tm_config_set_active_identity(c, "p", "a", "2026-04-15T10:00:00.000Z",
				      "ana-1a2b");
	tm_config_set_active_identity(c, "p", "a", NULL, NULL);
	text = config_text(c);
	ck_assert_ptr_null(strstr(text, "activeThreadIdentity"));
	free(text);
	tm_config_free(c);
	/* without activeThreadId: appended; a record of the wrong shape is
	 * none */
	c = config_of("{\"activeThreadIdentity\": {\"id\": 5}}");
	ck_assert(!tm_config_active_identity(c, &r));
	tm_config_set_active_identity(c, "p", "a", NULL, "ana-1a2b");
	ck_assert(tm_config_active_identity(c, &r));
	tm_config_free(c);
	c = config_of("{\"v\": 1}");
	tm_config_set_active_identity(c, "p", "a", NULL, "ana-1a2b");
	assert_config_text(c, "{\n  \"v\": 1,\n  \"activeThreadIdentity\": "
			      "{\n    \"project\": \"p\",\n    \"id\": \"a\",\n"
			      "    \"author\": \"ana-1a2b\"\n  }\n}\n");
	tm_config_forget_project(c, "p");
	ck_assert(!tm_config_active_identity(c, &r));
	tm_config_free(c);
}
END_TEST

/* projects/{id}.json */

START_TEST(test_config_project_new)
{
	tm_project *p = tm_project_new("mon-app", "Mon App");
	char *text = project_text(p);

	ck_assert_str_eq(text, "{\n"
			       "  \"id\": \"mon-app\",\n"
			       "  \"title\": \"Mon App\",\n"
			       "  \"systemContext\": \"\",\n"
			       "  \"mode\": \"solo\",\n"
			       "  \"rootThreadId\": \"main\"\n"
			       "}\n");
	ck_assert_str_eq(tm_project_get(p, "rootThreadId"), "main");
	ck_assert_str_eq(tm_project_get(p, "systemContext"), "");
	free(text);
	tm_project_free(p);
	tm_project_free(NULL);
}
END_TEST

START_TEST(test_config_project_seed_file)
{
	char *path = tmt_resource("seed-example/.threadmind/projects/"
				  "mon-app.json");
	size_t len;
	char *data = tmt_read_file(path, &len), *text;
	tm_project *p = NULL;
	tm_buf want = TM_BUF_INIT;

	ck_assert_int_eq(tm_project_parse(&p, data, len, path), 0);
	ck_assert_str_eq(tm_project_get(p, "id"), "mon-app");
	ck_assert_str_eq(tm_project_get(p, "title"), "Mon App");
	ck_assert_str_eq(tm_project_get(p, "mode"), "solo");
	ck_assert_str_eq(tm_project_get(p, "systemContext"),
			 "Construction d'une application e-commerce Next.js");
	/* already canonical: only the final newline may be added */
	while (len && data[len - 1] == '\n')
		len--;
	tm_buf_put(&want, data, len);
	tm_buf_putc(&want, '\n');
	text = project_text(p);
	ck_assert_str_eq(text, tm_buf_cstr(&want));
	free(text);
	tm_buf_release(&want);
	tm_project_free(p);
	free(data);
	free(path);
}
END_TEST

START_TEST(test_config_project_set_keeps_unknown)
{
	static const char in[] = "{\"id\":\"p\",\"extra\":{\"k\":[1,2.5]},"
				 "\"title\":\"T\",\"mode\":\"team\","
				 "\"n\":null}";
	tm_project *p = NULL;
	char *text;

	ck_assert_int_eq(tm_project_parse(&p, in, strlen(in), "p.json"), 0);
	ck_assert_ptr_null(tm_project_get(p, "extra"));
	ck_assert_ptr_null(tm_project_get(p, "n"));
	ck_assert_ptr_null(tm_project_get(p, "rootThreadId"));
	tm_project_set(p, "title", "U \"quoted\"");
	tm_project_set(p, "rootThreadId", "main");
	tm_project_set(p, "mode", NULL);
	text = project_text(p);
	ck_assert_str_eq(text, "{\n"
			       "  \"id\": \"p\",\n"
			       "  \"extra\": {\n"
			       "    \"k\": [\n"
			       "      1,\n"
			       "      2.5\n"
			       "    ]\n"
			       "  },\n"
			       "  \"title\": \"U \\\"quoted\\\"\",\n"
			       "  \"mode\": null,\n"
			       "  \"n\": null,\n"
			       "  \"rootThreadId\": \"main\"\n"
			       "}\n");
	ck_assert_str_eq(tm_project_get(p, "title"), "U \"quoted\"");
	free(text);
	tm_project_free(p);
}
END_TEST

Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("parse errors");

	tcase_add_test(tc, test_config_parse_not_object);
	suite_add_tcase(s, tc);
	tc = tcase_create("round trip");
	tcase_add_test(tc, test_config_roundtrip_canonical_identical);
	tcase_add_test(tc, test_config_roundtrip_seed_canonicalised);
	tcase_add_test(tc, test_config_roundtrip_sessions_untouched_by_update);
	suite_add_tcase(s, tc);
	tc = tcase_create("config");
	tcase_add_test(tc, test_config_defaults);
	tcase_add_test(tc, test_config_getters);
	tcase_add_test(tc, test_config_odd_types);
	tcase_add_test(tc, test_config_set_keeps_position);
	tcase_add_test(tc, test_config_set_appends_new_keys);
	tcase_add_test(tc, test_config_unknown_keys_kept);
	suite_add_tcase(s, tc);
	tc = tcase_create("branch threads");
	tcase_add_test(tc, test_config_branch_threads_set);
	tcase_add_test(tc, test_config_branch_threads_created);
	tcase_add_test(tc, test_config_branch_threads_refused);
	tcase_add_test(tc, test_config_branch_threads_not_utf8);
	tcase_add_test(tc, test_config_branch_threads_remove);
	tcase_add_test(tc, test_config_forget_thread);
	tcase_add_test(tc, test_config_rename_thread);
	tcase_add_test(tc, test_config_active_identity);
	suite_add_tcase(s, tc);
	tc = tcase_create("project");
	tcase_add_test(tc, test_config_project_new);
	tcase_add_test(tc, test_config_project_seed_file);
	tcase_add_test(tc, test_config_project_set_keeps_unknown);
	suite_add_tcase(s, tc);
	return s;
}
