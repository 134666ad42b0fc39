#!/usr/bin/env python3
"""Check, on a mounted filesystem, the contents of the files tests/tools/engine-fill made.

usage: engine-files.py DIR [--xattr PREFIX:BYTES]... [--data PREFIX:KIB]... [--sums PREFIX:FILE]
                           [--every N] [--count N]

  --xattr  files named PREFIX* carry user.engine = "v<ino>" padded with 'x' to BYTES (-X BYTES)
  --data   files named PREFIX* hold KIB KiB of the byte 'a' + ino % 26 (-D KIB)
  --sums   files named PREFIX* (written by the kernel) have their sha256 in FILE, sha256sum
           output ("HASH  NAME"); one missing from FILE (or no FILE) differs
  --every  look at every Nth name (sorted) only
  --count  DIR holds exactly N names
The longest matching prefix decides; names matching nothing are not looked at.
Exit 1, with a line for each of the first ten files that differ.
"""
import argparse
import hashlib
import os
import sys


def prefix_arg(text):
    prefix, _, size = text.rpartition(":")
    return prefix, int(size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--xattr", type=prefix_arg, action="append", default=[])
    ap.add_argument("--data", type=prefix_arg, action="append", default=[])
    ap.add_argument("--sums", type=lambda t: t.split(":", 1))
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--count", type=int)
    a = ap.parse_args()

    names = sorted(os.listdir(a.dir))
    if a.count is not None and len(names) != a.count:
        print("%d files, expected %d" % (len(names), a.count))
        return 1
    sums = {}
    if a.sums and os.path.exists(a.sums[1]):
        sums = dict(line.split()[::-1] for line in open(a.sums[1]))
    rules = [(p, "xattr", n) for p, n in a.xattr] + [(p, "data", n) for p, n in a.data]
    if a.sums:
        rules.append((a.sums[0], "sums", 0))
    rules.sort(key=lambda r: -len(r[0]))
    bad = 0
    for name in names[::a.every]:
        path = os.path.join(a.dir, name)
        ino = os.stat(path).st_ino
        rule = next((r for r in rules if name.startswith(r[0])), None)
        if rule and rule[1] == "xattr":
            got = os.getxattr(path, "user.engine")
            want = ("v%d" % ino).encode()
            want += b"x" * (rule[2] - len(want))
        elif rule and rule[1] == "data":
            got = open(path, "rb").read()
            want = bytes([ord("a") + ino % 26]) * (rule[2] << 10)
        elif rule:
            got = hashlib.sha256(open(path, "rb").read()).hexdigest().encode()
            want = sums.get(name, "").encode()
        else:
            continue
        if got != want:
            bad += 1
            if bad <= 10:
                print("%s: content differs (%d bytes)" % (name, len(got)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
