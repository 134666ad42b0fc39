#!/bin/bash
# btrfs check --clear-space-cache v1|v2 and --init-csum-tree on images made
# by mkfs --rootdir (data, a subvolume, compressed and nodatasum files):
# progs' messages, the superblock bits, our check and Debian's clean after,
# the rebuilt csum tree holding the same checksum for every sector as the
# one mkfs wrote, also after the old one was damaged; refusals leave the
# image untouched; and on every fuzz image these options fail cleanly or
# succeed, never crash.
. "$TOP/tests/lib/common.sh"
check_prereq progs
PROGS=/usr/bin/btrfs
src=$T/src
mkdir -p "$src/sv/d" "$src/z"
head -c 3145728 /dev/urandom > "$src/big"
head -c 1048576 /dev/urandom > "$src/sv/data"
for i in $(seq 1 40); do echo "file $i" > "$src/sv/d/f$i"; done
yes compressible | head -c 2000000 > "$src/z/text"
head -c 524288 /dev/urandom > "$src/nosum"

mkimg() { # IMG FEATURES
	run_check "$TOP/mkfs.btrfs" -q -f -b 256M -O "$2" --rootdir "$src" -u rw:sv \
		--compress zstd --inode-flags nodatasum:nosum "$1" > /dev/null
}
both_clean() { # IMG: our check --check-data-csum and Debian's are clean
	run_check "$BTRFS" check --check-data-csum "$1" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
	"$PROGS" check --check-data-csum "$1" > "$T/out" 2>&1 || { cat "$T/out" >&2; _fail "Debian's check: errors on $1"; }
	assert_grep "no error found" "$T/out"
}
ro_flags() { "$BTRFS" inspect-internal dump-super "$1" | sed -n 's/^compat_ro_flags[[:space:]]*//p'; }
cache_gen() { "$BTRFS" inspect-internal dump-super "$1" | sed -n 's/^cache_generation[[:space:]]*//p'; }
# every "[sector] checksum" pair of the csum tree, one per line
sector_sums() {
	"$BTRFS" inspect-internal dump-tree -t csum --csum-items "$1" |
		grep -o '\[[0-9]*\] 0x[0-9a-f]*' | sort
}
csum_leaf() { "$BTRFS" inspect-internal dump-tree -t csum "$1" | sed -n 's/^leaf \([0-9]*\) items.*/\1/p' | head -n 1; }

# --- v2 on a filesystem without block group tree ---
img=$T/v2.img
mkimg "$img" ^block-group-tree
both_clean "$img"
[ "$(ro_flags "$img")" = 0x3 ] || _fail "mkfs: compat_ro $(ro_flags "$img"), expected 0x3"
run_check "$BTRFS" check --clear-space-cache v2 --force "$img" > "$T/out" 2> "$T/err"
assert_grep "^Clear free space cache v2$" "$T/out"
assert_grep "^free space cache v2 cleared$" "$T/out"
[ "$(ro_flags "$img")" = 0x0 ] || _fail "after v2 clear: compat_ro $(ro_flags "$img")"
"$BTRFS" inspect-internal dump-tree -t root "$img" > "$T/root"
assert_not_grep "FREE_SPACE_TREE ROOT_ITEM" "$T/root"
both_clean "$img"
run_check "$BTRFS" check --clear-space-cache v2 --force "$img" > "$T/out" 2> "$T/err"
assert_grep "^no free space cache v2 to clear$" "$T/out"

# --- v2 refused beside the block group tree: nothing written ---
img=$T/bgt.img
mkimg "$img" block-group-tree
cp "$img" "$T/before"
expect_exit 1 "$BTRFS" check --clear-space-cache v2 --force "$img" > "$T/out" 2> "$T/err"
assert_grep "block group tree needs the free space tree" "$T/err"
expect_exit 0 cmp -s "$img" "$T/before"

