#!/usr/bin/env python3
# Verify the parity of every stripe row of every RAID5/RAID6 chunk, from the
# device images, independently of btrfs-kit's own code.
#
#   raid56-parity.py CHUNK_DUMP DEVID=IMAGE...
#
# CHUNK_DUMP is `btrfs inspect-internal dump-tree -t chunk` output.  Row n of
# a chunk with num_stripes N and D data stripes: data unit k on stripe
# (k + n) % N, P on (D + n) % N, Q on (D + 1 + n) % N (the kernel's
# rotation).  P = xor of the data units, Q = sum of 2^k * D_k in GF(2^8)
# with polynomial 0x11d.  Rows holding a superblock copy on any of their
# stripes are skipped: the superblock is written over its data unit
# without touching the parity, and nothing is ever allocated there.
# Prints "rows R nonzero Z skipped S bad B" and exits 1 when a row is bad
# (each bad row is named) or no RAID5/6 row holds data.
import re
import sys

SUPERS = [64 << 10, 64 << 20, 256 << 30]
SUPER_SIZE = 4096


def parse_chunks(text):
    chunks = []
    for item in re.split(r"\n\s*item \d+ ", text):
        m = re.search(r"CHUNK_ITEM (\d+)\).*?length (\d+) .*?stripe_len (\d+) type (\S+)", item, re.S)
        if not m or ("RAID5" not in m.group(4) and "RAID6" not in m.group(4)):
            continue
        stripes = [(int(d), int(o)) for d, o in re.findall(r"stripe \d+ devid (\d+) offset (\d+)", item)]
        chunks.append((int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), stripes))
    return chunks


def main():
    text = open(sys.argv[1]).read()
    files = {}
    for arg in sys.argv[2:]:
        devid, path = arg.split("=", 1)
        files[int(devid)] = open(path, "rb")
    rows = nonzero = skipped = bad = 0
    for logical, length, slen, ctype, stripes in parse_chunks(text):
        n = len(stripes)
        npar = 2 if "RAID6" in ctype else 1
        ndata = n - npar
        stripe_size = length // ndata
        ones = int.from_bytes(b"\x01" * slen, "little")
        fe = ones * 0xFE
        for row in range(stripe_size // slen):
            off = row * slen
            if any(o + off < sb + SUPER_SIZE and sb < o + off + slen for _, o in stripes for sb in SUPERS):
                skipped += 1
                continue
            units = []
            for s in range(n):
                f = files[stripes[s][0]]
                f.seek(stripes[s][1] + off)
                units.append(int.from_bytes(f.read(slen).ljust(slen, b"\0"), "little"))
            data = [units[(k + row) % n] for k in range(ndata)]
            p = 0
            q = 0
            for d in reversed(data):
                p ^= d
                q = ((q << 1) & fe) ^ (((q >> 7) & ones) * 0x1D) ^ d
            rows += 1
            if any(data):
                nonzero += 1
            errs = []
            if p != units[(ndata + row) % n]:
                errs.append("P")
            if npar == 2 and q != units[(ndata + 1 + row) % n]:
                errs.append("Q")
            if errs:
                bad += 1
                if bad <= 10:
                    print("chunk %d (%s) row %d (logical %d): %s wrong"
                          % (logical, ctype, row, logical + row * ndata * slen, "+".join(errs)))
    print("rows %d nonzero %d skipped %d bad %d" % (rows, nonzero, skipped, bad))
    sys.exit(1 if bad or not nonzero else 0)


main()
