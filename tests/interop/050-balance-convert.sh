#!/bin/bash
# balance on 4 loop devices: convert data to raid1 and metadata to raid1c3, data intact,
# every chunk converted, RAID1C34 set; back to raid1 metadata needs -f and clears it.
# A convert that cannot fit is refused with nothing moved.
# Filesystems come from Debian's mkfs.btrfs for now (switch to ours once it lands).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs
PROGS=/usr/bin/btrfs
MKFS=$(command -v mkfs.btrfs.debian 2>/dev/null || echo /sbin/mkfs.btrfs)
[ -x "$MKFS" ] || _skip "no mkfs.btrfs"

loop_images 4 512M
devs=("${LOOPS[@]}")
run_check "$MKFS" -q -f -d single -m raid1 "${devs[@]}" > /dev/null
mnt=$T/mnt
mount_tracked "${devs[0]}" "$mnt"
for i in 1 2 3 4 5; do head -c 40M /dev/urandom > "$mnt/f$i"; done
mkdir "$mnt/small"; for i in $(seq 50); do echo "file $i" > "$mnt/small/$i"; done
sync
tree_sums "$mnt" > "$T/sums"

expect_exit 0 "$BTRFS" balance status "$mnt" > "$T/st"
assert_grep "No balance found on '$mnt'" "$T/st"
run_check "$BTRFS" balance start -v -mconvert=raid1c3 -dconvert=raid1 "$mnt" > "$T/out"
assert_grep '^Done, had to relocate [1-9][0-9]* out of [0-9]* chunks' "$T/out"
assert_grep 'Plan: ' "$T/out"
# soft: nothing left to convert
run_check "$BTRFS" balance start -dconvert=raid1,soft -mconvert=raid1c3,soft "$mnt" > "$T/out"
assert_grep '^Done, had to relocate 0 out of' "$T/out"
(cd "$mnt" && sha256sum -c --quiet "$T/sums") || _fail "data changed by balance"
umount "$mnt"
$PROGS inspect-internal dump-tree -t chunk "${devs[0]}" > "$T/chunks"
grep -q 'type DATA|RAID1$' "$T/chunks" || _fail "no raid1 data chunk"
grep -q 'type METADATA|RAID1C3$' "$T/chunks" || _fail "no raid1c3 metadata chunk"
grep -q 'type SYSTEM|RAID1C3$' "$T/chunks" || _fail "no raid1c3 system chunk"
n=$(grep -c 'CHUNK_ITEM' "$T/chunks"); good=$(grep -cE 'type (DATA\|RAID1|METADATA\|RAID1C3|SYSTEM\|RAID1C3)$' "$T/chunks")
[ "$n" -eq "$good" ] || _fail "$((n - good)) of $n chunks not converted"
$PROGS inspect-internal dump-super "${devs[0]}" > "$T/super"
assert_grep 'RAID1C34' "$T/super"

# Back to raid1 metadata: less redundancy, refused without -f.
mount_tracked "${devs[0]}" "$mnt"
expect_exit 1 "$BTRFS" balance start -mconvert=raid1 "$mnt" 2> "$T/err"
assert_grep 'reduces redundancy' "$T/err"
run_check "$BTRFS" balance start -f -mconvert=raid1 "$mnt" > "$T/out"
assert_grep '^Done' "$T/out"
(cd "$mnt" && sha256sum -c --quiet "$T/sums") || _fail "data changed by balance"
umount "$mnt"
$PROGS inspect-internal dump-super "${devs[0]}" > "$T/super"
assert_not_grep 'RAID1C34' "$T/super"
$PROGS inspect-internal dump-tree -t chunk "${devs[0]}" > "$T/chunks"
assert_not_grep 'RAID1C3' "$T/chunks"

# Does not fit: 2 devices of different sizes to raid1c3, and too much data for raid1.
truncate -s 512M "$T/e1.img"; truncate -s 300M "$T/e2.img"
e1=$(setup_loopdev "$T/e1.img"); track_loopdev "$e1"
e2=$(setup_loopdev "$T/e2.img"); track_loopdev "$e2"
run_check "$MKFS" -q -f -d single -m raid1 "$e1" "$e2" > /dev/null
mount_tracked "$e1" "$T/mnt2"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do head -c 40M /dev/urandom > "$T/mnt2/f$i"; done
sync
$PROGS inspect-internal dump-tree -t chunk "$e1" | grep -c CHUNK_ITEM > "$T/before"
expect_exit 1 "$BTRFS" balance start -dconvert=raid1c3 "$T/mnt2" 2> "$T/err"
assert_grep 'needs at least 3 devices, the filesystem has 2' "$T/err"
expect_exit 1 "$BTRFS" balance start -dconvert=raid1 "$T/mnt2" 2> "$T/err"
assert_grep 'not enough unallocated space' "$T/err"
assert_grep 'Nothing was relocated' "$T/err"
sync
$PROGS inspect-internal dump-tree -t chunk "$e1" | grep -c CHUNK_ITEM > "$T/after"
cmp -s "$T/before" "$T/after" || _fail "chunks changed by a refused convert"
echo ok
