#!/bin/bash
# Root blocks whose header alone is wrong.  The chunk tree's root must read
# for the filesystem to open at all: check mends its header in memory at open
# (generation 0, beyond the superblock or newer than the pointer while the backup root agrees with the pointer, owner, bytenr), says so as an error
# (exit 1) and checks the rest; --repair writes the mended block, and then our
# check and Debian's are clean and every file reads back unchanged.  A root
# block older than its pointer may be a lost write (the bytes of an earlier
# block): it is mended only when its content records a generation newer than
# its header (an extent tree root of a kernel-made filesystem), or for the
# chunk tree's root when it holds the superblock's device item and system
# chunks (else refused, nothing written).  A chunk item's
# sector_size and a dev extent's chunk_offset are set from what they must be,
# a device item's bytes_used and total_bytes from the superblock's copy;
# a ROOT_REF/ROOT_BACKREF pair that differs from what the parent's dir index
# says; a subvolume root block naming another subvolume; a QGROUP_INFO item
# that a limit names, deleted.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

small_large_images
for edit in "generation 0" "generation 18446744073709551615" "generation +1" "owner 7" "bytenr +1"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/l.img" "$T/large" "chunk root [0-9]* does not read as the superblock names it" \
		"Tree block [0-9]* of tree 3: header ${edit%% *} [0-9]*, set to" header 3 1,216,1 $edit
	assert_grep "Leaf [0-9]* of tree 3 .* mended, copied to" "$T/repair"
	echo "ok: chunk root $edit mended"
done

# a chunk item's sector_size (the tree-checker's rule; the chunk root leaf,
# mended at open) is the filesystem's, its num_stripes what its size holds; a dev extent's chunk_offset naming no
# chunk is the one chunk with a stripe at its place
item_key chunk "$T/l.img" "chunk item" '$1 == 3 && $2 ~ /^256,228,/ { print $2; exit }'
item_key devext "$T/l.img" "dev extent" '$1 == 4 && $2 ~ /,204,/ { print $2; exit }'
damaged_repaired "$T/l.img" "$T/large" "invalid chunk sectorsize, have 12345" \
	"chunk sector_size 12345, set to the filesystem's 4096" field 3 "$chunk" chunk.sector_size 12345
echo "ok: a chunk item's sector_size mended at open"
damaged_repaired "$T/l.img" "$T/large" "invalid chunk item size" \
	"chunk num_stripes [0-9]*, the item holds [0-9]* stripes: set to it" field 3 "$chunk" chunk.num_stripes +1
echo "ok: a chunk item's num_stripes set from its size, at open"
damaged_repaired "$T/l.img" "$T/large" "dev extent" \
	"dev extent chunk_offset [0-9]* names no chunk; chunk [0-9]* has its stripe here: set to it" \
	field 4 "$devext" dev_extent.chunk_offset -1
echo "ok: a dev extent's chunk_offset set to the chunk with its stripe there"
# a device item's bytes_used beyond its size is the superblock copy's (the
# chunk root leaf, mended at open); a size beyond the device is the copy's too
damaged_repaired "$T/l.img" "$T/large" "invalid bytes_used, have 129097298871670373" \
	"device bytes_used 129097298871670373 beyond total_bytes [0-9]*: set to the superblock's copy" \
	field 3 1,216,1 dev_item.bytes_used 129097298871670373
echo "ok: a device item's bytes_used beyond its size mended at open"
damaged_repaired "$T/l.img" "$T/large" "total_bytes 18446744073709551615 is beyond the size of" \
	"Device 1: total_bytes 18446744073709551615 beyond the device, reset to $(stat -c %s "$T/l.img")" \
	field 3 1,216,1 dev_item.total_bytes 18446744073709551615
echo "ok: a device item's total_bytes beyond the device set to the superblock copy's"

# a kernel-made filesystem: its files as Debian's restore reads them before
corpus_files src default-rich "$T/orig"
item_key extent_key "$src" "extent tree item" '$1 == 2 { print $2; exit }'
damaged_repaired "$src" "$T/orig" "parent transid verify failed, have [0-9]* expect" \
	"Tree block [0-9]* of tree 2: header generation [0-9]*, set to" header 2 "$extent_key" generation -1
