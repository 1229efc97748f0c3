/*
 * The safe file layer (tm_fs_*): folders and files inside .threadmind/
 * opened without following symbolic links, a size limit on reads, folder
 * listings, complete writes, and atomic replacement (temp file, fsync,
 * rename, fsync of the folder).
 */
#ifndef TM_FS_H
#define TM_FS_H

#include "buf.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* The largest file threadmind reads from .threadmind/ (1 MiB). */
#define TM_MAX_FILE_SIZE (1024 * 1024)

/* Length of a UUID string, without the NUL. */
#define TM_UUID_LEN 36

/*
 * Names: every `name` below is a single path component (no '/', not empty,
 * not "." or ".."), so that no link can be followed on the way to it;
 * anything else is TM_EINVALID.  `display` is the path shown in messages
 * (for example ".threadmind/config.json"); it is not opened.
 *
 * File descriptors returned through `out_fd` belong to the caller
 * (close() them) and have FD_CLOEXEC set.
 */

/*
 * Open the folder `path` (O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC; links in
 * the leading components are followed, the last one is not).
 * Errors: TM_EINVALID when `path` is a symbolic link ("'PATH' is a symbolic
 * link; threadmind does not follow links inside .threadmind/") or not a
 * folder; TM_ENOTFOUND when it does not exist; TM_ERROR otherwise.
 */
int tm_fs_open_dir(int *out_fd, const char *path);

/*
 * Open the subfolder `name` of `dirfd`, refusing a symbolic link as
 * tm_fs_open_dir does.  With `create`, make it first when missing
 * (mode 0777 less the umask); an existing folder is fine.
 * Errors: TM_EINVALID (bad name, link, not a folder), TM_ENOTFOUND
 * (missing and !create), TM_ERROR.
 */
int tm_fs_open_subdir(int *out_fd, int dirfd, const char *name,
		      const char *display, bool create);

/*
 * Append the content of the regular file `name` in `dirfd` to `out`
 * (NUL-terminated).  The file is opened O_RDONLY | O_NOFOLLOW | O_CLOEXEC
 * | O_NONBLOCK (so that a FIFO cannot block the caller) and checked with
 * fstat.  `max` is the largest size accepted, in bytes (usually
 * TM_MAX_FILE_SIZE); a file growing past it while being read is refused
 * too.  On error `out` is left as it was.
 * Errors: TM_ENOTFOUND when missing; TM_EINVALID for a symbolic link, a
 * file that is not a regular file, or one over `max` bytes ("'PATH' is
 * larger than 1 MiB; threadmind refuses files that large"); TM_ERROR for
 * I/O errors.
 */
int tm_fs_read_at(tm_buf *out, int dirfd, const char *name, const char *display,
		  size_t max);

/* How many names beside a file the two functions below try. */
#define TM_FS_ASIDE_NAMES 100

/*
 * A name nothing holds in `dirfd` (not even a dangling link), for setting a
 * file aside without replacing another: `base`, else `base`-2 ... -100, put
 * in `out` (cleared first).  False, with the last one tried in `out`, when
 * all 100 are taken.  Only a probe: for a file, tm_fs_link_aside takes the
 * name without a window for another process to take it first.
 */
bool tm_fs_unused_name(tm_buf *out, int dirfd, const char *base);

/*
 * Link the file `name` of `dirfd` to the first of those names that nothing
 * holds, in `out`: true.  False with errno set when the link fails (EEXIST:
 * all 100 taken); the caller names the file in its message.
 */
bool tm_fs_link_aside(tm_buf *out, int dirfd, const char *name,
		      const char *base);

/* The stamp (model.h) of what fstat or stat said in *st. */
void tm_fs_stamp(tm_file_stamp *out, const struct stat *st);

/* tm_fs_read_at, and what fstat said of the file before the read into
 * *stamp (its `set` false on error). */
int tm_fs_read_at_stamped(tm_buf *out, int dirfd, const char *name,
			  const char *display, size_t max,
			  tm_file_stamp *stamp);

/*
 * The names in the open folder `dirfd` (all of them but "." and ".."),
 * added to `out`, which is then sorted (strcmp) as a whole.  `dirfd` is not
 * closed; the listing starts from the beginning whatever was read from it
 * before.  `display` names the folder in messages.  Errors: TM_ERROR ("cannot
 * list 'DISPLAY'") when the folder cannot be read (`out` may then hold some
 * names); TM_ETIMEOUT when the caller's deadline (deadline.h) passes while
 * a long folder is read.
 */
