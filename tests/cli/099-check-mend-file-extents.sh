#!/bin/bash
# File extent items the tree-checker rejects, mended by --repair in the
# leaf (the tree's root leaf here, which used to make the whole tree
# unreadable and the repair refuse): an uncompressed inline extent's
# ram_bytes other than its data size gets the data size (the file reads back
# whole); a regular extent whose disk_bytenr is not sector aligned gets the
# sector boundary beside it where a data extent of its length has the file's
# reference, else it is removed (the file keeps its size as a hole; the
# passes fix nbytes and drop the data extent's back reference).  After each: our check and Debian's clean,
# the other file unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block
mkdir -p "$T/root"
head -c 2000 /dev/urandom > "$T/root/small"
head -c 200000 /dev/urandom > "$T/root/big"
rootdir_image "$T/root" "$T/img0"
"$BTRFS" inspect-internal dump-tree -t 5 "$T/img0" > "$T/fs"
ino_of() { awk -v n="$1" '/location key/ { i = $3 } $1 == "name:" && $2 == n { print i; exit }' "$T/fs" | tr -d '('; }
small=$(ino_of small); big=$(ino_of big)
[ -n "$small" ] && [ -n "$big" ] || _fail "inodes not found"

# mended EDIT... -- PATTERN FILE-KEPT
mended() {
	cp --sparse=always "$T/img0" "$T/img"
	run_check "$CB" "$T/img" "${@:1:$#-2}" > /dev/null
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	repaired_clean "${*: -2:1}" "$T/img"
	files_unchanged "$T/img" "$T/root/${*: -1}" "${*: -1}"
}
mended field 5 "$small,EXTENT_DATA,0" ram_bytes +1 \
	"key ($small 108 0): inline extent ram_bytes 2001, set to its data size 2000" small
cmp "$T/root/small" "$T/files/small" || _fail "small reads back changed"
# one byte off: the data extent at the sector boundary beside it has this
# extent's length and a reference of the file at its offset: set back to it
mended field 5 "$big,EXTENT_DATA,0" disk_bytenr +1 \
	"key ($big 108 0): file extent disk_bytenr [0-9]* not aligned to the sector size 4096: set to [0-9]*, the data extent beside it whose reference names this extent" big
mended field 5 "$big,EXTENT_DATA,0" disk_bytenr -1 \
	"key ($big 108 0): file extent disk_bytenr [0-9]* not aligned to the sector size 4096: set to [0-9]*, the data extent beside it whose reference names this extent" big
# far off: no data extent beside it names the file: removed
mended field 5 "$big,EXTENT_DATA,0" disk_bytenr +104857601 \
	"key ($big 108 0): file extent disk_bytenr [0-9]* not aligned to the sector size 4096: item removed" small
