/* The safe file layer: no-follow opens, bounded reads, listings, atomic
 * writes (see fs.h). */
#include "fs.h"
#include "deadline.h"
#include "error.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SYMLINK_MSG                                                         \
	"'%s' is a symbolic link; threadmind does not follow links inside " \
	".threadmind/"

/* Room for "{name}.{uuid}.tmp". */
#define TMP_SUFFIX_LEN (1 + TM_UUID_LEN + 4)

static atomic_int next_fault = TM_ATOMIC_FAULT_NONE;

static int check_name(const char *name, const char *display)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return tm_error_set(TM_EINVALID,
				    "'%s' is not a plain file name inside "
				    "its folder",
				    display ? display : "(null)");
	return 0;
}

/*
 * Explain why opening `name` in `dirfd` (or `path` with AT_FDCWD) with
 * O_NOFOLLOW failed: a link, not a folder, missing, or errno as is.
 */
static int open_failure(int dirfd, const char *name, const char *display,
			int err, bool want_dir)
{
	struct stat st;

	if (err == ENOENT)
		return tm_error_set(TM_ENOTFOUND, "'%s' does not exist",
				    display);
	if (err == ELOOP || err == ENOTDIR || err == EMLINK) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISLNK(st.st_mode))
				return tm_error_set(TM_EINVALID, SYMLINK_MSG,
						    display);
			if (want_dir && !S_ISDIR(st.st_mode))
				return tm_error_set(TM_EINVALID,
						    "'%s' is not a folder",
						    display);
		} else if (errno == ENOTDIR) {
			return tm_error_set(TM_EINVALID,
					    "'%s' is not inside a folder",
					    display);
		}
	}
	errno = err;
	return tm_error_set_errno(TM_ERROR, "cannot open '%s'", display);
}

int tm_fs_open_dir(int *out_fd, const char *path)
{
	int fd;

	if (!path || !*path)
		return tm_error_set(TM_EINVALID, "empty folder path");
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return open_failure(AT_FDCWD, path, path, errno, true);
	*out_fd = fd;
	return 0;
}

int tm_fs_open_subdir(int *out_fd, int dirfd, const char *name,
		      const char *display, bool create)
{
	int fd, error;

	if ((error = check_name(name, display)) < 0)
		return error;
	if (create && mkdirat(dirfd, name, 0777) < 0 && errno != EEXIST)
		return tm_error_set_errno(TM_ERROR, "cannot create '%s'",
					  display);
	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return open_failure(dirfd, name, display, errno, true);
	*out_fd = fd;
	return 0;
}

/* "1 MiB", "64 KiB", "1000 bytes": the limit as people say it. */
static void format_size(char *out, size_t outlen, size_t n)
{
	if (n >= 1024 * 1024 && n % (1024 * 1024) == 0)
		snprintf(out, outlen, "%zu MiB", n / (1024 * 1024));
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(out, outlen, "%zu KiB", n / 1024);
	else
		snprintf(out, outlen, "%zu bytes", n);
}

static int too_large(const char *display, size_t max)
{
	char limit[64];

	format_size(limit, sizeof(limit), max);
	return tm_error_set(TM_EINVALID,
			    "'%s' is larger than %s; threadmind refuses "
			    "files that large",
			    display, limit);
}

/* The k-th name beside a file (from 1): `base`, then `base`-2 ... */
static void aside_name(tm_buf *out, const char *base, unsigned k)
{
	tm_buf_clear(out);
	tm_buf_puts(out, base);
	if (k > 1)
		tm_buf_printf(out, "-%u", k);
}

bool tm_fs_unused_name(tm_buf *out, int dirfd, const char *base)
{
	struct stat st;
	unsigned k;

	for (k = 1; k <= TM_FS_ASIDE_NAMES; k++) {
		aside_name(out, base, k);
		if (fstatat(dirfd, tm_buf_cstr(out), &st, AT_SYMLINK_NOFOLLOW) <
		    0)
			return true;
	}
	return false;
}

