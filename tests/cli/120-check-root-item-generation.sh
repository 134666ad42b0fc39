#!/bin/bash
# A root item's generation that was never written (0) or is beyond the
# superblock's (the tree-checker allows one more, so the leaf reads): --repair
# sets it from its root block's header, for any tree, the extent tree too (whose
# root block the extent tree cannot name).  After it our check and Debian's are
# clean and every file reads back unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block

small_large_images
for edit in "2,132,0 root_item.generation +1" "2,132,0 root_item.generation 0" \
	"7,132,0 root_item.generation 0" "5,132,0 root_item.generation +1"; do
	cp --sparse=always "$T/l.img" "$T/img"
	# shellcheck disable=SC2086
	run_check "$CB" "$T/img" field 1 $edit > /dev/null
	found_repaired "$T/img" "root item (${edit%%,*} ROOT_ITEM 0) generation" \
		"root generation [0-9]* \(beyond the superblock's\|never written\), set to" "$T/large" "$edit"
	echo "ok: $edit mended"
done
