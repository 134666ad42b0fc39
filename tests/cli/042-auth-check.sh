#!/bin/bash
# Keyed checksum types end to end, inside a session keyring of its own:
# mkfs with each keyed type (--rootdir; a few profiles; then more files
# through the write engine), check with the right key clean (data checksums
# too); no key, a wrong key, a logon key, a missing key, a key on a plain
# filesystem: each its documented message and exit status (0 valid, 1
# damaged, 3 altered, 4 wrong key, 5 no key); a byte changed in a leaf, an
# authsum leaf forged (xxhash64 recomputed without the key), the superblock
# changed (authsum: forged, exit 3), two valid leaves swapped (a bytenr
# mismatch, exit 1): each found as what it is; --init-csum-tree with the key keeps the
# filesystem verifiable; dump-tree verifies with the key.
. "$TOP/tests/lib/common.sh"
in_key_session "$@"
need_corrupt_block
need_tool FILL engine-fill
session_key user kit-k1 "first secret"
session_key user kit-k2 "other secret"
session_key logon kit:logon "logon secret"

src=$T/src
marked_file "$src"
yes AUTHKITDATA | head -c 300000 > "$src/data"

clean() { # IMAGE...: check with the key, data checksums included
	local devs
	devs=$(IFS=' '; echo "$*")
	expect_exit 0 "$BTRFS" --auth-key kit-k1 check --check-data-csum "$@" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
	assert_not_grep "checksum" "$T/err"
}

# 1. every keyed type, a few profiles, --rootdir then the engine
i=0
for t in auth-sha256 auth-blake2b authsum-sha256 authsum-blake2b; do
	case $i in
	0) prof=(); n=1 ;;
	1) prof=(-m single -d single); n=1 ;;
	2) prof=(-m raid1 -d raid1); n=2 ;;
	3) prof=(-m dup -d dup); n=1 ;;
	esac
	imgs=()
	for d in $(seq 1 $n); do
		imgs+=("$T/$t.$d.img")
		truncate -s 256M "$T/$t.$d.img"
	done
	run_check "$BTRFS" --auth-key kit-k1 mkfs -q -f --csum "$t" "${prof[@]}" -r "$src" "${imgs[@]}" \
		> "$T/out" 2> "$T/err"
	assert_grep "the Linux kernel cannot mount this filesystem" "$T/err"
	"$BTRFS" inspect-internal dump-super "${imgs[0]}" > "$T/super"
	assert_grep "csum_type.*($t)" "$T/super"
	clean "${imgs[@]}"
	run_check "$FILL" -k "first secret" -n 40 -c 2 "${imgs[@]}" > /dev/null
	clean "${imgs[@]}"
	echo "ok: $t ${prof[*]}"
	i=$((i + 1))
done
# mkfs.btrfs --auth-key (the program's own option)
truncate -s 256M "$T/own.img"
run_check "$TOP/mkfs.btrfs" -q -f --csum hmac-sha256 --auth-key kit-k1 "$T/own.img" 2> /dev/null
clean "$T/own.img"

# 2. the key outcomes
img=$T/auth-sha256.1.img
expect_exit 5 "$BTRFS" check "$img" > "$T/out" 2> "$T/err"
assert_grep "checksum type auth-sha256 needs the filesystem's key" "$T/err"
expect_exit 4 "$BTRFS" --auth-key kit-k2 check "$img" > "$T/out" 2> "$T/err"
assert_grep "wrong key for this filesystem" "$T/err"
assert_not_grep "checksum mismatch" "$T/err"
expect_exit 5 "$BTRFS" --auth-key kit:logon check "$img" > "$T/out" 2> "$T/err"
assert_grep "logon" "$T/err"
expect_exit 5 "$BTRFS" --auth-key kit-none check "$img" > "$T/out" 2> "$T/err"
assert_grep "no user key 'kit-none'" "$T/err"
expect_exit 4 "$BTRFS" --auth-key kit-k2 inspect-internal dump-tree "$img" > "$T/out" 2> "$T/err"
assert_grep "wrong key for this filesystem" "$T/err"
expect_exit 0 "$BTRFS" --auth-key kit-k1 inspect-internal dump-tree --csum-headers "$img" > "$T/out" 2> "$T/err"
assert_grep "^leaf .* csum 0x" "$T/out"
# authsum without a key: the xxhash64 part, and never a bare "no error found"
expect_exit 0 "$BTRFS" check "$T/authsum-sha256.1.img" "$T/authsum-sha256.2.img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
assert_grep "authenticity NOT verified" "$T/err"
# a key on a plain filesystem, mkfs refusals (nothing written)
truncate -s 256M "$T/plain.img"
run_check "$TOP/mkfs.btrfs" -q -f -r "$src" "$T/plain.img"
expect_exit 1 "$BTRFS" --auth-key kit-k1 check "$T/plain.img" > "$T/out" 2> "$T/err"
assert_grep "checksum type crc32c is not keyed" "$T/err"
truncate -s 256M "$T/none.img"
run_mustfail "keyed type, no key" "$TOP/mkfs.btrfs" -q -f --csum auth-blake2b "$T/none.img" 2> "$T/err"
assert_grep "give its key with --auth-key" "$T/err"
run_mustfail "key, plain type" "$TOP/mkfs.btrfs" -q -f --csum sha256 --auth-key kit-k1 "$T/none.img" 2> "$T/err"
assert_grep "needs a keyed csum type" "$T/err"
run_mustfail "missing key" "$BTRFS" --auth-key kit-none mkfs -q -f --csum auth-sha256 "$T/none.img" 2> "$T/err"
[ "$(tr -d '\0' < "$T/none.img" | wc -c)" -eq 0 ] || _fail "a refused mkfs wrote to the image"
echo "ok: key outcomes"

