#!/bin/bash
# A damaged key type in a leaf of tree 5: one that breaks the key order (the
# tree-checker rejects the leaf) or one no file tree item has (the leaf passes
# the tree-checker, check reports an unknown key).  --repair sets the one type
# that keeps the keys in order and makes the leaf pass the tree-checker; after
# it our check and Debian's are clean and every file reads back unchanged.  At
# a leaf's first slot the parent's key pointer gives the key; a first key that
# differs from it but keeps the leaf valid is refused, nothing written.
# A root item whose key objectid is not its root block's owner, when that tree has no
# root item, moves back to the owner's key.  A subvolume's root item whose type
# reads as one the root tree has not (131): two types pass the tree-checker
# (an inline file extent of 439 bytes too), the item's size is a root item's.
# A linked subvolume without a root item is an error the repair refuses
# (before: its tree was taken for garbage and its extents dropped).  A key
# objectid that breaks the order: a neighbour's, or (an extent record) the
# item removed and rebuilt; at a tree's last leaf, of two readings the one
# whose items belong to an inode the leaf has.  Fixed key offsets (inode
# item 0, device item its devid); an inode ref's directory from its entries;
# a free space tree leaf that cannot be mended: the tree rebuilt.  A qgroup
# item's type: QGROUP_STATUS is the one (0 240 0), so of two sized types one.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

small_large_images
run_check "$CB" "$T/l.img" list > "$T/items"
# the middle leaf of tree 5: its items in the middle, of one inode, by type
leaf=$(awk '$1 == 5 { print $5 }' "$T/items" | uniq | awk '{ l[NR] = $1 } END { print l[int((NR + 1) / 2)] }')
awk -v l="$leaf" '$1 == 5 && $5 == l { print $2 }' "$T/items" > "$T/keys"
pick() { sed -n '20,$p' "$T/keys" | awk -F, -v t="$1" '$2 == t { print; exit }'; }
inode=$(pick 1); extent=$(pick 108)
[ -n "$inode" ] && [ -n "$extent" ] || _fail "no inode item or file extent in the middle of leaf $leaf"

for edit in "$inode disk_key.type 0" "$extent disk_key.type -1" "$extent disk_key.type 255" \
	"$inode disk_key.type 13"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/l.img" "$T/large" "unknown key\|bad key order" \
		"the one type that keeps the keys in order" field 5 $edit
	echo "ok: $edit mended"
done

# the leaf's first key: its parent's key pointer gives it
first=$(head -n 1 "$T/keys")
for v in 0 +1; do
	damaged_repaired "$T/l.img" "$T/large" "first key mismatch" \
		"first key ([0-9 ]*), set to its pointer's" field 5 "$first" disk_key.type $v
	echo "ok: the first key's type ($v) set from the parent's key"
done
# an objectid one lower: the leaf still passes, the parent's key may be the damaged one
cp --sparse=always "$T/l.img" "$T/img"
run_check "$CB" "$T/img" field 5 "$first" disk_key.objectid -1 > /dev/null
refused_unchanged "$T/img" "first key mismatch"
echo "ok: a first key that keeps the leaf valid is not taken for damage: refused, nothing written"

# a root item's key objectid (the csum tree's, 7 -> 8): its root block is tree 7's,
# which has no root item now: the item moves back to key (7 ROOT_ITEM 0)
damaged_repaired "$T/l.img" "$T/large" "no root item for the csum tree" \
	"is tree 7's (its owner, and it reads as that tree's root), which has no root item: key objectid set to 7" \
	field 1 7,132,0 disk_key.objectid 8
echo "ok: a root item's key objectid set from its root block's owner"

corpus_files src default-rich "$T/orig"
damaged_repaired "$src" "$T/orig" "back reference .* root 256" \
	"key type 132 was 131: the one type that keeps the keys in order and passes the tree-checker with the item's size" \
	field 1 256,132,0 disk_key.type 131
