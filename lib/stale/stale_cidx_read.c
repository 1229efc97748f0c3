/*
 * The commit index, read (stale_cidx_internal.h): the layers of the chain,
 * mapped and checked, and the lookups of a commit or a path in them.
 */
#include "stale_cidx_internal.h"
#include "error.h"
#include "frontmatter.h"
#include "fs.h"
#include "git.h"
#include "git_libgit2.h"
#include "deadline.h"
#include "record.h"
#include "treediff.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Layers this large are checked whole once, then trusted while their stat
 * data is what `checked` holds (smaller ones cost little to check). */
#define STAMP_MIN    ((uint64_t)1 << 20)
#define STAMP_MAGIC  "TMCIDXOK"
#define STAMP_FIELDS 6 /* id, dev, ino, size, mtime ns, ctime ns */
/* A first build writes a layer every so many commits. */
#define CHUNK_COMMITS 65536

uint32_t tm_stale__chunk_commits = CHUNK_COMMITS;
unsigned long tm_stale__layer_checks;
uint64_t tm_stale__stamp_min = STAMP_MIN;

struct cursor {
	unsigned char *p;
	size_t left;
	bool bad;
};

static void *take(struct cursor *c, uint64_t count, size_t size)
{
	void *at = c->p;
	uint64_t len;

	if (c->bad || count > SIZE_MAX / 8 / (size ? size : 1)) {
		c->bad = true;
		return NULL;
	}
	len = tm_stale__pad8((size_t)count * size);
	if (len > c->left) {
		c->bad = true;
		return NULL;
	}
	c->p += len;
	c->left -= (size_t)len;
	return at;
}

/* starts[0..n] rises from 0 to `total`. */
static bool starts_ok(const uint32_t *s, uint32_t n, uint32_t total)
{
	uint32_t i;

	if (s[0] != 0 || s[n] != total)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] > s[i + 1])
			return false;
	return true;
}

static bool all_below(const uint32_t *v, uint32_t n, uint32_t limit)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (v[i] >= limit)
			return false;
	return true;
}

const char *tm_stale__layer_name(const struct tm_stale_cidx_layer *l,
				 uint32_t p)
{
	return l->pbytes + l->poff[p];
}

/*
 * Point l's arrays into l->data (l->size bytes); false when it is not a
 * sound layer whose positions start at `base`, path numbers at `pbase`,
 * on top of layer `below`, for shallow boundary `key`, as far as `check`
 * looks.  A stamp (the file `checked`) saves only TM_STALE_CHECK_WHOLE's
 * re-hashing and order checks: whatever a file holds, the readers (the cidx_*
 * accessors, the binary searches) never leave it.
 */
bool tm_stale__layer_parse(struct tm_stale_cidx_layer *l, uint32_t base,
			   uint32_t pbase, uint64_t below, uint64_t key,
			   enum tm_stale_layer_check check)
{
	struct cursor c;
	uint32_t h[12], i, k, top;
	uint64_t lkey, sum;

