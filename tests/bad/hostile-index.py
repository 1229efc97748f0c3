#!/usr/bin/env python3
# hostile-index.py OUT N MODE: a damaged git index (version 4) of N entries,
# all unmerged (stage 1) under .threadmind/ (issue 24, repro
# index-v4-quadratic-memory), for tests/bad/run and the e2e tests.
#   grow   each path the previous one plus 64 bytes (prefix compression,
#          strip 0): 8192 entries make the 1 MiB file that took 2 GiB
#   long   paths of about 3,000 bytes, each changing its last 2 bytes:
#          65 bytes an entry expanding to 3,000
#   count  only a header claiming N entries
import hashlib
import struct
import sys


def varint(v):  # git's varint.c
    out = bytearray([v & 127])
    v >>= 7
    while v:
        v -= 1
        out.insert(0, 128 | (v & 127))
        v >>= 7
    return bytes(out)


out, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
body = bytearray(b'DIRC' + struct.pack('>II', 4, n))
path = b''
for i in range(n if mode != 'count' else 0):
    if mode == 'grow':
        strip, add = 0, (b'.threadmind/' if i == 0 else b'') + b'a' * 64
    elif i == 0:
        strip, add = 0, b'.threadmind/' + b'd' * 3000 + b'aa'
    else:
        strip = 2
        add = bytes([97 + (i // 26) % 26, 97 + i % 26])
    path = path[:len(path) - strip] + add
    body += struct.pack('>10I', 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, 0)
    body += b'\x11' * 20
    body += struct.pack('>H', (1 << 12) | min(len(path), 0xfff))
    body += varint(strip) + add + b'\x00'
body += hashlib.sha1(body).digest()
open(out, 'wb').write(body)
