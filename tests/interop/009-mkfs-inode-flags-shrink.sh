#!/bin/bash
# mkfs --rootdir --inode-flags: the kernel shows the NOCOW attribute where
# nodatacow was given (and on what it passes down to), files without
# checksums read back equal and btrfs-progs' check is clean.  --shrink: the
# image file is cut to the end of the last chunk, checks clean, mounts,
# compares equal and takes new files; on a block device only the
# filesystem size shrinks.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

src=$T/src
mkdir -p "$src/vm/images" "$src/db" "$src/plain"
head -c 2000000 /dev/urandom > "$src/vm/images/disk.raw"
head -c 500000 /dev/urandom > "$src/db/table"
head -c 500000 /dev/urandom > "$src/plain/file"
head -c 300000 /dev/urandom > "$src/single-nocow"
file_listing "$src" > "$T/src.list"

loop_images 1 300M
run_check "$TOP/mkfs.btrfs" -q -f -r "$src" --inode-flags nodatacow:vm --inode-flags nodatasum:db \
	--inode-flags nodatacow,nodatasum:single-nocow "${LOOPS[0]}"
progs_check_data "${LOOPS[0]}"
mount_tracked "${LOOPS[0]}" "$T/mnt"
lsattr -d "$T/mnt/vm" "$T/mnt/vm/images" "$T/mnt/vm/images/disk.raw" "$T/mnt/single-nocow" \
	"$T/mnt/plain/file" "$T/mnt/db/table" > "$T/attr"
cat "$T/attr" >&2
for p in vm vm/images vm/images/disk.raw single-nocow; do
	grep -q "C.* $T/mnt/$p\$" "$T/attr" || _fail "$p lacks the NOCOW attribute"
done
for p in plain/file db/table; do
	grep -q "C.* $T/mnt/$p\$" "$T/attr" && _fail "$p has the NOCOW attribute"
done
file_listing "$T/mnt" > "$T/dst.list"
diff -u "$T/src.list" "$T/dst.list" >&2 || _fail "attributes differ after --inode-flags"
for f in vm/images/disk.raw db/table plain/file single-nocow; do
	cmp "$src/$f" "$T/mnt/$f" || _fail "$f differs"
done
# New files below a nodatacow directory inherit NOCOW in the kernel too.
head -c 100000 /dev/urandom > "$T/mnt/vm/new"
lsattr "$T/mnt/vm/new" | grep -q "C" || _fail "new file in vm did not inherit NOCOW"
umount "$T/mnt"
"$TOP/btrfs" inspect-internal dump-tree -t csum "${LOOPS[0]}" > "$T/csum.txt"
progs_check "${LOOPS[0]}"

# --shrink on an image file.
rm -f "$T/big.img"; truncate -s 2G "$T/big.img"
run_check "$TOP/mkfs.btrfs" -f -r "$src" --shrink "$T/big.img" > "$T/mkfs.out"
size=$(stat -c %s "$T/big.img")
echo "shrunk image: $size bytes" >&2
[ "$size" -lt $((512 * 1024 * 1024)) ] || _fail "--shrink left $size bytes"
progs_check_data "$T/big.img" "the shrunk image"
"$PROGS_BTRFS" inspect-internal dump-super "$T/big.img" | grep -q "^total_bytes[[:space:]]*$size\$" ||
	_fail "superblock total_bytes is not the image size"
dev=$(setup_loopdev "$T/big.img"); track_loopdev "$dev"
mount_tracked "$dev" "$T/mnt2"
file_listing "$T/mnt2" > "$T/dst.list"
diff -u "$T/src.list" "$T/dst.list" >&2 || _fail "attributes differ after --shrink"
cmp "$src/plain/file" "$T/mnt2/plain/file" || _fail "plain/file differs after --shrink"
echo more > "$T/mnt2/more" || _fail "cannot write to the shrunk filesystem"
umount "$T/mnt2"
progs_check "$dev"

# --shrink on a block device: the device keeps its size, the filesystem is smaller.
run_check "$TOP/mkfs.btrfs" -q -f -r "$src" --shrink "${LOOPS[0]}"
fs=$("$PROGS_BTRFS" inspect-internal dump-super "${LOOPS[0]}" | awk '/^total_bytes/ { print $2 }')
[ "$fs" -lt $((300 * 1024 * 1024)) ] || _fail "--shrink on a block device did not shrink the filesystem ($fs)"
[ "$(blockdev --getsize64 "${LOOPS[0]}")" = $((300 * 1024 * 1024)) ] || _fail "the loop device changed size"
progs_check "${LOOPS[0]}"
echo ok
