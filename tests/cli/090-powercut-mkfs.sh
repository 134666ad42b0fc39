#!/bin/bash
# Power-cut replay of mkfs (issue 18): tests/tools/powercut.py runs mkfs with
# its write log on and judges every crash state it builds: no valid
# superblock copy at all, or a finished filesystem both checks pass (a
# multi-device state where some devices carry a superblock and some not is
# counted apart).  Sampled with a fixed seed here; POWERCUT=full (make
# test-powercut) tries every subset of up to 10 pending writes and every tear.
. "$TOP/tests/lib/common.sh"
check_prereq python3
. "$TOP/tests/lib/powercut.sh"
pc() {
	local name=$1; shift
	rm -f "$T"/d?
	truncate -s 256M "$T/d1" "$T/d2" "$T/d3"
	powercut_run "$name" mkfs "$@"
}
MK=$TOP/mkfs.btrfs
pc single --dev "$T/d1" -- "$MK" -q -f -m single -d single "$T/d1"
pc dup --dev "$T/d1" -- "$MK" -q -f "$T/d1"
pc raid1 --dev "$T/d1" --dev "$T/d2" -- "$MK" -q -f -m raid1 -d raid1 "$T/d1" "$T/d2"
pc raid1c3 --dev "$T/d1" --dev "$T/d2" --dev "$T/d3" -- \
	"$MK" -q -f -m raid1c3 -d raid1c3 "$T/d1" "$T/d2" "$T/d3"
pc raid5 --dev "$T/d1" --dev "$T/d2" --dev "$T/d3" -- \
	"$MK" -q -f -m raid5 -d raid5 "$T/d1" "$T/d2" "$T/d3"

# --rootdir: thousands of files, a commit before --shrink and the last one;
# every superblock before the last commit carries the temporary magic
src=$T/src
mkdir -p "$src/a" "$src/b/c"
for i in $(seq 1 1200); do echo "a$i" > "$src/a/f$i"; echo "b$i" > "$src/b/c/g$i"; done
head -c 300000 /dev/urandom > "$src/big"
pc rootdir --dev "$T/d1" -- "$MK" -q -f --rootdir "$src" --shrink "$T/d1"
# the finished filesystem holds the files and the real magic
run_check "$BTRFS" inspect-internal dump-super "$T/d1" > "$T/super"
assert_grep '^magic[[:space:]]*_BHRfS_M \[match\]' "$T/super"
