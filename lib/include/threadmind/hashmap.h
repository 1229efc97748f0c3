/*
 * A small map from byte-string keys (C strings, object ids, any bytes) to
 * size_t values, for any module: open addressing, FNV-1a, keys copied into
 * the map.  Values are size_t because every user so far keeps its items in
 * an array and maps a key to an index (or to the head of a chain of
 * indexes); keep pointers in an array and store their index.
 */
#ifndef TM_HASHMAP_H
#define TM_HASHMAP_H

#include "buf.h"

#include <stddef.h>
#include <stdint.h>

struct tm_hashmap_entry;

typedef struct {
	struct tm_hashmap_entry *entries; /* mask + 1 of them, or NULL */
	size_t mask;
	size_t n;    /* keys held */
	tm_buf keys; /* every key's bytes, each followed by a NUL */
} tm_hashmap;

/* clang-format off */
#define TM_HASHMAP_INIT {NULL, 0, 0, TM_BUF_INIT}
/* clang-format on */

/* Free what the map holds and make it empty (it can be used again). */
void tm_hashmap_release(tm_hashmap *m);

/*
 * The value of the `len` bytes at `key`, or NULL when the map does not have
 * that key.  The pointer is valid until the next tm_hashmap_put or
 * tm_hashmap_release.
 */
size_t *tm_hashmap_get(const tm_hashmap *m, const void *key, size_t len);

/*
 * The value of `key`, first adding the key (copied) with value `init` when
 * the map does not have it.  Valid until the next tm_hashmap_put or
 * tm_hashmap_release.
 */
size_t *tm_hashmap_put(tm_hashmap *m, const void *key, size_t len, size_t init);

/* The same for a C string key (its bytes without the NUL). */
size_t *tm_hashmap_gets(const tm_hashmap *m, const char *key);
size_t *tm_hashmap_puts(tm_hashmap *m, const char *key, size_t init);

/* The 64-bit FNV-1a hash of `n` bytes (what the map uses). */
uint64_t tm_hash_bytes(const void *data, size_t n);

#endif
