#!/bin/bash
# Bad options are refused with a message naming them; nothing is written.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"

mk_images 1 300M
file_sums "$T/d1.img" > "$T/before"
img=$T/d1.img
while IFS='|' read -r args msg; do
	expect_exit 1 "$TOP/mkfs.btrfs" -f $args "$img" > /dev/null 2> "$T/err"
	assert_grep "$msg" "$T/err"
done <<'LIST'
-O foo|unrecognized filesystem feature 'foo'
-O ^nosuch|unrecognized filesystem feature 'nosuch'
-n 3000|invalid nodesize 3000
-n 128K|invalid nodesize 131072
-n 2048|invalid nodesize 2048
-s 1000|invalid sectorsize 1000
-n abc|invalid nodesize: abc
-d raid9|unknown data profile raid9
-m foo|unknown metadata profile foo
--csum md5|unknown csum type md5
-U not-a-uuid|could not parse UUID: not-a-uuid
--device-uuid 123|could not parse UUID: 123
-M -n 16384|mixed block groups nodesize (16384) and sectorsize (4096) must be equal
-M -d single -m dup|mixed block groups data and metadata profiles must be the same
-O ^no-holes,block-group-tree|block-group-tree feature requires free-space-tree and no-holes
-O bgt -O ^free-space-tree|block-group-tree feature requires free-space-tree and no-holes
-R block-group-tree|'block-group-tree' is not a runtime feature
-R nosuch|unrecognized runtime feature 'nosuch'
--reflink|option --reflink needs --rootdir
--reflink -r /proc|--reflink: --rootdir /proc is not on a btrfs filesystem
-O quota,squota|quota and squota are exclusive
--no-such-option|unrecognized option
LIST
label=$(printf 'x%.0s' $(seq 1 300))
expect_exit 1 "$TOP/mkfs.btrfs" -f -L "$label" "$img" > /dev/null 2> "$T/err"
assert_grep "is too long (max 255)" "$T/err"
expect_exit 1 "$TOP/mkfs.btrfs" > /dev/null 2> "$T/err"
assert_grep "no device specified" "$T/err"
expect_exit 1 "$TOP/mkfs.btrfs" -f "$T/missing.img" > /dev/null 2> "$T/err"
assert_grep "cannot open $T/missing.img" "$T/err"
[ ! -e "$T/missing.img" ] || _fail "a missing file was created without -b"
file_sums "$T/d1.img" | cmp -s - "$T/before" || _fail "a refused mkfs changed the image"

# Not named, block-group-tree goes with 6.19's warning when no-holes or free-space-tree is off.
for off in no-holes free-space-tree; do
	run_check "$TOP/mkfs.btrfs" -f -O ^$off "$img" > "$T/out" 2> "$T/err"
	assert_grep '^WARNING: disabling block-group-tree feature due to missing no-holes and free-space-tree features$' "$T/err"
	assert_grep '^Features: ' "$T/out"
	assert_not_grep 'block-group-tree' "$T/out"
	assert_not_grep "$off" "$T/out"
done
# -R: the runtime features of 6.19 (quota, free-space-tree); list-all lists only them.
run_check "$TOP/mkfs.btrfs" -R list-all 2> "$T/list"
assert_grep '^Runtime features available:' "$T/list"
assert_grep '^quota ' "$T/list"
assert_grep '^free-space-tree ' "$T/list"
assert_not_grep '^no-holes' "$T/list"
run_check "$TOP/mkfs.btrfs" -f -R quota "$img" > "$T/out"
assert_grep '^Features: .*quota' "$T/out"
run_check "$TOP/mkfs.btrfs" -f --checksum xxhash "$img" > "$T/out"
assert_grep '^Checksum: *xxhash64' "$T/out"
echo ok
