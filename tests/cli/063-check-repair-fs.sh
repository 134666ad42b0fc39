#!/bin/bash
# btrfs check --repair of fs tree and quota group damage on a filesystem our
# mkfs made from a tree (quotas on, hole extents): each corruption (bytes
# rewritten by tests/lib/blockpatch.py, items deleted through the engine by
# tests/tools/item-delete) is found, repaired (the fix named in the output),
# and then our check and Debian's are clean.  A repair that splits a leaf
# moves qgroup 0/5 by the new block.  Finally all of them at once, and the
# kernel mounts the repaired filesystem and reads every file back; after a
# snapshot, a repair in the shared tree marks the quota numbers inconsistent.
. "$TOP/tests/lib/common.sh"
check_prereq python3
need_tool DEL item-delete
patch=$TOP/tests/lib/blockpatch.py
src=$T/src
marked_file "$src"
pattern_data 65536 "$src/data"
echo a > "$src/dir/a"
echo bb > "$src/dir/b"
head -c 4096 "$src/data" > "$src/sparse"
truncate -s 12288 "$src/sparse"
head -c 4096 "$src/data" | tr B Y >> "$src/sparse"
chown 4545:4646 "$src/dir"
chown 4747:4848 "$src/data"
img0=$T/clean.img
clean_image "$src" "$img0" -O quota,^no-holes,^block-group-tree

# the transid in the dir items: mkfs --rootdir's commit (the generation after mkfs)
gen=$("$BTRFS" inspect-internal dump-super "$img0" | awk '$1 == "generation" { print $2 }')
fresh() { cp --sparse=always "$img0" "$T/img"; }
leaf_of() { # TREE: bytenr of the tree's root (a leaf on this small fs)
	"$BTRFS" inspect-internal dump-tree -t "$1" "$T/img" | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1
}
ino_of() { # NAME: inode number of the directory entry NAME
	"$BTRFS" inspect-internal dump-tree -t 5 "$T/img" |
		awk -v n="$1" '/location key/ { ino = $3; sub(/\(/, "", ino) } $1 == "name:" && $2 == n { print ino; exit }'
}
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
le64() { printf '%s\\x00\\x00\\x00\\x00' "$(le32 "$1")"; }
bpatch() { # TREE OLD NEW
	run_check python3 "$patch" "$T/img" 16384 "$(leaf_of "$1")" "$2" "$3" > /dev/null
}
# the corruptions; each names what our check then reports
nlink() { bpatch 5 "$(le32 1)$(le32 4242)$(le32 4343)" "$(le32 3)$(le32 4242)$(le32 4343)"; }
nbytes() { bpatch 5 "$(le64 6)$(le64 6)$(le64 0)$(le32 1)$(le32 4242)" "$(le64 6)$(le64 7)$(le64 0)$(le32 1)$(le32 4242)"; }
isize() { bpatch 5 "$(le64 12)$(le64 0)$(le64 0)$(le32 1)$(le32 4545)" "$(le64 40)$(le64 0)$(le64 0)$(le32 1)$(le32 4545)"; }
# /data grows by 8 KiB that no extent covers (the filesystem has no NO_HOLES)
tail_hole() { bpatch 5 "$(le64 65536)$(le64 65536)$(le64 0)$(le32 1)$(le32 4747)" "$(le64 73728)$(le64 65536)$(le64 0)$(le32 1)$(le32 4747)"; }
qgroup() {
	local rfer
	rfer=$("$BTRFS" inspect-internal dump-tree -t quota "$T/img" | awk '/QGROUP_INFO 0\/5/ { f = 1 } f && $1 == "referenced" { print $2; exit }')
	[ -n "$rfer" ] || _fail "no qgroup 0/5 info item"
	bpatch quota "$(le64 "$rfer")$(le64 "$rfer")$(le64 "$rfer")" "$(le64 $((rfer + 4096)))$(le64 "$rfer")$(le64 $((rfer - 4096)))"
}
# the hole extent in the middle of /sparse (the fs side of a lost file extent)
lost_hole() { run_check "$DEL" "$T/img" 5 "$(ino_of sparse)" 108 4096; }
lost_index() { run_check "$DEL" "$T/img" 5 "$(ino_of dir)" 96 2; }          # dir/a's DIR_INDEX
lost_ref() { run_check "$DEL" "$T/img" 5 "$(ino_of b)" 12 "$(ino_of dir)"; }  # dir/b's INODE_REF

