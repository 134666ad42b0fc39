#!/bin/bash
# Damage that one reading of a leaf explains, on a filesystem with regular
# file extents (our mkfs --rootdir): check finds it and --repair brings back
# the original, so that our check and Debian's are clean and every file reads
# back unchanged.
# - A regular extent's type set to inline: an inline extent's ram_bytes is
#   its data size, but the item's fields name a data extent the extent tree
#   has, exactly: the type goes back to regular (not ram_bytes to 32).
# - A regular extent's num_bytes cut: nbytes is not wrong, the extent ends
#   short of the size by exactly what nbytes misses: num_bytes is set back.
# - A regular extent's offset, ram_bytes or disk_num_bytes made unaligned:
#   the data extent at its disk_bytenr gives the lengths, its one data
#   reference of the inode the offset.
# - Without NO_HOLES, an inline file's size past its first sector needs hole
#   extents (legacy-features): found (it was not, after an inline extent) and
#   the holes inserted, as Debian's check finds and repairs it.
# - Inode flags: NODATASUM on a file whose extents all have checksums (the
#   kernel sets it on empty files only) cleared; a word with unknown bits
#   set to what the extents tell.
# - The key type of a deep leaf's last item set to 255: mended to the one
#   type between its neighbour and the parent's next key (the bound).
# - A compressed inline extent's ram_bytes (-1, 0, +1): set to the length
#   its data decompresses to (the inode's nbytes agrees), not nbytes to it.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

mkdir -p "$T/src/big" "$T/src/many"
for i in 1 2 3; do head -c 200000 /dev/urandom > "$T/src/big/f$i"; done
for i in $(seq 1 600); do echo "file $i" > "$T/src/many/f$i"; done
rootdir_image "$T/src" "$T/x.img"
run_check "$CB" "$T/x.img" list > "$T/items"
ext=$(awk '$1 == 5 && $4 == "file_extent_item" && $3 == 53 { print $2; exit }' "$T/items")
[ -n "$ext" ] || _fail "no regular file extent"
ino=${ext%%,*}

damaged_repaired "$T/x.img" "$T/src" "invalid ram_bytes for uncompressed inline extent" \
	"file extent type inline, but it names data extent [0-9]* ([0-9]* bytes) the extent tree has: set to regular" \
	field 5 "$ext" file_extent_item.type 0
echo "ok: a regular extent's type set to inline goes back to regular"

damaged_repaired "$T/x.img" "$T/src" "inode $ino: nbytes [0-9]*, its file extents account 4096: the file extent at 0 ends [0-9]* bytes before .*(file extent num_bytes wrong)" \
	"inode $ino: file extent at 0 num_bytes 4096 set to" field 5 "$ext" file_extent_item.num_bytes 4096
echo "ok: a regular extent's num_bytes cut short is set back, not nbytes"

for edit in "offset 18446744073709551615:offset" "offset 4097:offset" "ram_bytes +1:ram_bytes" \
	    "disk_num_bytes -1:disk_num_bytes"; do
	# shellcheck disable=SC2086
	damaged_repaired "$T/x.img" "$T/src" "invalid ${edit##*:} for file extent" \
		"file extent ${edit##*:} [0-9]*, set to" field 5 "$ext" file_extent_item.${edit%%:*}
	echo "ok: file extent ${edit%%:*} set back from the extent tree"
done

# disk_num_bytes 0 (aligned: the tree-checker passes it): the extents pass
# finds it against the extent item, and the item takes the extent's length
# (its uncompressed ram_bytes says the same)
damaged_repaired "$T/x.img" "$T/src" "file extent item (data ref root 5 inode $ino offset 0) has disk_num_bytes 0, extent item length" \
	"inode $ino: file extent at 0 disk_num_bytes 0 set to [0-9]*, its data extent's length" \
	field 5 "$ext" file_extent_item.disk_num_bytes 0
echo "ok: file extent disk_num_bytes 0 set to its extent's length"

# the inode of that extent: NODATASUM set while its extents have checksums
# (the kernel sets it on empty files only): the flag cleared; a flags word
# with unknown bits: set to what its extents tell (checksummed: 0)
damaged_repaired "$T/x.img" "$T/src" "inode $ino: NODATASUM (flags 0x1), yet every one of its [0-9]* regular extents has checksums" \
	"inode $ino: flags set to 0x0" field 5 "$ino,1,0" inode_item.flags 1
echo "ok: NODATASUM on a checksummed file cleared"
damaged_repaired "$T/x.img" "$T/src" "unknown inode flags" \
	"inode flags 0xffffffffffffffff have unknown bits (a damaged word): set to 0x0" \
	field 5 "$ino,1,0" inode_item.flags 18446744073709551615
echo "ok: an inode flags word with unknown bits set from its extents"

# the last item of the first leaf of tree 5 (a node over leaves), and its leaf
read -r last leaf < <(awk '$1 == 5 { if (seen && $5 != leaf) exit; seen = 1; leaf = $5; k = $2 }
	END { print k, leaf }' "$T/items")
[ "$(awk -v l="$leaf" '$1 == 5 && $5 != l' "$T/items" | wc -l)" -gt 0 ] || _fail "tree 5 is one leaf"
damaged_repaired "$T/x.img" "$T/src" "unknown key (${last%%,*} 255 " \
	"key type [0-9]* was 255: the one type" field 5 "$last" disk_key.type 255
echo "ok: the last key of a deep leaf with type 255 gets its type back ($last)"

src=$(corpus_case legacy-features)/dev1.img
item_key ino "$src" "inline extent in legacy-features" '$1 == 5 && $4 == "file_extent_item" && $3 < 53 { split($2, k, ","); print k[1]; exit }'
cp --sparse=always "$src" "$T/img"
run_check "$CB" "$T/img" field 5 "$ino,1,0" inode_item.size 16777222 > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "inode $ino: file extent discount: hole \[4096 16781312) up to isize 16777222" "$T/check"
run_check "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
clean_checks "$T/img"
echo "ok: an inline file's size past its sector without hole extents found and repaired"

# A compressed inline extent's ram_bytes: the length its data decompresses
# to, when the inode's nbytes (or size) agrees: set back, not nbytes to it
# (the file would read back cut). zlib: built in everywhere.
mkdir -p "$T/zsrc"
for i in 1 2 3 4 5 6; do echo "a line of text that repeats, $i times over"; done > "$T/zsrc/small"
rootdir_image "$T/zsrc" "$T/z.img" --compress zlib
item_key zext "$T/z.img" "inline extent in the compressed filesystem" '$1 == 5 && $4 == "file_extent_item" && $3 != 53 { print $2; exit }'
zsize=$(stat -c %s "$T/zsrc/small")
for edit in -1 0 +1; do
	damaged_repaired "$T/z.img" "$T/zsrc" "compressed inline file extent ram_bytes [0-9]*, its data decompresses to $zsize bytes" \
		"file extent at 0 ram_bytes [0-9]* set to $zsize" field 5 "$zext" file_extent_item.ram_bytes "$edit"
	echo "ok: a compressed inline extent's ram_bytes $edit set back to what its data decompresses to"
done
