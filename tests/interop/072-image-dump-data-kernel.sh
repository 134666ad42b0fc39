#!/bin/bash
# btrfs image -d on a kernel-written filesystem (run under
# flock /tmp/btrfs-kit-loop.lock): inline files, random data, zlib and zstd
# compressed files (mount option and per-file property), reflinked copies
# (a shared extent, dumped once), a preallocated file and a sparse one, a
# snapshot.  For -c0 and -c9 -t2: our restore of the dump mounts read-only in
# the kernel and every file reads back identical (sha256 of every file
# against the original mount, inline data included: btrfs-image's v1 dumps
# zero it), and our check --check-data-csum and Debian's check pass on it.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/image-data.sh"
check_prereq root loop btrfs-kernel progs python3

mkfs_mounted 512M compress=zstd
dev=${LOOPS[0]}
fill_data_kinds "$T/mnt"
tree_sums "$T/mnt" > "$T/orig.sums"
[ "$(wc -l < "$T/orig.sums")" -gt 400 ] || _fail "too few files summed"
umount "$T/mnt" || _fail "umount failed"

for opt in -c0 "-c9 -t2"; do
	rm -f "$T"/*.raw "$T"/*.dump
	run_check "$BTRFS" image -d $opt "$dev" "$T/data.dump"
	run_check "$BTRFS" image -r "$T/data.dump" "$T/data.raw"
	run_check "$BTRFS" check --check-data-csum "$T/data.raw" > "$T/check.log" 2>&1
	run_check /usr/bin/btrfs check --check-data-csum "$T/data.raw" > "$T/check.log" 2>&1
	rdev=$(setup_loopdev "$T/data.raw")
	track_loopdev "$rdev"
	mount_tracked "$rdev" "$T/rmnt" ro
	tree_sums "$T/rmnt" > "$T/restored.sums"
	umount "$T/rmnt" || _fail "umount failed"
	losetup -d "$rdev"
	diff "$T/orig.sums" "$T/restored.sums" >&8 || _fail "$opt: files of the restored image differ"
done
echo "-d dumps (-c0, -c9 -t2) restored: kernel reads every file identical (inline, compressed, reflinked, prealloc, sparse, snapshot), both checks pass"
