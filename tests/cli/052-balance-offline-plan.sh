#!/bin/bash
# Offline balance (issue 21), the plan and the refusals: on image files made by our
# mkfs, --dry-run prints the per-chunk plan, and every refusal (usage=, reduced
# redundancy without -f, a convert that cannot fit, a log tree, a balance item, a
# relocation tree's root item, a device replace, seed, zoned, no convert) names the
# reason and leaves every image byte-identical.
. "$TOP/tests/lib/common.sh"
need_corrupt_block
need_tool TE tree-edit

imgs=()
for i in 1 2 3; do truncate -s 300M "$T/d$i.img"; imgs+=("$T/d$i.img"); done
run_check "$TOP/mkfs.btrfs" -q -f -d single -m raid1 "${imgs[@]}"
for i in 1 2 3; do cp --sparse=always "$T/d$i.img" "$T/orig$i.img"; done
same() {
	for i in 1 2 3; do cmp "$T/d$i.img" "$T/orig$i.img" || _fail "d$i.img changed ($*)"; done
}
refused() { # message args...
	local msg=$1; shift
	expect_exit 1 "$BTRFS" balance start "$@" 2> "$T/err"
	assert_grep "$msg" "$T/err"
	same "$@"
}

# The plan: every chunk, its new stripes, devices before and after; nothing written.
run_check "$BTRFS" balance start --dry-run -dconvert=raid1c3 -mconvert=raid1c3 "${imgs[@]}" > "$T/plan"
assert_grep '^Plan: 3 chunks to convert' "$T/plan"
assert_grep 'Data 8.00MiB: single -> RAID1C3, 3 stripes of 8.00MiB: 1:[0-9]*(kept) 2:[0-9]* 3:[0-9]*$' "$T/plan"
assert_grep 'System 8.00MiB: RAID1 -> RAID1C3, 3 stripes of 8.00MiB: 2:1048576(kept) 3:1048576(kept) 1:' "$T/plan"
assert_grep 'devid 1: 8.00MiB allocated before, 61.00MiB after' "$T/plan"
same dry-run
# raid6 on 3 devices: one data stripe; raid10 on 3 devices takes 2
run_check "$BTRFS" balance start --dry-run -dconvert=raid6 "${imgs[@]}" > "$T/plan"
assert_grep 'Data 8.00MiB: single -> RAID6, 3 stripes of 8.00MiB' "$T/plan"
run_check "$BTRFS" balance start --dry-run -dconvert=raid10 -dconvert=raid10 "${imgs[@]}" > "$T/plan"
assert_grep 'Data 8.00MiB: single -> RAID10, 2 stripes of 8.00MiB' "$T/plan"
# soft and profiles: the raid1 chunks are not selected for raid1
run_check "$BTRFS" balance start --dry-run -mconvert=raid1,soft "${imgs[@]}" > "$T/plan"
assert_grep '^Plan: 0 chunks to convert (0 selected' "$T/plan"
# soft is implied offline: chunks already converted are not selected and do not count for limit
run_check "$BTRFS" balance start --dry-run -mconvert=raid1 "${imgs[@]}" > "$T/plan"
assert_grep '^Plan: 0 chunks to convert (0 selected' "$T/plan"
# vrange: only the chunk at 30408704 (metadata)
run_check "$BTRFS" balance start --dry-run -dconvert=raid1 -mconvert=raid1c3,vrange=30408704..30408705 "${imgs[@]}" > "$T/plan"
assert_grep '^Plan: 2 chunks to convert' "$T/plan"
assert_grep 'Metadata .*RAID1 -> RAID1C3' "$T/plan"
assert_not_grep 'System .*RAID1 -> RAID1C3' "$T/plan"
run_check "$BTRFS" balance start --dry-run -dconvert=raid1 -mprofiles=single,convert=raid1c3 "${imgs[@]}" > "$T/plan"
assert_grep '^Plan: 1 chunks to convert' "$T/plan"
same filters

refused 'usage filter (-d) compacts chunks' -dusage=50,convert=raid1 "${imgs[@]}"
refused 'from raid1 to single reduces redundancy' -mconvert=single "${imgs[@]}"
refused 'offline balance only converts profiles' -dprofiles=single "${imgs[@]}"
refused 'to raid1c4: it needs 4 devices with a free range of 8.00MiB, 3 have one' -mconvert=raid1c4 "${imgs[@]}"
assert_grep 'devid 3: needed 8.00MiB, largest free range' "$T/err"
assert_grep 'Nothing was written' "$T/err"
# a convert that does not fit the holes: 150MiB images, metadata to raid1c3 with dup data
for i in 1 2 3; do truncate -s 0 "$T/s$i.img"; truncate -s 150M "$T/s$i.img"; done
run_check "$TOP/mkfs.btrfs" -q -f -d raid0 -m raid1 "$T/s1.img" "$T/s2.img" "$T/s3.img"
expect_exit 1 "$BTRFS" balance start -dconvert=raid1c3 "$T/s1.img" "$T/s2.img" "$T/s3.img" 2> "$T/err"
assert_grep 'cannot convert Data chunk' "$T/err"

# Filesystem states offline balance leaves to the kernel.
edit_refused() { # message tool-args...
	local msg=$1; shift
	for i in 1 2 3; do cp --sparse=always "$T/orig$i.img" "$T/d$i.img"; done
	run_check "$@" > /dev/null
	for i in 1 2 3; do cp --sparse=always "$T/d$i.img" "$T/e$i.img"; done
	expect_exit 1 "$BTRFS" balance start -dconvert=raid1 "${imgs[@]}" 2> "$T/err"
	assert_grep "$msg" "$T/err"
	for i in 1 2 3; do cmp "$T/d$i.img" "$T/e$i.img" || _fail "d$i.img changed ($msg)"; done
}
devs=$(IFS=,; echo "${imgs[*]}")
edit_refused 'log tree to replay' "$CB" "$devs" super log_root 30408704
edit_refused 'seed device' "$CB" "$devs" super flags 4294967296
edit_refused 'zoned' "$CB" "$devs" super incompat_flags +4096
edit_refused 'a balance is in progress' "$TE" "$devs" ins 1 18446744073709551612 248 0 "$(printf '00%.0s' $(seq 448))"
# the root item of a relocation tree (TREE_RELOC -8, of fs tree 5) that an interrupted
# kernel balance leaves
edit_refused 'relocation trees of an interrupted balance exist' "$TE" "$devs" ins 1 18446744073709551608 132 5 "$(printf '00%.0s' $(seq 439))"
edit_refused 'device replace' "$TE" "$devs" ins 4 0 250 0 "$(printf '00%.0s' $(seq 80))"
echo ok
