/*
 * Unit tests of lib/format/frontmatter.c: thread files read and written back
 * byte for byte, line ends, unknown fields, errors, summaries.
 */
#include "threadmind/frontmatter.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEED_DIR "seed-example/.threadmind/threads/mon-app/"

static tm_thread *parse_len(const char *data, size_t len, const char *id)
{
	tm_thread *t = NULL;

	ck_assert_msg(tm_frontmatter_parse(&t, data, len, id, "t.md") == 0,
		      "%s", tm_error_last());
	ck_assert_ptr_nonnull(t);
	return t;
}

static tm_thread *parse(const char *data)
{
	return parse_len(data, strlen(data), "t");
}

/* The whole file as tm_frontmatter_write writes it (malloc'd). */
static char *written(const tm_thread *t)
{
	tm_buf out = TM_BUF_INIT;

	tm_frontmatter_write(&out, t);
	return tm_buf_detach(&out);
}

/* `data` parses and is written back as `want`, and that is stable. */
static void check_rewrite(const char *data, const char *want)
{
	tm_thread *t = parse(data), *again;
	char *out = written(t), *out2;

	ck_assert_str_eq(out, want);
	again = parse(out);
	out2 = written(again);
	ck_assert_str_eq(out2, out);
	free(out);
	free(out2);
	tm_thread_free(t);
	tm_thread_free(again);
}

static void check_identical(const char *data)
{
	check_rewrite(data, data);
}

static char *seed_file(const char *name, size_t *len)
{
	tm_buf rel = TM_BUF_INIT;
	char *path, *data;

	tm_buf_printf(&rel, SEED_DIR "%s", name);
	path = tmt_resource(rel.ptr);
	data = tmt_read_file(path, len);
	free(path);
	tm_buf_release(&rel);
	return data;
}

/* `s` with every LF made CRLF (malloc'd). */
static char *to_crlf(const char *s)
{
	tm_buf out = TM_BUF_INIT;

	for (; *s; s++) {
		if (*s == '\n')
			tm_buf_putc(&out, '\r');
		tm_buf_putc(&out, *s);
	}
	return tm_buf_detach(&out);
}

/* Parsing `len` bytes fails with TM_EPARSE, naming the file and `what`. */
static void check_fails_len(const char *data, size_t len, const char *what)
{
	tm_thread *sentinel = (tm_thread *)&sentinel, *t = sentinel;

	ck_assert_int_eq(
		tm_frontmatter_parse(&t, data, len, "t", "threads/p/bad.md"),
		TM_EPARSE);
	ck_assert_ptr_eq(t, sentinel);
	ck_assert_int_eq(tm_error_last_code(), TM_EPARSE);
	ck_assert_msg(strstr(tm_error_last(), "'threads/p/bad.md'") != NULL,
		      "no path in '%s'", tm_error_last());
	ck_assert_msg(strstr(tm_error_last(), what) != NULL, "'%s' not in '%s'",
		      what, tm_error_last());
}

static void check_fails(const char *data, const char *what)
{
	check_fails_len(data, strlen(data), what);
}

START_TEST(test_frontmatter_seed_roundtrip)
{
	static const char *const ids[] = {"main", "auth", "auth-ui"};
	tm_buf name = TM_BUF_INIT;
	size_t i, len;
	char *data, *out;
	tm_thread *t;

	for (i = 0; i < 3; i++) {
		tm_buf_clear(&name);
		tm_buf_printf(&name, "%s.md", ids[i]);
		data = seed_file(name.ptr, &len);
		t = parse_len(data, len, ids[i]);
		out = written(t);
		ck_assert_msg(strlen(out) == len && !memcmp(out, data, len),
			      "%s rewritten as:\n%s", name.ptr, out);
		free(out);
		free(data);
		tm_thread_free(t);
	}
	tm_buf_release(&name);
}
END_TEST

START_TEST(test_frontmatter_seed_fields)
{
	size_t len;
	char *data = seed_file("auth-ui.md", &len);
	tm_thread *t = parse_len(data, len, "auth-ui");

	ck_assert_str_eq(t->id, "auth-ui");
	ck_assert_str_eq(t->field_id, "auth-ui");
	ck_assert_str_eq(t->title, "Auth UI");
	ck_assert_str_eq(t->parent_id, "auth");
	ck_assert_str_eq(t->author, "mahmoud-a3f9");
	ck_assert_str_eq(t->created_at, "2026-04-15T10:00:00.000Z");
	ck_assert_str_eq(t->updated_at, "2026-04-15T12:30:00.000Z");
	ck_assert_str_eq(t->branch, "feature/auth-ui");
	ck_assert_str_eq(t->commit, "3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f");
	ck_assert(t->has_paths);
	ck_assert_uint_eq(t->paths.n, 1);
	ck_assert_str_eq(t->paths.items[0], "src/auth");
	ck_assert_ptr_null(t->status);
	ck_assert_ptr_null(t->merged_into);
	ck_assert_uint_eq(t->nextra, 0);
	ck_assert(!t->crlf);
	ck_assert_uint_eq(t->body_len, strlen(t->body));
	ck_assert(!strncmp(t->body, "\n## Décisions\n", 15));
	tm_thread_free(t);
	free(data);

	data = seed_file("main.md", &len);
	t = parse_len(data, len, "main");
	ck_assert_ptr_null(t->parent_id);
	ck_assert(!t->has_paths);
	ck_assert_ptr_null(t->branch);
	tm_thread_free(t);
	free(data);
}
END_TEST

