/* Helpers shared by the unit tests (see test_util.h). */
#include "test_util.h"

#include <check.h>
#include <git2.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tmt_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (!base || !*base)
		base = "/tmp";
	path = tmt_join(base, "tm-unit-XXXXXX");
	ck_assert_msg(mkdtemp(path) != NULL, "mkdtemp: %s", strerror(errno));
	return path;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		chmod(path, 0700), rmdir(path);
	else
		unlink(path);
	return 0;
}

void tmt_rmtree(const char *path)
{
	if (path)
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *tmt_resource(const char *rel)
{
	const char *base = getenv("TM_TEST_RESOURCES");

	if (!base || !*base)
		base = "../resources";
	return tmt_join(base, rel);
}

char *tmt_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t n = 0, cap = 0, got;

	ck_assert_msg(f != NULL, "open %s: %s", path, strerror(errno));
	do {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			data = realloc(data, cap);
			ck_assert_ptr_nonnull(data);
		}
		got = fread(data + n, 1, 4096, f);
		n += got;
	} while (got > 0);
	fclose(f);
	data[n] = '\0';
	if (len)
		*len = n;
	return data;
}

void tmt_mkdirs(const char *path)
{
	char *p = strdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
	free(p);
}

void tmt_write_file(const char *path, const char *data, size_t len)
{
	char *dir = strdup(path), *slash = strrchr(dir, '/');
	FILE *f;

	if (slash) {
		*slash = '\0';
		tmt_mkdirs(dir);
	}
	free(dir);
	f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "write %s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

char *tmt_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + lb + 2);

	ck_assert_ptr_nonnull(p);
	memcpy(p, a, la);
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
}

void tmt_put(const char *dir, const char *rel, const char *content)
{
	char *p = tmt_join(dir, rel);

	tmt_write_file(p, content, strlen(content));
	free(p);
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	ck_assert_int_ge(vasprintf(&s, fmt, ap), 0);
	return s;
}

void tmt_sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int status;

	va_start(ap, fmt);
	cmd = vformat(fmt, ap);
	va_end(ap);
	status = system(cmd);
	ck_assert_msg(status == 0, "'%s' failed (%d)", cmd, status);
	free(cmd);
}

char *tmt_sh_out(const char *fmt, ...)
{
	static char buf[65536];
	va_list ap;
	char *cmd;
	FILE *p;
	size_t n;

	va_start(ap, fmt);
	cmd = vformat(fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(buf, 1, sizeof(buf) - 1, p);
	ck_assert_msg(pclose(p) == 0, "'%s' failed", cmd);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	free(cmd);
	return strdup(buf);
}

void tmt_take_over_lock(const char *tmdir)
{
	char *lock = tmt_join(tmdir, ".lock");

	ck_assert_int_eq(unlink(lock), 0);
	tmt_write_file(lock, "{\"pid\":1}\n", 10);
	usleep(2000);
	free(lock);
}

char *tmt_git_repo(const char *dir, const char *name)
{
	char *path = tmt_join(dir, name);

	/* GIT_* variables of a calling git (make check under a hook) would
	 * point the commands below at another repository */
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	tmt_sh("git -c init.defaultBranch=main init -q '%s' && "
	       "git -C '%s' config user.name Tester && "
	       "git -C '%s' config user.email tester@example.com && "
	       "git -C '%s' config commit.gpgsign false && "
	       "git -C '%s' config advice.detachedHead false",
	       path, path, path, path, path);
	return path;
}

/* Variables through which git or libgit2 could see the caller's setup. */
static const char *const sandbox_env[] = {
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_INDEX_FILE",
	"GIT_COMMON_DIR",
	"GIT_CEILING_DIRECTORIES",
	"GIT_DISCOVERY_ACROSS_FILESYSTEM",
	"GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_NAMESPACE",
	"GIT_CONFIG",
	"GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_SYSTEM",
	"GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT",
	"GIT_AUTHOR_NAME",
	"GIT_AUTHOR_EMAIL",
	"GIT_COMMITTER_NAME",
	"GIT_COMMITTER_EMAIL",
	"GIT_AUTHOR_DATE",
	"GIT_COMMITTER_DATE",
	"EMAIL",
};

/* The folder the sandbox was entered from, returned to on its end: a test
 * that changes into its temp folder leaves none behind (CK_FORK=no). */
static int sandbox_cwd = -1;

double tmt_time_scale(void)
{
	const char *s = getenv("TM_TEST_TIME_SCALE");
	double v = s ? atof(s) : 1.0;

	return v >= 1.0 ? v : 1.0;
}

unsigned tmt_rounds(unsigned n)
{
	return tmt_time_scale() > 1.0 ? (n + 3) / 4 : n;
}

char *tmt_sandbox(void)
{
	char *tmp = tmt_mkdtemp();
	char *home = tmt_join(tmp, "home");
	char *xdg = tmt_join(home, ".config");
	char *etc = tmt_join(tmp, "etc");
	size_t i;

	tmt_mkdirs(xdg);
	tmt_mkdirs(etc);
	if (sandbox_cwd < 0)
		sandbox_cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < sizeof(sandbox_env) / sizeof(*sandbox_env); i++)
		unsetenv(sandbox_env[i]);
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	/*
	 * libgit2 looks HOME up when it is initialised: have it look again
	 * (NULL), and keep the machine's /etc/gitconfig out (an empty
	 * folder).  The reference taken here is dropped by tmt_sandbox_end.
	 */
	ck_assert_int_ge(git_libgit2_init(), 1);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL,
			 NULL);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, NULL);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, etc);
	free(home);
	free(xdg);
	free(etc);
	return tmp;
}

void tmt_sandbox_end(char *tmp)
{
	size_t i;

	for (i = 0; i < sizeof(sandbox_env) / sizeof(*sandbox_env); i++)
		unsetenv(sandbox_env[i]);
	git_libgit2_shutdown();
	if (sandbox_cwd >= 0) {
		ck_assert_int_eq(fchdir(sandbox_cwd), 0);
		close(sandbox_cwd);
		sandbox_cwd = -1;
	}
	if (tmp)
		tmt_rmtree(tmp);
	free(tmp);
}
