#!/bin/bash
# Blocks shared with a snapshot: the kernel snapshots the top-level
# subvolume, and engine-fill on it is refused with a message naming the
# shared block, before anything is written: superblock byte-identical,
# btrfs check clean, files and snapshot intact.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs
FILL=$TOOL_DIR/engine-fill
[ -x "$FILL" ] || _skip "engine-fill not built (make unit-bins)"

mk_images 1 512M
attach_images 1
run_check "$TOP/mkfs.btrfs" -f -q -n 4096 "${LOOPS[0]}"
run_check "$FILL" -n 4000 -c 2 "${LOOPS[0]}"
mount_tracked "${LOOPS[0]}" "$T/mnt"
run_check "$PROGS_BTRFS" subvolume snapshot "$T/mnt" "$T/mnt/snap" > /dev/null
umount "$T/mnt" || _fail "umount failed"
progs_check "${LOOPS[0]}"
sum_before=$(dd if="${LOOPS[0]}" bs=4096 skip=16 count=1 status=none | sha256sum)
run_mustfail "the fs tree is shared with a snapshot" "$FILL" -n 100 -c 1 -p s "${LOOPS[0]}" 2> "$T/err"
assert_grep 'is shared' "$T/err"
assert_grep 'not supported' "$T/err"
sum_after=$(dd if="${LOOPS[0]}" bs=4096 skip=16 count=1 status=none | sha256sum)
[ "$sum_before" = "$sum_after" ] || _fail "the superblock changed after the refusal"
progs_check "${LOOPS[0]}"
mount_tracked "${LOOPS[0]}" "$T/mnt2"
n=$(ls "$T/mnt2/snap" | wc -l)
[ "$n" -eq 4000 ] || _fail "snapshot has $n files, expected 4000"
umount "$T/mnt2" || _fail "umount failed"
echo ok
