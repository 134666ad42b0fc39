#!/bin/bash
# btrfs --auth-key NAME inspect-internal dump-super, inside a session keyring
# of its own: with the right key a keyed type's csum line says [match] and
# auth_key_check "[match] (right key)"; a changed superblock [DON'T MATCH]
# (authsum with the xxhash64 part recomputed: altered without the key); a
# wrong key "wrong key for this filesystem" and [WRONG KEY]; no key [NO KEY]
# (authsum: the xxhash64 part); every copy with -a and -s N; a key for a
# plain filesystem refused; a missing key exit 5.
. "$TOP/tests/lib/common.sh"
in_key_session "$@"
need_corrupt_block
session_key user kit-k1 "first secret"
session_key user kit-k2 "other secret"

ds() { # EXPECTED-EXIT ARGS...: dump-super into $T/out, $T/err
	local want=$1
	shift
	expect_exit "$want" "$BTRFS" "$@" > "$T/out" 2> "$T/err"
}
csum_line() { grep '^csum	' "$T/out"; }
kcv_line() { grep '^auth_key_check	' "$T/out"; }
unverified() { # TAG WHAT: csum line of type $t not verified by a key: [TAG], authsum its xxhash64 part
	local want=" \[$1\]\$"
	[[ $t == authsum-* ]] && want=" \[$1\] (xxhash64 part matches, authenticity NOT verified)\$"
	csum_line | grep -q "$want" || _fail "$t: $2: csum line"
}

for t in auth-sha256 auth-blake2b authsum-sha256 authsum-blake2b; do
	img=$T/$t.img
	# 1 GiB sparse: copies 0 and 1 (64 KiB, 64 MiB)
	truncate -s 1G "$img"
	run_check "$BTRFS" --auth-key kit-k1 mkfs -q -f --csum "$t" "$img" > /dev/null 2>&1

	# the right key: both lines match, every copy
	ds 0 --auth-key kit-k1 inspect-internal dump-super -a "$img"
	[ "$(grep -c '^csum	.* \[match\]$' "$T/out")" -eq 2 ] || _fail "$t: -a with the key: not 2 csum [match] lines"
	[ "$(grep -c '^auth_key_check		0x[0-9a-f]\{64\} \[match\] (right key)$' "$T/out")" -eq 2 ] ||
		_fail "$t: -a with the key: not 2 right-key lines"
	ds 0 --auth-key kit-k1 inspect-internal dump-super -s 1 "$img"
	assert_grep "^bytenr[[:space:]]*67108864$" "$T/out"
	csum_line | grep -q ' \[match\]$' || _fail "$t: -s 1 with the key: csum not [match]"

	# a wrong key: said so on the key check line; the csum line cannot be verified with it
	ds 0 --auth-key kit-k2 inspect-internal dump-super "$img"
	kcv_line | grep -q "\[DON'T MATCH\] (wrong key for this filesystem)$" || _fail "$t: wrong key not said"
	unverified "WRONG KEY" "wrong key"

	# no key: as before (full types [NO KEY], authsum its xxhash64 part)
	ds 0 inspect-internal dump-super "$img"
	kcv_line | grep -q ' \[NO KEY\]$' || _fail "$t: no key: key check line"
	unverified "NO KEY" "no key"

	# copy 1 changed (a reserved byte), checksum left: [DON'T MATCH] with the key, copy 0 still matches
	cp --sparse=always "$img" "$T/bad.img"
	printf '\x01' | dd of="$T/bad.img" bs=1 seek=$((67108864 + 3900)) conv=notrunc status=none
	ds 0 --auth-key kit-k1 inspect-internal dump-super -a "$T/bad.img"
	[ "$(csum_line | sed -n 1p | grep -c ' \[match\]$')" -eq 1 ] || _fail "$t: copy 0 not [match]"
	[ "$(csum_line | sed -n 2p | grep -c " \[DON'T MATCH\]$")" -eq 1 ] || _fail "$t: changed copy 1 not [DON'T MATCH]"
	echo "ok: $t"
done

# authsum: copy 0 changed and its xxhash64 part recomputed (no key needed): altered
cp --sparse=always "$T/authsum-sha256.img" "$T/bad.img"
run_check "$CB" --forge --mirror 1 "$T/bad.img" super generation +1 > /dev/null
ds 0 inspect-internal dump-super "$T/bad.img"
csum_line | grep -q ' \[NO KEY\] (xxhash64 part matches, authenticity NOT verified)$' ||
	_fail "forged superblock without the key: xxhash64 part does not match"
ds 0 --auth-key kit-k1 inspect-internal dump-super "$T/bad.img"
csum_line | grep -q " \[DON'T MATCH\] (keyed part only: altered without the key)$" ||
	_fail "forged superblock with the key: not altered"
kcv_line | grep -q ' \[match\] (right key)$' || _fail "forged superblock: key check"
echo "ok: forged superblock"

# a key for a plain filesystem, a missing key
truncate -s 256M "$T/plain.img"
run_check "$TOP/mkfs.btrfs" -q -f "$T/plain.img"
ds 1 --auth-key kit-k1 inspect-internal dump-super "$T/plain.img"
assert_grep "checksum type crc32c of .* is not keyed" "$T/err"
assert_not_grep "^csum	" "$T/out"
ds 0 inspect-internal dump-super "$T/plain.img"
assert_grep "^csum	.* \[match\]$" "$T/out"
assert_not_grep "auth_key_check" "$T/out"
ds 5 --auth-key kit-none inspect-internal dump-super "$T/authsum-sha256.img"
assert_grep "no user key 'kit-none'" "$T/err"
echo "ok: refusals"
