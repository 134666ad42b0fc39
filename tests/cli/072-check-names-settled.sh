#!/bin/bash
# check's fs roots pass drops a name's three records (inode ref, DIR_ITEM,
# DIR_INDEX) as soon as they agree, while reading, and reads a name again from
# the tree for a message.  A directory (257) with a clean file (258) and a file
# with a long name (259): one field of the long name's items changed at a time,
# check reports it with the whole name and says nothing of the clean file.
. "$TOP/tests/lib/common.sh"
need_corrupt_block
long=this-is-a-name-longer-than-23-bytes
mkdir -p "$T/src/d"
echo x > "$T/src/d/a"
echo y > "$T/src/d/$long"
img0=$T/clean.img
clean_image "$T/src" "$img0"
"$BTRFS" inspect-internal dump-tree -t 5 "$img0" > "$T/dump"
grep -q "key (258 INODE_REF 257)" "$T/dump" || _fail "file a is not inode 258 in directory 257"
grep -A2 "key (257 DIR_INDEX 3)" "$T/dump" | grep -q "location key (259 INODE_ITEM 0) type FILE" ||
	_fail "the long name is not DIR_INDEX 3 of directory 257 for inode 259"
hash=$(grep -B3 "name: $long" "$T/dump" | sed -n 's/.*key (257 DIR_ITEM \([0-9]*\)).*/\1/p')
[ -n "$hash" ] || _fail "no DIR_ITEM for the long name"

# corrupt ARGS... -- PATTERN: the edit succeeds; check exits 1, says PATTERN, nothing of inode 258
corrupt() {
	local pat
	pat=${*: -1}; set -- "${@:1:$#-2}"
	cp --sparse=always "$img0" "$T/img"
	run_check "$CB" "$T/img" "$@" > "$T/edit" 2>&1
	assert_grep '^wrote block' "$T/edit"
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	assert_grep "$pat" "$T/check"
	assert_not_grep "inode 258\b" "$T/check"
}
corrupt field 5 257,DIR_INDEX,3 dir_item.type 2 -- \
	"^ERROR: root 5: dir 257 dir index '$long' for inode 259 has file type 2, the inode's mode 0100644 means 1$"
corrupt field 5 "257,DIR_ITEM,$hash" dir_item.type 7 -- \
	"^ERROR: root 5: dir 257 dir item '$long' for inode 259 has file type 7, the inode's mode 0100644 means 1$"
# the inode ref's name (after its 10-byte header) 'this' becomes 'xhis': no entry has that name
corrupt field 5 259,INODE_REF,257 u8@10 0x78 -- \
	"^ERROR: root 5: unresolved ref dir 257 index 3 namelen 35 name x${long:1}: inode 259 has the name but the directory has no dir index for it$"
assert_grep "^ERROR: root 5: dir 257 dir item '$long' (index 0) points to inode 259, which has no inode ref for it$" "$T/check"
assert_grep "^ERROR: root 5: dir 257 dir index '$long' (index 3) points to inode 259, which has no inode ref for it$" "$T/check"
# the file's mode a directory's: both entries' file types are wrong for it
corrupt field 5 259,INODE_ITEM,0 mode 040755 -- \
	"^ERROR: root 5: dir 257 dir index '$long' for inode 259 has file type 1, the inode's mode 040755 means 2$"
echo "each name's damage reported with the whole name, the clean file never"
