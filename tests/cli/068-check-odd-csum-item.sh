#!/bin/bash
# btrfs check finds checksums over data that has none ("odd csum item", as
# btrfs-progs' fs roots pass): a file our mkfs wrote with checksums has its
# inode made NODATASUM, or its regular extent made prealloc, through the
# engine (tests/tools/tree-edit).  Exit 1 with the file extent's key named;
# Debian's check reports the same inode.  Without the csum item (deleted
# with tests/tools/item-delete) both are clean.  A NODATASUM inode whose
# extents are all checksummed has its flag wrong (the kernel sets it on empty
# files only): plain --repair clears it; --init-csum-tree drops the checksums.
# A prealloc extent summed whole was written: --repair makes it regular.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_tool EDIT tree-edit
need_tool DEL item-delete
src=$T/src
mkdir -p "$src"
pattern_data 65536 "$src/data"
echo small > "$src/small"
img0=$T/clean.img
clean_image "$src" "$img0"

dump() { "$BTRFS" inspect-internal dump-tree -t "$1" "$T/img"; }
fresh() { cp --sparse=always "$img0" "$T/img"; }
fresh
ino=$(dump fs | sed -n 's/.*key (\([0-9]*\) EXTENT_DATA 0).*/\1/p' | head -n 1)
disk=$(dump fs | sed -n 's/.*extent data disk byte \([0-9]*\) nr 65536.*/\1/p' | head -n 1)
csum_key=$(dump csum | sed -n 's/.*key (EXTENT_CSUM EXTENT_CSUM \([0-9]*\)).*/\1/p' | head -n 1)
[ -n "$ino" ] && [ -n "$disk" ] && [ "$csum_key" = "$disk" ] ||
	_fail "layout not understood: inode $ino disk $disk csum item $csum_key"
nodatasum() { run_check "$EDIT" "$T/img" set 5 "$ino" 1 0 64 64 1; }     # inode flags
prealloc() { run_check "$EDIT" "$T/img" set 5 "$ino" 108 0 20 8 2; }     # file extent type

found() { # MESSAGE [PATTERN...]: our check reports MESSAGE about the inode and each PATTERN,
	# Debian's an odd csum item; both exit 1
	local msg=$1 pat
	shift
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2>&1
	assert_grep "ERROR: root 5 inode $ino: $msg" "$T/out"
	for pat; do assert_grep "$pat" "$T/out"; done
	expect_exit 1 /usr/bin/btrfs check "$T/img" > "$T/progs" 2>&1
	assert_grep "root 5 inode $ino errors 800, odd csum item" "$T/progs"
}
odd() { # NAME MESSAGE: both checks report the odd csum item, ours as such
	found "$2" "(odd csum item)" "ERROR: errors found in fs roots"
	echo "ok: $1 found"
}
clean() { # NAME: no checksums left over the extent: both checks content
	run_check "$BTRFS" check "$T/img" > "$T/out" 2>&1
	assert_grep "no error found" "$T/out"
	run_check /usr/bin/btrfs check "$T/img" > "$T/progs" 2>&1
	echo "ok: $1 clean"
}

# 1. a NODATASUM inode whose regular extent has checksums: the kernel sets
#    NODATASUM on empty files only, so with every extent checksummed the
#    flag is what is wrong (Debian: odd csum item)
nodatasum
found "NODATASUM (flags 0x1), yet every one of its 1 regular extents has checksums: the flag is wrong"
echo "ok: NODATASUM inode with checksums found"

# 2. plain --repair clears the flag; --init-csum-tree instead rebuilds the
#    csum tree without the checksums the flag disowns
cp --sparse=always "$T/img" "$T/damaged"
run_check "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
assert_grep "root 5 inode $ino: flags set to 0x0" "$T/rep"
clean "NODATASUM inode after --repair"
cp --sparse=always "$T/damaged" "$T/img"
run_check "$BTRFS" check --init-csum-tree --force "$T/img" > "$T/rep" 2>&1
clean "NODATASUM inode after --init-csum-tree"
dump csum > "$T/csum"
assert_not_grep "EXTENT_CSUM $disk" "$T/csum"

# 3. a prealloc extent that no regular extent refers to, with checksums over
#    every sector: it was written (a kernel never sums unwritten prealloc
#    space), so its type is what is wrong (Debian: odd csum item); --repair
#    makes it regular
fresh
prealloc
found "prealloc file extent at 0, disk \[$disk $((disk + 65536))): every sector has a checksum and no regular extent refers to it: it was written, a regular extent"
run_check "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
assert_grep "root 5 inode $ino: file extent at 0 type 2 set to 1" "$T/rep"
clean "summed prealloc extent after --repair"

# 3b. with checksums over half of it only, nothing tells: odd csum item
fresh
prealloc
run_check "$DEL" "$T/img" 7 -10 128 "$disk"
run_check "$EDIT" "$T/img" ins 7 -10 128 "$disk" "$(printf '%064d' 0)"
odd "prealloc extent with checksums over half of it" \
	"prealloc file extent ($ino EXTENT_DATA 0), disk \[$disk $((disk + 65536))): no regular file extent refers to its extent, yet the csum tree has checksums for 32768 bytes of it"

# 4. the same two without the csum item: nothing odd
fresh
nodatasum
run_check "$DEL" "$T/img" 7 -10 128 "$disk"
clean "NODATASUM inode without checksums"
fresh
prealloc
run_check "$DEL" "$T/img" 7 -10 128 "$disk"
clean "prealloc extent without checksums"
echo "all odd csum items found"
