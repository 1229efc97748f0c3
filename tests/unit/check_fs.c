/* Unit tests of lib/io/fs.c: no-follow opens, bounded reads, listings, atomic
 * replacement (with injected faults), UUIDs, readers during rewrites. */
#include "threadmind/fs.h"
#include "threadmind/error.h"
#include "test_util.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *dir;
static int dfd = -1;

static void setup(void)
{
	dir = tmt_mkdtemp();
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
}

static void teardown(void)
{
	if (dfd >= 0)
		close(dfd);
	dfd = -1;
	chmod(dir, 0700);
	tmt_rmtree(dir);
	free(dir);
	dir = NULL;
}

static char *path_of(const char *name)
{
	return tmt_join(dir, name);
}

static void put(const char *name, const char *content)
{
	char *p = path_of(name);

	tmt_write_file(p, content, strlen(content));
	free(p);
}

/* The content of `name` in the test folder (malloc'd). */
static char *get(const char *name)
{
	char *p = path_of(name), *data = tmt_read_file(p, NULL);

	free(p);
	return data;
}

static bool exists(const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static mode_t mode_of(const char *name)
{
	struct stat st;

	ck_assert_int_eq(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	return st.st_mode;
}

/* Entries of the test folder, sorted, joined with ' '. */
static char *listing(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	tm_strv v = TM_STRV_INIT;
	tm_buf b = TM_BUF_INIT;
	size_t i;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			tm_strv_push(&v, e->d_name);
	}
	closedir(d);
	tm_strv_sort(&v);
	for (i = 0; i < v.n; i++)
		tm_buf_printf(&b, "%s%s", i ? " " : "", v.items[i]);
	tm_strv_clear(&v);
	tm_buf_puts(&b, "");
	return tm_buf_detach(&b);
}

static mode_t current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

START_TEST(test_fs_write_new_file)
{
	char *data, *list;

	ck_assert_int_eq(
		tm_atomic_write_at(dfd, "a.json", "x/a.json", "{\"a\":1}\n", 8),
		0);
	data = get("a.json");
	ck_assert_str_eq(data, "{\"a\":1}\n");
	ck_assert(S_ISREG(mode_of("a.json")));
	ck_assert_uint_eq(mode_of("a.json") & 0777, 0666 & ~current_umask());
	list = listing();
	ck_assert_str_eq(list, "a.json");
	free(list);
	free(data);
}
END_TEST

START_TEST(test_fs_write_empty_and_binary)
{
	static const char bin[] = {'a', '\0', 'b', '\n', '\xff'};
	char *p = path_of("b"), *data;
	size_t len;

	ck_assert_int_eq(tm_atomic_write_at(dfd, "e", "e", "", 0), 0);
	data = get("e");
	ck_assert_str_eq(data, "");
	free(data);
	ck_assert_int_eq(tm_atomic_write_at(dfd, "b", "b", bin, sizeof(bin)),
			 0);
	data = tmt_read_file(p, &len);
	ck_assert_uint_eq(len, sizeof(bin));
	ck_assert_mem_eq(data, bin, sizeof(bin));
	free(data);
	free(p);
}
END_TEST

START_TEST(test_fs_replace_keeps_mode)
{
	mode_t old = umask(022);
	char *data;

	put("run.sh", "old\n");
	ck_assert_int_eq(fchmodat(dfd, "run.sh", 0755, 0), 0);
	ck_assert_int_eq(
		tm_atomic_write_at(dfd, "run.sh", "run.sh", "new\n", 4), 0);
	data = get("run.sh");
	ck_assert_str_eq(data, "new\n");
	free(data);
	ck_assert_uint_eq(mode_of("run.sh") & 07777, 0755);

	/* Bits the umask would clear are kept too. */
	ck_assert_int_eq(fchmodat(dfd, "run.sh", 0666, 0), 0);
	ck_assert_int_eq(tm_atomic_write_at(dfd, "run.sh", "run.sh", "v3", 2),
			 0);
	ck_assert_uint_eq(mode_of("run.sh") & 07777, 0666);
	ck_assert_int_eq(fchmodat(dfd, "run.sh", 0600, 0), 0);
	ck_assert_int_eq(tm_atomic_write_at(dfd, "run.sh", "run.sh", "v4", 2),
			 0);
	ck_assert_uint_eq(mode_of("run.sh") & 07777, 0600);
	umask(old);
}
END_TEST

START_TEST(test_fs_no_temp_left)
{
	char name[16], *list;
	int i;

	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "f%d", i % 3);
		ck_assert_int_eq(
			tm_atomic_write_at(dfd, name, name, name, strlen(name)),
			0);
	}
	list = listing();
	ck_assert_str_eq(list, "f0 f1 f2");
	free(list);
}
END_TEST