echo "ok: a subvolume root item's key type mended by the item's size"
cp --sparse=always "$src" "$T/img"
run_check "$CB" "$T/img" delete 1 256,132,0 > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "root 256: linked by root 5 as '[^']*' in dir [0-9]* index [0-9]* (ROOT_REF and ROOT_BACKREF), but it has no root item" "$T/check"
refused_unchanged "$T/img" "checking root refs is not implemented; nothing was written"
echo "ok: a linked subvolume without a root item: found, the repair refused"

# a key objectid set to 0 (the key order breaks): a root backref takes its
# neighbours' objectid; an extent tree record is removed and rebuilt from
# the trees that use the extent
damaged_repaired "$src" "$T/orig" "bad key order" \
	"key objectid 256 was 0: the one neighbour's objectid that keeps the keys in order and passes the tree-checker" \
	field 1 256,144,5 disk_key.objectid 0
echo "ok: a root backref's key objectid 0 mended from its neighbours"
item_key mkey "$src" "METADATA_ITEM in the extent tree" '$1 == 2 && $2 ~ /,169,/ { if (++n == 10) { print $2; exit } }'
damaged_repaired "$src" "$T/orig" "bad key order" \
	"extent record out of key order: item removed, the extent's records are rebuilt from the trees" \
	field 2 "$mkey" disk_key.objectid 0
echo "ok: an extent record with key objectid 0 removed and rebuilt"

# a ROOT_REF's key type random: ROOT_BACKREF passes the tree-checker too, but
# the top subvolume (5) has no backref
damaged_repaired "$src" "$T/orig" "bad key order" "key type 156 was 204: the one type that keeps the keys in order" \
	field 1 5,156,256 disk_key.type 204
echo "ok: a ROOT_REF's key type mended (the top subvolume has no backref)"