	if (l->size < TM_STALE_LAYER_HEADER ||
	    memcmp(l->data, TM_STALE_LAYER_MAGIC, 8))
		return false;
	memcpy(&sum, l->data + 8, 8);
	memcpy(h, l->data + 16, sizeof(h));
	memcpy(&lkey, l->data + 64, 8);
	memcpy(&l->below, l->data + 72, 8);
	if (h[0] != TM_STALE_LAYER_ENDIAN || h[1] != TM_STALE_LAYER_VERSION ||
	    lkey != key || l->below != below || h[9] != base || h[10] != pbase)
		return false;
	l->id = sum;
	l->n = h[2];
	l->nparent = h[3];
	l->nslot = h[4];
	l->ndiff = h[5];
	l->nver = h[6];
	l->npaths = h[7];
	l->pathbytes = h[8];
	l->base = base;
	l->pbase = pbase;
	if (!l->n || (uint64_t)base + l->n >= TM_STALE_CIDX_MAX ||
	    (uint64_t)pbase + l->npaths >= TM_STALE_CIDX_MAX)
		return false;
	c.p = l->data + TM_STALE_LAYER_HEADER;
	c.left = l->size - TM_STALE_LAYER_HEADER;
	c.bad = false;
	l->oids = take(&c, l->n, GIT_OID_RAWSZ);
	l->time = take(&c, l->n, sizeof(int64_t));
	l->pstart = take(&c, (uint64_t)l->n + 1, 4);
	l->parent = take(&c, l->nparent, 4);
	l->sstart = take(&c, (uint64_t)l->n + 1, 4);
	l->dstart = take(&c, (uint64_t)l->nslot + 1, 4);
	l->dpath = take(&c, l->ndiff, 4);
	l->vstart = take(&c, (uint64_t)l->n + 1, 4);
	l->vpath = take(&c, l->nver, 4);
	l->vcommit = take(&c, l->nver, GIT_OID_RAWSZ);
	l->vident = take(&c, l->nver, 8);
	l->order = take(&c, l->n, 4);
	l->poff = take(&c, (uint64_t)l->npaths + 1, 4);
	l->pbytes = take(&c, l->pathbytes, 1);
	l->psorted = take(&c, l->npaths, 4);
	if (c.bad || c.left)
		return false;
	if (check == TM_STALE_CHECK_NONE)
		return true;
	if (check == TM_STALE_CHECK_WHOLE &&
	    sum != tm_record_sum(l->data + 16, l->size - 16))
		return false;
	top = pbase + l->npaths;
	if (!starts_ok(l->pstart, l->n, l->nparent) ||
	    !starts_ok(l->sstart, l->n, l->nslot) ||
	    !starts_ok(l->dstart, l->nslot, l->ndiff) ||
	    !starts_ok(l->vstart, l->n, l->nver) ||
	    !starts_ok(l->poff, l->npaths, l->pathbytes) ||
	    !all_below(l->dpath, l->ndiff, top) ||
	    !all_below(l->vpath, l->nver, top) ||
	    !all_below(l->order, l->n, l->n) ||
	    !all_below(l->psorted, l->npaths, l->npaths))
		return false;
	for (i = 0; i < l->n; i++) {
		k = l->pstart[i + 1] - l->pstart[i];
		/* parents first; one slot per parent, or one for a root;
		   a stub has neither */
		if (l->sstart[i + 1] - l->sstart[i] != (k ? k : 1) &&
		    (k || l->sstart[i + 1] != l->sstart[i]))
			return false;
		for (k = l->pstart[i]; k < l->pstart[i + 1]; k++)
			if (l->parent[k] >= base + i)
				return false;
		if (check == TM_STALE_CHECK_WHOLE && i &&
		    memcmp(l->oids + (size_t)l->order[i - 1] * 20,
			   l->oids + (size_t)l->order[i] * 20, 20) > 0)
			return false; /* a stub and its description: equal */
	}
	for (i = 0; i < l->npaths; i++)
		if (l->poff[i + 1] == l->poff[i] ||
		    l->pbytes[l->poff[i + 1] - 1] != '\0')
			return false;
	for (i = 1; check == TM_STALE_CHECK_WHOLE && i < l->npaths; i++)
		if (strcmp(tm_stale__layer_name(l, l->psorted[i - 1]),
			   tm_stale__layer_name(l, l->psorted[i])) >= 0)
			return false;
	return true;
}

void tm_stale__layer_release(struct tm_stale_cidx_layer *l)
{
	if (l->mapped)
		munmap(l->data, l->size);
	else
		free(l->data);
	memset(l, 0, sizeof(*l));
}

void tm_stale__cidx_free(struct tm_stale_cidx *ix)
{
	if (!ix)
		return;
	TM_FREE_ITEMS(ix->layers, ix->nlayers, tm_stale__layer_release);
	tm_strv_clear(&ix->dropped);
	memset(ix, 0, sizeof(*ix));
}

/* $GIT_COMMON_DIR/threadmind/commits/ + `name`. */
char *tm_stale__cidx_file(git_repository *repo, const char *name)
{
	tm_buf p = TM_BUF_INIT;

	tm_buf_printf(&p, "%sthreadmind/commits/%s",
		      git_repository_commondir(repo), name);
	return tm_buf_detach(&p);
}