START_TEST(test_frontmatter_crlf_stays_crlf)
{
	size_t len;
	char *data = seed_file("auth-ui.md", &len), *crlf = to_crlf(data);
	tm_thread *t = parse_len(crlf, strlen(crlf), "auth-ui");
	char *out = written(t), *summary = tm_thread_summary(t);
	tm_buf header = TM_BUF_INIT;

	ck_assert(t->crlf);
	ck_assert_str_eq(t->title, "Auth UI");
	ck_assert_str_eq(t->commit, "3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f");
	ck_assert_str_eq(t->paths.items[0], "src/auth");
	ck_assert_str_eq(out, crlf);
	ck_assert_ptr_null(strchr(summary, '\r'));
	ck_assert(!strncmp(summary, "## Décisions\n- Formulaire", 26));
	/* the header for the merge is always LF */
	tm_frontmatter_write_header(&header, t);
	ck_assert_ptr_null(strchr(header.ptr, '\r'));
	ck_assert(!strncmp(header.ptr, data, header.size));
	ck_assert_str_eq(data + header.size, "\n## Décisions\n- Formulaire "
					     "de connexion avec React Hook "
					     "Form\n\n## État\n- Inscription "
					     "faite, réinitialisation du mot "
					     "de passe à faire\n");
	tm_buf_release(&header);
	free(summary);
	free(out);
	free(crlf);
	free(data);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_crlf_mixed_and_body)
{
	/* the opening line decides; the body keeps its bytes */
	tm_thread *t = parse("---\r\ntitle: A\nparentId: main\r\n---\r\n"
			     "body\nmixed\r\n");
	char *out = written(t);

	ck_assert(t->crlf);
	ck_assert_str_eq(t->title, "A");
	ck_assert_str_eq(out, "---\r\nid: t\r\ntitle: A\r\nparentId: main\r\n"
			      "---\r\nbody\nmixed\r\n");
	free(out);
	tm_thread_free(t);

	t = parse("---\ntitle: B\r\n---\n");
	ck_assert(!t->crlf);
	ck_assert_str_eq(t->title, "B");
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_bom_dropped)
{
	size_t len;
	char *data = seed_file("main.md", &len), *out;
	tm_buf bom = TM_BUF_INIT;
	tm_thread *t;

	tm_buf_puts(&bom, "\xef\xbb\xbf");
	tm_buf_put(&bom, data, len);
	t = parse_len(bom.ptr, bom.size, "main");
	ck_assert_str_eq(t->title, "Main");
	ck_assert_str_eq(t->field_id, "main");
	out = written(t);
	ck_assert_str_eq(out, data);
	free(out);
	tm_thread_free(t);
	tm_buf_release(&bom);
	free(data);
}
END_TEST

START_TEST(test_frontmatter_fence_in_body)
{
	const char *file = "---\nid: t\ntitle: A\nparentId: null\n---\n\n"
			   "text\n---\nmore: not a field\n---\n";
	tm_thread *t = parse(file);

	ck_assert_str_eq(t->title, "A");
	ck_assert_uint_eq(t->nextra, 0);
	ck_assert_str_eq(t->body, "\ntext\n---\nmore: not a field\n---\n");
	tm_thread_free(t);
	check_identical(file);
	/* only a line that is exactly --- closes the block */
	t = parse("---\ntitle: ---x\nnote: --- \n---\nbody");
	ck_assert_str_eq(t->title, "---x");
	ck_assert_str_eq(t->extra[0].raw, " --- ");
	ck_assert_str_eq(t->body, "body");
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_empty_body)
{
	tm_thread *t = parse("---\ntitle: A\n---");

	ck_assert_ptr_nonnull(t->body);
	ck_assert_uint_eq(t->body_len, 0);
	tm_thread_free(t);
	check_identical("---\nid: t\ntitle: A\nparentId: null\n---\n");
	check_rewrite("---\n---\n", "---\nid: t\nparentId: null\n---\n");
}
END_TEST

START_TEST(test_frontmatter_body_any_bytes)
{
	const char *file = "---\nid: t\nparentId: null\n---\n\xff\xfe bad "
			   "utf-8 \xc3 is fine here\n";
	tm_thread *t = parse(file);

	ck_assert_str_eq(t->body, "\xff\xfe bad utf-8 \xc3 is fine here\n");
	tm_thread_free(t);
	check_identical(file);
}
END_TEST

START_TEST(test_frontmatter_unknown_fields_kept)
{
	const char *file = "---\n"
			   "id: t\n"
			   "title: A\n"
			   "parentId: main\n"
			   "status: done\n"
			   "# a comment: kept\n"
			   "priority:   high # not a comment here \n"
			   "tags:\n"
			   "  - a\n"
			   "  - \"b\"\n"
			   "meta:\n"
			   "  owner: me\n"
			   "  nested:\n"
			   "    deep: [1, 2]\n"
			   "empty:\n"
			   "#last\n"
			   "---\n"
			   "body\n";
	tm_thread *t = parse(file);

	ck_assert_str_eq(t->status, "done");
	ck_assert_uint_eq(t->nextra, 6);
	ck_assert_ptr_null(t->extra[0].key);
	ck_assert_str_eq(t->extra[0].raw, "# a comment: kept");
	ck_assert_str_eq(t->extra[1].key, "priority");
	ck_assert_str_eq(t->extra[1].raw, "   high # not a comment here ");
	ck_assert_str_eq(t->extra[2].key, "tags");
	ck_assert_str_eq(t->extra[2].raw, "\n  - a\n  - \"b\"");
	ck_assert_str_eq(t->extra[3].key, "meta");
	ck_assert_str_eq(t->extra[3].raw,
			 "\n  owner: me\n  nested:\n    deep: [1, 2]");
	ck_assert_str_eq(t->extra[4].key, "empty");
	ck_assert_str_eq(t->extra[4].raw, "");
	ck_assert_ptr_null(t->extra[5].key);
	ck_assert_str_eq(t->extra[5].raw, "#last");
	tm_thread_free(t);
	check_identical(file);
}
END_TEST

START_TEST(test_frontmatter_unknown_fields_reordered)
{
	/* known fields move to their place; extras keep their own order */
	check_rewrite("---\n"
		      "x-first: 1\n"
		      "title: A\n"
		      "# about the id\n"
		      "id: other\n"
		      "list:\n"
		      "- a\n"
		      "- b\n"
		      "paths:\n"
		      "- src\n"
		      "parentId: main\n"
		      "---\n",
		      "---\n"
		      "id: t\n"
		      "title: A\n"
		      "parentId: main\n"
		      "paths: [\"src\"]\n"
		      "x-first: 1\n"
		      "# about the id\n"
		      "list:\n"
		      "- a\n"
		      "- b\n"
		      "---\n");
}
END_TEST

