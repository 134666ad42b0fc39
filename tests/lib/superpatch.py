#!/usr/bin/env python3
"""Rewrite one little-endian u64 of the primary superblock (tests only).

usage: superpatch.py IMAGE OFFSET VALUE
    the u64 at byte OFFSET (0x.. allowed) of the superblock at 64 KiB of
    IMAGE becomes VALUE and the crc32c checksum is recomputed (crc32c
    filesystems only).  Prints the value it replaced.
"""
import sys

from blockpatch import crc32c

SUPER_AT = 65536
CSUM_TYPE_AT = 0xc4


def main():
    img, at, value = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3], 0)
    with open(img, 'r+b') as f:
        f.seek(SUPER_AT)
        sb = bytearray(f.read(4096))
        if sb[0x40:0x48] != b'_BHRfS_M' or sb[CSUM_TYPE_AT:CSUM_TYPE_AT + 2] != b'\0\0':
            print('not a crc32c btrfs superblock', file=sys.stderr)
            return 1
        print(int.from_bytes(sb[at:at + 8], 'little'))
        sb[at:at + 8] = value.to_bytes(8, 'little')
        sb[0:4] = crc32c(bytes(sb[32:])).to_bytes(4, 'little')
        f.seek(SUPER_AT)
        f.write(sb)
    return 0


if __name__ == '__main__':
    sys.exit(main())
