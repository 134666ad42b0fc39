#!/bin/bash
# A leaf deep in tree 5 whose header says more items than it holds, under
# every command that walks trees (fuzz-fields.py --more, seed 81 on
# default-rich, found image -w reading keys past the leaf: the walk's loop
# guard took the last key at nritems - 1 of a leaf a relaxed read returned,
# an ASan SEGV).  Each value: no crash, hang or sanitizer report, and a
# message with any non-zero exit; check and check --repair exit 1.
. "$TOP/tests/lib/common.sh"
need_corrupt_block
small_large_images
run_check "$CB" "$T/l.img" list > "$T/items"
deep=$(awk '$1 == 5 && $6 == 1 { k = $2 } END { print k }' "$T/items")
for n in 2294117892 4294967295 +1073741824 +700; do
	cp --sparse=always "$T/l.img" "$T/img"
	run_check "$CB" "$T/img" header 5 "$deep" nritems "$n" > /dev/null
	hostile_run 60 "image -w (nritems $n)" "$BTRFS" image -w -ss -c1 "$T/img" "$T/out.dump"
	hostile_run 60 "image (nritems $n)" "$BTRFS" image -c1 "$T/img" "$T/out.dump"
	hostile_run 60 "dump-tree (nritems $n)" "$BTRFS" inspect-internal dump-tree "$T/img"
	hostile_run 60 "check (nritems $n)" "$BTRFS" check "$T/img"
	[ $? -eq 1 ] || _fail "check (nritems $n): exit 0 on a damaged leaf"
	cp --sparse=always "$T/img" "$T/r.img"
	hostile_run 60 "check --repair (nritems $n)" "$BTRFS" check --repair --force "$T/r.img"
	echo "ok: nritems $n"
done
