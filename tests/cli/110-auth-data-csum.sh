#!/bin/bash
# check --check-data-csum on an authsum filesystem (issue 20): with the key
# only the keyed part of each data checksum is computed (the csum tree
# leaves' own keyed checksums protect the stored values), without the key
# only the xxhash64 part; a bad sector is then told apart: DAMAGED (both
# parts fail) or ALTERED (changed without the key: the keyed part fails
# while the xxhash64 part matches; exit 3 as for a tree block).
if [ -z "${IN_KEY_SESSION:-}" ]; then
	command -v keyctl > /dev/null || { echo "SKIP: keyctl not installed (apt-get install keyutils)"; exit 77; }
	IN_KEY_SESSION=1 exec keyctl session - bash "$0" "$@"
fi
. "$TOP/tests/lib/common.sh"
CB=$TOOL_DIR/corrupt-block
keyctl add user kit-data "data secret" @s > /dev/null || _fail "cannot add a user key"
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

# damage: the second sector overwritten, checksums as they were
cp --sparse=always "$T/fs.img" "$T/img"
head -c 4096 /dev/zero | tr '\0' C | dd of="$T/img" bs=4096 seek=$((physical / 4096 + 1)) conv=notrunc status=none
expect_exit 1 "$BTRFS" --auth-key kit-data check --check-data-csum "$T/img" > "$T/out" 2> "$T/err"
assert_grep "mirror 1 bytenr $second csum mismatch against the csum tree: DAMAGED$" "$T/err"
assert_not_grep "bytenr $logical csum" "$T/err"
expect_exit 1 "$BTRFS" check --check-data-csum "$T/img" > "$T/out" 2> "$T/err"
assert_grep "mirror 1 bytenr $second csum mismatch against the csum tree: DAMAGED$" "$T/err"
echo "ok: damaged sector"

# altered: the second sector made a copy of the first, and its stored
# xxhash64 part the first's (the csum leaf itself re-keyed, so only the data
# sector is in question): the keyed part fails, the xxhash64 part matches
cp --sparse=always "$T/fs.img" "$T/img"
head -c 4096 /dev/zero | tr '\0' A | dd of="$T/img" bs=4096 seek=$((physical / 4096 + 1)) conv=notrunc status=none
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
expect_exit 3 "$BTRFS" --auth-key kit-data check --check-data-csum "$T/img" > "$T/out" 2> "$T/err"
assert_grep "mirror 1 bytenr $second csum mismatch against the csum tree: ALTERED (keyed hash fails, xxhash64 matches" "$T/err"
assert_not_grep "tree block" "$T/err"
# without the key the copy passes: only the key finds it
expect_exit 0 "$BTRFS" check --check-data-csum "$T/img" > "$T/out" 2> "$T/err"
assert_grep "authenticity NOT verified" "$T/err"
echo "ok: altered sector"
