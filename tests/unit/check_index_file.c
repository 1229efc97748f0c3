/*
 * Unit tests of lib/git/index_file.c: the unmerged paths of git's index file,
 * read in place, against what git itself lists (git ls-files -u) for index
 * versions 2, 3 and 4; and every file it must leave to libgit2 (split
 * index, unknown version, damaged, out of order, case order) refused.
 */
#include "index_file.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *repo, *index_path;

static void setup(void)
{
	tmp = tmt_sandbox();
	repo = tmt_git_repo(tmp, "repo");
	index_path = tmt_join(repo, ".git/index");
}

static void teardown(void)
{
	free(index_path);
	free(repo);
	tmt_sandbox_end(tmp);
}

/* Entries at stages 1-3 for `path` (git update-index --index-info). */
static void conflict(const char *path)
{
	tmt_sh("cd '%s' && blob=$(echo x | git hash-object -w --stdin) && "
	       "printf '100644 %%s 1\\t%s\\n100644 %%s 2\\t%s\\n"
	       "100644 %%s 3\\t%s\\n' $blob $blob $blob $blob $blob $blob | "
	       "git update-index --index-info",
	       repo, path, path, path);
}

/* Some merged files around the conflicts, sharing prefixes (version 4
 * compresses them) and with long names. */
static void populate(void)
{
	tmt_sh("cd '%s' && mkdir -p .threadmind/threads/p src/deep/er && "
	       "for f in a b .threadmind/config.json "
	       ".threadmind/threads/p/aa.md .threadmind/threads/p/zz.md "
	       "src/deep/er/x.c src/deep/er/%0200d.c zzz; do "
	       "echo \"$f\" >\"$f\"; done && git add -A && "
	       "git commit -qm one",
	       repo, 7);
	conflict(".threadmind/threads/p/m.md");
	conflict(".threadmind/threads/p/t.md");
	conflict("src/deep/er/y.c");
	conflict(".threadmindx");
}

/* The unmerged paths starting with `prefix`, as git lists them, joined
 * with '\n'. */
static char *git_says(const char *prefix)
{
	return tmt_sh_out("cd '%s' && git ls-files -u | cut -f2 | uniq | "
			  "grep '^%s' || :",
			  repo, prefix);
}

static char *joined(const tm_strv *v)
{
	tm_buf b = TM_BUF_INIT;
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (i)
			tm_buf_putc(&b, '\n');
		tm_buf_puts(&b, v->items[i]);
	}
	return tm_buf_detach(&b);
}

static void assert_same_as_git(const char *prefix)
{
	tm_strv got = TM_STRV_INIT;
	char *want = git_says(prefix), *have;

	tm_strv_push(&got, "kept");
	ck_assert(tm_index_file_conflicts(&got, index_path, NULL, prefix) == 0);
	ck_assert_str_eq(got.items[0], "kept"); /* appended */
	free(got.items[0]);
	memmove(got.items, got.items + 1, --got.n * sizeof(char *));
	have = joined(&got);
	ck_assert_str_eq(have, want);
	free(have);
	free(want);
	tm_strv_clear(&got);
}

START_TEST(test_index_file_versions)
{
	static const char *const versions[] = {"2", "3", "4"};
	size_t i;

	populate();
	for (i = 0; i < 3; i++) {
		tmt_sh("cd '%s' && git update-index --index-version %s", repo,
		       versions[i]);
		assert_same_as_git(".threadmind/");
		assert_same_as_git("");
		assert_same_as_git("src/");
		assert_same_as_git("nothing/");
	}
	/* the extended flags (intent-to-add) in version 3 */
	tmt_sh("cd '%s' && echo n >new && git add -N new && "
	       "git update-index --index-version 3",
	       repo);
	assert_same_as_git("");
	tmt_sh("cd '%s' && git update-index --index-version 4", repo);
	assert_same_as_git("");
}
END_TEST

/* The entries tm_index_file_entries gives (the stage-0 ones under
 * `prefix`, every .gitattributes), one line each in the shape of `git
 * ls-files -s --debug`'s. */
