/*
 * The commit index, written (stale_cidx_internal.h): a layer's file from
 * its arrays, the chain that names the layers, merging layers and removing
 * the files no chain names.
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

/* A layer no chain names is removed once it is this old (seconds). */
#define EXPIRE 60
/* Merge the layer below while it holds at most FACTOR times the commits
 * of the layers above it. */
#define FACTOR 2

/* ---- writing a layer ---- */

static void put_pad(tm_buf *b)
{
	static const char zero[8];

	tm_buf_put(b, zero, tm_stale__pad8(b->size) - b->size);
}

static void put_u32(tm_buf *b, uint32_t v)
{
	tm_buf_put(b, &v, 4);
}

/* The size of a layer file with these counts. */
static size_t layer_size(uint64_t n, uint64_t np, uint64_t ns, uint64_t nd,
			 uint64_t nv, uint64_t npaths, uint64_t pb)
{
	return TM_STALE_LAYER_HEADER + tm_stale__pad8(n * 20) +
	       tm_stale__pad8(n * 8) + tm_stale__pad8((n + 1) * 4) +
	       tm_stale__pad8(np * 4) + tm_stale__pad8((n + 1) * 4) +
	       tm_stale__pad8((ns + 1) * 4) + tm_stale__pad8(nd * 4) +
	       tm_stale__pad8((n + 1) * 4) + tm_stale__pad8(nv * 4) +
	       tm_stale__pad8(nv * 20) + tm_stale__pad8(nv * 8) +
	       tm_stale__pad8(n * 4) + tm_stale__pad8((npaths + 1) * 4) +
	       tm_stale__pad8(pb) + tm_stale__pad8(npaths * 4);
}

/*
 * The file of one layer holding the `nsrc` consecutive layers `src` (one,
 * or the layers a merge replaces), on top of layer `below`, into *out;
 * returns its id.
 */
uint64_t tm_stale__layer_image(tm_buf *out,
			       const struct tm_stale_cidx_layer *const *src,
			       size_t nsrc, uint64_t below, uint64_t key)
{
	uint32_t h[12] = {TM_STALE_LAYER_ENDIAN, TM_STALE_LAYER_VERSION};
	uint32_t base = src[0]->base, pbase = src[0]->pbase, off, *head;
	const struct tm_stale_cidx_layer *l;
	size_t s, i, best, total;
	uint64_t sum;

	for (s = 0; s < nsrc; s++) {
		h[2] += src[s]->n;
		h[3] += src[s]->nparent;
		h[4] += src[s]->nslot;
		h[5] += src[s]->ndiff;
		h[6] += src[s]->nver;
		h[7] += src[s]->npaths;
		h[8] += src[s]->pathbytes;
	}
	h[9] = base;
	h[10] = pbase;
	tm_buf_grow(out, layer_size(h[2], h[3], h[4], h[5], h[6], h[7], h[8]));
	tm_buf_put(out, TM_STALE_LAYER_MAGIC, 8);
	tm_buf_put(out, "\0\0\0\0\0\0\0\0", 8); /* the checksum, below */
	tm_buf_put(out, h, sizeof(h));
	tm_buf_put(out, &key, 8);
	tm_buf_put(out, &below, 8);
#define CONCAT(field, count, size)                                 \
	do {                                                       \
		for (s = 0; s < nsrc; s++)                         \
			tm_buf_put(out, src[s]->field,             \
				   (size_t)src[s]->count *(size)); \
		put_pad(out);                                      \
	} while (0)
	/* starts: each layer's, shifted by the counts of those before it */
#define STARTS(field, n, count)                                           \
	do {                                                              \
		for (s = 0, off = 0; s < nsrc; off += src[s]->count, s++) \
			for (i = 0; i < src[s]->n; i++)                   \
				put_u32(out, src[s]->field[i] + off);     \
		put_u32(out, off);                                        \
		put_pad(out);                                             \
	} while (0)
	CONCAT(oids, n, 20);
	CONCAT(time, n, 8);
	STARTS(pstart, n, nparent);
	CONCAT(parent, nparent, 4);
	STARTS(sstart, n, nslot);
	STARTS(dstart, nslot, ndiff);
	CONCAT(dpath, ndiff, 4);
	STARTS(vstart, n, nver);
	CONCAT(vpath, nver, 4);
	CONCAT(vcommit, nver, 20);
	CONCAT(vident, nver, 8);
	/* order and psorted: the layers' merged */
	head = tm_xcalloc(nsrc, sizeof(*head));
	for (total = h[2]; total--;) {
		for (s = 0, best = nsrc; s < nsrc; s++) {
			l = src[s];
			if (head[s] < l->n &&
			    (best == nsrc ||
			     memcmp(l->oids + (size_t)l->order[head[s]] * 20,
				    src[best]->oids +
					    (size_t)src[best]->order
							    [head[best]] *
						    20,
				    20) < 0))
				best = s;
		}
		put_u32(out, src[best]->base - base +
				     src[best]->order[head[best]++]);
	}
	put_pad(out);
	STARTS(poff, npaths, pathbytes);
	CONCAT(pbytes, pathbytes, 1);
	memset(head, 0, nsrc * sizeof(*head));
	for (total = h[7]; total--;) {
		for (s = 0, best = nsrc; s < nsrc; s++) {
			l = src[s];
			if (head[s] < l->npaths &&
			    (best == nsrc ||
			     strcmp(tm_stale__layer_name(l,
							 l->psorted[head[s]]),
				    tm_stale__layer_name(
					    src[best],
					    src[best]->psorted[head[best]])) <
				     0))
				best = s;
		}
		put_u32(out, src[best]->pbase - pbase +
				     src[best]->psorted[head[best]++]);
	}
	put_pad(out);
#undef CONCAT
#undef STARTS
	free(head);
	sum = tm_record_sum(out->ptr + 16, out->size - 16);
	memcpy(out->ptr + 8, &sum, 8);
	return sum;
}

