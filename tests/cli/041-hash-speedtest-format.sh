#!/bin/bash
# hash-speedtest (a benchmark, so only its output is tested, never its
# figures): option errors, then a tiny --tsv run: every row has four fields,
# an algorithm from the documented set, an implementation named ref,
# simd-<isa>, batch-<isa>, lib-<name>, csum or batch-csum, numbers; each
# algorithm has a ref row, every peer library configure found has its rows,
# and each keyed btrfs csum type its csum and batch-csum rows.
. "$TOP/tests/lib/common.sh"

bin=$TOP/hash-speedtest
(cd "$TOP" && make -s hash-speedtest > "$T/build.log" 2>&1) || { cat "$T/build.log"; _fail "make hash-speedtest"; }
expect_exit 1 "$bin" -b 0 2> "$T/err"
assert_grep "block size must be" "$T/err"
expect_exit 1 "$bin" -b 65537 2> "$T/err"
assert_grep "block size must be" "$T/err"
expect_exit 1 "$bin" --bogus 2> "$T/err"
assert_grep "usage: hash-speedtest" "$T/err"
expect_exit 1 "$bin" -n 12x 2> "$T/err"
expect_exit 1 "$bin" -r 0 2> "$T/err"
assert_grep "usage: hash-speedtest" "$T/err"

run_check "$bin" -b 65536 -n 20 --tsv > "$T/big.tsv"
run_check "$bin" -b 777 -n 40 -r 4 --tsv > "$T/out.tsv"
awk -F'\t' '
	NF != 4 { print "line " NR ": " NF " fields"; bad = 1 }
	$1 !~ /^(null-nop|null-memcpy|crc32c|xxhash|sha256|blake2b|hmac-sha256|blake2b-keyed|auth-sha256|auth-blake2b|authsum-sha256|authsum-blake2b)$/ {
		print "line " NR ": algorithm " $1; bad = 1 }
	$2 !~ /^(ref|simd-[a-z0-9]+|batch-[a-z0-9]+|lib-[a-z0-9]+|csum)$/ { print "line " NR ": impl " $2; bad = 1 }
	$3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+\.[0-9]$/ { print "line " NR ": numbers " $3 " " $4; bad = 1 }
	END { exit bad }' "$T/out.tsv" || _fail "malformed --tsv rows"
for alg in null-nop null-memcpy crc32c xxhash sha256 blake2b hmac-sha256 blake2b-keyed; do
	assert_grep "^$alg	ref	" "$T/out.tsv"
done
# the keyed btrfs checksum types, from the csum-type table: one block and a batch each
for alg in auth-sha256 auth-blake2b authsum-sha256 authsum-blake2b; do
	assert_grep "^$alg	csum	" "$T/out.tsv"
	assert_grep "^$alg	batch-csum	" "$T/out.tsv"
done
[ "$(grep -c 'csum	[0-9]' "$T/out.tsv")" -eq 8 ] || _fail "not 8 keyed csum-type rows"
[ "$(wc -l < "$T/big.tsv")" -eq "$(wc -l < "$T/out.tsv")" ] || _fail "row count depends on -b"
# peers: the ones configure found (config.h HAVE_PEER_*) must have rows
peer() { grep -q "define HAVE_PEER_$1 1" "$TOP/config.h"; }
if peer ISAL; then assert_grep "^crc32c	lib-isal	" "$T/out.tsv"; fi
if peer XXHASH; then assert_grep "^xxhash	lib-xxhash	" "$T/out.tsv"; fi
if peer B2; then assert_grep "^blake2b	lib-b2	" "$T/out.tsv"; assert_grep "^blake2b-keyed	lib-b2	" "$T/out.tsv"; fi
if peer PGCRYPT; then assert_grep "^sha256	lib-gcrypt	" "$T/out.tsv"; assert_grep "^hmac-sha256	lib-gcrypt	" "$T/out.tsv"; fi
if peer PSODIUM; then assert_grep "^blake2b	lib-sodium	" "$T/out.tsv"; assert_grep "^blake2b-keyed	lib-sodium	" "$T/out.tsv"; fi
if peer PCRYPTO; then assert_grep "^sha256	lib-openssl	" "$T/out.tsv"; assert_grep "^blake2b-keyed	lib-openssl	" "$T/out.tsv"; fi
# SIMD rows: the unit test's default choice must show up as a row
if grep -q 'sha_ni' /proc/cpuinfo 2>/dev/null; then assert_grep "^sha256	simd-shani	" "$T/out.tsv"; fi
exit 0
