#!/usr/bin/env python3
"""The corruption-class catalogue of btrfs check (issue 17).

usage: catalogue.py [--sample N] [--seed S] [--fs NAME,...] [--family F,...] [--matrix FILE]
                    [--class GLOB,...] [--results DIR] [--report] [--markdown]
                    [--btrfs B] [--tool T] [--ref R] [--work DIR]
                    [--corpus DIR] [--mount] [--no-repair] [--progress] [--list]

A class of corruption is generic, not tied to one image:
  field/STRUCT.MEMBER/WHERE/RULE  set field MEMBER of a random item holding
                                  STRUCT (the structures of corrupt-block's
                                  `fields` table, from accessors.def)
  header/FIELD/WHERE/RULE         set a tree block header field (bytenr, flags,
                                  generation, owner, nritems, level)
  item/OP/KEYTYPE/WHERE           delete, dup, swap (with its neighbour in the
                                  leaf) or shift (item offset +1 / -1) an item
  mirror/HOW/WHERE                damage one copy of a DUP/RAID1/RAID1C3/RAID1C4
                                  leaf: a stale checksum, or a wrong bytenr
                                  with the checksum recomputed
  super/FIELD/RULE                a superblock field, every copy
WHERE is "deep" (a leaf below a node) or "root" (a leaf that is its tree's
root block); RULE is zero, ones (all bits set), inc (+1), dec (-1), random,
or other (the value of the same field in another item).  A fixed seed picks
the item each class is applied to on each filesystem and, with --sample, a
sample of the classes.

Each (class, filesystem) is applied with tests/tools/corrupt-block to a copy
of a kernel-made corpus filesystem (../shared/corpus/NAME, decompressed into
--corpus; a NAME kern-* is made there by tests/tools/kernel-fixture.sh, which
needs root and loop devices, else it is left out with a SKIP line) and judged.
--family fs-tree keeps the classes of the filesystem trees (inode, inode ref
and extref, dir item and index, xattr, file extent, orphan, root item, root
ref and backref items).  Judged:
  ours      our `btrfs check`: exit and first error line
  debian    Debian's check (--ref): exit (n/a on multi-device images, which it
            cannot assemble from files, and where it fails on the undamaged
            filesystem: 6.2 cannot open one with simple quotas)
  repair    our `check --repair --force` on another copy: repaired (exit 0,
            then both checks clean), refused (exit 1, every byte unchanged),
            worse (exit 0 but a check still fails, or exit 1 with bytes
            changed), crash
  debrep    Debian's `check --repair --force` on a third copy: repaired when
            Debian's check found the damage and is clean after it, unseen when
            its check did not find it
--family keeps the classes of the families named (extent: extent, chunk,
device, superblock, header and mirror classes; fs-tree: below); --class keeps
the classes matching one of the shell globs given (fnmatch, e.g.
'field/extent_item.*/deep/*'), for quick reruns of one class.

--results DIR keeps the cases of each class in a file of its own (DIR/CLASS
with '/' as '%', JSON lines, written when the class is done): a class whose
file exists is read back, not run again (resumable: delete a file to rerun
its class), and a class another run is working on (its lock DIR/CLASS.lock
held) is left to it, so several runs may share DIR on a loaded machine
(each in a work directory of its own below --work; corpus copies are made
under a lock).  The matrix holds the classes whose file exists at the end;
--report only reads DIR and writes the matrix, running nothing.
With --mount (needs root and loop devices; each mount holds the machine-wide
/tmp/btrfs-kit-loop.lock) a repaired image is also mounted by the kernel and every file read back
against the original: a failed mount or a changed file is "worse", but for the files whose own
items (inode, inode ref, xattr, file extent) the corruption changed: the issue asks that every file
the corruption did not touch reads back unchanged (an inline extent deleted is gone for good).

Hard rules, each breach printed as a FAIL line, exit 1:
  missed    ours exit 0 where Debian's check exits 1 (Debian crashing, which
            6.2 does on some damage, is recorded as its exit code, not a miss)
  crash     ours exits above 1, dies on a signal, trips a sanitizer, hangs
  changed   a refusing repair changed bytes
  worse     a repair claiming success leaves a check (or the kernel) unhappy
The matrix (one line per class: cases, detected, repaired, refused, worse,
Debian detected, Debian repaired, missed, crash) goes to --matrix, then a
summary by family; classes Debian repairs and we do not are listed.
"""
import argparse
import fcntl
import fnmatch
import glob
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys

