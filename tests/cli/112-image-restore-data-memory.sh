#!/bin/bash
# btrfs image -r of a -d (v1) dump holding a 96 MiB data extent: its items
# (up to 256 MiB each) are read and inflated in pieces, so the restore's
# peak RSS stays far below the item's size (it held the whole item, stored
# and inflated: 526 MB for a 600 MiB file), and the data comes back whole
# (check --check-data-csum clean), onto a new file and onto one that holds
# data (every item checked before the first write), compressed or not.
. "$TOP/tests/lib/common.sh"
mkdir -p "$T/src"
head -c 96M /dev/urandom > "$T/src/big"
truncate -s 512M "$T/fs.img"
run_check "$BTRFS" mkfs -q -f --rootdir "$T/src" "$T/fs.img" > /dev/null
rm -rf "$T/src"
for c in -c0 -c1; do
	run_check "$BTRFS" image -d $c "$T/fs.img" "$T/data.dump"
	big=$(python3 - "$T/data.dump" <<'PY'
import struct, sys, zlib
b = open(sys.argv[1], 'rb').read(); pos = big = 0
while pos < len(b):
    nr = struct.unpack_from('<I', b, pos + 16)[0]
    sizes = [struct.unpack_from('<QI', b, pos + 21 + 12 * i)[1] for i in range(nr)]
    big = max([big] + sizes)
    pos = (pos + 1024 + sum(sizes) + 1023) // 1024 * 1024
print(big)
PY
)
	[ "$big" -ge $((64 << 20)) ] || _fail "$c: the largest stored item is $big bytes: the test proves nothing"
	for target in new held; do
		rm -f "$T/r.img"
		[ $target = held ] && head -c 1M /dev/urandom > "$T/r.img"
		/usr/bin/time -o "$T/time" -f %M "$BTRFS" image -r "$T/data.dump" "$T/r.img" ||
			_fail "$c $target: restore failed"
		rss=$(tail -n 1 "$T/time")
		[ "$rss" -lt 40000 ] || _fail "$c $target: restore peak RSS $rss KiB for a $big-byte item"
		expect_exit 0 "$BTRFS" check --check-data-csum "$T/r.img" > "$T/out" 2> "$T/err"
		assert_grep "no error found" "$T/out"
		echo "ok: $c onto a $target file: largest item $big bytes, peak RSS $rss KiB, data verified"
	done
done