START_TEST(test_frontmatter_unknown_fields_crlf)
{
	const char *lf = "---\nid: t\nparentId: null\nx:\n  - a\n  - b\n"
			 "# c\n---\nbody\n";
	char *crlf = to_crlf(lf);
	tm_thread *t = parse(crlf);
	char *out = written(t);

	ck_assert_str_eq(t->extra[0].raw, "\n  - a\n  - b");
	ck_assert_str_eq(t->extra[1].raw, "# c");
	ck_assert_str_eq(out, crlf);
	free(out);
	free(crlf);
	tm_thread_free(t);
}
END_TEST

/*
 * Extra CRs at the end of a frontmatter line go with the line end: kept,
 * the unknown line would come back as "x: me\r\n", which reads as a
 * CRLF line "x: me" (the fuzzer's crash-c60bfa5d).
 */
START_TEST(test_frontmatter_trailing_crs_dropped)
{
	check_rewrite("---\nil: me\r\r\n---\n\np\n\r\n",
		      "---\nid: t\nparentId: null\nil: me\n---\n\np\n\r\n");
	check_rewrite("---\r\ntitle: a\r\r\r\nid: t\r\n---\r\n",
		      "---\r\nid: t\r\ntitle: a\r\nparentId: null\r\n---\r\n");
}
END_TEST

START_TEST(test_frontmatter_blank_lines)
{
	/* blank lines between entries go; inside a block scalar they stay */
	check_rewrite("---\n\nid: t\n  \ntitle: A\n\nparentId: null\n"
		      "notes: |\n  one\n\n  two\n\n\n---\nbody\n",
		      "---\nid: t\ntitle: A\nparentId: null\n"
		      "notes: |\n  one\n\n  two\n---\nbody\n");
}
END_TEST

START_TEST(test_frontmatter_parent_null)
{
	tm_thread *t = parse("---\nparentId: null\n---\n");

	ck_assert_ptr_null(t->parent_id);
	tm_thread_free(t);
	t = parse("---\nparentId: \"null\"\n---\n");
	ck_assert_str_eq(t->parent_id, "null");
	tm_thread_free(t);
	t = parse("---\nparentId: 'null'\n---\n");
	ck_assert_str_eq(t->parent_id, "null");
	tm_thread_free(t);
	check_identical("---\nid: t\nparentId: null\n---\n");
	check_identical("---\nid: t\nparentId: \"null\"\n---\n");
	check_rewrite("---\nid: t\nparentId: ~\n---\n",
		      "---\nid: t\nparentId: null\n---\n");
	check_rewrite("---\nid: t\n---\n", "---\nid: t\nparentId: null\n---\n");
}
END_TEST

START_TEST(test_frontmatter_null_forms)
{
	static const char *const nulls[] = {"",  " ",    "null",
					    "~", "Null", "NULL"};
	tm_buf file = TM_BUF_INIT;
	tm_thread *t;
	size_t i;

	/* only parentId has a null; a text field holds the word */
	for (i = 0; i < sizeof(nulls) / sizeof(*nulls); i++) {
		tm_buf_clear(&file);
		tm_buf_printf(&file,
			      "---\ntitle: %s\nstatus: %s\nmergedInto: %s\n"
			      "parentId: %s\n---\n",
			      nulls[i], nulls[i], nulls[i], nulls[i]);
		t = parse(file.ptr);
		if (i < 2)
			ck_assert_msg(t->parent_id && !*t->parent_id,
				      "'%s' is not the empty id", nulls[i]);
		else
			ck_assert_msg(!t->parent_id, "'%s' is not null",
				      nulls[i]);
		if (i < 2)
			ck_assert_msg(!t->title && !t->status &&
					      !t->merged_into,
				      "'%s' is not absent", nulls[i]);
		else
			ck_assert_msg(t->title && t->status && t->merged_into &&
					      !strcmp(t->title, nulls[i]) &&
					      !strcmp(t->status, nulls[i]) &&
					      !strcmp(t->merged_into, nulls[i]),
				      "'%s' is not its text", nulls[i]);
		tm_thread_free(t);
	}
	tm_buf_release(&file);
	t = parse("---\ntitle: \"\"\nstatus: nil\nparentId: \"null\"\n---\n");
	ck_assert_str_eq(t->title, "");
	ck_assert_str_eq(t->status, "nil");
	ck_assert_str_eq(t->parent_id, "null");
	tm_thread_free(t);
	check_rewrite("---\nid: null\ntitle: null\nparentId: null\n---\n",
		      "---\nid: t\ntitle: \"null\"\nparentId: null\n---\n");
}
END_TEST

/*
 * ThreadMind 0.4 wrote every value raw: what it showed (the rest of the
 * line, trimmed) is what we read, and a rewrite quotes it so that it reads
 * back the same.
 */