/*
 * Write image `img` (layer `id`) into the commits folder and put it on top
 * of ix, mapped from the file (or, when it cannot be written, from memory:
 * *img is taken either way).  Returns 1 when the file is there, 0 when it
 * is not, TM_ERROR when it cannot be read back (ix stays as it was).
 */
int tm_stale__layer_add(struct tm_stale_cidx *ix, git_repository *repo,
			tm_buf *img, uint64_t id, tm_strv *written)
{
	char name[64], *path;
	struct tm_stale_cidx_layer l;
	bool ok;

	tm_stale__layer_file_name(name, sizeof(name), id);
	path = tm_stale__cidx_file(repo, name);
	ok = tm_atomic_write_nosync(path, img->ptr, img->size) == 0;
	tm_error_clear();
	free(path);
	if (ok) {
		/* mapped from the file, not held twice */
		tm_buf_release(img);
		tm_strv_push(written, name);
		if (tm_stale__layer_load(ix, repo, id, false, NULL))
			return 1;
		return tm_error_set(TM_ERROR, "cannot read back %s", name);
	}
	memset(&l, 0, sizeof(l));
	l.size = img->size;
	l.data = (unsigned char *)tm_buf_detach(img);
	if (!tm_stale__layer_parse(&l, ix->n, ix->npaths,
				   ix->nlayers ? ix->layers[ix->nlayers - 1].id
					       : 0,
				   ix->shallow_key, TM_STALE_CHECK_NONE))
		abort(); /* our own image */
	tm_stale__cidx_push(ix, &l);
	return 0;
}

/* Name ix's layers in the chain file (when every one is written). */
void tm_stale__chain_write(const struct tm_stale_cidx *ix, git_repository *repo)
{
	tm_buf b = TM_BUF_INIT;
	char *path = tm_stale__cidx_file(repo, "chain");
	size_t i;

	tm_buf_puts(&b, TM_STALE_CHAIN_MAGIC);
	for (i = 0; i < ix->nlayers; i++)
		tm_buf_printf(&b, "%016" PRIx64 "\n", ix->layers[i].id);
	(void)tm_atomic_write_nosync(path, b.ptr, b.size);
	tm_error_clear();
	free(path);
	tm_buf_release(&b);
}

