#!/bin/bash
# A root item's generation that was never written (0) or is beyond the
# superblock's (the tree-checker allows one more, so the leaf reads): --repair
# sets it from its root block's header, for any tree, the extent tree too (whose
# root block the extent tree cannot name).  After it our check and Debian's are
# clean and every file reads back unchanged.  A tree block's extent item whose
# generation is not the block's (both are the allocating transaction's): found,
# and the rebuilt item takes the block's.  A root item's drop_level with no
# deletion under way is 0; a last_snapshot beyond the superblock's becomes
# the root's generation.  An inode's transid one beyond the superblock's (the
# tree-checker lets it through) is the superblock's; a generation beyond the
# transid follows it.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block

small_large_images
for edit in "2,132,0 root_item.generation +1" "2,132,0 root_item.generation 0" \
	"7,132,0 root_item.generation 0" "5,132,0 root_item.generation +1"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/l.img" "$T/large" "root item (${edit%%,*} ROOT_ITEM 0) generation" \
		"root generation [0-9]* \(beyond the superblock's\|never written\), set to" field 1 $edit
	echo "ok: $edit mended"
done

# tree 5's leaves: the extent item of one of them
leaf=$("$CB" "$T/l.img" list | awk '$1 == 5 { print $5 }' | sort -u | head -n 1)
item_key key "$T/l.img" "extent item for leaf $leaf" -v l="$leaf" '$1 == 2 && $2 ~ "^" l ",16[89]," { print $2; exit }'
damaged_repaired "$T/l.img" "$T/large" "tree block $leaf of tree 5: extent item generation 1, the block's [0-9]*" \
	"Repaired extent references for $leaf" field 2 "$key" extent_item.generation 1
"$BTRFS" inspect-internal dump-tree -t 2 "$T/img" | grep -A1 "key ($leaf METADATA_ITEM\|key ($leaf EXTENT_ITEM" |
	grep -q "gen 1 " && _fail "extent item generation still 1"
echo "ok: a tree block's extent item generation set to the block's"

# a root item's drop_level with no deletion under way (drop_progress zero):
# beyond the levels (the tree-checker's rule) or above the root's level: 0;
# its last_snapshot beyond the superblock's: the root's generation, the
# value under which no shared block is taken for unshared
for edit in "drop_level 200:root drop_level 200 with no deletion under way, set to 0" \
	    "drop_level 4:root 5: root item drop_level set to 0" \
	    "last_snapshot 18446744073709551615:root last_snapshot 18446744073709551615 beyond the superblock's, set to the root's generation"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/l.img" "$T/large" "${edit%% *}" \
		"${edit#*:}" field 1 5,132,0 root_item.${edit%%:*}
	echo "ok: root item ${edit%%:*} mended"
done

# an inode's transid and generation one beyond the superblock's
run_check "$CB" "$T/l.img" list > "$T/items"
ino=$(awk '$1 == 5 && $2 ~ /,1,0$/ && $4 == "inode_item" { n++; if (n == 20) { split($2, k, ","); print k[1]; exit } }' "$T/items")
[ -n "$ino" ] || _fail "no inode item"
gen=$("$BTRFS" inspect-internal dump-super "$T/l.img" | awk '$1 == "generation" { print $2 }')
for f in transid generation; do
	damaged_repaired "$T/l.img" "$T/large" "inode $ino: generation [0-9]* transid [0-9]* beyond the superblock's $gen" \
		"inode $ino: $f set to $gen" field 5 "$ino,1,0" inode_item.$f $((gen + 1))
	echo "ok: an inode's $f beyond the superblock's mended"
done
