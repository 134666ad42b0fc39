#!/bin/bash
# Tree block headers with a field damaged and the checksum recomputed (the
# catalogue's header/* classes): bytenr, owner, flags, level, nritems and a
# generation newer than the parent's pointer, in a leaf deep in a tree, in a
# tree's root node and in a tree's root leaf.  check reports each; --repair
# sets the field from the pointer that reaches the block, the tree and the
# extent tree, after which our check and Debian's are clean and every file
# reads back unchanged.  A generation older than the pointer may be a lost
# write (an earlier block's bytes): mended only when the block's items record
# a newer generation than its header (refused otherwise: cli/121).  A root
# tree leaf's first key that no root tree holds, one field off its pointer's.
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block

small_large_images
run_check "$CB" "$T/l.img" list > "$T/items"
# a key in the middle of the middle leaf of tree 5 (height 1: a root node over leaves)
read -r deep < <(awk '$1 == 5 && $6 == 1 { if (!($5 in n)) o[++nl] = $5; k[$5, ++n[$5]] = $2 }
	END { l = o[int((nl + 1) / 2)]; print k[l, int(n[l] / 2)] }' "$T/items")
[ -n "$deep" ] || _fail "no fs tree leaf below a node"

# mended SRC IMG WHAT PATTERN EDIT...: EDIT found by our check (PATTERN) and by
# Debian's, then repaired with the header field WHAT set; clean with every file.
# $level: corrupt-block's --level option (a node on the path to the key)
level=()
mended() {
	local src=$1 img=$2 what=$3 pat=$4
	shift 4
	cp --sparse=always "$img" "$T/img"
	run_check "$CB" "${level[@]}" "$T/img" "$@" > /dev/null
	expect_exit 1 /usr/bin/btrfs check "$T/img" > /dev/null 2>&1
	found_repaired "$T/img" "$pat" "Tree block [0-9]* of tree [0-9]*: header $what [0-9a-fx]*, set to" \
		"$src" "$*"
	echo "ok: $* mended"
}
mended "$T/large" "$T/l.img" bytenr "bytenr mismatch" header 5 "$deep" bytenr +4096
mended "$T/large" "$T/l.img" owner "invalid owner, root 0" header 5 "$deep" owner 0
mended "$T/large" "$T/l.img" owner "has owner 4" header 5 "$deep" owner 4
mended "$T/large" "$T/l.img" flags "back reference revision 255" header 5 "$deep" flags 18446744073709551615
mended "$T/large" "$T/l.img" nritems "expect at most\|nritems\|empty" header 5 "$deep" nritems 0
mended "$T/large" "$T/l.img" nritems "nritems\|item end\|item offset" header 5 "$deep" nritems 4294967295
mended "$T/large" "$T/l.img" level "level mismatch" header 5 "$deep" level 1
mended "$T/large" "$T/l.img" generation "parent transid verify failed" header 5 "$deep" generation +5
# the root node: its subtree is only reached once it is mended
level=(--level 1)
mended "$T/large" "$T/l.img" bytenr "bytenr mismatch" header 5 "$deep" bytenr -16384
mended "$T/large" "$T/l.img" owner "has owner" header 5 "$deep" owner 18446744073709551615
level=()
# a root leaf: its generation from the root item, which the extent tree confirms
mended "$T/small" "$T/s.img" generation "parent transid verify failed" header 5 256,1,0 generation +1
mended "$T/small" "$T/s.img" bytenr "bytenr mismatch" header 5 256,1,0 bytenr 0
# the root tree's root leaf, reached from the superblock: a generation never written
mended "$T/small" "$T/s.img" generation "parent transid verify failed" header 1 5,132,0 generation 0
mended "$T/small" "$T/s.img" generation "parent transid verify failed" header 1 5,132,0 generation 18446744073709551615

# older than its pointer, but its inode items are newer than that (a block
# written before could not hold them): mended.  Older with nothing newer in
# it may be a lost write: refused (cli/121, a chunk tree root).
mended "$T/large" "$T/l.img" generation "parent transid verify failed" header 5 "$deep" generation -1

# two adjacent items of a deep leaf with their offsets and sizes broken: the
# leaf mend cannot place them, and the items after them are real; the item count is
# not cut to the items before them (that would drop those): refused
read -r leaf slot < <(awk -v k="$deep" '$1 == 5 && $2 == k { print $5 }' "$T/items" | head -1 |
	while read -r l; do awk -v l="$l" '$1 == 5 && $5 == l { n++ } END { print l, int(n / 2) }' "$T/items"; done)
cp --sparse=always "$T/l.img" "$T/img"
python3 - "$T/img" "$leaf" "$slot" "$TOP/tests/lib" <<'PY' || _fail "could not patch leaf $leaf"
import sys
sys.path.insert(0, sys.argv[4])
from blockpatch import crc32c
img, leaf, slot = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = 0
with open(img, 'r+b') as f:
    f.seek(0, 2)
    size = f.tell()
    for off in range(0, size - 16384 + 1, 16384):
        f.seek(off + 0x30)
        if f.read(8) != leaf.to_bytes(8, 'little'):
            continue
        f.seek(off)
        blk = bytearray(f.read(16384))
        for s in (slot, slot + 1):   # item offset and size at 0x65 + 25 * slot + 17 and + 21
            p = 0x65 + 25 * s + 17
            blk[p:p + 8] = (7).to_bytes(4, 'little') + (0xffff).to_bytes(4, 'little')
        blk[0:4] = crc32c(bytes(blk[32:])).to_bytes(4, 'little')
        f.seek(off)
        f.write(blk)
        n += 1
sys.exit(0 if n else 1)
PY
refused_unchanged "$T/img" "corrupt leaf: root=5 block=$leaf"
assert_not_grep "header nritems" "$T/repair"
echo "ok: leaf $leaf with items $slot and $((slot + 1)) broken: not cut, refused, nothing written"

# a root tree leaf below the root whose first key reads as a key no root tree
# holds (a root item of the root tree itself, a global tree's at offset 1),
# one field off its pointer's: the key is damaged, set to the pointer's
corpus_files mixed mixed-bg "$T/morig"
for edit in "disk_key.objectid -1" "disk_key.offset +1"; do
	# shellcheck disable=SC2086
	damaged_repaired "$mixed" "$T/morig" "first key mismatch" \
		"Tree block [0-9]* of tree 1: first key ([0-9]* 132 [0-9]*), set to its pointer's (2 132 0)" \
		field 1 2,132,0 $edit
	echo "ok: a root tree leaf's first key $edit: set to its pointer's"
done

# the first item of an extent tree leaf deleted (nodesize4k-bulk: a root node
# over 51 leaves): the leaf verifies but for its first key, now above its
# pointer's and below the next pointer's; the pointer's key is stale, not the
# leaf: the parent's key set to the leaf's first (the first leaf too: its
# parent is the tree's root node), the extent item rebuilt
corpus_files bulk nodesize4k-bulk "$T/borig"
"$CB" "$bulk" list | awk '$1 == 2 { if ($5 != leaf) { n++; if (n == 1 || n == 2) print $2 } leaf = $5 }' > "$T/firsts"
[ "$(wc -l < "$T/firsts")" -eq 2 ] || _fail "the extent tree of nodesize4k-bulk has fewer than 2 leaves"
while read -r first; do
	damaged_repaired "$bulk" "$T/borig" "first key mismatch" \
		"Tree block [0-9]* of tree 2: key of slot [0-9]* (${first//,/ }) is not its child [0-9]*'s first" \
		delete 2 "$first"
	echo "ok: the first item ($first) of an extent tree leaf deleted: its parent's key set to the leaf's first"
done < "$T/firsts"