static char *entries_text(const char *prefix)
{
	tm_index_file_entry *e = NULL;
	size_t n = 0, i, k;
	int64_t mtime[2];
	tm_buf b = TM_BUF_INIT;

	ck_assert_int_eq(
		tm_index_file_entries(&e, &n, mtime, index_path, prefix), 0);
	ck_assert_int_gt(mtime[0], 0);
	for (i = 0; i < n; i++) {
		tm_buf_printf(&b, "%o ", e[i].mode);
		for (k = 0; k < 20; k++)
			tm_buf_printf(&b, "%02x", e[i].id[k]);
		tm_buf_printf(&b,
			      " 0\t%s\n  ctime: %u:%u\n  mtime: %u:%u\n"
			      "  dev: %u\tino: %u\n  size: %u %s\n",
			      e[i].path, e[i].ctime_s, e[i].ctime_ns,
			      e[i].mtime_s, e[i].mtime_ns, e[i].dev, e[i].ino,
			      e[i].size, e[i].vouched ? "vouched" : "flagged");
	}
	tm_index_file_entries_free(e, n);
	if (b.size)
		b.ptr[--b.size] = '\0'; /* as tmt_sh_out: no last newline */
	return tm_buf_detach(&b);
}

/* git's own listing of the same entries (stage 0, under `prefix`), the
 * flags turned into "vouched" (none of assume-unchanged, skip-worktree,
 * intent-to-add) or "flagged". */
static char *git_entries(const char *prefix)
{
	return tmt_sh_out(
		"cd '%s' && git ls-files -s --debug -- '%s*' | awk '"
		"/^[0-7]+ [0-9a-f]+ [0-3]\t/ { skip = ($3 != 0); "
		"if (!skip) print; next } skip { next } "
		"/size:/ { f = $4; printf \"  size: %%s %%s\\n\", $2, "
		"(f == 0 ? \"vouched\" : \"flagged\"); next } "
		"/uid:/ { next } { print }'",
		repo, prefix);
}

/* Stage-0 entries (blob id, stat data, flags) against git's --debug
 * listing, in every index version; a .gitattributes anywhere is given
 * too. */
START_TEST(test_index_file_entries_like_git)
{
	static const char *const versions[] = {"2", "3", "4"};
	char *have, *want;
	size_t i;

	populate();
	tmt_sh("cd '%s' && git update-index --assume-unchanged "
	       ".threadmind/threads/p/aa.md && git update-index "
	       "--skip-worktree .threadmind/threads/p/zz.md && echo n "
	       ">.threadmind/threads/p/new.md && git add -N "
	       ".threadmind/threads/p/new.md",
	       repo);
	for (i = 0; i < 3; i++) {
		tmt_sh("cd '%s' && git update-index --index-version %s", repo,
		       versions[i]);
		have = entries_text(".threadmind/");
		want = git_entries(".threadmind/");
		ck_assert_str_eq(have, want);
		ck_assert(strstr(have, "aa.md") && strstr(have, "new.md"));
		free(have);
		free(want);
		have = entries_text("");
		want = git_entries("");
		ck_assert_str_eq(have, want);
		free(have);
		free(want);
	}
	tmt_sh("cd '%s' && mkdir -p deep && echo x >deep/.gitattributes && "
	       "git add deep/.gitattributes",
	       repo);
	/* and every .gitattributes, wherever it is */
	have = entries_text(".threadmind/");
	want = git_entries(".threadmind/");
	ck_assert(!strncmp(have, want, strlen(want)));
	ck_assert(strstr(have + strlen(want), "\tdeep/.gitattributes\n"));
	free(have);
	free(want);
}
END_TEST

START_TEST(test_index_file_missing_and_clean)
{
	tm_strv got = TM_STRV_INIT;

	ck_assert_int_eq(tm_index_file_conflicts(&got, index_path, NULL, ""),
			 0);
	ck_assert_uint_eq(got.n, 0);
	tmt_sh("cd '%s' && echo a >a && git add a && git commit -qm a", repo);
	ck_assert_int_eq(tm_index_file_conflicts(&got, index_path, NULL, ""),
			 0);
	ck_assert_uint_eq(got.n, 0);
}
END_TEST

static void assert_refused(void)
{
	tm_strv got = TM_STRV_INIT;

	tm_strv_push(&got, "kept");
	ck_assert_int_eq(tm_index_file_conflicts(&got, index_path, NULL, ""),
			 TM_INDEX_FILE_ASK_LIBGIT2);
	ck_assert_uint_eq(got.n, 1);
	tm_strv_clear(&got);
}

