#!/bin/bash
# Power-cut replay of btrfs image -r (issue 18): every crash state of a
# restore onto a new (empty) file has no valid superblock or is the complete
# restored filesystem both checks pass; every crash state of a restore onto a
# file holding an older filesystem (ours, with files) has each valid
# superblock copy either the old one over the intact old filesystem or the new
# one over the complete restored filesystem, or none (kind replace of
# tests/tools/powercut.py).  Sampled with a fixed seed; POWERCUT=full (make
# test-powercut) is exhaustive and has the kernel mount the final state.  Also a
# multi-device dump onto one new file (collapsed, then a commit).
. "$TOP/tests/lib/common.sh"
check_prereq python3
check_prereq fsck-images
. "$TOP/tests/lib/powercut.sh"
pc() {
	local name=$1 kind=$2 dev=$3; shift 3
	powercut_run "$name" "$kind" --dev "$dev" -- "$@"
}
src=$T/src
mkdir -p "$src/d"
for i in $(seq 1 200); do echo "old $i" > "$src/d/f$i"; done
for c in 012-leaf-corruption--good 020-extent-ref-cases--extent_data_ref; do
	img=$(compgen -G "$SHARED/fsck-images/$c/*.img")
	[ -n "$img" ] || _fail "no dump in $c"
	# a new file
	rm -f "$T/t.img"; : > "$T/t.img"
	pc "restore-new-${c%%-*}" mkfs "$T/t.img" "$BTRFS" image -r "$img" "$T/t.img"
	assert_grep "(.*\\bfs [1-9]" "$T/out"
	assert_grep "(.*\\bnone [1-9]" "$T/out"
	# a file holding our older filesystem with files
	rm -f "$T/t.img"; truncate -s 256M "$T/t.img"
	run_check "$TOP/mkfs.btrfs" -q -f --rootdir "$src" "$T/t.img"
	pc "restore-over-${c%%-*}" replace "$T/t.img" "$BTRFS" image -r "$img" "$T/t.img"
	assert_grep "(.*\\bnone [1-9]" "$T/out"
	assert_grep "(.*\\bold [1-9]" "$T/out"
	assert_grep "(.*\\bnew [1-9]" "$T/out"
done
# a dump of a two-device RAID1 filesystem onto one new file: the chunks collapsed, then a
# commit; until its superblock the target holds only the temporary magic (no filesystem)
truncate -s 200M "$T/m1.img" "$T/m2.img"
run_check "$TOP/mkfs.btrfs" -q -f -m raid1 -d raid1 --rootdir "$src" "$T/m1.img" "$T/m2.img"
run_check "$BTRFS" image "$T/m1.img" "$T/m2.img" "$T/multi.dump"
rm -f "$T/t.img"; : > "$T/t.img"
pc restore-collapse mkfs "$T/t.img" "$BTRFS" image -r "$T/multi.dump" "$T/t.img"
assert_grep "(.*\\bfs [1-9]" "$T/out"
assert_grep "(.*\\bnone [1-9]" "$T/out"
