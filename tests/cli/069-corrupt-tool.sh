#!/bin/bash
# tests/tools/corrupt-block, the corruption tool of the check tests: each kind
# of edit (item field by name, raw bytes, item entry, header by key and by
# block, delete, duplicate, swap, shift, one mirror only, stale checksum)
# changes what dump-tree shows and is found by our check (exit 1, the message
# naming what is wrong); a bad request exits 1 and writes nothing.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block
src=$T/src
mkdir -p "$src/d"
echo hello > "$src/a"
echo world > "$src/d/b"
img0=$T/clean.img
clean_image "$src" "$img0"
ino=$("$BTRFS" inspect-internal dump-tree -t 5 "$img0" |
	awk '/location key/ { i = $3; sub(/\(/, "", i) } $1 == "name:" && $2 == "a" { print i; exit }')
[ -n "$ino" ] || _fail "no inode number for file a"

# corrupt ARGS... -- PATTERN: the edit succeeds, then check exits 1 saying PATTERN
corrupt() {
	local pat
	pat=${*: -1}; set -- "${@:1:$#-2}"
	cp --sparse=always "$img0" "$T/img"
	run_check "$CB" "$@" > "$T/edit" 2>&1
	assert_grep '^wrote block' "$T/edit"
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	assert_grep "$pat" "$T/check"
}
corrupt "$T/img" field 5 "$ino,INODE_ITEM,0" nlink +1 -- "inode $ino: nlink 2, 1 names found"
grep -q "nlink: 1 -> 2" "$T/edit" || _fail "the tool did not report the old and new value"
"$BTRFS" inspect-internal dump-tree -t 5 "$T/img" | grep -A2 "item [0-9]* key ($ino INODE_ITEM 0)" | grep -q " links 2 " ||
	_fail "dump-tree does not show links 2"
corrupt "$T/img" field 5 "$ino,EXTENT_DATA,0" file_extent_item.ram_bytes 99 -- "invalid ram_bytes for uncompressed inline extent"
corrupt "$T/img" field 5 "$ino,INODE_REF,256" u8@10 0x7a -- "unresolved ref dir 256"
corrupt "$T/img" field 3 1,DEV_ITEM,1 bytes_used +4096 -- "device item devid 1: bytes_used"
# +1, not a fixed value: the uuid is random, its first byte may already be any value (1 run in 256)
corrupt "$T/img" field 3 1,DEV_ITEM,1 u8@66 +1 -- "device item devid 1 has uuid [0-9a-f-]*, but device .* with that devid has uuid"
corrupt "$T/img" shift 5 "$ino,INODE_ITEM,0" +4 -- "unexpected item end"
corrupt "$T/img" field 5 "$ino,INODE_ITEM,0" item.size -1 -- "unexpected item end\|item end"
corrupt "$T/img" delete 5 "$ino,INODE_REF,256" -- "has no inode ref for it"
corrupt "$T/img" dup 5 "$ino,INODE_REF,256" -- "bad key order"
corrupt "$T/img" swap 5 "$ino,INODE_REF,256" "$ino,INODE_ITEM,0" -- "slot=.*unexpected item end\|bad key order"
corrupt "$T/img" header 5 "$ino,INODE_ITEM,0" generation +100 -- "parent transid verify failed"
leaf=$(sed -n 's/^wrote block \([0-9]*\) every copy of 2$/\1/p' "$T/edit")
[ -n "$leaf" ] || _fail "no block number in the tool's output"
corrupt "$T/img" block "$leaf" nritems 0 -- "root 5 must never be empty"
# the top directory's own ref names itself '..' with index 0
corrupt "$T/img" field 5 256,INODE_REF,256 u8@10 0x78 -- "top directory's own inode ref has index 0 name 'x.'"
corrupt "$T/img" field 5 256,INODE_REF,256 index 5 -- "top directory's own inode ref has index 5 name '..'"
# a system chunk's chunk tree item must agree with the superblock's copy
sys=$("$BTRFS" inspect-internal dump-tree -t chunk "$img0" |
	awk '/CHUNK_ITEM/ { k = $6; sub(/\)/, "", k) } /type SYSTEM/ { print k; exit }')
[ -n "$sys" ] || _fail "no system chunk in the chunk tree"
corrupt "$T/img" field 3 "256,CHUNK_ITEM,$sys" stripe.offset@48 +65536 -- "chunk \[$sys [0-9]*\] stripe 0: the chunk tree item has devid 1 physical"
corrupt "$T/img" field 3 "256,CHUNK_ITEM,$sys" stripe.devid@48 2 -- "chunk \[$sys [0-9]*\] stripe 0: the chunk tree item has devid 2"
corrupt --no-csum "$T/img" field 5 "$ino,INODE_ITEM,0" mode 0 -- "checksum mismatch"
# superblock fields (every copy): the open refuses the filesystem, naming the field
super() {
	local pat=$1; shift
	cp --sparse=always "$img0" "$T/img"
	run_check "$CB" "$T/img" super "$@" > "$T/edit" 2>&1
	assert_grep '^wrote superblock copy 2 ' "$T/edit"
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	assert_grep "$pat" "$T/check"
}
super "invalid stripesize 8192" stripesize 8192
super "unsupported incompat features 0x100000" incompat_flags +0x100000
super "unrecognized or unsupported super flag 0x1000000" flags +0x1000000
super "invalid bytes_used 4096" bytes_used 4096
super "super num devices mismatch, have 2 expect 1" num_devices 2
super "the free space tree exists but the superblock's compat_ro flags 0xa lack FREE_SPACE_TREE" compat_ro_flags -1
super "the block group tree exists but the superblock's compat_ro flags 0x3 lack BLOCK_GROUP_TREE" compat_ro_flags -8
# one copy of a DUP block bad, the other good: check names the bad copy, and
# --repair writes the good one over it (Debian's check too is clean then)
for bad in 1 2; do
	good=$((3 - bad))
	cp --sparse=always "$img0" "$T/img"
	run_check "$CB" --mirror $bad --no-csum "$T/img" field 5 "$ino,INODE_ITEM,0" mode 0 > "$T/edit" 2>&1
	assert_grep "^wrote block [0-9]* copy $bad\$" "$T/edit"
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	assert_grep "fs tree: tree block [0-9]* mirror $bad (devid 1 physical [0-9]*) is bad: checksum mismatch.*; mirror $good is good" "$T/check"
	repaired_clean "^Rewrote copy $bad of tree block [0-9]* from copy $good\$" "$T/img"
done

# refusals: exit 1 with a message, the image unchanged
cp --sparse=always "$img0" "$T/img"
refuse() {
	local pat=$1; shift
	expect_exit 1 "$CB" "$@" > "$T/edit" 2>&1
	assert_grep "$pat" "$T/edit"
	cmp -s "$img0" "$T/img" || _fail "refused edit changed the image: $*"
}
refuse "no field 'nosuch' in struct btrfs_inode_item" "$T/img" field 5 "$ino,INODE_ITEM,0" nosuch 1
refuse "beyond the item's" "$T/img" field 5 "$ino,INODE_REF,256" u64@100 1
refuse "not found in tree 5" "$T/img" field 5 99999,INODE_ITEM,0 nlink 1
refuse "bad tree id or key" "$T/img" field 5 1,NO_SUCH_TYPE,0 nlink 1
refuse "has 2 copies, no copy 3" --mirror 3 "$T/img" field 5 "$ino,INODE_ITEM,0" nlink 1
refuse "usage:" "$T/img" frobnicate 5
echo "all edits found by check, refusals wrote nothing"
