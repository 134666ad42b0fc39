#!/bin/bash
# btrfs image -r onto one target against btrfs-progs 6.19's restore of the
# same dump (tests/golden/image-restore/restore-619.txt, made by
# tests/tools/make-restore-goldens.sh with 6.19 built from its tag): every
# btrfs-image dump of ../shared/fsck-images and our dump of every corpus
# case, single and multi-device (RAID1, RAID10, RAID1C3/4: every chunk
# collapsed onto one device as 6.19 does, then its fixup commit), restored
# image identical by content: the whole image; for a multi-device dump all
# but the superblock copies, whose dev_item carries the new device size (6.19
# leaves the dumped device's); for checksums other than crc32c every block
# but the superblocks (6.19 stops, its crc32c superblock unreadable to it).
# RAID5/6, where 6.19 aborts: restored, both checks clean.  Our check is clean
# on every multi-device restore, whose superblock names one device of the
# size of the file.
. "$TOP/tests/lib/common.sh"
check_prereq corpus fsck-images
golden=$TOP/tests/golden/image-restore/restore-619.txt
digest() { python3 "$TOP/tests/tools/image-digest.py" "$@" | awk '{print $1, $2}'; }
n=0
while read -r name mode size sha; do
	case $name in
	fsck:*)
		dump=$(ls "$SHARED/fsck-images/${name#fsck:}"/*.img) || _fail "$name: no dump"
		;;
	corpus:*)
		dir=$(corpus_case "${name#corpus:}")
		rm -f "$T/d.dump"
		run_check "$BTRFS" image "$dir"/dev*.img "$T/d.dump" 2> /dev/null
		dump=$T/d.dump
		;;
	esac
	rm -f "$T/r.img"
	run_check "$BTRFS" image -r "$dump" "$T/r.img" 2> "$T/err"
	case $mode in
	full) got=$(digest "$T/r.img") want="$size $sha" ;;
	nosupers) got=$(digest "$T/r.img" --skip-supers) want="$size $sha" ;;
	content) got=$(digest "$T/r.img" --skip-supers | awk '{print $2}') want=$sha ;;
	none) got=none want=none ;;
	*) _fail "$name: unknown mode $mode" ;;
	esac
	[ "$got" = "$want" ] || _fail "$name: restore differs from 6.19's ($mode): $got, expected $want"
	if [ "$mode" != full ]; then
		run_check "$BTRFS" check "$T/r.img" > "$T/check" 2>&1
		"$BTRFS" inspect-internal dump-super "$T/r.img" > "$T/sb"
		assert_grep "^num_devices[[:space:]]*1$" "$T/sb"
		fsize=$(stat -c %s "$T/r.img")
		assert_grep "^dev_item.total_bytes[[:space:]]*$fsize$" "$T/sb"
		assert_grep "^total_bytes[[:space:]]*$fsize$" "$T/sb"
	fi
	if [ "$mode" = none ] && [ -x /usr/bin/btrfs ]; then
		run_check /usr/bin/btrfs check "$T/r.img" > "$T/check" 2>&1
	fi
	n=$((n + 1))
done < "$golden"
[ "$n" -ge 40 ] || _fail "only $n goldens read"
echo "ok $n restores as 6.19's"