START_TEST(test_index_file_split_index_refused)
{
	populate();
	tmt_sh("cd '%s' && git update-index --split-index", repo);
	assert_refused();
}
END_TEST

START_TEST(test_index_file_damaged_refused)
{
	size_t len, cut;
	char *data;

	populate();
	data = tmt_read_file(index_path, &len);
	/* every truncation: refused, or (cut just where the entries end plus
	 * 20 bytes, read as the hash) the right answer */
	for (cut = 0; cut < len - 20; cut += 3) {
		tm_strv got = TM_STRV_INIT;
		char *have;

		tmt_write_file(index_path, data, cut);
		if (tm_index_file_conflicts(&got, index_path, NULL, "") == 0) {
			have = joined(&got);
			ck_assert_str_eq(have, ".threadmind/threads/p/m.md\n"
					       ".threadmind/threads/p/t.md\n"
					       ".threadmindx\n"
					       "src/deep/er/y.c");
			free(have);
		}
		tm_strv_clear(&got);
	}
	/* another version */
	data[7] = 5;
	tmt_write_file(index_path, data, len);
	assert_refused();
	data[7] = 2;
	tmt_write_file(index_path, data, len);
	assert_same_as_git("");
	free(data);
	/* an unknown mandatory extension after the entries */
	tmt_sh("cd '%s' && head -c -20 .git/index >i && "
	       "printf 'sdir\\0\\0\\0\\0' >>i && "
	       "head -c 20 /dev/zero >>i && mv i .git/index",
	       repo);
	assert_refused();
	tmt_sh("cd '%s' && head -c -28 .git/index >i && "
	       "printf 'ABCD\\0\\0\\0\\0' >>i && "
	       "head -c 20 /dev/zero >>i && mv i .git/index",
	       repo);
	assert_same_as_git(""); /* an optional one is skipped */
	/* not an index */
	tmt_write_file(index_path, "DIRX\0\0\0\2\0\0\0\0", 12);
	assert_refused();
}
END_TEST

START_TEST(test_index_file_order_refused)
{
	size_t len;
	char *data, *a;

	populate();
	tmt_sh("cd '%s' && git update-index --index-version 2", repo);
	data = tmt_read_file(index_path, &len);
	/* rename the second entry ("b") to "B": before "a", out of order */
	a = memmem(data, len, "\1b\0", 3); /* flags: length 1 */
	ck_assert_ptr_nonnull(a);
	a[1] = 'B';
	tmt_write_file(index_path, data, len);
	assert_refused();
	free(data);
}
END_TEST

START_TEST(test_index_file_case_order_refused)
{
	tm_strv got = TM_STRV_INIT;

	tmt_sh("cd '%s' && echo a >a && git add a && git commit -qm a", repo);
	conflict("x/B.md");
	conflict("x/a.md"); /* after B in bytes, before it without case */
	assert_refused();
	ck_assert_int_eq(tm_index_file_conflicts(&got, index_path, NULL, "x/a"),
			 0);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_str_eq(got.items[0], "x/a.md");
	tm_strv_clear(&got);
}
END_TEST

/* Append a version 4 entry at stage 1: `strip` bytes off the previous
 * path, then `add` (`alen` bytes). */
static void v4_entry(tm_buf *b, size_t strip, const char *add, size_t alen,
		     size_t pathlen)
{
	unsigned char fixed[62] = {0}, var[16];
	size_t k = sizeof(var);

	fixed[27] = 0x81; /* mode 100644, big-endian at 24 */
	fixed[28] = 0xa4;
	memset(fixed + 40, 0x11, 20);
	fixed[60] =
		(unsigned char)(0x10 | (pathlen > 0xfff ? 0xf : pathlen >> 8));
	fixed[61] = (unsigned char)(pathlen > 0xfff ? 0xff : pathlen & 0xff);
	tm_buf_put(b, (const char *)fixed, sizeof(fixed));
	var[--k] = strip & 127; /* git's varint */
	while (strip >>= 7)
		var[--k] = (unsigned char)(128 | (--strip & 127));
	tm_buf_put(b, (const char *)var + k, sizeof(var) - k);
	tm_buf_put(b, add, alen);
	tm_buf_putc(b, '\0');
}

