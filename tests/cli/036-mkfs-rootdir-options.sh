#!/bin/bash
# --subvol, --compress, --inode-flags and --shrink: usage errors, then the
# items they make, read back with our dump-tree (no kernel needed).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"

src=$T/src
mkdir -p "$src/sv" "$src/ro" "$src/nocow/sub" "$src/dir"
yes "compressible line of text" | head -c 400000 > "$src/sv/big"
yes abc | head -c 3000 > "$src/small"
head -c 200000 /dev/urandom > "$src/random"
head -c 50000 /dev/urandom > "$src/nocow/sub/f"
echo x > "$src/ro/f"
mk_images 1 300M
img=$T/d1.img
mk() { run_check "$TOP/mkfs.btrfs" -q -f "$@" "$img"; }
bad() { # WHAT ARGS...: refused with exit 1 and a message matching WHAT
	local what=$1; shift
	expect_exit 1 "$TOP/mkfs.btrfs" -q -f "$@" "$img" > /dev/null 2> "$T/err"
	assert_grep "$what" "$T/err"
}
# -V names the compression libraries built in.
"$TOP/mkfs.btrfs" -V > "$T/version"
for lib in LZO ZSTD; do
	if grep -q "HAVE_$lib 1" "$TOP/config.h"; then assert_grep "+$lib" "$T/version"
	else assert_grep -- "-$lib" "$T/version"; fi
done
bad "need --rootdir" -u sv
bad "need --rootdir" --compress zlib
bad "need --rootdir" --shrink
bad "need --rootdir" --inode-flags nodatacow:sv
bad "only one subvolume can be the default" -r "$src" -u default:sv -u default-ro:ro
bad "specified more than once" -r "$src" -u sv -u ro:sv
bad "not inside --rootdir" -r "$src" -u "$T"
bad "cannot find" -r "$src" -u nonexistent
bad "is not a directory" -r "$src" -u small
bad "unrecognized compression algorithm" -r "$src" --compress lz4
bad "invalid compression level" -r "$src" --compress zlib:10
bad "invalid compression level" -r "$src" --compress zstd:0
bad "level is not supported for lzo" -r "$src" --compress lzo:3
bad "unknown inode flag 'nocompress'" -r "$src" --inode-flags nocompress:dir
bad "expected FLAGS:PATH" -r "$src" --inode-flags nodatacow
bad "cannot shrink fs with more than 1 device" -r "$src" --shrink "$T/d1.img"
[ -s "$T/err" ] || _fail "no message"

# Subvolumes: root items, refs, the default dir item, the uuid tree.
mk -r "$src" -u sv -u default-ro:ro
dt() { "$TOP/btrfs" inspect-internal dump-tree "$@" "$img"; }
dt -t root > "$T/root"
assert_grep "key (256 ROOT_ITEM 0)" "$T/root"
assert_grep "key (257 ROOT_ITEM 0)" "$T/root"
assert_grep "key (FS_TREE ROOT_REF 256)" "$T/root"
assert_grep "key (256 ROOT_BACKREF 5)" "$T/root"
assert_grep "root ref key dirid 256 sequence [0-9]* name ro" "$T/root"
assert_grep "flags 0x1(RDONLY)" "$T/root"
assert_grep "location key (256 ROOT_ITEM 18446744073709551615) type DIR" "$T/root"  # ro sorts first: 256
assert_grep "key (FS_TREE INODE_REF 6)" "$T/root"
"$TOP/btrfs" inspect-internal dump-super "$img" > "$T/super"
assert_grep "DEFAULT_SUBVOL" "$T/super"
[ "$(dt -t uuid | grep -c UUID_KEY_SUBVOL)" = 3 ] || _fail "uuid tree lacks the subvolumes"
dt -t 256 > "$T/sv"
assert_grep "key (257 INODE_ITEM 0)" "$T/sv"
dt -t fs > "$T/fs"
assert_grep "location key (257 ROOT_ITEM 18446744073709551615) type DIR" "$T/fs"

# Compression: each algorithm built in, extent items say which.
for alg in zlib:9 lzo zstd; do
	name=${alg%%:*}
	case $name in
	lzo) num=2; grep -q 'HAVE_LZO 1' "$TOP/config.h" || continue ;;
	zstd) num=3; grep -q 'HAVE_ZSTD 1' "$TOP/config.h" || continue ;;
	*) num=1 ;;
	esac
	mk -r "$src" --compress "$alg"
	dt -t fs > "$T/fs"
	assert_grep "extent compression $num ($name)" "$T/fs"
	assert_grep "compression $num ($name)" "$T/fs"
	# random data does not shrink: stored as is, file flagged NOCOMPRESS;
	# a file with compressed extents is flagged COMPRESS (as btrfs-progs)
	assert_grep "flags 0x8(NOCOMPRESS)" "$T/fs"
	assert_grep "flags 0x800(COMPRESS)" "$T/fs"
	case $name in
	lzo) assert_grep "COMPRESS_LZO" <("$TOP/btrfs" inspect-internal dump-super "$img") ;;
	zstd) assert_grep "COMPRESS_ZSTD" <("$TOP/btrfs" inspect-internal dump-super "$img") ;;
	esac
done

# Inode flags: nodatacow on a directory reaches the file below, no checksums for it.
mk -r "$src" --inode-flags nodatacow:nocow --inode-flags nodatasum:dir
dt -t fs > "$T/fs"
assert_grep "flags 0x3(NODATASUM|NODATACOW)" "$T/fs"
assert_grep "flags 0x1(NODATASUM)" "$T/fs"

# --shrink: the image file ends where the last dev extent ends.
rm -f "$img"; truncate -s 1G "$img"
mk -r "$src" --shrink
size=$(stat -c %s "$img")
[ "$size" -lt $((1024 * 1024 * 1024)) ] || _fail "--shrink left the image at $size bytes"
"$TOP/btrfs" inspect-internal dump-super "$img" > "$T/super"
assert_grep "total_bytes		$size" "$T/super"
# An image file that is missing or too small is made big enough for the tree.
rm -f "$T/new.img"; truncate -s 1M "$T/tiny.img"
run_check "$TOP/mkfs.btrfs" -q -r "$src" "$T/new.img"
run_check "$TOP/mkfs.btrfs" -q -f -r "$src" "$T/tiny.img"
[ "$(stat -c %s "$T/tiny.img")" -gt $((100 * 1024 * 1024)) ] || _fail "tiny.img was not enlarged"
"$TOP/btrfs" inspect-internal dump-tree -t fs "$T/new.img" | grep -q "name: random" ||
	_fail "the tree is not in the new image"
echo ok
