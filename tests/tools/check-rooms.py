#!/usr/bin/env python3
"""The rooms of check/ (check/check.h, ARCHITECTURE.md) and the one way
their includes and calls go: driver -> passes -> mends and repairs ->
context.  Fails (exit 1, one line per edge) on
  - a file of check/ in no room (every new file is given one here);
  - an include or a call from a room to one above it (a pass including the
    driver's headers, the context calling a pass, ...);
  - a pass including or calling another pass (parts of one pass, named
    after it, may);
  - any circle of includes or calls between modules of check/ (a module: a
    .c file and the .h of the same name).
Calls come from the symbols of the objects in OBJDIR (nm).
usage: tests/tools/check-rooms.py [OBJDIR]   (run from the top of the tree)"""
import os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from circles import circles, call_graph  # noqa: E402  (tests/tools/circles.py)

# room of each module (file name without extension); rank: calls go downwards
DRIVER = {'driver', 'repair', 'pass-thread', 'init-csum-tree'}
PASSES = {  # pass -> its modules
    'log': {'log'}, 'roots': {'roots'},
    'extents': {'extents', 'extents-internal', 'extents-walk', 'extents-leaves', 'extents-tree-blocks',
                'extents-refs', 'extents-block-groups', 'extents-devices', 'lost-blocks', 'super-dev-items'},
    'free-space': {'free-space'},
    'fs-roots': {'fs-roots', 'fs-roots-internal', 'fs-roots-records', 'fs-roots-inodes',
                 'fs-roots-extents', 'fs-roots-name-items', 'fs-roots-links'},
    'csums': {'csums'},
    'root-refs': {'root-refs'}, 'qgroups': {'qgroups'},
}
MENDS = {'header-mend', 'leaf-mend', 'leaf-mend-common', 'leaf-mend-extents', 'leaf-mend-roots',
         'leaf-mend-system', 'leaf-mend-layout', 'leaf-mend-keys', 'leaf-mend-inodes',
         'leaf-mend-file-extents', 'leaf-mend-dir-items', 'leaf-mend-inode-refs', 'leaf-mend-internal',
         'dir-entry-lengths', 'file-extent-codes', 'chunk-length-told'}
CONTEXT = {'check', 'context', 'iter', 'extent-records', 'csum-tree', 'csum-pipe'}


def room(m):
    if m in DRIVER:
        return 'driver', 3
    if m == 'passes':   # the passes' entry points: the driver calls them, each pass defines its own
        return 'passes', 2
    for p, mods in PASSES.items():
        if m in mods:
            return 'pass ' + p, 2
    if m in MENDS:
        return 'mends', 1
    if m.startswith('repair-') or m in ('clear-space-cache', 'subvol-extents', 'check-extra'):
        return 'repairs', 1
    if m in CONTEXT:
        return 'context', 0
    return None, None


def includes(files):
    g = {}
    for f in files:
        m = os.path.splitext(os.path.basename(f))[0]
        for line in open(f, errors='replace'):
            r = re.match(r'\s*#\s*include\s*"check/([^"]+)\.h"', line)
            if r and r.group(1) != m:
                g.setdefault(m, set()).add(r.group(1))
    return g


def calls(objdir, files):
    g, _ = call_graph([f for f in files if f.endswith('.c')], objdir)
    name = lambda m: os.path.basename(m)
    return {name(a): {name(b) for b in bs} for a, bs in g.items()}


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else '.obj/default'
    files = subprocess.check_output(['git', 'ls-files', 'check/*.c', 'check/*.h'], text=True).split()
    bad = 0
    for f in files:
        if room(os.path.splitext(os.path.basename(f))[0])[0] is None:
            print('check-rooms: %s is in no room (tests/tools/check-rooms.py)' % f)
            bad = 1
    if not os.path.isdir(os.path.join(objdir, 'check')):
        print('check-rooms: no %s/check to read calls from (build first)' % objdir)
        return 1
    for kind, g in (('includes', includes(files)), ('calls', calls(objdir, files))):
        for a in sorted(g):
            ra, ka = room(a)
            for b in sorted(g[a]):
                rb, kb = room(b)
                if ra is None or rb is None:
                    continue
                if kb > ka or (ka == kb == 2 and ra != rb and rb != 'passes'):
                    print('check-rooms: check/%s (%s) %s check/%s (%s)' % (a, ra, kind, b, rb))
                    bad = 1
        for c in circles(g):
            print('check-rooms: a circle of %s: %s' % (kind, ' '.join('check/' + m for m in sorted(c))))
            bad = 1
    if not bad:
        print('check rooms ok')
    return bad


sys.exit(main())
