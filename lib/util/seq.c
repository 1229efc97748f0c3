/* Sequence algorithms the diffs share (seq.h). */
#include "seq.h"
#include "buf.h"

#include <stdlib.h>

size_t tm_seq_lis(size_t *out, const size_t *v, size_t n, size_t skip)
{
	size_t *tail = tm_xcalloc(n + 1, sizeof(size_t));
	size_t *prev = tm_xcalloc(n + 1, sizeof(size_t));
	size_t len = 0, lo, hi, mid, k, i;

	for (k = 0; k < n; k++) {
		if (v[k] == skip)
			continue;
		/* the first run end that is not below v[k] */
		lo = 0;
		hi = len;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (v[tail[mid]] < v[k])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[k] = lo ? tail[lo - 1] : 0;
		tail[lo] = k;
		if (lo == len)
			len++;
	}
	for (k = len ? tail[len - 1] : 0, i = len; i-- > 0; k = prev[k])
		out[i] = k;
	free(tail);
	free(prev);
	return len;
}
