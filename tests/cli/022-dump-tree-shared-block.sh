#!/bin/bash
# dump-tree follows every pointer (its walk through kernel-shared/read's walker keeps
# the behaviour of its former own walk): a node whose two pointers lead to
# one leaf (patched on a copy of a corpus image, so the node fails the
# tree-checker and is printed anyway) shows that leaf twice, breadth-first
# and depth-first, with no key-order guard dropping the second visit.
. "$TOP/tests/lib/common.sh"
check_prereq corpus python3
dir=$(corpus_case nodesize4k-bulk)
cp --sparse=always "$dir/dev1.img" "$T/img" || _fail "copy"
dt() { "$BTRFS" inspect-internal dump-tree --noscan "$@"; }
run_check dt -t extent "$T/img" > "$T/before"
node=$(sed -n 's/^node \([0-9]*\) level 1 .*/\1/p' "$T/before")
[ -n "$node" ] || _fail "extent tree is not one node of leaves"
# the 33-byte key pointers (key, block, generation) of its slots 0 and 1
ptrs=$(python3 - "$T/before" <<'PY'
import re, sys
names = {'EXTENT_ITEM': 168, 'METADATA_ITEM': 169, 'BLOCK_GROUP_ITEM': 192}
out = []
for m in re.finditer(r'^\tkey \((\S+) (\S+) (\d+)\) block (\d+) gen (\d+)$',
                     open(sys.argv[1]).read(), re.M):
    o, t, off, blk, gen = m.groups()
    o = names.get(o, o); t = names.get(t, t)
    b = (int(o).to_bytes(8, 'little') + bytes([int(t)]) + int(off).to_bytes(8, 'little') +
         int(blk).to_bytes(8, 'little') + int(gen).to_bytes(8, 'little'))
    out.append(''.join('\\x%02x' % c for c in b))
print(' '.join(out[:2]))
PY
)
set -- $ptrs
[ $# -eq 2 ] || _fail "two key pointers expected in node $node"
first_leaf=$(sed -n 's/^\tkey .* block \([0-9]*\) gen .*/\1/p' "$T/before" | head -n 1)
run_check python3 "$TOP/tests/lib/blockpatch.py" "$T/img" 4096 "$node" "$2" "$1" > /dev/null
for order in "" --dfs; do
	dt $order -t extent "$T/img" > "$T/out" 2> "$T/err"
	[ "$(grep -c "^leaf $first_leaf items " "$T/out")" = 2 ] || _fail "leaf $first_leaf not printed twice ($order)"
	assert_not_grep 'entered twice' "$T/err"
done