static const tm_atomic_fault faults[] = {
	TM_ATOMIC_FAULT_OPEN,
	TM_ATOMIC_FAULT_WRITE,
	TM_ATOMIC_FAULT_FSYNC,
	TM_ATOMIC_FAULT_RENAME,
};

START_TEST(test_fs_fault_keeps_old_content)
{
	char big[8192], *data, *list;

	memset(big, 'n', sizeof(big));
	put("c.json", "old content\n");
	tm_atomic_inject_fault(faults[_i]);
	ck_assert_int_eq(tm_atomic_write_at(dfd, "c.json", "st/c.json", big,
					    sizeof(big)),
			 TM_ERROR);
	ck_assert_msg(strstr(tm_error_last(), "'st/c.json'") != NULL, "%s",
		      tm_error_last());
	data = get("c.json");
	ck_assert_str_eq(data, "old content\n");
	free(data);
	list = listing();
	ck_assert_str_eq(list, "c.json");
	free(list);

	/* A missing target stays missing. */
	tm_atomic_inject_fault(faults[_i]);
	ck_assert_int_eq(tm_atomic_write_at(dfd, "d.json", "d.json", "x", 1),
			 TM_ERROR);
	ck_assert(!exists("d.json"));
	list = listing();
	ck_assert_str_eq(list, "c.json");
	free(list);

	/* The fault is spent: the next write goes through. */
	ck_assert_int_eq(tm_atomic_write_at(dfd, "c.json", "c.json", "new", 3),
			 0);
	data = get("c.json");
	ck_assert_str_eq(data, "new");
	free(data);
}
END_TEST

/*
 * Over the file-size limit (RLIMIT_FSIZE) with SIGXFSZ ignored, as the
 * binaries run: the write fails with EFBIG like a full disk, the message
 * says which limit, and nothing is left behind.
 */
START_TEST(test_fs_file_size_limit)
{
	struct rlimit old, lim;
	char big[16384], *data, *list;
	void (*prev)(int);
	int error;

	memset(big, 'n', sizeof(big));
	put("c.json", "old content\n");
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	prev = signal(SIGXFSZ, SIG_IGN);
	error = tm_atomic_write_at(dfd, "c.json", "st/c.json", big,
				   sizeof(big));
	signal(SIGXFSZ, prev);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	ck_assert_int_eq(error, TM_ERROR);
	ck_assert_msg(strstr(tm_error_last(), "cannot write 'st/c.json'") &&
			      strstr(tm_error_last(), "ulimit -f"),
		      "%s", tm_error_last());
	data = get("c.json");
	ck_assert_str_eq(data, "old content\n");
	free(data);
	list = listing();
	ck_assert_str_eq(list, "c.json");
	free(list);
}
END_TEST

START_TEST(test_fs_symlink_target_replaced_not_followed)
{
	char *outside = tmt_mkdtemp();
	char *secret = tmt_join(outside, "secret"), *data;

	tmt_write_file(secret, "keep me", 7);
	ck_assert_int_eq(symlinkat(secret, dfd, "link"), 0);
	ck_assert_int_eq(tm_atomic_write_at(dfd, "link", "link", "mine", 4), 0);
	ck_assert(S_ISREG(mode_of("link")));
	data = get("link");
	ck_assert_str_eq(data, "mine");
	free(data);
	data = tmt_read_file(secret, NULL);
	ck_assert_str_eq(data, "keep me");
	free(data);
	tmt_rmtree(outside);
	free(secret);
	free(outside);
}
END_TEST

