/*
 * Unit tests of lib/stale/stale_worktree.c: when git's index vouches that a
 * thread file the store read from the work tree is a blob of the history,
 * so that the staleness engine takes the parsed thread for that blob's
 * version, and every case where it must not (a file changed since the read,
 * changed and added since, racy, flagged in the index, attributes, CRLF
 * settings, a thread not read from a file).  Repositories are made with
 * the real git binary.
 */
#include "stale_internal.h"
#include "threadmind/error.h"
#include "threadmind/store.h"
#include "test_util.h"

#include <check.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GIT                                                         \
	"git -c user.name=Tester -c user.email=tester@example.com " \
	"-c init.defaultBranch=main -c commit.gpgsign=false "
#define TDIR  ".threadmind/threads/p/"
#define FILE1 TDIR "t1.md"

static char *tmp, *repo;

static const char thread_text[] =
	"---\n"
	"id: t1\n"
	"title: One\n"
	"parentId: null\n"
	"author: someone\n"
	"createdAt: 2024-01-01T00:00:00.000Z\n"
	"updatedAt: 2024-01-01T00:00:00.000Z\n"
	"commit: 0123456789012345678901234567890123456789\n"
	"paths: [\"src\"]\n"
	"---\n"
	"\n## Decisions\n- one\n";

/* A repository whose one commit holds FILE1 (its mtime set in the past,
 * so that the index entry is not racy). */
static void setup(void)
{
	tmp = tmt_sandbox();
	repo = tmt_join(tmp, "repo");
	tmt_sh(GIT "init -q '%s'", repo);
	tmt_put(repo, FILE1, thread_text);
	tmt_sh("touch -d '2020-01-01 00:00:00' '%s/" FILE1 "'", repo);
	tmt_sh(GIT "-C '%s' add -A && " GIT "-C '%s' commit -q -m one", repo,
	       repo);
}

static void teardown(void)
{
	tmt_sandbox_end(tmp);
	free(repo);
	tmp = repo = NULL;
}

/* The store's threads of project p (read as `status` reads them). */
static void load(tm_thread_list *list)
{
	tm_store *s = NULL;

	ck_assert_msg(tm_store_open(&s, repo) == 0, "%s", tm_error_last());
	ck_assert_msg(tm_store_load_all(list, s, "p") == 0, "%s",
		      tm_error_last());
	ck_assert_uint_eq(list->n, 1);
	tm_store_free(s);
}

static git_oid blob_of(const char *spec)
{
	char *hex = tmt_sh_out("git -C '%s' rev-parse '%s'", repo, spec);
	git_oid id;

	ck_assert_int_eq(git_oid_fromstr(&id, hex), 0);
	free(hex);
	return id;
}

/* What tm_stale__worktree_thread answers for HEAD's FILE1 now, given the
 * threads as `list` read them. */
static const tm_thread *ask(tm_thread_list *list, struct tm_stale_worktree *wt,
			    git_repository **r)
{
	git_oid id = blob_of("HEAD:" FILE1);

	ck_assert_int_eq(git_repository_open(r, repo), 0);
	tm_stale__worktree_init(
		wt, *r, TDIR, (const tm_thread *const *)list->threads, list->n);
	return tm_stale__worktree_thread(wt, &id, "t1.md");
}

static void forget(tm_thread_list *list, struct tm_stale_worktree *wt,
		   git_repository *r)
{
	tm_stale__worktree_free(wt);
	git_repository_free(r);
	tm_thread_list_clear(list);
}

/* Whether the work tree's thread stands for HEAD's blob of FILE1, the
 * threads read before `between` runs (a shell command in the repository,
 * or NULL) and the question asked after. */
static bool vouched_after(const char *between)
{
	tm_thread_list list;
	struct tm_stale_worktree wt;
	git_repository *r = NULL;
	const tm_thread *t;
	bool yes;

	load(&list);
	if (between)
		tmt_sh("cd '%s' && %s", repo, between);
	t = ask(&list, &wt, &r);
	yes = t != NULL;
	if (t)
		ck_assert_str_eq(t->id, "t1");
	forget(&list, &wt, r);
	return yes;
}

START_TEST(test_worktree_clean_file_vouched)
{
	ck_assert(vouched_after(NULL));
}
END_TEST