START_TEST(test_frontmatter_04_raw_values)
{
	static const char *const titles[] = {
		"\"Quick\" fix",
		"[WIP] Auth",
		"{draft}",
		"*nix",
		"> note",
		"| pipe",
		"'single",
		"null",
		"~",
		"&amp",
		"!important",
		"\"quoted\"",
		"'single' q",
		"[a]",
		"{a: b}",
		"- dash title",
		", comma",
		"? question",
		"@alice",
		"`tick`",
		"#12 crash",
		"a: b",
		"x # y",
		"\"a\" # c",
		"%x",
		"\"unclosed",
		"[unclosed",
		"true",
		"2024",
	};
	tm_buf file = TM_BUF_INIT;
	tm_thread *t, *again;
	char *out;
	size_t i;

	for (i = 0; i < sizeof(titles) / sizeof(*titles); i++) {
		tm_buf_clear(&file);
		tm_buf_printf(&file,
			      "---\nid: t\ntitle: %s\nparentId: main\n"
			      "author: %s\n---\n",
			      titles[i], titles[i]);
		t = parse(file.ptr);
		ck_assert_msg(t->title && !strcmp(t->title, titles[i]),
			      "title '%s' read as '%s'", titles[i],
			      t->title ? t->title : "(absent)");
		out = written(t);
		again = parse(out);
		ck_assert_msg(!strcmp(again->title, titles[i]),
			      "title '%s' written as '%s'", titles[i], out);
		tm_thread_free(again);
		free(out);
		tm_thread_free(t);
	}
	tm_buf_release(&file);
	/* what a quoting writer wrote is YAML */
	t = parse("---\ntitle: \"Fix: login\"\nauthor: \"quoted\"\n"
		  "branch: 'feature/x'\nparentId: \"-2\"\n---\n");
	ck_assert_str_eq(t->title, "Fix: login");
	ck_assert_str_eq(t->author, "quoted");
	ck_assert_str_eq(t->branch, "feature/x");
	ck_assert_str_eq(t->parent_id, "-2");
	tm_thread_free(t);
	/* a title quoted with an escape inside was written by a YAML writer */
	t = parse("---\ntitle: \"T \\\"q\\\"\"\n---\n");
	ck_assert_str_eq(t->title, "T \"q\"");
	tm_thread_free(t);
	/* a trailing comment or text after the quotes is raw text */
	t = parse("---\nauthor: \"a\" b\nbranch: 'x' # c\n---\n");
	ck_assert_str_eq(t->author, "\"a\" b");
	ck_assert_str_eq(t->branch, "'x' # c");
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_paths_block_sequence)
{
	tm_thread *t = parse("---\npaths:\n  - src/auth\n  - \"lib x\"\n---\n");

	ck_assert(t->has_paths);
	ck_assert_uint_eq(t->paths.n, 2);
	ck_assert_str_eq(t->paths.items[0], "src/auth");
	ck_assert_str_eq(t->paths.items[1], "lib x");
	tm_thread_free(t);
	check_rewrite(
		"---\nid: t\nparentId: null\npaths:\n  - src/auth\n"
		"  - lib\n---\nbody\n",
		"---\nid: t\nparentId: null\npaths: [\"src/auth\",\"lib\"]"
		"\n---\nbody\n");
	check_rewrite("---\npaths: [ 'a',  \"b\\tc\", d ]\n---\n",
		      "---\nid: t\nparentId: null\npaths: [\"a\",\"b\\tc\","
		      "\"d\"]\n---\n");
}
END_TEST

START_TEST(test_frontmatter_paths_forms)
{
	tm_thread *t = parse("---\npaths: []\n---\n");

	ck_assert(t->has_paths);
	ck_assert_uint_eq(t->paths.n, 0);
	tm_thread_free(t);
	check_identical("---\nid: t\nparentId: null\npaths: []\n---\n");
	t = parse("---\npaths: null\n---\n");
	ck_assert(!t->has_paths);
	tm_thread_free(t);
	check_rewrite("---\npaths:\n---\n",
		      "---\nid: t\nparentId: null\n---\n");
	t = parse("---\npaths: src/auth\n---\n");
	ck_assert(t->has_paths);
	ck_assert_uint_eq(t->paths.n, 1);
	ck_assert_str_eq(t->paths.items[0], "src/auth");
	tm_thread_free(t);
	check_rewrite("---\npaths: [1, true, null]\n---\n",
		      "---\nid: t\nparentId: null\npaths: [\"1\",\"true\","
		      "\"null\"]\n---\n");
	check_identical("---\nid: t\nparentId: null\npaths: [\"é/认证\","
			"\"a\\\"b\",\"c\\\\d\"]\n---\n");
}
END_TEST

/* The frontmatter-only read: the block's length and the `paths` probe. */
START_TEST(test_frontmatter_block_only)
{
	static const char file[] = "\xef\xbb\xbf---\r\n"
				   "id: t\r\n"
				   "title: T\r\n"
				   "status: active\r\n"
				   "paths:\r\n"
				   "  - src/a.c\r\n"
				   "---\r\n"
				   "\r\nA summary naming paths: here\r\n";
	const char *fence = strstr(file + 6, "---\r\n");
	size_t len = strlen(file), blen = tm_frontmatter_block_len(file, len);
	tm_thread *whole = parse_len(file, len, "t"), *head;

	ck_assert_uint_eq(blen, (size_t)(fence + 5 - file));
	head = parse_len(file, blen, "t");
	ck_assert_str_eq(head->title, whole->title);
	ck_assert_str_eq(head->status, whole->status);
	ck_assert_uint_eq(head->paths.n, 1);
	ck_assert_str_eq(head->paths.items[0], "src/a.c");
	ck_assert_str_eq(head->body, "");
	tm_thread_free(head);
	tm_thread_free(whole);
	ck_assert(tm_frontmatter_may_have(file, len, "paths"));
	ck_assert(tm_frontmatter_may_have(file, len, "status"));
	/* only the block counts, not the body */
	ck_assert(!tm_frontmatter_may_have(file, len, "A summary"));
	ck_assert(!tm_frontmatter_may_have(file, len, "commit"));
	/* indented or quoted still counts: the parser decides */
	ck_assert(
		tm_frontmatter_may_have("---\n  paths: x\n---\n", 19, "paths"));
	ck_assert(tm_frontmatter_may_have("---\n\"paths\": x\n---\n", 19,
					  "paths"));
	ck_assert(!tm_frontmatter_may_have("---\ntitle: x\n---\npaths: y\n", 27,
					   "paths"));
	/* no block: 0, and "may have" (the parser reports the error) */
	ck_assert_uint_eq(tm_frontmatter_block_len("---\nid: t\n", 10), 0);
	ck_assert_uint_eq(tm_frontmatter_block_len("id: t\n---\n", 10), 0);
	ck_assert(tm_frontmatter_may_have("---\nid: t\n", 10, "paths"));
	ck_assert_uint_eq(tm_frontmatter_block_len("---\n---", 7), 7);
}
END_TEST

START_TEST(test_frontmatter_plain_value_raw)
{
	tm_thread *t = parse("---\ntitle: Fix #12 login\n---\n");

	ck_assert_str_eq(t->title, "Fix #12 login");
	tm_thread_free(t);
	t = parse("---\ntitle: a: b\nbranch:   spaced out \t\n---\n");
	ck_assert_str_eq(t->title, "a: b");
	ck_assert_str_eq(t->branch, "spaced out");
	tm_thread_free(t);
	t = parse("---\ntitle: true\ncommit: 1234567\n---\n");
	ck_assert_str_eq(t->title, "true");
	ck_assert_str_eq(t->commit, "1234567");
	tm_thread_free(t);
	check_rewrite("---\nid: t\ntitle: Fix #12 login\nparentId: null\n---\n",
		      "---\nid: t\ntitle: \"Fix #12 login\"\nparentId: null\n"
		      "---\n");
}
END_TEST