echo "ok: an extent tree root one generation older than its root item, its items newer: mended"

# a subvolume's root block naming another subvolume as owner: any subvolume
# may own a block shared with a snapshot, but a root block is its tree's own
# (a snapshot copies it), and every read of a root wants that: mended
for edit in "256 257" "258 5"; do
	read -r tree owner <<< "$edit"
	item_key key "$src" "item of tree $tree" -v t="$tree" '$1 == t { print $2; exit }'
	damaged_repaired "$src" "$T/orig" "owner mismatch, have $owner expect $tree" \
		"Tree block [0-9]* of tree $tree: header owner $owner, set to $tree" header "$tree" "$key" owner "$owner"
	echo "ok: root block of tree $tree with owner $owner mended"
done

# a leaf deep in tree 5 naming a subvolume that does not exist as its owner
# (the kernel's owner rule lets any subvolume id through): its one back
# reference names tree 5, a copy on write there writes the header anew
item_key deep "$src" "dir index deep in tree 5" '$1 == 5 && $2 ~ /,96,/ { if (++n == 200) { print $2; exit } }'
damaged_repaired "$src" "$T/orig" "header owner 999, but its 1 tree back reference(s) name root 5" \
	"Tree block [0-9]* of tree 5: header owner rewritten, copied to" header 5 "$deep" owner 999
echo "ok: a leaf of tree 5 owned by no subvolume copied on write ($deep)"

# a QGROUP_INFO item deleted while its QGROUP_LIMIT (and relations) name it:
# added with the numbers pass 8 counts (quota: 0/5, and 0/256 in 1/100)
corpus_files qsrc quota "$T/orig-quota"
for id in 5 256; do
	damaged_repaired "$qsrc" "$T/orig-quota" "the QGROUP_LIMIT item of qgroup 0/$id in leaf [0-9]* has no QGROUP_INFO item beside it" \
		"Repair qgroup 0/$id: info item added, referenced [0-9]* exclusive [0-9]*" delete 8 "0,242,$id"
	echo "ok: qgroup 0/$id info item added again"
done

# a subvolume's ROOT_REF and ROOT_BACKREF that differ in dir or index: the
# one the parent's dir index confirms is kept, the other set to it
for edit in "256,144,5 root_ref.dirid -1:ROOT_BACKREF" "5,156,256 root_ref.sequence +1:ROOT_REF"; do
	# shellcheck disable=SC2086
	damaged_repaired "$src" "$T/orig" "root 256: ROOT_REF and ROOT_BACKREF with root 5 differ" \
		"${edit##*:} [0-9]*): dir [0-9]* index [0-9]* set to dir 256 index [0-9]*, as its partner and the dir index say" \
		field 1 ${edit%%:*}
	echo "ok: ${edit##*:} mended (${edit%%:*})"
done

# the chunk tree of a kernel-made filesystem (DATA single, SYSTEM DUP,
# METADATA DUP): a chunk type the tree-checker rejects gets the profile its
# stripes tell and then its block group's flags, which name what it holds;
# a system chunk's item that differs from the sys_chunk_array copy takes the
# copy's, and one the tree-checker rejects (its length) too; a stripe without
# a dev extent of its own takes the device and place of its chunk's dev extent
# that finds no stripe; the stripe length is the only one; a device item's
# devid is its key's
# mended_field TREE "KEY FIELD VALUE" FIX: that field of the kernel-made
# filesystem damaged is found, the repair says FIX, and then both checks are
# clean and every file reads back unchanged
mended_field() {
	cp --sparse=always "$src" "$T/img"
	# shellcheck disable=SC2086
	run_check "$CB" "$T/img" field "$1" $2 > /dev/null
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	run_check "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
	assert_grep "$3" "$T/repair"
	clean_with_files "$T/img" "$T/orig" "$2"
	echo "ok: $2 mended"
}
for edit in "256,228,30408704 chunk.type 1:Chunk 30408704: type 0x21 reset to 0x24, its block group's flags" \
	    "256,228,63963136 chunk.type 18446744073709551615:chunk type 0xffffffffffffffff, its stripes and contents tell 0x1" \
	    "256,228,22020096 chunk.type -1:Chunk 22020096: type 0x21 reset to 0x22, the item set from the superblock's sys_chunk_array copy" \
	    "256,228,63963136 stripe.devid@48 +1:Chunk 63963136 stripe 0: devid 2 physical \([0-9]*\) reset to devid 1 physical \\1, its dev extent's" \
	    "256,228,63963136 stripe.offset@48 +4096:Chunk 63963136 stripe 0: devid 1 physical [0-9]* reset to devid 1 physical [0-9]*, its dev extent's" \
	    "256,228,30408704 chunk.stripe_len 0:chunk stripe_len 0, set to 65536 (the only one)" \
	    "256,228,22020096 chunk.length 0:system chunk item fails the tree-checker: set from the superblock's sys_chunk_array copy" \
	    "1,216,1 dev_item.devid 7:device item devid 7, its key's 1: set to it"; do
	mended_field 3 "${edit%%:*}" "${edit#*:}"
