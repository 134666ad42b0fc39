#!/bin/bash
# Every profile on four devices (dup on one): check clean, mount, write,
# check clean again.  raid56 and raid1c34 set their incompat bits.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

mk_images 4 256M
attach_images 4
while read -r n data meta flag; do
	devs=("${LOOPS[@]:0:$n}")
	echo "== -d $data -m $meta on $n devices" >&2
	run_check "$TOP/mkfs.btrfs" -q -f -d "$data" -m "$meta" "${devs[@]}"
	progs_check "${devs[@]}"
	"$PROGS_BTRFS" inspect-internal dump-super "${devs[0]}" > "$T/super"
	[ "$flag" = - ] || assert_grep "$flag" "$T/super"
	mount_and_fill 16 "${devs[@]}"
	progs_check "${devs[@]}"
	forget_devices
done <<'LIST'
1 single dup -
1 dup dup -
1 single single -
2 raid0 raid1 -
2 raid1 raid1 -
4 raid10 raid10 -
3 raid10 raid1 -
4 raid5 raid6 RAID56
3 raid6 raid5 RAID56
3 raid5 raid1c3 RAID56
4 raid0 raid0 -
3 single raid1c3 RAID1C34
LIST
echo ok
