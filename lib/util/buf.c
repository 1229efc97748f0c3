/* Growable buffers, string vectors and allocation wrappers (see buf.h). */
#include "buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#ifdef __linux__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

static void oom(size_t n)
{
	fprintf(stderr, "fatal: out of memory (%zu bytes)\n", n);
	abort();
}

/*
 * A large block (the staleness engine's arrays and tables: 4 MiB and more
 * on a history of 80,000 commits) in huge pages where the system gives
 * them on request (Linux's transparent_hugepage "madvise", the default of
 * Debian and Ubuntu): its first use then faults once per 2 MiB instead of
 * once per 4 KiB.  The first run on git/git took 24,000 page faults
 * instead of 30,000 (docs/PERFORMANCE.md).  Only the 2 MiB-aligned part
 * inside the block is advised; nothing else changes.
 */
#define HUGE_PAGE ((uintptr_t)2 << 20)

static void advise_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);

	if (n >= 2 * HUGE_PAGE && e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

/*
 * The heap's small blocks in huge pages (tm_heap_huge_pages).  glibc's
 * malloc takes them from the brk heap, which grows a little at a time;
 * each new 4 KiB page then costs a page fault on first use, and a first
 * run allocates megabytes this way (at the narrow first run's peak,
 * libgit2's cache of delta bases alone held 5.7 MiB).  On the machine of
 * docs/PERFORMANCE.md a fault costs 20-30 us: the narrow first run took
 * 2,550 faults, 650-1,050 with the heap in huge pages.  So malloc is told
 * to grow the heap HEAP_STEP at a time (M_TOP_PAD: address space, not
 * memory, until used), made to grow it now if its top is nearly full (a
 * few blocks of HEAP_PROBE, under malloc's mmap threshold), and the
 * 2 MiB-aligned part of the heap not advised yet is advised, up to
 * HEAP_HUGE_MAX past the first advised byte: a huge page is resident
 * whole, and with no bound git/git's whole-history first run peaked at up
 * to 125.7 MiB instead of 118 (the target is 128); with it, 116-119 MiB,
 * and two thirds of the faults saved on g80k's.  With another allocator
 * (the sanitizers', valgrind's) the break does not move and nothing
 * happens.
 */
#define HEAP_STEP     ((size_t)16 << 20)
#define HEAP_PROBE    ((size_t)64 << 10)
#define HEAP_PROBES   16
#define HEAP_HUGE_MAX ((size_t)16 << 20)

void tm_heap_huge_pages(void)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(M_TOP_PAD)
	static uintptr_t first, advised; /* advised: [first, advised) */
	void *probe[HEAP_PROBES];
	char *start, *end;
	uintptr_t a, e;
	size_t n = 0;

	if (!mallopt(M_TOP_PAD, (int)HEAP_STEP))
		return;
	start = sbrk(0);
	if (start == (char *)-1)
		return;
	while (n < HEAP_PROBES && (char *)sbrk(0) == start &&
	       (probe[n] = malloc(HEAP_PROBE)) != NULL)
		n++;
	end = sbrk(0);
	while (n)
		free(probe[--n]);
	if (end == (char *)-1)
		return;
	a = (uintptr_t)start + HUGE_PAGE - 1;
	if (advised && advised < a)
		a = advised;
	a &= ~(HUGE_PAGE - 1);
	if (!first)
		first = a;
	e = (uintptr_t)end & ~(HUGE_PAGE - 1);
	if (e > first + HEAP_HUGE_MAX)
		e = first + HEAP_HUGE_MAX;
	if (e > a && madvise((void *)a, e - a, MADV_HUGEPAGE) == 0)
		advised = e;
#endif
}

void *tm_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	advise_huge(p, n);
	return p;
}

void *tm_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *tm_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom(n);
	advise_huge(q, n);
	return q;
}

char *tm_xstrdup(const char *s)
{
	return tm_xstrndup(s, strlen(s));
}

