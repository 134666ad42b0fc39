#!/bin/bash
# check --repair --force by class of corruption, on copies of kernel-made
# corpus filesystems damaged with tests/tools/corrupt-block (items found by
# key and name, not by offset): each class Debian's btrfs check --repair
# mends and ours once refused (directory nlink above 1, an invalid inode
# mode, extent refs below the inline refs or flags against them, an inode
# ref's name, a tree block back reference naming another root), or mended
# wrongly (an inode's mode type against its entries and items, a
# subvolume's missing directory entry, FULL_BACKREF on a block never
# shared; a subvolume's root item refs, not found before; a root item whose root block does
# not read at its bytenr, level or generation; checksums over no data extent), is found (exit 1), repaired with the fix named, and then our check
# and Debian's are clean and every file reads back as before (Debian's
# btrfs restore).  A mode nothing can vouch for is refused, nothing written.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

files() { # IMAGE DIR: the files of the filesystem's top subvolume, read by Debian's restore
	rm -rf "$2"
	restored_files "$1" "$2"
	[ -n "$(ls -A "$2")" ] || _fail "restore of $1 read no file"
}
dump5() { "$BTRFS" inspect-internal dump-tree -t 5 "$img0"; }
ino_of() { # NAME: the inode a DIR_INDEX entry NAME points to
	dump5 | awk -v n="$1" '/DIR_INDEX/ { x = 1 } /DIR_ITEM/ { x = 0 }
		/location key/ { ino = $3; sub(/\(/, "", ino) } x && $1 == "name:" && $2 == n { print ino; exit }'
}
entry_key() { # TYPE NAME: the key "DIR,TYPE,OFFSET" of the entry NAME (DIR_ITEM or DIR_INDEX)
	dump5 | awk -v t="$1" -v n="$2" '$3 == "key" && $5 == t { k = $4 "," $5 "," $6; sub(/\(/, "", k); sub(/\)/, "", k) }
		$3 == "key" && $5 != t { k = "" } $1 == "name:" && $2 == n && k != "" { print k; exit }'
}

# repaired EDIT... -- PATTERN: a copy of $img0 edited (corrupt-block, or $EDIT_WITH) is found,
# repaired saying PATTERN, then clean
repaired() {
	local pat=${*: -1}
	set -- "${@:1:$#-2}"
	cp --sparse=always "$img0" "$T/img"
	run_check "${EDIT_WITH:-$CB}" "$T/img" "$@" > "$T/edit" 2>&1
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	repaired_clean "$pat" "$T/img"
	assert_grep "^Repair committed" "$T/repair"
	files "$T/img" "$T/files"
	diff -r "$T/files0" "$T/files" > "$T/diff" 2>&1 || { cat "$T/diff" >&8; _fail "files differ after repair of: $*"; }
}

# --- a small filesystem: hello.txt (inline), dir/sub/blob (one data extent), dir/link
img0=$(corpus_case csum-xxhash)/dev1.img
files "$img0" "$T/files0"
file=$(ino_of hello.txt)
dir=$(ino_of dir)
sub=$(ino_of sub)
blob=$(ino_of blob)
[ -n "$file" ] && [ -n "$dir" ] && [ -n "$sub" ] && [ -n "$blob" ] || _fail "corpus names not found"
read -r data len < <(dump5 | awk -v k="($blob EXTENT_DATA 0)" 'index($0, k) { f = 1 }
	f && /disk byte/ { print $5, $7; exit }')
leaf=$(dump5 | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1)
[ -n "$data" ] && [ -n "$len" ] && [ -n "$leaf" ] || _fail "no data extent or fs tree leaf"

# items that fail the tree-checker: the leaf is mended (directories have one link; the
# type the DIR_INDEX and DIR_ITEM agree on; refs at least what the inline refs count)
repaired field 5 "$dir,INODE_ITEM,0" nlink 3 -- "key ($dir 1 0): directory nlink 3, set to 1"
repaired field 5 "$file,INODE_ITEM,0" mode 0 -- "key ($file 1 0): inode mode 00, set to 0100000 (the file type its directory entries give)"
repaired field 2 "$data,EXTENT_ITEM,$len" refs 0 -- "extent refs 0, below its inline back references' 1: set to 1"
repaired field 2 "$data,EXTENT_ITEM,$len" flags 2 -- "extent flags 0x2, but its inline refs are a data extent's: set to 0x1"
repaired field 2 "$leaf,METADATA_ITEM,0" flags 1 -- "extent flags 0x1, but its key makes it a tree block: set to 0x2"
# FULL_BACKREF on a block no snapshot ever shared (the fs tree's root leaf)
repaired field 2 "$leaf,METADATA_ITEM,0" flags +256 -- "Repaired extent references for $leaf"
assert_grep "tree block $leaf of tree 5: extent item flags 0x102 have FULL_BACKREF, but .* was never shared" "$T/repair"
# the top directory of a tree of files (the data relocation tree's too) is a directory,
# whatever type its damaged mode had
repaired field 18446744073709551607 256,INODE_ITEM,0 mode 0 -- "key (256 1 0): inode mode 00, set to 040000 (a tree's top directory)"
repaired field 5 256,INODE_ITEM,0 mode 010000100755 -- "key (256 1 0): inode mode 010000100755, set to 040755 (a tree's top directory)"
# an inode ref's name against its two entries
repaired field 5 "$file,INODE_REF,256" u8@10 0x7a -- "inode ref 'zello.txt' (dir 256 index [0-9]*) renamed to 'hello.txt'"
# the top directory's own inode ref ('..', index 0), its name or index damaged (a fuzz-found miss)
repaired field 5 256,INODE_REF,256 u8@10 0x2f -- "root 5 inode 256: inode ref '/.' (dir 256 index 0) renamed to '..' (index 0)"
repaired field 5 256,INODE_REF,256 index 7 -- "root 5 inode 256: inode ref '..' (dir 256 index 7) renamed to '..' (index 0)"
# a tree block's back reference naming another root than the one that reaches it
repaired field 2 "$leaf,METADATA_ITEM,0" extent_inline_ref.offset@24 7 -- "Repaired extent references for $leaf"
# a valid mode of the wrong type: the entries' type wins when the inode's items fit it
repaired field 5 "$file,INODE_ITEM,0" mode 040644 -- "root 5 inode $file: mode set to 0100644"
repaired field 5 "$sub,INODE_ITEM,0" mode 0100755 -- "root 5 inode $sub: mode set to 040755"

# refused: an invalid mode whose two entries disagree on the type; nothing written
cp --sparse=always "$img0" "$T/img"
run_check "$CB" "$T/img" field 5 "$(entry_key DIR_ITEM hello.txt)" type 7 > /dev/null 2>&1
run_check "$CB" "$T/img" field 5 "$file,INODE_ITEM,0" mode 0 > /dev/null 2>&1
cp --sparse=always "$T/img" "$T/before"
expect_exit 1 "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
assert_grep "inode mode, have 00 expect a valid S_IF\* type): not mended" "$T/repair"
assert_grep "nothing was written" "$T/repair"
cmp "$T/before" "$T/img" > /dev/null || _fail "a refused repair changed the image"

# --- subvolumes: the parent's entries naming one, re-added from its ROOT_REF
img0=$(corpus_case default-rich)/dev1.img
files "$img0" "$T/files0"
di=$(entry_key DIR_ITEM subvol)
dx=$(entry_key DIR_INDEX subvol)
[ -n "$di" ] && [ -n "$dx" ] || _fail "no entries for the subvolume 'subvol'"
repaired delete 5 "$di" -- "dir item 'subvol' (index [0-9]*) for inode 256 added"
assert_grep "ROOT_REF from root 5 names 'subvol' in dir 256, but that dir has no dir item for it" "$T/repair"
repaired delete 5 "$dx" -- "dir index 'subvol' (index [0-9]*) for inode 256 added"
# a linked subvolume's root item refs (Debian's check finds 0, not 2; its repair mends neither)
sv=$("$BTRFS" inspect-internal dump-tree -t 5 "$img0" | awk '$3 == "key" && $5 == "DIR_INDEX" { x = 1 } $3 == "key" && $5 != "DIR_INDEX" { x = 0 }
	x && /location key .* ROOT_ITEM/ { id = $3; sub(/\(/, "", id) } x && $1 == "name:" && $2 == "subvol" { print id; exit }')
[ -n "$sv" ] || _fail "no subvolume id for 'subvol'"
repaired field 1 "$sv,ROOT_ITEM,0" refs 0 -- "root $sv: root item refs set to 1"
repaired field 1 "$sv,ROOT_ITEM,0" refs 2 -- "root $sv: root item refs set to 1"
repaired field 1 5,ROOT_ITEM,0 refs 0 -- "root 5: root item refs set to 1"
# a subvolume's root_dirid: its top directory is 256 in every tree of files (Debian mends tree 5's)
repaired field 1 5,ROOT_ITEM,0 root_dirid -1 -- "root 5: root item root_dirid set to 256"
repaired field 1 "$sv,ROOT_ITEM,0" root_dirid 0 -- "root $sv: root item root_dirid set to 256"
# a root item whose root block does not read at its bytenr, level or generation (Debian mends
# a subvolume's from the extent tree too): all three from the extent tree's top block of the tree
root_of() { # ID: "BYTENR LEVEL GENERATION" of tree ID's root item
	local k="($1 ROOT_ITEM "
	[ "$1" = 5 ] && k="(FS_TREE ROOT_ITEM "
	[ "$1" = 7 ] && k="(CSUM_TREE ROOT_ITEM "
	[ "$1" = 2 ] && k="(EXTENT_TREE ROOT_ITEM "
	"$BTRFS" inspect-internal dump-tree -t 1 "$img0" | awk -v k="$k" 'index($0, k) { f = 1; next }
		f && /root_dirid/ { b = $6; g = $2 } f && /generation_v2/ { print b, $2, g; exit }'
}
read -r svb svl svg < <(root_of "$sv")
read -r fsb fsl fsg < <(root_of 5)
read -r _ _ csg < <(root_of 7)
[ -n "$svg" ] && [ -n "$fsg" ] && [ -n "$csg" ] && [ "$fsl" -gt 0 ] ||
	_fail "no root items of trees $sv, 5 and 7 (or tree 5 is one leaf)"
mended() { # ID: the message of root item ID's mend to its true root block
	local b l g
	read -r b l g < <(root_of "$1")
	[ -n "$g" ] || _fail "no root item of tree $1"
	echo "key ($1 132 0): root block [0-9]* level [0-9]* generation [0-9]* does not read, set to $b level $l generation $g (the extent tree's top block of tree $1)"
}
repaired field 1 "$sv,ROOT_ITEM,0" bytenr 0 -- "$(mended "$sv")"
# an unaligned bytenr and a level beyond the last fail the tree-checker in the root tree's leaf
repaired field 1 "$sv,ROOT_ITEM,0" bytenr +1 -- "$(mended "$sv")"
# (a level no tree has: its root block's, the block being the item's by owner and generation)
repaired field 1 "$sv,ROOT_ITEM,0" level 255 -- "key ($sv 132 0): root level 255, set to its root block's $svl"
# (older than its root block, which is the tree's at its level: the block's)
repaired field 1 "$sv,ROOT_ITEM,0" generation -1 -- \
	"key ($sv 132 0): root generation [0-9]*, older than its root block $svb's $svg (of this tree, at this level): set to it"
repaired field 1 "$sv,ROOT_ITEM,0" generation +1 -- "$(mended "$sv")"
# (the fs tree's root: the backup root of the commit names it first)
repaired field 1 5,ROOT_ITEM,0 level 0 -- \
	"key (5 132 0): root block $fsb level 0 generation $fsg does not read, set to $fsb level $fsl generation $fsg (the backup root of this commit)"
# a global tree's (Debian leaves those)
repaired field 1 7,ROOT_ITEM,0 level 255 -- "key (7 132 0): root level 255, set to its root block's [0-9]"
# another tree's root block, of the same level and generation: found by its owner
other=$(dump5 | awk '/location key .* ROOT_ITEM/ { id = $3; sub(/\(/, "", id); print id }' | grep -vx "$sv" | head -n 1)
read -r ob ol og < <(root_of "$other")
[ -n "$og" ] || _fail "no second subvolume in the fs tree"
repaired field 1 "$sv,ROOT_ITEM,0" bytenr "$ob" -- "$(mended "$sv")"
# refused when the extent tree names no block of the tree (its one leaf's back reference
# moved to another tree): nothing written
cp --sparse=always "$img0" "$T/img"
run_check "$CB" "$T/img" field 1 "$sv,ROOT_ITEM,0" bytenr 0 > /dev/null 2>&1
run_check "$CB" "$T/img" field 2 "$svb,METADATA_ITEM,0" extent_inline_ref.offset@24 7 > /dev/null 2>&1
cp --sparse=always "$T/img" "$T/before"
expect_exit 1 "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
assert_grep "key ($sv 132 0): root block 0 level $svl generation $svg does not read, and no tree block of the extent tree has a back reference to tree $sv: not mended" "$T/repair"
assert_grep "nothing was written" "$T/repair"
cmp "$T/before" "$T/img" > /dev/null || _fail "a refused root item repair changed the image"
# nor can it name its own root: the extent tree's root item with its bytenr damaged
# takes the root the backup root of the commit names (its level alone is the root
# block's, which the item still names)
repaired field 1 2,ROOT_ITEM,0 level 255 -- "key (2 132 0): root level 255, set to its root block's [0-9]"
repaired field 1 2,ROOT_ITEM,0 bytenr +1 -- \
	"key (2 132 0): root block [0-9]* level [0-9]* generation [0-9]* does not read, set to [0-9]* level [0-9]* generation [0-9]* (the backup root of this commit)"
# checksums over no data extent (a stray csum item, inserted through the engine in the gap
# after the first data extents; Debian finds it, its repair leaves it): deleted
EDIT_WITH=$TOOL_DIR/tree-edit repaired ins 7 18446744073709551606 128 19922944 deadbeefdeadbeef -- \
	"Deleted the checksums of \[19922944 19931136): no data extent there"
assert_grep "csum tree: checksums for \[19922944 19931136) but there is no data extent at 19922944" "$T/repair"
echo "each class repaired, both checks clean, files unchanged; the unvouched mode refused"
