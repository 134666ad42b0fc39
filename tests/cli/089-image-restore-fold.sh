#!/bin/bash
# btrfs image -r of a dump of a multi-device filesystem onto one target (no
# -m): the devices are laid end to end on the target and become the one with
# the smallest devid; chunks keep their profile with every stripe on it (a
# RAID1 chunk: both copies on the one device), dev extents move with their
# stripes, the other devices' DEV_ITEMs are removed.  On the 2-device raid1
# and 4-device raid1c3/raid1c4 corpus cases (dumped by us: Debian's
# btrfs-image, given only dev1, writes a dump whose superblock item is not a
# superblock): our check and Debian's are clean on the restore, the
# superblock and chunk tree name one device, every dev extent is on it, and
# the fs tree dumps as the original's.
. "$TOP/tests/lib/common.sh"
check_prereq corpus progs
for case in raid1-raid1 raid1c3-raid1c4; do
	dir=$(corpus_case $case)
	for maker in ours; do
		rm -f "$T/d.dump" "$T/r.img"
		run_check "$BTRFS" image -c9 "$dir/dev1.img" "$T/d.dump" 2> /dev/null
		run_check "$BTRFS" image -r "$T/d.dump" "$T/r.img"
		run_check "$BTRFS" check "$T/r.img" > "$T/ours.log" 2>&1
		run_check /usr/bin/btrfs check "$T/r.img" > "$T/deb.log" 2>&1
		"$BTRFS" inspect-internal dump-super "$T/r.img" > "$T/super"
		assert_grep "^num_devices[[:space:]]*1$" "$T/super"
		"$BTRFS" inspect-internal dump-tree -t chunk "$T/r.img" > "$T/chunk"
		[ "$(grep -c 'DEV_ITEM' "$T/chunk")" -eq 1 ] || _fail "$case/$maker: not one DEV_ITEM"
		assert_grep "stripe 1 devid 1 " "$T/chunk"
		assert_not_grep "devid [2-9]" "$T/chunk"
		"$BTRFS" inspect-internal dump-tree -t dev "$T/r.img" > "$T/dev"
		n=$(grep -c 'DEV_EXTENT' "$T/dev")
		[ "$n" -gt 0 ] && [ "$(grep -c 'key (1 DEV_EXTENT' "$T/dev")" -eq "$n" ] ||
			_fail "$case/$maker: a dev extent not on devid 1"
		# read from its first device only: the others are said missing (stdout, as btrfs-progs)
		"$BTRFS" inspect-internal dump-tree -t fs "$dir/dev1.img" 2> /dev/null |
			grep -v '^warning, device [0-9]* is missing$' > "$T/fs.orig"
		"$BTRFS" inspect-internal dump-tree -t fs "$T/r.img" > "$T/fs.rest"
		[ -s "$T/fs.orig" ] || _fail "$case: empty fs tree dump"
		cmp "$T/fs.orig" "$T/fs.rest" || _fail "$case/$maker: fs tree differs from the original's"
		echo "ok $case ($maker dump): one device, $n dev extents, both checks clean"
	done
done
