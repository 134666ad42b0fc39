#!/bin/bash
# Devices too small name the minimum size; -b creates missing image files
# sparse; -b larger than an existing device is refused.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"

truncate -s 50M "$T/small.img"
file_sums "$T/small.img" > "$T/before"
expect_exit 1 "$TOP/mkfs.btrfs" -f "$T/small.img" > /dev/null 2> "$T/err"
assert_grep "is too small to make a usable filesystem" "$T/err"
assert_grep "minimum size for each btrfs device is [0-9]" "$T/err"
expect_exit 1 "$TOP/mkfs.btrfs" -f -d dup "$T/small.img" > /dev/null 2> "$T/err"
assert_grep "minimum size for each btrfs device is" "$T/err"
file_sums "$T/small.img" | cmp -s - "$T/before" || _fail "refused mkfs changed the image"
# -b on a file that does not exist: created sparse, with that size.
run_check "$TOP/mkfs.btrfs" -q -b 300M "$T/new.img"
[ "$(stat -c %s "$T/new.img")" = $((300 * 1024 * 1024)) ] || _fail "new image has the wrong size"
[ "$(du -k "$T/new.img" | cut -f1)" -lt 10240 ] || _fail "new image is not sparse"
expect_exit 1 "$TOP/mkfs.btrfs" -f -b 400M "$T/small.img" > /dev/null 2> "$T/err"
assert_grep "smaller than the requested size" "$T/err"
# -b smaller than the file: the filesystem is that size.
truncate -s 1G "$T/big.img"
run_check "$TOP/mkfs.btrfs" -f -b 256M "$T/big.img" > "$T/out"
assert_grep '^Filesystem size:    256.00MiB$' "$T/out"
expect_exit 1 "$TOP/mkfs.btrfs" -f -b 12x "$T/big.img" > /dev/null 2> "$T/err"
assert_grep "invalid byte count" "$T/err"
echo ok
