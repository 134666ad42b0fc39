#!/bin/bash
# A deleted subvolume waiting for the kernel's cleanup is a root item with
# refs 0, no ROOT_REF/ROOT_BACKREF and no directory entry, found by the
# kernel through its orphan item in the root tree.  Without that item the
# subvolume's tree and extents stay allocated for ever: check reports it
# (exit 1, naming the root and the missing key) and --repair adds the
# orphan item, after which our check and Debian's are clean and the other
# files read back unchanged.  Made here from a fresh filesystem: mkfs
# --rootdir with a subvolume, then the deletion's edits without the orphan.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block
mkdir -p "$T/root/sub" "$T/root/keep"
echo in-subvolume > "$T/root/sub/a"
head -c 100000 /dev/urandom > "$T/root/keep/b"
rootdir_image "$T/root" "$T/img" --subvol rw:sub
# the subvolume's DIR_ITEM key in the top directory (256): its name hash
"$BTRFS" inspect-internal dump-tree -t 5 "$T/img" > "$T/fs"
item=$(awk '$3 == "key" && $5 == "DIR_ITEM" { k = $4 "," $5 "," $6 } $1 == "name:" && $2 == "sub" && k != "" { print k; exit }' "$T/fs" | tr -d '()')
index=$(awk '$3 == "key" && $5 == "DIR_INDEX" { k = $4 "," $5 "," $6 } $1 == "name:" && $2 == "sub" && k != "" { print k; exit }' "$T/fs" | tr -d '()')
[ -n "$item" ] && [ -n "$index" ] || _fail "entry of the subvolume not found"
for edit in "field 1 256,ROOT_ITEM,0 refs 0" "delete 1 5,ROOT_REF,256" "delete 1 256,ROOT_BACKREF,5" \
	     "delete 5 $item" "delete 5 $index" "field 5 256,INODE_ITEM,0 size -6"; do
	# shellcheck disable=SC2086
	run_check "$CB" "$T/img" $edit > /dev/null
done
cp --sparse=always "$T/img" "$T/orig"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "root 256: deleted subvolume (refs 0, no ROOT_BACKREF) has no orphan item (18446744073709551611 ORPHAN_ITEM 256)" "$T/check"
# --dry-run says what it would do and writes nothing
run_check "$BTRFS" check --repair --force --dry-run "$T/img" > "$T/dry" 2>&1
assert_grep "root 256: orphan item added" "$T/dry"
cmp "$T/img" "$T/orig" || _fail "--dry-run wrote to the image"
repaired_clean "root 256: orphan item added" "$T/img"
run_check "$BTRFS" inspect-internal dump-tree -t 1 "$T/img" > "$T/roots"
assert_grep "key (ORPHAN ORPHAN_ITEM 256) .* itemsize 0" "$T/roots"
files_of "$T/img"
cmp "$T/root/keep/b" "$T/files/keep/b" || _fail "keep/b reads back changed"
