#!/bin/bash
# Mixed block groups and features on and off: check clean, mount, write, check.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

loop_images 2 300M
while read -r n want opts; do
	# shellcheck disable=SC2086
	mkfs_fill_check "$n" "$want" $opts
done <<'LIST'
1 MIXED_GROUPS -M
1 MIXED_GROUPS -M -d dup -m dup
2 MIXED_GROUPS -M -d raid1 -m raid1
1 - -O ^block-group-tree
1 - -O ^free-space-tree,^block-group-tree
1 - -O ^skinny-metadata,^no-holes,^block-group-tree
1 - -O ^extref
1 - -O quota
LIST
"$PROGS_BTRFS" inspect-internal dump-tree -t quota "${LOOPS[0]}" > "$T/quota"
assert_grep 'QGROUP_STATUS' "$T/quota"
echo ok
