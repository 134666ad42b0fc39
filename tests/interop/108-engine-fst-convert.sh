#!/bin/bash
# The engine converts a block group's free space between extents and
# bitmaps at the kernel's thresholds, both ways.  On a 1 GiB filesystem the
# mkfs data chunk is filled with 1 MiB files, then 400 files of 4 KiB go
# into a new 112 MiB data chunk (thresholds: bitmaps above 157 free
# extents, extents again below 57).  Removing every other one leaves 200
# free extents: bitmaps; removing the rest merges them: extents again.
# Debian's btrfs check and ours are clean at each step, and the kernel
# mounts the result, reads the data and writes more.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/engine-helpers.sh"
check_prereq root loop btrfs-kernel progs python3
need_tool FILL engine-fill

both_checks() {
	progs_check "${LOOPS[0]}"
	run_check "$BTRFS" check "${LOOPS[0]}" > /dev/null
}

# FREE_SPACE_INFO of the block group at $1: "count flags"
fst_info() {
	"$BTRFS" inspect-internal dump-tree -t 10 "${LOOPS[0]}" > "$T/fst"
	fst_formats_ok "$T/fst" > /dev/null
	grep -A1 "key ($1 FREE_SPACE_INFO" "$T/fst" | awk '/extent count/ {print $6, $8}'
}

loop_images 1 1G
run_check "$TOP/mkfs.btrfs" -f -q "${LOOPS[0]}"
"$BTRFS" inspect-internal dump-tree -t chunk "${LOOPS[0]}" > "$T/chunks0"
mkfs_data=$(grep -B1 'type DATA|' "$T/chunks0" | awk '/length/ {print $2}' | head -1)
[ -n "$mkfs_data" ] || _fail "no data chunk made by mkfs"
run_check "$FILL" -n $((mkfs_data >> 20)) -c 1 -D 1024 -p big "${LOOPS[0]}"
run_check "$FILL" -n 400 -c 1 -D 4 -p s "${LOOPS[0]}"
"$BTRFS" inspect-internal dump-tree -t chunk "${LOOPS[0]}" > "$T/chunks1"
new=$(diff "$T/chunks0" "$T/chunks1" | sed -n 's/^> .*CHUNK_ITEM \([0-9]*\)).*/\1/p' | tail -1)
[ -n "$new" ] || _fail "no new chunk for the small files"
grep -A1 "CHUNK_ITEM $new)" "$T/chunks1" | grep -q "length 117440512 .*type DATA|single" ||
	_fail "new chunk $new is not a 112 MiB single data chunk"
read -r count flags <<< "$(fst_info "$new")"
[ "$flags" = 0 ] && [ "$count" -le 2 ] || _fail "filled group: count $count flags $flags"
both_checks

run_check "$FILL" -r 1:2:200 -p s "${LOOPS[0]}"
read -r count flags <<< "$(fst_info "$new")"
[ "$flags" = 1 ] && [ "$count" -ge 200 ] || _fail "every other file removed: count $count flags $flags, want bitmaps"
grep -q "FREE_SPACE_BITMAP" "$T/fst" || _fail "no bitmap items"
both_checks

run_check "$FILL" -r 0:2:200 -p s "${LOOPS[0]}"
read -r count flags <<< "$(fst_info "$new")"
[ "$flags" = 0 ] && [ "$count" -eq 1 ] || _fail "all removed: count $count flags $flags, want one extent"
grep -q "FREE_SPACE_BITMAP" "$T/fst" && _fail "bitmap items left"
both_checks

mount_tracked "${LOOPS[0]}" "$T/mnt"
python3 - "$T/mnt" <<'PY' || _fail "data read back differs"
import os, sys
d = sys.argv[1]
names = sorted(os.listdir(d))
assert names and all(n.startswith("big") for n in names), names
for n in names:
    p = os.path.join(d, n)
    if open(p, "rb").read() != bytes([ord("a") + os.stat(p).st_ino % 26]) * (1 << 20):
        sys.exit(1)
PY
dd if=/dev/urandom of="$T/mnt/kernel" bs=1M count=30 status=none || _fail "kernel write failed"
umount "$T/mnt" || _fail "umount failed"
both_checks
echo ok