int tm_fs_list_dir(tm_strv *out, int dirfd, const char *display);

/*
 * Write all `len` bytes at `p` to `fd`, through short writes and EINTR
 * (in chunks of at most 1 GiB).  Returns 0, or -1 with errno set (EIO
 * when write() returns 0); sets no message: the caller knows the file's
 * name.
 */
int tm_fs_write_all(int fd, const void *p, size_t len);

/*
 * Set the message for a failed write of `display` from errno, and return
 * TM_ERROR: "cannot write 'DISPLAY': <strerror>", and for EFBIG (a file
 * over the process's file-size limit, RLIMIT_FSIZE / `ulimit -f`; the
 * binaries ignore SIGXFSZ so that such a write fails instead of killing
 * them) a line that says so and what to do.  Used by every writer of
 * .threadmind/ (atomic writes, the lock file), so that a full disk and a
 * size limit take the same path: the partial file removed, the old one
 * left as it was.
 */
int tm_fs_write_error(const char *display);

/*
 * Atomically replace `name` in `dirfd` with the `len` bytes at `data`:
 * write "{name}.{uuid-v4}.tmp" in the same folder (O_CREAT | O_EXCL |
 * O_NOFOLLOW), fsync it, rename it over `name`, fsync the folder.  A
 * reader sees the old file or the new one, never a part.
 *
 * The new file gets the permission bits (0777) of the regular file it
 * replaces, else 0666 less the umask.  A symbolic link at `name` is
 * replaced by a regular file; its target is never opened.  Ownership is
 * not carried over (the new file belongs to the caller).
 *
 * Errors: TM_EINVALID for a bad name; TM_ERROR (with a message naming
 * `display`) when any step fails.  Up to the rename, a failure removes the
 * temp file and leaves `name` untouched; a failing fsync of the folder
 * after the rename is reported too, although the new content is in place.
 */
int tm_atomic_write_at(int dirfd, const char *name, const char *display,
		       const void *data, size_t len);

/*
 * tm_atomic_write_at for a path: opens the parent folder of `path` with
 * tm_fs_open_dir (O_NOFOLLOW on its last component) and writes the last
 * component there.  "file" means "./file".  Errors as tm_fs_open_dir and
 * tm_atomic_write_at; TM_EINVALID for a path ending in '/'.
 */
int tm_atomic_write(const char *path, const void *data, size_t len);

/*
 * tm_atomic_write without the two fsyncs: still a temp file renamed over
 * `path` (a reader sees the old content or the new, never a part), but
 * not made durable.  For files that a caller reads at once and that a
 * crash may lose, such as the merge driver's %A (git's own temporary
 * file).  Errors as tm_atomic_write.
 */
int tm_atomic_write_nosync(const char *path, const void *data, size_t len);

/* Close `fd` when it is one (>= 0; -1 stands for none), errno kept: for
 * clean-up paths, which may still report the error that brought them. */
void tm_fs_close(int fd);

/*
 * Remove `name` from `dirfd` (a link is removed, not followed).
 * Errors: TM_ENOTFOUND when missing, TM_EINVALID for a bad name, TM_ERROR
 * otherwise (a folder, permissions...).
 */
int tm_fs_unlink_at(int dirfd, const char *name, const char *display);

/*
 * Write a random (version 4) UUID, "xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx"
 * in lower-case hex with N in 8..b, and a NUL into `out37` (at least
 * TM_UUID_LEN + 1 bytes).  Uses getrandom(); should the kernel refuse,
 * falls back to a clock/pid/counter mix that is unique but not secret.
 */
void tm_uuid_v4(char *out37);

/*
 * FOR TESTS ONLY.  Make the next tm_atomic_write_at (in any thread) fail at
 * step `f`, as if the system call had failed with EIO; the fault is then
 * reset to TM_ATOMIC_FAULT_NONE.  TM_ATOMIC_FAULT_WRITE fails after half
 * of the bytes are written, so that a partial temp file exists.
 */
typedef enum {
	TM_ATOMIC_FAULT_NONE,
	TM_ATOMIC_FAULT_OPEN,
	TM_ATOMIC_FAULT_WRITE,
	TM_ATOMIC_FAULT_FSYNC,
	TM_ATOMIC_FAULT_RENAME
} tm_atomic_fault;

void tm_atomic_inject_fault(tm_atomic_fault f);

#endif
