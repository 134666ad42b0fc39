#!/bin/bash
# A write error in the middle of an offline convert (issue 37): the devices are sparse image
# files on a small tmpfs, so a write into a hole fails with ENOSPC partway through the copy.
# The convert stops naming the chunk, says how many chunks were converted and to run it
# again, exits 1, and leaves the filesystem as a kill would: our check (data checksums
# included) and Debian's are clean.  With room again the same command finishes the convert.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

mkdir -p "$T/root" "$T/small"
for i in $(seq 1 6); do head -c 20M /dev/urandom > "$T/root/f$i"; done
for i in $(seq 1 100); do echo "small $i" > "$T/root/s$i"; done
mount -t tmpfs -o size=180M tmpfs "$T/small" || _skip "cannot mount a tmpfs"
_cleanup_mounts+=("$T/small")
imgs=("$T/small/a.img" "$T/small/b.img")
truncate -s 600M "${imgs[@]}"
run_check "$TOP/mkfs.btrfs" -q -f -d single -m raid1 -r "$T/root" "${imgs[@]}"
(cd "$T/root" && sha256sum ./*) > "$T/sums"

expect_exit 1 "$BTRFS" balance start -dconvert=raid1 "${imgs[@]}" > "$T/out" 2>&1
cat "$T/out"
assert_grep "No space left on device" "$T/out"
assert_grep "^ERROR: converting chunk [0-9]* (single -> RAID1) failed: [0-9]* of [0-9]* chunks were converted; each chunk is in its old or its new layout and the filesystem consistent, as after a kill: run the same command again to continue" "$T/out"
run_check "$BTRFS" check --check-data-csum "${imgs[@]}" > /dev/null 2>&1

mount -o remount,size=900M "$T/small" || _fail "tmpfs remount"
run_check "$BTRFS" balance start -dconvert=raid1 "${imgs[@]}" > "$T/out" 2>&1
assert_grep '^Done, had to convert [1-9]' "$T/out"
run_check "$BTRFS" check --check-data-csum "${imgs[@]}" > /dev/null 2>&1
# the kernel reads copies outside the tmpfs (a loop device would keep it busy at cleanup)
cp --sparse=always "${imgs[@]}" "$T/"
umount "$T/small" || _fail "umount tmpfs"
LOOPS=()
for f in "$T/a.img" "$T/b.img"; do
	l=$(setup_loopdev "$f")
	track_loopdev "$l"
	LOOPS+=("$l")
done
progs_check "${LOOPS[@]}"
mkdir -p "$T/mnt"
mount_tracked "${LOOPS[0]}" "$T/mnt" "ro,$(device_opts "${LOOPS[@]}")"
(cd "$T/mnt" && sha256sum -c --quiet "$T/sums") || _fail "files changed"
echo ok
