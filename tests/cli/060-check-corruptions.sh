#!/bin/bash
# btrfs check on filesystems our mkfs made from a tree, then corrupted in
# chosen places (tests/lib/blockpatch.py rewrites bytes of a tree block and
# its checksum; data is overwritten with dd): the clean image passes, each
# corruption is found with the right message and exit 1.
. "$TOP/tests/lib/common.sh"
check_prereq python3
patch=$TOP/tests/lib/blockpatch.py
src=$T/src
marked_file "$src"
pattern_data 65536 "$src/data"
img0=$T/clean.img
clean_image "$src" "$img0" --csum crc32c
run_check "$BTRFS" check --check-data-csum "$img0" > "$T/out" 2> "$T/err"

fresh() { cp --sparse=always "$img0" "$T/img"; }
leaf_of() { # TREE: bytenr of the tree's root (a leaf on this small fs)
	"$BTRFS" inspect-internal dump-tree -t "$1" "$T/img" | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1
}
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
le64() { printf '%s\\x00\\x00\\x00\\x00' "$(le32 "$1")"; }
must_find() { # MESSAGE [check args]
	local what=$1; shift
	expect_exit 1 "$BTRFS" check "$@" "$T/img" > "$T/out" 2> "$T/err"
	assert_grep "$what" "$T/err"
	assert_grep "error(s) found" "$T/out"
	echo "ok: $what"
}

# 1. nlink of /dir/file (uid 4242, gid 4343 make its inode item unique): 1 -> 3
fresh
fs=$(leaf_of 5)
run_check python3 "$patch" "$T/img" 16384 "$fs" \
	"$(le32 1)$(le32 4242)$(le32 4343)" "$(le32 3)$(le32 4242)$(le32 4343)" > /dev/null
must_find "nlink 3, 1 names found (link count wrong)"

# 2. block group used bytes of the data block group: +4096
fresh
bgt=$(leaf_of block-group)
line=$("$BTRFS" inspect-internal dump-tree -t block-group "$T/img" | grep -m1 'flags DATA')
used=$(echo "$line" | sed -n 's/.*block group used \([0-9]*\) .*/\1/p')
[ -n "$used" ] || _fail "no data block group item: $line"
run_check python3 "$patch" "$T/img" 16384 "$bgt" \
	"$(le64 "$used")$(le64 256)" "$(le64 $((used + 4096)))$(le64 256)" > /dev/null
must_find "used $((used + 4096)), extents in it sum to $used"

# 3. nbytes of /dir/file (6 bytes inline; size, nbytes, block_group, nlink,
#    uid, gid are adjacent): 6 -> 7
fresh
run_check python3 "$patch" "$T/img" 16384 "$fs" \
	"$(le64 6)$(le64 6)$(le64 0)$(le32 1)$(le32 4242)" "$(le64 6)$(le64 7)$(le64 0)$(le32 1)$(le32 4242)" > /dev/null
must_find "nbytes 7, its file extents account 6 (nbytes wrong)"

# 4. a data sector overwritten on disk: only --check-data-csum sees it
fresh
off=$(grep -abo BTRFSKITDATAPATTERN "$T/img" | head -n 1 | cut -d: -f1)
[ -n "$off" ] || _fail "data pattern not found in the image"
printf 'X' | dd of="$T/img" bs=1 seek="$off" conv=notrunc status=none
run_check "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
must_find "csum mismatch against the csum tree" --check-data-csum

# 5. the superblock's bytes_used
fresh
run_check "$BTRFS" inspect-internal dump-super "$T/img" > "$T/sb"
bu=$(sed -n 's/^bytes_used[[:space:]]*//p' "$T/sb")
old=$(python3 "$TOP/tests/lib/superpatch.py" "$T/img" 0x78 $((bu + 65536))) || _fail "cannot patch the superblock"
[ "$old" = "$bu" ] || _fail "superblock bytes_used at 0x78 is $old, dump-super says $bu"
must_find "super bytes used $((bu + 65536)) mismatches actual used $bu"
echo "all corruptions found"
