#!/bin/bash
# Too few devices for a profile: the message names the profile and the
# minimum, and nothing is written.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"

mk_images 3 300M
file_sums "$T"/d*.img > "$T/before"
while read -r n opt profile min; do
	devs=()
	for ((i = 1; i <= n; i++)); do devs+=("$T/d$i.img"); done
	expect_exit 1 "$TOP/mkfs.btrfs" -f $opt "${devs[@]}" > /dev/null 2> "$T/err"
	assert_grep "profile $profile (have $n devices but $min devices are required)" "$T/err"
done <<'LIST'
3 -mraid1c4 RAID1C4 4
2 -draid1c3 RAID1C3 3
1 -mraid1 RAID1 2
2 -draid6 RAID6 3
1 -mraid5 RAID5 2
1 -draid10 RAID10 2
LIST
file_sums "$T"/d*.img | cmp -s - "$T/before" || _fail "a refused mkfs changed an image"
# The same device twice.
expect_exit 1 "$TOP/mkfs.btrfs" -f -d raid1 -m raid1 "$T/d1.img" "$T/d1.img" > /dev/null 2> "$T/err"
assert_grep "are the same device" "$T/err"
ln -sf "$T/d1.img" "$T/alias.img"
expect_exit 1 "$TOP/mkfs.btrfs" -f -d raid1 -m raid1 "$T/d1.img" "$T/alias.img" > /dev/null 2> "$T/err"
assert_grep "are the same device" "$T/err"
file_sums "$T"/d*.img | cmp -s - "$T/before" || _fail "a refused mkfs changed an image"
echo ok
