#!/bin/bash
# mkfs --rootdir --reflink (btrfs-progs 6.19's option): on a kernel-mounted btrfs holding
# both the source tree and the image file, the file data is cloned (FICLONERANGE) into the
# image instead of copied.  The image passes our check (data checksums included) and
# Debian's, mounts, and every file's sha256 matches; the host filesystem shows the image's
# extents shared with the source files.  Refused clearly: an image on another filesystem
# (another btrfs, or not a btrfs), and RAID5/6 data.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3

truncate -s 1G "$T/host.img"
run_check "$TOP/mkfs.btrfs" -q -f "$T/host.img"
host_dev=$(setup_loopdev "$T/host.img"); track_loopdev "$host_dev"
host=$T/host
mount_tracked "$host_dev" "$host"

# Source files: large random ones (cloned), sizes not a multiple of 4 KiB (last sector
# written), inline ones, holes, a hard link, a symlink, a nodatacow subtree.
src=$host/src
mkdir -p "$src/sub" "$src/nocow"
head -c 8000000 /dev/urandom > "$src/big"
head -c 1234567 /dev/urandom > "$src/sub/odd-size"
head -c 4096 /dev/urandom > "$src/one-sector"
head -c 5000 /dev/urandom > "$src/sector-and-a-bit"
echo "inline" > "$src/small"
truncate -s 6M "$src/sparse"
head -c 300000 /dev/urandom | dd of="$src/sparse" bs=4096 seek=512 conv=notrunc status=none
head -c 2000000 /dev/urandom > "$src/nocow/f"
ln "$src/big" "$src/sub/big-link"
ln -s ../big "$src/sub/link"
sync
tree_sums "$src" > "$T/src.sums"
src_bytes=$(( 8000000 + 1234567 + 4096 + 5000 + 300000 + 2000000 ))

img=$host/image.img
run_check "$TOP/mkfs.btrfs" -f -r "$src" --reflink --inode-flags nodatacow:nocow "$img" > "$T/mkfs.out"
sync
run_check "$TOP/btrfs" check --check-data-csum "$img" > "$T/check.out" 2>&1
assert_grep "no error found" "$T/check.out"
/usr/bin/btrfs check "$img" > "$T/progs-check.out" 2>&1 ||
	{ cat "$T/progs-check.out" >&2; _fail "Debian's btrfs check found errors"; }
assert_grep "no error found" "$T/progs-check.out"

# Shared extents: the image's data is shared with the source files (btrfs filesystem du:
# total, exclusive, set shared).
/usr/bin/btrfs filesystem du --raw -s "$img" > "$T/du" || _fail "btrfs filesystem du failed"
cat "$T/du"
read -r total excl shared _ < <(tail -1 "$T/du")
[ "$shared" -ge $((src_bytes / 4096 * 4096 - 4 * 4096)) ] ||
	_fail "the image shares $shared bytes with the source, expected about $src_bytes"
python3 - "$img" <<'PY' || _fail "fiemap shows no shared extent in the image"
import fcntl, struct, sys
FS_IOC_FIEMAP = 0xC020660B
SHARED = 0x2000
n = 256
buf = bytearray(struct.pack('=QQLLLL', 0, 2**64 - 1, 0, 0, n, 0) + bytes(56 * n))
with open(sys.argv[1], 'rb') as f:
    fcntl.ioctl(f, FS_IOC_FIEMAP, buf)
count = struct.unpack_from('=L', buf, 20)[0]
shared = sum(struct.unpack_from('=QQQQQLLLL', buf, 32 + 56 * i)[2]
             for i in range(count) if struct.unpack_from('=QQQQQLLLL', buf, 32 + 56 * i)[5] & SHARED)
print(count, "extents in the first", n, "; shared bytes", shared)
sys.exit(0 if shared > 8000000 else 1)
PY

# The kernel mounts it and reads back every byte.
img_dev=$(setup_loopdev "$img"); track_loopdev "$img_dev"
mount_tracked "$img_dev" "$T/mnt" ro
tree_sums "$T/mnt" > "$T/img.sums"
umount "$T/mnt" || _fail "umount of the image failed"
losetup -d "$img_dev"
diff "$T/src.sums" "$T/img.sums" || _fail "files differ after mkfs --reflink"
[ "$(wc -l < "$T/img.sums")" -eq 8 ] || _fail "expected 8 files"

# Refusals: the image not on a btrfs, on another btrfs, RAID5/6 data.
expect_exit 1 "$TOP/mkfs.btrfs" -f -r "$src" --reflink "$T/elsewhere.img" > /dev/null 2> "$T/err"
assert_grep "is not on a btrfs filesystem" "$T/err"
[ ! -e "$T/elsewhere.img" ] || _fail "a refused mkfs left the image it created"
truncate -s 1G "$T/host2.img"
run_check "$TOP/mkfs.btrfs" -q -f "$T/host2.img"
host2_dev=$(setup_loopdev "$T/host2.img"); track_loopdev "$host2_dev"
mount_tracked "$host2_dev" "$T/host2"
expect_exit 1 "$TOP/mkfs.btrfs" -f -r "$src" --reflink "$T/host2/image.img" > /dev/null 2> "$T/err"
assert_grep "are on different btrfs filesystems" "$T/err"
truncate -s 300M "$host/r1.img" "$host/r2.img" "$host/r3.img"
expect_exit 1 "$TOP/mkfs.btrfs" -f -r "$src" --reflink -d raid5 "$host"/r[123].img > /dev/null 2> "$T/err"
assert_grep "cannot clone into RAID5/6 data" "$T/err"
echo ok