HEADER_FIELDS = {'bytenr': 64, 'flags': 64, 'generation': 64, 'owner': 64, 'nritems': 32, 'level': 8}
RULES = ['zero', 'ones', 'inc', 'dec', 'random', 'other']
ITEM_OPS = ['delete', 'dup', 'swap', 'shift+1', 'shift-1']
# dump-tree's key type names, for readable class names
KEY_TYPES = {1: 'INODE_ITEM', 12: 'INODE_REF', 13: 'INODE_EXTREF', 24: 'XATTR_ITEM', 48: 'ORPHAN_ITEM',
             84: 'DIR_ITEM', 96: 'DIR_INDEX', 108: 'EXTENT_DATA', 128: 'EXTENT_CSUM', 132: 'ROOT_ITEM',
             144: 'ROOT_BACKREF', 156: 'ROOT_REF', 168: 'EXTENT_ITEM', 169: 'METADATA_ITEM',
             176: 'TREE_BLOCK_REF', 178: 'EXTENT_DATA_REF', 182: 'SHARED_BLOCK_REF',
             184: 'SHARED_DATA_REF', 192: 'BLOCK_GROUP_ITEM', 198: 'FREE_SPACE_INFO',
             199: 'FREE_SPACE_EXTENT', 200: 'FREE_SPACE_BITMAP', 204: 'DEV_EXTENT', 216: 'DEV_ITEM',
             228: 'CHUNK_ITEM', 240: 'QGROUP_STATUS', 242: 'QGROUP_INFO', 244: 'QGROUP_LIMIT',
             246: 'QGROUP_RELATION', 248: 'TEMPORARY_ITEM', 249: 'PERSISTENT_ITEM',
             250: 'DEV_REPLACE', 251: 'UUID_SUBVOL', 252: 'UUID_RECEIVED_SUBVOL'}
# structures that follow an item's leading one (byte offset in the item)
SUB_STRUCTS = {'extent_item': [('extent_inline_ref', 24)], 'chunk': [('stripe', 48)]}
# the filesystem-tree family (--family fs-tree): item structures and key types
FS_TREE_STRUCTS = {'inode_item', 'inode_ref', 'inode_extref', 'dir_item', 'file_extent_item', 'root_item',
                   'root_ref'}
FS_TREE_TYPES = {'INODE_ITEM', 'INODE_REF', 'INODE_EXTREF', 'XATTR_ITEM', 'ORPHAN_ITEM', 'DIR_ITEM', 'DIR_INDEX',
                 'EXTENT_DATA', 'ROOT_ITEM', 'ROOT_BACKREF', 'ROOT_REF'}


def in_family(cls, family):
    p = cls.split('/')
    if family == 'fs-tree':
        return (p[0] == 'field' and p[1].split('.')[0] in FS_TREE_STRUCTS) or \
            (p[0] == 'item' and p[2] in FS_TREE_TYPES)
    return re.search(FAMILIES[family], cls) is not None


DEFAULT_FS = ['default-rich', 'nodesize4k-bulk', 'legacy-features', 'quota', 'compress-zlib',
              'mixed-bg', 'csum-sha256', 'raid1-raid1', 'raid1c3-raid1c4', 'empty-defaults']
TIMEOUT = 300
# families of classes, by who owns their detection and repair (--family): a
# class belongs to a family when its name matches the family's pattern
_EXTENT_TYPES = ('EXTENT_ITEM|METADATA_ITEM|TREE_BLOCK_REF|EXTENT_DATA_REF|SHARED_BLOCK_REF|SHARED_DATA_REF|'
                 'BLOCK_GROUP_ITEM|FREE_SPACE_INFO|FREE_SPACE_EXTENT|FREE_SPACE_BITMAP|DEV_EXTENT|DEV_ITEM|'
                 'CHUNK_ITEM|EXTENT_CSUM')
FAMILIES = {
    'extent': r'^(header|mirror|super)/|^field/(extent_item|extent_inline_ref|extent_data_ref|shared_data_ref|'
              r'block_group_item|free_space_info|dev_extent|dev_item|chunk|stripe|disk_key|item)\.|'
              r'^item/[^/]+/(%s)/' % _EXTENT_TYPES,
}


def run(cmd, timeout=TIMEOUT):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1000, 'timeout after %ds' % timeout
    return p.returncode, p.stdout.decode(errors='replace')


def crashed(rc, out):
    return rc < 0 or rc > 1 or 'Sanitizer' in out or 'runtime error:' in out


