#!/bin/bash
# image -w on a filesystem whose root tree leaf says nritems 4294967295
# (fuzz-fields.py --more, seed 808 on legacy-features, found it: the walk,
# which does not ask the tree-checker, read item keys past the leaf, an ASan
# heap-buffer-overflow).  Now exit 1 naming the block, no sanitizer report.
. "$TOP/tests/lib/common.sh"
need_tool tool corrupt-block
"$TOP/mkfs.btrfs" -q -f -b 128M "$T/fs.img" > /dev/null || _fail "mkfs failed"
"$tool" "$T/fs.img" header 1 2,132,0 nritems 4294967295 > /dev/null || _fail "corrupt-block failed"
hostile_run -x 1 60 "image -w" "$BTRFS" image -w -ss -c1 "$T/fs.img" "$T/out.dump"
rc=$?
[ $rc -eq 1 ] || _fail "image -w: exit $rc, expected 1"
assert_grep "root tree block [0-9]*: nritems 4294967295, more items than the leaf holds" "$T/err"
