#!/bin/bash
# balance filters select the right chunks (usage=0, devid, limit, profiles); pause, status
# paused (exit 1), resume, cancel.  Debian's mkfs.btrfs for now (switch to ours once it lands).
. "$TOP/tests/lib/common.sh"
check_prereq root loop btrfs-kernel progs
MKFS=/sbin/mkfs.btrfs
[ -x "$MKFS" ] || _skip "no mkfs.btrfs"

devs=()
for i in 1 2 3 4; do
	truncate -s 1G "$T/d$i.img"
	d=$(setup_loopdev "$T/d$i.img"); track_loopdev "$d"; devs+=("$d")
done
run_check "$MKFS" -q -f -d single -m raid1 "${devs[@]}" > /dev/null
mnt=$T/mnt
mount_tracked "${devs[0]}" "$mnt"
head -c 64M /dev/urandom > "$T/r64"
for i in $(seq 20); do cp "$T/r64" "$mnt/c$i"; done
sync

relocated() { sed -n 's/^Done, had to relocate \([0-9]*\) out of.*/\1/p' "$1"; }
run_check "$BTRFS" balance start -dlimit=2 "$mnt" > "$T/out"
[ "$(relocated "$T/out")" = 2 ] || _fail "limit=2 relocated $(relocated "$T/out")"
run_check "$BTRFS" balance start -dprofiles=raid1 "$mnt" > "$T/out"
[ "$(relocated "$T/out")" = 0 ] || _fail "profiles=raid1 on single data relocated chunks"
run_check "$BTRFS" balance start -mprofiles=raid1,limit=1 "$mnt" > "$T/out"
[ "$(relocated "$T/out")" = 2 ] || _fail "-m limit=1 should move 1 metadata + 1 system chunk"
run_check "$BTRFS" balance start -dusage=0 "$mnt" > "$T/out"
run_check "$BTRFS" balance start -ddevid=99 "$mnt" > "$T/out"
[ "$(relocated "$T/out")" = 0 ] || _fail "devid=99 relocated chunks"
# soft skips chunks already converted: convert two, then soft converts the rest only.
run_check "$BTRFS" balance start -dconvert=raid0,limit=2 "$mnt" > "$T/out"
total=$(sed -n 's/.* out of \([0-9]*\) chunks/\1/p' "$T/out")
run_check "$BTRFS" balance start -v -dconvert=raid0,soft "$mnt" > "$T/out"
assert_grep 'soft is on' "$T/out"
n=$(relocated "$T/out")
[ "$n" -ge 1 ] && [ "$n" -lt "$total" ] || _fail "soft relocated $n of $total"

# Pause / status / resume / cancel: catch the balance while it runs (retry a few times).
caught=0
for try in 1 2 3; do
	"$BTRFS" balance start --full-balance "$mnt" > "$T/bal.out" 2> "$T/bal.err" &
	pid=$!
	for i in $(seq 500); do
		"$BTRFS" balance status "$mnt" > "$T/st" 2>/dev/null
		grep -q 'is running' "$T/st" && break
		sleep 0.01
	done
	if "$BTRFS" balance pause "$mnt" 2> "$T/perr"; then
		wait $pid; rc=$?
		[ $rc -eq 0 ] || _fail "paused balance start exited $rc"
		assert_grep 'balance paused by user' "$T/bal.err"
		caught=1; break
	fi
	wait $pid
done
[ $caught -eq 1 ] || _fail "could not catch a running balance in 3 tries"
expect_exit 1 "$BTRFS" balance status "$mnt" > "$T/st"
assert_grep "Balance on '$mnt' is paused" "$T/st"
assert_grep 'chunks balanced' "$T/st"
expect_exit 1 "$BTRFS" balance start -dusage=5 "$mnt" 2> "$T/err"
assert_grep 'error during balancing' "$T/err"
"$BTRFS" balance resume "$mnt" > "$T/res.out" 2> "$T/res.err" &
pid=$!
for i in $(seq 200); do
	"$BTRFS" balance status "$mnt" > "$T/st" 2>/dev/null; rc=$?
	[ $rc -eq 0 ] && break
	grep -q 'is running' "$T/st" && break
	sleep 0.01
done
"$BTRFS" balance cancel "$mnt" 2> "$T/cerr"; crc=$?
wait $pid; rc=$?
[ $rc -eq 0 ] || _fail "resume exited $rc"
if [ $crc -eq 0 ]; then
	assert_grep 'balance canceled by user' "$T/res.err"
else
	[ $crc -eq 2 ] || _fail "cancel exited $crc"
	assert_grep 'Done, had to relocate' "$T/res.out"
fi
expect_exit 0 "$BTRFS" balance status "$mnt" > "$T/st"
assert_grep 'No balance found' "$T/st"
expect_exit 2 "$BTRFS" balance pause "$mnt" 2> "$T/err"
assert_grep 'Not running' "$T/err"
expect_exit 2 "$BTRFS" balance cancel "$mnt" 2> "$T/err"
assert_grep 'Not in progress' "$T/err"
expect_exit 2 "$BTRFS" balance resume "$mnt" 2> "$T/err"
echo ok
