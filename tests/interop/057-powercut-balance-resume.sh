#!/bin/bash
# Power-cut replay of offline balance with reruns (issue 37): tests/tools/powercut.py builds
# the states a power cut leaves (per device: the writes before its last flush, any subset of
# the rest, superblocks torn), judges each with our check and btrfs-progs' check of every
# device in turn (--progs-each: a device whose superblock is of the older generation must
# still name whole trees), and from some of the accepted states reruns the convert, which
# must complete with both checks clean (--resume).  Directions: up, down with -f, to and
# from RAID5/6 on 3 devices, mixed block groups on 2.  Sampled (--max-states per
# direction); POWERCUT=full (make test-crash) takes every state and more reruns.
. "$TOP/tests/lib/common.sh"
check_prereq root loop btrfs-kernel progs python3

if [ "${POWERCUT:-}" = full ]; then
	opts=(--mode full --resume 60 --resume-rate 0.05 --mount)
else
	opts=(--mode sample --max-states 120 --resume 6 --resume-rate 0.06)
fi

mkdir -p "$T/root/d"
for i in $(seq 1 100); do echo "f$i" > "$T/root/d/f$i"; done
head -c 3M /dev/urandom > "$T/root/big"

# pc NAME BALANCE-ARGS...: the replay on imgs; at least one rerun, no failed state
pc() {
	local name=$1 devargs=() d
	shift
	for d in "${imgs[@]}"; do devargs+=(--dev "$d"); done
	run_mayfail python3 "$TOP/tests/tools/powercut.py" "${opts[@]}" --seed 37 --progs-each --kind change \
		--btrfs "$BTRFS" --name "$name" "${devargs[@]}" -- "$BTRFS" balance start "$@" "${imgs[@]}" \
		> "$T/out" 2>&1
	local rc=$?
	cut -c1-300 "$T/out" | grep -v '^  '
	[ $rc -eq 0 ] || _fail "$name: powercut.py exit $rc"
	assert_grep "^powercut $name: writes [1-9][0-9]*, flushes [1-9][0-9]*, .* failed 0 (.*mid [1-9]" "$T/out"
	assert_grep "^powercut $name: resumed [1-9]" "$T/out"
	assert_not_grep '^FAILED' "$T/out"
	run_check "$BTRFS" balance start "$@" "${imgs[@]}" > "$T/run" 2>&1
}

imgs=()
for i in 1 2 3; do truncate -s 200M "$T/d$i.img"; imgs+=("$T/d$i.img"); done
run_check "$TOP/mkfs.btrfs" -q -f -d single -m raid1 -r "$T/root" "${imgs[@]}" > /dev/null
pc up -dconvert=raid1 -mconvert=raid1c3
pc down -f -dconvert=single -mconvert=raid1
pc to-raid56 -dconvert=raid5 -mconvert=raid6
pc from-raid56 -f -dconvert=raid1 -mconvert=raid1

imgs=()
for i in 1 2; do truncate -s 200M "$T/m$i.img"; imgs+=("$T/m$i.img"); done
run_check "$TOP/mkfs.btrfs" -q -f -M -d raid1 -m raid1 -r "$T/root" "${imgs[@]}" > /dev/null
pc mixed -f -dconvert=single -mconvert=single
echo ok