START_TEST(test_fs_write_path)
{
	char *p = path_of("sub/f.txt"), *sub = path_of("sub");
	char *link = path_of("link"), *via = path_of("link/f.txt");
	char *slash = path_of("sub/"), *data;

	ck_assert_int_eq(tm_atomic_write(p, "x", 1), TM_ENOTFOUND);
	tmt_mkdirs(sub);
	ck_assert_int_eq(tm_atomic_write(p, "xy", 2), 0);
	data = tmt_read_file(p, NULL);
	ck_assert_str_eq(data, "xy");
	free(data);

	ck_assert_int_eq(symlink(sub, link), 0);
	ck_assert_int_eq(tm_atomic_write(via, "z", 1), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "symbolic link"));
	data = tmt_read_file(p, NULL);
	ck_assert_str_eq(data, "xy");
	free(data);

	ck_assert_int_eq(tm_atomic_write(slash, "z", 1), TM_EINVALID);
	ck_assert_int_eq(tm_atomic_write("", "z", 1), TM_EINVALID);
	free(p);
	free(sub);
	free(link);
	free(via);
	free(slash);
}
END_TEST

/* The no-fsync variant: same atomic replacement, no fsync to fail. */
START_TEST(test_fs_write_nosync)
{
	char *p = path_of("a.txt"), *data, *list;

	put("a.txt", "old");
	ck_assert_int_eq(chmod(p, 0640), 0);
	/* an fsync fault cannot hit it: it never calls fsync */
	tm_atomic_inject_fault(TM_ATOMIC_FAULT_FSYNC);
	ck_assert_int_eq(tm_atomic_write_nosync(p, "new content", 11), 0);
	tm_atomic_inject_fault(TM_ATOMIC_FAULT_NONE);
	data = get("a.txt");
	ck_assert_str_eq(data, "new content");
	free(data);
	ck_assert_int_eq(mode_of("a.txt") & 0777, 0640);
	list = listing();
	ck_assert_str_eq(list, "a.txt");
	free(list);

	/* the other faults still leave the old content and no temp file */
	tm_atomic_inject_fault(TM_ATOMIC_FAULT_RENAME);
	ck_assert_int_eq(tm_atomic_write_nosync(p, "x", 1), TM_ERROR);
	data = get("a.txt");
	ck_assert_str_eq(data, "new content");
	free(data);
	list = listing();
	ck_assert_str_eq(list, "a.txt");
	free(list);
	ck_assert_int_eq(tm_atomic_write_nosync("", "z", 1), TM_EINVALID);
	free(p);
}
END_TEST

START_TEST(test_fs_write_relative_path)
{
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *data;

	ck_assert_int_ge(cwd, 0);
	ck_assert_int_eq(fchdir(dfd), 0);
	ck_assert_int_eq(tm_atomic_write("rel.txt", "r", 1), 0);
	ck_assert_int_eq(fchdir(cwd), 0);
	close(cwd);
	data = get("rel.txt");
	ck_assert_str_eq(data, "r");
	free(data);
}
END_TEST

START_TEST(test_fs_read_only_folder)
{
	char *data;

	/* Root writes anyway: the fault seam covers that case. */
	if (geteuid() == 0)
		return;
	put("r.json", "old");
	ck_assert_int_eq(chmod(dir, 0555), 0);
	ck_assert_int_eq(tm_atomic_write_at(dfd, "r.json", "r.json", "new", 3),
			 TM_ERROR);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'r.json'"));
	ck_assert_int_eq(chmod(dir, 0700), 0);
	data = get("r.json");
	ck_assert_str_eq(data, "old");
	free(data);
}
END_TEST