repair_clean() { # WHAT: --repair exits 0 naming WHAT, then our check and Debian's are clean
	expect_exit 0 "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
	assert_grep "$1" "$T/rep"
	assert_grep "^Repair committed" "$T/rep"
	expect_exit 0 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
	if [ -x /usr/bin/btrfs ]; then
		/usr/bin/btrfs check "$T/img" > "$T/out" 2>&1 || { cat "$T/out" >&2; _fail "Debian's check finds errors after repairing $1"; }
	fi
}
case_() { # CORRUPT FOUND REPAIRED
	fresh
	$1
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
	assert_grep "$2" "$T/err"
	repair_clean "$3"
	echo "ok: $1 repaired"
}
case_ nlink "nlink 3, 1 names found (link count wrong)" "nlink set to 1"
case_ nbytes "nbytes 7, its file extents account 6 (nbytes wrong)" "nbytes set to 6"
case_ isize "directory isize 40, its entries' names sum to 12 (dir isize wrong)" "isize set to 12"
case_ tail_hole "hole \[65536 73728) up to isize 73728 without a hole extent" "hole file extent \[65536 73728) added"
case_ lost_hole "hole \[4096 12288) without a hole extent" "hole file extent \[4096 12288) added"
case_ lost_index "directory has no dir index for it" "dir index 'a' (index 2) for inode [0-9]* added"
case_ lost_ref "dir item 'b' (index 0) points to inode [0-9]*, which has no inode ref for it" "inode ref 'b' (dir [0-9]* index 3) added"
case_ qgroup "Counts for qgroup id: 0/5 are different" "Repair qgroup 0/5: referenced"

# a wrong dir index name (the entry of another name in its place): replaced
fresh
ia=$(ino_of a)
bpatch 5 "$(le64 "$ia")\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00$(le64 "$gen")\\x00\\x00\\x01\\x00\\x01a" \
	"$(le64 "$ia")\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00$(le64 "$gen")\\x00\\x00\\x01\\x00\\x01z"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
repair_clean "dir index 'z' (index 2) for inode $ia deleted"
assert_grep "dir index 'a' (index 2) for inode $ia added" "$T/rep"
echo "ok: wrong dir index name repaired"

# a dir index's file type that is not the inode's (7, symlink, for a regular file)
fresh
bpatch 5 "$(le64 "$ia")\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00$(le64 "$gen")\\x00\\x00\\x01\\x00\\x01a" \
	"$(le64 "$ia")\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00$(le64 "$gen")\\x00\\x00\\x01\\x00\\x07a"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
assert_grep "dir index 'a' for inode $ia has file type 7, the inode's mode 0100644 means 1" "$T/err"
repair_clean "dir index 'a' for inode $ia: file type set to 1"
echo "ok: wrong file type repaired"

# dir/b unlinked without its orphan item: all three names gone, nlink 0
fresh
ib=$(ino_of b) idir=$(ino_of dir)
hb=$("$BTRFS" inspect-internal dump-tree -t 5 "$T/img" | awk -v d="$idir" '$4 == "(" d && $5 == "DIR_ITEM" { k = $6; next } $1 == "item" { k = "" } $1 == "name:" && $2 == "b" && k { print k; exit }')
[ -n "$hb" ] || _fail "no dir item for b"
run_check "$DEL" "$T/img" 5 "$ib" 12 "$idir" "$idir" 96 3 "$idir" 84 "$hb"
bpatch 5 "$(le64 3)$(le64 3)$(le64 0)$(le32 1)" "$(le64 3)$(le64 3)$(le64 0)$(le32 0)"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
assert_grep "inode $ib: nlink 0 and no names, but no orphan item" "$T/err"
repair_clean "inode $ib: orphan item added"
echo "ok: unlinked inode given its orphan item"

# dir/b keeps nlink 1 but only its dir item names it (ref and dir index lost):
# the dir item is deleted and the inode linked into a new lost+found
fresh
run_check "$DEL" "$T/img" 5 "$ib" 12 "$idir" "$idir" 96 3
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
assert_grep "inode $ib: nlink 1, 0 names found (link count wrong)" "$T/err"
repair_clean "inode $ib: no name proven, linked into lost+found (inode [0-9]*) as '$ib'"
assert_grep "dir item 'b' (index 0) for inode $ib deleted" "$T/rep"
assert_grep "lost+found created" "$T/rep"
echo "ok: a file with no name proven linked into lost+found"

# lost inode items of a directory and of a file with data: recreated from their
# names, entries and extents
fresh
run_check "$DEL" "$T/img" 5 "$idir" 1 0 "$(ino_of data)" 1 0
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
assert_grep "inode $idir: no inode item, but 1 names and other items" "$T/err"
repair_clean "inode $idir: inode item recreated (mode 040755, nlink 1, size 12)"
assert_grep "inode $(ino_of data): inode item recreated (mode 0100644, nlink 1, size 65536)" "$T/rep"
echo "ok: lost inode items recreated"

# what cannot be mended leaves the image as it was: a file extent overlapping another
fresh
bpatch 5 "$(le64 8192)\\x00\\x00\\x00\\x00\\x01$(le64 0)$(le64 0)$(le64 0)$(le64 8192)" \
	"$(le64 12288)\\x00\\x00\\x00\\x00\\x01$(le64 0)$(le64 0)$(le64 0)$(le64 12288)"
