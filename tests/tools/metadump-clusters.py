#!/usr/bin/env python3
"""metadump-clusters.py DUMP [COPY]: print the item count of every cluster of a
btrfs-image dump, one per line (format: kernel-shared/format/metadump.h); exit 1 on a
cluster whose bytenr is not its offset.  With COPY, also write the dump there
with the stale bytes after each index block's last item zeroed (btrfs-image
leaves the previous cluster's items there; btrfs image writes zeros).

metadump-clusters.py --inflate DUMP COPY: write COPY as the same dump with
every zlib item inflated (compress 0, cluster offsets recomputed, stale bytes
zero) and print the total of DUMP's item payload bytes: two dumps of the same
blocks made with different deflate encoders have equal COPYs."""
import struct, sys, zlib

if sys.argv[1] == '--inflate':
    data = open(sys.argv[2], 'rb').read()
    out = bytearray()
    off = total = 0
    while off < len(data):
        magic, bytenr, nritems, compress = struct.unpack_from('<QQIB', data, off)
        if bytenr != off:
            print(f"cluster at {off} says bytenr {bytenr}")
            sys.exit(1)
        items = [struct.unpack_from('<QI', data, off + 21 + 12 * i) for i in range(nritems)]
        pos = off + 1024
        payload = []
        for start, size in items:
            raw = data[pos:pos + size]
            payload.append(zlib.decompress(raw) if compress else raw)
            pos += size
            total += size
        index = bytearray(1024)
        struct.pack_into('<QQIB', index, 0, magic, len(out), nritems, 0)
        for i, (start, size) in enumerate(items):
            struct.pack_into('<QI', index, 21 + 12 * i, start, len(payload[i]))
        body = b''.join(payload)
        out += index + body + bytes(-len(body) % 1024)
        off = (pos + 1023) // 1024 * 1024
    open(sys.argv[3], 'wb').write(out)
    print(total)
    sys.exit(0)

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
