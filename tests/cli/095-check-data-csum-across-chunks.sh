#!/bin/bash
# The kernel (and our mkfs --rootdir) let a csum item run on across two
# adjacent data chunks when the extents under it are contiguous.  check
# --check-data-csum must read each chunk's part through its own chunk: a
# valid filesystem with such items is clean (it was reported as "range ...
# is not inside one chunk"), and a sector changed in the second chunk's
# part is found as a csum mismatch at its bytenr.
. "$TOP/tests/lib/common.sh"
mkdir -p "$T/tree"
for i in 1 2 3 4; do head -c 16M /dev/urandom > "$T/tree/f$i"; done
truncate -s 384M "$T/img"
run_check "$BTRFS" mkfs -q -f --rootdir "$T/tree" "$T/img" > /dev/null
run_check "$BTRFS" inspect-internal dump-tree -t chunk "$T/img" > "$T/chunks"
run_check "$BTRFS" inspect-internal dump-tree -t csum "$T/img" > "$T/csums"
# the first sector past a chunk's end inside a csum item that starts in that
# chunk, and where it is on the device (single data: stripe 0)
python3 - "$T/chunks" "$T/csums" > "$T/cross" <<'PY'
import re, sys
chunks, cur = [], None
for l in open(sys.argv[1]):
    m = re.search(r'key \(FIRST_CHUNK_TREE CHUNK_ITEM (\d+)\)', l)
    if m: cur = [int(m.group(1))]
    m = re.search(r'length (\d+) owner .*type DATA', l)
    if m and cur: cur.append(int(m.group(1)))
    m = re.search(r'stripe 0 devid \d+ offset (\d+)', l)
    if m and cur and len(cur) == 2: chunks.append((cur[0], cur[1], int(m.group(1)))); cur = None
for l in open(sys.argv[2]):
    m = re.search(r'key \(EXTENT_CSUM EXTENT_CSUM (\d+)\) itemoff \d+ itemsize (\d+)', l)
    if not m: continue
    s, e = int(m.group(1)), int(m.group(1)) + int(m.group(2)) // 4 * 4096
    for a, n, _ in chunks:
        if a < s < a + n < e:
            nxt = [c for c in chunks if c[0] == a + n]
            if nxt:
                print(a + n, nxt[0][2]); sys.exit(0)
PY
read -r logical physical < "$T/cross"
[ -n "$logical" ] || _fail "mkfs made no csum item across two data chunks: the test proves nothing"
run_check "$BTRFS" check --check-data-csum "$T/img" > "$T/check" 2>&1
assert_grep "no error found" "$T/check"
assert_not_grep "not inside one chunk" "$T/check"
# one changed sector just past the boundary is a csum mismatch there
printf 'X' | dd of="$T/img" bs=1 seek=$((physical + 100)) conv=notrunc status=none
expect_exit 1 "$BTRFS" check --check-data-csum "$T/img" > "$T/bad" 2>&1
assert_grep "mirror 1 bytenr $logical csum mismatch against the csum tree" "$T/bad"
assert_not_grep "not inside one chunk" "$T/bad"
echo "csum item across data chunks $logical: clean, and a changed sector past the boundary found"