done

# block group flags the tree-checker rejects (0): the chunk's type; flags of
# another kind than the block group holds (the system chunk's as DATA
# single): its chunk's type, which names that kind
for edit in "block_group_item.flags 0:block group flags 0x0, set to its chunk's type 0x22" \
	    "block_group_item.chunk_objectid 7:block group chunk_objectid 7, set to 256" \
	    "block_group_item.flags 1:Block group 22020096: flags set to 0x22, its chunk's type"; do
	mended_field 11 "22020096,192,8388608 ${edit%%:*}" "${edit#*:}"
done

# a leaf's nritems counting zero entries of its free space in (one more, or
# beyond what the leaf holds): the count ends at the first zero entry
for n in +1 65535; do
	damaged_repaired "$src" "$T/orig" "bad key order\\|nritems" \
		"header nritems [0-9]*, its last [0-9]* item entries are zero bytes (free space): set to [0-9]*" \
		header 257 256,12,256 nritems $n
	echo "ok: a leaf's nritems $n mended"
done

# a data extent's inline back reference read as a shorter data type (the
# bytes after it then no ref; no one type fills the item): the item is
# removed and rebuilt from the file extents; its checksums (inside the
# extent, not at its start) count as covered by the rebuilt item
mended_field 2 "13631488,168,1048576 extent_inline_ref.type@24 184" \
	"extent item whose inline back references are neither a data extent's nor a tree block's: item removed"

# a root item's level no tree has: its root block's
mended_field 1 "2,132,0 root_item.level -1" "root level 255, set to its root block's [0-9]"

# a subvolume's ROOT_REF deleted: added again from its ROOT_BACKREF, which the
# parent's dir index confirms
damaged_repaired "$src" "$T/orig" "ROOT_BACKREF with root 5 (name '[^']*') has no ROOT_REF" \
	"(5 ROOT_REF 256) added: dir 256 index [0-9]* name '[^']*', as its partner and the dir index say" \
	delete 1 5,156,256
echo "ok: a deleted ROOT_REF added again"

# the root tree's directory inode (6, holding "default") with a mode of no file type
damaged_repaired "$src" "$T/orig" "unknown mode" \
	"inode mode 0[0-7]*, set to 040755 (the root tree's directory" field 1 6,1,0 inode_item.mode 1202176973
echo "ok: the root tree's directory mode mended"

# a chunk root one generation older whose content is the commit's: its own
# device item as the superblock's copy (sizes change with every chunk) and
# the system chunks of the sys_chunk_array: mended (Debian's repair takes it
# too); with the device item's bytes_used another (what an earlier block of
# the chunk tree would hold): refused, nothing written
damaged_repaired "$src" "$T/orig" "parent transid verify failed" \
	"Tree block [0-9]* of tree 3: header generation [0-9]*, set to" header 3 1,216,1 generation -1
echo "ok: a chunk root one generation older, its content the commit's: mended"
cp --sparse=always "$src" "$T/img"
run_check "$CB" "$T/img" field 3 1,216,1 dev_item.bytes_used -1048576 > /dev/null
run_check "$CB" "$T/img" header 3 1,216,1 generation -1 > /dev/null
refused_unchanged "$T/img" "Chunk root [0-9]* cannot be mended"
echo "ok: a chunk root one generation older, its device item not the superblock's: refused, nothing written"
