#!/bin/bash
# A tree block that a subvolume and its snapshot share, its header flags
# damaged (no WRITTEN bit, unknown bits; the checksum recomputed): check
# finds it (exit 1) and --repair copies it on write in every subvolume that
# reaches it, not only in the one whose walk found it (the re-check found
# the snapshot still reaching the old block, and the repair refused); then
# our check and Debian's are clean and the kernel mounts it and reads every
# file back unchanged.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs
need_corrupt_block

shared_leaves() { # a subvolume of 300 files (its tree has leaves below its root) and its snapshot
	local i
	"$PROGS_BTRFS" subvolume create "$T/mnt/sv" > /dev/null || _fail "subvolume create"
	for i in $(seq 1 300); do echo "file $i" > "$T/mnt/sv/f$i"; done
	"$PROGS_BTRFS" subvolume snapshot "$T/mnt/sv" "$T/mnt/snap" > /dev/null || _fail "snapshot"
}
base=$T/base.img
kernel_base shared_leaves "$base" "$T/orig"   # (the originals: subvolumes, not snapshots: the snapshot holds what sv holds)

# a leaf of the subvolume (256) below its root: the snapshot (257) shares it
item_key key "$base" "deep inode item in the subvolume" '$1 == 256 && $2 ~ /,1,0$/ { n++ } n == 100 { print $2; exit }'
for value in -1 +4; do
	damaged_repaired "$base" "$T/orig" "lacks the WRITTEN header flag\|unknown header flags" \
		"Tree block [0-9]* of tree 257: header flags rewritten, copied to" header 256 "$key" flags "$value"
	assert_grep "Tree block [0-9]* of tree 256: header flags rewritten, copied to" "$T/repair"
	kernel_mount "$T/img"
	diff -r "$T/orig/sv" "$T/mnt/sv" > /dev/null || _fail "flags $value: the subvolume reads back changed"
	diff -r "$T/orig/sv" "$T/mnt/snap" > /dev/null || _fail "flags $value: the snapshot reads back changed"
	kernel_umount
	echo "ok: a shared leaf's header flags $value: copied in the subvolume and its snapshot"
done
