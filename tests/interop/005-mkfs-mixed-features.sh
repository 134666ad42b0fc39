#!/bin/bash
# Mixed block groups and features on and off: check clean, mount, write, check.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

mk_images 2 300M
attach_images 2
while read -r n want opts; do
	devs=("${LOOPS[@]:0:$n}")
	echo "== $opts on $n devices" >&2
	run_check "$TOP/mkfs.btrfs" -q -f $opts "${devs[@]}"
	progs_check "${devs[@]}"
	"$PROGS_BTRFS" inspect-internal dump-super "${devs[0]}" > "$T/super"
	[ "$want" = - ] || assert_grep "$want" "$T/super"
	mount_and_fill 16 "${devs[@]}"
	progs_check "${devs[@]}"
	forget_devices
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
