#!/bin/bash
# Root items and extent items of a kernel-made filesystem damaged in the root
# tree and extent tree leaves (the catalogue's root_item.* and
# extent_inline_ref.type classes):
# - a root item's generation older than its root block (of its tree, at its
#   level): the block's (the extent tree's own too, which no search can name);
# - a root item whose block does not read: the backup root of the commit;
#   a global tree's root item deleted (the fs tree's too, its uuid from the
#   uuid tree, also in a leaf below the root tree's root): added from it; the data relocation
#   tree's (also dropped by the root leaf's count one short): added for its
#   one top block by the extent tree;
# - a global tree's root item key offset other than 0: 0; the free space
#   tree's deleted: the tree rebuilt;
# - root flags with bits no kernel sets: none for a tree that is no
#   subvolume, RDONLY kept and DEAD by the refs for a subvolume;
# - an inline back reference of a type its extent's kind has not: the one
#   type under which the refs fill the item (a tree block's two told apart
#   by what the offset names), also at a leaf's first slot.
# Each is reported (exit 1); --repair makes our check and Debian's clean and
# every file reads back unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

corpus_files src default-rich "$T/orig"

for tree in 2 7 256; do
	damaged_repaired "$src" "$T/orig" "parent transid verify failed" \
		"root generation [0-9]*, older than its root block [0-9]*'s [0-9]* (of this tree, at this level): set to it" \
		field 1 "$tree,132,0" root_item.generation -1
	echo "ok: tree $tree's root item generation older than its block: the block's"
done
for edit in "2,132,0 root_item.bytenr +16384" "5,132,0 root_item.bytenr +4096"; do
	# shellcheck disable=SC2086
	damaged_repaired "$src" "$T/orig" "failed to read tree block\|mismatches actual used" \
		"root block [0-9]* level [0-9]* generation [0-9]* does not read, set to [0-9]* level [0-9]* generation [0-9]* (the backup root of this commit)" \
		field 1 $edit
	echo "ok: $edit: the backup root of the commit"
done

# a global tree's root item deleted: added again
# from the commit's backup root, whose block reads as that tree's root
# (the fs tree's last, keeping its uuid, which the uuid tree names)
for tree in 2 4 7 5; do
	damaged_repaired "$src" "$T/orig" "no root item for the\|ERROR" \
		"no root item for tree $tree: added, its root block [0-9]* level [0-9]* generation [0-9]* (the backup root of this commit)" \
		delete 1 "$tree,132,0"
	echo "ok: tree $tree's deleted root item added from the backup root"
done
uuid() { "$BTRFS" inspect-internal dump-tree -t 1 "$1" | grep -A5 'key (FS_TREE ROOT_ITEM 0)' | awk '$1 == "uuid" { print $2 }'; }
[ -n "$(uuid "$src")" ] && [ "$(uuid "$T/img")" = "$(uuid "$src")" ] || _fail "the fs tree's root item lost its uuid"
# in a root tree of several leaves, a leaf below its root: the leaf that spans the key
corpus_files mixed mixed-bg "$T/morig"
damaged_repaired "$mixed" "$T/morig" "no root item for the fs tree" \
	"Mending leaf [0-9]* of tree 1: no root item for tree 5: added" delete 1 5,132,0
echo "ok: the fs tree's root item deleted from a leaf below the root tree's root: added"
# the data relocation tree's, the last key of the root tree's last leaf
damaged_repaired "$mixed" "$T/morig" "back reference tree block ref root -9" \
	"Mending leaf [0-9]* of tree 1: no root item for tree -9: added" delete 1 18446744073709551607,132,0
echo "ok: the data relocation tree's root item deleted from the root tree's last leaf: added"

# the free space tree's root item deleted: the tree is rebuilt, its old
# blocks' extent records dropped (the rebuild's tree takes no updates before)
damaged_repaired "$src" "$T/orig" "free space tree: the feature is set but the tree has no root item" \
	"Rebuilding the free space tree from the extent tree" delete 1 10,132,0
echo "ok: the free space tree's deleted root item: the tree rebuilt"

# a global tree's root item keyed at another offset than 0 (where the
# kernel looks it up): the key offset set back to 0
for c in "2,132,0 -1" "4,132,0 +5" "7,132,0 18446744073709551615"; do
	read -r key value <<< "$c"
	damaged_repaired "$src" "$T/orig" "root item (${key%%,*} ROOT_ITEM [0-9]*) in leaf [0-9]* has offset [0-9]*, expected 0" \
		"key offset 0 was [0-9]*: what the kernel looks a tree that is no subvolume up at" \
		field 1 "$key" disk_key.offset "$value"
	echo "ok: tree ${key%%,*}'s root item key offset $value set back to 0"
done

# the data relocation tree's root item (the root leaf's last item: its count
# one short drops it too): added for its one top block by the extent tree's
# back references (the kernel does not mount without it)
reloc=18446744073709551607
for edit in "delete 1 $reloc,132,0" "header 1 2,132,0 nritems -1"; do
	# shellcheck disable=SC2086
	damaged_repaired "$src" "$T/orig" "back reference tree block ref root -9" \
		"no root item for tree -9: added, its root block [0-9]* level 0 generation [0-9]* (its one top block by the extent tree)" \
		$edit
	echo "ok: $edit: the data relocation tree's root item added again"
done

for c in "7,132,0 0x0" "256,132,0 0x1"; do
	read -r key now <<< "$c"
	damaged_repaired "$src" "$T/orig" "invalid root flags, have 0xffffffffffffffff" \
		"root flags 0xffffffffffffffff with bits no kernel sets, set to $now" field 1 "$key" root_item.flags -1
	echo "ok: root flags of $key set to $now"
done

# a data extent's inline ref (type 178 at offset 24), a tree block's (176):
# every wrong type finds the one that fills the item
item_key data "$src" "data extent" '$1 == 2 && $2 ~ /,168,/ { if (++n == 5) { print $2; exit } }'
item_key tree "$src" "metadata item" '$1 == 2 && $2 ~ /,169,/ { if (++n == 5) { print $2; exit } }'
for c in "$data 177 178" "$data 0 178" "$tree 255 176" "$tree 177 176"; do
	read -r key bad good <<< "$c"
	damaged_repaired "$src" "$T/orig" "inline ref type $bad\|unknown inline ref\|corrupt leaf" \
		"inline back reference type $bad at offset 24, the one type of a .* under which its refs fill the item: set to $good" \
		field 2 "$key" extent_inline_ref.type@24 "$bad"
	echo "ok: inline ref type $bad of $key set to $good"
done
# at a leaf's first slot (its parent names the leaf by that key: the item is
# mended, not removed)
corpus_files bulk nodesize4k-bulk "$T/orig-bulk"
item_key first "$bulk" "data extent at a leaf's first slot" '$1 == 2 && $5 != prev { prev = $5; if ($2 ~ /,168,/ && ++n == 3) { print $2; exit } }'
damaged_repaired "$bulk" "$T/orig-bulk" "corrupt leaf" "inline back reference type 177 at offset 24, .* set to 178" \
	field 2 "$first" extent_inline_ref.type@24 -1
echo "ok: inline ref type at a leaf's first slot ($first) mended"
