#!/bin/bash
# Blocks shared with snapshots.  (1) The kernel snapshots a top-level
# subvolume holding only metadata (engine-made empty files); the engine
# then writes into the original and into the snapshot: shared nodes and
# leaves are copied with their back references moved as the kernel does
# (SHARED_BLOCK_REF + FULL_BACKREF for the owner's copy, TREE_BLOCK_REF for
# the other tree's), Debian's btrfs check (which verifies every back
# reference) is clean, the kernel sees both trees, writes into both, and
# the engine goes on writing on what the kernel left.  (2) A shared leaf
# that references file data is refused with a message naming the leaf,
# before anything is written: superblock byte-identical, check clean.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs
FILL=$TOOL_DIR/engine-fill
[ -x "$FILL" ] || _skip "engine-fill not built (make unit-bins)"

mk_images 2 512M
attach_images 2
dev=${LOOPS[0]}
run_check "$TOP/mkfs.btrfs" -f -q -n 4096 "$dev"
run_check "$FILL" -n 4000 -c 2 "$dev"
mount_tracked "$dev" "$T/mnt"
run_check "$PROGS_BTRFS" subvolume snapshot "$T/mnt" "$T/mnt/snap" > /dev/null
umount "$T/mnt" || _fail "umount failed"
progs_check "$dev"
run_check "$FILL" -n 600 -c 2 -x -d 100 -p s "$dev"
progs_check "$dev"
"$PROGS_BTRFS" inspect-internal dump-tree -t extent "$dev" > "$T/extent"
assert_grep 'FULL_BACKREF' "$T/extent"
assert_grep 'shared block backref parent' "$T/extent"
run_check "$FILL" -n 800 -c 2 -x -d 200 -p t -s 256 "$dev"
progs_check "$dev"
mount_tracked "$dev" "$T/mnt2"
n=$(ls "$T/mnt2" | wc -l)
[ "$n" -eq 4501 ] || _fail "top level has $n entries, expected 4501"
n=$(ls "$T/mnt2/snap" | wc -l)
[ "$n" -eq 4600 ] || _fail "snapshot has $n entries, expected 4600"
[ -e "$T/mnt2/s499" ] && [ ! -e "$T/mnt2/snap/s1" ] && [ -e "$T/mnt2/snap/t599" ] &&
	[ ! -e "$T/mnt2/t1" ] || _fail "files in the wrong subvolume"
echo top > "$T/mnt2/s1" && echo snap > "$T/mnt2/snap/t1" || _fail "kernel writes failed"
umount "$T/mnt2" || _fail "umount failed"
progs_check "$dev"
run_check "$FILL" -n 300 -c 1 -p u -s 256 "$dev"
run_check "$FILL" -n 300 -c 1 -p u "$dev"
progs_check "$dev"

# (2) shared leaf with file data: refused
dev=${LOOPS[1]}
run_check "$TOP/mkfs.btrfs" -f -q -n 4096 "$dev"
run_check "$FILL" -n 4000 -c 1 "$dev"
mount_tracked "$dev" "$T/mnt3"
dd if=/dev/urandom of="$T/mnt3/data" bs=64K count=16 status=none || _fail "write failed"
sync
run_check "$PROGS_BTRFS" subvolume snapshot "$T/mnt3" "$T/mnt3/snap" > /dev/null
umount "$T/mnt3" || _fail "umount failed"
progs_check "$dev"
sum_before=$(dd if="$dev" bs=4096 skip=16 count=1 status=none | sha256sum)
run_mustfail "a shared leaf references file data" "$FILL" -n 100 -c 1 -p s "$dev" 2> "$T/err"
assert_grep 'is shared .*references file data' "$T/err"
sum_after=$(dd if="$dev" bs=4096 skip=16 count=1 status=none | sha256sum)
[ "$sum_before" = "$sum_after" ] || _fail "the superblock changed after the refusal"
progs_check "$dev"
echo ok