bool tm_fs_link_aside(tm_buf *out, int dirfd, const char *name,
		      const char *base)
{
	unsigned k;

	for (k = 1; k <= TM_FS_ASIDE_NAMES; k++) {
		aside_name(out, base, k);
		/* link() never replaces a name: no probe to race with */
		if (linkat(dirfd, name, dirfd, tm_buf_cstr(out), 0) == 0)
			return true;
		if (errno != EEXIST)
			return false;
	}
	return false;
}

void tm_fs_stamp(tm_file_stamp *out, const struct stat *st)
{
	out->set = true;
	out->dev = (uint64_t)st->st_dev;
	out->ino = (uint64_t)st->st_ino;
	out->size = (uint64_t)st->st_size;
	out->mtime_s = (int64_t)st->st_mtim.tv_sec;
	out->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
	out->ctime_s = (int64_t)st->st_ctim.tv_sec;
	out->ctime_ns = (int64_t)st->st_ctim.tv_nsec;
}

int tm_fs_read_at(tm_buf *out, int dirfd, const char *name, const char *display,
		  size_t max)
{
	return tm_fs_read_at_stamped(out, dirfd, name, display, max, NULL);
}

int tm_fs_read_at_stamped(tm_buf *out, int dirfd, const char *name,
			  const char *display, size_t max, tm_file_stamp *stamp)
{
	size_t start = out->size, got = 0;
	struct stat st;
	int fd, error;

	if (stamp)
		memset(stamp, 0, sizeof(*stamp));

	if ((error = check_name(name, display)) < 0)
		return error;
	fd = openat(dirfd, name,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return open_failure(dirfd, name, display, errno, false);
	if (fstat(fd, &st) < 0) {
		error = tm_error_set_errno(TM_ERROR, "cannot stat '%s'",
					   display);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error = tm_error_set(TM_EINVALID,
				     "'%s' is not a regular file; threadmind "
				     "only reads regular files",
				     display);
		goto done;
	}
	if (st.st_size < 0 || (uintmax_t)st.st_size > max) {
		error = too_large(display, max);
		goto done;
	}

	/* Read up to max + 1 bytes: the file may grow while we read. */
	for (;;) {
		size_t want = 64 * 1024;
		ssize_t n;

		if (want > max + 1 - got)
			want = max + 1 - got;
		if (want == 0)
			break;
		tm_buf_grow(out, want);
		n = read(fd, out->ptr + out->size, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = tm_error_set_errno(TM_ERROR, "cannot read '%s'",
						   display);
			goto done;
		}
		if (n == 0)
			break;
		out->size += (size_t)n;
		got += (size_t)n;
		/* a short read up to the size fstat gave is the end of a
		 * regular file: no read more to hear it (one syscall of
		 * five per thread file of every store load) */
		if ((size_t)n < want && got >= (uintmax_t)st.st_size)
			break;
	}
	if (got > max) {
		error = too_large(display, max);
		goto done;
	}
	tm_buf_grow(out, 0);
	out->ptr[out->size] = '\0';
	if (stamp)
		tm_fs_stamp(stamp, &st);

done:
	if (error < 0 && out->ptr) {
		out->size = start;
		out->ptr[start] = '\0';
	}
	close(fd);
	return error;
}

int tm_fs_list_dir(tm_strv *out, int dirfd, const char *display)
{
	int fd = dup(dirfd);
	struct dirent *e;
	size_t seen = 0;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		tm_fs_close(fd);
		return tm_error_set_errno(TM_ERROR, "cannot list '%s'",
					  display);
	}
	/* the duplicate shares the offset of `dirfd`: start over */
	rewinddir(d);
	errno = 0;
	while ((e = readdir(d))) {
		if (tm_deadline_every(++seen, display) < 0) {
			closedir(d);
			return TM_ETIMEOUT;
		}
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			tm_strv_push(out, e->d_name);
		errno = 0;
	}
	if (errno) {
		int saved = errno;

		closedir(d);
		errno = saved;
		return tm_error_set_errno(TM_ERROR, "cannot list '%s'",
					  display);
	}
	closedir(d);
	tm_strv_sort(out);
	return 0;
}