START_TEST(test_frontmatter_quoted_values)
{
	tm_thread *t = parse("---\ntitle: 'it''s'\nauthor: \"a\\tb\"\n"
			     "branch: \"feature/x\"  \nstatus: \"don\\u0065\""
			     "\n---\n");

	ck_assert_str_eq(t->title, "it's"); /* an escape: a YAML writer's */
	ck_assert_str_eq(t->author, "a\tb");
	ck_assert_str_eq(t->branch, "feature/x");
	ck_assert_str_eq(t->status, "done");
	tm_thread_free(t);
	check_rewrite("---\nid: t\ntitle: 'a: b'\nparentId: null\n---\n",
		      "---\nid: t\ntitle: \"a: b\"\nparentId: null\n---\n");
}
END_TEST

START_TEST(test_frontmatter_multiline_values)
{
	tm_thread *t = parse("---\ntitle: |\n  a\n  b\nauthor: \"x\n  y\"\n"
			     "branch: long\n  name\n---\n");

	ck_assert_str_eq(t->title, "a\nb\n");
	ck_assert_str_eq(t->author, "x y");
	ck_assert_str_eq(t->branch, "long name");
	tm_thread_free(t);
	check_rewrite("---\ntitle: >\n  folded\n  text\n---\n",
		      "---\nid: t\ntitle: \"folded text\\n\"\nparentId: null\n"
		      "---\n");
}
END_TEST