START_TEST(test_fs_bad_names)
{
	static const char *bad[] = {"", "a/b", ".", "..", "/abs"};
	tm_buf b = TM_BUF_INIT;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		ck_assert_int_eq(
			tm_atomic_write_at(dfd, bad[i], bad[i], "x", 1),
			TM_EINVALID);
		ck_assert_int_eq(tm_fs_read_at(&b, dfd, bad[i], bad[i],
					       TM_MAX_FILE_SIZE),
				 TM_EINVALID);
		ck_assert_int_eq(tm_fs_unlink_at(dfd, bad[i], bad[i]),
				 TM_EINVALID);
		ck_assert_int_eq(
			tm_fs_open_subdir(&fd, dfd, bad[i], bad[i], true),
			TM_EINVALID);
	}
	ck_assert_uint_eq(b.size, 0);
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_fs_read_appends)
{
	tm_buf b = TM_BUF_INIT;

	put("r.md", "---\nid: r\n---\n");
	tm_buf_puts(&b, "pre:");
	ck_assert_int_eq(
		tm_fs_read_at(&b, dfd, "r.md", "r.md", TM_MAX_FILE_SIZE), 0);
	ck_assert_str_eq(tm_buf_cstr(&b), "pre:---\nid: r\n---\n");
	ck_assert_uint_eq(b.size, 18);
	tm_buf_release(&b);

	put("empty", "");
	ck_assert_int_eq(
		tm_fs_read_at(&b, dfd, "empty", "empty", TM_MAX_FILE_SIZE), 0);
	ck_assert_ptr_nonnull(b.ptr);
	ck_assert_uint_eq(b.size, 0);
	ck_assert_str_eq(b.ptr, "");
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_fs_read_missing)
{
	tm_buf b = TM_BUF_INIT;

	ck_assert_int_eq(
		tm_fs_read_at(&b, dfd, "nope", "st/nope", TM_MAX_FILE_SIZE),
		TM_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'st/nope'"));
	ck_assert_uint_eq(b.size, 0);
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_fs_read_symlink_refused)
{
	tm_buf b = TM_BUF_INIT;

	put("real", "secret");
	ck_assert_int_eq(symlinkat("real", dfd, "link"), 0);
	tm_buf_puts(&b, "keep");
	ck_assert_int_eq(tm_fs_read_at(&b, dfd, "link", ".threadmind/link",
				       TM_MAX_FILE_SIZE),
			 TM_EINVALID);
	ck_assert_str_eq(tm_error_last(),
			 "'.threadmind/link' is a symbolic link; threadmind "
			 "does not follow links inside .threadmind/");
	ck_assert_str_eq(tm_buf_cstr(&b), "keep");
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_fs_read_size_limit)
{
	size_t n = TM_MAX_FILE_SIZE;
	char *big = malloc(n + 1);
	char *p = path_of("big");
	tm_buf b = TM_BUF_INIT;

	memset(big, 'x', n + 1);
	tmt_write_file(p, big, n);
	ck_assert_int_eq(tm_fs_read_at(&b, dfd, "big", "big", n), 0);
	ck_assert_uint_eq(b.size, n);
	ck_assert_int_eq(b.ptr[n], '\0');
	tm_buf_release(&b);

	tmt_write_file(p, big, n + 1);
	tm_buf_puts(&b, "keep");
	ck_assert_int_eq(tm_fs_read_at(&b, dfd, "big", "st/big", n),
			 TM_EINVALID);
	ck_assert_str_eq(tm_error_last(),
			 "'st/big' is larger than 1 MiB; threadmind refuses "
			 "files that large");
	ck_assert_str_eq(tm_buf_cstr(&b), "keep");

	/* Other limits are spelled in their own unit. */
	ck_assert_int_eq(tm_fs_read_at(&b, dfd, "big", "big", 64 * 1024),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "larger than 64 KiB"));
	ck_assert_int_eq(tm_fs_read_at(&b, dfd, "big", "big", 1000),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(
		strstr(tm_error_last(), "larger than 1000 bytes"));
	tm_buf_release(&b);
	free(big);
	free(p);
}
END_TEST

START_TEST(test_fs_read_fifo_and_folder_refused)
{
	tm_buf b = TM_BUF_INIT;

	ck_assert_int_eq(mkfifoat(dfd, "fifo", 0600), 0);
	ck_assert_int_eq(mkdirat(dfd, "sub", 0700), 0);
	/* Must not block waiting for a writer. */
	ck_assert_int_eq(
		tm_fs_read_at(&b, dfd, "fifo", "fifo", TM_MAX_FILE_SIZE),
		TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "not a regular file"));
	ck_assert_int_eq(tm_fs_read_at(&b, dfd, "sub", "sub", TM_MAX_FILE_SIZE),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "not a regular file"));
	ck_assert_uint_eq(b.size, 0);
	tm_buf_release(&b);
}
END_TEST

START_TEST(test_fs_open_dir)
{
	char *sub = path_of("sub"), *link = path_of("link");
	char *file = path_of("file"), *nope = path_of("nope");
	int fd = -1;

	tmt_mkdirs(sub);
	put("file", "f");
	ck_assert_int_eq(symlink(sub, link), 0);

	ck_assert_int_eq(tm_fs_open_dir(&fd, sub), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
	fd = -1;

	ck_assert_int_eq(tm_fs_open_dir(&fd, link), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "is a symbolic link"));
	ck_assert_ptr_nonnull(strstr(tm_error_last(), link));
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(tm_fs_open_dir(&fd, nope), TM_ENOTFOUND);
	ck_assert_int_eq(tm_fs_open_dir(&fd, file), TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "not a folder"));
	ck_assert_int_eq(fd, -1);
	free(sub);
	free(link);
	free(file);
	free(nope);
}
END_TEST

