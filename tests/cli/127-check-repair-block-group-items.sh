#!/bin/bash
# A deleted block group item (the catalogue's item/delete/BLOCK_GROUP_ITEM
# class), of every kind of block group, in a block group tree
# (default-rich) and in the extent tree (legacy-features): check reports the
# chunk without its item (exit 1, the extents in its range counted there,
# not as extents outside any block group), and --repair adds the item with
# the chunk's type and the sum of those extents as used, so that our check
# and Debian's are clean and every file reads back unchanged; not for a
# chunk whose stripes lack their dev extents (refused, nothing written).
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

for fs in default-rich legacy-features; do
	corpus_files src $fs "$T/orig"
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

# a chunk without its block group item and without its dev extent (what a
# chunk item of a block group freed since would look like): no block group
# is added for it; refused, nothing written
src=$(corpus_case default-rich)/dev1.img
cp --sparse=always "$src" "$T/img"
run_check "$CB" "$T/img" delete 11 63963136,192,33554432 > /dev/null
run_check "$CB" "$T/img" delete 4 1,204,105906176 > /dev/null
refused_unchanged "$T/img" "nothing was written"
assert_grep "chunk \[63963136 33554432\] type 0x1 has no block group item" "$T/repair"
assert_not_grep "Block group 63963136: no block group item: added" "$T/repair"
echo "ok: a chunk without block group item nor dev extent: refused, nothing written"
