#!/bin/bash
# dump-super on bad input: clear errors and exit codes, never a crash.
. "$TOP/tests/lib/common.sh"
check_prereq corpus

dir=$(corpus_case default-rich)
ds() { "$BTRFS" inspect-internal dump-super "$@"; }

# A missing device: error naming it, exit 1.
expect_exit 1 ds "$T/nonexistent.img" > "$T/out" 2> "$T/err"
assert_grep "ERROR: cannot open $T/nonexistent.img: No such file or directory" "$T/err"

# No device at all, and bad option values: usage errors, exit 1.
expect_exit 1 ds 2> "$T/err"
assert_grep "not enough arguments" "$T/err"
assert_grep "usage: btrfs inspect-internal dump-super" "$T/err"
for bad in abc 1k ""; do
	expect_exit 1 ds -s "$bad" "$dir/dev1.img" > "$T/out" 2> "$T/err"
	assert_grep "is not a valid numeric value" "$T/err"
	[ -s "$T/out" ] && _fail "-s '$bad' printed a superblock"
done
expect_exit 1 ds -s -1 "$dir/dev1.img" 2> "$T/err"
assert_grep "negative value is invalid" "$T/err"
expect_exit 1 ds --bytenr xyz "$dir/dev1.img" 2> "$T/err"
assert_grep "xyz is not a valid numeric value" "$T/err"
expect_exit 1 ds --no-such-option "$dir/dev1.img" 2> "$T/err"

# A file of zeros: bad magic, non-zero exit; the header is printed first.
truncate -s 1M "$T/zeros.img"
run_mustfail "bad magic" ds "$T/zeros.img" > "$T/out" 2> "$T/err"
assert_grep "bad magic on superblock on $T/zeros.img at 65536 (use --force to dump it anyway)" "$T/err"
assert_grep "^superblock: bytenr=65536, device=$T/zeros.img" "$T/out"
assert_not_grep "csum_type" "$T/out"
# ... and it stops there: the good device after it is not dumped.
run_mustfail "bad magic first" ds "$T/zeros.img" "$dir/dev1.img" > "$T/out" 2>/dev/null
assert_not_grep "dev1.img" "$T/out"

# --force dumps it anyway, with magic and checksum marked.
expect_exit 0 ds -F -f "$T/zeros.img" > "$T/out"
assert_grep "^magic			........ \[DON'T MATCH\]" "$T/out"
assert_grep "^csum			0x00000000 \[DON'T MATCH\]" "$T/out"
assert_grep "^sys_chunk_array\[2048\]:" "$T/out"

# A device too short for the primary copy: nothing there, exit 0, nothing printed.
truncate -s 10k "$T/short.img"
expect_exit 0 ds "$T/short.img" > "$T/out"
[ -s "$T/out" ] && _fail "output for a device shorter than 64KiB"
# A copy cut short: read error, exit 1.
head -c 66000 "$dir/dev1.img" > "$T/cut.img"
expect_exit 1 ds "$T/cut.img" 2> "$T/err"
assert_grep "failed to read the superblock on $T/cut.img at 65536" "$T/err"

# Mirrors beyond the device end (300MiB: no copy at 256GiB) are skipped.
expect_exit 0 ds -s 2 "$dir/dev1.img" > "$T/out"
[ -s "$T/out" ] && _fail "output for a mirror beyond the end of the device"
expect_exit 0 ds --bytenr $((1 << 40)) "$dir/dev1.img" > "$T/out"
[ -s "$T/out" ] && _fail "output for --bytenr beyond the end of the device"
expect_exit 0 ds -a "$dir/dev1.img" > "$T/out"
[ "$(grep -c '^superblock:' "$T/out")" -eq 2 ] || _fail "-a should print the 2 copies of a 300MiB device"
expect_exit 0 ds -s 1 "$dir/dev1.img" > "$T/out"
assert_grep "^superblock: bytenr=67108864, device=" "$T/out"
assert_grep "^bytenr			67108864" "$T/out"

# -s N above 2 is the deprecated spelling of --bytenr.
run_mustfail "bad magic at 4096" ds -s 4096 "$dir/dev1.img" > /dev/null 2> "$T/err"
assert_grep "WARNING: deprecated use of -s <bytenr> with 4096, assuming --bytenr" "$T/err"
assert_grep "bad magic on superblock on .* at 4096" "$T/err"

# A flipped byte: checksum reported as not matching, still exit 0.
cp --sparse=always "$dir/dev1.img" "$T/flip.img"
printf '\x01' | dd of="$T/flip.img" bs=1 seek=$((65536 + 100)) conv=notrunc status=none
expect_exit 0 ds "$T/flip.img" > "$T/out"
assert_grep "^csum			0x[0-9a-f]\{8\} \[DON'T MATCH\]" "$T/out"
# An unknown checksum type: INVALID, 32 bytes shown, no verdict.
printf '\x07' | dd of="$T/flip.img" bs=1 seek=$((65536 + 0xc4)) conv=notrunc status=none
expect_exit 0 ds "$T/flip.img" > "$T/out"
assert_grep "^csum_type		7 (INVALID)" "$T/out"
assert_grep "^csum_size		32" "$T/out"
assert_grep "\[UNKNOWN CSUM TYPE OR SIZE\]" "$T/out"

# A directory: read error naming it.
mkdir -p "$T/dir"
expect_exit 1 ds "$T/dir" 2> "$T/err"
assert_grep "errno = 21" "$T/err"
echo "all dump-super error cases behave"