char *tm_xstrndup(const char *s, size_t n)
{
	char *p = tm_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *tm_xstrdup_or_null(const char *s)
{
	return s ? tm_xstrdup(s) : NULL;
}

const void *tm_find_by_string(const void *items, size_t n, size_t size,
			      size_t member, const char *key)
{
	const char *p = items;
	size_t i;

	for (i = 0; i < n; i++, p += size) {
		const char *s = *(char *const *)(p + member);

		if (s && !strcmp(s, key))
			return p;
	}
	return NULL;
}

void tm_free_all(void *const *ptrs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(ptrs[i]);
}

void tm_xgrow(void **items, size_t *alloc, size_t want, size_t size)
{
	size_t n;

	if (want <= *alloc)
		return;
	n = *alloc ? *alloc : 8;
	while (n < want) {
		if (n > ((size_t)-1) / 2)
			oom(want);
		n *= 2;
	}
	if (n > ((size_t)-1) / size)
		oom(n);
	*items = tm_xrealloc(*items, n * size);
	*alloc = n;
}

void tm_buf_init(tm_buf *b)
{
	b->ptr = NULL;
	b->size = 0;
	b->asize = 0;
}

void tm_buf_release(tm_buf *b)
{
	free(b->ptr);
	tm_buf_init(b);
}

void tm_buf_clear(tm_buf *b)
{
	b->size = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

void tm_buf_grow(tm_buf *b, size_t extra)
{
	size_t want = b->size + extra + 1;

	if (want < b->size)
		oom((size_t)-1);
	tm_xgrow((void **)&b->ptr, &b->asize, want, 1);
}

void tm_buf_put(tm_buf *b, const void *data, size_t len)
{
	tm_buf_grow(b, len);
	if (len)
		memmove(b->ptr + b->size, data, len);
	b->size += len;
	b->ptr[b->size] = '\0';
}

void tm_buf_puts(tm_buf *b, const char *s)
{
	tm_buf_put(b, s, strlen(s));
}

void tm_buf_putc(tm_buf *b, char c)
{
	tm_buf_put(b, &c, 1);
}

void tm_buf_vprintf(tm_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	tm_buf_grow(b, (size_t)n);
	vsnprintf(b->ptr + b->size, (size_t)n + 1, fmt, ap);
	b->size += (size_t)n;
}

void tm_buf_printf(tm_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tm_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *tm_xstrvfmt(const char *fmt, va_list ap)
{
	tm_buf b = TM_BUF_INIT;

	tm_buf_vprintf(&b, fmt, ap);
	return tm_buf_detach(&b);
}

void tm_buf_truncate(tm_buf *b, size_t len)
{
	if (len < b->size) {
		b->size = len;
		b->ptr[len] = '\0';
	}
}

const char *tm_buf_cstr(const tm_buf *b)
{
	return b->ptr ? b->ptr : "";
}

char *tm_buf_detach(tm_buf *b)
{
	char *p = b->ptr ? b->ptr : tm_xstrdup("");

	tm_buf_init(b);
	return p;
}

size_t tm_utf8_valid_prefix(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n;
		uint64_t word;

		/* eight ASCII bytes at a time (every line of every file) */
		if (len - i >= 8) {
			memcpy(&word, s + i, 8);
			if (!(word & 0x8080808080808080ull)) {
				i += 8;
				continue;
			}
		}
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		n = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
				     (utf8proc_ssize_t)(len - i), &cp);
		if (n <= 0)
			return i;
		i += (size_t)n;
	}
	return len;
}

bool tm_utf8_valid(const char *s, size_t len)
{
	return tm_utf8_valid_prefix(s, len) == len;
}

void tm_strv_push_owned(tm_strv *v, char *s)
{
	tm_xgrow((void **)&v->items, &v->alloc, v->n + 1, sizeof(char *));
	v->items[v->n++] = s;
}

void tm_strv_push(tm_strv *v, const char *s)
{
	tm_strv_push_owned(v, tm_xstrdup(s));
}

long tm_strv_find(const tm_strv *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->items[i], s))
			return (long)i;
	return -1;
}

bool tm_strv_contains(const tm_strv *v, const char *s)
{
	return tm_strv_find(v, s) >= 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void tm_strv_sort(tm_strv *v)
{
	if (v->n > 1)
		qsort(v->items, v->n, sizeof(char *), cmp_str);
}

void tm_strv_sort_unique(tm_strv *v)
{
	size_t i, n = 0;

	tm_strv_sort(v);
	for (i = 0; i < v->n; i++) {
		if (n && !strcmp(v->items[n - 1], v->items[i]))
			free(v->items[i]);
		else
			v->items[n++] = v->items[i];
	}
	v->n = n;
}

void tm_strv_copy(tm_strv *dst, const tm_strv *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		tm_strv_push(dst, src->items[i]);
}

bool tm_strv_equal(const tm_strv *a, const tm_strv *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->items[i], b->items[i]))
			return false;
	return true;
}

void tm_strv_clear(tm_strv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->items[i]);
	free(v->items);
	v->items = NULL;
	v->n = 0;
	v->alloc = 0;
}
