#!/bin/bash
# Superblock fields that fail its validation, every copy damaged alike with
# its checksum recomputed (the catalogue's super/* classes): a filesystem
# that would not open.  check takes each field from what another part of the
# same copy says (sectorsize: the device item and the system chunk; nodesize
# and leafsize: each other; stripesize: the sector size; log_root_level: 0
# without a log tree; sys_chunk_array_size: the chunks it holds; flags with
# unknown bits: the WRITTEN flag every commit sets; a log_root that is no
# block address: 0 (the log dropped); root,
# chunk_root, their levels and the device counters: the backup root of the
# copy's own commit; a valid root level that the root block's header and that
# backup root both contradict: theirs), reports each (exit 1) and checks the rest; --repair
# writes the superblocks, after which our check and Debian's are clean and
# every file reads back unchanged.  A field nothing else tells (nodesize and
# leafsize both damaged) still does not open: nothing written.  compat_ro
# bits cleared while their trees exist are set again, SIMPLE_QUOTA without a
# quota tree and ZONED with block groups that are not whole zones cleared,
# NO_HOLES and SKINNY_METADATA set when the content needs them; a compat_ro
# word that is garbage takes its tree bits from the trees there are; a
# csum_type the chunk root's checksum contradicts takes the one it agrees with.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

corpus_files src default-rich "$T/orig"
ln -s orig "$T/orig-default-rich"
restored_files "$(corpus_case nodesize4k-bulk)/dev1.img" "$T/orig-nodesize4k-bulk"
for edit in "sectorsize 4294967295" "nodesize 0" "__unused_leafsize 16385" "stripesize 7" \
	    "log_root_level 255" "chunk_root +1" "chunk_root_level 255" "root 0" "root_level 9" \
	    "sys_chunk_array_size 0" "num_devices 0" "total_bytes 0" "bytes_used 0" \
	    "flags 18446744073709551615" "log_root 12345" "sys_chunk_array_size +1" "sys_chunk_array_size -1" \
	    "root_level +1" "chunk_root_level +1"; do
	field=${edit%% *}
	field=${field#__unused_}
	# shellcheck disable=SC2086
	damaged_repaired "$src" "$T/orig" "superblock: $field [0-9]* is wrong (.*): [0-9]*" \
		"Reset super $field from [0-9]* to [0-9]*" super $edit
	echo "ok: super $edit mended"
done

# compat_ro cleared while the free space tree and block group tree exist:
# the bits set again (the free space tree rebuilt, as it may be stale)
damaged_repaired "$src" "$T/orig" "the block group tree exists but the superblock's compat_ro flags 0x0 lack BLOCK_GROUP_TREE" \
	"Reset super compat_ro flags from 0x[0-9a-f]* to 0xb" super compat_ro_flags 0
echo "ok: compat_ro bits of existing trees set again"

# compat_ro garbage (unknown bits, and tree bits that are not the trees
# there are): the tree bits from the root tree, VERITY kept, the rest cleared.
# legacy-features has neither tree: every bit set takes it to VERITY alone;
# default-rich has both: a random word with many unknown bits takes 0xb
for c in "legacy-features 18446744073709551615 4" "default-rich 12345678901234 11"; do
	read -r fs word now <<< "$c"
	[ -d "$T/orig-$fs" ] || restored_files "$(corpus_case "$fs")/dev1.img" "$T/orig-$fs"
	damaged_repaired "$(corpus_case "$fs")/dev1.img" "$T/orig-$fs" \
		"superblock: compat_ro_flags $word is wrong (unknown bits, and its tree bits are not the trees there are): $now" \
		"Reset super compat_ro_flags from $word to $now" super compat_ro_flags "$word"
	echo "ok: garbage compat_ro $word taken to $now from the trees ($fs)"
done
# two unknown bits beside the true tree bits may be a newer kernel's: kept,
# and the repair refuses (its trees cannot be checked)
cp --sparse=always "$src" "$T/img"
run_check "$CB" "$T/img" super compat_ro_flags $((0xb | 0x30)) > /dev/null
refused_unchanged "$T/img" "unknown compat_ro features 0x30"
echo "ok: a few unknown compat_ro bits beside true tree bits kept, repair refused"

# csum_type another valid type (the superblock's own checksum made with it):
# the one plain type under which the chunk root's checksum is right; an
# xxhash64 filesystem too
damaged_repaired "$src" "$T/orig" "superblock: csum_type 3 is wrong (the chunk root's checksum is of that type): 0" \
	"Reset super csum_type from 3 to 0" super csum_type 3
echo "ok: csum_type 3 of a crc32c filesystem mended"
corpus_files xx csum-xxhash "$T/orig-xxhash"
damaged_repaired "$xx" "$T/orig-xxhash" "superblock: csum_type 0 is wrong (the chunk root's checksum is of that type): 1" \
	"Reset super csum_type from 0 to 1" super csum_type 0
echo "ok: csum_type 0 of an xxhash64 filesystem mended"

# SIMPLE_QUOTA in the incompat flags with no quota tree: the bit cleared
inc=$("$BTRFS" inspect-internal dump-super "$src" | awk '/^incompat_flags/ { print $2 }')
damaged_repaired "$src" "$T/orig" "have SIMPLE_QUOTA, but there is no quota tree" \
	"Reset super incompat flags from 0x[0-9a-f]* to $inc" super incompat_flags $((inc | 65536))
echo "ok: SIMPLE_QUOTA without a quota tree cleared"
damaged_repaired "$src" "$T/orig" "ZONED, but block group \[[0-9]* [0-9]*\] is not whole emulated zones" \
	"Reset super incompat flags from 0x[0-9a-f]* to $inc" super incompat_flags $((inc | 4096))
echo "ok: ZONED on an image whose block groups are not zones cleared"
# every incompat bit cleared: MIXED_BACKREF (the tree blocks' back reference
# revision), NO_HOLES (a block group tree needs it) and SKINNY_METADATA (the
# extent tree holds METADATA_ITEMs, seen in a node's keys of a deep extent
# tree too) set again; the kernel mounts the result (catalogue
# super/incompat_flags/zero)
for fs in default-rich nodesize4k-bulk; do
	cp --sparse=always "$(corpus_case $fs)/dev1.img" "$T/img"
	run_check "$CB" "$T/img" super incompat_flags 0 > /dev/null
	found_repaired "$T/img" "incompat_flags 513 is wrong (the extent tree holds METADATA_ITEMs): 769" \
		"Reset super incompat_flags from 0 to 1" "$T/orig-$fs" "super incompat_flags 0 ($fs)"
	assert_grep "incompat_flags 0 is wrong (its tree blocks have the mixed back reference revision): 1" "$T/check"
	assert_grep "a block group tree needs NO_HOLES" "$T/check"
	echo "ok: incompat MIXED_BACKREF, NO_HOLES and SKINNY_METADATA set again from the content ($fs)"
done

cp --sparse=always "$src" "$T/img"
run_check "$CB" "$T/img" super nodesize 0 > /dev/null
run_check "$CB" "$T/img" super __unused_leafsize 0 > /dev/null
refused_unchanged "$T/img" "invalid nodesize 0"
echo "ok: nodesize and leafsize both damaged: refused, nothing written"
