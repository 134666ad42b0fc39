#!/bin/bash
# mkfs --rootdir: the copied tree compares equal after mounting and
# btrfs-progs' check, data checksums included, is clean.  Compared for every
# entry (tests/lib/tree-listing.py): content, type and mode bits (setuid,
# setgid, sticky), owners (also of a symlink), mtime, ctime and atime to the
# nanosecond (before 1970 and after 2038 too), link counts (hard links to
# files and to a fifo), sizes around the inline limit, holes (leading,
# inner, trailing, a file of holes only), fifos, sockets, device nodes
# (large minor numbers), symlinks, every xattr (several per file, empty
# values, on directories, the top directory, a symlink and a fifo).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3

src=$T/src
mkdir -p "$src/sub/deep" "$src/empty"
echo hello > "$src/small"
head -c 100000 /dev/urandom > "$src/medium"
head -c 3000 /dev/urandom > "$src/threek"
head -c 20000000 /dev/urandom > "$src/sub/big"
: > "$src/zero"
for n in 2047 2048 2049 4095 4096 4097; do head -c $n /dev/urandom > "$src/size-$n"; done
truncate -s 10M "$src/sparse"
echo data | dd of="$src/sparse" bs=1 seek=5000000 conv=notrunc status=none
echo tail | dd of="$src/sparse" bs=1 seek=9000000 conv=notrunc status=none
truncate -s 3M "$src/only-holes"
truncate -s 1M "$src/leading-hole"
echo end >> "$src/leading-hole"
head -c 70000 /dev/urandom > "$src/trailing-hole"
truncate -s 2M "$src/trailing-hole"
ln "$src/small" "$src/sub/hardlink"
ln "$src/small" "$src/small2"
ln -s ../small "$src/sub/link"
ln -s /nonexistent/target "$src/dangling"
mkfifo "$src/fifo"
ln "$src/fifo" "$src/sub/fifo-link"
(cd "$src" && python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('socket')") || _fail "cannot make a socket"
mknod "$src/chr" c 1 3
mknod "$src/blk" b 7 200
mknod "$src/bigminor" b 259 300000
chown 1234:5678 "$src/threek" "$src/empty"
chown -h 42:43 "$src/sub/link"
chmod 640 "$src/threek"
chmod 1777 "$src/empty"
chmod 6751 "$src/medium"
name255=$(printf 'n%.0s' $(seq 1 255))
echo long > "$src/sub/$name255"
echo utf8 > "$src/sub/ünïcödé name"
for i in $(seq 1 400); do echo "$i" > "$src/sub/deep/file-with-a-longer-name-$i"; done
python3 - "$src" <<'PY'
import os, sys
src = sys.argv[1]
os.setxattr(src + "/medium", "user.test", b"value123")
os.setxattr(src + "/medium", "user.empty", b"")
os.setxattr(src + "/medium", "trusted.bin", bytes(range(256)) * 4)
os.setxattr(src + "/sub", "user.dir", b"x" * 300)
os.setxattr(src, "user.top", b"top directory")
os.setxattr(src + "/dangling", "trusted.link", b"on a symlink", follow_symlinks=False)
os.setxattr(src + "/fifo", "trusted.fifo", b"on a fifo")
os.setxattr(src + "/size-4097", "user.big", os.urandom(3000))
PY
touch -h -d '2020-01-02 03:04:05.123456789' "$src/sub/deep" "$src/medium" "$src/sub/link"
touch -d '1960-05-06 07:08:09.5' "$src/zero"
touch -m -d '2100-01-01 00:00:00.999999999' "$src/size-2048"
# An atime after the ctime (set now) and recent: reading the file does not change it (relatime).
touch -a -d "@$(($(date +%s) + 3600)).000000123" "$src/sparse" "$src/sub"
listing() { python3 "$TOP/tests/lib/tree-listing.py" "$@"; }
listing "$src" > "$T/src.list"
# The listing sees what the comparison relies on.
for p in '^socket mode=140' 'rdev=259:300000' 'map=4997120-5001216,8998912-9003008' 'only-holes .* map=-' \
	'trusted.link=' 'user.empty= ' 'zero mode=100644 owner=0:0 mtime=-30' 'fifo-link .* links=2'; do
	assert_grep "$p" "$T/src.list"
done

loop_images 1 400M
run_check "$TOP/mkfs.btrfs" -f -r "$src" "${LOOPS[0]}" > "$T/mkfs.out"
progs_check_data "${LOOPS[0]}"
mount_tracked "${LOOPS[0]}" "$T/mnt" ro,noatime
listing "$T/mnt" > "$T/dst.list"
diff -u "$T/src.list" "$T/dst.list" >&2 || _fail "attributes differ after mkfs --rootdir"
(cd "$src" && find . -type f) | while read -r f; do
	cmp "$src/$f" "$T/mnt/$f" || _fail "contents of $f differ after mkfs --rootdir"
done || exit 1
# The hole stays a hole: 10 MiB file, two data sectors.
[ "$(du -k "$T/mnt/sparse" | cut -f1)" -le 64 ] || _fail "sparse file lost its holes"
umount "$T/mnt"
# Writable afterwards: new files next to the copied ones.
mount_and_fill 20 "${LOOPS[0]}"
progs_check "${LOOPS[0]}"
# A tree that does not fit in the size given (-b: no enlarging) is refused with a clear message.
mk_images 1 120M
head -c 150000000 /dev/zero > "$T/huge.bin" 2>/dev/null
mkdir -p "$T/hugesrc" && mv "$T/huge.bin" "$T/hugesrc/"
expect_exit 1 "$TOP/mkfs.btrfs" -f -b 120M -r "$T/hugesrc" "$T/d1.img" > /dev/null 2> "$T/err"
assert_grep "not enough space in the filesystem for" "$T/err"
echo ok