# 3. tampering, each found as what it is
leaf_of() { # IMAGE TREE: the tree's root block (a leaf on these small filesystems)
	"$BTRFS" --auth-key kit-k1 inspect-internal dump-tree -t "$2" "$1" | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1
}
# a byte changed, checksum left: damaged (exit 1), not altered
for t in auth-blake2b authsum-blake2b; do
	cp --sparse=always "$T/$t.1.img" "$T/img"
	run_check "$CB" --key "first secret" --no-csum "$T/img" field 5 "257,INODE_ITEM,0" nlink 7 > /dev/null
	expect_exit 1 "$BTRFS" --auth-key kit-k1 check "$T/img" > "$T/out" 2> "$T/err"
	assert_grep "checksum mismatch" "$T/err"
	assert_not_grep "ALTERED" "$T/err"
	echo "ok: $t damaged"
done
# authsum: a change with the xxhash64 part recomputed (no key needed for that): altered (exit 3)
cp --sparse=always "$T/authsum-blake2b.1.img" "$T/img"
run_check "$CB" --key "first secret" --forge "$T/img" field 5 "257,INODE_ITEM,0" nlink 7 > /dev/null
expect_exit 3 "$BTRFS" --auth-key kit-k1 check "$T/img" > "$T/out" 2> "$T/err"
assert_grep "block ALTERED" "$T/err"
# without the key the forgery passes the xxhash64 part: only the key finds it
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
assert_not_grep "checksum mismatch" "$T/err"
assert_grep "authenticity NOT verified" "$T/err"
echo "ok: forged authsum leaf ALTERED"
# the superblock changed (a reserved byte): refused with the key, before any block
cp --sparse=always "$T/auth-sha256.1.img" "$T/img"
printf '\x01' | dd of="$T/img" bs=1 seek=$((65536 + 3900)) conv=notrunc status=none
expect_exit 1 "$BTRFS" --auth-key kit-k1 check "$T/img" > "$T/out" 2> "$T/err"
assert_grep "superblock: checksum mismatch with the right key" "$T/err"
# authsum: the superblock changed and its xxhash64 part recomputed (no key needed): altered (exit 3)
cp --sparse=always "$T/authsum-sha256.1.img" "$T/img"
cp --sparse=always "$T/authsum-sha256.2.img" "$T/img2"
run_check "$CB" --forge "$T/img" super u8@3900 1 > /dev/null
expect_exit 3 "$BTRFS" --auth-key kit-k1 check "$T/img" "$T/img2" > "$T/out" 2> "$T/err"
assert_grep "superblock: checksum ALTERED with the right key: superblock changed without the key" "$T/err"
echo "ok: superblock changed"

# two valid blocks swapped: each keyed checksum right, but made for the other's
# location (the bytenr in the header, which the keyed hash covers): a bytenr
# mismatch (damage, exit 1), neither a checksum mismatch nor ALTERED
mkdir -p "$T/many"
for i in $(seq 1 400); do echo "$i" > "$T/many/file-$i"; done
truncate -s 256M "$T/swap.img"
run_check "$BTRFS" --auth-key kit-k1 mkfs -q -f --csum auth-sha256 -m single -d single -r "$T/many" \
	"$T/swap.img" > /dev/null 2>&1
