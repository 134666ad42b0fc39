#!/bin/bash
# Power-cut replay of offline balance (issue 21): converts of several chunks on three
# image files, mirrored targets (chunks copied to new stripes, kept stripes) and a parity
# target (the block writer's rows).  Every crash state must be the old filesystem (our
# check says what it said before), the new one, or an intermediate commit (some chunks
# converted, each in its old or new layout) that our check passes.  Sampled with a
# fixed seed; POWERCUT=full (make test-powercut) is exhaustive and has the kernel mount
# each final state.
. "$TOP/tests/lib/common.sh"
check_prereq python3
MODE=${POWERCUT:-sample}
MOUNT=()
[ "$MODE" = full ] && MOUNT=(--mount)

mkdir -p "$T/root/d"
for i in $(seq 1 100); do echo "f$i" > "$T/root/d/f$i"; done
head -c 3M /dev/urandom > "$T/root/big"
imgs=()
for i in 1 2 3; do truncate -s 200M "$T/d$i.img"; imgs+=("$T/d$i.img"); done
run_check "$TOP/mkfs.btrfs" -q -f -d single -m raid1 -r "$T/root" "${imgs[@]}" > /dev/null

pc() { # name balance-args...
	local name=$1; shift
	run_mayfail python3 "$TOP/tests/tools/powercut.py" --mode "$MODE" --seed 21 "${MOUNT[@]}" --kind change \
		--btrfs "$BTRFS" --name "$name" --dev "${imgs[0]}" --dev "${imgs[1]}" --dev "${imgs[2]}" -- \
		"$BTRFS" balance start "$@" "${imgs[@]}" > "$T/out" 2>&1
	local rc=$?
	cat "$T/out"
	[ $rc -eq 0 ] || _fail "$name: powercut.py exit $rc"
	# the first crash points are before any commit, later ones between chunk commits
	assert_grep "^powercut $name: writes [1-9][0-9]*, flushes [1-9][0-9]*, .* failed 0 (.*mid [1-9].*new [1-9]" "$T/out"
	assert_grep "^powercut $name: .*old [1-9]" "$T/out"
	assert_not_grep '^FAILED' "$T/out"
	[ "$MODE" != full ] || assert_grep "^powercut $name: the kernel mounts the final state" "$T/out"
}
pc raid1c3 -dconvert=raid1c3 -mconvert=raid1c3
"$BTRFS" inspect-internal dump-tree -t chunk "${imgs[@]}" > "$T/chunks"
[ "$(grep -c 'type .*RAID1C3' "$T/chunks")" -eq 3 ] || _fail "not every chunk is raid1c3 after the replay"
pc raid5 -f -dconvert=raid5 -mconvert=raid1
echo ok
