#!/usr/bin/env python3
"""Mutation fuzzing of btrfs image restore (issue 19, bad input).

usage: fuzz-dumps.py DUMP[:NDEV]... [--count N] [--seed S] [--time SECS]
                     [--btrfs B] [--work DIR] [--check]

Each round takes one DUMP (a btrfs-image file: kernel-shared/format/metadump.h; NDEV its
device count, default 1) and damages one thing:
  header    a byte or field of a cluster's index block (magic, bytenr,
            nritems, compress)
  table     the bytenr or size of one item of an index block
  payload   random bytes inside one item (a zlib stream when compressed)
  super     a field of the superblock item (checksum recomputed, recompressed)
  chunk     a byte of the sys_chunk_array or of a chunk tree block (checksum
            recomputed when crc32c, recompressed)
  block     a byte of a random tree block (checksum recomputed, recompressed)
  truncate  the file cut at a cluster boundary, inside an index block or
            inside an item
then restores it with `image -r` onto an existing target (or `-m` onto NDEV
targets), from a file or, one round in four, from stdin (`-`).  With --check
a restore that succeeds is also checked (`check`, then `dump-tree`).

Every round is classified:
  crash    exit >= 2, a signal, a sanitizer report, a hang (timeout), or a
           failure with nothing on stderr (always a bug)
  written  exit 1 on damage found in the dump's structure (header, table,
           payload's zlib stream, truncation) while an existing target was
           changed: the dump is checked before the target is opened
  refused  exit 1 with a message
  restored exit 0
One line per crash/written round with the mutation; a summary
"fuzz-dumps: N rounds, X crash, Y written, Z refused, W restored"; exit 1 on
any crash or written round.
"""
import argparse
import hashlib
import os
import random
import struct
import subprocess
import sys
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from crc32c import crc32c  # noqa: E402  (tests/lib/crc32c.py)

INDEX = 1024
ITEMS_MAX = 83
SUPER_AT = 65536
SYS_ARRAY = 811          # offset of sys_chunk_array in the superblock
SUPER_FIELDS = [(48, 8), (56, 8), (64, 8), (72, 8), (80, 8), (88, 8), (96, 8),
                (112, 8), (120, 8), (128, 8), (136, 8), (144, 4), (148, 4),
                (152, 4), (156, 4), (160, 4), (164, 8), (172, 8), (180, 8),
                (188, 8), (196, 2), (198, 1), (199, 1), (200, 1),
                (201, 8), (209, 8), (217, 8), (225, 4), (229, 4), (233, 4)]


def clusters(d):
    """(offset, compress, [(bytenr, size, payload offset)]) of each cluster,
    as far as the structure holds."""
    out, pos = [], 0
    while pos + INDEX <= len(d):
        nr = struct.unpack_from('<I', d, pos + 16)[0]
        if nr > ITEMS_MAX:
            break
        items, at = [], pos + INDEX
        for i in range(nr):
            bytenr, size = struct.unpack_from('<QI', d, pos + 21 + 12 * i)
            items.append((bytenr, size, at))
            at += size
        out.append((pos, d[pos + 20], items))
        pos = (at + INDEX - 1) // INDEX * INDEX
    return out


def item_bytes(d, comp, size, at):
    raw = bytes(d[at:at + size])
    return zlib.decompress(raw) if comp else raw


def replace_item(d, cl, ci, ii, new):
    """The dump with item ii of cluster ci holding NEW (compressed as the
    cluster is), the following items and clusters moved as needed."""
    pos, comp, items = cl[ci]
    payload = zlib.compress(new, 6) if comp else new
    body = b''
    for i, (bytenr, size, at) in enumerate(items):
        body += payload if i == ii else bytes(d[at:at + size])
    head = bytearray(d[pos:pos + INDEX])
    struct.pack_into('<I', head, 21 + 12 * ii + 8, len(payload))
    end = pos + INDEX + sum(s for _, s, _ in items)
    end = (end + INDEX - 1) // INDEX * INDEX
    pad = (-len(body)) % INDEX
    rest = bytearray(d[end:])
    # later clusters move: fix each one's bytenr (its own offset)
    shift = INDEX + len(body) + pad - (end - pos)
    newd = bytearray(d[:pos]) + head + body + bytes(pad)
    base = len(newd)
    for (p, _, _) in cl[ci + 1:]:
        struct.pack_into('<Q', rest, p - end + 8, p + shift)
    assert base == end + shift
    return newd + rest


