#!/bin/bash
# Every profile on four devices (dup on one): check clean, mount, write,
# check clean again.  raid56 and raid1c34 set their incompat bits.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

loop_images 4 256M
while read -r n data meta flag; do
	mkfs_fill_check "$n" "$flag" -d "$data" -m "$meta"
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
