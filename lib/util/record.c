/* The cache files' binary records (record.h). */
#include "record.h"

#include <string.h>

uint64_t tm_record_sum(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ^ (h >> 32);
}

void tm_record_put_u64(tm_buf *b, uint64_t v)
{
	unsigned char c[8];
	int i;

	for (i = 0; i < 8; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	tm_buf_put(b, c, 8);
}

uint64_t tm_record_get_u64(tm_record_reader *r)
{
	uint64_t v = 0;
	int i;

	if (r->bad || r->left < 8) {
		r->bad = true;
		return 0;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, r->p, 8); /* what the loop below computes, at once */
	(void)i;
#else
	for (i = 0; i < 8; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
#endif
	r->p += 8;
	r->left -= 8;
	return v;
}

void tm_record_frame(tm_buf *file, const char *magic, const void *payload,
		     size_t len)
{
	tm_buf_put(file, magic, TM_RECORD_MAGIC_LEN);
	tm_record_put_u64(file, len);
	tm_record_put_u64(file, tm_record_sum(payload, len));
	tm_buf_put(file, payload, len);
}

size_t tm_record_frame_begin(tm_buf *file)
{
	static const char zero[TM_RECORD_FRAME_LEN];
	size_t at = file->size;

	tm_buf_put(file, zero, sizeof(zero));
	return at;
}

void tm_record_frame_end(tm_buf *file, size_t at, const char *magic)
{
	size_t start = at + TM_RECORD_FRAME_LEN, len = file->size - start;
	uint64_t v[2] = {len, tm_record_sum(file->ptr + start, len)};
	unsigned char *p = (unsigned char *)file->ptr + at;
	int i, k;

	memcpy(p, magic, TM_RECORD_MAGIC_LEN);
	for (k = 0; k < 2; k++)
		for (i = 0; i < 8; i++)
			p[TM_RECORD_MAGIC_LEN + 8 * k + i] =
				(unsigned char)(v[k] >> (8 * i));
}

bool tm_record_unframe(tm_record_reader *r, const void *data, size_t len,
		       const char *magic)
{
	const unsigned char *d = data;
	tm_record_reader h = {d + TM_RECORD_MAGIC_LEN, 16, false};
	uint64_t plen, sum;

	if (len < TM_RECORD_FRAME_LEN || memcmp(d, magic, TM_RECORD_MAGIC_LEN))
		return false;
	plen = tm_record_get_u64(&h);
	sum = tm_record_get_u64(&h);
	if (plen != len - TM_RECORD_FRAME_LEN ||
	    tm_record_sum(d + TM_RECORD_FRAME_LEN, (size_t)plen) != sum)
		return false;
	r->p = d + TM_RECORD_FRAME_LEN;
	r->left = (size_t)plen;
	r->bad = false;
	return true;
}
