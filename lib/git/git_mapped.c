/*
 * The pages of git's pack files that this process has read, given back
 * (tm_git__pack_pages_trim, git_internal.h).
 *
 * Why: libgit2 maps a pack file in windows of up to 1 GiB (on 64-bit), so
 * a pack of 500 MB is one window, and every page a read touches stays
 * mapped, counted in the process's resident memory: on git/git, 256 MiB of
 * its pack on a first `status` over the whole history, four times the
 * rest of the process (docs/PERFORMANCE.md, issue 20).  libgit2's own way
 * to bound it, smaller windows (GIT_OPT_SET_MWINDOW_SIZE) under a mapped
 * limit, took 1.4x to 5x the time there: a window given back is unmapped
 * whole, and the reads come back to it.
 *
 * Here, when the process's resident memory passes a bound, its shared
 * read-only mappings of *.pack files are madvise'd MADV_DONTNEED: their
 * pages leave the process but stay in the kernel's page cache, and the
 * next read of one maps it again (a minor fault, for 64 KiB around it).
 * Nothing can be lost: a shared mapping holds no private copy of a page,
 * these are read-only, and git never rewrites a pack in place.  libgit2
 * keeps its windows as they were.  The pack indexes (*.idx) are left
 * mapped: every object lookup searches one, all over it, so they would be
 * mapped again at once.  Linux only (it reads /proc/self); elsewhere it
 * does nothing.
 */
#include "git_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifdef __linux__
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

/* The process's resident memory, in bytes (0: unknown).  Plain system
 * calls, no stdio: it is read every TM_GIT_PAGES_EVERY bytes allocated. */
static size_t resident_bytes(void)
{
	char text[128];
	unsigned long size, resident;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	if (sscanf(text, "%lu %lu", &size, &resident) != 2)
		return 0;
	return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

static bool ends_with(const char *s, size_t n, const char *end)
{
	size_t e = strlen(end);

	return n >= e && memcmp(s + n - e, end, e) == 0;
}

void tm_git__pack_pages_trim(size_t keep)
{
	char line[4096 + 128], perms[8];
	unsigned long start, end;
	bool whole = true, part; /* part: the rest of a line cut by fgets */
	int name;
	size_t n;
	FILE *f;

	if (resident_bytes() <= keep)
		return;
	if (!(f = fopen("/proc/self/maps", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		n = strlen(line);
		part = !whole;
		whole = n && line[n - 1] == '\n';
		if (part || !whole)
			continue; /* a name longer than the buffer: not ours */
		line[--n] = '\0';
		name = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end,
			   perms, &name) < 3 ||
		    !name || strcmp(perms, "r--s") != 0)
			continue;
		if (ends_with(line + name, n - (size_t)name, ".pack"))
			madvise((void *)start, end - start, MADV_DONTNEED);
	}
	fclose(f);
}
#else
void tm_git__pack_pages_trim(size_t keep)
{
	(void)keep;
}
#endif