START_TEST(test_fs_open_subdir)
{
	int fd = -1, fd2 = -1;
	char *data;

	ck_assert_int_eq(
		tm_fs_open_subdir(&fd, dfd, "threads", "threads", false),
		TM_ENOTFOUND);
	ck_assert_int_eq(
		tm_fs_open_subdir(&fd, dfd, "threads", "threads", true), 0);
	ck_assert(S_ISDIR(mode_of("threads")));
	ck_assert_uint_eq(mode_of("threads") & 0777, 0777 & ~current_umask());
	/* The fd is the folder: a file created through it lands there. */
	ck_assert_int_eq(tm_atomic_write_at(fd, "t.md", "threads/t.md", "t", 1),
			 0);
	data = get("threads/t.md");
	ck_assert_str_eq(data, "t");
	free(data);
	ck_assert_int_eq(
		tm_fs_open_subdir(&fd2, dfd, "threads", "threads", true), 0);
	close(fd2);
	close(fd);

	ck_assert_int_eq(symlinkat("threads", dfd, "link"), 0);
	fd = -1;
	ck_assert_int_eq(tm_fs_open_subdir(&fd, dfd, "link", "st/link", true),
			 TM_EINVALID);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'st/link' is a "
						      "symbolic link"));
	put("plain", "p");
	ck_assert_int_eq(tm_fs_open_subdir(&fd, dfd, "plain", "plain", true),
			 TM_EINVALID);
	ck_assert_int_eq(fd, -1);
}
END_TEST

/* tm_fs_link_aside: the first free name, by link (the file stays), never
 * over another name; errno says why it could not. */
START_TEST(test_fs_link_aside)
{
	tm_buf name = TM_BUF_INIT;
	char taken[32], *data;
	int k;

	put("config.json", "{oops");
	ck_assert(tm_fs_link_aside(&name, dfd, "config.json", "c.bad"));
	ck_assert_str_eq(tm_buf_cstr(&name), "c.bad");
	/* a dangling link holds its name: skipped, not replaced */
	ck_assert_int_eq(symlinkat("nowhere", dfd, "c.bad-2"), 0);
	ck_assert(tm_fs_link_aside(&name, dfd, "config.json", "c.bad"));
	ck_assert_str_eq(tm_buf_cstr(&name), "c.bad-3");
	data = get("c.bad-3");
	ck_assert_str_eq(data, "{oops");
	free(data);
	ck_assert(exists("config.json"));
	for (k = 4; k <= 100; k++) {
		snprintf(taken, sizeof(taken), "c.bad-%d", k);
		put(taken, "t");
	}
	errno = 0;
	ck_assert(!tm_fs_link_aside(&name, dfd, "config.json", "c.bad"));
	ck_assert_int_eq(errno, EEXIST);
	data = get("c.bad-100");
	ck_assert_str_eq(data, "t");
	free(data);
	errno = 0;
	ck_assert(!tm_fs_link_aside(&name, dfd, "missing", "m.bad"));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert(!exists("m.bad"));
	tm_buf_release(&name);
}
END_TEST

