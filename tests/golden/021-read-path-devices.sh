#!/bin/bash
# Devices: a missing member is reported (tools: by devid and uuid on stderr;
# check and dump-tree: as btrfs-progs, on stdout) and reads go on
# from the other mirrors (raid1); RAID6 metadata with a device missing is
# rebuilt from parity; without --noscan libblkid finds the other member of
# a loop-attached raid1.
. "$TOP/tests/lib/common.sh"
check_prereq corpus
need_tool tool tree-walk
r1=$(corpus_case raid1-raid1)
(cd "$r1" && "$tool" --noscan dev1.img) > "$T/r1.out" 2>&1 || { cat "$T/r1.out" >&2; _fail "raid1 with one device"; }
assert_grep 'device devid 2 uuid [0-9a-f-]* is missing' "$T/r1.out"
assert_grep 'total: trees 14 blocks 64 .* failures 0' "$T/r1.out"
# check and dump-tree say it on stdout as btrfs-progs does, right after opening
(cd "$r1" && "$BTRFS" check dev1.img) > "$T/check.out" 2> "$T/check.err"
[ "$(sed -n 2p "$T/check.out")" = "warning, device 2 is missing" ] || { cat "$T/check.out" >&2; _fail "check: no progs-style missing device line"; }
(cd "$r1" && "$BTRFS" inspect-internal dump-tree --noscan -t chunk dev1.img) > "$T/tree.out" 2> /dev/null
[ "$(sed -n 2p "$T/tree.out")" = "warning, device 2 is missing" ] || { head -3 "$T/tree.out" >&2; _fail "dump-tree: no progs-style missing device line"; }

r56=$(corpus_case raid5-raid6)
(cd "$r56" && "$tool" --noscan dev1.img dev2.img dev4.img) > "$T/r6.out" 2>&1 ||
	{ cat "$T/r6.out" >&2; _fail "raid6 metadata with devid 3 missing"; }
assert_grep 'device devid 3 uuid [0-9a-f-]* is missing' "$T/r6.out"
assert_grep 'failures 0$' "$T/r6.out"
# two devices missing: rebuilt from P and Q (golden/032 compares the output)
(cd "$r56" && "$tool" --noscan dev1.img dev2.img) > "$T/r6b.out" 2>&1 ||
	{ cat "$T/r6b.out" >&2; _fail "raid6 metadata with devids 3 and 4 missing"; }
assert_grep 'failures 0$' "$T/r6b.out"
# three missing: beyond RAID6, must fail cleanly naming the mirrors tried
(cd "$r56" && run_mustfail "three raid6 members missing" "$tool" --noscan dev1.img) > "$T/r6c.out" 2>&1
assert_grep 'mirrors tried' "$T/r6c.out"

check_prereq root loop
cp --sparse=always "$r1/dev1.img" "$T/d1.img"
cp --sparse=always "$r1/dev2.img" "$T/d2.img"
l1=$(setup_loopdev "$T/d1.img"); track_loopdev "$l1"
l2=$(setup_loopdev "$T/d2.img"); track_loopdev "$l2"
"$tool" "$l1" > "$T/scan.out" 2>&1 || { cat "$T/scan.out" >&2; _fail "scan"; }
assert_not_grep 'is missing' "$T/scan.out"
assert_grep 'total: trees 14 blocks 64 .* failures 0' "$T/scan.out"
