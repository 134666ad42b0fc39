#!/bin/bash
# The main job: -d raid1c3 -m raid1c4 on four loop devices mounts, takes
# 300 MiB and 500 files on all devices (1 GiB each), and passes btrfs-progs' check
# before and after.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

loop_images 4 1G
run_check "$TOP/mkfs.btrfs" -f -d raid1c3 -m raid1c4 "${LOOPS[@]}" > "$T/mkfs.out"
assert_grep '^  Data:             RAID1C3         136.50MiB$' "$T/mkfs.out"
assert_grep '^  Metadata:         RAID1C4' "$T/mkfs.out"
assert_grep '^Number of devices:  4$' "$T/mkfs.out"
progs_check "${LOOPS[@]}"
"$PROGS_BTRFS" inspect-internal dump-super "${LOOPS[3]}" > "$T/super"
assert_grep 'RAID1C34' "$T/super"
assert_grep '^num_devices[[:space:]]*4$' "$T/super"
assert_grep '^dev_item.devid[[:space:]]*4$' "$T/super"
run_check "$BTRFS" inspect-internal dump-super "${LOOPS[0]}" > "$T/our-super"
assert_grep 'RAID1C34' "$T/our-super"
"$PROGS_BTRFS" inspect-internal dump-tree -t chunk "${LOOPS[0]}" > "$T/chunks"
assert_grep 'type SYSTEM|RAID1C4' "$T/chunks"
assert_grep 'type METADATA|RAID1C4' "$T/chunks"
assert_grep 'type DATA|RAID1C3' "$T/chunks"
mount_and_fill 300 "${LOOPS[@]}"
progs_check "${LOOPS[@]}"
forget_devices
echo ok
