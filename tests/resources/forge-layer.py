#!/usr/bin/env python3
# forge-layer.py COMMITS_DIR [stamp]: rewrite the top layer of a commits
# index (lib/stale/stale_cidx_*.c) so that every parent position points far out
# of range, with a right checksum and id (the chain updated); with `stamp`,
# also write the file `checked` holding the forged layer's stat data, dated
# 2 s ahead, as if it had been checked whole (issue 24,
# forged-stamp-layer-oob; t6051 and check_stale.c use it).  Layer formats 2
# and 3 (the same header): an 80-byte header, then the arrays, each padded
# to 8 bytes.
import os, struct, sys, time

M = (1 << 64) - 1

def rsum(b):
    n = len(b); h = (0x9e3779b97f4a7c15 ^ n) & M; full = n - n % 8
    for (w,) in struct.iter_unpack('<Q', b[:full]):
        h = ((h ^ w) * 0xff51afd7ed558ccd) & M; h ^= h >> 29
    for c in b[full:]:
        h = ((h ^ c) * 0x100000001b3) & M
    return (h ^ (h >> 32)) & M

cdir, stamp = sys.argv[1], len(sys.argv) > 2 and sys.argv[2] == 'stamp'
chain = open(cdir + '/chain').read().split('\n')
f = cdir + '/layer-%s.idx' % chain[-2]
d = bytearray(open(f, 'rb').read())
n, nparent = struct.unpack_from('<2I', d, 24)
assert nparent > 0, 'no parent positions to forge'
pad = lambda x: (x + 7) & ~7
parent = 80 + pad(n * 20) + pad(n * 8) + pad((n + 1) * 4)
for k in range(nparent):
    struct.pack_into('<I', d, parent + 4 * k, 0x7fffff00)
struct.pack_into('<Q', d, 8, rsum(bytes(d[16:])))
nid = '%016x' % struct.unpack_from('<Q', d, 8)[0]
os.remove(f)
nf = cdir + '/layer-%s.idx' % nid
open(nf, 'wb').write(d)
open(cdir + '/chain', 'w').write('\n'.join(chain[:-2] + [nid, '']))
if stamp:
    st = os.stat(nf)
    ent = b''.join(struct.pack('<Q', v & M) for v in
                   [int(nid, 16), st.st_dev, st.st_ino, st.st_size,
                    st.st_mtime_ns, st.st_ctime_ns])
    p = struct.pack('<Q', 1) + ent
    open(cdir + '/checked', 'wb').write(
        b'TMCIDXOK' + struct.pack('<QQ', len(p), rsum(p)) + p)
    t = time.time_ns() + 2 * 10**9
    os.utime(cdir + '/checked', ns=(t, t))