/* tm_fs_close: closes a descriptor, leaves -1 alone, keeps errno. */
START_TEST(test_fs_close)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	errno = EACCES;
	tm_fs_close(fd);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	errno = ENOENT;
	tm_fs_close(-1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(test_fs_unused_name)
{
	tm_buf name = TM_BUF_INIT;
	char taken[32];
	int k;

	ck_assert(tm_fs_unused_name(&name, dfd, "x.invalid"));
	ck_assert_str_eq(tm_buf_cstr(&name), "x.invalid");
	put("x.invalid", "a");
	/* a dangling link holds its name too */
	ck_assert_int_eq(symlinkat("nowhere", dfd, "x.invalid-2"), 0);
	ck_assert(tm_fs_unused_name(&name, dfd, "x.invalid"));
	ck_assert_str_eq(tm_buf_cstr(&name), "x.invalid-3");
	for (k = 3; k <= 100; k++) {
		snprintf(taken, sizeof(taken), "x.invalid-%d", k);
		put(taken, "t");
	}
	ck_assert(!tm_fs_unused_name(&name, dfd, "x.invalid"));
	ck_assert(tm_fs_unused_name(&name, dfd, "y"));
	ck_assert_str_eq(tm_buf_cstr(&name), "y");
	tm_buf_release(&name);
}
END_TEST

START_TEST(test_fs_unlink)
{
	char *data;

	put("gone", "g");
	put("target", "t");
	ck_assert_int_eq(symlinkat("target", dfd, "link"), 0);
	ck_assert_int_eq(tm_fs_unlink_at(dfd, "gone", "gone"), 0);
	ck_assert(!exists("gone"));
	ck_assert_int_eq(tm_fs_unlink_at(dfd, "gone", "st/gone"), TM_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'st/gone'"));
	ck_assert_int_eq(tm_fs_unlink_at(dfd, "link", "link"), 0);
	ck_assert(!exists("link"));
	data = get("target");
	ck_assert_str_eq(data, "t");
	free(data);
	ck_assert_int_eq(mkdirat(dfd, "d", 0700), 0);
	ck_assert_int_eq(tm_fs_unlink_at(dfd, "d", "d"), TM_ERROR);
	ck_assert(exists("d"));
}
END_TEST

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_fs_uuid_format_and_unique)
{
	enum { N = 1000 };
	char **ids = calloc(N, sizeof(*ids));
	size_t i, j;

	for (i = 0; i < N; i++) {
		char u[TM_UUID_LEN + 1];

		memset(u, '?', sizeof(u));
		tm_uuid_v4(u);
		ck_assert_uint_eq(strlen(u), 36);
		for (j = 0; j < 36; j++) {
			if (j == 8 || j == 13 || j == 18 || j == 23)
				ck_assert_msg(u[j] == '-', "%s", u);
			else
				ck_assert_msg(is_hex(u[j]), "%s", u);
		}
		ck_assert_msg(u[14] == '4', "version: %s", u);
		ck_assert_msg(strchr("89ab", u[19]) != NULL, "variant: %s", u);
		ids[i] = strdup(u);
	}
	qsort(ids, N, sizeof(*ids), cmp_str);
	for (i = 1; i < N; i++)
		ck_assert_str_ne(ids[i - 1], ids[i]);
	for (i = 0; i < N; i++)
		free(ids[i]);
	free(ids);
}
END_TEST

/* Content number `k` of the readers test: two sizes, two letters. */
static char *content(int k, size_t *len)
{
	size_t n = k ? 96 * 1024 + 7 : 160 * 1024;
	char *s = malloc(n);
	size_t i;

	for (i = 0; i < n; i++)
		s[i] = (char)((k ? 'b' : 'a') + (i % 61 == 60 ? 1 : 0));
	s[n - 1] = '\n';
	*len = n;
	return s;
}

START_TEST(test_fs_readers_see_whole_files)
{
	size_t len[2];
	char *c[2] = {content(0, &len[0]), content(1, &len[1])};
	tm_buf b = TM_BUF_INIT;
	int status, reads = 0, seen[2] = {0, 0}, k;
	pid_t pid;

	ck_assert_int_eq(tm_atomic_write_at(dfd, "t.md", "t.md", c[0], len[0]),
			 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int i, rc = 0;

		for (i = 0; i < 500 && rc == 0; i++)
			rc = tm_atomic_write_at(dfd, "t.md", "t.md",
						c[(i + 1) % 2],
						len[(i + 1) % 2]);
		free(c[0]);
		free(c[1]);
		_exit(rc == 0 ? 0 : 1);
	}
	for (;;) {
		pid_t done = waitpid(pid, &status, WNOHANG);

		tm_buf_clear(&b);
		ck_assert_int_eq(tm_fs_read_at(&b, dfd, "t.md", "t.md",
					       TM_MAX_FILE_SIZE),
				 0);
		for (k = 0; k < 2; k++) {
			if (b.size == len[k] && !memcmp(b.ptr, c[k], len[k]))
				break;
		}
		ck_assert_msg(k < 2, "partial read of %zu bytes", b.size);
		seen[k]++;
		reads++;
		if (done == pid)
			break;
	}
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	/* The last read came after the 500th write: content 0 again. */
	ck_assert_int_eq(k, 0);
	ck_assert_int_gt(reads, 1);
	ck_assert_int_gt(seen[0], 0);
	tm_buf_release(&b);
	free(c[0]);
	free(c[1]);
}
END_TEST

START_TEST(test_fs_list_dir_sorted_from_start)
{
	tm_strv v = TM_STRV_INIT;
	char *sub = path_of("sub");

	put("b", "");
	put("a", "");
	put(".hidden", "");
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(tm_fs_list_dir(&v, dfd, "x"), 0);
	ck_assert_uint_eq(v.n, 4);
	ck_assert_str_eq(v.items[0], ".hidden");
	ck_assert_str_eq(v.items[1], "a");
	ck_assert_str_eq(v.items[2], "b");
	ck_assert_str_eq(v.items[3], "sub");
	/* a second listing of the same descriptor starts over */
	tm_strv_clear(&v);
	ck_assert_int_eq(tm_fs_list_dir(&v, dfd, "x"), 0);
	ck_assert_uint_eq(v.n, 4);
	tm_strv_clear(&v);
	free(sub);
}
END_TEST

START_TEST(test_fs_list_dir_error_names_folder)
{
	tm_strv v = TM_STRV_INIT;
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(tm_fs_list_dir(&v, fd, "my/folder"), TM_ERROR);
	ck_assert_ptr_nonnull(strstr(tm_error_last(), "'my/folder'"));
	ck_assert_uint_eq(v.n, 0);
	close(fd);
}
END_TEST

START_TEST(test_fs_write_all)
{
	char *p = path_of("w");
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600), pfd[2];
	char *data;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(tm_fs_write_all(fd, "hello ", 6), 0);
	ck_assert_int_eq(tm_fs_write_all(fd, "world", 5), 0);
	ck_assert_int_eq(tm_fs_write_all(fd, "", 0), 0);
	close(fd);
	data = get("w");
	ck_assert_str_eq(data, "hello world");
	free(data);
	/* a pipe without a reader: -1 with errno */
	ck_assert_int_eq(pipe(pfd), 0);
	close(pfd[0]);
	signal(SIGPIPE, SIG_IGN);
	errno = 0;
	ck_assert_int_eq(tm_fs_write_all(pfd[1], "x", 1), -1);
	ck_assert_int_eq(errno, EPIPE);
	close(pfd[1]);
	free(p);
}
END_TEST

