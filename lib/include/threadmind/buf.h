/*
 * Growable byte buffers (tm_buf), string vectors (tm_strv) and the
 * allocation wrappers used across the library.  Allocation failure aborts
 * the process (as git's xmalloc does): no caller has a better answer.
 */
#ifndef TM_BUF_H
#define TM_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

void *tm_xmalloc(size_t n);
void *tm_xcalloc(size_t nmemb, size_t size);
void *tm_xrealloc(void *p, size_t n);
char *tm_xstrdup(const char *s);
char *tm_xstrndup(const char *s, size_t n);
/* Duplicate `s`, or return NULL when `s` is NULL. */
char *tm_xstrdup_or_null(const char *s);
/* Grow an array to hold at least `want` items of `size` bytes each. */
void tm_xgrow(void **items, size_t *alloc, size_t want, size_t size);
/*
 * For a phase about to allocate megabytes in small blocks (a first run's
 * index build): the heap from here on, up to 16 MiB of it, in huge pages
 * where the system gives them on request (see buf.c).  Idempotent, a few
 * system calls; call it again as the phase goes on to cover what the heap
 * grew by since.  Not for two threads at once.
 */
void tm_heap_huge_pages(void);

/*
 * Free each of the `n` pointers (NULL ones allowed).  Through TM_FREE_ALL,
 * which counts them: a struct's owned members released in one statement,
 * e.g. TM_FREE_ALL(t->id, t->title, t->author).
 */
void tm_free_all(void *const *ptrs, size_t n);
#define TM_FREE_ALL(...)                          \
	tm_free_all((void *const[]){__VA_ARGS__}, \
		    sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

/*
 * The first of the `n` items of `size` bytes at `items` whose string
 * member at offset `member` (a char *; NULL matches nothing) equals `key`,
 * or NULL: a linear search by name, as lfind(3) with that comparison.
 */
const void *tm_find_by_string(const void *items, size_t n, size_t size,
			      size_t member, const char *key);

/*
 * Move `local` into `*dst` (`*dst = local`), leaving `local` zeroed: a
 * result handed to the caller, after which the function's own clean-up of
 * `local` frees nothing of it.  E.g. `if (error == 0) TM_MOVE(out, r);`.
 */
#define TM_MOVE(dst, local) \
	(*(dst) = (local), (void)memset(&(local), 0, sizeof(local)))

/*
 * Release each of the `n` items of the array `items` with `clear` (called
 * with a pointer to one item), then free the array.
 */
#define TM_FREE_ITEMS(items, n, clear)                \
	do {                                          \
		size_t tm_i_;                         \
		for (tm_i_ = 0; tm_i_ < (n); tm_i_++) \
			clear(&(items)[tm_i_]);       \
		free(items);                          \
	} while (0)

/*
 * A byte buffer, always NUL-terminated once it holds anything (ptr may be
 * NULL while empty: use tm_buf_cstr for a string).
 */
typedef struct {
	char *ptr;
	size_t size;  /* bytes used, not counting the NUL */
	size_t asize; /* bytes allocated */
} tm_buf;

#define TM_BUF_INIT        \
	{                  \
		NULL, 0, 0 \
	}

void tm_buf_init(tm_buf *b);
/* Free the memory and reset to empty. */
void tm_buf_release(tm_buf *b);
/* Keep the memory, make it empty. */
void tm_buf_clear(tm_buf *b);
/* Make room for `extra` more bytes. */
void tm_buf_grow(tm_buf *b, size_t extra);
void tm_buf_put(tm_buf *b, const void *data, size_t len);
void tm_buf_puts(tm_buf *b, const char *s);
void tm_buf_putc(tm_buf *b, char c);
void tm_buf_printf(tm_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tm_buf_vprintf(tm_buf *b, const char *fmt, va_list ap);
/* Drop bytes past `len`. */
void tm_buf_truncate(tm_buf *b, size_t len);
/* The content as a C string ("" when empty). Valid until the next change. */
const char *tm_buf_cstr(const tm_buf *b);
/* Hand the content to the caller (free() it) and reset the buffer. */
char *tm_buf_detach(tm_buf *b);

/* The string formatted from `fmt` and `ap`, malloc'd (free() it). */
char *tm_xstrvfmt(const char *fmt, va_list ap);

/* Length of the longest prefix of `s` that is valid UTF-8 (len when all
 * of it is): no overlong forms, surrogates or code points past U+10FFFF. */
size_t tm_utf8_valid_prefix(const char *s, size_t len);
/* Is all of `s` valid UTF-8? */
bool tm_utf8_valid(const char *s, size_t len);

/* A vector of owned, NUL-terminated strings. */
typedef struct {
	char **items;
	size_t n;
	size_t alloc;
} tm_strv;

#define TM_STRV_INIT       \
	{                  \
		NULL, 0, 0 \
	}

void tm_strv_push(tm_strv *v, const char *s);
/* Take ownership of `s` (which must come from malloc). */
void tm_strv_push_owned(tm_strv *v, char *s);
/* Index of `s`, or -1. */
long tm_strv_find(const tm_strv *v, const char *s);
bool tm_strv_contains(const tm_strv *v, const char *s);
/* Sort bytewise (strcmp). */
void tm_strv_sort(tm_strv *v);
/* Sort bytewise and drop (free) the repeats. */
void tm_strv_sort_unique(tm_strv *v);
void tm_strv_copy(tm_strv *dst, const tm_strv *src);
bool tm_strv_equal(const tm_strv *a, const tm_strv *b);
void tm_strv_clear(tm_strv *v);

#endif
