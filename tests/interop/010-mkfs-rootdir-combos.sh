#!/bin/bash
# --subvol, --compress and --inode-flags together with other mkfs options:
# -O quota (qgroup 0/5 and one per subvolume, counts equal to what a kernel
# rescan finds), mixed block groups without no-holes, 4 KiB nodes without
# skinny metadata, sha256 and blake2 checksums, raid1 on two devices.  Each:
# btrfs-progs' check with data checksums is clean, the kernel reads every file
# equal with the same attributes, xattrs and holes, subvolumes are listed.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3

src=$T/src
mkdir -p "$src/a/b" "$src/vol1/x" "$src/vol2" "$src/cow"
yes "some text that compresses" | head -c 700000 > "$src/a/b/text"
head -c 400000 /dev/urandom > "$src/vol1/x/rand"
yes vol2 | head -c 1500 > "$src/vol2/small"
head -c 70000 /dev/urandom > "$src/cow/f"
truncate -s 2M "$src/vol1/sparse"
echo end | dd of="$src/vol1/sparse" bs=1 seek=1500000 conv=notrunc status=none
ln "$src/a/b/text" "$src/a/text-link"
python3 -c "import os; os.setxattr('$src/vol1/x/rand', 'user.in-subvol', b'kept')"
# Without atimes: each mkfs reads the files and may move the source's atimes on.
listing() { python3 "$TOP/tests/lib/tree-listing.py" --no-atime "$1"; }
listing "$src" > "$T/src.list"
comp=zlib
grep -q 'HAVE_ZSTD 1' "$TOP/config.h" && comp=zstd
lzo=zlib:2
grep -q 'HAVE_LZO 1' "$TOP/config.h" && lzo=lzo

loop_images 2 300M
one() { # NDEV MKFS-OPTIONS...
	local n=$1; shift
	local devs=("${LOOPS[@]:0:$n}") opts=""
	run_check "$TOP/mkfs.btrfs" -q -f -r "$src" -u vol1 -u ro:vol2 --inode-flags nodatacow:cow "$@" "${devs[@]}"
	"$PROGS_BTRFS" device scan "${devs[@]}" > /dev/null 2>&1
	progs_check_data "${devs[0]}" "$*"
	[ "$n" -gt 1 ] && opts="device=${devs[1]}"
	mount_tracked "${devs[0]}" "$T/mnt" "ro${opts:+,$opts}"
	listing "$T/mnt" > "$T/dst.list"
	diff -u "$T/src.list" "$T/dst.list" >&2 || _fail "$*: attributes differ"
	(cd "$src" && find . -type f) | while read -r f; do
		cmp "$src/$f" "$T/mnt/$f" || _fail "$*: contents of $f differ"
	done || exit 1
	[ "$("$PROGS_BTRFS" subvolume list "$T/mnt" | wc -l)" = 2 ] || _fail "$*: subvolumes not listed"
	umount "$T/mnt"
}
one 1 -O quota --compress "$comp"
# The qgroup counts mkfs wrote are what the kernel's rescan computes.
mount_tracked "${LOOPS[0]}" "$T/mnt"
"$PROGS_BTRFS" qgroup show --raw "$T/mnt" | awk '/^0\// { print $1, $2, $3 }' > "$T/qg.mkfs"
"$PROGS_BTRFS" quota rescan -w "$T/mnt" > /dev/null || _fail "quota rescan failed"
"$PROGS_BTRFS" qgroup show --raw "$T/mnt" | awk '/^0\// { print $1, $2, $3 }' > "$T/qg.rescan"
umount "$T/mnt"
cat "$T/qg.mkfs" >&2
[ "$(wc -l < "$T/qg.mkfs")" = 3 ] || _fail "expected qgroups 0/5, 0/256, 0/257"
diff -u "$T/qg.mkfs" "$T/qg.rescan" >&2 || _fail "qgroup counts differ from a rescan"
one 1 -M -O ^no-holes,^block-group-tree --compress "$lzo"
one 1 -n 4k -O ^skinny-metadata --csum sha256 --compress zlib:9
one 2 -d raid1 -m raid1 --csum blake2 --compress "$comp"
forget_devices
echo ok