Suite *fs_suite(void)
{
	Suite *s = suite_create("fs");
	TCase *tc;

	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fs_write_new_file);
	tcase_add_test(tc, test_fs_write_empty_and_binary);
	tcase_add_test(tc, test_fs_replace_keeps_mode);
	tcase_add_test(tc, test_fs_no_temp_left);
	tcase_add_test(tc, test_fs_symlink_target_replaced_not_followed);
	tcase_add_test(tc, test_fs_write_path);
	tcase_add_test(tc, test_fs_write_relative_path);
	tcase_add_test(tc, test_fs_write_nosync);
	tcase_add_test(tc, test_fs_bad_names);
	tcase_add_test(tc, test_fs_write_all);
	suite_add_tcase(s, tc);

	tc = tcase_create("failure");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_fs_fault_keeps_old_content, 0,
			    sizeof(faults) / sizeof(*faults));
	tcase_add_test(tc, test_fs_read_only_folder);
	tcase_add_test(tc, test_fs_file_size_limit);
	suite_add_tcase(s, tc);

	tc = tcase_create("read");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fs_read_appends);
	tcase_add_test(tc, test_fs_read_missing);
	tcase_add_test(tc, test_fs_read_symlink_refused);
	tcase_add_test(tc, test_fs_read_size_limit);
	tcase_add_test(tc, test_fs_read_fifo_and_folder_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("folders");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fs_open_dir);
	tcase_add_test(tc, test_fs_open_subdir);
	tcase_add_test(tc, test_fs_unlink);
	tcase_add_test(tc, test_fs_unused_name);
	tcase_add_test(tc, test_fs_close);
	tcase_add_test(tc, test_fs_link_aside);
	tcase_add_test(tc, test_fs_list_dir_sorted_from_start);
	tcase_add_test(tc, test_fs_list_dir_error_names_folder);
	suite_add_tcase(s, tc);

	tc = tcase_create("uuid");
	tcase_add_test(tc, test_fs_uuid_format_and_unique);
	suite_add_tcase(s, tc);

	tc = tcase_create("concurrency");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fs_readers_see_whole_files);
	suite_add_tcase(s, tc);
	return s;
}
