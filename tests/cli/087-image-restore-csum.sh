#!/bin/bash
# Dumps that Debian's btrfs-image made of xxhash, sha256 and blake2
# filesystems: btrfs-image puts crc32c over the first 4 bytes of every tree
# block's checksum whatever the filesystem's type, so its own restore gives
# blocks no checksum check accepts.  Ours detects those blocks and gives them
# the filesystem's checksum back: Debian's check is clean on the result, ours
# gives the verdict it gives the original (filesystems of Debian's mkfs, whose
# free space tree keeps entries of its temporary chunks that our check
# reports) or is clean (filesystems of our mkfs).  Debian's own restore of the
# same dump fails both checks (the test shows the problem is real).
. "$TOP/tests/lib/common.sh"
[ -x /usr/bin/btrfs-image ] && [ -x /usr/sbin/mkfs.btrfs ] || _skip "no Debian btrfs-progs"
src=$T/src
mkdir -p "$src/d"
for i in $(seq 1 200); do echo "$i" > "$src/d/f$i"; done
head -c 100000 /dev/urandom > "$src/big"
for cs in xxhash sha256 blake2; do
	for mk in debian ours; do
		rm -f "$T/fs.img" "$T/r.img" "$T/deb.img"
		truncate -s 300M "$T/fs.img"
		if [ $mk = debian ]; then
			run_check /usr/sbin/mkfs.btrfs -q --csum "$cs" --rootdir "$src" "$T/fs.img" > /dev/null
		else
			run_check "$TOP/mkfs.btrfs" -q --csum "$cs" --rootdir "$src" "$T/fs.img"
		fi
		run_check /usr/bin/btrfs-image -c9 "$T/fs.img" "$T/fs.dump"
		run_check "$BTRFS" image -r "$T/fs.dump" "$T/r.img"
		run_check /usr/bin/btrfs check "$T/r.img" > "$T/deb.log" 2>&1
		run_mayfail "$BTRFS" check "$T/fs.img" > "$T/orig.log" 2>&1; want=$?
		run_mayfail "$BTRFS" check "$T/r.img" > "$T/ours.log" 2>&1; got=$?
		[ $got -eq $want ] || _fail "$cs/$mk: our check exits $got on the restore, $want on the original"
		[ $mk = debian ] || [ $got -eq 0 ] || _fail "$cs/$mk: our check is not clean"
		diff <(grep '^ERROR' "$T/orig.log") <(grep '^ERROR' "$T/ours.log") ||
			_fail "$cs/$mk: our check reports other errors on the restore than on the original"
		"$BTRFS" inspect-internal dump-super "$T/r.img" > "$T/super"
		assert_grep "^csum_type.*($cs" "$T/super"
		# btrfs-image's own restore: the crc32c it wrote stays
		run_mayfail /usr/bin/btrfs-image -r "$T/fs.dump" "$T/deb.img" 2> /dev/null
		expect_exit 1 "$BTRFS" check "$T/deb.img" > /dev/null 2>&1
		echo "ok $cs ($mk mkfs): restored, Debian's check clean, ours exits $got as on the original"
	done
done
