#!/bin/bash
# A leaf whose item data was moved down with the offsets from some item on,
# leaving a gap before that item's end (btrfs-progs fsck-tests 003's damage):
# the tree-checker rejects it ("unexpected item end"); --repair moves the data
# back over the gap (sizes kept), in a tree's root leaf and in a leaf deep in
# a tree.  After it our check and Debian's are clean and every file reads
# back unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs
CB=$TOOL_DIR/corrupt-block
[ -x "$CB" ] || _fail "corrupt-block not built (make unit-bins)"

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
	cp --sparse=always "$img" "$T/img"
	run_check "$CB" "$T/img" move 5 "$key" -200 > /dev/null
	found_repaired "$T/img" "unexpected item end" \
		"Mending leaf $leaf of tree 5 slot [0-9]* key .*: item offset [0-9]* size [0-9]* ends 200 bytes before the item before it: data moved to offset" \
		"$src" "height $want"
	echo "ok: gap in leaf $leaf (tree height $want) at key $key mended"
}

small_large_images
gap "$T/small" "$T/s.img" 0
gap "$T/large" "$T/l.img" 1