START_TEST(test_worktree_other_blob_not_vouched)
{
	tm_thread_list list;
	struct tm_stale_worktree wt;
	git_repository *r = NULL;
	git_oid other;

	tmt_put(repo, "other.txt", "x\n");
	tmt_sh(GIT "-C '%s' add other.txt", repo);
	other = blob_of(":other.txt");
	load(&list);
	ask(&list, &wt, &r);
	ck_assert_ptr_null(tm_stale__worktree_thread(&wt, &other, "t1.md"));
	ck_assert_ptr_null(
		tm_stale__worktree_thread(&wt, &other, "missing.md"));
	forget(&list, &wt, r);
}
END_TEST

/* Changed in the work tree and not added, before the read: the bytes
 * read are not the blob's, and the entry's stat data say so. */
START_TEST(test_worktree_modified_not_added)
{
	tmt_sh("sed -i 's/title: One/title: Two/' '%s/" FILE1 "'", repo);
	ck_assert(!vouched_after(NULL));
	tmt_sh("touch -d '2020-01-01 00:00:00' '%s/" FILE1 "'", repo);
	ck_assert(!vouched_after(NULL)); /* its ctime still tells */
}
END_TEST

/* Written again after the read (same size): the read's bytes are not
 * known to be the file's any more. */
START_TEST(test_worktree_rewritten_after_read)
{
	ck_assert(!vouched_after("sed -i 's/title: One/title: Two/' " FILE1));
}
END_TEST

/* Changed, added and committed after the read, its old mtime put back:
 * HEAD's blob, its index entry and the file agree again, but not with the
 * bytes read (the stamp's inode and ctime tell). */
START_TEST(test_worktree_changed_and_added_after_read)
{
	ck_assert(!vouched_after(
		"sleep 0.05 && sed -i 's/title: One/title: Two/' " FILE1
		" && touch -d '2020-01-01 00:00:00' " FILE1 " && " GIT
		"add " FILE1 " && " GIT "commit -q -m two"));
}
END_TEST

/* An entry whose file changed at or after the index was written: racy,
 * its stat data prove nothing (git smudges such entries when it writes
 * them; here the index's mtime is put back before the file's). */
START_TEST(test_worktree_racy_entry)
{
	ck_assert(!vouched_after("touch -d '2000-01-01 00:00:00' .git/index"));
	ck_assert(!vouched_after("touch -d '2020-01-01 00:00:00' .git/index"));
	ck_assert(vouched_after("touch -d '2020-01-01 00:00:01' .git/index"));
}
END_TEST

START_TEST(test_worktree_index_flags)
{
	ck_assert(!vouched_after("git update-index --assume-unchanged " FILE1));
	tmt_sh("git -C '%s' update-index --no-assume-unchanged " FILE1, repo);
	ck_assert(vouched_after(NULL));
	ck_assert(!vouched_after("git update-index --skip-worktree " FILE1));
}
END_TEST

/* An attributes file that may change how the thread files are checked out
 * (one of the words of a checkout attribute, a macro): the blobs are read
 * instead.  install's own lines do not. */
START_TEST(test_worktree_attributes)
{
	ck_assert(vouched_after(
		"printf '%s\\n%s\\n' "
		"'threads/**/*.md merge=threadmind diff=markdown' "
		"'projects/*.json merge=threadmind' "
		">.threadmind/.gitattributes"));
	ck_assert(!vouched_after("echo '*.md -text' > .gitattributes"));
	tmt_sh("rm '%s/.gitattributes'", repo);
	ck_assert(vouched_after("echo '*.c diff=cpp' > .gitattributes"));
	ck_assert(!vouched_after("echo '[attr]mine merge=x' > .gitattributes"));
	tmt_sh("rm '%s/.gitattributes'", repo);
	ck_assert(!vouched_after("echo '*.md eol=crlf' > " TDIR
				 ".gitattributes"));
	tmt_sh("rm '%s/" TDIR ".gitattributes'", repo);
	ck_assert(!vouched_after("mkdir -p .git/info && echo '*.md ident' > "
				 ".git/info/attributes"));
	tmt_sh("rm '%s/.git/info/attributes'", repo);
	ck_assert(vouched_after(NULL));
	/* in the index only (deleted from the work tree): git reads that */
	ck_assert(!vouched_after("echo '* diff' > .threadmind/.gitattributes "
				 "&& git add .threadmind/.gitattributes && "
				 "rm .threadmind/.gitattributes"));
	tmt_sh("git -C '%s' rm -q --cached .threadmind/.gitattributes", repo);
	/* in the index and the work tree: the work tree's must be its copy */
	ck_assert(vouched_after("echo '*.c diff=cpp' > .gitattributes && "
				"touch -d '2020-01-01 00:00:00' .gitattributes "
				"&& git add .gitattributes"));
	ck_assert(!vouched_after("echo '*.c diff=cpp2' > .gitattributes"));
	tmt_sh("cd '%s' && git checkout -q .gitattributes && git rm -q "
	       "--cached .gitattributes && rm .gitattributes",
	       repo);
	/* elsewhere than on the way to the threads: it does not apply */
	ck_assert(
		vouched_after("mkdir -p a && echo '* text' > a/.gitattributes "
			      "&& git add a/.gitattributes"));
	ck_assert(
		!vouched_after("git config core.attributesFile \"$PWD/attrs\" "
			       "&& echo '*.md ident' > attrs"));
	tmt_sh("git -C '%s' config --unset core.attributesFile", repo);
	ck_assert(vouched_after(NULL));
	ck_assert(!vouched_after(
		"mkdir -p \"$HOME/.config/git\" && echo "
		"'* eol=lf' > \"$HOME/.config/git/attributes\""));
	tmt_sh("rm \"$HOME/.config/git/attributes\"");
	ck_assert(vouched_after(NULL));
	/* the sandbox's system folder (tmt_sandbox: libgit2's search path) */
	ck_assert(!vouched_after(
		"echo '* filter=f' > \"$HOME/../etc/gitattributes\""));
}
END_TEST

