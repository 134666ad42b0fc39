#!/usr/bin/env python3
"""Field fuzzing of btrfs check with tests/tools/corrupt-block (issue 17).

usage: fuzz-fields.py IMAGE N [--time SECS] [--more] [--seed S] [--btrfs B] [--tool T] [--ref R]
                      [--work DIR] [--repro FILE]

N times: copy IMAGE, set one field of one item (or a leaf header field, or
a raw byte of the item) to a value chosen to hurt (0, 1, the old value +-1,
one bit flipped, all ones, a random number), checksum recomputed; then run
our check and, with --ref, the reference check (Debian's btrfs) on it.

Every run is classified:
  crash    our check exited >= 2, died on a signal, tripped a sanitizer or
           timed out (always a bug)
  missed   ours exit 0 while the reference exits non-zero (damage we miss)
  stricter ours exit 1, the reference exit 0
  agree    both the same (or no reference)
With --more, each mutated image also goes through `check --repair --force`
(on a copy: it must end clean for our check, or refuse with every byte
unchanged, else "badrepair"), dump-tree, dump-super -a, image -c1 -w -ss and
offline `balance start -f -mconvert=dup` (on a copy): any crash there counts
as a crash, labelled with the command.
One line per crash/missed/stricter/badrepair case with the corrupt-block command
that reproduces it; a summary line "fuzz: N runs, X crash, Y missed, Z
stricter"; exit 1 when any crash (and, with --fail-on-missed, any miss).
"""
import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
import time

HEADER_FIELDS = ['bytenr', 'flags', 'generation', 'owner', 'nritems', 'level']


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, b'timeout'
    return p.returncode, p.stdout


def fields_of(tool):
    out = subprocess.run([tool, 'fields'], stdout=subprocess.PIPE, check=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        tag, member, bits, offset = line.split()
        table.setdefault(tag, []).append((member, int(bits), int(offset)))
    return table


def values(rng, bits):
    top = (1 << bits) - 1
    return rng.choice(['0', '1', '+1', '-1', str(top), str(rng.randint(0, top)),
                       str(1 << rng.randrange(bits)), '+%d' % (1 << rng.randrange(bits))])


def digest(path):
    h = hashlib.md5()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def crashed_run(rc, out):
    return rc < 0 or rc >= 2 or b'Sanitizer' in out or b'runtime error' in out


def more(a, img, repro, counts):
    """The other commands on the mutated image IMG (see --more)."""
    copy = img + '.copy'
    dump = img + '.dump'
    for label, cmd, writes in (('dump-tree', ['dump-tree', img], False),
                               ('dump-super', ['dump-super', '-a', img], False),
                               ('image', ['image', '-c1', '-w', '-ss', img, dump], False),
                               ('balance', ['balance', 'start', '-f', '-mconvert=dup', copy], True),
                               ('repair', ['check', '--repair', '--force', copy], True)):
        if writes:
            shutil.copyfile(img, copy)
            before = digest(copy)
        rc, out = run([a.btrfs] + cmd)
        if crashed_run(rc, out):
            counts['crash'] += 1
            print('crash: %s (%s exit %d) %s' % (repro, label, rc,
                  ([l for l in out.decode(errors='replace').splitlines() if 'ERROR' in l or 'Sanitizer' in l] + [''])[0]))
            continue
        if label != 'repair':
            continue
        if rc != 0 and digest(copy) != before:
            counts['badrepair'] += 1
            print('badrepair: %s (repair exit %d changed the image)' % (repro, rc))
        elif rc == 0:
            rc2, out2 = run([a.btrfs, 'check', copy])
            if rc2 != 0:
                counts['badrepair'] += 1
                print('badrepair: %s (repair exit 0, check after it exit %d)' % (repro, rc2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('image')
    ap.add_argument('count', type=int)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--btrfs', default='./btrfs')
    ap.add_argument('--tool', default='.obj/default/tests/tools/corrupt-block')
    ap.add_argument('--ref', default='')
    ap.add_argument('--work', default='/tmp/fuzz-fields')
    ap.add_argument('--fail-on-missed', action='store_true')
    ap.add_argument('--more', action='store_true')
    ap.add_argument('--time', type=float, default=0, help='stop after SECS seconds')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.work, exist_ok=True)
    img = os.path.join(a.work, 'img')
    table = fields_of(a.tool)
    rc, out = run([a.tool, a.image, 'list'])
    if rc != 0:
        print('cannot list items of %s: %s' % (a.image, out.decode(errors='replace')), file=sys.stderr)
        return 2
    items = [line.split() for line in out.decode().splitlines()]
    counts = {'crash': 0, 'missed': 0, 'stricter': 0, 'agree': 0, 'skipped': 0, 'badrepair': 0}
    start = time.time()
    runs = 0
    for _ in range(a.count):
        if a.time and time.time() - start > a.time:
            break
        runs += 1
        tree, key, size, struct = rng.choice(items)[:4]
        kind = rng.random()
        if kind < 0.15:
            edit = ['header', tree, key, rng.choice(HEADER_FIELDS)]
            bits = 64
        elif struct != '-' and kind < 0.85:
            member, bits, off = rng.choice(table[struct])
            if off + bits // 8 > int(size):
                counts['skipped'] += 1
                continue
            edit = ['field', tree, key, '%s.%s' % (struct, member)]
        elif int(size) > 0:
            at = rng.randrange(int(size))
            edit = ['field', tree, key, 'u8@%d' % at]
            bits = 8
        else:
            counts['skipped'] += 1
            continue
        if edit[0] == 'header':
            bits = {'bytenr': 64, 'flags': 64, 'generation': 64, 'owner': 64,
                    'nritems': 32, 'level': 8}[edit[3]]
        edit.append(values(rng, bits))
        shutil.copyfile(a.image, img)
        rc, out = run([a.tool, img] + edit)
        if rc != 0:
            counts['skipped'] += 1
            continue
        ours, oout = run([a.btrfs, 'check', img])
        crashed = ours < 0 or ours >= 2 or b'Sanitizer' in oout or b'runtime error' in oout
        ref = None
        if a.ref and not crashed:
            ref, _ = run([a.ref, 'check', img])
        repro = 'corrupt-block IMG ' + ' '.join(edit)
        if crashed:
            verdict = 'crash'
        elif ref is None or (ours == 0) == (ref == 0):
            verdict = 'agree'
        elif ours == 0:
            verdict = 'missed'
        else:
            verdict = 'stricter'
        counts[verdict] += 1
        if verdict != 'agree':
            first = [l for l in oout.decode(errors='replace').splitlines() if 'ERROR' in l or 'error' in l][:1]
            print('%s: %s (ours %d, ref %s) %s' % (verdict, repro, ours, ref, first[0] if first else ''))
        if a.more and not crashed:
            more(a, img, repro, counts)
    print('fuzz: %d runs, %d crash, %d missed, %d stricter, %d agree, %d skipped, %d badrepair' % (
        runs, counts['crash'], counts['missed'], counts['stricter'], counts['agree'], counts['skipped'],
        counts['badrepair']))
    if counts['crash'] or counts['badrepair'] or (a.fail_on_missed and counts['missed']):
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
