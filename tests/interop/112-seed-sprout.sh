#!/bin/bash
# A seed device and the filesystem sprouted from it (btrfstune -S 1, then the
# kernel adds a device and writes): the sprout's blocks still on the seed
# carry the seed's fsid and its chunk tree names the seed device with it.
# Given both, sprout first, dump-tree prints the sprout whole (as Debian's
# does) and check is clean, data included; seed first, the seed
# filesystem, the sprout device said not used; --repair of the sprout is
# refused with nothing written (a seed is read only); the sprout alone finds
# its seed device by scanning, and has it missing with --noscan.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/dump-tree-compare.sh"
check_prereq root loop btrfs-kernel progs
command -v btrfstune > /dev/null || _skip "btrfstune not installed"
loop_images 2 512M
seed=${LOOPS[0]} sprout=${LOOPS[1]}
run_check "$TOP/mkfs.btrfs" -q -f "$T/d1.img" > /dev/null
mount_tracked "$seed" "$T/mnt"
mkdir "$T/mnt/dir"; for i in $(seq 1 300); do echo "seed file $i" > "$T/mnt/dir/f$i"; done
head -c 3000000 /dev/urandom > "$T/mnt/data"
umount "$T/mnt" || _fail "umount failed"
run_check btrfstune -S 1 "$seed"
mount_tracked "$seed" "$T/mnt"
run_check "$PROGS_BTRFS" device add -f "$sprout" "$T/mnt" > /dev/null
mount -o remount,rw "$T/mnt" || _fail "remount rw failed"
for i in $(seq 1 100); do echo "sprout file $i" > "$T/mnt/dir/s$i"; done
rm "$T/mnt/dir/f7"
umount "$T/mnt" || _fail "umount failed"
seed_fsid=$("$BTRFS" inspect-internal dump-super "$T/d1.img" | awk '$1 == "fsid" { print $2 }')
sprout_fsid=$("$BTRFS" inspect-internal dump-super "$T/d2.img" | awk '$1 == "fsid" { print $2 }')
[ -n "$seed_fsid" ] && [ "$seed_fsid" != "$sprout_fsid" ] || _fail "seed and sprout fsids: '$seed_fsid' '$sprout_fsid'"

# sprout first: the sprouted filesystem, blocks of both fsids, as Debian prints it
"$BTRFS" inspect-internal dump-tree --noscan "$T/d2.img" "$T/d1.img" > "$T/ours" 2> "$T/ours.err" ||
	{ cat "$T/ours.err" >&2; _fail "dump-tree of sprout + seed failed"; }
[ ! -s "$T/ours.err" ] || { cat "$T/ours.err" >&2; _fail "dump-tree of sprout + seed: messages"; }
assert_grep "^fs uuid $seed_fsid$" "$T/ours"
assert_grep "^fs uuid $sprout_fsid$" "$T/ours"
"$PROGS_BTRFS" inspect-internal dump-tree --noscan "$sprout" "$seed" > "$T/progs" 2> /dev/null ||
	_fail "Debian's dump-tree of sprout + seed failed"
normalise_62 "$T/progs" > "$T/progs.norm"; normalise_ours "$T/ours" > "$T/ours.norm"
diff "$T/progs.norm" "$T/ours.norm" > "$T/diff" ||
	{ head -n 20 "$T/diff" >&2; _fail "dump-tree of sprout + seed differs from Debian's"; }
expect_exit 0 "$BTRFS" check --check-data-csum "$T/d2.img" "$T/d1.img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
progs_check "$sprout" "$seed"
echo "ok: sprout + seed: dump-tree as Debian's ($(wc -l < "$T/ours") lines), check clean"

# seed first: the seed filesystem; the sprout device is not used
expect_exit 0 "$BTRFS" check "$T/d1.img" "$T/d2.img" > "$T/out" 2> "$T/err"
assert_grep "UUID: $seed_fsid" "$T/out"
assert_grep "no error found" "$T/out"
assert_grep "d2.img is not a device of filesystem $seed_fsid" "$T/err"
# a repair of the sprout: refused, nothing written
sum=$(cat "$T/d1.img" "$T/d2.img" | md5sum)
run_mustfail "repair of a sprout" "$BTRFS" check --repair --force "$T/d2.img" "$T/d1.img" > "$T/out" 2> "$T/err"
assert_grep "is a seed device of this filesystem: writing a sprouted filesystem is not supported" "$T/err"
[ "$(cat "$T/d1.img" "$T/d2.img" | md5sum)" = "$sum" ] || _fail "a refused repair wrote"
# the sprout alone: its seed device found by scanning (by the seed's fsid,
# from the chunk tree); with --noscan it is missing
expect_exit 0 "$BTRFS" check "$T/d2.img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
expect_exit 1 "$BTRFS" inspect-internal dump-tree --noscan -t 5 "$T/d2.img" > "$T/out" 2> "$T/err"
assert_grep "^warning, device 1 is missing$" "$T/out"
echo "ok: seed first, repair refused, sprout alone (seed scanned; missing with --noscan)"
