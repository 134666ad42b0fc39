#!/usr/bin/env python3
"""metadump-clusters.py DUMP [COPY]: print the item count of every cluster of a
btrfs-image dump, one per line (format: lib/format/metadump.h); exit 1 on a
cluster whose bytenr is not its offset.  With COPY, also write the dump there
with the stale bytes after each index block's last item zeroed (btrfs-image
leaves the previous cluster's items there; btrfs image writes zeros)."""
import struct, sys

data = bytearray(open(sys.argv[1], 'rb').read())
off = 0
while off < len(data):
    magic, bytenr, nritems, compress = struct.unpack_from('<QQIB', data, off)
    if bytenr != off:
        print(f"cluster at {off} says bytenr {bytenr}")
        sys.exit(1)
    size = sum(struct.unpack_from('<QI', data, off + 21 + 12 * i)[1] for i in range(nritems))
    print(nritems)
    end = off + 21 + 12 * nritems
    data[end:off + 1024] = bytes(off + 1024 - end)
    off += 1024 + (size + 1023) // 1024 * 1024
if len(sys.argv) > 2:
    open(sys.argv[2], 'wb').write(data)
