#!/bin/bash
# mkfs.btrfs with the defaults on one 1 GiB device (DUP metadata, single data,
# free-space-tree, block-group-tree): btrfs-progs' check is clean, the kernel
# mounts it and takes 300 MiB and 500 files, the check is still clean afterwards.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

loop_images 1 1G
run_check "$TOP/mkfs.btrfs" -f -L defaults "${LOOPS[0]}" > "$T/mkfs.out"
assert_grep '^Label:              defaults$' "$T/mkfs.out"
assert_grep '^  Metadata:         DUP              51.19MiB$' "$T/mkfs.out"
assert_grep '^  Data:             single            8.00MiB$' "$T/mkfs.out"
assert_grep '^  System:           DUP               8.00MiB$' "$T/mkfs.out"
assert_grep '^Features:           extref, skinny-metadata, no-holes, free-space-tree, block-group-tree$' "$T/mkfs.out"
progs_check "${LOOPS[0]}"
"$PROGS_BTRFS" inspect-internal dump-super "${LOOPS[0]}" > "$T/super"
assert_grep '^label[[:space:]]*defaults$' "$T/super"
assert_grep 'BLOCK_GROUP_TREE' "$T/super"
assert_grep 'FREE_SPACE_TREE_VALID' "$T/super"
assert_grep 'SKINNY_METADATA' "$T/super"
mount_and_fill 300 "${LOOPS[0]}"
progs_check "${LOOPS[0]}"
assert_grep 'found [0-9]* bytes used, no error found' "$T/check.log"
echo ok
