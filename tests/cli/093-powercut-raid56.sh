#!/bin/bash
# Power-cut replay of commits into RAID5/6 metadata and data (issue 18): a
# filesystem of our mkfs on three (RAID5) and four (RAID6) image files, then
# a command that commits part rows into chunks holding committed blocks
# (check --repair --init-csum-tree: several commits).  Every crash state must
# be old or new as for any change, and judged again with each device left
# out in turn (--degraded): our check reading through parity must still find
# the old or the new filesystem intact, so a read-modify-write torn between
# data and parity must never touch a row holding blocks of the committed
# generation (the write hole).  Sampled with a fixed seed; POWERCUT=full
# (make test-powercut) is exhaustive and has the kernel mount each final state.
. "$TOP/tests/lib/common.sh"
check_prereq python3
. "$TOP/tests/lib/powercut.sh"

src=$T/src
mkdir -p "$src/d"
for i in $(seq 1 200); do echo "f$i" > "$src/d/f$i"; done
head -c 300000 /dev/urandom > "$src/big"

pc() { # name profile ndev command-args...
	local name=$1 prof=$2 n=$3 devs=() imgs=()
	shift 3
	for i in $(seq 1 "$n"); do
		rm -f "$T/d$i.img"
		truncate -s 160M "$T/d$i.img"
		imgs+=("$T/d$i.img")
		devs+=(--dev "$T/d$i.img")
	done
	run_check "$TOP/mkfs.btrfs" -q -f -d "$prof" -m "$prof" -r "$src" "${imgs[@]}" > /dev/null
	powercut_run "$name" change --degraded "${devs[@]}" -- "$BTRFS" check --force "$@" "${imgs[@]}"
	assert_grep "^powercut $name: .* failed 0 (.*new [1-9]" "$T/out"
	assert_grep "^powercut $name: .*old [1-9]" "$T/out"
	assert_grep "^powercut $name: degraded checks [1-9][0-9]*, failed 0 " "$T/out"
}

pc raid5-init-csum-tree raid5 3 --repair --init-csum-tree
pc raid6-init-csum-tree raid6 4 --repair --init-csum-tree
echo ok
