#!/bin/bash
# dump-tree on a simple-quota filesystem (our mkfs -O squota) the kernel
# filled: extent owner refs (EXTENT_OWNER_REF inline, first of each data
# extent's refs), qgroup status with SIMPLE_MODE and enable_gen, qgroup info
# per subvolume.  Compared with Debian's dump-tree 6.2 after the documented
# normalisation (6.2 knows neither owner refs nor the simple-quota fields);
# every block reads verified; --format json checked against the text.
# Debian's btrfs-progs 6.2 cannot open a simple-quota filesystem (incompat
# bit 0x10000 unknown to it), so instead of a comparison the test checks the
# meaning: each data extent's owner ref names the subvolume whose data ref
# comes with it, and it is the first inline ref.  The line format follows
# btrfs-progs 6.19 print-tree: "\t(172 0x<root>) textent owner root <root>" (one tab,
# 6.19's typo; golden/034 compares a whole dump with 6.19's).
. "$TOP/tests/lib/common.sh"
check_prereq root loop btrfs-kernel progs python3
grep -qw simple_quota <(ls /sys/fs/btrfs/features 2>/dev/null) || _skip "kernel without simple quotas"
PROGS=/usr/bin/btrfs
. "$TOP/tests/lib/dump-tree-compare.sh"

truncate -s 1G "$T/sq.img"
run_check "$BTRFS" mkfs -f -q -O squota "$T/sq.img" > /dev/null
dev=$(setup_loopdev "$T/sq.img"); track_loopdev "$dev"
mnt=$T/mnt
mount_tracked "$dev" "$mnt" noatime
run_check "$PROGS" subvolume create "$mnt/sv" > /dev/null
for i in $(seq 1 50); do echo "small $i" > "$mnt/sv/f$i"; done
dd if=/dev/urandom of="$mnt/sv/big" bs=1M count=4 status=none
dd if=/dev/urandom of="$mnt/top" bs=256K count=2 status=none
cp --reflink=always "$mnt/sv/big" "$mnt/top.clone"
sync
run_check "$PROGS" subvolume snapshot "$mnt/sv" "$mnt/snap" > /dev/null
dd if=/dev/urandom of="$mnt/snap/new" bs=128K count=1 status=none
umount "$mnt" || _fail "umount failed"
losetup -d "$dev"

"$BTRFS" inspect-internal dump-tree --noscan "$T/sq.img" > "$T/squota.ours" 2> "$T/squota.err" ||
	{ cat "$T/squota.err" >&2; _fail "dump-tree failed"; }
[ ! -s "$T/squota.err" ] || { cat "$T/squota.err" >&2; _fail "messages on stderr"; }
"$PROGS" inspect-internal dump-tree --noscan "$T/sq.img" > /dev/null 2>&1 &&
	echo "note: Debian's dump-tree opened the simple-quota filesystem"
check_inline_ref_prefix "$T/squota.ours" || _fail "inline ref prefixes"
python3 - "$T/squota.ours" <<'PY' || _fail "owner refs do not match the data refs"
import re, sys
items, cur = [], None
for line in open(sys.argv[1]):
    if re.match(r'\titem \d+ key \(\d+ EXTENT_ITEM \d+\)', line):
        cur = []
        items.append(cur)
    elif line.startswith('\titem'):
        cur = None
    elif cur is not None and (line.startswith('\t\t(') or line.startswith('\t(')):
        cur.append(line.strip())
names = {'FS_TREE': 5}
checked = 0
for refs in items:
    m = re.match(r'\(172 0x([0-9a-f]+)\) textent owner root (\d+)', refs[0]) if refs else None
    if not m:
        print('data extent without a first owner ref:', refs[:2]); sys.exit(1)
    owner = int(m[2])
    assert int(m[1], 16) == owner
    roots = set()
    for r in refs[1:]:
        d = re.search(r'extent data backref root (\S+)', r)
        if d:
            roots.add(names.get(d[1]) or int(d[1]))
    if roots and owner not in roots:
        print('owner', owner, 'not among data ref roots', roots); sys.exit(1)
    checked += 1
print(checked, 'data extents with a matching owner ref')
sys.exit(0 if checked else 1)
PY
grep -q "^	(172 0x101) textent owner root 257$" "$T/squota.ours" || _fail "no extent owned by the snapshot (257)"
assert_grep "^	(172 0x100) textent owner root 256$" "$T/squota.ours"
assert_grep "flags ON|SIMPLE_MODE scan 0 enable_gen [0-9]" "$T/squota.ours"
check_json_against_text "$T/sq.img" squota
echo ok