# --- v1: no cache files here, the generation is invalidated; with v2 a warning ---
img=$T/v1.img
mkimg "$img" ^block-group-tree,^free-space-tree
run_check "$BTRFS" check --clear-space-cache v1 --force "$img" > "$T/out" 2> "$T/err"
assert_grep "^Free space cache cleared$" "$T/out"
[ "$(cache_gen "$img")" = 18446744073709551615 ] || _fail "cache_generation $(cache_gen "$img")"
both_clean "$img"
run_check "$BTRFS" check --clear-space-cache v1 --force "$T/bgt.img" > "$T/out" 2> "$T/err"
assert_grep "free space cache v2 detected, use --clear-space-cache v2" "$T/err"
[ "$(ro_flags "$T/bgt.img")" = 0xb ] || _fail "v1 clear touched compat_ro: $(ro_flags "$T/bgt.img")"
both_clean "$T/bgt.img"

# --- --init-csum-tree: same checksums as mkfs wrote (none for the nodatasum
# file, the compressed one over its on-disk bytes), also from a damaged tree ---
img=$T/csum.img
mkimg "$img" block-group-tree
sector_sums "$img" > "$T/sums.mkfs"
[ "$(wc -l < "$T/sums.mkfs")" -gt 1000 ] || _fail "mkfs wrote only $(wc -l < "$T/sums.mkfs") checksums"
run_check "$BTRFS" check --init-csum-tree --force "$img" > "$T/out" 2> "$T/err"
assert_grep "^Creating a new CRC tree$" "$T/out"
assert_grep "^Reinitialize checksum tree$" "$T/out"
assert_grep "no error found" "$T/out"
sector_sums "$img" > "$T/sums.ours"
check_golden "$T/sums.mkfs" "$T/sums.ours"
both_clean "$img"
# one checksum zeroed (the block checksum recomputed): both checks see it, the rebuild mends it
first=$(head -n 1 "$T/sums.mkfs" | sed 's/.* 0x//; s/\(..\)/\\x\1/g')
python3 "$TOP/tests/lib/blockpatch.py" "$img" 16384 "$(csum_leaf "$img")" "$first" '\x00\x00\x00\x00' > /dev/null ||
	_fail "checksum $first not found in the csum leaf"
expect_exit 1 "$BTRFS" check --check-data-csum "$img" > "$T/out" 2> "$T/err"
assert_grep "csum mismatch against the csum tree" "$T/err"
run_mustfail "zeroed checksum" "$PROGS" check --check-data-csum "$img" > /dev/null 2>&1
run_check "$BTRFS" check --init-csum-tree --force "$img" > "$T/out" 2> "$T/err"
sector_sums "$img" > "$T/sums.ours"
check_golden "$T/sums.mkfs" "$T/sums.ours"
both_clean "$img"
# the csum leaf unreadable (bytes changed, block checksum not): rebuilt all the same
leaf=$(csum_leaf "$img")
for off in $(python3 "$TOP/tests/lib/blockpatch.py" "$img" 16384 "$leaf" '\x00\x00\x00\x00' '\x00\x00\x00\x00'); do
	printf 'XXXXXXXX' | dd of="$img" bs=1 seek=$((off + 300)) conv=notrunc status=none
done
expect_exit 1 "$BTRFS" check "$img" > "$T/out" 2> "$T/err"
assert_grep "block $leaf.*checksum mismatch\|$leaf.*cannot be read" "$T/err"
# (with --repair: the check that follows runs on the same open filesystem)
run_check "$BTRFS" check --repair --init-csum-tree --check-data-csum --force "$img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
sector_sums "$img" > "$T/sums.ours"
check_golden "$T/sums.mkfs" "$T/sums.ours"
both_clean "$img"
# not with --readonly
expect_exit 1 "$BTRFS" check --readonly --init-csum-tree "$img" > /dev/null 2> "$T/err"
assert_grep "not compatible with --readonly" "$T/err"

# --- hostile images: exit 0 or 1 with a message, never a crash or a hang ---
rebuild_one() { # name image
	local args
	for args in "--clear-space-cache v1" "--clear-space-cache v2" "--init-csum-tree" "-E 5"; do
		cp --sparse=always "$2" "$T/fuzz.img"
		# shellcheck disable=SC2086
		hostile_run 120 "$1 (check $args)" "$BTRFS" check --force --noscan $args "$T/fuzz.img"
	done
	rm -f "$T/fuzz.img"
}
each_hostile_image rebuild_one
echo ok