/* Remove the layer files ix does not name: the ones this run wrote or
 * merged away (`written`) and those the chain named past the ones it
 * loaded at once, the others (another writer's) once they are EXPIRE
 * seconds old. */
void tm_stale__layers_expire(const struct tm_stale_cidx *ix,
			     git_repository *repo, const tm_strv *written)
{
	char *dir = tm_stale__cidx_file(repo, ""), name[64];
	tm_hashmap keep = TM_HASHMAP_INIT, mine = TM_HASHMAP_INIT;
	struct dirent *e;
	struct stat st;
	time_t now = time(NULL);
	size_t i;
	DIR *d = opendir(dir);
	int fd;

	if (!d) {
		free(dir);
		return;
	}
	fd = dirfd(d);
	for (i = 0; i < ix->nlayers; i++) {
		tm_stale__layer_file_name(name, sizeof(name), ix->layers[i].id);
		tm_hashmap_puts(&keep, name, 0);
	}
	for (i = 0; i < written->n; i++)
		tm_hashmap_puts(&mine, written->items[i], 0);
	for (i = 0; i < ix->dropped.n; i++)
		tm_hashmap_puts(&mine, ix->dropped.items[i], 0);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "layer-", 6) ||
		    strlen(e->d_name) != 26 || strcmp(e->d_name + 22, ".idx") ||
		    tm_hashmap_gets(&keep, e->d_name))
			continue;
		if (tm_hashmap_gets(&mine, e->d_name) ||
		    (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     st.st_mtime + EXPIRE < now))
			(void)unlinkat(fd, e->d_name, 0);
	}
	closedir(d);
	tm_hashmap_release(&keep);
	tm_hashmap_release(&mine);
	free(dir);
}

void tm_stale__chunk_free(struct tm_stale_chunk *ch)
{
	tm_buf_release(&ch->oids);
	tm_buf_release(&ch->time);
	tm_buf_release(&ch->vcommit);
	tm_buf_release(&ch->vident);
	TM_FREE_ALL(ch->pstart.v, ch->parent.v, ch->sstart.v, ch->dstart.v,
		    ch->dpath.v, ch->vstart.v, ch->vpath.v);
	tm_strv_clear(&ch->newpaths);
	memset(ch, 0, sizeof(*ch));
}

static const struct tm_stale_cidx_layer *sort_layer;

static int order_cmp(const void *a, const void *b)
{
	return memcmp(sort_layer->oids + (size_t) * (const uint32_t *)a * 20,
		      sort_layer->oids + (size_t) * (const uint32_t *)b * 20,
		      20);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(tm_stale__layer_name(sort_layer, *(const uint32_t *)a),
		      tm_stale__layer_name(sort_layer, *(const uint32_t *)b));
}

