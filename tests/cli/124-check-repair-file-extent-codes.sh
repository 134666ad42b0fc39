#!/bin/bash
# A file extent's codes and lengths the tree-checker rejects, told by the
# item and its data (check --repair's leaf mend), on filesystems with
# compressed extents of each algorithm (our mkfs --rootdir --compress): after
# the repair our check and Debian's are clean and every file reads back
# unchanged.
# - compression 255: the one algorithm under which the stored bytes
#   decompress to ram_bytes (an extent stored at ram_bytes is uncompressed);
# - type 0 (inline) on a compressed extent past the file's start: it names a
#   data extent the extent tree has, so regular;
# - type 255 on a regular extent: its fields name a data extent with
#   checksums, so regular; type +1 on an inline extent: its size is not a
#   regular extent's, so inline;
# - encryption and other_encoding: no kernel writes one, so 0 (other_encoding
#   of a regular extent passes the tree-checker: the fs roots pass fixes it);
# - an unaligned num_bytes, 0, or past the data (the fs roots pass): where the next extent
#   starts, within its data;
# - ram_bytes 0 (aligned): an uncompressed extent's data is as long as stored;
#   unaligned on a compressed extent: what its data decompresses to;
# - a generation beyond the superblock's (+1, the committing transaction, is
#   allowed): the superblock's, the latest any commit wrote.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block

mkdir -p "$T/src"
for i in 1 2 3; do
	# compressible, each file in several extents (128K of data per compressed extent)
	for j in $(seq 1 4000); do echo "line $j of file $i, $((j * i * 7919 % 10007))"; done > "$T/src/text$i"
done
for j in $(seq 1 12000); do echo "line $j of the big file, $((j * 7919 % 10007))"; done > "$T/src/big"
head -c 300000 /dev/urandom > "$T/src/random"
echo "a small inline file" > "$T/src/small"

# the extents of file NAME in image IMG: "KEY SIZE" per item
extents_of() {
	local ino
	ino=$("$BTRFS" inspect-internal dump-tree -t 5 "$1" | grep -B3 "name: $2\$" |
		awk '$1 == "location" { sub(/\(/, "", $3); print $3; exit }')
	[ -n "$ino" ] || _fail "no inode for $2"
	"$CB" "$1" list | awk -v i="$ino" '$1 == 5 && $4 == "file_extent_item" && $2 ~ "^" i ",108," { print $2, $3 }'
}

# repaired IMG KEY FIELD VALUE FOUND FIXED WHAT: corrupt, find, repair, compare
repaired() {
	damaged_repaired "$1" "$T/src" "$5" "$6" field 5 "$2" "file_extent_item.$3" "$4"
	echo "ok: $7"
}

for alg in zlib lzo zstd; do
	truncate -s 256M "$T/$alg.img"
	run_check "$BTRFS" mkfs -q -f --compress "$alg" --rootdir "$T/src" "$T/$alg.img" > /dev/null
	key=$(extents_of "$T/$alg.img" text2 | awk '$2 == 53 { print $1; exit }')
	[ -n "$key" ] || _fail "$alg: no regular extent of text2"
	"$BTRFS" inspect-internal dump-tree -t 5 "$T/$alg.img" | grep -A4 "key (${key//,108,/ EXTENT_DATA }) " |
		grep -q "compression [123] ($alg)" || _fail "$alg: text2's first extent is not compressed"
	repaired "$T/$alg.img" "$key" compression 255 "invalid compression for file extent, have 255" \
		"file extent compression 255, its data is $alg: set to" "$alg extent compression 255"
	# a compressed extent's ram_bytes unaligned: what its data decompresses to
	for v in +1 18446744073709551615; do
		repaired "$T/$alg.img" "$key" ram_bytes $v "invalid ram_bytes for file extent" \
			"compressed file extent ram_bytes [0-9]*, set to [1-9][0-9]* (what its data decompresses to)" \
			"$alg extent ram_bytes $v"
	done
	# a compressed extent's type read as inline: it names a data extent (the
	# extent tree has it), regular; not the file's first (inline sits at 0)
	key2=$(extents_of "$T/$alg.img" big | awk '$2 == 53 { n++ } n == 2 { print $1; exit }')
	[ -n "$key2" ] || _fail "$alg: no second regular extent of big"
	repaired "$T/$alg.img" "$key2" type 0 "invalid file_offset for inline file extent" \
		"file extent type inline, but it names data extent [0-9]* ([0-9]* bytes) the extent tree has: set to regular" \
		"$alg extent type 0"
done

img=$T/zstd.img
key=$(extents_of "$img" random | awk '$2 == 53 { print $1; exit }')
[ -n "$key" ] || _fail "no regular extent of random"
repaired "$img" "$key" compression 255 "invalid compression for file extent, have 255" \
	"file extent compression 255, its data is uncompressed: set to 0" "uncompressed extent compression 255"
repaired "$img" "$key" type 255 "invalid type for file extent, have 255" \
	"file extent type 255, the item and its data tells regular: set to 1" "regular extent type 255"
repaired "$img" "$key" encryption 1 "invalid encryption for file extent, have 1" \
	"file extent encryption 1, no kernel writes one: set to 0" "file extent encryption 1"
repaired "$img" "$key" other_encoding 7 "file extent at [0-9]*: compression 0 encryption 0 other_encoding 7" \
	"file extent at [0-9]* other_encoding 7 set to 0" "regular extent other_encoding 7"
repaired "$img" "$key" num_bytes +1 "invalid num_bytes for file extent" \
	"file extent num_bytes [0-9]*, the file's layout tells [0-9]* (the next extent or the size): set to it" \
	"regular extent num_bytes +1"
repaired "$img" "$key" num_bytes 0 "file extent at [0-9]* length 0 not aligned to sectorsize" \
	"file extent at [0-9]* num_bytes 0 set to [1-9][0-9]*" "regular extent num_bytes 0"
# num_bytes aligned but past the data (the kernel's read would run off it):
# from the file's layout; a compressed extent too (its ram_bytes is the data)
# (over the next extent of the file in the leaf: the leaf mend's)
repaired "$img" "$key" num_bytes +1048576 "goes beyond start offset" \
	"file extent num_bytes [0-9]*, the file's layout tells [0-9]* (the next extent or the size): set to it" \
	"regular extent num_bytes past its data"
ckey=$(extents_of "$img" text2 | awk '$2 == 53 { print $1; exit }')
# (the file's only extent, compressed: the fs roots pass's)
repaired "$img" "$ckey" num_bytes +1048576 "beyond ram_bytes" \
	"file extent at 0 num_bytes [0-9]* set to [1-9][0-9]*" "compressed extent num_bytes past its data"
repaired "$img" "$key" generation +100 "file extent at [0-9]*: generation [0-9]* beyond the superblock's [0-9]* + 1" \
	"file extent at [0-9]* generation [0-9]* set to [0-9]*" "regular extent generation +100"
repaired "$img" "$key" ram_bytes 0 "beyond ram_bytes 0" \
	"file extent at [0-9]* ram_bytes 0 set to [0-9]*" "uncompressed extent ram_bytes 0"

key=$(extents_of "$img" small | awk '$2 != 53 { print $1; exit }')
[ -n "$key" ] || _fail "no inline extent of small"
repaired "$img" "$key" type +1 "invalid item size for reg/prealloc file extent" \
	"file extent type 1, the item's size tells inline: set to 0" "inline extent type +1"
repaired "$img" "$key" other_encoding 1 "invalid other_encoding for inline file extent, have 1" \
	"file extent other_encoding 1, no kernel writes one: set to 0" "inline extent other_encoding 1"
