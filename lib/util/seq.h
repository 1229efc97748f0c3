/*
 * Sequence algorithms the diffs share (summary_diff.c, merge_diff.c): the
 * longest increasing run, by patience sorting.
 */
#ifndef TM_SEQ_H
#define TM_SEQ_H

#include <stddef.h>

/*
 * A longest strictly increasing run of v[0, n), entries equal to `skip`
 * left out: the indexes of its entries, in order, into `out` (room for n);
 * returns its length.  O(n log n).  Of several longest runs, always the
 * one patience sorting leaves (the diffs' output depends on which): it ends
 * at the last entry to reach its length, each entry after the run end
 * current when it was placed.
 */
size_t tm_seq_lis(size_t *out, const size_t *v, size_t n, size_t skip);

#endif
