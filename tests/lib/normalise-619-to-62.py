#!/usr/bin/env python3
"""Rewrite our (btrfs-progs 6.19 format) dump-tree output into what 6.2 prints.

usage: normalise-619-to-62.py < ours > comparable
The differences, each a change between btrfs-progs 6.2 and 6.19:
  1. inline extent refs: 6.19 prefixes "(type 0xoffset) "; dropped.
  2. the DEV_REPLACE item's four decoded lines (6.19 only); dropped.
  3. names and xattr data: 6.19 escapes whitespace, backslash and bytes
     outside printable ASCII as \\ooo / "\\ "; 6.2 prints the raw bytes and
     stops xattr data at a NUL byte.  Unescaped here.
  4. timestamps whose seconds localtime() cannot convert: 6.2 prints whatever
     the unconverted struct tm held, 6.19 (and we) an empty "()"; the
     parenthesised date is dropped on such lines (the caller drops it from the
     6.2 side too, see the -t option).
With -t the input is 6.2 output and only rule 4 applies (the date of the
same lines is dropped).
"""
import re
import sys

ESC = re.compile(rb'\\([0-7]{3}|.)')


def unescape(b):
    def rep(m):
        g = m.group(1)
        return bytes([int(g, 8)]) if len(g) == 3 else g
    return ESC.sub(rep, b)


TIME = re.compile(rb'^(\t\t[acmo]time -?\d+\.\d+) \((.*)\)$')
NAME = re.compile(rb'^(\t\t(?:index \d+ (?:parent \d+ )?namelen \d+ )?name: |\t\tdata )(.*)$')
PREFIX = re.compile(rb'^(\t\t?)\(\d+ 0x[0-9a-f]+\) ((?:tree block|shared block|extent data|shared data|textent owner) )')


def main():
    theirs = '-t' in sys.argv[1:]
    out = sys.stdout.buffer
    drop_replace = 0
    first = True
    for line in sys.stdin.buffer:
        body = line.rstrip(b'\n')
        if first:
            first = False
            if re.search(rb' v\d', body):
                continue
        m = TIME.match(body)
        if m and (theirs or m.group(2) == b''):
            # the date of an unconvertible time: 6.2 garbage, ours empty
            year = re.match(rb'-?\d+', m.group(2) or b'')
            if m.group(2) == b'' or (year and abs(int(year.group(0))) > 9999):
                out.write(m.group(1) + b'\n')
                continue
        if theirs:
            out.write(body + b'\n')
            continue
        if drop_replace:
            drop_replace -= 1
            continue
        if re.match(rb'^\titem \d+ key \(0 DEV_REPLACE 0\) ', body):
            out.write(body + b'\n')
            drop_replace = 4
            continue
        body = PREFIX.sub(rb'\1\2', body)
        m = NAME.match(body)
        if m and b'\\' in m.group(2):
            val = unescape(m.group(2))
            if m.group(1) == b'\t\tdata ' and b'\0' in val:
                val = val[:val.index(b'\0')]
            body = m.group(1) + val
        out.write(body + b'\n')


if __name__ == '__main__':
    main()
