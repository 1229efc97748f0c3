/*
 * A map from byte-string keys to size_t values (see hashmap.h): linear
 * probing in a power-of-two table at most half full; keys live one after
 * the other in one buffer, so adding a key costs no allocation of its own.
 */
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

struct tm_hashmap_entry {
	uint64_t hash;
	size_t key; /* offset of the key in m->keys; SIZE_MAX: empty */
	size_t len;
	size_t value;
};

#define EMPTY SIZE_MAX

uint64_t tm_hash_bytes(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 14695981039346656037u;

	while (n--)
		h = (h ^ *p++) * 1099511628211u;
	return h;
}

void tm_hashmap_release(tm_hashmap *m)
{
	if (!m)
		return;
	free(m->entries);
	tm_buf_release(&m->keys);
	m->entries = NULL;
	m->mask = 0;
	m->n = 0;
}

/* The entry of the key, or the empty entry where it would go. */
static struct tm_hashmap_entry *find(const tm_hashmap *m, uint64_t h,
				     const void *key, size_t len)
{
	size_t i = (size_t)h & m->mask;
	struct tm_hashmap_entry *e;

	for (;; i = (i + 1) & m->mask) {
		e = &m->entries[i];
		if (e->key == EMPTY)
			return e;
		if (e->hash == h && e->len == len &&
		    !memcmp(m->keys.ptr + e->key, key, len))
			return e;
	}
}

static void grow(tm_hashmap *m)
{
	struct tm_hashmap_entry *old = m->entries;
	size_t old_cap = old ? m->mask + 1 : 0, cap = old ? old_cap * 2 : 16;
	size_t i, k;

	m->entries = tm_xmalloc(cap * sizeof(*m->entries));
	for (i = 0; i < cap; i++)
		m->entries[i].key = EMPTY;
	m->mask = cap - 1;
	for (i = 0; i < old_cap; i++) {
		if (old[i].key == EMPTY)
			continue;
		k = (size_t)old[i].hash & m->mask;
		while (m->entries[k].key != EMPTY)
			k = (k + 1) & m->mask;
		m->entries[k] = old[i];
	}
	free(old);
}

size_t *tm_hashmap_get(const tm_hashmap *m, const void *key, size_t len)
{
	struct tm_hashmap_entry *e;

	if (!m->n)
		return NULL;
	e = find(m, tm_hash_bytes(key, len), key, len);
	return e->key == EMPTY ? NULL : &e->value;
}

size_t *tm_hashmap_put(tm_hashmap *m, const void *key, size_t len, size_t init)
{
	uint64_t h = tm_hash_bytes(key, len);
	struct tm_hashmap_entry *e;

	if (!m->entries || (m->n + 1) * 2 > m->mask + 1)
		grow(m);
	e = find(m, h, key, len);
	if (e->key != EMPTY)
		return &e->value;
	e->hash = h;
	e->len = len;
	e->value = init;
	e->key = m->keys.size;
	tm_buf_put(&m->keys, key, len);
	tm_buf_putc(&m->keys, '\0');
	m->n++;
	return &e->value;
}

size_t *tm_hashmap_gets(const tm_hashmap *m, const char *key)
{
	return tm_hashmap_get(m, key, strlen(key));
}

size_t *tm_hashmap_puts(tm_hashmap *m, const char *key, size_t init)
{
	return tm_hashmap_put(m, key, strlen(key), init);
}