void tm_stale__layer_file_name(char *out, size_t size, uint64_t id)
{
	snprintf(out, size, "layer-%016" PRIx64 ".idx", id);
}

/* What the shallow boundary is ($GIT_COMMON_DIR/shallow), as a number. */
uint64_t tm_stale__shallow_key(git_repository *repo)
{
	uint64_t sum[2], key = 0;

	tm_stale__shallow_sum(sum, git_repository_commondir(repo));
	if (sum[1]) { /* there is a boundary: never 0 */
		key = sum[0] ^ sum[1];
		key += !key;
	}
	return key;
}

/* Add layer *l (sound, on top of ix's) to ix. */
void tm_stale__cidx_push(struct tm_stale_cidx *ix,
			 struct tm_stale_cidx_layer *l)
{
	tm_xgrow((void **)&ix->layers, &ix->alloc, ix->nlayers + 1,
		 sizeof(*ix->layers));
	ix->layers[ix->nlayers++] = *l;
	ix->n = l->base + l->n;
	ix->npaths = l->pbase + l->npaths;
	memset(l, 0, sizeof(*l));
}

/* What `checked` holds: the stat data of the layers checked whole. */
struct tm_stale_stamps {
	uint64_t *v; /* STAMP_FIELDS per layer */
	size_t n;
	int64_t mtime_ns; /* of the file `checked` */
	bool dirty;       /* a layer checked whole since: write it again */
};

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void stamp_of(uint64_t out[STAMP_FIELDS], uint64_t id,
		     const struct stat *st)
{
	out[0] = id;
	out[1] = (uint64_t)st->st_dev;
	out[2] = (uint64_t)st->st_ino;
	out[3] = (uint64_t)st->st_size;
	out[4] = (uint64_t)ns_of(&st->st_mtim);
	out[5] = (uint64_t)ns_of(&st->st_ctim);
}

static void stamps_read(struct tm_stale_stamps *sp, git_repository *repo)
{
	char *path = tm_stale__cidx_file(repo, "checked");
	unsigned char data[4096];
	tm_record_reader r;
	struct stat st;
	size_t i, n;
	ssize_t got = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	free(path);
	memset(sp, 0, sizeof(*sp));
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size < (off_t)sizeof(data))
		got = pread(fd, data, sizeof(data), 0);
	if (got == st.st_size &&
	    tm_record_unframe(&r, data, (size_t)got, STAMP_MAGIC)) {
		n = (size_t)tm_record_get_u64(&r);
		if (n <= r.left / 8 / STAMP_FIELDS) {
			sp->v = tm_xmalloc(n * STAMP_FIELDS * 8 + 8);
			for (i = 0; i < n * STAMP_FIELDS; i++)
				sp->v[i] = tm_record_get_u64(&r);
			sp->n = r.bad ? 0 : n;
			sp->mtime_ns = ns_of(&st.st_mtim);
		}
	}
	close(fd);
}

/* Was layer `id`, as fstat gives it now, checked whole already? */
static bool stamped(const struct tm_stale_stamps *sp, uint64_t id,
		    const struct stat *st)
{
	uint64_t now[STAMP_FIELDS];
	size_t i;

	stamp_of(now, id, st);
	if (ns_of(&st->st_ctim) >= sp->mtime_ns)
		return false; /* racy: changed as `checked` was written */
	for (i = 0; i < sp->n; i++)
		if (!memcmp(sp->v + i * STAMP_FIELDS, now, sizeof(now)))
			return true;
	return false;
}

/* Note layer `id` (file descriptor fd) as checked whole. */
static void stamp_add(struct tm_stale_stamps *sp, uint64_t id, int fd,
		      const struct stat *st)
{
	size_t i;

	if (fsync(fd) < 0)
		return; /* not known to be what a crash leaves */
	for (i = 0; i < sp->n && sp->v[i * STAMP_FIELDS] != id; i++)
		;
	if (i == sp->n) /* else: the layer's older stamp, replaced */
		sp->v = tm_xrealloc(sp->v, ++sp->n * STAMP_FIELDS * 8);
	stamp_of(sp->v + i * STAMP_FIELDS, id, st);
	sp->dirty = true;
}

