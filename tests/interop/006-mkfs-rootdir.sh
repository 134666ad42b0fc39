#!/bin/bash
# mkfs --rootdir: the copied tree compares equal after mounting (content,
# modes, owners, timestamps, link counts, symlinks, special files, holes,
# xattrs) and btrfs-progs' check, data checksums included, is clean.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

src=$T/src
mkdir -p "$src/sub/deep" "$src/empty"
echo hello > "$src/small"
head -c 100000 /dev/urandom > "$src/medium"
head -c 3000 /dev/urandom > "$src/threek"
head -c 20000000 /dev/urandom > "$src/sub/big"
: > "$src/zero"
truncate -s 10M "$src/sparse"
echo data | dd of="$src/sparse" bs=1 seek=5000000 conv=notrunc status=none
echo tail | dd of="$src/sparse" bs=1 seek=9000000 conv=notrunc status=none
ln "$src/small" "$src/sub/hardlink"
ln "$src/small" "$src/small2"
ln -s ../small "$src/sub/link"
ln -s /nonexistent/target "$src/dangling"
mkfifo "$src/fifo"
mknod "$src/chr" c 1 3
mknod "$src/blk" b 7 200
chown 1234:5678 "$src/threek"
chmod 640 "$src/threek"
chmod 1777 "$src/empty"
for i in $(seq 1 400); do echo "$i" > "$src/sub/deep/file-with-a-longer-name-$i"; done
touch -h -d '2020-01-02 03:04:05.123456789' "$src/sub/deep" "$src/medium" "$src/sub/link"
have_xattr=no
if command -v python3 > /dev/null && python3 -c "import os; os.setxattr('$src/medium', 'user.test', b'value123')" 2>/dev/null; then
	python3 -c "import os; os.setxattr('$src/sub', 'user.dir', b'x' * 300)"
	have_xattr=yes
fi
listing() { # DIR: one line per entry with what must survive
	(cd "$1" && find . -printf '%p %y %m %U %G %T@ %l\n' | sort)
	(cd "$1" && find . ! -type d -printf '%p size=%s links=%n\n' | sort)
	(cd "$1" && find . -type b -printf '%p\n' -o -type c -printf '%p\n' | sort | xargs -r stat -c '%n %t:%T')
}
listing "$src" > "$T/src.list"

mk_images 1 400M
attach_images 1
run_check "$TOP/mkfs.btrfs" -f -r "$src" "${LOOPS[0]}" > "$T/mkfs.out"
"$PROGS_BTRFS" check --check-data-csum "${LOOPS[0]}" > "$T/check.log" 2>&1 || {
	cat "$T/check.log" >&2; _fail "btrfs check --check-data-csum found errors"; }
assert_grep 'no error found' "$T/check.log"
mount_tracked "${LOOPS[0]}" "$T/mnt" ro,noatime
listing "$T/mnt" > "$T/dst.list"
diff -u "$T/src.list" "$T/dst.list" >&2 || _fail "attributes differ after mkfs --rootdir"
(cd "$src" && find . -type f) | while read -r f; do
	cmp "$src/$f" "$T/mnt/$f" || _fail "contents of $f differ after mkfs --rootdir"
done || exit 1
if [ $have_xattr = yes ]; then
	v=$(python3 -c "import os; print(os.getxattr('$T/mnt/medium', 'user.test').decode())")
	[ "$v" = value123 ] || _fail "xattr lost: '$v'"
	v=$(python3 -c "import os; print(len(os.getxattr('$T/mnt/sub', 'user.dir')))")
	[ "$v" = 300 ] || _fail "directory xattr lost"
fi
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