int tm_fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		ssize_t n = write(fd, p, chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int tm_fs_write_error(const char *display)
{
	if (errno == EFBIG)
		return tm_error_set(TM_ERROR,
				    "cannot write '%s': it would be larger "
				    "than this process's file-size limit "
				    "(ulimit -f); raise the limit and retry",
				    display);
	return tm_error_set_errno(TM_ERROR, "cannot write '%s'", display);
}

static int fsync_retry(int fd)
{
	int rc;

	do
		rc = fsync(fd);
	while (rc < 0 && errno == EINTR);
	return rc;
}

/* Create the temp file, trying a fresh name should one already exist. */
static int create_temp(char *tmp, size_t tmplen, int dirfd, const char *name,
		       mode_t mode)
{
	char uuid[TM_UUID_LEN + 1];
	int attempt, fd = -1;

	for (attempt = 0; attempt < 4; attempt++) {
		tm_uuid_v4(uuid);
		snprintf(tmp, tmplen, "%s.%s.tmp", name, uuid);
		fd = openat(dirfd, tmp,
			    O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY |
				    O_CLOEXEC,
			    mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	return fd;
}

/* tm_atomic_write_at, with or without the two fsyncs (`durable`). */
static int atomic_write(int dirfd, const char *name, const char *display,
			const void *data, size_t len, bool durable)
{
	tm_atomic_fault fault =
		atomic_exchange(&next_fault, TM_ATOMIC_FAULT_NONE);
	char tmp[NAME_MAX + 1];
	mode_t mode = 0666;
	bool keep_mode = false;
	struct stat st;
	int fd = -1, error = 0, saved;

	if ((error = check_name(name, display)) < 0)
		return error;
	if (strlen(name) + TMP_SUFFIX_LEN > NAME_MAX)
		return tm_error_set(TM_EINVALID,
				    "'%s': file name too long for a temporary "
				    "file next to it",
				    display);

	/* Keep the permissions of the regular file being replaced. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode)) {
		mode = st.st_mode & 0777;
		keep_mode = true;
	}

	if (fault == TM_ATOMIC_FAULT_OPEN) {
		errno = EIO;
		return tm_error_set_errno(TM_ERROR,
					  "cannot create a temporary file next "
					  "to '%s'",
					  display);
	}
	fd = create_temp(tmp, sizeof(tmp), dirfd, name, mode);
	if (fd < 0)
		return tm_error_set_errno(TM_ERROR,
					  "cannot create a temporary file next "
					  "to '%s'",
					  display);
	/* The umask may have cleared bits the old file had. */
	if (keep_mode && fchmod(fd, mode) < 0) {
		error = tm_error_set_errno(
			TM_ERROR, "cannot set the mode of '%s'", display);
		goto fail;
	}

	if (fault == TM_ATOMIC_FAULT_WRITE) {
		if (tm_fs_write_all(fd, data, len / 2) == 0)
			errno = EIO;
		error = tm_fs_write_error(display);
		goto fail;
	}
	if (tm_fs_write_all(fd, data, len) < 0) {
		error = tm_fs_write_error(display);
		goto fail;
	}
	if (durable && fault == TM_ATOMIC_FAULT_FSYNC) {
		errno = EIO;
		error = tm_error_set_errno(TM_ERROR, "cannot sync '%s'",
					   display);
		goto fail;
	}
	if (durable && fsync_retry(fd) < 0) {
		error = tm_error_set_errno(TM_ERROR, "cannot sync '%s'",
					   display);
		goto fail;
	}
	/* close() can report a delayed write error (NFS). */
	saved = close(fd);
	fd = -1;
	if (saved < 0 && errno != EINTR) {
		error = tm_fs_write_error(display);
		goto fail;
	}

	if (fault == TM_ATOMIC_FAULT_RENAME) {
		errno = EIO;
		error = tm_error_set_errno(TM_ERROR, "cannot replace '%s'",
					   display);
		goto fail;
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		error = tm_error_set_errno(TM_ERROR, "cannot replace '%s'",
					   display);
		goto fail;
	}

	/*
	 * Make the rename durable.  Some file systems cannot sync a folder
	 * (EINVAL): nothing more can be done there.
	 */
	if (durable && fsync_retry(dirfd) < 0 && errno != EINVAL &&
	    errno != EROFS)
		return tm_error_set_errno(
			TM_ERROR, "cannot sync the folder of '%s'", display);
	return 0;

fail:
	saved = errno;
	tm_fs_close(fd);
	unlinkat(dirfd, tmp, 0);
	errno = saved;
	return error;
}

int tm_atomic_write_at(int dirfd, const char *name, const char *display,
		       const void *data, size_t len)
{
	return atomic_write(dirfd, name, display, data, len, true);
}

static int write_path(const char *path, const void *data, size_t len,
		      bool durable)
{
	const char *slash, *base;
	char *dir;
	int dirfd, error;

	if (!path || !*path)
		return tm_error_set(TM_EINVALID, "empty file path");
	slash = strrchr(path, '/');
	if (!slash) {
		dir = tm_xstrdup(".");
		base = path;
	} else {
		base = slash + 1;
		dir = slash == path ? tm_xstrdup("/")
				    : tm_xstrndup(path, (size_t)(slash - path));
	}
	if (!*base) {
		free(dir);
		return tm_error_set(TM_EINVALID,
				    "'%s' names a folder, not a "
				    "file",
				    path);
	}
	error = tm_fs_open_dir(&dirfd, dir);
	free(dir);
	if (error < 0)
		return error;
	error = atomic_write(dirfd, base, path, data, len, durable);
	close(dirfd);
	return error;
}

int tm_atomic_write(const char *path, const void *data, size_t len)
{
	return write_path(path, data, len, true);
}

int tm_atomic_write_nosync(const char *path, const void *data, size_t len)
{
	return write_path(path, data, len, false);
}

void tm_fs_close(int fd)
{
	int saved = errno;

	if (fd >= 0)
		close(fd);
	errno = saved;
}

int tm_fs_unlink_at(int dirfd, const char *name, const char *display)
{
	int error;

	if ((error = check_name(name, display)) < 0)
		return error;
	if (unlinkat(dirfd, name, 0) == 0)
		return 0;
	if (errno == ENOENT)
		return tm_error_set(TM_ENOTFOUND, "'%s' does not exist",
				    display);
	return tm_error_set_errno(TM_ERROR, "cannot remove '%s'", display);
}

/* SplitMix64: spreads the fallback's weak inputs over all bits. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void fallback_random(unsigned char *b, size_t n)
{
	static atomic_ullong counter;
	struct timespec ts;
	uint64_t seed, r = 0;
	size_t i;

	clock_gettime(CLOCK_REALTIME, &ts);
	seed = ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
	       ((uint64_t)getpid() << 32) ^ atomic_fetch_add(&counter, 1) ^
	       (uint64_t)(uintptr_t)b;
	for (i = 0; i < n; i++) {
		if (i % 8 == 0)
			r = seed = mix64(seed);
		b[i] = (unsigned char)(r >> (8 * (i % 8)));
	}
}

void tm_uuid_v4(char *out37)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[16];
	size_t got = 0, i;
	char *p = out37;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fallback_random(b, sizeof(b));
			break;
		}
		got += (size_t)n;
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	for (i = 0; i < sizeof(b); i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[b[i] >> 4];
		*p++ = hex[b[i] & 15];
	}
	*p = '\0';
}

void tm_atomic_inject_fault(tm_atomic_fault f)
{
	atomic_store(&next_fault, (int)f);
}
