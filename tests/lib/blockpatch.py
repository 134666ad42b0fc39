#!/usr/bin/env python3
"""Find and patch tree blocks in raw single-device btrfs images (tests only).

usage: blockpatch.py IMAGE NODESIZE BYTENR OLD NEW
    every copy of the tree block whose header bytenr is BYTENR (found by
    scanning the image at NODESIZE alignment) has the byte string OLD replaced
    by NEW (same length, Python escapes allowed), and its crc32c checksum
    recomputed.  Prints the physical offsets patched.
"""
import sys

from crc32c import crc32c


def main():
    img, nodesize, bytenr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    old = sys.argv[4].encode().decode('unicode_escape').encode('latin-1')
    new = sys.argv[5].encode().decode('unicode_escape').encode('latin-1')
    assert len(old) == len(new)
    want = bytenr.to_bytes(8, 'little')
    patched = []
    with open(img, 'r+b') as f:
        f.seek(0, 2)
        size = f.tell()
        off = 0
        while off + nodesize <= size:
            f.seek(off + 0x30)
            if f.read(8) == want:
                f.seek(off)
                blk = bytearray(f.read(nodesize))
                i = blk.find(old, 0x65)
                if i >= 0:
                    blk[i:i + len(old)] = new
                    blk[0:4] = crc32c(bytes(blk[32:])).to_bytes(4, 'little')
                    f.seek(off)
                    f.write(blk)
                    patched.append(off)
            off += nodesize
    for p in patched:
        print(p)
    return 0 if patched else 1


if __name__ == '__main__':
    sys.exit(main())
