#!/bin/bash
# Chunk items whose length is damaged, or that are gone (the catalogue's
# chunk.length and item/delete/CHUNK_ITEM classes), on a single-device
# filesystem (data single, metadata DUP) and a two-device RAID1 one:
# - a length the tree-checker rejects, or one reaching into the next chunk
#   (the chunk map leaves the chunk out), is mended at open in the chunk
#   tree's root leaf: what the devices' bytes_used leave after the other
#   chunks' stripes;
# - a valid length that differs from the block group's, whose dev extents all
#   say the block group's: the block group's;
# - a deleted chunk item of a data block group: made again of the block group
#   and its dev extents; of a system chunk: from the sys_chunk_array; a
#   deleted device item: from the device's superblock copy;
# - block group flags of another kind than the chunk (no block allocated
#   there meanwhile), and tree blocks in a block group of another kind
#   (copied on write where they belong).
# Each is reported (exit 1); --repair makes our check and Debian's clean and
# every file reads back unchanged.  A deleted metadata chunk item (nothing
# that maps the trees that would tell it is readable) is refused with every
# byte unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

corpus_files single default-rich "$T/orig"
# default-rich: data 13631488 (8M single), system 22020096, metadata
# 30408704 (32M DUP), data 63963136 (32M single, the last chunk)
for c in "13631488 0" "63963136 +1" "13631488 33554432" "30408704 18446744073709551615"; do
	read -r at value <<< "$c"
	damaged_repaired "$single" "$T/orig" "chunk \(root [0-9]* holds chunks that overlap\|.*invalid chunk length\)" \
		"chunk length [0-9]*, what its devices' bytes_used leave after the other chunks: set to [0-9]*" \
		field 3 "256,228,$at" chunk.length "$value"
	echo "ok: chunk $at length $value mended at open"
done
# a chunk item's key offset (its logical address): a system chunk's from the
# sys_chunk_array chunk with its stripes; an unaligned one, the aligned
# neighbour under which it overlaps no other chunk
for c in "22020096 7328494934698956563" "30408704 -1" "30408704 +1"; do
	read -r at value <<< "$c"
	damaged_repaired "$single" "$T/orig" "corrupt leaf: root=3" \
		"key offset $at was [0-9]*: what its stripes' system chunk or the chunks beside it say" \
		field 3 "256,228,$at" disk_key.offset "$value"
	echo "ok: chunk $at key offset $value mended"
done
# the key objectid of the chunk tree's last item (nothing after it to order
# against): a chunk item's is 256, a device item's 1
damaged_repaired "$single" "$T/orig" "invalid chunk objectid" "key objectid 256 was 7203083955673157706: the one every item of its type has" \
	field 3 256,228,63963136 disk_key.objectid 7203083955673157706
echo "ok: the last chunk item's key objectid mended"
for value in 67108864 4194304; do
	damaged_repaired "$single" "$T/orig" "chunk \[63963136 $value\]: length $value, its block group and its 1 dev extents say 33554432" \
		"Chunk 63963136: length $value reset to 33554432, its block group's and dev extents'" \
		field 3 256,228,63963136 chunk.length "$value"
	echo "ok: chunk length $value set to its block group's"
done
damaged_repaired "$single" "$T/orig" "block group \[63963136 33554432\] has no chunk; its 1 dev extents make one" \
	"Chunk 63963136: item added, num_stripes 1" delete 3 256,228,63963136
echo "ok: a deleted data chunk item made again"
damaged_repaired "$single" "$T/orig" "no chunk item (256 CHUNK_ITEM 22020096) for the system chunk \[22020096 8388608\] of the superblock's sys_chunk_array" \
	"Chunk 22020096: item added, num_stripes 2" delete 3 256,228,22020096
echo "ok: a deleted system chunk item inserted from the sys_chunk_array"
damaged_repaired "$single" "$T/orig" "no device item with devid 1" \
	"Device item 1 added from its superblock's copy, bytes_used [0-9]*" delete 3 1,216,1
echo "ok: a deleted device item inserted from the superblock's copy"
cp --sparse=always "$single" "$T/img"
run_check "$CB" "$T/img" delete 3 256,228,30408704 > /dev/null
refused_unchanged "$T/img" "is not in any chunk"
echo "ok: a deleted metadata chunk item refused"

# the system block group's item flags naming metadata: set back to its
# chunk's type, and meanwhile the repair allocates no tree block there (the
# engine takes blocks only where the item and the chunk agree)
damaged_repaired "$single" "$T/orig" "block group \[22020096 8388608\] flags 0x24 name another kind than it holds" \
	"Block group 22020096: flags set to 0x22, its chunk's type" field 11 22020096,192,8388608 block_group_item.flags 36
echo "ok: the system block group's flags set back, nothing allocated in it"
# the metadata chunk and its block group both typed data: every tree block in
# it is in a block group of another kind; --repair copies each on write into
# a new metadata chunk
cp --sparse=always "$single" "$T/img"
run_check "$CB" "$T/img" field 3 256,228,30408704 chunk.type 33 > /dev/null
run_check "$CB" "$T/img" field 11 30408704,192,33554432 block_group_item.flags 33 > /dev/null
found_repaired "$T/img" "bad extent \[[0-9]*, [0-9]*), type mismatch with chunk: tree block of the fs tree in block group 30408704 flags 0x21, not a metadata one" \
	"Tree block [0-9]* of tree 5: moved to a block group of its kind, copied to" "$T/orig" "tree blocks in a data block group"
echo "ok: tree blocks in a block group of another kind moved"

# RAID1 over two devices: data 63963136 (64M) and 131072000 (48M, the last)
dir=$(corpus_case raid1-raid1)
restored_files "$dir/dev1.img" "$T/orig-raid1"
raid1() { # FOUND FIXED CORRUPT-BLOCK-ARGS...
	local found=$1 fixed=$2
	shift 2
	cp --sparse=always "$dir/dev1.img" "$T/a.img"
	cp --sparse=always "$dir/dev2.img" "$T/b.img"
	run_check "$CB" "$T/a.img,$T/b.img" "$@" > /dev/null
	expect_exit 1 "$BTRFS" check "$T/a.img" "$T/b.img" > "$T/check" 2>&1
	assert_grep "$found" "$T/check"
	repaired_clean "$fixed" "$T/a.img" "$T/b.img"
	files_unchanged "$T/a.img" "$T/orig-raid1" "raid1 $*"
	echo "ok: raid1 $*"
}
raid1 "invalid chunk length, have 0" "chunk length 0, .* set to 50331648" field 3 256,228,131072000 chunk.length 0
raid1 "holds chunks that overlap" "chunk length 134217728, .* set to 67108864" field 3 256,228,63963136 chunk.length 134217728
raid1 "its block group and its 2 dev extents say 50331648" "Chunk 131072000: length 100663296 reset to 50331648" \
	field 3 256,228,131072000 chunk.length 100663296
raid1 "block group \[63963136 67108864\] has no chunk; its 2 dev extents make one" \
	"Chunk 63963136: item added, num_stripes 2" delete 3 256,228,63963136
raid1 "no device item with devid 2" "Device item 2 added from its superblock's copy" delete 3 1,216,2
echo "all chunk item cases done"
