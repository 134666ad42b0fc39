#!/bin/bash
# A dev extent whose length is not its chunk's share of the device (0, or
# another aligned length the tree-checker accepts): check reports it, and
# --repair sets it from the chunk; the device item's bytes_used, which counted
# the right length, stays.  After it our check and Debian's are clean and
# every file reads back unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block
small_large_images
run_check "$CB" "$T/s.img" list > "$T/items"
# the last dev extent (a data chunk's)
key=$(awk '$1 == 4 && $2 ~ /,204,/ { k = $2 } END { print k }' "$T/items")
[ -n "$key" ] || _fail "no dev extent"
for len in 0 +4096 -4096; do
	damaged_repaired "$T/s.img" "$T/small" "dev extent devid 1 physical [0-9]*: length [0-9]*, chunk [0-9]* needs [0-9]*" \
		"Dev extent devid 1 physical [0-9]*: length [0-9]* set to [0-9]*, its chunk" \
		field 4 "$key" dev_extent.length "$len"
	echo "ok: dev extent length $len repaired"
done