START_TEST(test_worktree_crlf_settings)
{
	ck_assert(!vouched_after("git config core.autocrlf true"));
	tmt_sh("git -C '%s' config core.autocrlf input", repo);
	ck_assert(vouched_after(NULL));
	ck_assert(!vouched_after("git config core.eol crlf"));
}
END_TEST

/* A thread not read from a file (no stamp) is never taken. */
START_TEST(test_worktree_unstamped_thread)
{
	tm_thread_list list;
	struct tm_stale_worktree wt;
	git_repository *r = NULL;

	load(&list);
	list.threads[0]->stamp.set = false;
	ck_assert_ptr_null(ask(&list, &wt, &r));
	forget(&list, &wt, r);
}
END_TEST

/* The engine's version of the blob comes from the work tree's thread when
 * it is vouched for: with the blob itself gone from the repository, the
 * version still says the file's identity and review commit. */
START_TEST(test_worktree_version_without_the_blob)
{
	tm_thread_list list;
	struct tm_stale_worktree wt;
	struct tm_stale_blobs none, with;
	const struct tm_stale_blob_version *v;
	git_repository *r = NULL;
	git_oid id = blob_of("HEAD:" FILE1);
	char *hex = tmt_sh_out("git -C '%s' rev-parse HEAD:" FILE1, repo);

	tmt_sh("rm -f '%s/.git/objects/%.2s/%s'", repo, hex, hex + 2);
	load(&list);
	ask(&list, &wt, &r);
	memset(&none, 0, sizeof(none));
	memset(&with, 0, sizeof(with));
	with.wt = &wt;
	v = tm_stale__blob_version(&none, r, &id, "t1.md");
	ck_assert_uint_eq(v->ident, 0); /* unreadable: says nothing */
	v = tm_stale__blob_version(&with, r, &id, "t1.md");
	ck_assert_uint_ne(v->ident, 0);
	ck_assert_uint_eq(v->ident,
			  tm_stale__identity(list.threads[0], "t1.md"));
	ck_assert_str_eq(git_oid_tostr_s(&v->review),
			 "0123456789012345678901234567890123456789");
	tm_stale__blobs_release(&none);
	tm_stale__blobs_release(&with);
	forget(&list, &wt, r);
	free(hex);
}
END_TEST

Suite *stale_worktree_suite(void)
{
	Suite *s = suite_create("stale_worktree");
	TCase *tc = tcase_create("vouched");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_worktree_clean_file_vouched);
	tcase_add_test(tc, test_worktree_other_blob_not_vouched);
	tcase_add_test(tc, test_worktree_modified_not_added);
	tcase_add_test(tc, test_worktree_rewritten_after_read);
	tcase_add_test(tc, test_worktree_changed_and_added_after_read);
	tcase_add_test(tc, test_worktree_racy_entry);
	tcase_add_test(tc, test_worktree_index_flags);
	tcase_add_test(tc, test_worktree_attributes);
	tcase_add_test(tc, test_worktree_crlf_settings);
	tcase_add_test(tc, test_worktree_unstamped_thread);
	tcase_add_test(tc, test_worktree_version_without_the_blob);
	suite_add_tcase(s, tc);
	return s;
}
