#!/bin/bash
# dump-tree reads with the tree-checker on, as btrfs-progs 6.19: a block that
# passes checksum and header but fails the tree-checker on every mirror is
# reported ("corrupt leaf: root=... block=... slot=..., <reason>") and still
# printed in full, and the exit code stays 0.  The corrupted block: the root
# tree leaf of empty-defaults, dir item name "default" changed to "defaulu"
# (name hash mismatch), checksum recomputed on both DUP copies.
. "$TOP/tests/lib/common.sh"
check_prereq python3 corpus

dir=$(corpus_case empty-defaults)
cp --sparse=always "$dir/dev1.img" "$T/dev1.img"
ref=$SHARED/corpus/empty-defaults/dump-tree.txt
root=$(sed -n 's/^leaf \([0-9]*\) items .* owner ROOT_TREE$/\1/p' "$ref" | head -n 1)
[ -n "$root" ] || _fail "no root tree leaf in the reference"
n=$(python3 "$TOP/tests/lib/blockpatch.py" "$T/dev1.img" 16384 "$root" default defaulu | wc -l)
[ "$n" -eq 2 ] || _fail "patched $n copies of block $root, expected 2 (DUP)"

"$BTRFS" inspect-internal dump-tree --noscan "$T/dev1.img" > "$T/out" 2> "$T/err"
rc=$?; [ $rc -eq 0 ] || _fail "dump-tree exit $rc, expected 0"
assert_grep "corrupt leaf: root=1 block=$root slot=6, key (6 84 2378154706) name hash mismatch" "$T/err"
# Everything else printed as the reference, the changed name included.
sed 's/^\t\tname: default$/\t\tname: defaulu/' "$ref" > "$T/expected"
assert_grep "^		name: defaulu$" "$T/expected"
check_golden "$T/expected" "$T/out" "dump-tree of the corrupted image"
# Without the corruption, no checker message at all.
"$BTRFS" inspect-internal dump-tree --noscan "$dir/dev1.img" > /dev/null 2> "$T/err0" ||
	_fail "dump-tree on the clean image failed"
assert_not_grep "corrupt" "$T/err0"
echo "ok: block $root reported and printed"
