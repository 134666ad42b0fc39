#!/usr/bin/env python3
"""image-digest.py FILE [--skip-supers]: "SIZE SHA256" of a (sparse) image by content.

The digest covers every 4 KiB block that is not all zeros, with its offset,
so a hole and written zeros digest alike and a terabyte-sized sparse image
digests in a moment (SEEK_DATA/SEEK_HOLE).  --skip-supers leaves out the
blocks of the three superblock copies (64 KiB, 64 MiB, 256 GiB).
"""
import hashlib
import os
import sys

BLOCK = 4096
SUPERS = {64 << 10, 64 << 20, 256 << 30}


def digest(path, skip_supers):
    h = hashlib.sha256()
    zero = bytes(BLOCK)
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        pos = 0
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:
                break
            end = os.lseek(fd, start, os.SEEK_HOLE)
            off = start - start % BLOCK
            while off < end:
                blk = os.pread(fd, BLOCK, off)
                if blk.strip(b"\0") and not (skip_supers and off in SUPERS):
                    h.update(off.to_bytes(8, "little"))
                    h.update(blk + zero[len(blk):])
                off += BLOCK
            pos = end
    finally:
        os.close(fd)
    return size, h.hexdigest()


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    size, hexd = digest(argv[1], "--skip-supers" in argv[2:])
    print(size, hexd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