def hurt(rng, b, at, width):
    top = (1 << (8 * width)) - 1
    old = int.from_bytes(b[at:at + width], 'little')
    v = rng.choice([0, 1, top, old + 1, old - 1, old ^ (1 << rng.randrange(8 * width)),
                    rng.randint(0, top), old << 1])
    b[at:at + width] = (v & top).to_bytes(width, 'little')


def fix_block_csum(blk):
    struct.pack_into('<I', blk, 0, crc32c(blk[32:]))


def mutate(rng, d):
    """(kind, description, structural, mutated dump) or None."""
    cl = clusters(d)
    if not cl:
        return None
    kind = rng.choice(['header', 'table', 'payload', 'super', 'chunk', 'block',
                       'block', 'truncate'])
    b = bytearray(d)
    ci = rng.randrange(len(cl))
    pos, comp, items = cl[ci]
    if kind == 'header':
        field = rng.choice([(0, 8), (8, 8), (16, 4), (20, 1), (rng.randrange(21), 1)])
        hurt(rng, b, pos + field[0], field[1])
        return kind, 'cluster %d header +%d' % (pos, field[0]), True, b
    if kind == 'table' and items:
        ii = rng.randrange(len(items))
        off, width = rng.choice([(0, 8), (8, 4), (rng.randrange(12), 1)])
        hurt(rng, b, pos + 21 + 12 * ii + off, width)
        return kind, 'cluster %d item %d table +%d' % (pos, ii, off), True, b
    if kind == 'payload' and items:
        ii = rng.randrange(len(items))
        _, size, at = items[ii]
        if size == 0:
            return None
        for _ in range(rng.randint(1, 4)):
            b[at + rng.randrange(size)] = rng.randrange(256)
        return kind, 'cluster %d item %d payload' % (pos, ii), bool(comp), b
    if kind == 'truncate':
        cut = rng.choice(['boundary', 'index', 'item'])
        if cut == 'boundary':
            at = pos
        elif cut == 'index':
            at = pos + rng.randrange(1, INDEX)
        elif items:
            _, size, iat = items[rng.randrange(len(items))]
            at = iat + rng.randrange(max(size, 1))
        else:
            return None
        return kind, 'truncated at %d (%s)' % (at, cut), True, b[:at]
    # the rest edits a block inside an item: find the items' blocks
    sup = None
    for c, (p, cmp, its) in enumerate(cl):
        for i, (bytenr, size, at) in enumerate(its):
            if bytenr == SUPER_AT:
                sup = (c, i, item_bytes(d, cmp, size, at))
    if sup is None:
        return None
    sb = sup[2]
    nodesize = struct.unpack_from('<I', sb, 148)[0]
    if nodesize not in (4096, 8192, 16384, 32768, 65536):
        return None
    if kind == 'super':
        nb = bytearray(sb)
        off, width = rng.choice(SUPER_FIELDS)
        hurt(rng, nb, off, width)
        struct.pack_into('<I', nb, 0, crc32c(nb[32:4096]))
        return kind, 'superblock +%d' % off, False, replace_item(d, cl, sup[0], sup[1], bytes(nb))
    if kind == 'chunk' and rng.random() < 0.5:
        nb = bytearray(sb)
        n = struct.unpack_from('<I', sb, 160)[0]
        if n == 0 or n > 2048:
            return None
        at = SYS_ARRAY + rng.randrange(n)
        hurt(rng, nb, at, 1)
        struct.pack_into('<I', nb, 0, crc32c(nb[32:4096]))
        return kind, 'sys_chunk_array +%d' % (at - SYS_ARRAY), False, replace_item(d, cl, sup[0], sup[1], bytes(nb))
    want = struct.unpack_from('<Q', sb, 88)[0] if kind == 'chunk' else None
    cands = []
    for c, (p, cmp, its) in enumerate(cl):
        for i, (bytenr, size, at) in enumerate(its):
            if bytenr == SUPER_AT:
                continue
            if want is None or bytenr <= want < bytenr + 0x10000000:
                cands.append((c, i))
    if not cands:
        return None
    c, i = rng.choice(cands)
    p, cmp, its = cl[c]
    bytenr, size, at = its[i]
    try:
        data = bytearray(item_bytes(d, cmp, size, at))
    except zlib.error:
        return None
    if want is not None:
        boff = want - bytenr
        if boff + nodesize > len(data):
            return None
    else:
        nblk = len(data) // nodesize
        if nblk == 0:
            return None
        boff = rng.randrange(nblk) * nodesize
    blk = data[boff:boff + nodesize]
    nritems = struct.unpack_from('<I', blk, 96)[0]
    level = blk[100]
    used = 101 + min(nritems, 400) * (33 if level else 25)
    at_in = rng.randrange(32, max(33, min(used, nodesize)))
    width = rng.choice([1, 1, 2, 4, 8])
    hurt(rng, blk, at_in, min(width, nodesize - at_in))
    fix_block_csum(blk)
    data[boff:boff + nodesize] = blk
    return kind, 'block %d +%d (item at %d)' % (bytenr + boff, at_in, bytenr), False, replace_item(d, cl, c, i, bytes(data))


