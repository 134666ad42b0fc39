#!/bin/bash
# Directory entries (DIR_ITEM, DIR_INDEX) whose name_len, data_len or file type
# the tree-checker rejects, in a leaf of tree 5: --repair mends the entry in the
# leaf (lengths: the one change that fills the item, confirmed by the name hash
# or, for a DIR_INDEX, by the inode's ref; type: the inode's), and after it our
# check and Debian's are clean and every file reads back unchanged.  A DIR_INDEX
# whose name no inode ref confirms is removed, and its file (named by its
# DIR_ITEM only) is linked into lost+found with its data.  A subvolume's entry
# with a file type other than a directory's is set to a directory's.  An inode
# ref's name_len: the one that fills the item and that the dir index (dir,
# the ref's index) confirms, the top directory's ".." too; a ROOT_REF's: what
# the item's size leaves.  An inode ref's index that no dir index has, while
# one dir index names the inode by the ref's name: the ref takes its index.
# A leaf's last inode item with mode 0: the type its entries in the next leaf
# give.  The root tree's ref of "default": its name_len from the dir item.
# The top directory's inode item numbered 255 or 0: its neighbour's number.
# An xattr entry's file type: the xattr type.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

small_large_images
run_check "$CB" "$T/l.img" list > "$T/items"
# dir 256's DIR_ITEMs and DIR_INDEXes of tree 5 (the third of each onwards)
mapfile -t items < <(awk '$1 == 5 && $2 ~ /^256,84,/ { print $2 }' "$T/items" | sed -n 3,6p)
mapfile -t index < <(awk '$1 == 5 && $2 ~ /^256,96,/ { print $2 }' "$T/items" | sed -n 3,6p)
[ "${#items[@]}" -eq 4 ] && [ "${#index[@]}" -eq 4 ] || _fail "too few entries of dir 256"

for edit in "${items[0]} dir_item.name_len 0" "${items[1]} dir_item.name_len 200" \
	"${items[2]} dir_item.data_len 9" "${index[0]} dir_item.name_len +2" \
	"${index[1]} dir_item.data_len 7" "${index[2]} dir_item.name_len -1"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/l.img" "$T/large" "corrupt leaf: root=5" \
		"do not fill the item, [0-9]* and 0 do" field 5 $edit
	echo "ok: $edit mended"
done

for edit in "${items[3]} dir_item.type 255" "${index[3]} dir_item.type 77"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/l.img" "$T/large" "invalid dir item type" \
		"file type [0-9]* is not one, 1 is its inode's" field 5 $edit
	echo "ok: $edit mended"
done

# the DIR_INDEX of a file without its inode ref: removed; the file is kept in lost+found
key=${index[0]}
entry=$("$BTRFS" inspect-internal dump-tree -t 5 "$T/l.img" | grep -A3 "key (256 DIR_INDEX ${key##*,}) ")
ino=$(awk '/location key/ { gsub(/\(/, "", $3); print $3 }' <<< "$entry")
name=$(awk '$1 == "name:" { print $2 }' <<< "$entry")
[ -n "$ino" ] && [ -f "$T/large/$name" ] || _fail "no inode and name for DIR_INDEX $key"
cp --sparse=always "$T/l.img" "$T/img"
run_check "$CB" "$T/img" delete 5 "$ino,12,256" > /dev/null
run_check "$CB" "$T/img" field 5 "$key" dir_item.name_len +2 > /dev/null
repaired_clean "no one change makes them: item removed" "$T/img"
assert_grep "inode $ino: no name proven, linked into lost+found" "$T/repair"
files_of "$T/img"
cmp "$T/large/$name" "$T/files/lost+found/$ino" || _fail "$name not kept in lost+found as $ino"
echo "ok: an unconfirmed DIR_INDEX removed, $name kept in lost+found"

# a subvolume's entry with a regular file's type
mkdir -p "$T/sv/sub"; echo data > "$T/sv/a"; echo more > "$T/sv/sub/b"
rootdir_image "$T/sv" "$T/v.img" --subvol sub
sv=$("$BTRFS" inspect-internal dump-tree -t 5 "$T/v.img" |
	grep -B1 'location key ([0-9]* ROOT_ITEM' | sed -n 's/.*key (256 DIR_INDEX \([0-9]*\)).*/256,96,\1/p')
[ -n "$sv" ] || _fail "no DIR_INDEX of the subvolume"
run_check "$CB" "$T/v.img" field 5 "$sv" dir_item.type 1 > /dev/null
found_repaired "$T/v.img" "of a subvolume has file type 1, expected 2" "file type set to 2" "$T/sv" \
	"subvolume entry type"