"$BTRFS" --auth-key kit-k1 inspect-internal dump-tree -t 5 "$T/swap.img" > "$T/fstree"
mapfile -t leaves < <(sed -n 's/^leaf \([0-9]*\) items.*/\1/p' "$T/fstree")
[ "${#leaves[@]}" -ge 2 ] || _fail "the fs tree has ${#leaves[@]} leaves, want 2 or more"
"$BTRFS" --auth-key kit-k1 inspect-internal dump-tree -t chunk "$T/swap.img" > "$T/chunks"
phys() { # LOGICAL: its offset on the one device (single profile)
	awk -v x="$1" '/CHUNK_ITEM/ { s = $(NF - 4) + 0; in_c = 0 }
		/^\t\tlength / { in_c = x >= s && x < s + $2 }
		in_c && /stripe 0 devid/ { print $6 + (x - s) }' "$T/chunks"
}
pa=$(phys "${leaves[0]}")
pb=$(phys "${leaves[1]}")
[ -n "$pa" ] && [ -n "$pb" ] || _fail "leaves ${leaves[0]} ${leaves[1]} not mapped"
cp --sparse=always "$T/swap.img" "$T/img"
dd if="$T/swap.img" of="$T/img" bs=16384 skip=$((pa / 16384)) seek=$((pb / 16384)) count=1 conv=notrunc status=none
dd if="$T/swap.img" of="$T/img" bs=16384 skip=$((pb / 16384)) seek=$((pa / 16384)) count=1 conv=notrunc status=none
cmp -s "$T/swap.img" "$T/img" && _fail "the swap changed nothing"
expect_exit 1 "$BTRFS" --auth-key kit-k1 check "$T/img" > "$T/out" 2> "$T/err"
assert_grep "tree block ${leaves[0]} .*bytenr mismatch, have ${leaves[1]} expect ${leaves[0]}" "$T/err"
assert_grep "tree block ${leaves[1]} .*bytenr mismatch, have ${leaves[0]} expect ${leaves[1]}" "$T/err"
assert_not_grep "checksum mismatch" "$T/err"
assert_not_grep "ALTERED" "$T/err"
# one leaf's bytes over the other's (two copies of one valid block): the same
dd if="$T/swap.img" of="$T/img" bs=16384 skip=$((pa / 16384)) seek=$((pa / 16384)) count=1 conv=notrunc status=none
expect_exit 1 "$BTRFS" --auth-key kit-k1 check "$T/img" > "$T/out" 2> "$T/err"
assert_grep "tree block ${leaves[1]} .*bytenr mismatch, have ${leaves[0]} expect ${leaves[1]}" "$T/err"
assert_not_grep "tree block ${leaves[0]} .*bytenr mismatch" "$T/err"
assert_not_grep "checksum mismatch" "$T/err"
echo "ok: swapped leaves"

# 4. writes with the key keep it verifiable
cp --sparse=always "$T/authsum-sha256.1.img" "$T/img"
cp --sparse=always "$T/authsum-sha256.2.img" "$T/img2"
run_check "$BTRFS" --auth-key kit-k1 check --init-csum-tree --force "$T/img" "$T/img2" > "$T/out" 2> "$T/err"
clean "$T/img" "$T/img2"
expect_exit 5 "$BTRFS" check --init-csum-tree --force "$T/img" "$T/img2" > "$T/out" 2> "$T/err"
assert_grep "writing needs the filesystem's key" "$T/err"
echo "ok: init-csum-tree with the key"

# 5. image dump and restore with the key: rewritten blocks and superblocks keyed, verifiable
img=$T/authsum-blake2b.1.img
run_check "$BTRFS" --auth-key kit-k1 image "$img" "$T/dump" > /dev/null 2>&1
truncate -s 256M "$T/restored"
expect_exit 5 "$BTRFS" image -r "$T/dump" "$T/restored" > "$T/out" 2> "$T/err"
assert_grep "restoring it needs the key" "$T/err"
expect_exit 4 "$BTRFS" --auth-key kit-k2 image -r "$T/dump" "$T/restored" > "$T/out" 2> "$T/err"
assert_grep "wrong key for this filesystem" "$T/err"
[ "$(tr -d '\0' < "$T/restored" | wc -c)" -eq 0 ] || _fail "a refused restore wrote to the target"
run_check "$BTRFS" --auth-key kit-k1 image -r "$T/dump" "$T/restored" > /dev/null 2>&1
expect_exit 0 "$BTRFS" --auth-key kit-k1 check "$T/restored" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
assert_not_grep "checksum" "$T/err"
echo "ok: image dump/restore with the key"
