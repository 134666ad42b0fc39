#!/bin/bash
# A deleted block group item (the catalogue's item/delete/BLOCK_GROUP_ITEM
# class), of every kind of block group, in a block group tree
# (default-rich) and in the extent tree (legacy-features): check reports the
# chunk without its item (exit 1, the extents in its range counted there,
# not as extents outside any block group), and --repair adds the item with
# the chunk's type and the sum of those extents as used, so that our check
# and Debian's are clean and every file reads back unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

for fs in default-rich legacy-features; do
	src=$(corpus_case $fs)/dev1.img
	rm -rf "$T/orig"
	restored_files "$src" "$T/orig"
	"$CB" "$src" list | awk '$4 == "block_group_item" { print $1, $2 }' > "$T/bgs"
	[ "$(wc -l < "$T/bgs")" -ge 3 ] || _fail "$fs: fewer than 3 block group items"
	while read -r tree key; do
		start=${key%%,*}
		damaged_repaired "$src" "$T/orig" "chunk \[$start [0-9]*\] type 0x[0-9a-f]* has no block group item" \
			"Block group $start: no block group item: added, used [0-9]* (the sum of its extents)" \
			delete "$tree" "$key"
		assert_not_grep "not inside a block group" "$T/check"
		echo "ok: $fs: the block group item ($key) of tree $tree deleted, added again"
	done < "$T/bgs"
done
