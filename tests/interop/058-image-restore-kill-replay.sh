#!/bin/bash
# btrfs image -r killed at write boundaries and run again (issue 37): tests/tools/killreplay.py
# rebuilds the target a kill after each chosen write leaves; each must hold no valid
# superblock, or one over a whole filesystem (the old one, before its superblocks are
# cleared, or the restored one): our check and btrfs-progs' clean.  From some of those states
# the restore runs again, is killed again and run a third time: each completed rerun leaves
# the target byte for byte as the uninterrupted restore did (but for a backup superblock a
# rerun onto a file the interrupted run grew past 64 MiB writes, as a restore onto any file
# reaching it does).  A dump of our filesystem with files (zlib), onto a new file and onto a
# file holding another filesystem; a dump of a two-device RAID1 filesystem onto one new file
# (the chunks collapsed, then a commit: until its superblock the target carries only the
# temporary magic); a dump of a three-device RAID6/RAID5 filesystem with -m onto three new
# files (full stripe rows with their parity; the three superblocks are written one after
# another: a state with some is judged on those devices alone, degraded).
. "$TOP/tests/lib/common.sh"
check_prereq root loop progs python3

if [ "${KILL_REPLAY:-}" = full ]; then
	sample=(--states 0 --resume 12 --resume-states 40)
else
	sample=(--states 40 --resume 4 --resume-states 8)
fi

mkdir -p "$T/root/d" "$T/old/d"
for i in $(seq 1 400); do echo "file $i" > "$T/root/d/f$i"; done
head -c 2M /dev/urandom > "$T/root/big"
for i in $(seq 1 50); do echo "old $i" > "$T/old/d/f$i"; done
truncate -s 300M "$T/src.img"
run_check "$TOP/mkfs.btrfs" -q -f -n 4096 -r "$T/root" "$T/src.img"
run_check "$BTRFS" image -c9 "$T/src.img" "$T/fs.dump"

# replay NAME [DUMP]: the restore of DUMP (fs.dump) onto $T/t.img as it is now
replay() {
	run_mayfail python3 "$TOP/tests/tools/killreplay.py" "${sample[@]}" --allow-no-super --identical \
		--btrfs "$BTRFS" --name "$1" --dev "$T/t.img" -- "$BTRFS" image -r "$T/${2:-fs.dump}" "$T/t.img" \
		> "$T/out" 2>&1
	local rc=$?
	grep -v '^  ' "$T/out" | cut -c1-300
	[ $rc -eq 0 ] || _fail "$1: killreplay.py exit $rc"
	assert_grep "^killreplay $1: writes [1-9][0-9]*, states [1-9][0-9]*, resumed [1-9][0-9]* (states [1-9][0-9]*), no superblock [1-9][0-9]*, failed 0$" "$T/out"
}

rm -f "$T/t.img"
: > "$T/t.img"
replay restore-new
truncate -s 300M "$T/t.img"
run_check "$TOP/mkfs.btrfs" -q -f -r "$T/old" "$T/t.img"
replay restore-over
truncate -s 200M "$T/m1.img" "$T/m2.img"
run_check "$TOP/mkfs.btrfs" -q -f -m raid1 -d raid1 -r "$T/root" "$T/m1.img" "$T/m2.img"
run_check "$BTRFS" image "$T/m1.img" "$T/m2.img" "$T/multi.dump"
rm -f "$T/t.img"
: > "$T/t.img"
replay restore-collapse multi.dump
truncate -s 200M "$T/p1.img" "$T/p2.img" "$T/p3.img"
run_check "$TOP/mkfs.btrfs" -q -f -m raid6 -d raid5 -r "$T/root" "$T/p1.img" "$T/p2.img" "$T/p3.img"
run_check "$BTRFS" image "$T/p1.img" "$T/p2.img" "$T/p3.img" "$T/raid6.dump"
for i in 1 2 3; do rm -f "$T/t$i.img"; : > "$T/t$i.img"; done
run_mayfail python3 "$TOP/tests/tools/killreplay.py" "${sample[@]}" --allow-no-super --allow-partial-super \
	--identical --btrfs "$BTRFS" --name restore-m-raid6 --dev "$T/t1.img" --dev "$T/t2.img" --dev "$T/t3.img" -- \
	"$BTRFS" image -m -r "$T/raid6.dump" "$T/t1.img" "$T/t2.img" "$T/t3.img" > "$T/out" 2>&1
rc=$?
grep -v '^  ' "$T/out" | cut -c1-300
[ $rc -eq 0 ] || _fail "restore-m-raid6: killreplay.py exit $rc"
assert_grep "^killreplay restore-m-raid6: writes [1-9][0-9]*, states [1-9][0-9]*, resumed [1-9][0-9]* (states [1-9][0-9]*), no superblock [1-9][0-9]*, partial [1-9][0-9]*, failed 0$" "$T/out"
echo ok
