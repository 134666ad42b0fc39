#!/bin/bash
# Debian's btrfs-image dump of ONE device of a 2-device RAID1 filesystem made
# by Debian's mkfs.btrfs (btrfs-image dev1.img dump, the other device not
# found: files are not scanned).  btrfs-image reads the superblock item from
# the first device of its list, the missing one, and does not notice the
# failed read (pread's -1 compared as unsigned): the item is uninitialised
# memory (zeros or heap bytes), the tree blocks after it are fine.  The dump
# has no superblock, so:
# - its first item has no btrfs magic (checked here on the raw dump);
# - Debian's restore fails on it ("superblock checksum mismatch", or with heap
#   bytes "unsupported checksum algorithm"; it then hangs in its threads, hence
#   the timeout);
# - ours refuses it with exit 1 and an error naming cluster 0 item 0 and the
#   cause, and creates no target;
# - the same filesystem dumped by btrfs-image from the other device fails the
#   same way, and dumped by ours naming both devices restores and passes both
#   checks.
. "$TOP/tests/lib/common.sh"
check_prereq progs python3
[ -x /usr/bin/btrfs-image ] && [ -x /usr/sbin/mkfs.btrfs ] || _skip "Debian's btrfs-image or mkfs.btrfs not installed"
truncate -s 300M "$T/a.img" "$T/b.img"
# (no free space tree: Debian 6.2 mkfs leaves stale entries in it that our check reports)
run_check /usr/sbin/mkfs.btrfs -q -f -R ^free-space-tree -d raid1 -m raid1 "$T/a.img" "$T/b.img" > /dev/null 2>&1
for dev in a b; do
	rm -f "$T/x.raw" "$T/deb.raw"
	run_check /usr/bin/btrfs-image "$T/$dev.img" "$T/$dev.dump" 2> /dev/null
	[ -s "$T/$dev.dump" ] || _fail "$dev: Debian's dump is empty"
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(d[1024 + 64:1024 + 72] == b"_BHRfS_M")' \
		"$T/$dev.dump" || _fail "$dev: Debian's dump has a superblock after all"
	rc=0
	timeout 15 /usr/bin/btrfs-image -r "$T/$dev.dump" "$T/deb.raw" > "$T/deb.err" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || _fail "$dev: Debian's restore succeeded"
	# (what Debian says depends on the heap bytes it dumped as the superblock)
	assert_grep "superblock checksum mismatch\|unsupported checksum algorithm\|invalid superblock" "$T/deb.err"
	expect_exit 1 "$BTRFS" image -r "$T/$dev.dump" "$T/x.raw" 2> "$T/err"
	assert_grep "cluster at 0 item 0: not a btrfs superblock" "$T/err"
	assert_grep "dump again naming every device" "$T/err"
	[ ! -e "$T/x.raw" ] || _fail "$dev: our restore created its target"
done
run_check "$BTRFS" image "$T/a.img" "$T/b.img" "$T/ours.dump"
run_check "$BTRFS" image -r "$T/ours.dump" "$T/ours.raw"
clean_checks "$T/ours.raw"
echo "btrfs-image dumps of one RAID1 device have no superblock: Debian's restore fails, ours refuses naming cluster 0 item 0, nothing created; ours of both devices restores"
