#!/usr/bin/env python3
"""The circles of the tree: files that include each other in a circle (none
may), and modules (a .c file) that call each other in a circle (only those
ARCHITECTURE.md lists under "## Circles kept", each with its reason).  Fails
(exit 1) on an include circle, on a call circle not listed there, and on a
listed one that is no longer a circle (so the list stays true).  Calls come
from the symbols of the objects in OBJDIR (nm); tests/ and bench/ are left out.
usage: tests/tools/circles.py [OBJDIR]   (run from the top of the tree)"""
import os, re, subprocess, sys


def circles(g):
    """Strongly connected components of more than one node (Tarjan)."""
    idx, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        idx[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in idx:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            s = []
            while True:
                w = stack.pop()
                on.discard(w)
                s.append(w)
                if w == v:
                    break
            if len(s) > 1:
                out.append(frozenset(s))
    for v in sorted(g):
        if v not in idx:
            visit(v)
    return out


def sources():
    files = subprocess.check_output(['git', 'ls-files', '*.c', '*.h'], text=True).split()
    return [f for f in files if not f.startswith(('tests/', 'bench/'))]


def include_graph(files):
    known, g = set(files), {}
    for f in files:
        d = os.path.dirname(f)
        for line in open(f, errors='replace'):
            r = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
            if r:
                t = r.group(1) if r.group(1) in known else os.path.join(d, r.group(1))
                if t in known:
                    g.setdefault(f, set()).add(t)
    return g


def call_graph(files, objdir):
    defs, uses = {}, {}
    for f in files:
        if not f.endswith('.c'):
            continue
        o = os.path.join(objdir, f[:-2] + '.o')
        if not os.path.exists(o):
            continue
        m = f[:-2]
        for line in subprocess.check_output(['nm', o], text=True).splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == 'U':
                uses.setdefault(m, set()).add(p[1])
            elif len(p) == 3 and p[1] in 'TDBR':
                defs[p[2]] = m
    g = {}
    for m, us in uses.items():
        for s in us:
            t = defs.get(s)
            if t and t != m:
                g.setdefault(m, set()).add(t)
    return g, len(set(defs.values()))


def kept(path='ARCHITECTURE.md'):
    """The module sets listed under '## Circles kept': every `name` on a bullet line."""
    out, inside = [], False
    for line in open(path):
        if line.startswith('## '):
            inside = line.strip() == '## Circles kept'
        elif inside and line.startswith('- '):
            names = re.findall(r'`([^`]+)`', line.split(':', 1)[0])
            if names:
                out.append(frozenset(names))
    return out


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else '.obj/default'
    files = sources()
    bad = 0
    for c in circles(include_graph(files)):
        print('circles: files include each other: %s' % ' '.join(sorted(c)))
        bad = 1
    calls, nobj = call_graph(files, objdir)
    if not nobj:
        print('circles: no objects under %s to read calls from (build first)' % objdir)
        return 1
    found, listed = circles(calls), kept()
    for c in found:
        if c not in listed:
            print('circles: a call circle ARCHITECTURE.md does not list (## Circles kept): %s' %
                  ' '.join('`%s`' % m for m in sorted(c)))
            bad = 1
    for c in listed:
        if c not in found:
            print('circles: ARCHITECTURE.md lists a call circle that is none now: %s' % ' '.join(sorted(c)))
            bad = 1
    if not bad:
        print('circles ok: no include circle, %d call circles, each listed' % len(found))
    return bad


if __name__ == '__main__':
    sys.exit(main())
