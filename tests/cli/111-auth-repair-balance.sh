#!/bin/bash
# Writers with a key (issue 20): check --repair and the offline balance of a
# keyed filesystem write every block keyed, so the result verifies with the
# key (and, authsum, by its xxhash64 part without it); without the key both
# refuse before writing a byte.
. "$TOP/tests/lib/common.sh"
in_key_session "$@"
need_corrupt_block
session_key user kit-w "writer secret"
marked_file "$T/src"
head -c 200000 /dev/urandom > "$T/src/data"
ino=$(stat -c %i "$T/src/dir/file")

for t in auth-sha256 authsum-blake2b; do
	imgs=("$T/$t.1.img" "$T/$t.2.img")
	truncate -s 256M "${imgs[@]}"
	run_check "$BTRFS" --auth-key kit-w mkfs -q -f --csum "$t" -m single -d single \
		-r "$T/src" "${imgs[@]}" > /dev/null 2>&1
	# the file's link count made 3, the leaf re-keyed: damage only check finds
	file_ino=$("$BTRFS" --auth-key kit-w inspect-internal dump-tree -t 5 "${imgs[@]}" |
		awk '/INODE_ITEM/ { k = $4 } /uid 4242 gid 4343/ { print substr(k, 2); exit }')
	[ -n "$file_ino" ] || _fail "$t: the file's inode not found"
	run_check "$CB" --key "writer secret" "$(IFS=,; echo "${imgs[*]}")" \
		field 5 "$file_ino,INODE_ITEM,0" nlink 3 > /dev/null
	expect_exit 1 "$BTRFS" --auth-key kit-w check "${imgs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "link count wrong" "$T/err"
	assert_not_grep "checksum" "$T/err"
	# repair without the key: refused, nothing written
	cp --sparse=always "${imgs[0]}" "$T/before"
	expect_exit 5 "$BTRFS" check --repair --force "${imgs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "needs the filesystem's key\|writing needs the filesystem's key" "$T/err"
	cmp "${imgs[0]}" "$T/before" || _fail "$t: a refused repair wrote"
	# with the key: repaired, verifiable
	run_check "$BTRFS" --auth-key kit-w check --repair --force "${imgs[@]}" > "$T/out" 2> "$T/err"
	expect_exit 0 "$BTRFS" --auth-key kit-w check --check-data-csum "${imgs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
	assert_not_grep "checksum" "$T/err"
	echo "ok: $t repaired with the key"

	# offline balance: without the key refused (nothing written), with it converted
	cp --sparse=always "${imgs[0]}" "$T/before"
	run_mustfail "$t balance without the key" "$BTRFS" balance start -dconvert=raid1 -mconvert=raid1 \
		"${imgs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "key" "$T/err"
	cmp "${imgs[0]}" "$T/before" || _fail "$t: a refused balance wrote"
	run_check "$BTRFS" --auth-key kit-w balance start -dconvert=raid1 -mconvert=raid1 \
		"${imgs[@]}" > "$T/out" 2> "$T/err"
	"$BTRFS" --auth-key kit-w inspect-internal dump-tree -t chunk "${imgs[@]}" > "$T/chunks"
	assert_grep "type DATA|RAID1$" "$T/chunks"
	assert_grep "type METADATA|RAID1$" "$T/chunks"
	assert_not_grep "type DATA$\|type METADATA$" "$T/chunks"
	expect_exit 0 "$BTRFS" --auth-key kit-w check --check-data-csum "${imgs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
	assert_not_grep "checksum" "$T/err"
	echo "ok: $t balanced with the key"
done
# authsum: what the key wrote also verifies by its xxhash64 part without it
expect_exit 0 "$BTRFS" check --check-data-csum "$T/authsum-blake2b.1.img" "$T/authsum-blake2b.2.img" \
	> "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
assert_grep "authenticity NOT verified" "$T/err"
echo "ok: authsum writes verify without the key"
