#!/bin/bash
# Two item entries of a leaf exchanged whole (key, offset and size: corrupt-block
# swap), next to each other and far apart: the tree-checker rejects the key
# order; taken in key order their data is packed as the kernel packs it, so
# --repair puts the entries back in order.  After it our check and Debian's
# are clean and every file reads back unchanged.  A damaged key (its data
# still in slot order) is not that case: the entries are not reordered, the
# key's objectid takes the one neighbour's that keeps the order.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block

small_large_images
run_check "$CB" "$T/l.img" list > "$T/items"
# keys 10, 11 and 40 of the middle leaf of tree 5
read -r k10 k11 k40 < <(awk '$1 == 5 && $6 == 1 { if (!($5 in n)) o[++nl] = $5; k[$5, ++n[$5]] = $2 }
	END { l = o[int((nl + 1) / 2)]; print k[l, 10], k[l, 11], k[l, 40] }' "$T/items")
[ -n "$k40" ] || _fail "no fs tree leaf with 40 items"

for pair in "$k10 $k11" "$k10 $k40"; do
	cp --sparse=always "$T/l.img" "$T/img"
	# shellcheck disable=SC2086
	run_check "$CB" "$T/img" swap 5 $pair > /dev/null
	expect_exit 1 /usr/bin/btrfs check "$T/img" > /dev/null 2>&1
	found_repaired "$T/img" "corrupt leaf: root=5" \
		"item entries out of key order, their data in key order: entries put back in order" \
		"$T/large" "swap $pair"
	echo "ok: entries $pair exchanged, put back in order"
done

damaged_repaired "$T/l.img" "$T/large" "bad key order" \
	"key objectid ${k10%%,*} was $((${k10%%,*} + 1000)): the one neighbour's objectid that keeps the keys in order" \
	field 5 "$k10" key.objectid +1000
assert_not_grep "entries put back in order" "$T/repair"
echo "ok: a damaged key is not reordered: its objectid mended"