cp "$T/img" "$T/before"
expect_exit 1 "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
assert_grep "is not implemented; nothing was written" "$T/rep"
cmp -s "$T/img" "$T/before" || _fail "a refused repair changed the image"
echo "ok: unrepairable damage left untouched"

# quotas follow the repair's own tree blocks: 400 files grown past their one
# extent get a hole item each, which splits leaves of the fs tree (mkfs
# --rootdir fills leaves as the kernel does, not packed full); qgroup 0/5
# then accounts the new blocks
mkdir -p "$T/many"
for i in $(seq 1 400); do head -c 4096 "$src/data" > "$T/many/file_with_a_long_name_$i"; done
chown 5000:5001 "$T/many"/*
run_check "$TOP/mkfs.btrfs" -q -f -O quota,^no-holes,^block-group-tree -r "$T/many" -b 256M "$T/img" > /dev/null
# every copy of every fs tree leaf: size 4096 -> 8192 in the inode items of uid 5000
python3 - "$T/img" "$TOP/tests/lib" <<'PY' || _fail "cannot patch the inode items"
import struct, sys
sys.path.insert(0, sys.argv[2])
from blockpatch import crc32c
old = struct.pack('<QQQII', 4096, 4096, 0, 1, 5000)
new = struct.pack('<QQQII', 8192, 4096, 0, 1, 5000)
n = 0
with open(sys.argv[1], 'r+b') as f:
    img = f.read()
    for off in range(0, len(img) - 16384, 4096):
        blk = img[off:off + 16384]
        if int.from_bytes(blk[0x58:0x60], 'little') != 5 or blk[0x64] != 0 or \
           crc32c(blk[32:]) != int.from_bytes(blk[0:4], 'little') or old not in blk:
            continue
        blk = bytearray(blk.replace(old, new))
        blk[0:4] = crc32c(bytes(blk[32:])).to_bytes(4, 'little')
        f.seek(off)
        f.write(blk)
        n += blk.count(new)
assert n >= 400, n
PY
blocks() { "$BTRFS" inspect-internal dump-tree -t 5 "$T/img" | grep -c '^\(leaf\|node\) [0-9]* items'; }
nodes0=$(blocks)
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
repair_clean "qgroup 0/5: +[0-9]* bytes of tree blocks the repair added or removed"
[ "$(grep -c 'hole file extent \[4096 8192) added' "$T/rep")" = 400 ] || _fail "not 400 holes added"
nodes1=$(blocks)
[ "$nodes1" -gt "$nodes0" ] || _fail "fs tree blocks $nodes0 -> $nodes1, expected more"
assert_grep "qgroup 0/5: +$(((nodes1 - nodes0) * 16384)) bytes of tree blocks" "$T/rep"
echo "ok: leaves split by the repair are accounted in qgroup 0/5 ($nodes0 -> $nodes1 blocks)"

# everything at once, then the kernel reads it all
fresh
for c in lost_hole lost_index lost_ref; do $c; done
for c in nbytes nlink isize tail_hole qgroup; do $c; done   # nbytes first: its pattern holds nlink 1
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
repair_clean "Repair qgroup 0/5"
echo "ok: all at once repaired"

check_prereq root loop btrfs-kernel
dev=$(setup_loopdev "$T/img")
track_loopdev "$dev"
mount_tracked "$dev" "$T/mnt"
for f in dir/file dir/a dir/b sparse; do
	cmp "$src/$f" "$T/mnt/$f" || _fail "the kernel reads $f differently after the repair"
done
{ cat "$src/data"; head -c 8192 /dev/zero; } | cmp - "$T/mnt/data" || _fail "the kernel reads data differently"
[ "$(stat -c %h "$T/mnt/dir/b")" = 1 ] || _fail "dir/b has $(stat -c %h "$T/mnt/dir/b") links"
[ "$(ls "$T/mnt/dir" | tr '\n' ' ')" = "a b file " ] || _fail "dir lists: $(ls "$T/mnt/dir")"
echo more > "$T/mnt/dir/new"
umount "$T/mnt" || _fail "umount failed"
expect_exit 0 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
echo "ok: the kernel reads the repaired filesystem and writes to it; check stays clean"

# a repair in a snapshotted tree moves shared blocks: the numbers are marked inconsistent
mount_tracked "$dev" "$T/mnt"
run_check btrfs subvolume snapshot "$T/mnt" "$T/mnt/snap" > /dev/null
umount "$T/mnt" || _fail "umount failed"
nlink
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
repair_clean "Quota groups marked inconsistent"
"$BTRFS" inspect-internal dump-tree -t quota "$T/img" > "$T/quota"
assert_grep "flags ON|INCONSISTENT" "$T/quota"
echo "ok: a repair in a snapshotted tree marks the quota numbers inconsistent"
