#!/bin/bash
# The summary as btrfs-progs prints it; -q silences it; -O list-all;
# -L, -U and --device-uuid end up in the superblock.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"

mk_images 2 300M
uuid=4f5a0c2e-1111-4222-8333-944455556666
duuid=0a0b0c0d-0e0f-4011-8213-141516171819
run_check "$TOP/mkfs.btrfs" -f -L mylabel -U $uuid --device-uuid $duuid -n 8k --csum xxhash \
	-d raid1 -m raid1 "$T/d1.img" "$T/d2.img" > "$T/out"
cat > "$T/expect" <<EXP
Label:              mylabel
UUID:               $uuid
Node size:          8192
Filesystem size:    600.00MiB
Block group profiles:
  Data:             RAID1            64.00MiB
  Metadata:         RAID1            32.00MiB
  System:           RAID1             8.00MiB
SSD detected:       no
Zoned device:       no
Features:           extref, skinny-metadata, no-holes, free-space-tree, block-group-tree
Checksum:           xxhash64
Number of devices:  2
Devices:
   ID        SIZE  PATH
    1   300.00MiB  $T/d1.img
    2   300.00MiB  $T/d2.img
EXP
sed -n '/^Label:/,$p' "$T/out" | grep -v '^Sector size:' | sed '/^$/d' > "$T/actual"
check_golden "$T/expect" "$T/actual"
assert_grep '^Sector size:        4096' "$T/out"
run_check "$TOP/mkfs.btrfs" -q -f "$T/d1.img" > "$T/quiet"
[ ! -s "$T/quiet" ] || _fail "-q printed something"
run_check "$TOP/mkfs.btrfs" -O list-all > "$T/list" 2>&1
for f in mixed-bg quota extref raid56 skinny-metadata no-holes free-space-tree raid1c34 block-group-tree squota; do
	assert_grep "^$f " "$T/list"
done
run_check "$BTRFS" mkfs -q -f -L viabtrfs "$T/d2.img"
if [ -x /usr/bin/btrfs ]; then
	run_check "$TOP/mkfs.btrfs" -q -f -L mylabel -U $uuid --device-uuid $duuid "$T/d1.img"
	/usr/bin/btrfs inspect-internal dump-super "$T/d1.img" > "$T/super"
	assert_grep "^fsid[[:space:]]*$uuid$" "$T/super"
	assert_grep "^label[[:space:]]*mylabel$" "$T/super"
	assert_grep "^dev_item.uuid[[:space:]]*$duuid$" "$T/super"
	/usr/bin/btrfs inspect-internal dump-super "$T/d2.img" > "$T/super2"
	assert_grep "^label[[:space:]]*viabtrfs$" "$T/super2"
fi
echo ok
