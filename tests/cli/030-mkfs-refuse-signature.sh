#!/bin/bash
# A target holding a filesystem signature is refused without -f, naming the
# filesystem found, and nothing is written; -f overwrites it.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"

mk_images 1 200M
run_check "$TOP/mkfs.btrfs" -q "$T/d1.img"
file_sums "$T/d1.img" > "$T/before"
expect_exit 1 "$TOP/mkfs.btrfs" "$T/d1.img" > /dev/null 2> "$T/err"
assert_grep "appears to contain an existing filesystem (btrfs)" "$T/err"
assert_grep "use the -f option to force overwrite" "$T/err"
file_sums "$T/d1.img" | cmp -s - "$T/before" || _fail "refused mkfs changed the image"
if command -v mkfs.ext4 > /dev/null; then
	truncate -s 64M "$T/ext4.img"
	mkfs.ext4 -q -F "$T/ext4.img" || _fail "mkfs.ext4 failed"
	file_sums "$T/ext4.img" > "$T/before4"
	expect_exit 1 "$TOP/mkfs.btrfs" "$T/ext4.img" > /dev/null 2> "$T/err"
	assert_grep "(ext4)" "$T/err"
	file_sums "$T/ext4.img" | cmp -s - "$T/before4" || _fail "refused mkfs changed the ext4 image"
fi
# -f overwrites, and the new filesystem has another UUID.
old=$(blkid -s UUID -o value "$T/d1.img")
run_check "$TOP/mkfs.btrfs" -q -f "$T/d1.img"
new=$(blkid -s UUID -o value "$T/d1.img")
[ -n "$new" ] && [ "$old" != "$new" ] || _fail "-f did not make a new filesystem ($old -> $new)"
echo ok