int tm_stale__chunk_flush(struct tm_stale_chunk *ch, struct tm_stale_cidx *ix,
			  git_repository *repo, tm_strv *written, bool *on_disk)
{
	struct tm_stale_cidx_layer l;
	const struct tm_stale_cidx_layer *src = &l;
	tm_buf pbytes = TM_BUF_INIT, img = TM_BUF_INIT;
	uint32_t *order, *psorted, *poff;
	uint64_t id;
	size_t i;
	int error;

	if (!ch->n)
		return 0;
	tm_stale__u32_push(&ch->pstart, ch->parent.n);
	tm_stale__u32_push(&ch->sstart, ch->dstart.n);
	tm_stale__u32_push(&ch->dstart, ch->dpath.n);
	tm_stale__u32_push(&ch->vstart, ch->vpath.n);
	poff = tm_xcalloc(ch->newpaths.n + 1, sizeof(*poff));
	for (i = 0; i < ch->newpaths.n; i++) {
		poff[i] = (uint32_t)pbytes.size;
		tm_buf_put(&pbytes, ch->newpaths.items[i],
			   strlen(ch->newpaths.items[i]) + 1);
	}
	poff[i] = (uint32_t)pbytes.size;
	memset(&l, 0, sizeof(l));
	l.base = ix->n;
	l.pbase = ix->npaths;
	l.n = ch->n;
	l.nparent = (uint32_t)ch->parent.n;
	l.nslot = (uint32_t)ch->dstart.n - 1;
	l.ndiff = (uint32_t)ch->dpath.n;
	l.nver = (uint32_t)ch->vpath.n;
	l.npaths = (uint32_t)ch->newpaths.n;
	l.pathbytes = (uint32_t)pbytes.size;
	l.oids = (const unsigned char *)ch->oids.ptr;
	l.time = (const int64_t *)(const void *)ch->time.ptr;
	l.vcommit = (const unsigned char *)ch->vcommit.ptr;
	l.vident = (const uint64_t *)(const void *)ch->vident.ptr;
	l.pstart = ch->pstart.v;
	l.parent = ch->parent.v;
	l.sstart = ch->sstart.v;
	l.dstart = ch->dstart.v;
	l.dpath = ch->dpath.v;
	l.vstart = ch->vstart.v;
	l.vpath = ch->vpath.v;
	l.poff = poff;
	l.pbytes = pbytes.ptr ? pbytes.ptr : "";
	order = tm_xcalloc(l.n + 1, sizeof(*order));
	psorted = tm_xcalloc(l.npaths + 1, sizeof(*psorted));
	for (i = 0; i < l.n; i++)
		order[i] = (uint32_t)i;
	for (i = 0; i < l.npaths; i++)
		psorted[i] = (uint32_t)i;
	sort_layer = &l;
	qsort(order, l.n, sizeof(*order), order_cmp);
	qsort(psorted, l.npaths, sizeof(*psorted), name_cmp);
	l.order = order;
	l.psorted = psorted;
	id = tm_stale__layer_image(
		&img, &src, 1, ix->nlayers ? ix->layers[ix->nlayers - 1].id : 0,
		ix->shallow_key);
	TM_FREE_ALL(order, psorted, poff);
	tm_buf_release(&pbytes);
	tm_stale__chunk_free(ch);
	error = tm_stale__layer_add(ix, repo, &img, id, written);
	if (error < 0)
		return error;
	if (!error)
		*on_disk = false;
	if (*on_disk)
		tm_stale__chain_write(ix, repo);
	return 0;
}

int tm_stale__layers_merge(struct tm_stale_cidx *ix, git_repository *repo,
			   size_t first_new, bool on_disk, tm_strv *written)
{
	const struct tm_stale_cidx_layer **src;
	size_t j = first_new, k, top = ix->nlayers;
	uint64_t acc = 0, id;
	tm_buf img = TM_BUF_INIT;
	int error;

	if (!on_disk || j >= top)
		return 0;
	for (k = j; k < top; k++)
		acc += ix->layers[k].n;
	while (j > 0 && ix->layers[j - 1].n <= FACTOR * acc) {
		j--;
		acc += ix->layers[j].n;
	}
	if (top - j >= 2) {
		src = tm_xcalloc(top - j, sizeof(*src));
		for (k = j; k < top; k++)
			src[k - j] = &ix->layers[k];
		id = tm_stale__layer_image(&img, src, top - j,
					   j ? ix->layers[j - 1].id : 0,
					   ix->shallow_key);
		free(src);
		for (k = j; k < top; k++) {
			char name[64];

			tm_stale__layer_file_name(name, sizeof(name),
						  ix->layers[k].id);
			tm_strv_push(written, name); /* merged away */
			tm_stale__layer_release(&ix->layers[k]);
		}
		ix->nlayers = j;
		ix->n = j ? ix->layers[j - 1].base + ix->layers[j - 1].n : 0;
		ix->npaths =
			j ? ix->layers[j - 1].pbase + ix->layers[j - 1].npaths
			  : 0;
		error = tm_stale__layer_add(ix, repo, &img, id, written);
		if (error <= 0)
			return error; /* not written: the chain as it was */
		tm_stale__chain_write(ix, repo);
	}
	tm_stale__layers_expire(ix, repo, written);
	return 0;
}