def first_error(out):
    for line in out.splitlines():
        if re.search(r'ERROR|error|mismatch|invalid|bad |wrong|missing', line):
            return line.strip()[:160]
    return (out.strip().splitlines() or [''])[-1][:160]


class Fs:
    """A corpus filesystem: its device images and items."""

    def __init__(self, name, a):
        self.name = name
        dst = os.path.join(a.corpus, name)
        self.skip = None
        os.makedirs(a.corpus, exist_ok=True)
        with open(os.path.join(a.corpus, '.%s.lock' % name), 'w') as lock:
            # parallel runs sharing --corpus: one makes the copy, the others wait for it
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.make(a, dst)
        if self.skip:
            return
        self.devs = sorted(glob.glob(os.path.join(dst, 'dev*.img')))
        if not self.devs:
            raise SystemExit('no corpus filesystem %s' % name)
        rc, out = run([a.tool, ','.join(self.devs), 'list'])
        if rc != 0:
            raise SystemExit('cannot list the items of %s: %s' % (name, out))
        # TREE KEY SIZE STRUCT LEAF LEVEL
        self.items = [l.split() for l in out.splitlines()]
        self.leaf_keys, self.index = {}, {}
        for it in self.items:
            self.leaf_keys.setdefault(it[4], []).append(it[1])
            w = self.where(it)
            for k in (w, (it[3], w), (item_type(it), w)):
                self.index.setdefault(k, []).append(it)
        self.mirrors = 1
        # Debian's check as the second opinion where it reads the filesystem undamaged
        self.ref = len(self.devs) == 1 and a.ref and check(a.ref, self.devs)[0] == 0

    def make(self, a, dst):
        """The corpus copy in dst: a kernel fixture made, or the corpus images decompressed."""
        name = self.name
        if name.startswith('kern-') and not os.path.exists(os.path.join(dst, '.done')):
            rc, out = run([os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kernel-fixture.sh'), name, dst])
            if rc == 77:
                self.skip = out.strip()
                return
            if rc != 0:
                raise SystemExit('cannot make kernel fixture %s: %s' % (name, out))
        if not os.path.exists(os.path.join(dst, '.done')):
            os.makedirs(dst, exist_ok=True)
            for x in sorted(glob.glob(os.path.join(a.shared, 'corpus', name, 'dev*.img.xz'))):
                out = os.path.join(dst, os.path.basename(x)[:-3])
                subprocess.run('xz -dc %s | dd of=%s bs=64k conv=sparse status=none' % (x, out),
                               shell=True, check=True)
            open(os.path.join(dst, '.done'), 'w').close()

    def where(self, it):
        return 'root' if it[5] == '0' else 'deep'


def copy_fs(fs, dst):
    os.makedirs(dst, exist_ok=True)
    out = []
    for d in fs.devs:
        p = os.path.join(dst, os.path.basename(d))
        subprocess.run(['cp', '--sparse=always', '--reflink=auto', d, p], check=True)
        out.append(p)
    return out


def digest(devs):
    h = hashlib.sha256()
    for d in devs:
        with open(d, 'rb') as f:
            for chunk in iter(lambda: f.read(1 << 22), b''):
                h.update(chunk)
    return h.hexdigest()


def rule_value(rng, rule, bits, other):
    top = (1 << bits) - 1
    return {'zero': '0', 'ones': str(top), 'inc': '+1', 'dec': '-1',
            'random': str(rng.randint(0, top)), 'other': other}[rule]


def enumerate_classes(table):
    classes = []
    for tag, members in sorted(table.items()):
        if tag not in ITEM_STRUCTS:
            continue
        for member, bits, _ in members:
            for where in ('deep', 'root'):
                for rule in RULES:
                    classes.append('field/%s.%s/%s/%s' % (tag, member, where, rule))
        for sub, at in SUB_STRUCTS.get(tag, []):
            for member, bits, _ in table[sub]:
                for where in ('deep', 'root'):
                    for rule in RULES:
                        classes.append('field/%s.%s@%d/%s/%s' % (sub, member, at, where, rule))
    for tag in ('disk_key', 'item'):
        for member, bits, _ in table.get(tag, []):
            for where in ('deep', 'root'):
                for rule in RULES[:-1]:
                    classes.append('field/%s.%s/%s/%s' % (tag, member, where, rule))
    for f in HEADER_FIELDS:
        for where in ('deep', 'root'):
            for rule in RULES[:-1]:
                classes.append('header/%s/%s/%s' % (f, where, rule))
    for t in sorted(KEY_TYPES.values()):
        for op in ITEM_OPS:
            for where in ('deep', 'root'):
                classes.append('item/%s/%s/%s' % (op, t, where))
    for how in ('csum', 'bytenr'):
        for where in ('deep', 'root'):
            classes.append('mirror/%s/%s' % (how, where))
    for member, bits, _ in table['super_block']:
        if member in ('csum', 'magic', 'bytenr'):
            continue
        for rule in RULES[:-1]:
            classes.append('super/%s/%s' % (member, rule))
    return classes


# the structures an item's key type names (corrupt-block's item_struct)
ITEM_STRUCTS = {'inode_item', 'inode_ref', 'inode_extref', 'dir_item', 'dir_log_item', 'file_extent_item',
                'root_item', 'root_ref', 'extent_item', 'extent_data_ref', 'shared_data_ref',
                'block_group_item', 'free_space_info', 'dev_extent', 'dev_item', 'chunk',
                'qgroup_status_item', 'qgroup_info_item', 'qgroup_limit_item'}


def item_type(it):
    return KEY_TYPES.get(int(it[1].split(',')[1]), it[1].split(',')[1])


def plan(cls, fs, rng, table):
    """The corrupt-block command lines (a list of edits) applying cls to fs, or None."""
    parts = cls.split('/')
    fam = parts[0]
    if fam == 'super':
        member, rule = parts[1], parts[2]
        bits = {m: b for m, b, _ in table['super_block']}[member]
        return [['super', member, rule_value(rng, rule, bits, '+0')]], None
    if fam == 'mirror':
        if fs.mirrors < 2:
            return None
        how, where = parts[1], parts[2]
        cand = fs.index.get(where)
        if not cand:
            return None
        it = rng.choice(cand)
        m = str(rng.randint(1, fs.mirrors))
        if how == 'csum':
            return [['--mirror', m, '--no-csum', 'header', it[0], it[1], 'generation', '+1']], None
        return [['--mirror', m, 'header', it[0], it[1], 'bytenr', '+4096']], None
    if fam == 'header':
        field, where, rule = parts[1], parts[2], parts[3]
        cand = fs.index.get(where)
        if not cand:
            return None
        it = rng.choice(cand)
        return [['header', it[0], it[1], field, rule_value(rng, rule, HEADER_FIELDS[field], '+0')]], None
    if fam == 'item':
        op, ktype, where = parts[1], parts[2], parts[3]
        cand = fs.index.get((ktype, where), [])
        if op == 'swap':
            cand = [it for it in cand if len(fs.leaf_keys[it[4]]) > 1]
        if not cand:
            return None
        it = rng.choice(cand)
        if op == 'swap':
            keys = fs.leaf_keys[it[4]]
            i = keys.index(it[1])
            return [['swap', it[0], it[1], keys[i + 1] if i + 1 < len(keys) else keys[i - 1]]], None
        if op.startswith('shift'):
            return [['shift', it[0], it[1], op[5:]]], None
        return [[op, it[0], it[1]]], None
    # field/STRUCT.MEMBER[@N]/WHERE/RULE
    spec, where, rule = parts[1], parts[2], parts[3]
    tag, member = spec.split('@')[0].split('.')
    at = int(spec.split('@')[1]) if '@' in spec else 0
    bits, off = {m: (b, o) for m, b, o in table[tag]}[member]
    owner = {'extent_inline_ref': 'extent_item', 'stripe': 'chunk'}.get(tag, tag)
    if owner in ('disk_key', 'item'):
        cand = fs.index.get(where, [])
    else:
        cand = [it for it in fs.index.get((owner, where), []) if at + off + bits // 8 <= int(it[2])]
    if not cand:
        return None
    it = rng.choice(cand)
    other = None
    if rule == 'other':
        others = [o for o in fs.index.get((it[3], 'deep'), []) + fs.index.get((it[3], 'root'), [])
                  if o is not it and at + off + bits // 8 <= int(o[2])]
        if not others:
            return None
        other = rng.choice(others)
    return [['field', it[0], it[1], spec, rule_value(rng, rule, bits, '+0')]], other


def read_field(a, devs, it, spec):
    rc, out = run([a.tool, ','.join(devs), 'field', it[0], it[1], spec, '+0'])
    m = re.search(r': (\d+) -> ', out)
    return m.group(1) if rc == 0 and m else None


def apply_edits(a, devs, edits):
    """Apply the edits; None when one fails, else whether any byte changed."""
    changed = False
    for e in edits:
        opts = []
        while e and e[0].startswith('--'):
            n = 1 if e[0] == '--no-csum' else 2
            opts += e[:n]
            e = e[n:]
        target = devs[0] if e[0] == 'super' else ','.join(devs)
        rc, out = run([a.tool] + opts + [target] + e)
        if rc != 0:
            return None, out
        m = re.findall(r': (\d+) -> (\d+)', out)
        if not m or any(x != y for x, y in m):
            changed = True
    return changed, ''


def check(btrfs, devs, extra=()):
    return run([btrfs, 'check'] + list(extra) + list(devs))


class Mounter:
    """Kernel mounts of whole filesystems (--mount): a manifest of file checksums."""

    def __init__(self, work):
        self.work = work
        self.cache = {}

    def manifest(self, devs):
        # (not when tests/run.sh holds the lock for this run already: it would wait for ever)
        if os.environ.get('BTRFS_KIT_LOOP_LOCKED') == '/tmp/btrfs-kit-loop.lock':
            return self.manifest_locked(devs)
        with open('/tmp/btrfs-kit-loop.lock', 'w') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return self.manifest_locked(devs)

    @staticmethod
    def rootid(path):
        out = subprocess.run(['btrfs', 'inspect-internal', 'rootid', path], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout.strip()
        return int(out) if out.isdigit() else None

    def manifest_locked(self, devs):
        mnt = os.path.join(self.work, 'mnt')
        os.makedirs(mnt, exist_ok=True)
        loops = []
        try:
            for d in devs:
                loops.append(subprocess.run(['losetup', '-f', '--show', d], stdout=subprocess.PIPE,
                                            check=True, text=True).stdout.strip())
            if len(loops) > 1:
                subprocess.run(['btrfs', 'device', 'scan'] + loops, stdout=subprocess.DEVNULL)
            if subprocess.run(['mount', '-o', 'ro', loops[0], mnt], stderr=subprocess.DEVNULL).returncode:
                return None
            try:
                # path: (content digest, (subvolume tree, inode number)); a
                # subvolume is its own st_dev in a btrfs mount
                files, trees = {}, {}
                for root, _, names in os.walk(mnt):
                    dev = os.stat(root).st_dev
                    if dev not in trees:
                        trees[dev] = self.rootid(root)
                    for n in names:
                        p = os.path.join(root, n)
                        if os.path.islink(p) or not os.path.isfile(p):
                            continue
                        who = (trees[dev], os.stat(p).st_ino)
                        try:
                            with open(p, 'rb') as f:
                                files[os.path.relpath(p, mnt)] = (hashlib.sha256(f.read()).hexdigest(), who)
                        except OSError:
                            files[os.path.relpath(p, mnt)] = ('EIO', who)
                return files
            finally:
                subprocess.run(['umount', mnt])
        finally:
            for l in loops:
                subprocess.run(['losetup', '-d', l])

    def compare(self, fs, devs, touched=frozenset()):
        """None, or why not: files other than the inodes touched ((tree, ino)) must read back unchanged."""
        if fs.name not in self.cache:
            self.cache[fs.name] = self.manifest(fs.devs)
        orig, now = self.cache[fs.name], self.manifest(devs)
        if now is None:
            return 'the kernel does not mount it'
        bad = [p for p in now if p in orig and now[p][0] != orig[p][0] and orig[p][1] not in touched]
        return '%d files read back changed (%s)' % (len(bad), bad[0]) if bad else None


# Key types of a filesystem tree that belong to the inode of their objectid.
INODE_KEY_TYPES = {1, 12, 13, 24, 108}   # INODE_ITEM, INODE_REF, INODE_EXTREF, XATTR_ITEM, EXTENT_DATA


def touched_inodes(edits, fs=None):
    """(tree, ino) of the inodes whose own items the edits change (field, delete, dup, swap, shift,
    move of a filesystem tree item): the files the corruption touched, whose data a repair may
    not bring back (an inline extent deleted is gone).  A leaf's nritems cut hides the items past
    the new count: theirs are touched too.  Other header edits touch no inode in particular."""
    out = set()
    for e in edits:
        if e[0] == 'header' and len(e) > 4 and e[3] == 'nritems' and fs is not None:
            tree = int(e[1])
            leaf = next((it[4] for it in fs.items if it[0] == e[1] and it[1] == e[2]), None)
            keys = fs.leaf_keys.get(leaf, []) if leaf else []
            v = e[4]
            n = len(keys) + int(v) if v[0] in '+-' else int(v)
            for k in keys[max(n, 0):]:
                oid, typ, _ = (int(x) for x in k.split(','))
                if typ in INODE_KEY_TYPES and (tree == 5 or 256 <= tree < 2 ** 64 - 256):
                    out.add((tree, oid))
            continue
        if e[0] not in ('field', 'delete', 'dup', 'swap', 'shift', 'move') or len(e) < 3:
            continue
        tree = int(e[1])
        if tree != 5 and not 256 <= tree < 2 ** 64 - 256:
            continue
        keys = [e[2]] + ([e[3]] if e[0] == 'swap' and len(e) > 3 else [])
        for k in keys:
            oid, typ, _ = (int(x) for x in k.split(','))
            if typ in INODE_KEY_TYPES:
                out.add((tree, oid))
    return frozenset(out)


def judge(a, cls, fs, rng, table, mounter, work):
    """Apply cls to fs and run the checks and repairs; a result dict, or None (not applicable)."""
    p = plan(cls, fs, rng, table)
    if p is None:
        return None
    edits, other = p
    devs = copy_fs(fs, os.path.join(work, 'img'))
    if other is not None:
        v = read_field(a, devs, other, edits[0][3])
        if v is None:
            return None
        edits[0][4] = v
    changed, err = apply_edits(a, devs, edits)
    if not changed:
        return None
    r = {'class': cls, 'fs': fs.name, 'edit': ' '.join(' '.join(e) for e in edits)}
    orc, oout = check(a.btrfs, devs)
    r['ours'], r['msg'] = orc, first_error(oout)
    r['crash'] = crashed(orc, oout)
    r['debian'] = None
    if fs.ref:
        r['debian'], _ = check(a.ref, devs)
    r['repair'] = r['debrep'] = '-'
    detected = orc == 1 or r['debian'] == 1
    if a.no_repair or r['crash'] or not detected:
        return r
    before = digest(devs)
    rdevs = copy_fs(fs, os.path.join(work, 'rep'))
    for x, y in zip(devs, rdevs):
        shutil.copyfile(x, y)
    rrc, rout = run([a.btrfs, 'check', '--repair', '--force'] + rdevs)
    if crashed(rrc, rout):
        r['repair'], r['why'] = 'crash', first_error(rout)
    elif rrc != 0:
        if digest(rdevs) == before:
            r['repair'] = 'refused'
        else:
            r['repair'], r['why'] = 'changed', 'a refusing repair changed bytes: ' + first_error(rout)
    else:
        c1, o1 = check(a.btrfs, rdevs)
        c2 = check(a.ref, rdevs)[0] if fs.ref else 0
        why = None
        if c1 != 0 or c2 != 0:
            why = 'after the repair our check exits %d (%s), Debian\'s %d' % (c1, first_error(o1), c2)
        elif mounter:
            why = mounter.compare(fs, rdevs, touched_inodes(edits, fs))
        r['repair'], r['why'] = ('worse', why) if why else ('repaired', None)
    if fs.ref:
        for x, y in zip(devs, rdevs):
            shutil.copyfile(x, y)
        # Debian's 6.2 repair loops on some damage: a minute, then "failed"
        drc, _ = run([a.ref, 'check', '--repair', '--force'] + rdevs, timeout=60)
        # Debian repaired what its check found (damage it does not see is "unseen")
        r['debrep'] = 'unseen' if r['debian'] != 1 else 'repaired' if check(a.ref, rdevs)[0] == 0 else 'failed'
    return r


def failures(r):
    out = []
    if r['crash']:
        out.append('crash: our check exits %d: %s' % (r['ours'], r['msg']))
    if r['ours'] == 0 and r['debian'] == 1:
        out.append('missed: our check exits 0, Debian\'s %d' % r['debian'])
    if r['repair'] in ('crash', 'changed', 'worse'):
        out.append('%s: %s' % (r['repair'], r.get('why')))
    return out


COLS = ['cases', 'detected', 'repaired', 'refused', 'worse', 'deb-det', 'deb-rep', 'missed', 'crash']


def tally(rows):
    c = dict.fromkeys(COLS, 0)
    for r in rows:
        c['cases'] += 1
        c['detected'] += r['ours'] == 1
        c['repaired'] += r['repair'] == 'repaired'
        c['refused'] += r['repair'] == 'refused'
        c['worse'] += r['repair'] in ('worse', 'changed')
        c['deb-det'] += r['debian'] == 1
        c['deb-rep'] += r['debrep'] == 'repaired'
        c['missed'] += r['ours'] == 0 and r['debian'] == 1
        c['crash'] += r['crash'] or r['repair'] == 'crash'
    return c


MARKDOWN = False


def line(name, c):
    if MARKDOWN:
        return '| %s | ' % name + ' | '.join('%d' % c[k] for k in COLS) + ' |'
    return '%-58s ' % name + ' '.join('%8d' % c[k] for k in COLS)


def header(name):
    if MARKDOWN:
        return '| %s | %s |\n|---|%s' % (name, ' | '.join(COLS), '---|' * len(COLS))
    return '%-58s ' % name + ' '.join('%8s' % k for k in COLS)


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser()
    ap.add_argument('--sample', type=int, default=0, help='classes to sample (0: all)')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--fs', default=','.join(DEFAULT_FS))
    ap.add_argument('--per-class', type=int, default=0,
                    help='filesystems each class is applied to (0: all of --fs)')
    ap.add_argument('--btrfs', default=os.path.join(top, 'btrfs'))
    ap.add_argument('--tool', default=os.path.join(top, '.obj/default/tests/tools/corrupt-block'))
    ap.add_argument('--ref', default='/usr/bin/btrfs')
    ap.add_argument('--shared', default=os.path.join(os.path.dirname(top), 'shared'))
    ap.add_argument('--work', default='/tmp/btrfs-kit-catalogue')
    ap.add_argument('--corpus', default='')
    ap.add_argument('--matrix', default='')
    ap.add_argument('--mount', action='store_true')
    ap.add_argument('--no-repair', action='store_true')
    ap.add_argument('--list', action='store_true', help='print the classes and exit')
    ap.add_argument('--family', default='', help='keep the classes of these families (fs-tree, %s)' % ', '.join(FAMILIES))
    ap.add_argument('--progress', action='store_true', help='a line every 50 cases on stderr')
    ap.add_argument('--class', dest='glob', default='', help='keep the classes matching these globs')
    ap.add_argument('--results', default='', help='a file of cases per class in this directory (resumable)')
    ap.add_argument('--report', action='store_true', help='the matrix of the --results files, nothing run')
    ap.add_argument('--markdown', action='store_true', help='the matrix as markdown tables')
    a = ap.parse_args()
    global MARKDOWN
    MARKDOWN = a.markdown
    a.corpus = a.corpus or os.path.join(a.work, 'corpus')
    if a.report and not a.results:
        ap.error('--report reads --results')
    rng = random.Random(a.seed)
    out = subprocess.run([a.tool, 'fields'], stdout=subprocess.PIPE, check=True, text=True).stdout
    table = {}
    for l in out.splitlines():
        tag, member, bits, offset = l.split()
        table.setdefault(tag, []).append((member, int(bits), int(offset)))
    classes = [c for c in enumerate_classes(table)
               if (not a.family or any(in_family(c, f) for f in a.family.split(','))) and
               (not a.glob or any(fnmatch.fnmatchcase(c, g) for g in a.glob.split(',')))]
    if a.list:
        print('\n'.join(classes))
        return 0
    if a.report:
        by_class = {c: load_class(a.results, c) for c in classes}
        return report(a, {c: rs for c, rs in by_class.items() if rs}, set())
    fss = []
    for name in a.fs.split(','):
        fs = Fs(name, a)
        if fs.skip:
            print(fs.skip)
            continue
        fs.mirrors = mirrors_of(a, fs)
        fss.append(fs)
    # a class applies to a filesystem that has an item (or block) it names
    applies = {c: [fs for fs in fss if plan(c, fs, random.Random(0), table)] for c in classes}
    classes = [c for c in classes if applies[c]]
    if a.sample:
        classes = sorted(rng.sample(classes, min(a.sample, len(classes))))
    # a work directory of this run's own: parallel runs may share --work
    work = os.path.join(a.work, 'run-%d' % os.getpid())
    mounter = Mounter(work) if a.mount else None
    if a.results:
        os.makedirs(a.results, exist_ok=True)
    ncases, ran = 0, set()
    by_class = {}
    for cls in classes:
        rows = load_class(a.results, cls) if a.results else None
        if rows is not None:
            by_class[cls] = rows
            continue
        lock = class_lock(a.results, cls) if a.results else None
        if a.results and lock is None:
            continue
        crng = random.Random('%d/%s' % (a.seed, cls))
        fit = applies[cls]
        chosen = fit if not a.per_class else crng.sample(fit, min(a.per_class, len(fit)))
        rows = []
        for fs in chosen:
            r = judge(a, cls, fs, crng, table, mounter, work)
            if r is None:
                continue
            rows.append(r)
            ncases += 1
            if a.progress and ncases % 50 == 0:
                print('... %d cases, %s' % (ncases, cls), file=sys.stderr, flush=True)
            print_failures(r)
        by_class[cls] = rows
        ran.add(cls)
        if a.results:
            save_class(a.results, cls, rows)
            lock.close()
    shutil.rmtree(work, ignore_errors=True)
    if a.results:
        # the classes other runs finished meanwhile
        for cls in classes:
            if cls not in by_class:
                rows = load_class(a.results, cls)
                if rows is not None:
                    by_class[cls] = rows
    return report(a, {c: rs for c, rs in by_class.items() if rs}, ran)


def class_file(results, cls):
    return os.path.join(results, cls.replace('/', '%'))


def load_class(results, cls):
    """The cases of cls saved in results, or None when the class was not run to its end."""
    try:
        with open(class_file(results, cls)) as f:
            return [json.loads(l) for l in f if l.strip()]
    except FileNotFoundError:
        return None


def save_class(results, cls, rows):
    path = class_file(results, cls)
    with open(path + '.tmp', 'w') as f:
        f.write(''.join(json.dumps(r, sort_keys=True) + '\n' for r in rows))
    os.replace(path + '.tmp', path)


def class_lock(results, cls):
    """The lock of cls (an open file), None when another run holds it or finished the class."""
    f = open(class_file(results, cls) + '.lock', 'w')
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        return None
    if load_class(results, cls) is not None:
        f.close()
        return None
    return f


def print_failures(r):
    for f in failures(r):
        print('FAIL %s on %s: %s\n     corrupt-block IMG %s' % (r['class'], r['fs'], f, r['edit']), flush=True)


def report(a, by_class, ran):
    """The matrix of by_class (class: its cases) to --matrix, the summary printed, the
    failures of the classes not run here (ran) too; the exit code."""
    rows = [r for cls in sorted(by_class) for r in by_class[cls]]
    for r in rows:
        if r['class'] not in ran:
            print_failures(r)
    fails = sum(len(failures(r)) for r in rows)
    text = [header('class')]
    text += [line(cls, tally(rs)) for cls, rs in sorted(by_class.items())]
    fam = {}
    for r in rows:
        p = r['class'].split('/')
        key = '/'.join(p[:2]) if p[0] != 'field' else 'field/' + p[1].split('.')[0]
        fam.setdefault(key, []).append(r)
    summary = ['', 'by family:', header('family')] + [line(k, tally(v)) for k, v in sorted(fam.items())]
    summary += [line('total', tally(rows))]
    deb_only = sorted({r['class'] for r in rows if r['debrep'] == 'repaired' and r['repair'] != 'repaired'})
    ours_only = sorted({r['class'] for r in rows if r['repair'] == 'repaired' and r['debrep'] != 'repaired'})
    summary += ['', 'classes Debian repairs and we do not (%d): %s' % (len(deb_only), ' '.join(deb_only) or '-'),
                'classes we repair and Debian does not (%d): %s' % (len(ours_only), ' '.join(ours_only) or '-')]
    detail = ['', 'cases:'] + ['%s %s: ours %d (%s) debian %s repair %s debrep %s | %s' % (
        r['class'], r['fs'], r['ours'], r['msg'], r['debian'], r['repair'], r['debrep'], r['edit'])
        for r in rows]
    if a.matrix:
        with open(a.matrix, 'w') as f:
            f.write('\n'.join(text + summary + detail) + '\n')
    print('\n'.join(summary[1:]))
    t = tally(rows)
    print('catalogue: %d classes, %d cases, %d failures' % (len(by_class), t['cases'], fails))
    return 1 if fails else 0


def mirrors_of(a, fs):
    """Copies of a metadata block: from a one-copy header edit that changes nothing."""
    it = next((i for i in fs.items if i[0] == '5'), fs.items[0])
    work = os.path.join(a.work, 'probe-%d' % os.getpid())
    devs = copy_fs(fs, work)
    rc, out = run([a.tool, ','.join(devs), 'header', it[0], it[1], 'generation', '+0'])
    m = re.search(r'every copy of (\d+)', out)
    shutil.rmtree(work, ignore_errors=True)
    return int(m.group(1)) if m else 1


if __name__ == '__main__':
    sys.exit(main())
