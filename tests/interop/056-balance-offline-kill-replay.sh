#!/bin/bash
# Offline balance killed at write boundaries, and killed again while it resumes (issue 37):
# tests/tools/killreplay.py runs each convert with its write log, rebuilds the state a
# kill -9 leaves after each write it chooses (every write between two superblock writes
# of a commit, when some devices hold the new generation and some the old, and a spread
# of the others), and judges each: our check clean, btrfs-progs' check of every device
# clean (it reads the superblock of the device it is given, so a device left at the older
# generation must still name whole trees), the kernel mounting it with every file intact.
# From some of those states the kernel mounts it read-write and reads every file, the
# convert runs again to completion, is itself killed at its write boundaries, and run a
# third time.  Directions: up (single/raid1 -> raid1/raid1c3), down with -f, to and from
# RAID5/6 on 4 devices; mixed block groups on 2 devices.  Sampled here (a few hundred
# states in all); KILL_REPLAY=full (make test-crash) takes every write boundary, 16
# resumes with 60 states of each rerun.  Before the superblocks were settled first, a rerun from a state with split
# superblocks overwrote blocks the older generation named (btrfs-progs: parent transid
# verify failed).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3

if [ "${KILL_REPLAY:-}" = full ]; then
	sample=(--states 0 --resume 16 --resume-states 60)
else
	sample=(--states 60 --resume 4 --resume-states 10)
fi

# fs_with_files N SIZE MKFS-ARGS...: N images of SIZE, our mkfs, kernel-written files and a
# snapshot, unmounted and detached; imgs=(the images), $T/sums (every file's sha256)
fs_with_files() {
	local n=$1 size=$2 l
	shift 2
	loop_images "$n" "$size"
	run_check "$TOP/mkfs.btrfs" -q -f "$@" "${LOOPS[@]}" > /dev/null
	mount_tracked "${LOOPS[0]}" "$T/mnt" "$(device_opts "${LOOPS[@]}")"
	"$PROGS_BTRFS" subvolume create "$T/mnt/sv" > /dev/null || _fail "subvolume create"
	for i in 1 2 3; do head -c 9M /dev/urandom > "$T/mnt/sv/big$i"; done
	mkdir "$T/mnt/sv/small"
	for i in $(seq 300); do head -c $((i * 37)) /dev/urandom > "$T/mnt/sv/small/$i"; done
	"$PROGS_BTRFS" subvolume snapshot "$T/mnt/sv" "$T/mnt/snap" > /dev/null || _fail "snapshot"
	rm "$T/mnt/sv/big1"
	head -c 5M /dev/urandom > "$T/mnt/sv/big4"
	(cd "$T/mnt" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$T/sums"
	umount "$T/mnt" || _fail "umount"
	for l in "${LOOPS[@]}"; do losetup -d "$l"; done
	forget_devices
	imgs=()
	for ((i = 1; i <= n; i++)); do imgs+=("$T/d$i.img"); done
}

# replay NAME BALANCE-ARGS...: the convert killed and resumed; it must end converted
replay() {
	local name=$1 devargs=() d
	shift
	for d in "${imgs[@]}"; do devargs+=(--dev "$d"); done
	run_mayfail python3 "$TOP/tests/tools/killreplay.py" "${sample[@]}" ${KILL_REPLAY_VERBOSE:+--verbose} --mount --kernel-rw \
		--sums "$T/sums" --btrfs "$BTRFS" --name "$name" "${devargs[@]}" -- \
		"$BTRFS" balance start "$@" "${imgs[@]}" > "$T/out" 2>&1
	local rc=$?
	grep -v '^  ' "$T/out" | cut -c1-300
	[ $rc -eq 0 ] || _fail "$name: killreplay.py exit $rc"
	assert_grep "^killreplay $name: writes [1-9][0-9]*, states [1-9][0-9]*, resumed [1-9][0-9]* (states [1-9][0-9]*), failed 0$" "$T/out"
	run_check "$BTRFS" balance start "$@" "${imgs[@]}" > "$T/run" 2>&1
	assert_grep '^Done, had to convert' "$T/run"
}

fs_with_files 4 512M -d single -m raid1
replay up -dconvert=raid1 -mconvert=raid1c3
replay down -f -dconvert=single -mconvert=raid1
replay to-raid56 -dconvert=raid5 -mconvert=raid6
replay from-raid56 -f -dconvert=raid0 -mconvert=raid1c3
"$BTRFS" inspect-internal dump-tree -t chunk "${imgs[@]}" > "$T/chunks"
assert_grep "type DATA|RAID0$" "$T/chunks"
assert_not_grep 'RAID[56]' "$T/chunks"

fs_with_files 2 320M -M -d raid1 -m raid1
replay mixed -f -dconvert=single -mconvert=single
echo ok
