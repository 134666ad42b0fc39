#!/bin/bash
# Extent tree records the tree-checker rejects and no field mend can set
# right (a metadata item whose level, its key offset, is 256; an extent
# item's inline back references out of order): --repair removes the item
# from its leaf and the extents pass rebuilds the extent's records from the
# trees that use the block; the blocks in use without an extent item are
# reserved before the mended leaf is copied, so the copy cannot land on one
# of them.  After: our check and Debian's clean, every file unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block
mkdir -p "$T/root/d"
for i in $(seq 1 40); do head -c $((i * 3000)) /dev/urandom > "$T/root/d/f$i"; done
rootdir_image "$T/root" "$T/img0"
run_check "$CB" "$T/img0" list > "$T/items"
# the metadata item of the fs tree's root block
fs_root=$("$BTRFS" inspect-internal dump-tree -t 1 "$T/img0" | awk '/key \(FS_TREE ROOT_ITEM/ { x = 1 } x && / bytenr / { for (i = 1; i < NF; i++) if ($i == "bytenr") { print $(i + 1); exit } }')
[ -n "$fs_root" ] || _fail "fs tree root not found"
meta=$(awk -v b="$fs_root" '$1 == 2 && index($2, b ",169,") == 1 { print $2; exit }' "$T/items")
[ -n "$meta" ] || _fail "no METADATA_ITEM for $fs_root"

repaired() { # EDIT... -- PATTERN
	cp --sparse=always "$T/img0" "$T/img"
	run_check "$CB" "$T/img" "${@:1:$#-1}" > /dev/null
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	repaired_clean "${*: -1}" "$T/img"
	files_unchanged "$T/img" "$T/root" "the repair of $*"
}
repaired field 2 "$meta" key.offset 256 \
	"key ($fs_root 169 256): extent record fails the tree-checker (.*invalid tree level.*): item removed"
