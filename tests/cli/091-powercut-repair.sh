#!/bin/bash
# Power-cut replay of commands that change a filesystem (issue 18): every
# crash state of check --repair (fsck images our repair mends), of
# --init-csum-tree and of --clear-space-cache v2 must be the old state (same
# verdict and messages of our check, same exit of btrfs-progs' check), the
# new one (both clean), an intermediate commit that only lost old errors, or
# a torn primary superblock both checks refuse.  Sampled with a fixed seed;
# POWERCUT=full (make test-powercut) is exhaustive.
. "$TOP/tests/lib/common.sh"
check_prereq python3
check_prereq fsck-images
. "$TOP/tests/lib/powercut.sh"
pc() {
	local name=$1 img=$2; shift 2
	powercut_run "$name" change --dev "$img" -- "$@"
	assert_grep "^powercut $name: .* failed 0 (.*new [1-9]" "$T/out"
	assert_grep "^powercut $name: .*old [1-9]" "$T/out"
}

for c in 051-invalid-super-bytes-used--default 043-bad-inode-generation--bad_inode_geneartion \
	 005-bad-item-offset--default_case 014-no-extent-info--no_extent_bad_dev \
	 058-bad-free-space-tree-entry--corrupt-free-space-tree; do
	d=$SHARED/fsck-images/$c
	[ -f "$d/restored.raw.tar.xz" ] || _fail "no image in $d"
	rm -rf "$T/x" && mkdir -p "$T/x"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/x" || _fail "cannot extract $d"
	pc "repair-${c%%-*}" "$T/x/restored.raw" "$BTRFS" check --repair --force "$T/x/restored.raw"
done

src=$T/src
mkdir -p "$src/d"
for i in $(seq 1 300); do echo "f$i" > "$src/d/f$i"; done
head -c 200000 /dev/urandom > "$src/big"
img=$T/fs.img
run_check "$TOP/mkfs.btrfs" -q -f --rootdir "$src" -b 256M "$img" > /dev/null
pc init-csum-tree "$img" "$BTRFS" check --repair --force --init-csum-tree "$img"
# the free space tree goes (v2 clear) only without the block group tree
run_check "$TOP/mkfs.btrfs" -q -f -O ^block-group-tree --rootdir "$src" -b 256M "$img" > /dev/null
pc clear-space-cache-v2 "$img" "$BTRFS" check --force --clear-space-cache v2 "$img"