echo "ok: a subvolume's entry gets a directory's type"

# inode refs: a file's in tree 5, the top directory's ".." (256,12,256)
ref=$(awk '$1 == 5 && $2 ~ /^[0-9]*,12,256$/ && $2 != "256,12,256" { print $2; exit }' "$T/items")
[ -n "$ref" ] || _fail "no inode ref of a file in dir 256"
for edit in "$ref inode_ref.name_len 0" "$ref inode_ref.name_len +1" "256,12,256 inode_ref.name_len 0"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/l.img" "$T/large" "corrupt leaf: root=5" \
		"inode ref name_len [0-9]*, the one length that fills the item and that its directory's entry names: set to" \
		field 5 $edit
	echo "ok: $edit mended"
done
# the root tree's directory (6) names itself ".." too
for v in 0 4; do
	damaged_repaired "$T/l.img" "$T/large" "corrupt leaf: root=1" \
		"inode ref name_len $v, the one length that fills the item and that its directory's entry names: set to 2" \
		field 1 6,12,6 inode_ref.name_len $v
	echo "ok: the root tree directory's '..' name_len $v mended"
done
run_check "$CB" "$T/v.img" list > "$T/vitems"
rref=$(awk '$1 == 1 && $2 ~ /^5,156,/ { print $2; exit }' "$T/vitems")
[ -n "$rref" ] || _fail "no ROOT_REF"
damaged_repaired "$T/v.img" "$T/sv" "invalid root ref size" \
	"root ref name_len 32532, the item holds 3 name bytes: set to it" field 1 "$rref" root_ref.name_len 32532
echo "ok: a ROOT_REF's name_len mended"

# an inode ref's index (the dir index at the old one belongs to another file)
for idx in 3 +1; do
	damaged_repaired "$T/l.img" "$T/large" "inode ${ref%%,*} ref '[^']*' in dir 256 has index [0-9]*; the dir index naming it is [0-9]*" \
		"inode ref '[^']*' (dir 256 index [0-9]*) renamed to '[^']*' (index [0-9]*)" \
		field 5 "$ref" inode_ref.index $idx
	echo "ok: an inode ref's index $idx set to its dir index's"
done

# an inode item that is its leaf's last, its mode 0 (the tree-checker rejects
# the leaf): its names are in the next leaf, which the mend finds by the
# leaf's bound (a search of the tree would land in the leaf that does not
# read): the file type its entries give
last_inode=$(awk '$1 == 5 { if (leaf != "" && $5 != leaf && k ~ /,1,0$/) { print k; exit } leaf = $5; k = $2 }' "$T/items")
[ -n "$last_inode" ] || _fail "no leaf of tree 5 ends with an inode item"
damaged_repaired "$T/l.img" "$T/large" "invalid inode mode" \
	"inode mode 00, set to 0100000 (the file type its directory entries give)" \
	field 5 "$last_inode" inode_item.mode 0
echo "ok: a leaf's last inode item with mode 0: the type its entries in the next leaf give"

# the root tree's inode ref of the default subvolume (5, named "default" in
# dir 6, which only a dir item names): its name_len from that dir item
for v in 28 +1 0; do
	damaged_repaired "$T/l.img" "$T/large" "corrupt leaf: root=1" \
		"inode ref name_len [0-9]*, the one length that fills the item and that its directory's entry names: set to 7" \
		field 1 5,12,6 inode_ref.name_len "$v"
	echo "ok: the root tree's ref of 'default' name_len $v mended"
done

# the top directory's inode item numbered like no inode (255, 0), the order
# kept, at a root leaf's first slot: its neighbour's number
for v in -1 0; do
	damaged_repaired "$T/s.img" "$T/small" "invalid inode objectid\|corrupt leaf: root=5" \
		"key objectid 256 was [0-9]*: the one neighbour's objectid" field 5 256,1,0 disk_key.objectid "$v"
	echo "ok: the top directory's inode item objectid $v: 256"
done

# an xattr's entry with another file type than the xattr type (the tree-checker
# rejects the leaf): the xattr type, every xattr's
src=$(corpus_case default-rich)/dev1.img
item_key xkey "$src" "xattr in default-rich" '$1 == 5 && $2 ~ /,24,/ { print $2; exit }'
rm -rf "$T/rorig"
restored_files "$src" "$T/rorig"
for v in 1 +1 255; do
	damaged_repaired "$src" "$T/rorig" "invalid dir item type" \
		"xattr entry at byte 0: file type [0-9]*, set to 8 (every xattr's)" field 5 "$xkey" dir_item.type "$v"
	echo "ok: an xattr entry's file type $v: the xattr type"
done
