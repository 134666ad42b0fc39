#!/bin/bash
# Offline balance (issue 21) killed with SIGKILL at random moments: a filesystem with
# ~300MiB of kernel-written files on 3 loop devices is converted between profiles
# (raid1, raid0, raid5, raid1c3, raid6 metadata, single); each convert is killed after a
# random delay (shorter once a convert finished first), then our check and Debian's check must be clean, the kernel must mount
# it with every file's sha256 unchanged, and rerunning the command completes the convert.
# Loop devices and mounts: run under flock /tmp/btrfs-kit-loop.lock (make test-interop).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/balance-crash.sh"
check_prereq root loop btrfs-kernel progs

crash_fs 1G
for i in $(seq 1 12); do head -c 25M /dev/urandom > "$mnt/f$i"; done
mkdir "$mnt/small"; for i in $(seq 200); do head -c $((i * 53)) /dev/urandom > "$mnt/small/$i"; done
sync
tree_sums "$mnt" > "$T/sums"
umount "$mnt"

killed=0
run=0
# the longest delay before the kill: halved each time a convert ends first (a fast
# machine converts this filesystem in well under a second)
span=0.8
for args in "-dconvert=raid1 -mconvert=raid1c3" "-dconvert=raid0 -mconvert=raid1 -f" \
	    "-dconvert=raid5 -mconvert=raid1c3" "-dconvert=raid1c3 -mconvert=raid1c3" \
	    "-dconvert=raid1 -mconvert=raid6" "-dconvert=single -mconvert=raid1 -f"; do
	run=$((run + 1))
	# shellcheck disable=SC2086
	"$BTRFS" balance start $args "${devs[@]}" > "$T/out.$run" 2>&1 &
	pid=$!
	sleep "$(awk -v s="$RANDOM" -v d="$span" 'BEGIN { srand(s); printf "%.3f", 0.02 + rand() * d }')"
	if kill -9 "$pid" 2>/dev/null; then
		killed=$((killed + 1))
	else
		span=$(awk -v d="$span" 'BEGIN { printf "%.3f", d / 2 }')
	fi
	wait "$pid"
	crash_verify "after SIGKILL of $args"
	# shellcheck disable=SC2086
	convert_completes $args
done
crash_verify "after the last rerun"
"$BTRFS" inspect-internal dump-tree -t chunk "${devs[@]}" > "$T/chunks"
assert_not_grep 'type DATA|RAID' "$T/chunks"
[ "$killed" -ge 3 ] || _fail "only $killed of $run converts were still running when killed"
echo "killed $killed of $run converts"
echo ok
