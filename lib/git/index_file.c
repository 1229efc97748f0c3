/*
 * git's index file, read in place for its unmerged paths (see
 * index_file.h).  The format (git's Documentation/gitformat-index.txt):
 * "DIRC", version, entry count (32-bit big-endian each); the entries, each
 * 62 bytes of stat data, object id and flags (64 with the extended flags
 * of version 3 and later), then its path: NUL-terminated and padded with
 * NULs to a multiple of 8 bytes in versions 2 and 3, prefix-compressed in
 * version 4 (a varint of bytes to drop from the end of the previous path,
 * then the rest, NUL-terminated, no padding); then the extensions (4-byte
 * signature, 32-bit size, data; a signature starting with 'A' to 'Z' is
 * optional), then the 20-byte hash of the whole.
 */
#include "index_file.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_LEN        12
#define ENTRY_FIXED       62     /* up to and with the 16-bit flags */
#define FLAG_VALID        0x8000 /* assume unchanged */
#define FLAG_EXTENDED     0x4000
#define EXT_SKIP_WORKTREE 0x4000
#define EXT_INTENT_TO_ADD 0x2000
#define FLAG_STAGE(f)     (((f) >> 12) & 3)
#define NAME_MASK         0xfff
#define HASH_LEN          20
#define MAX_INDEX         ((size_t)1 << 31)
/* The smallest entry: 62 bytes, a NUL and padding to 8 (versions 2 and
 * 3); 62, a varint, one byte of path and a NUL (version 4). */
#define MIN_ENTRY 64

#define DAMAGED                                                                \
	"'%s' looks damaged: %s; threadmind does not read it (if git "         \
	"cannot either, rebuild it from HEAD with 'rm %s && git reset': what " \
	"is staged is lost)"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The whole file into *data (malloc'd); 0 when it does not exist, -1 when
 * it cannot be read. */
static int slurp(unsigned char **data, size_t *len, const char *path,
		 struct stat *out_st)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*data = NULL;
	*len = 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (size_t)st.st_size > MAX_INDEX) {
		close(fd);
		return -1;
	}
	*data = tm_xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size &&
	       ((r = read(fd, *data + got, (size_t)st.st_size - got)) > 0 ||
		(r < 0 && errno == EINTR)))
		if (r > 0)
			got += (size_t)r;
	close(fd);
	if (got != (size_t)st.st_size) {
		free(*data);
		*data = NULL;
		return -1;
	}
	*len = got;
	if (out_st)
		*out_st = st;
	return 1;
}

/* git's varint (varint.c): 7 bits a byte, each continuation adding one. */
static bool get_varint(const unsigned char **p, const unsigned char *end,
		       size_t *out)
{
	const unsigned char *q = *p;
	uint64_t v;
	unsigned char c;

	if (q >= end)
		return false;
	c = *q++;
	v = c & 127;
	while (c & 128) {
		v += 1;
		if (!v || (v >> 57) || q >= end)
			return false;
		c = *q++;
		v = (v << 7) + (c & 127);
	}
	*p = q;
	*out = (size_t)v;
	return true;
}

/* (path, stage) order of the index: bytes, then stage. */
static int cmp_entry(const char *a, size_t alen, unsigned as, const char *b,
		     size_t blen, unsigned bs)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return as < bs ? -1 : as > bs;
}

/* Refuse the index `display` as damaged, saying `why`. */
static int damaged(const char *display, const char *why)
{
	return tm_error_set(TM_EPARSE, DAMAGED, display, why, display);
}

/* An entry's path of `len` bytes or more (the `i`th entry): too long. */
static int path_too_long(const char *display, size_t i, size_t len)
{
	char why[160];

	snprintf(why, sizeof(why),
		 "entry %zu has a path of %zu bytes or more, longer than any "
		 "path git can check out (%d)",
		 i + 1, len, PATH_MAX - 1);
	return damaged(display, why);
}

/* The entries tm_index_file_entries gives, as scan collects them. */
struct stage0 {
	tm_index_file_entry *v;
	size_t n, alloc;
};

/* Is the path (`len` bytes) a .gitattributes file? */
static bool is_attributes(const char *name, size_t len)
{
	return len >= 14 && !memcmp(name + len - 14, ".gitattributes", 14) &&
	       (len == 14 || name[len - 15] == '/');
}

