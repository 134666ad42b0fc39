#!/usr/bin/env python3
"""dump-tree --format json against the text output of the same run.

usage: json-vs-text.py JSON TEXT
Checks: one JSON document without duplicate keys in any object; the same
blocks (bytenr, level, nritems, generation) in the same order; per leaf the
same items (offset, size); per item kind, decoded values equal to the text
(inode items, file extents, extent items, root items, dir items, qgroup info
and limit, dev extents); flags are arrays of strings.  One emitter writes
both outputs, so the members come in the text's order (TEXT_ORDER).
"""
import json
import re
import sys


def no_dups(pairs):
    keys = [k for k, _ in pairs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError('duplicate keys %s' % sorted(dup))
    return dict(pairs)


def text_blocks(lines):
    blocks, cur = [], None
    for ln in lines:
        m = re.match(r'(leaf|node) (\d+) (?:level (\d+) )?items (\d+) free space -?\d+ generation (\d+) owner', ln)
        if m:
            cur = {'bytenr': int(m[2]), 'level': int(m[3] or 0), 'nritems': int(m[4]),
                   'generation': int(m[5]), 'items': []}
            blocks.append(cur)
            continue
        m = re.match(r'\titem \d+ key \((.*)\) itemoff (\d+) itemsize (\d+)$', ln)
        if m and cur is not None:
            cur['items'].append({'key': m[1], 'offset': int(m[2]), 'size': int(m[3]), 'lines': []})
            continue
        # (6.19 prints the simple-quota owner ref with one tab: "\t(172 0x..) textent owner")
        if (ln.startswith('\t\t') or ln.startswith('\t(')) and cur is not None and cur['items']:
            cur['items'][-1]['lines'].append(ln.strip())
    return blocks


# Members in the order the text prints them (JSON-only members after).
TEXT_ORDER = {
    'INODE_ITEM': ['generation', 'transid', 'size', 'nbytes', 'block_group', 'mode', 'nlink',
                   'uid', 'gid', 'rdev', 'sequence', 'flags', 'atime', 'ctime', 'mtime', 'otime'],
    'DIR_ITEM': ['location', 'type', 'transid', 'data_len', 'name_len'],
    'DIR_INDEX': ['location', 'type', 'transid', 'data_len', 'name_len'],
    'XATTR_ITEM': ['location', 'type', 'transid', 'data_len', 'name_len'],
    'EXTENT_DATA': ['generation', 'type'],
}
BLOCK_ORDER = ['bytenr', 'level', 'nritems', 'generation', 'owner', 'flags', 'backref_rev',
               'csum', 'fsid', 'chunk_tree_uuid']


def in_text_order(keys, order):
    """keys (a JSON object's members) list order's members first, in that order."""
    known = [k for k in keys if k in order]
    return known == [k for k in order if k in keys] and keys[:len(known)] == known


def body(item):
    d = item.get('data', {})
    return d.get('inode_item', d)


def nums(s):
    return [int(x) for x in re.findall(r'(?<![\w.])-?\d+(?![\w.])', s)]


def check_item(ti, ji, errors, where):
    d = body(ji)
    typ = ti['key'].split()[1] if len(ti['key'].split()) > 2 else ''
    L = ti['lines']

    def want(cond, what):
        if not cond:
            errors.append('%s %s: %s (text %s, json %s)' % (where, ti['key'], what, L[:3], d))

    if typ in TEXT_ORDER and d:
        objs = d.get('entries', [d])
        want(all(in_text_order(list(o.keys()), TEXT_ORDER[typ]) for o in objs),
             'members not in the text order')
    if typ == 'INODE_ITEM' and len(L) >= 2:
        g = re.match(r'generation (\d+) transid (\d+) size (\d+) nbytes (\d+)', L[0])
        b = re.match(r'block group (\d+) mode (\d+) links (\d+) uid (\d+) gid (\d+) rdev (\d+)', L[1])
        if g and b:
            want(int(g[3]) == d['size'] and int(g[4]) == d['nbytes'], 'inode size/nbytes')
            want(int(b[2], 8) == d['mode'] and int(b[3]) == d['nlink'] and int(b[4]) == d['uid'],
                 'inode mode/nlink/uid')
    elif typ == 'EXTENT_DATA' and 'disk_bytenr' in d:
        for ln in L:
            m = re.match(r'(?:extent|prealloc) data disk byte (\d+) nr (\d+)', ln)
            if m:
                want(int(m[1]) == d['disk_bytenr'] and int(m[2]) == d['disk_num_bytes'], 'disk byte')
    elif typ in ('EXTENT_ITEM', 'METADATA_ITEM') and 'refs' in d and L:
        m = re.match(r'refs (\d+) gen (\d+) flags (\S+)', L[0])
        if m:
            want(int(m[1]) == d['refs'] and int(m[2]) == d['generation'], 'extent refs/gen')
            if isinstance(d.get('flags'), list):
                want('|'.join(d['flags']) == m[3], 'extent flags')
            tref = [int(x) for ln in L for x in re.findall(r'^\((\d+) 0x', ln)]
            want(tref == [r['type'] for r in d.get('inline_refs', [])], 'inline ref types')
    elif typ == 'ROOT_ITEM' and 'bytenr' in d:
        for ln in L:
            m = re.match(r'generation (\d+) root_dirid (\d+) bytenr (\d+) byte_limit \d+ bytes_used (\d+)', ln)
            if m:
                want([int(x) for x in m.groups()] ==
                     [d['generation'], d['root_dirid'], d['bytenr'], d['bytes_used']], 'root item')
    elif typ in ('QGROUP_INFO', 'QGROUP_LIMIT') and L and d:
        vals = [v for v in d.values() if isinstance(v, int)]
        tn = nums(' '.join(L))
        if typ == 'QGROUP_LIMIT':
            bits = {'MAX_RFER': 1, 'MAX_EXCL': 2, 'RSV_RFER': 4, 'RSV_EXCL': 8}
            want(tn[0] == sum(bits.get(f, 0) for f in d['flags']), 'qgroup limit flags')
            tn = tn[1:]
        want(tn == vals, 'qgroup values')
    elif typ in ('EXTENT_ITEM', 'METADATA_ITEM') and 'inline_refs' in d:
        pass
    elif typ == 'BLOCK_GROUP_ITEM' and L:
        m = re.match(r'block group used (\d+) chunk_objectid (\d+) flags (\S+)', L[0])
        if m:
            want(int(m[1]) == d['used'] and int(m[2]) == d['chunk_objectid'], 'block group')
            # the text says "single" where no profile bit is set; json lists bits only
            want(set(m[3].split('|')) - {'single'} == set(d['flags']), 'block group flags')
    elif typ == 'CHUNK_ITEM' and L:
        m = re.match(r'length (\d+) owner (\d+) stripe_len (\d+) type (\S+)', L[0])
        if m:
            want([int(m[1]), int(m[2]), int(m[3])] == [d['length'], d['owner'], d['stripe_len']],
                 'chunk length/owner/stripe_len')
            want(set(m[4].split('|')) - {'single'} == set(d['type']), 'chunk type')
            want(len(d['stripe']) == d['num_stripes'], 'chunk stripes')
    elif typ in ('INODE_REF',) and L:
        got = [(r['index'], r['name_len'], r.get('name')) for r in d.get('refs', [])]
        txt = []
        for ln in L:
            m = re.match(r'index (\d+) namelen (\d+) name: (.*)$', ln)
            if m:
                txt.append((int(m[1]), int(m[2]), m[3]))
        want([(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in txt], 'inode refs')
    elif typ in ('DIR_ITEM', 'DIR_INDEX', 'XATTR_ITEM') and L:
        tl = [int(x) for ln in L for x in re.findall(r'^transid (\d+) data_len', ln)]
        want(tl == [e['transid'] for e in d.get('entries', [])], 'dir entries transid')
    elif typ == 'DEV_EXTENT' and 'chunk_offset' in d and len(L) >= 2:
        m = re.search(r'chunk_offset (\d+) length (\d+)', L[1])
        if m:
            want(int(m[1]) == d['chunk_offset'] and int(m[2]) == d['length'], 'dev extent')


def flags_are_lists(x, errors):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == 'flags' and not (isinstance(v, list) and all(isinstance(s, str) for s in v)):
                errors.append('flags not a list of names: %r' % (v,))
            flags_are_lists(v, errors)
    elif isinstance(x, list):
        for v in x:
            flags_are_lists(v, errors)


def main():
    doc = json.load(open(sys.argv[1]), object_pairs_hook=no_dups)
    lines = open(sys.argv[2], errors='replace').read().splitlines()
    tb = text_blocks(lines)
    jb = [b for t in doc['trees'] for b in t['blocks']]
    errors = []
    if [(b['bytenr'], b['level'], b['nritems'], b['generation']) for b in tb] != \
       [(b['bytenr'], b['level'], b['nritems'], b['generation']) for b in jb]:
        print('block lists differ: text %d, json %d' % (len(tb), len(jb)))
        return 1
    nitems = 0
    for j in jb:
        if not in_text_order(list(j.keys()), BLOCK_ORDER):
            errors.append('block %d: header members not in the text order' % j['bytenr'])
    for t, j in zip(tb, jb):
        if t['level']:
            continue
        ji = j.get('items', [])
        if [(i['offset'], i['size']) for i in t['items']] != [(i['offset'], i['size']) for i in ji]:
            errors.append('block %d: item offsets/sizes differ' % t['bytenr'])
            continue
        for a, b in zip(t['items'], ji):
            check_item(a, b, errors, 'block %d' % t['bytenr'])
            nitems += 1
    flags_are_lists(doc, errors)
    for e in errors[:20]:
        print(e)
    print('json vs text: %d blocks, %d items, %d errors' % (len(jb), nitems, len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except ValueError as e:
        print('invalid json document:', e)
        sys.exit(1)
