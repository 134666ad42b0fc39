#!/bin/bash
# check --check-data-csum on an authsum filesystem (issue 20): with the key
# only the keyed part of each data checksum is computed (the csum tree
# leaves' own keyed checksums protect the stored values), without the key
# only the xxhash64 part; a bad sector is then told apart: DAMAGED (both
# parts fail) or ALTERED (changed without the key: the keyed part fails
# while the xxhash64 part matches; exit 3 as for a tree block).
. "$TOP/tests/lib/common.sh"
in_key_session "$@"
need_corrupt_block
session_key user kit-data "data secret"
mkdir -p "$T/src"
{ head -c 4096 /dev/zero | tr '\0' A; head -c 4096 /dev/zero | tr '\0' B; } > "$T/src/ab"
truncate -s 256M "$T/fs.img"
run_check "$BTRFS" --auth-key kit-data mkfs -q -f --csum authsum-sha256 -m single -d single \
	-r "$T/src" "$T/fs.img" > /dev/null 2>&1

# where the file's two sectors are: logical from its extent, physical from the data chunk
"$BTRFS" --auth-key kit-data inspect-internal dump-tree -t 5 "$T/fs.img" > "$T/fstree" || _fail "dump-tree -t 5"
logical=$(sed -n 's/.*extent data disk byte \([0-9]*\) nr 8192$/\1/p' "$T/fstree")
[ -n "$logical" ] || _fail "the file's 8192-byte extent not found"
"$BTRFS" --auth-key kit-data inspect-internal dump-tree -t chunk "$T/fs.img" > "$T/chunks" || _fail "dump-tree -t chunk"
physical=$(awk -v x="$logical" '/CHUNK_ITEM/ { s = $(NF - 4) + 0; in_c = 0 }
	/^\t\tlength / { in_c = x >= s && x < s + $2 }
	in_c && /stripe 0 devid/ { print $6 + (x - s) }' "$T/chunks")
[ -n "$physical" ] || _fail "no stripe for logical $logical"
second=$((logical + 4096))

# clean with the key, and without it (xxhash64 only: it failed as "checksum computation failed")
expect_exit 0 "$BTRFS" --auth-key kit-data check --check-data-csum "$T/fs.img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
expect_exit 0 "$BTRFS" check --check-data-csum "$T/fs.img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
assert_grep "authenticity NOT verified" "$T/err"
assert_not_grep "computation failed" "$T/err"
echo "ok: clean with and without the key"

# second_sector CHAR: $T/img a copy of the filesystem with the file's second sector all CHAR
second_sector() {
	cp --sparse=always "$T/fs.img" "$T/img"
	head -c 4096 /dev/zero | tr '\0' "$1" | dd of="$T/img" bs=4096 seek=$((physical / 4096 + 1)) conv=notrunc status=none ||
		_fail "cannot write the second sector"
}
# data_csum_checks KEYED-EXIT KEYED-SAYS KEYED-NOT PLAIN-EXIT PLAIN-SAYS: check --check-data-csum
# of $T/img with the key exits KEYED-EXIT, its stderr saying KEYED-SAYS and not KEYED-NOT;
# without the key exits PLAIN-EXIT, saying PLAIN-SAYS
data_csum_checks() {
	expect_exit "$1" "$BTRFS" --auth-key kit-data check --check-data-csum "$T/img" > "$T/out" 2> "$T/err"
	assert_grep "$2" "$T/err"
	assert_not_grep "$3" "$T/err"
	expect_exit "$4" "$BTRFS" check --check-data-csum "$T/img" > "$T/out" 2> "$T/err"
	assert_grep "$5" "$T/err"
}

# damage: the second sector overwritten, checksums as they were
second_sector C
data_csum_checks 1 "mirror 1 bytenr $second csum mismatch against the csum tree: DAMAGED$" "bytenr $logical csum" \
	1 "mirror 1 bytenr $second csum mismatch against the csum tree: DAMAGED$"
echo "ok: damaged sector"

# altered: the second sector made a copy of the first, and its stored
# xxhash64 part the first's (the csum leaf itself re-keyed, so only the data
# sector is in question): the keyed part fails, the xxhash64 part matches
second_sector A
"$BTRFS" --auth-key kit-data inspect-internal dump-tree -t csum --csum-items "$T/img" > "$T/csums" ||
	_fail "dump-tree -t csum"
first_xxh=$(python3 - "$T/csums" "$logical" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
item = re.search(r'EXTENT_CSUM %s\).*?\n(.*?)(?:\n\titem|\Z)' % sys.argv[2], text, re.S).group(1)
sums = re.findall(r'0x([0-9a-f]{64})', item)
print(int.from_bytes(bytes.fromhex(sums[0])[24:32], 'little'))
PY
)
[ -n "$first_xxh" ] || _fail "the first sector's checksum not found in the csum items"
run_check "$CB" --key "data secret" "$T/img" field 7 "18446744073709551606,EXTENT_CSUM,$logical" \
	u64@56 "$first_xxh" > /dev/null
# with the key exit 3, no tree block blamed; without it the copy passes: only the key finds it
data_csum_checks 3 "mirror 1 bytenr $second csum mismatch against the csum tree: ALTERED (keyed hash fails, xxhash64 matches" \
	"tree block" 0 "authenticity NOT verified"
echo "ok: altered sector"