def run(cmd, timeout, stdin=None):
    try:
        p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, b'timeout'
    return p.returncode, p.stderr


def bad(rc, err):
    return (rc < 0 or rc >= 2 or b'Sanitizer' in err or b'runtime error' in err
            or (rc != 0 and not err.strip()))


def digest(paths):
    h = hashlib.md5()
    for p in paths:
        with open(p, 'rb') as f:
            h.update(f.read())
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dumps', nargs='+')
    ap.add_argument('--count', type=int, default=100)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--time', type=float, default=0)
    ap.add_argument('--btrfs', default='./btrfs')
    ap.add_argument('--work', default='/tmp/fuzz-dumps')
    ap.add_argument('--timeout', type=int, default=60)
    ap.add_argument('--check', action='store_true')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.work, exist_ok=True)
    dumps = []
    for spec in a.dumps:
        path, _, ndev = spec.partition(':')
        dumps.append((path, open(path, 'rb').read(), int(ndev or 1)))
    counts = {'crash': 0, 'written': 0, 'refused': 0, 'restored': 0, 'skipped': 0}
    mut = os.path.join(a.work, 'mut.dump')
    start = time.time()
    rounds = 0
    while rounds < a.count and not (a.time and time.time() - start > a.time):
        rounds += 1
        path, d, ndev = rng.choice(dumps)
        m = mutate(rng, d)
        if m is None:
            counts['skipped'] += 1
            continue
        kind, what, structural, nd = m
        open(mut, 'wb').write(nd)
        targets = [os.path.join(a.work, 'target%d' % i) for i in range(ndev)]
        for t in targets:
            with open(t, 'wb') as f:
                f.write(b'k' * 65536)
        before = digest(targets)
        piped = rng.random() < 0.25
        cmd = [a.btrfs, 'image'] + (['-m'] if ndev > 1 else ['-r'])
        if piped:
            with open(mut, 'rb') as f:
                rc, err = run(cmd + ['-'] + targets, a.timeout, stdin=f)
        else:
            rc, err = run(cmd + [mut] + targets, a.timeout)
        label = '%s: %s%s' % (os.path.basename(path), what, ' (stdin)' if piped else '')
        first = err.decode(errors='replace').strip().splitlines()[:1]
        if bad(rc, err):
            counts['crash'] += 1
            print('crash: %s: exit %d %s' % (label, rc, first[0] if first else ''))
            open(os.path.join(a.work, 'crash-%d.dump' % counts['crash']), 'wb').write(nd)
            continue
        if rc != 0:
            if structural and digest(targets) != before:
                counts['written'] += 1
                print('written: %s: %s' % (label, first[0] if first else ''))
                open(os.path.join(a.work, 'written-%d.dump' % counts['written']), 'wb').write(nd)
            else:
                counts['refused'] += 1
            continue
        counts['restored'] += 1
        if a.check:
            for sub in (['check'], ['dump-tree']):
                rc, err = run([a.btrfs] + sub + targets, a.timeout)
                if bad(rc, err):
                    counts['crash'] += 1
                    first = err.decode(errors='replace').strip().splitlines()[:1]
                    print('crash: %s: %s exit %d %s' % (label, sub[0], rc, first[0] if first else ''))
                    open(os.path.join(a.work, 'crash-%d.dump' % counts['crash']), 'wb').write(nd)
    print('fuzz-dumps: %d rounds, %d crash, %d written, %d refused, %d restored, %d skipped' % (
        rounds, counts['crash'], counts['written'], counts['refused'], counts['restored'],
        counts['skipped']))
    return 1 if counts['crash'] or counts['written'] else 0


if __name__ == '__main__':
    sys.exit(main())