/* A version 4 index of `n` entries under .threadmind/: "grow" adds 64
 * bytes to each path (the 1 MiB file that took 2 GiB), "long"
 * keeps ~3,000-byte paths changing one byte each (`first_upper`: the
 * first few ordered by bytes but not without case). */
static void write_hostile(size_t n, const char *mode, bool first_upper)
{
	tm_buf b = TM_BUF_INIT, path = TM_BUF_INIT;
	unsigned char hdr[12] = {'D', 'I', 'R', 'C', 0, 0, 0, 4};
	char add[3100];
	size_t i;

	hdr[8] = (unsigned char)(n >> 24);
	hdr[9] = (unsigned char)(n >> 16);
	hdr[10] = (unsigned char)(n >> 8);
	hdr[11] = (unsigned char)n;
	tm_buf_put(&b, (const char *)hdr, sizeof(hdr));
	for (i = 0; i < n; i++) {
		if (!strcmp(mode, "grow")) {
			memset(add, 'a', 64);
			tm_buf_put(&path, add, 64);
			v4_entry(&b, 0, add, 64, path.size);
		} else if (i == 0) {
			memset(add, 'd', 3000);
			tm_buf_puts(&path, ".threadmind/");
			tm_buf_put(&path, add, 3000);
			tm_buf_put(&path, "aa", 2);
			v4_entry(&b, 0, path.ptr, path.size, path.size);
		} else {
			add[0] = (char)('a' + (i / 26) % 26);
			add[1] = (char)('a' + i % 26);
			if (first_upper && i == 1)
				add[0] = 'B';
			v4_entry(&b, 2, add, 2, path.size);
		}
	}
	tm_buf_put(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20);
	tmt_write_file(index_path, b.ptr, b.size);
	tm_buf_release(&b);
	tm_buf_release(&path);
}

static void assert_damaged(const char *why)
{
	tm_strv got = TM_STRV_INIT;

	tm_strv_push(&got, "kept");
	ck_assert_int_eq(
		tm_index_file_conflicts(&got, index_path, ".git/index", ""),
		TM_EPARSE);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_msg(strstr(tm_error_last(), "'.git/index' looks damaged: ") &&
			      strstr(tm_error_last(), why) &&
			      strstr(tm_error_last(), "git reset"),
		      "%s", tm_error_last());
	tm_strv_clear(&got);
}

START_TEST(test_index_file_bounds)
{
	tm_strv got = TM_STRV_INIT;

	/* the shape: a path of 4,096 bytes at entry 64 */
	write_hostile(300, "grow", false);
	assert_damaged("entry 64 has a path of 4096 bytes or more");
	/* within PATH_MAX, but expanding 3,000 bytes an entry of 65 */
	write_hostile(600, "long", false);
	assert_damaged("expand to more than 16 times its");
	/* refused early for its order, the bound still holds */
	write_hostile(600, "long", true);
	assert_damaged("expand to more than 16 times its");
	/* a few such entries are fine: under 16 times */
	write_hostile(10, "long", false);
	ck_assert_int_eq(tm_index_file_conflicts(&got, index_path, NULL, ""),
			 0);
	ck_assert_uint_eq(got.n, 10);
	tm_strv_clear(&got);
	/* more entries than the bytes can hold */
	tmt_write_file(index_path,
		       "DIRC\0\0\0\4\x10\0\0\0"
		       "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
		       32);
	assert_damaged("it claims 268435456 entries, more than its 32 bytes");
}
END_TEST

Suite *index_file_suite(void)
{
	Suite *s = suite_create("index_file");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_index_file_versions);
	tcase_add_test(tc, test_index_file_missing_and_clean);
	tcase_add_test(tc, test_index_file_entries_like_git);
	tcase_add_test(tc, test_index_file_bounds);
	tcase_add_test(tc, test_index_file_split_index_refused);
	tcase_add_test(tc, test_index_file_damaged_refused);
	tcase_add_test(tc, test_index_file_order_refused);
	tcase_add_test(tc, test_index_file_case_order_refused);
	suite_add_tcase(s, tc);
	return s;
}
