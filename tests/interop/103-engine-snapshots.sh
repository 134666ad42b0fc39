#!/bin/bash
# Blocks shared with snapshots.  (1) The kernel snapshots a top-level
# subvolume holding only metadata (engine-made empty files); the engine
# then writes into the original and into the snapshot: shared nodes and
# leaves are copied with their back references moved as the kernel does
# (SHARED_BLOCK_REF + FULL_BACKREF for the owner's copy, TREE_BLOCK_REF for
# the other tree's), Debian's btrfs check (which verifies every back
# reference) is clean, the kernel sees both trees, writes into both, and
# the engine goes on writing on what the kernel left.  (2) The same with
# shared leaves referencing file data (small files, a reflink, a big
# file): data back references moved, data reads back equal in both trees.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/engine-helpers.sh"
check_prereq root loop btrfs-kernel progs
need_tool FILL engine-fill

loop_images 2 512M
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
entries_seen 4501 "$T/mnt2" "top level"
entries_seen 4600 "$T/mnt2/snap" "snapshot"
[ -e "$T/mnt2/s499" ] && [ ! -e "$T/mnt2/snap/s1" ] && [ -e "$T/mnt2/snap/t599" ] &&
	[ ! -e "$T/mnt2/t1" ] || _fail "files in the wrong subvolume"
echo top > "$T/mnt2/s1" && echo snap > "$T/mnt2/snap/t1" || _fail "kernel writes failed"
umount "$T/mnt2" || _fail "umount failed"
progs_check "$dev"
run_check "$FILL" -n 300 -c 1 -p u -s 256 "$dev"
run_check "$FILL" -n 300 -c 1 -p u "$dev"
progs_check "$dev"

# (2) shared leaves referencing file data (small files, a reflink, a big file):
# their data extents get SHARED_DATA_REF / EXTENT_DATA_REF moved too
dev=${LOOPS[1]}
run_check "$TOP/mkfs.btrfs" -f -q -n 4096 "$dev"
run_check "$FILL" -n 4000 -c 1 "$dev"
mount_tracked "$dev" "$T/mnt3"
for i in $(seq 1 200); do head -c 8192 /dev/urandom > "$T/mnt3/data$i"; done
cp --reflink=always "$T/mnt3/data1" "$T/mnt3/reflink1" || _fail "reflink failed"
dd if=/dev/urandom of="$T/mnt3/big" bs=1M count=20 status=none || _fail "write failed"
sync
run_check "$PROGS_BTRFS" subvolume snapshot "$T/mnt3" "$T/mnt3/snap" > /dev/null
(cd "$T/mnt3" && sha256sum data* big reflink1) > "$T/sums"
umount "$T/mnt3" || _fail "umount failed"
progs_check "$dev"
run_check "$FILL" -n 1500 -c 2 -x -d 100 -p s "$dev"
"$PROGS_BTRFS" inspect-internal dump-tree -t extent "$dev" > "$T/extent2"
assert_grep 'shared data backref parent' "$T/extent2"
progs_check "$dev"
run_check "$FILL" -n 1500 -c 2 -x -d 100 -p t -s 256 "$dev"
"$PROGS_BTRFS" inspect-internal dump-tree -t extent "$dev" > "$T/extent3"
assert_grep 'extent data backref root 256 ' "$T/extent3"
progs_check "$dev"
mount_tracked "$dev" "$T/mnt4"
(cd "$T/mnt4" && sha256sum -c --quiet "$T/sums") || _fail "top level data differs"
(cd "$T/mnt4/snap" && sha256sum -c --quiet "$T/sums") || _fail "snapshot data differs"
rm "$T/mnt4/data5" "$T/mnt4/snap/data6" && echo x >> "$T/mnt4/snap/big" || _fail "kernel changes failed"
umount "$T/mnt4" || _fail "umount failed"
progs_check "$dev"
echo ok
