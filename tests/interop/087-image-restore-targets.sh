#!/bin/bash
# btrfs image -r onto targets that must be refused or prepared: a mounted
# filesystem (its block device, or the image file behind the loop device) is
# refused with a clear message and nothing written; a block device smaller
# than the dump's device is refused before anything is written; a block
# device holding an older filesystem is restored onto (its stale superblock
# copies cleared first) and passes both checks; a new file is created sparse
# with the size of the dump's device item.  A restore of Debian's btrfs-image
# dump of an xxhash filesystem (crc32c in its blocks) mounts in the kernel.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel fsck-images
img=$(compgen -G "$SHARED/fsck-images/012-leaf-corruption--good/*.img")
[ -n "$img" ] || _fail "no dump in 012-leaf-corruption--good"

# a new file: sparse, sized from the dump's device item
rm -f "$T/new.img"
run_check "$BTRFS" image -r "$img" "$T/new.img"
size=$("$BTRFS" inspect-internal dump-super "$T/new.img" | awk '$1 == "dev_item.total_bytes" {print $2}')
[ "$(stat -c %s "$T/new.img")" = "$size" ] || _fail "the new file is not dev_item.total_bytes ($size) long"
[ $(($(stat -c %b "$T/new.img") * 512)) -lt $((size / 4)) ] || _fail "the new file is not sparse"

# mounted: by its device and by the image file behind the loop device
mkfs_mounted 300M ro -q
sum=$(head -c 2M "${LOOPS[0]}" | md5sum)
for t in "${LOOPS[0]}" "$T/d1.img"; do
	expect_exit 1 "$BTRFS" image -r "$img" "$t" 2> "$T/err"
	assert_grep "$t is mounted (or a device of a mounted filesystem): nothing written" "$T/err"
done
umount "$T/mnt" || _fail "umount failed"
[ "$(head -c 2M "${LOOPS[0]}" | md5sum)" = "$sum" ] || _fail "the mounted target was written"

# a block device holding an older filesystem: restored, both checks pass
run_check "$BTRFS" image -r "$img" "${LOOPS[0]}"
run_check "$BTRFS" check "${LOOPS[0]}" > /dev/null 2>&1
progs_check "${LOOPS[0]}"
losetup -d "${LOOPS[0]}"
forget_devices

# a block device too small for the dump's device (64 MiB): refused, untouched
rm -f "$T/small.img"
head -c 32M /dev/zero | tr '\0' 's' > "$T/small.img"
dev=$(setup_loopdev "$T/small.img"); track_loopdev "$dev"
sum=$(md5sum < "$dev")
expect_exit 1 "$BTRFS" image -r "$img" "$dev" 2> "$T/err"
assert_grep "$dev has 33554432 bytes, the dump's device 1 needs $size: nothing written" "$T/err"
[ "$(md5sum < "$dev")" = "$sum" ] || _fail "the too small device was written"
losetup -d "$dev"

# xxhash: Debian's mkfs and btrfs-image, our restore, the kernel mounts it and lists the files
if [ -x /usr/bin/btrfs-image ] && [ -x /usr/sbin/mkfs.btrfs ]; then
	mkdir -p "$T/src"
	for i in $(seq 1 50); do echo "$i" > "$T/src/f$i"; done
	rm -f "$T/x.img" "$T/xr.img"; truncate -s 300M "$T/x.img"
	run_check /usr/sbin/mkfs.btrfs -q --csum xxhash --rootdir "$T/src" "$T/x.img" > /dev/null
	run_check /usr/bin/btrfs-image "$T/x.img" "$T/x.dump"
	run_check "$BTRFS" image -r "$T/x.dump" "$T/xr.img"
	dev=$(setup_loopdev "$T/xr.img"); track_loopdev "$dev"
	mount_tracked "$dev" "$T/mnt" ro
	[ "$(ls "$T/mnt" | wc -l)" -eq 50 ] || _fail "the restored xxhash filesystem lists $(ls "$T/mnt" | wc -l) files, expected 50"
	umount "$T/mnt" || _fail "umount failed"
	losetup -d "$dev"
	echo "ok xxhash restore mounts"
fi
echo ok
