#!/bin/bash
# btrfs check -E|--subvol-extents ID prints what Debian's btrfs check prints
# (stdout byte for byte, same exit status) for every subvolume of every
# single-device corpus image and for an id that is no subvolume; the
# report is read-only.
. "$TOP/tests/lib/common.sh"
check_prereq corpus progs
PROGS=/usr/bin/btrfs
n=0
for dir in "$SHARED"/corpus/*/; do
	name=$(basename "$dir")
	[ "$(ls "$dir"/dev*.img.xz | wc -l)" = 1 ] || continue   # Debian's check takes one device
	img=$(corpus_case "$name")/dev1.img
	cp --sparse=always "$img" "$T/img"
	ids=$("$BTRFS" inspect-internal dump-tree -t root "$T/img" |
	      sed -n 's/.*key (\([0-9]*\|FS_TREE\) ROOT_ITEM [0-9]*).*/\1/p' | sed 's/FS_TREE/5/' | sort -un)
	for id in $ids 12345; do
		"$PROGS" check -E "$id" "$T/img" > "$T/theirs" 2> /dev/null; theirs=$?
		"$BTRFS" check -E "$id" "$T/img" > "$T/ours" 2> "$T/err"; ours=$?
		[ "$ours" = "$theirs" ] || _fail "$name -E $id: exit $ours, Debian's $theirs"
		sed -i "s|$T/img|IMG|" "$T/theirs" "$T/ours"
		check_golden "$T/theirs" "$T/ours"
		assert_grep "^Offset		Len	Root Refs	Roots$" "$T/ours"
		n=$((n + 1))
	done
	# subvolume 5 lists at least its root block, with itself among the roots
	"$BTRFS" check --subvol-extents 5 "$T/img" > "$T/ours" 2> /dev/null
	grep -q "^[0-9]*	[0-9]*	[0-9]*	.*\b5 $" "$T/ours" || _fail "$name: no extent of subvolume 5 listed"
	expect_exit 0 cmp -s "$img" "$T/img"
done
[ $n -gt 0 ] || _fail "no single-device corpus image"
echo "ok: $n reports identical to Debian's"