static void stage0_push(struct stage0 *z, const unsigned char *e,
			uint32_t flags, unsigned extended, unsigned stage,
			const char *name, size_t namelen)
{
	tm_index_file_entry *x;

	tm_xgrow((void **)&z->v, &z->alloc, z->n + 1, sizeof(*z->v));
	x = &z->v[z->n++];
	x->path = tm_xstrndup(name, namelen);
	x->ctime_s = be32(e);
	x->ctime_ns = be32(e + 4);
	x->mtime_s = be32(e + 8);
	x->mtime_ns = be32(e + 12);
	x->dev = be32(e + 16);
	x->ino = be32(e + 20);
	x->mode = be32(e + 24);
	x->size = be32(e + 36);
	memcpy(x->id, e + 40, HASH_LEN);
	x->vouched = !stage && !(flags & FLAG_VALID) &&
		     !(extended & (EXT_SKIP_WORKTREE | EXT_INTENT_TO_ADD));
}

/*
 * The entries and extensions of `data`: 0, TM_INDEX_FILE_ASK_LIBGIT2 when
 * anything is off, TM_EPARSE when the file is past the bounds.  The
 * unmerged paths under `prefix` into `out`, the entries of
 * tm_index_file_entries into `z` (either may be NULL).
 */
static int scan(tm_strv *out, struct stage0 *z, const unsigned char *data,
		size_t len, const char *prefix, const char *display)
{
	const unsigned char *p = data + HEADER_LEN, *end = data + len;
	size_t plen = strlen(prefix), n, i, namelen, fixed, strip;
	size_t expanded = 0;
	uint32_t version, flags;
	unsigned stage, last_stage = 0;
	tm_buf path = TM_BUF_INIT; /* version 4: the current path */
	tm_buf last = TM_BUF_INIT; /* the previous entry's path */
	const char *name;
	int error = TM_INDEX_FILE_ASK_LIBGIT2;
	bool have_last = false, to_libgit2 = false;

	if (len < HEADER_LEN + HASH_LEN || memcmp(data, "DIRC", 4))
		return TM_INDEX_FILE_ASK_LIBGIT2;
	version = be32(data + 4);
	n = be32(data + 8);
	if (version < 2 || version > 4)
		return TM_INDEX_FILE_ASK_LIBGIT2;
	end -= HASH_LEN;
	/* libgit2 and git allocate for the count before reading an entry */
	if (n > (len - HEADER_LEN - HASH_LEN) / MIN_ENTRY) {
		char why[160];

		snprintf(why, sizeof(why),
			 "it claims %zu entries, more than its %zu bytes can "
			 "hold",
			 n, len);
		return damaged(display, why);
	}
	for (i = 0; i < n; i++) {
		const unsigned char *ent = p;
		unsigned extended = 0;

		if ((size_t)(end - p) < ENTRY_FIXED)
			goto done;
		flags = (uint32_t)p[60] << 8 | p[61];
		fixed = ENTRY_FIXED;
		if (flags & FLAG_EXTENDED) {
			if (version < 3)
				goto done;
			fixed += 2;
		}
		if ((size_t)(end - p) < fixed)
			goto done;
		if (fixed > ENTRY_FIXED)
			extended = (unsigned)p[62] << 8 | p[63];
		stage = FLAG_STAGE(flags);
		if (version == 4) {
			const unsigned char *q = p + fixed, *nul;

			if (!get_varint(&q, end, &strip) || strip > path.size ||
			    !(nul = memchr(q, '\0', (size_t)(end - q))))
				goto done;
			/* checked before the copy: a path that grows by a
			 * few bytes an entry is copied whole for each */
			if (path.size - strip + (size_t)(nul - q) >= PATH_MAX) {
				error = path_too_long(
					display, i,
					path.size - strip + (size_t)(nul - q));
				goto done;
			}
			expanded += path.size - strip + (size_t)(nul - q);
			if (expanded / TM_INDEX_FILE_EXPAND_MAX > len) {
				char why[200];

				snprintf(why, sizeof(why),
					 "its prefix-compressed paths (index "
					 "version 4) expand to more than %d "
					 "times its %zu bytes",
					 TM_INDEX_FILE_EXPAND_MAX, len);
				error = damaged(display, why);
				goto done;
			}
			path.size -= strip;
			tm_buf_put(&path, q, (size_t)(nul - q));
			name = tm_buf_cstr(&path);
			namelen = path.size;
			p = nul + 1;
		} else {
			const unsigned char *nul = memchr(
				p + fixed, '\0', (size_t)(end - p) - fixed);
			size_t size;

			if (!nul)
				goto done;
			name = (const char *)p + fixed;
			namelen = (size_t)(nul - (p + fixed));
			if (namelen >= PATH_MAX) {
				error = path_too_long(display, i, namelen);
				goto done;
			}
			size = (fixed + namelen + 8) & ~(size_t)7;
			if (size > (size_t)(end - p))
				goto done;
			p += size;
		}
		if ((flags & NAME_MASK) != NAME_MASK &&
		    (flags & NAME_MASK) != namelen)
			goto done;
		if (!namelen)
			goto done;
		/*
		 * Entries libgit2 would sort, or order otherwise under
		 * core.ignorecase, are left to it; the walk goes on (without
		 * collecting) so that the bounds hold before libgit2 expands
		 * every path.
		 */
		if (have_last && cmp_entry(last.ptr, last.size, last_stage,
					   name, namelen, stage) >= 0)
			to_libgit2 = true;
		if (out && !to_libgit2 && stage && namelen >= plen &&
		    !memcmp(name, prefix, plen) &&
		    (!out->n || strcmp(out->items[out->n - 1], name))) {
			if (out->n &&
			    strcasecmp(out->items[out->n - 1], name) >= 0)
				to_libgit2 = true;
			else
				tm_strv_push_owned(out,
						   tm_xstrndup(name, namelen));
		}
		if (z && ((!stage && namelen > plen &&
			   !memcmp(name, prefix, plen)) ||
			  is_attributes(name, namelen)))
			stage0_push(z, ent, flags, extended, stage, name,
				    namelen);
		tm_buf_clear(&last);
		tm_buf_put(&last, name, namelen);
		last_stage = stage;
		have_last = true;
	}
	while (p < end) { /* the extensions */
		uint32_t size;

		if ((size_t)(end - p) < 8 || p[0] < 'A' || p[0] > 'Z')
			goto done;
		size = be32(p + 4);
		if (size > (size_t)(end - p) - 8)
			goto done;
		p += 8 + size;
	}
	error = to_libgit2 ? TM_INDEX_FILE_ASK_LIBGIT2 : 0;
done:
	tm_buf_release(&path);
	tm_buf_release(&last);
	return error;
}