static bool cidx_has_layer(const struct tm_stale_cidx *ix, uint64_t id)
{
	size_t j;

	for (j = 0; j < ix->nlayers; j++)
		if (ix->layers[j].id == id)
			return true;
	return false;
}

/* Write `checked` with the stamps of ix's layers (best effort). */
static void stamps_write(const struct tm_stale_stamps *sp,
			 const struct tm_stale_cidx *ix, git_repository *repo)
{
	tm_buf entries = TM_BUF_INIT, payload = TM_BUF_INIT, file = TM_BUF_INIT;
	size_t i, k, n = 0;
	char *path;

	for (i = 0; i < sp->n; i++) {
		if (!cidx_has_layer(ix, sp->v[i * STAMP_FIELDS]))
			continue;
		for (k = 0; k < STAMP_FIELDS; k++)
			tm_record_put_u64(&entries,
					  sp->v[i * STAMP_FIELDS + k]);
		n++;
	}
	tm_record_put_u64(&payload, n);
	tm_buf_put(&payload, entries.ptr, entries.size);
	tm_record_frame(&file, STAMP_MAGIC, payload.ptr, payload.size);
	path = tm_stale__cidx_file(repo, "checked");
	(void)tm_atomic_write_nosync(path, file.ptr, file.size);
	tm_error_clear();
	free(path);
	tm_buf_release(&entries);
	tm_buf_release(&payload);
	tm_buf_release(&file);
}

/* Map layer `id` as the next of ix; false when it is missing or unsound
 * (`check`: checked whole, unless `sp` says it was and has not changed
 * since; without, one this process just wrote; either way its bounds are
 * checked: a stamp saves re-hashing, never the range checks). */
bool tm_stale__layer_load(struct tm_stale_cidx *ix, git_repository *repo,
			  uint64_t id, bool check, struct tm_stale_stamps *sp)
{
	struct tm_stale_cidx_layer l;
	char name[64], *path;
	struct stat st;
	void *map;
	int fd;
	bool ok, whole;

	memset(&l, 0, sizeof(l));
	tm_stale__layer_file_name(name, sizeof(name), id);
	path = tm_stale__cidx_file(repo, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < TM_STALE_LAYER_HEADER ||
	    (uint64_t)st.st_size >= SIZE_MAX / 2) {
		close(fd);
		return false;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return false;
	}
	l.data = map;
	l.size = (size_t)st.st_size;
	l.mapped = true;
	whole = check && !(sp && stamped(sp, id, &st));
	tm_stale__layer_checks += whole;
	ok = tm_stale__layer_parse(
		     &l, ix->n, ix->npaths,
		     ix->nlayers ? ix->layers[ix->nlayers - 1].id : 0,
		     ix->shallow_key,
		     whole ? TM_STALE_CHECK_WHOLE : TM_STALE_CHECK_BOUNDS) &&
	     l.id == id;
	if (ok && whole && sp && (uint64_t)st.st_size >= tm_stale__stamp_min)
		stamp_add(sp, id, fd, &st);
	close(fd);
	if (ok) {
		tm_stale__cidx_push(ix, &l);
	} else {
		tm_stale__layer_release(&l);
	}
	return ok;
}

