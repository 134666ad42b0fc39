#!/bin/bash
# btrfs image (create) from multi-device corpus filesystems, every device
# named (btrfs image [-d] DEV1 DEV2 ... TARGET): raid1-raid1 (2 devices, rich
# workload), raid10-4dev (RAID10 data: each device holds only part of it) and
# raid1c3-raid1c4 (4 devices):
# - metadata dump (-c9) and data dump (-d -c9) restored onto one target: our
#   check (with --check-data-csum for -d) and Debian's check pass;
# - the -d dump restored with -m onto as many targets as devices: our check
#   --check-data-csum on them passes (every data extent read through the
#   chunk mapping lands on its devices);
# - raid1-raid1 with only dev1 named (RAID1: a copy of everything on it) gives
#   the same dump as with both named; raid10-4dev with only dev1 named is
#   refused with an error naming the missing devices, exit 1.
. "$TOP/tests/lib/common.sh"
check_prereq corpus progs python3
n=0
for case in raid1-raid1 raid10-4dev raid1c3-raid1c4; do
	dir=$(corpus_case "$case")
	devs=("$dir"/dev*.img)
	[ ${#devs[@]} -ge 2 ] || _fail "$case: fewer than 2 devices"
	for opt in -c9 "-d -c9"; do
		rm -f "$T"/*.raw "$T"/t*
		# shellcheck disable=SC2086
		run_check "$BTRFS" image $opt "${devs[@]}" "$T/all.dump"
		run_check "$BTRFS" image -r "$T/all.dump" "$T/one.raw"
		csum=
		[ "$opt" = -c9 ] || csum=--check-data-csum
		run_check "$BTRFS" check $csum "$T/one.raw" > "$T/check.log" 2>&1
		run_check /usr/bin/btrfs check $csum "$T/one.raw" > "$T/check.log" 2>&1
		n=$((n + 1))
	done
	targets=()
	for ((i = 1; i <= ${#devs[@]}; i++)); do targets+=("$T/t$i"); done
	run_check "$BTRFS" image -m "$T/all.dump" "${targets[@]}"
	run_check "$BTRFS" check --check-data-csum "${targets[@]}" > "$T/check.log" 2>&1
done
dir=$(corpus_case raid1-raid1)
run_check "$BTRFS" image -d -c9 "$dir/dev1.img" "$dir/dev2.img" "$T/both.dump"
run_check "$BTRFS" image -d -c9 "$dir/dev1.img" "$T/first.dump"
cmp "$T/both.dump" "$T/first.dump" || _fail "raid1: the dump of dev1 alone differs from the dump naming both"
dir=$(corpus_case raid10-4dev)
expect_exit 1 "$BTRFS" image "$dir/dev1.img" "$T/x.dump" 2> "$T/err"
assert_grep "devid 3 is missing" "$T/err"
echo "$n dumps of multi-device filesystems restored onto one target (both checks), -d dumps onto all with -m (data csums), raid1 dev1 alone dumps the same"