START_TEST(test_frontmatter_id_from_file_name)
{
	const char *file = "---\nid: other\ntitle: A\n---\n";
	tm_thread *t = parse_len(file, strlen(file), "real");
	char *out = written(t);

	ck_assert_str_eq(t->id, "real");
	ck_assert_str_eq(t->field_id, "other");
	ck_assert_str_eq(out, "---\nid: real\ntitle: A\nparentId: null\n---\n");
	free(out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_write_all_fields)
{
	tm_thread *t = tm_thread_new();
	char *out;
	tm_buf header = TM_BUF_INIT;

	t->id = tm_xstrdup("t");
	t->title = tm_xstrdup("Fix: it");
	t->parent_id = tm_xstrdup("main");
	t->author = tm_xstrdup("me-1234");
	t->created_at = tm_xstrdup("2026-04-15T10:00:00.000Z");
	t->updated_at = tm_xstrdup("2026-04-15T10:00:01.000Z");
	t->status = tm_xstrdup("abandoned");
	t->branch = tm_xstrdup("main");
	t->commit = tm_xstrdup("0000000000000000000000000000000000000001");
	t->has_paths = true;
	tm_strv_push(&t->paths, "a");
	tm_strv_push(&t->paths, "b c");
	t->merged_into = tm_xstrdup("main");
	tm_thread_set_summary(t, "Done.", 5);
	out = written(t);
	ck_assert_str_eq(out,
			 "---\nid: t\ntitle: \"Fix: it\"\n"
			 "parentId: main\nauthor: me-1234\n"
			 "createdAt: 2026-04-15T10:00:00.000Z\n"
			 "updatedAt: 2026-04-15T10:00:01.000Z\n"
			 "status: abandoned\nbranch: main\n"
			 "commit: \"0000000000000000000000000000000000000001"
			 "\"\npaths: [\"a\",\"b c\"]\nmergedInto: main\n"
			 "---\n\nDone.\n");
	tm_frontmatter_write_header(&header, t);
	ck_assert_uint_eq(header.size, strlen(out) - strlen("\nDone.\n"));
	ck_assert(!memcmp(header.ptr, out, header.size));
	check_identical(out);
	tm_buf_release(&header);
	free(out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_error_no_opening)
{
	check_fails("id: t\n---\n",
		    "does not start with a '---' frontmatter line");
	check_fails("", "does not start with a '---' frontmatter line");
	check_fails(" ---\n---\n", "does not start with a '---'");
	check_fails("----\n---\n", "does not start with a '---'");
}
END_TEST

START_TEST(test_frontmatter_error_no_closing)
{
	check_fails("---\ntitle: A\n", "no closing '---' line");
	check_fails("---\ntitle: A\n--- \n", "no closing '---' line");
	check_fails("---", "no closing '---' line");
}
END_TEST

START_TEST(test_frontmatter_error_nul)
{
	static const char body[] = "---\ntitle: A\n---\nbo\0dy\n";
	static const char field[] = "---\ntitle: A\0\n---\n";

	check_fails_len(body, sizeof(body) - 1, "line 4: NUL byte");
	check_fails_len(field, sizeof(field) - 1, "line 2: NUL byte");
}
END_TEST

START_TEST(test_frontmatter_error_invalid_utf8)
{
	check_fails("---\nid: t\ntitle: caf\xe9\n---\n",
		    "line 3: invalid UTF-8");
	check_fails("---\ntitle: \xc0\xaf\n---\n", "line 2: invalid UTF-8");
	check_fails("---\ntitle: \xed\xa0\x80\n---\n", "line 2: invalid UTF-8");
	check_fails("---\n# \xf4\x90\x80\x80\n---\n", "line 2: invalid UTF-8");
	check_fails("---\ntitle: \xe2\x82\n---\n", "line 2: invalid UTF-8");
}
END_TEST

START_TEST(test_frontmatter_error_duplicate_key)
{
	check_fails("---\ntitle: A\nid: t\ntitle: B\n---\n",
		    "line 4: duplicate key 'title'");
	check_fails("---\nx: 1\nx:\n  - 2\n---\n", "line 3: duplicate key 'x'");
}
END_TEST

/* Duplicates in blocks on both sides of the pair-by-pair limit (32
 * entries): the same first duplicate named, comments never duplicates. */
START_TEST(test_frontmatter_duplicates_any_block_size)
{
	static const size_t sizes[] = {2, 10, 31, 32, 33, 40, 100};
	size_t i, k;

	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		tm_buf b = TM_BUF_INIT, want = TM_BUF_INIT;
		tm_thread *t;

		tm_buf_puts(&b, "---\n# c\n");
		for (k = 0; k < sizes[i]; k++)
			tm_buf_printf(&b, "k%zu: %zu\n# c\n", k, k);
		tm_buf_puts(&b, "---\n");
		t = parse_len(b.ptr, b.size, "t"); /* no duplicate yet */
		ck_assert_ptr_nonnull(t);
		ck_assert_uint_eq(t->nextra, 2 * sizes[i] + 1);
		tm_thread_free(t);
		b.size -= 4; /* before the closing line */
		tm_buf_printf(&b, "k%zu: again\nk0: again\n---\n",
			      sizes[i] / 2);
		tm_buf_printf(&want, "line %zu: duplicate key 'k%zu'",
			      2 * sizes[i] + 3, sizes[i] / 2);
		check_fails(tm_buf_cstr(&b), tm_buf_cstr(&want));
		tm_buf_release(&b);
		tm_buf_release(&want);
	}
}
END_TEST

/* Keys that only start or end like a known field's are other keys. */
START_TEST(test_frontmatter_near_field_names_are_extras)
{
	tm_thread *t = parse("---\nid: t\ntitle: T\npat: a\npathsx: b\n"
			     "titles: c\ni: d\nstatu: e\n---\n");

	ck_assert_str_eq(t->title, "T");
	ck_assert(!t->has_paths);
	ck_assert_ptr_null(t->status);
	ck_assert_uint_eq(t->nextra, 5);
	ck_assert_str_eq(t->extra[0].key, "pat");
	ck_assert_str_eq(t->extra[1].key, "pathsx");
	ck_assert_str_eq(t->extra[2].key, "titles");
	ck_assert_str_eq(t->extra[3].key, "i");
	ck_assert_str_eq(t->extra[4].key, "statu");
	ck_assert_str_eq(t->extra[4].raw, " e");
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_error_collection_value)
{
	check_fails("---\ntitle:\n  - a\n---\n", "field 'title' must be a "
						 "single value");
	check_fails("---\nparentId:\n  a: b\n---\n", "field 'parentId'");
	check_fails("---\npaths:\n  a: b\n---\n",
		    "field 'paths' must be a list of strings");
	check_fails("---\npaths: [[a]]\n---\n", "field 'paths'");
}
END_TEST

START_TEST(test_frontmatter_error_garbage_line)
{
	check_fails("---\ntitle: A\njust words\n---\n", "line 3: expected "
							"'key: value'");
	check_fails("---\ntitle:A\n---\n", "line 2:");
	check_fails("---\n: x\n---\n", "line 2:");
	check_fails("---\n  indented: x\n---\n",
		    "line 2: indented line continues no field");
	check_fails("---\n# c\n  x\n---\n", "line 3: indented line");
	check_fails("---\ntitle: \"open\n  more\n---\n",
		    "cannot read field 'title'");
	check_fails("---\nid: t\nparentId: *x\n  y\n---\n", "line 3:");
}
END_TEST

START_TEST(test_frontmatter_set_summary_trims)
{
	tm_thread *t = tm_thread_new();

	tm_thread_set_summary(t, "Line 1\n\nLine 2  \n\n   \n\t\n", 24);
	ck_assert_str_eq(t->body, "\nLine 1\n\nLine 2  \n");
	ck_assert_uint_eq(t->body_len, strlen(t->body));
	tm_thread_set_summary(t, "a\r\nb\r\n\r\n", 8);
	ck_assert_str_eq(t->body, "\na\nb\n");
	tm_thread_set_summary(t, "x", 1);
	ck_assert_str_eq(t->body, "\nx\n");
	tm_thread_set_summary(t, "\n\nindented\n  code\n", 18);
	ck_assert_str_eq(t->body, "\n\n\nindented\n  code\n");
	tm_thread_set_summary(t, "xyz", 2);
	ck_assert_str_eq(t->body, "\nxy\n");
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_set_summary_crlf)
{
	tm_thread *t = parse("---\r\nid: t\r\nparentId: null\r\n---\r\n\r\nold"
			     "\r\n");
	char *out;

	tm_thread_set_summary(t, "a\nb\r\n\n", 6);
	ck_assert_str_eq(t->body, "\r\na\r\nb\r\n");
	out = written(t);
	ck_assert_str_eq(out, "---\r\nid: t\r\nparentId: null\r\n---\r\n\r\n"
			      "a\r\nb\r\n");
	free(out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_set_summary_empty)
{
	tm_thread *t = parse("---\nid: t\nparentId: null\n---\n\nold\n");
	char *out, *summary;

	tm_thread_set_summary(t, "", 0);
	ck_assert_ptr_nonnull(t->body);
	ck_assert_uint_eq(t->body_len, 0);
	tm_thread_set_summary(t, "old", 3);
	tm_thread_set_summary(t, " \n\t\r\n\n", 6);
	ck_assert_uint_eq(t->body_len, 0);
	out = written(t);
	ck_assert_str_eq(out, "---\nid: t\nparentId: null\n---\n");
	summary = tm_thread_summary(t);
	ck_assert_str_eq(summary, "");
	free(summary);
	free(out);
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_summary_blank)
{
	tm_thread *t = parse("---\nid: t\nparentId: null\n---\n \n\t\r\n\n");

	ck_assert(tm_thread_summary_blank(t));
	ck_assert(tm_summary_blank(NULL, 0));
	ck_assert(tm_summary_blank("\f\v \r\n", 5));
	ck_assert(!tm_summary_blank("\n.\n", 3));
	ck_assert(!tm_summary_blank("\n\0\n", 3)); /* a NUL is not blank */
	tm_thread_set_summary(t, "- one", 5);
	ck_assert(!tm_thread_summary_blank(t));
	tm_thread_set_summary(t, " \n", 2);
	ck_assert(tm_thread_summary_blank(t));
	tm_thread_free(t);
}
END_TEST

START_TEST(test_frontmatter_summary_roundtrip)
{
	const char *text = "## Décisions\n- one\n\n## État\n- two";
	tm_thread *t = tm_thread_new();
	char *summary, *body;

	summary = tm_thread_summary(t);
	ck_assert_str_eq(summary, "");
	free(summary);
	tm_thread_set_summary(t, text, strlen(text));
	summary = tm_thread_summary(t);
	ck_assert_str_eq(summary, "## Décisions\n- one\n\n## État\n- two\n");
	body = tm_xstrdup(t->body);
	tm_thread_set_summary(t, summary, strlen(summary));
	ck_assert_str_eq(t->body, body);
	free(body);
	free(summary);
	/* a CRLF thread gives LF text and takes it back as CRLF */
	t->crlf = true;
	tm_thread_set_summary(t, text, strlen(text));
	summary = tm_thread_summary(t);
	ck_assert_str_eq(summary, "## Décisions\n- one\n\n## État\n- two\n");
	free(summary);
	/* a body written by hand, without the blank line, is kept whole */
	tm_thread_set_body(t, "# Title\r\ntext\n", 14);
	summary = tm_thread_summary(t);
	ck_assert_str_eq(summary, "# Title\ntext\n");
	free(summary);
	tm_thread_free(t);
}
END_TEST

static uint32_t rng_next(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/* A random string of pieces that matter to YAML, ASCII and not. */
static void random_text(tm_buf *out, uint32_t *rng)
{
	static const char *const pieces[] = {"a",
					     "Z",
					     "e",
					     "y",
					     "n",
					     "o",
					     "x",
					     "0",
					     "1",
					     "9",
					     ".",
					     ":",
					     "#",
					     "-",
					     "\"",
					     "'",
					     "\t",
					     " ",
					     " ",
					     "\\",
					     "[",
					     "]",
					     "{",
					     "}",
					     "&",
					     "*",
					     "!",
					     "|",
					     ">",
					     "%",
					     "@",
					     "`",
					     "?",
					     ",",
					     "~",
					     "/",
					     "é",
					     "œ",
					     "认",
					     "\n",
					     "\r",
					     "+",
					     "\xc2\x85",
					     "\xc2\xa0",
					     "\xe2\x80\xa8",
					     "\xef\xbf\xbe",
					     "---",
					     "null",
					     "true",
					     "on"};
	size_t n = rng_next(rng) % 10, i;

	tm_buf_clear(out);
	for (i = 0; i < n; i++)
		tm_buf_puts(out, pieces[rng_next(rng) %
					(sizeof(pieces) / sizeof(*pieces))]);
}

START_TEST(test_frontmatter_property_titles)
{
	uint32_t rng = 20260415;
	tm_buf title = TM_BUF_INIT, path = TM_BUF_INIT;
	tm_thread *t, *back;
	char *first, *second;
	int i;

	for (i = 0; i < 1000; i++) {
		t = tm_thread_new();
		t->id = tm_xstrdup("p");
		random_text(&title, &rng);
		t->title = tm_xstrdup(tm_buf_cstr(&title));
		random_text(&path, &rng);
		t->has_paths = rng_next(&rng) % 2;
		if (t->has_paths && path.size)
			tm_strv_push(&t->paths, path.ptr);
		first = written(t);
		back = NULL;
		ck_assert_msg(tm_frontmatter_parse(&back, first, strlen(first),
						   "p", "p.md") == 0,
			      "#%d %s\n%s", i, tm_error_last(), first);
		ck_assert_msg(!strcmp(back->title, t->title),
			      "#%d title '%s' read as '%s'", i, t->title,
			      back->title);
		ck_assert(back->has_paths == t->has_paths);
		ck_assert_msg(tm_strv_equal(&back->paths, &t->paths),
			      "#%d paths in\n%s", i, first);
		second = written(back);
		ck_assert_str_eq(second, first);
		free(first);
		free(second);
		tm_thread_free(t);
		tm_thread_free(back);
	}
	tm_buf_release(&title);
	tm_buf_release(&path);
}
END_TEST

/* Seconds on the monotonic clock. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A block of `n` distinct unknown keys (issue 11, d2: was quadratic). */
static void many_keys(tm_buf *b, size_t n)
{
	size_t i;

	tm_buf_puts(b, "---\nid: keys\ntitle: K\nparentId: main\n");
	for (i = 0; i < n; i++)
		tm_buf_printf(b, "k%zx: v\n", i);
}

START_TEST(test_frontmatter_many_keys_linear)
{
	tm_buf file = TM_BUF_INIT;
	tm_thread *t;
	char *out;
	double start;

	many_keys(&file, 100000);
	tm_buf_puts(&file, "---\n");
	start = now_s();
	t = parse_len(file.ptr, file.size, "keys");
	out = written(t);
	/*
	 * ~40 s when the duplicate check was quadratic; ~30 ms linear, 2 s
	 * seen under ASan on a loaded machine: a bound far from both.
	 */
	ck_assert_msg(now_s() - start < 10.0 * tmt_time_scale(), "%.2f s",
		      now_s() - start);
	ck_assert_uint_eq(t->nextra, 100000);
	ck_assert_str_eq(t->extra[99999].key, "k1869f");
	ck_assert_str_eq(out, file.ptr);
	free(out);
	tm_thread_free(t);
	/* a duplicate of the first key, 100,000 lines later */
	tm_buf_clear(&file);
	many_keys(&file, 100000);
	tm_buf_puts(&file, "k0: again\n---\n");
	check_fails(file.ptr, "line 100005: duplicate key 'k0'");
	tm_buf_release(&file);
}
END_TEST

START_TEST(test_frontmatter_duplicate_key_order)
{
	/* the first error in file order wins, whatever its kind */
	check_fails("---\njust words\ntitle: A\ntitle: B\n---\n",
		    "line 2: expected 'key: value'");
	check_fails("---\ntitle: A\ntitle: B\njust words\n---\n",
		    "line 3: duplicate key 'title'");
	check_fails("---\npaths: [a\ntitle: B\n---\n", "line 2: cannot read");
	check_fails("---\nb: 1\na: 2\nb: 3\na: 4\n---\n",
		    "line 4: duplicate key 'b'");
	check_fails("---\nx: 1\n  more\ny: 2\nx: 3\n  indented\n---\n",
		    "line 5: duplicate key 'x'");
	/* a key that is a prefix of another is no duplicate; comments
	 * are no keys */
	check_identical("---\nid: t\nparentId: null\na: 1\nab: 2\naa: 3\n"
			"# a: 4\n# a: 4\n---\n");
}
END_TEST

/* Rewrite the summary with itself `n` times; the body must not change. */
static void check_summary_stable(tm_thread *t, int n)
{
	char *body = tm_xstrndup(t->body, t->body_len), *summary;
	size_t len = t->body_len;

	while (n-- > 0) {
		summary = tm_thread_summary(t);
		tm_thread_set_summary(t, summary, strlen(summary));
		ck_assert_uint_eq(t->body_len, len);
		ck_assert_msg(!memcmp(t->body, body, len), "body now '%s'",
			      t->body);
		free(summary);
	}
	free(body);
}

START_TEST(test_frontmatter_summary_cr_kept)
{
	/* issue 11, d14: CR CR LF lost one CR per rewrite */
	const char *crlf = "---\r\nid: t\r\nparentId: null\r\n---\r\n\r\n"
			   "one\r\r\ntwo\r\r\r\nthree\r\n";
	tm_thread *t = parse(crlf);
	char *summary = tm_thread_summary(t), *out;

	ck_assert_str_eq(summary, "one\r\r\ntwo\r\r\r\nthree\n");
	check_summary_stable(t, 3);
	out = written(t);
	ck_assert_str_eq(out, crlf);
	free(out);
	free(summary);
	tm_thread_free(t);

	/* an LF file: the text "one\r\r\n" is the line "one\r" */
	t = parse("---\nid: t\nparentId: null\n---\n");
	tm_thread_set_summary(t, "one\r\r\ntwo\n", 10);
	ck_assert_str_eq(t->body, "\none\r\ntwo\n");
	summary = tm_thread_summary(t);
	ck_assert_str_eq(summary, "one\r\r\ntwo\n");
	free(summary);
	check_summary_stable(t, 3);
	/* a hand-written CR LF line in an LF file survives too */
	tm_thread_set_body(t, "\nx\r\ny\n", 6);
	check_summary_stable(t, 2);
	/* and a CRLF thread takes the same text as CR CR LF */
	t->crlf = true;
	tm_thread_set_summary(t, "one\r\r\ntwo\n", 10);
	ck_assert_str_eq(t->body, "\r\none\r\r\ntwo\r\n");
	check_summary_stable(t, 3);
	tm_thread_free(t);
}
END_TEST

Suite *frontmatter_suite(void)
{
	Suite *s = suite_create("frontmatter");
	TCase *tc;

	tc = tcase_create("roundtrip");
	tcase_add_test(tc, test_frontmatter_seed_roundtrip);
	tcase_add_test(tc, test_frontmatter_seed_fields);
	tcase_add_test(tc, test_frontmatter_fence_in_body);
	tcase_add_test(tc, test_frontmatter_empty_body);
	tcase_add_test(tc, test_frontmatter_body_any_bytes);
	tcase_add_test(tc, test_frontmatter_write_all_fields);
	suite_add_tcase(s, tc);

	tc = tcase_create("line_ends");
	tcase_add_test(tc, test_frontmatter_crlf_stays_crlf);
	tcase_add_test(tc, test_frontmatter_crlf_mixed_and_body);
	tcase_add_test(tc, test_frontmatter_bom_dropped);
	suite_add_tcase(s, tc);

	tc = tcase_create("extra");
	tcase_add_test(tc, test_frontmatter_unknown_fields_kept);
	tcase_add_test(tc, test_frontmatter_unknown_fields_reordered);
	tcase_add_test(tc, test_frontmatter_unknown_fields_crlf);
	tcase_add_test(tc, test_frontmatter_blank_lines);
	tcase_add_test(tc, test_frontmatter_trailing_crs_dropped);
	suite_add_tcase(s, tc);

	tc = tcase_create("fields");
	tcase_add_test(tc, test_frontmatter_parent_null);
	tcase_add_test(tc, test_frontmatter_null_forms);
	tcase_add_test(tc, test_frontmatter_paths_block_sequence);
	tcase_add_test(tc, test_frontmatter_paths_forms);
	tcase_add_test(tc, test_frontmatter_block_only);
	tcase_add_test(tc, test_frontmatter_plain_value_raw);
	tcase_add_test(tc, test_frontmatter_quoted_values);
	tcase_add_test(tc, test_frontmatter_multiline_values);
	tcase_add_test(tc, test_frontmatter_id_from_file_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_frontmatter_error_no_opening);
	tcase_add_test(tc, test_frontmatter_error_no_closing);
	tcase_add_test(tc, test_frontmatter_error_nul);
	tcase_add_test(tc, test_frontmatter_error_invalid_utf8);
	tcase_add_test(tc, test_frontmatter_error_duplicate_key);
	tcase_add_test(tc, test_frontmatter_duplicates_any_block_size);
	tcase_add_test(tc, test_frontmatter_near_field_names_are_extras);
	tcase_add_test(tc, test_frontmatter_error_collection_value);
	tcase_add_test(tc, test_frontmatter_04_raw_values);
	tcase_add_test(tc, test_frontmatter_error_garbage_line);
	tcase_add_test(tc, test_frontmatter_duplicate_key_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_add_test(tc, test_frontmatter_many_keys_linear);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("summary");
	tcase_add_test(tc, test_frontmatter_set_summary_trims);
	tcase_add_test(tc, test_frontmatter_set_summary_crlf);
	tcase_add_test(tc, test_frontmatter_set_summary_empty);
	tcase_add_test(tc, test_frontmatter_summary_blank);
	tcase_add_test(tc, test_frontmatter_summary_roundtrip);
	tcase_add_test(tc, test_frontmatter_summary_cr_kept);
	suite_add_tcase(s, tc);

	tc = tcase_create("property");
	tcase_add_test(tc, test_frontmatter_property_titles);
	suite_add_tcase(s, tc);
	return s;
}