/* The index as the chain names it, up to its first unusable layer. */
void tm_stale__cidx_load(struct tm_stale_cidx *ix, git_repository *repo)
{
	char *path = tm_stale__cidx_file(repo, "chain"), line[64];
	tm_buf name = TM_BUF_INIT;
	struct tm_stale_stamps sp;
	size_t len;
	FILE *f;

	memset(ix, 0, sizeof(*ix));
	ix->shallow_key = tm_stale__shallow_key(repo);
	f = fopen(path, "rbe");
	free(path);
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f) ||
	    strcmp(line, TM_STALE_CHAIN_MAGIC)) {
		ix->partial = true;
		fclose(f);
		return;
	}
	stamps_read(&sp, repo);
	while (fgets(line, sizeof(line), f)) {
		len = strlen(line);
		if (!ix->partial && len == 17 && line[16] == '\n' &&
		    strspn(line, "0123456789abcdef") == 16 &&
		    tm_stale__layer_load(ix, repo, strtoull(line, NULL, 16),
					 true, &sp))
			continue;
		/* this layer and the ones above it are of no use now */
		ix->partial = true;
		if (len == 17 && strspn(line, "0123456789abcdef") == 16) {
			line[16] = '\0';
			tm_buf_clear(&name);
			tm_buf_printf(&name, "layer-%s.idx", line);
			tm_strv_push(&ix->dropped, tm_buf_cstr(&name));
		}
	}
	if (sp.dirty)
		stamps_write(&sp, ix, repo);
	free(sp.v);
	tm_buf_release(&name);
	fclose(f);
}

/* How entry `e` of layer l's sorted array compares with `key`. */
typedef int (*layer_cmp)(const struct tm_stale_cidx_layer *l, uint32_t e,
			 const void *key);

/* Binary search of `key` among the n entries of `sorted` (layer l's, in
 * the order of cmp): the entry into *at when it is there. */
static inline bool layer_search(const struct tm_stale_cidx_layer *l,
				const uint32_t *sorted, uint32_t n,
				layer_cmp cmp, const void *key, uint32_t *at)
{
	size_t lo = 0, hi = n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = cmp(l, sorted[mid], key);
		if (!c) {
			*at = sorted[mid];
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int oid_cmp_at(const struct tm_stale_cidx_layer *l, uint32_t e,
		      const void *key)
{
	return memcmp(l->oids + (size_t)e * 20, key, 20);
}

static int name_cmp_at(const struct tm_stale_cidx_layer *l, uint32_t e,
		       const void *key)
{
	return strcmp(tm_stale__layer_name(l, e), key);
}

bool tm_stale__cidx_find(const struct tm_stale_cidx *ix, const git_oid *oid,
			 uint32_t *out)
{
	const struct tm_stale_cidx_layer *l;
	size_t k, lo, hi, mid;
	bool found = false;

	/* a layer may hold a stub and the commit's description (merged
	   layers): the first of the equal entries, then each of them */
	for (k = ix->nlayers; k-- > 0;) {
		l = &ix->layers[k];
		for (lo = 0, hi = l->n; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (oid_cmp_at(l, l->order[mid], oid->id) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < l->n && !oid_cmp_at(l, l->order[lo], oid->id);
		     lo++) {
			*out = l->base + l->order[lo];
			found = true;
			if (tm_stale__cidx_described(ix, *out))
				return true;
		}
	}
	return found;
}

uint32_t tm_stale__cidx_resolve(const struct tm_stale_cidx *ix, uint32_t pos)
{
	git_oid oid;
	uint32_t at;

	if (tm_stale__cidx_described(ix, pos))
		return pos;
	memcpy(oid.id, tm_stale__cidx_oid(ix, pos), GIT_OID_RAWSZ);
	return tm_stale__cidx_find(ix, &oid, &at) ? at : pos;
}

const char *tm_stale__cidx_name(const struct tm_stale_cidx *ix, uint32_t path)
{
	const struct tm_stale_cidx_layer *l = tm_stale__cidx_layer_of(
		ix, path, offsetof(struct tm_stale_cidx_layer, pbase));

	return tm_stale__layer_name(l, path - l->pbase);
}

/* The number of path `name` in ix, when it has it. */
bool tm_stale__cidx_path_find(const struct tm_stale_cidx *ix, const char *name,
			      uint32_t *out)
{
	const struct tm_stale_cidx_layer *l;
	uint32_t at;
	size_t k;

	for (k = 0; k < ix->nlayers; k++) {
		l = &ix->layers[k];
		if (layer_search(l, l->psorted, l->npaths, name_cmp_at, name,
				 &at)) {
			*out = l->pbase + at;
			return true;
		}
	}
	return false;
}
