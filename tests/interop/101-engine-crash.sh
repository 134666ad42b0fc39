#!/bin/bash
# Crash safety of the write engine: a commit that writes every new tree
# block, flushes, and then fails before the superblock (engine-fill -F)
# leaves the previous generation intact: same superblock generation, btrfs
# check clean, the kernel mounts it and sees exactly the committed files.
# The same filesystem then takes a normal commit.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/engine-helpers.sh"
check_prereq root loop btrfs-kernel progs
need_tool FILL engine-fill

# the superblock's generation, which must be there to be compared
super_gen() {
	local g
	g=$("$BTRFS" inspect-internal dump-super "$1" | awk '$1 == "generation" {print $2}')
	[[ $g =~ ^[0-9]+$ ]] || _fail "no generation in dump-super of $1 (got '$g')"
	echo "$g"
}

loop_images 1 512M
run_check "$TOP/mkfs.btrfs" -f -q -n 4096 "${LOOPS[0]}"
run_check "$FILL" -n 3000 -c 2 "${LOOPS[0]}"
gen=$(super_gen "${LOOPS[0]}") || exit 1
sum_before=$(dd if="${LOOPS[0]}" bs=4096 skip=16 count=1 status=none | sha256sum)
expect_exit 3 "$FILL" -n 5000 -c 1 -x -p g -F "${LOOPS[0]}"
sum_after=$(dd if="${LOOPS[0]}" bs=4096 skip=16 count=1 status=none | sha256sum)
[ "$sum_before" = "$sum_after" ] || _fail "the primary superblock changed"
gen2=$(super_gen "${LOOPS[0]}") || exit 1
[ "$gen2" = "$gen" ] || _fail "generation moved from $gen to $gen2"
progs_check "${LOOPS[0]}"
mount_tracked "${LOOPS[0]}" "$T/mnt"
entries_seen 3000 "$T/mnt" "after the failed commit"
umount "$T/mnt" || _fail "umount failed"
progs_check "${LOOPS[0]}"
# and a commit that goes through
run_check "$FILL" -n 500 -c 1 -p h "${LOOPS[0]}"
gen3=$(super_gen "${LOOPS[0]}") || exit 1
[ "$gen3" -gt "$gen" ] || _fail "generation $gen3 after a good commit, was $gen"
progs_check "${LOOPS[0]}"
mount_tracked "${LOOPS[0]}" "$T/mnt2"
entries_seen 3500 "$T/mnt2" "after the next commit"
umount "$T/mnt2" || _fail "umount failed"
echo ok
