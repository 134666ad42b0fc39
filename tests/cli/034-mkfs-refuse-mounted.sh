#!/bin/bash
# A mounted device, its backing image file, or a member of a mounted
# multi-device btrfs is refused even with -f, and nothing is written.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel

loop_images 2 300M
run_check "$TOP/mkfs.btrfs" -q -f -d raid1 -m raid1 "${LOOPS[@]}"
mount_tracked "${LOOPS[0]}" "$T/mnt" "device=${LOOPS[0]},device=${LOOPS[1]}"
sync
file_sums "$T/d1.img" "$T/d2.img" > "$T/before"
for target in "${LOOPS[0]}" "${LOOPS[1]}" "$T/d1.img"; do
	expect_exit 1 "$TOP/mkfs.btrfs" -f "$target" > /dev/null 2> "$T/err"
	assert_grep "is mounted\|is in use" "$T/err"
done
file_sums "$T/d1.img" "$T/d2.img" | cmp -s - "$T/before" || _fail "mkfs wrote to a mounted device"
umount "$T/mnt"
echo ok
