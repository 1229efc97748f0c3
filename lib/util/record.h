/*
 * The binary records of the cache files under $GIT_COMMON_DIR/threadmind/
 * (stale.cache, commits/layer-*.idx, paths-*.index): u64 little-endian
 * integers, a bounds-checked reader, one checksum, and the frame most of them
 * use, the 8-byte magic, the payload's length and checksum (u64 each), then the
 * payload.  A cache that fails any check is ignored and rebuilt by its
 * owner; nothing here sets an error.
 */
#ifndef TM_RECORD_H
#define TM_RECORD_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TM_RECORD_MAGIC_LEN 8
#define TM_RECORD_FRAME_LEN (TM_RECORD_MAGIC_LEN + 16)

/* A 64-bit checksum of n bytes, 8 at a time (fast: tens of MiB). */
uint64_t tm_record_sum(const void *data, size_t n);

void tm_record_put_u64(tm_buf *b, uint64_t v);

/* Reads `left` bytes at `p`; `bad` once a read went past them. */
typedef struct {
	const unsigned char *p;
	size_t left;
	bool bad;
} tm_record_reader;

/* The next u64 (0 and r->bad set when fewer than 8 bytes are left). */
uint64_t tm_record_get_u64(tm_record_reader *r);

/* Append the frame of `payload` under `magic` (TM_RECORD_MAGIC_LEN bytes)
 * to `file`. */
void tm_record_frame(tm_buf *file, const char *magic, const void *payload,
		     size_t len);

/*
 * The same frame without copying the payload: tm_record_frame_begin
 * reserves the frame's head at the end of `file` and returns where it is;
 * append the payload to `file`, then tm_record_frame_end writes the head
 * for what follows it.
 */
size_t tm_record_frame_begin(tm_buf *file);
void tm_record_frame_end(tm_buf *file, size_t at, const char *magic);

/*
 * Whether the `len` bytes at `data` are one frame under `magic` whose
 * length and checksum hold; then *r reads its payload.
 */
bool tm_record_unframe(tm_record_reader *r, const void *data, size_t len,
		       const char *magic);

#endif
