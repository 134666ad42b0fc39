#!/bin/bash
# btrfs image -d from kernel-written multi-device filesystems (run under
# flock /tmp/btrfs-kit-loop.lock): 2-device RAID1, 3-device RAID1C3 and
# 3-device RAID10 data (metadata RAID1/RAID1C3), every kind of file data
# (tests/lib/image-data.sh):
# - dumping the first device alone (the others found by libblkid scanning
#   of the loop devices) gives the same dump as naming every device;
# - then, the source devices detached: the dump restored onto one target
#   and with -m onto as many targets as devices passes our check
#   --check-data-csum and Debian's check, mounts read-only in the kernel and
#   every file reads back identical (sha256 against the original mount).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/image-data.sh"
check_prereq root loop btrfs-kernel progs python3

# restored_mount_sums DEV...: mount the restored DEVs read-only, compare every file's sha256
restored_mount_sums() {
	local opts
	opts=$(device_opts "$@")
	"$PROGS_BTRFS" device scan "$@" > /dev/null 2>&1
	mount_tracked "$1" "$T/rmnt" "ro,$opts"
	tree_sums "$T/rmnt" > "$T/restored.sums"
	umount "$T/rmnt" || _fail "umount failed"
	diff "$T/orig.sums" "$T/restored.sums" >&8 || _fail "$name: files of the restored image differ"
}

n=0
for cfg in "2 raid1 raid1" "3 raid1c3 raid1c3" "3 raid10 raid1"; do
	read -r nd dprof mprof <<< "$cfg"
	name="$nd-device $dprof"
	rm -f "$T"/*.raw "$T"/*.dump "$T"/t*.img
	loop_images "$nd" 512M
	run_check "$TOP/mkfs.btrfs" -f -d "$dprof" -m "$mprof" "${LOOPS[@]}" > /dev/null
	"$PROGS_BTRFS" device scan "${LOOPS[@]}" > /dev/null 2>&1
	mount_tracked "${LOOPS[0]}" "$T/mnt" "compress=zstd,$(device_opts "${LOOPS[@]}")"
	fill_data_kinds "$T/mnt"
	tree_sums "$T/mnt" > "$T/orig.sums"
	[ "$(wc -l < "$T/orig.sums")" -gt 400 ] || _fail "$name: too few files summed"
	umount "$T/mnt" || _fail "umount failed"

	run_check "$BTRFS" image -d -c9 "${LOOPS[0]}" "$T/scanned.dump"
	run_check "$BTRFS" image -d -c9 "${LOOPS[@]}" "$T/named.dump"
	cmp "$T/scanned.dump" "$T/named.dump" || _fail "$name: the dump of the first device differs from the one naming all"
	for l in "${LOOPS[@]}"; do losetup -d "$l" || _fail "losetup -d $l"; done
	forget_devices

	run_check "$BTRFS" image -r "$T/named.dump" "$T/one.raw"
	run_check "$BTRFS" check --check-data-csum "$T/one.raw" > "$T/check.log" 2>&1
	run_check /usr/bin/btrfs check --check-data-csum "$T/one.raw" > "$T/check.log" 2>&1
	rdev=$(setup_loopdev "$T/one.raw")
	track_loopdev "$rdev"
	restored_mount_sums "$rdev"
	losetup -d "$rdev"
	forget_devices

	targets=()
	for ((i = 1; i <= nd; i++)); do targets+=("$T/t$i.img"); done
	run_check "$BTRFS" image -m "$T/named.dump" "${targets[@]}"
	run_check "$BTRFS" check --check-data-csum "${targets[@]}" > "$T/check.log" 2>&1
	rdevs=()
	for t in "${targets[@]}"; do
		rdev=$(setup_loopdev "$t")
		track_loopdev "$rdev"
		rdevs+=("$rdev")
	done
	progs_check "${rdevs[@]}"
	restored_mount_sums "${rdevs[@]}"
	for l in "${rdevs[@]}"; do losetup -d "$l"; done
	forget_devices
	n=$((n + 1))
done
echo "$n multi-device filesystems: first device alone dumps as all named; -d restores onto one and with -m pass both checks, kernel reads every file identical"