int tm_index_file_conflicts(tm_strv *out, const char *path, const char *display,
			    const char *prefix)
{
	tm_strv found = TM_STRV_INIT;
	unsigned char *data;
	size_t len, i;
	int got = slurp(&data, &len, path, NULL), error;

	if (got <= 0)
		return got == 0 ? 0 : TM_INDEX_FILE_ASK_LIBGIT2;
	error = scan(&found, NULL, data, len, prefix, display ? display : path);
	free(data);
	for (i = 0; !error && i < found.n; i++)
		tm_strv_push_owned(out, found.items[i]);
	if (!error)
		free(found.items);
	else
		tm_strv_clear(&found);
	return error;
}

int tm_index_file_check(const char *path, const char *display)
{
	unsigned char *data;
	size_t len;
	int error;

	if (slurp(&data, &len, path, NULL) <= 0)
		return 0;
	error = scan(NULL, NULL, data, len, "", display ? display : path);
	free(data);
	return error == TM_EPARSE ? error : 0;
}

int tm_index_file_entries(tm_index_file_entry **out, size_t *n,
			  int64_t mtime[2], const char *path,
			  const char *prefix)
{
	struct stage0 z = {NULL, 0, 0};
	unsigned char *data;
	struct stat st;
	size_t len;
	int got = slurp(&data, &len, path, &st), error;

	*out = NULL;
	*n = 0;
	if (got <= 0)
		return got == 0 ? 0 : TM_INDEX_FILE_ASK_LIBGIT2;
	error = scan(NULL, &z, data, len, prefix, path);
	free(data);
	if (error) {
		tm_index_file_entries_free(z.v, z.n);
		return error;
	}
	mtime[0] = (int64_t)st.st_mtim.tv_sec;
	mtime[1] = (int64_t)st.st_mtim.tv_nsec;
	*out = z.v;
	*n = z.n;
	return 0;
}

void tm_index_file_entries_free(tm_index_file_entry *e, size_t n)
{
	size_t i;

	for (i = 0; e && i < n; i++)
		free(e[i].path);
	free(e);
}
