#!/bin/bash
# A leaf whose item data was moved down with the offsets from some item on,
# leaving a gap before that item's end (btrfs-progs fsck-tests 003's damage):
# the tree-checker rejects it ("unexpected item end"); --repair moves the data
# back over the gap (sizes kept), in a tree's root leaf and in a leaf deep in
# a tree.  After it our check and Debian's are clean and every file reads
# back unchanged.  An item whose offset alone moved (its data in place) has
# its offset mended instead, in the middle of a leaf and at its last slot.
# An item duplicated (a copy right after it, same key and bytes: the keys are
# then out of order) in the extent tree and the root tree: the copy is removed.
# The last item of a kernel-made uuid tree's root leaf with its offset moved
# by one: both readings pass the tree-checker, the size a uuid item can have
# (whole subvolume ids) tells which.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

# gap SRC-DIR IMAGE LEVEL: in an fs tree leaf of tree height LEVEL, the data
# of the middle item and the ones after it moved 200 bytes down; repaired
gap() {
	local src=$1 img=$2 want=$3 leaf key
	"$CB" "$img" list > "$T/items" || _fail "corrupt-block list"
	# the leaves of tree 5 at that height, the one with fewest items (most
	# free space to move into) but at least 3, its middle key
	read -r leaf key < <(awk -v h="$want" '$1 == 5 && $6 == h { n[$5]++; k[$5, n[$5]] = $2 }
		END { best = 1e9; for (l in n) if (n[l] >= 3 && n[l] < best) { best = n[l]; bl = l }
		      if (bl != "") print bl, k[bl, int(best / 2)] }' "$T/items")
	[ -n "$key" ] || _fail "no fs tree leaf at height $want"
	damaged_repaired "$img" "$src" "unexpected item end" \
		"Mending leaf $leaf of tree 5 slot [0-9]* key .*: item offset [0-9]* size [0-9]* ends 200 bytes before the item before it: data moved to offset" \
		move 5 "$key" -200
	echo "ok: gap in leaf $leaf (tree height $want) at key $key mended"
}

small_large_images
gap "$T/small" "$T/s.img" 0
gap "$T/large" "$T/l.img" 1

# shifted SLOT-KIND: one item's offset alone moved one byte down (its data in
# place, corrupt-block shift): the offset is mended, the data not moved; in the
# middle of a leaf (it then overlaps the next item's data) and at its last slot
# (nothing after it: the reading under which the leaf passes the tree-checker)
"$CB" "$T/l.img" list > "$T/items" || _fail "corrupt-block list"
leaf=$(awk '$1 == 5 && $6 == 1 && $2 ~ /,108,/ { print $5 }' "$T/items" | uniq -c | awk '$1 >= 3 { print $2; exit }')
[ -n "$leaf" ] || _fail "no leaf of tree 5 with file extents"
awk -v l="$leaf" '$1 == 5 && $5 == l { print $2 }' "$T/items" > "$T/keys"
# an inline file extent in the middle: moving its data would pass once ram_bytes were "mended"
middle=$(sed '$d' "$T/keys" | awk -F, '$2 == 108' | sed -n 2p)
[ -n "$middle" ] || _fail "no file extent in the middle of leaf $leaf"
for key in "$middle" "$(tail -n 1 "$T/keys")"; do
	damaged_repaired "$T/l.img" "$T/large" "unexpected item end" \
		"Mending leaf $leaf of tree 5 slot [0-9]* key .*: item offset [0-9]* size [0-9]*, set to offset [0-9]* size [0-9]* (packed between its neighbours)" \
		shift 5 "$key" -1
	assert_not_grep "data moved" "$T/repair"
	echo "ok: offset of $key shifted by one, mended in place"
done

# a csum item's offset shifted down at a leaf's first slot: both readings
# (data moved, or offset mended) pass the tree-checker and no rule holds a
# checksum's bytes; the one whose checksums are those of their data is kept
# (the data then reads back: --check-data-csum clean)
for fs in legacy-features default-rich; do
	img=$(corpus_case $fs)/dev1.img
	item_key key "$img" "csum item in $fs" '$1 == 7 { print $2; exit }'
	cp --sparse=always "$img" "$T/img"
	run_check "$CB" "$T/img" shift 7 "$key" -1 > /dev/null
	run_check "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
	assert_grep "item offset [0-9]* size [0-9]*, set to offset [0-9]* size [0-9]* (packed between its neighbours)" "$T/repair"
	run_check "$BTRFS" check --check-data-csum "$T/img" > "$T/after" 2>&1
	run_check /usr/bin/btrfs check --check-data-csum "$T/img" > /dev/null 2>&1
	echo "ok: $fs csum item $key shifted: its checksums read back right"
done

# an inode item's size 0 deep in tree 5: the size the packing gives, the
# item kept an inode item (an empty item of another type passes the
# tree-checker too: it is not re-typed) and every file reads back
corpus_files rich default-rich "$T/rorig"
item_key ikey "$rich" "inode item deep in tree 5" '$1 == 5 && $2 ~ /,1,0$/ { if (++n == 800) { print $2; exit } }'
damaged_repaired "$rich" "$T/rorig" "unexpected item end" \
	"key (${ikey//,/ }): item offset [0-9]* size 0, set to offset [0-9]* size 160 (packed between its neighbours)" \
	field 5 "$ikey" item.size 0
assert_not_grep "key type" "$T/repair"
echo "ok: an inode item's size 0 set from the packing ($ikey)"

for tree in 2 1; do
	key=$(awk -v t=$tree '$1 == t { print $2; exit }' "$T/items")
	damaged_repaired "$T/l.img" "$T/large" "bad key order" \
		"Mending leaf [0-9]* of tree $tree slot [0-9]* key .*: item a copy of the one before it (same key, same bytes): removed" \
		dup $tree "$key"
	echo "ok: a copy of item $key of tree $tree removed"
done

corpus_files src quota "$T/qorig"
item_key key "$src" "uuid tree item" '$1 == 9 { k = $2 } END { print k }'
damaged_repaired "$src" "$T/qorig" "unexpected item end" \
	"item offset [0-9]* size 8, set to offset [0-9]* size 8" shift 9 "$key" +1
echo "ok: the last uuid item's offset moved by one, mended by its size"
