#!/bin/bash
# RAID6 (data and metadata) on 4 devices, made by our mkfs and filled by the
# kernel so the metadata spreads over many stripe rows; dump-tree with any two
# of the four devices must print exactly what it prints with all four
# (rebuild from P, from Q, or from P and Q), with only the missing-device
# warnings on stderr; with one device more missing it must fail cleanly.
. "$TOP/tests/lib/common.sh"
check_prereq root loop btrfs-kernel
grep -qw raid56 <(ls /sys/fs/btrfs/features 2>/dev/null) || _skip "kernel without raid56"

devs=()
for i in 1 2 3 4; do
	truncate -s 512M "$T/d$i.img"
	devs+=("$T/d$i.img")
done
run_check "$BTRFS" mkfs -f -q -d raid6 -m raid6 "${devs[@]}" > /dev/null
loops=()
for i in 1 2 3 4; do
	l=$(setup_loopdev "$T/d$i.img"); track_loopdev "$l"; loops+=("$l")
done
mnt=$T/mnt
mount_tracked "${loops[0]}" "$mnt" "noatime,device=${loops[1]},device=${loops[2]},device=${loops[3]}"
python3 -c "
import os
for d in range(20):
    os.mkdir('$mnt/d%d' % d)
    for i in range(150):
        open('$mnt/d%d/f%d' % (d, i), 'w').write('x' * (i * 37 % 3000))"
umount "$mnt" || _fail "umount failed"
for l in "${loops[@]}"; do losetup -d "$l"; done

(cd "$T" && "$BTRFS" inspect-internal dump-tree --noscan d1.img d2.img d3.img d4.img) \
	> "$T/full" 2> "$T/full.err" || { cat "$T/full.err" >&2; _fail "dump-tree on all devices failed"; }
[ ! -s "$T/full.err" ] || { cat "$T/full.err" >&2; _fail "messages with all devices present"; }
grep -q "RAID6" "$T/full" || _fail "no RAID6 chunk"
nodes=$(grep -c '^\(leaf [0-9]* items\|node [0-9]* level\)' "$T/full")
for pair in "1 2" "1 3" "1 4" "2 3" "2 4" "3 4"; do
	set -- $pair
	(cd "$T" && "$BTRFS" inspect-internal dump-tree --noscan "d$1.img" "d$2.img") > "$T/out" 2> "$T/err" ||
		{ cat "$T/err" >&2; _fail "dump-tree with devices $1+$2 failed"; }
	# the two absent devices said as btrfs-progs says them, first; then the same trees
	[ "$(grep -c '^warning, device [0-9]* is missing$' "$T/out")" -eq 2 ] || _fail "devices $1+$2: missing devices not said"
	grep -v '^warning, device [0-9]* is missing$' "$T/out" > "$T/trees"
	cmp -s "$T/full" "$T/trees" || { diff "$T/full" "$T/trees" | head >&2; _fail "devices $1+$2: output differs"; }
	[ ! -s "$T/err" ] || { cat "$T/err" >&2; _fail "devices $1+$2: messages on stderr"; }
	echo "ok devices $1+$2 only: $nodes blocks as with all four"
done
(cd "$T" && run_mustfail "three of four RAID6 devices missing" \
	"$BTRFS" inspect-internal dump-tree --noscan d1.img) > /dev/null 2> "$T/err3"
assert_grep "mirrors tried" "$T/err3"
echo ok
