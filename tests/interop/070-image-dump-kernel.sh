#!/bin/bash
# btrfs image (create) on kernel-written filesystems (run under
# flock /tmp/btrfs-kit-loop.lock): no free space tree, mounted with
# space_cache=v1, filled by the kernel with files, a snapshot and compressed
# files.  (Kernel 6.18 writes no v1 cache files there: the root tree holds no
# EXTENT_DATA, so the space cache part of the dump is not exercised here.)
# - mounted read-write: refused (exit 1, "mounted read-write"); mounted
#   read-only: dumped with a warning;
# - unmounted, -c9 and -w: our dump equals Debian's btrfs-image dump (same_dump:
#   -w byte for byte but for the stale index bytes, -c9 once inflated), the
#   restores (Debian's of ours, ours of ours) equal Debian's restore of its
#   dump, both checks pass on the restored image and the kernel mounts it
#   read-only and lists the files.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3 tools
[ -x /usr/bin/btrfs-image ] || _skip "Debian's btrfs-image not installed"
CMP=$SHARED/tools/sparse-cmp.py

mkfs_mounted 512M space_cache=v1,compress=zlib -O ^free-space-tree,^block-group-tree
dev=${LOOPS[0]}
mkdir -p "$T/mnt/dir"
for i in $(seq 1 300); do echo "file $i" > "$T/mnt/dir/f$i"; done
head -c 3000000 /dev/zero > "$T/mnt/compressed"
dd if=/dev/urandom of="$T/mnt/data" bs=1M count=8 status=none
"$PROGS_BTRFS" subvolume snapshot "$T/mnt" "$T/mnt/snap" > /dev/null || _fail "snapshot failed"
echo more > "$T/mnt/dir/after-snapshot"
sync
expect_exit 1 "$BTRFS" image "$dev" "$T/x.dump" 2> "$T/err"
assert_grep "mounted read-write" "$T/err"
mount -o remount,ro "$T/mnt" || _fail "remount ro failed"
run_check "$BTRFS" image "$dev" "$T/ro.dump" 2> "$T/err"
assert_grep "mounted read-only" "$T/err"
umount "$T/mnt" || _fail "umount failed"

for opt in -c9 -w; do
	rm -f "$T"/*.raw
	run_check "$BTRFS" image $opt "$dev" "$T/ours.dump"
	run_check /usr/bin/btrfs-image $opt "$dev" "$T/deb.dump" 2> /dev/null
	same_dump "$T/ours.dump" "$T/deb.dump" "$opt"
	debian_restore "$T/ours.dump" "$T/deb-of-ours.raw"
	debian_restore "$T/deb.dump" "$T/deb-of-deb.raw"
	run_check "$BTRFS" image -r "$T/ours.dump" "$T/ours-of-ours.raw"
	for r in deb-of-ours ours-of-ours; do
		python3 "$CMP" "$T/deb-of-deb.raw" "$T/$r.raw" > "$T/cmp" ||
			{ cat "$T/cmp" >&8; _fail "$opt: $r.raw differs from Debian's restore"; }
	done
	run_check "$BTRFS" check "$T/ours-of-ours.raw" > /dev/null 2>&1
	run_check /usr/bin/btrfs check "$T/ours-of-ours.raw" > /dev/null 2>&1
done
rdev=$(setup_loopdev "$T/ours-of-ours.raw")
track_loopdev "$rdev"
mount_tracked "$rdev" "$T/rmnt" ro
[ -e "$T/rmnt/dir/f300" ] && [ -e "$T/rmnt/snap/dir/f1" ] || _fail "restored filesystem lacks its files"
echo "mounted rw refused, ro dumped; -c9/-w dumps equal Debian's, restores equal, both checks, kernel mounts the restore"