# a key offset that breaks the order or that the tree-checker rejects: a dir
# index's is its inode's ref index by that name, a file extent's where the
# inode's neighbouring extents and size say
didx=$(awk '$1 == 5 && $2 ~ /^256,96,/ { if (++n == 10) { print $2; exit } }' "$T/items")
fext=$(awk '$1 == 5 && $2 ~ /,108,0$/ { if (++n == 10) { print $2; exit } }' "$T/items")
[ -n "$didx" ] && [ -n "$fext" ] || _fail "no dir index or file extent"
for edit in "$didx disk_key.offset 18446744073709551615:its inode's ref by that name says (its index)" \
	    "$fext disk_key.offset +1:the inode's neighbouring extents say"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/l.img" "$T/large" "corrupt leaf" "key offset [0-9]* was [0-9]*: what ${edit#*:}" \
		field 5 ${edit%%:*}
	echo "ok: ${edit%%:*} mended"
done

# fixed key offsets: an inode item's in a file tree is 0 (also at a root
# leaf's first slot), a device item's its devid
damaged_repaired "$src" "$T/orig" "invalid inode key offset" "key offset 0 was [0-9]*: what every inode item's is" \
	field 256 256,1,0 disk_key.offset 2341031206187448278
echo "ok: an inode item's key offset mended to 0"
damaged_repaired "$src" "$T/orig" "devid mismatch" "key offset 1 was 5: what its devid says" \
	field 3 1,216,1 disk_key.offset 5
echo "ok: a device item's key offset mended to its devid"

# a dir item's key offset (its name's hash) 0: the key order breaks, the
# name's hash tells it; an inode ref's key type read as an extref (the order
# holds, the content fails it): the one type the content passes
item_key ditem "$src" "dir item in dir 260" '$1 == 5 && $2 ~ /^260,84,/ { if (++n == 30) { print $2; exit } }'
item_key iref "$src" "inode ref in dir 260" '$1 == 5 && $2 ~ /,12,260$/ { if (++n == 30) { print $2; exit } }'
damaged_repaired "$src" "$T/orig" "bad key order" "key offset [0-9]* was 0: what its name's hash says" \
	field 5 "$ditem" disk_key.offset 0
echo "ok: a dir item's key offset 0 mended from its name's hash ($ditem)"
damaged_repaired "$src" "$T/orig" "corrupt leaf" "key type 12 was 13: the one type that keeps the keys in order" \
	field 5 "$iref" disk_key.type 13
echo "ok: an inode ref's key type read as an extref mended ($iref)"

# a key objectid at the end of a tree's last leaf (nothing bounds it): of the
# two readings (this item's objectid the neighbours', or the next item's
# this one's), the one whose items then belong to an inode the leaf has
corpus_files bsrc nodesize4k-bulk "$T/orig-bulk"
item_key last "$bsrc" "last leaf items in tree 5" '$1 == 5 { k[++n] = $2 } END { print k[n - 1] }'
damaged_repaired "$bsrc" "$T/orig-bulk" "bad key order" \
	"key objectid [0-9]* was 5690302936835290129: .* (of the inode the leaf has)" field 5 "$last" disk_key.objectid 5690302936835290129
echo "ok: the next-to-last key objectid of tree 5's last leaf mended ($last)"

# an inode ref's directory (key offset) damaged, the leaf valid: the other
# directory's dir item and dir index name the inode by the ref's name and
# index, so the ref moves there
item_key ref "$src" "inode ref in dir 260" '$1 == 5 && $2 ~ /,12,260$/ { if (++n == 100) { print $2; exit } }'
damaged_repaired "$src" "$T/orig" "unresolved ref dir 261 " "inode ref '[^']*' (dir 261 index [0-9]*) moved to dir 260" \
	field 5 "$ref" disk_key.offset +1
echo "ok: an inode ref's directory mended from its entries ($ref)"

# a ROOT_REF's key offset (the child subvolume) that breaks the order: the
# one ROOT_BACKREF of the same bytes naming its parent says it
damaged_repaired "$src" "$T/orig" "bad key order" "key offset 256 was [0-9]*: what its partner ref says" \
	field 1 5,156,256 disk_key.offset 771375476857860573
echo "ok: a ROOT_REF's key offset mended from its ROOT_BACKREF"

# the top directory's ".." ref keyed under another dir: moved back to itself
damaged_repaired "$src" "$T/orig" "the top directory's own inode ref '..' (index 0) is keyed in dir 300, expected itself" \
	"inode ref '..' (dir 300 index 0) moved to dir 256" field 5 256,12,256 disk_key.offset 300
echo "ok: the top directory's '..' ref keyed under dir 300 moved back"

# a free space tree leaf the mend cannot tell: the tree is rebuilt from the
# extent tree (its unreadable leaf freed unread)
# (a free space extent between two others: either neighbour's objectid fits)
item_key fst "$src" "free space extent" '$1 == 10 { k[++n] = $2 } END { for (i = n - 1; i > 1; i--) if (k[i - 1] k[i] k[i + 1] ~ /,199,.*,199,.*,199,/) { print k[i]; exit } }'
damaged_repaired "$src" "$T/orig" "free space tree: .*cannot be read" "Rebuilding the free space tree from the extent tree" \
	field 10 "$fst" disk_key.objectid 0
echo "ok: a free space tree leaf that does not read: the tree rebuilt"


# a qgroup info item's key type 255 (the quota tree's root leaf): the status
# item is the one (0 QGROUP_STATUS 0), so of the types that keep the order
# only QGROUP_INFO is left
corpus_files qsrc quota "$T/qorig"
damaged_repaired "$qsrc" "$T/qorig" "corrupt leaf: root=8" \
	"key type 242 was 255: the one type that keeps the keys in order and passes the tree-checker" \
	field 8 0,242,5 disk_key.type 255
echo "ok: a qgroup info item's key type 255 mended to QGROUP_INFO"
