#!/bin/bash
# The write engine on multi-device filesystems: metadata RAID1 on 2
# devices, RAID10 on 4, RAID1C3 on 3.  engine-fill writes every copy of
# every block and the superblocks of every device (each keeping its own
# dev_item); Debian's btrfs check is clean, the kernel mounts it and sees
# the files, and each device's superblock names the new generation.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/engine-helpers.sh"
check_prereq root loop btrfs-kernel progs
need_tool FILL engine-fill

run_config() { # ndev mkfs-options...
	local n=$1 opts d gen; shift
	forget_devices
	loop_images "$n" 512M
	run_check "$TOP/mkfs.btrfs" -f -q "$@" "${LOOPS[@]}"
	run_check "$FILL" -n 6000 -c 3 -x -d 500 "${LOOPS[@]}" > "$T/fill.out"
	gen=$(tail -n 1 "$T/fill.out" | awk '{print $2}')
	for d in "${LOOPS[@]}"; do
		"$BTRFS" inspect-internal dump-super "$d" > "$T/super"
		assert_grep "^generation[[:space:]]*$gen$" "$T/super"
	done
	progs_check "${LOOPS[0]}"
	opts=$(device_opts "${LOOPS[@]}")
	mount_tracked "${LOOPS[0]}" "$T/mnt" "$opts"
	entries_seen 5500 "$T/mnt" "$*"
	umount "$T/mnt" || _fail "umount failed"
	progs_check "${LOOPS[0]}"
	for d in "${LOOPS[@]}"; do losetup -d "$d"; done
}

run_config 2 -m raid1 -d single
run_config 4 -m raid10 -d raid0
run_config 3 -m raid1c3 -d raid1
echo ok
