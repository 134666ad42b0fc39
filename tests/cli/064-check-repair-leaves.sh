#!/bin/bash
# btrfs check --repair on leaves that keep a good checksum but fail the
# tree-checker (tests/lib/blockpatch.py rewrites bytes of every copy of a
# tree block and its checksum): an item offset, an inode generation, a root
# item generation, a DIR_ITEM key and an XATTR_ITEM key whose hash does not
# match the name; several at once, then the files read back by the kernel.  The repair mends
# the leaf, ours and Debian's check find the result clean, the fields hold
# their old values again.  A DIR_ITEM whose name is corrupt (no inode ref
# confirms it) is either fully repaired or refused with the image unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq python3
patch=$TOP/tests/lib/blockpatch.py
src=$T/src
marked_file "$src"
pattern_data 20000 "$src/big"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.kitattr", b"value1")' "$src/dir/file" ||
	_skip "no user xattrs on the scratch filesystem"
img0=$T/clean.img
clean_image "$src" "$img0" --csum crc32c

fresh() { cp --sparse=always "$img0" "$T/img"; }
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
le64() { printf '%s%s' "$(le32 $(($1 & 0xffffffff)))" "$(le32 $(($1 >> 32 & 0xffffffff)))"; }
dump() { "$BTRFS" inspect-internal dump-tree "$@" "$T/img"; }
fs_leaf() { dump -t 5 | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1; }
root_leaf() { dump -t root | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1; }
# "itemoff N" of the item with this key in the fs tree
itemoff() { dump -t 5 | sed -n "s/^.*key ($1) itemoff \([0-9]*\) .*/\1/p"; }
corrupt() { # LEAF OLD NEW
	run_check python3 "$patch" "$T/img" 16384 "$1" "$2" "$3" > /dev/null
}
repaired() { # the repair succeeds and both checkers find the image clean
	expect_exit 0 "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
	cat "$T/rep"
	assert_grep "^Repair committed" "$T/rep"
	expect_exit 0 "$BTRFS" check "$T/img" > "$T/out" 2>&1
	assert_grep "no error found" "$T/out"
	if [ -x /usr/bin/btrfs ]; then
		/usr/bin/btrfs check "$T/img" > "$T/out" 2>&1 ||
			{ cat "$T/out" >&2; _fail "Debian's check finds errors after our repair"; }
	fi
}
must_fail_check() { # the corruption is seen by a plain check
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2>&1
	assert_grep "$1" "$T/out"
}

fresh
fs=$(fs_leaf)
root=$(root_leaf)
off257=$(itemoff "257 INODE_ITEM 0")
{ [ -z "$fs" ] || [ -z "$root" ] || [ -z "$off257" ]; } && _fail "cannot find the fs tree leaf"
# the generation of mkfs --rootdir's commit: the items' generation and transid
sgen=$("$BTRFS" inspect-internal dump-super "$T/img" | awk '$1 == "generation" { print $2 }')
gen=$(dump -t 5 | sed -n 's/^[[:space:]]*generation \([0-9]*\) transid \([0-9]*\) size 6 nbytes 6$/\1 \2/p')
[ "$gen" = "$sgen $sgen" ] || _fail "inode of dir/file: generation/transid '$gen', expected '$sgen $sgen'"
hash=$(dump -t 5 | sed -n 's/^.*key (258 DIR_ITEM \([0-9]*\)) .*/\1/p')
[ -n "$hash" ] || _fail "no DIR_ITEM in directory 258"
xhash=$(dump -t 5 | sed -n 's/^.*key (259 XATTR_ITEM \([0-9]*\)) .*/\1/p')
[ -n "$xhash" ] || _fail "no XATTR_ITEM for dir/file"

# item offset: key (257 INODE_ITEM 0) followed by its offset and size
key257="$(le64 257)\\x01$(le64 0)"
bad_off="$(le32 $((off257 + 0x2d0e0000)))$(le32 160)"
# inode item of dir/file: generation, transid, size, nbytes, block group, nlink, uid
inode_tail="$(le64 6)$(le64 6)$(le64 0)$(le32 1)$(le32 4242)"
bad_gen=$((0x7ab0000000000001))
# root item of the fs tree: generation, root_dirid, bytenr
root_tail="$(le64 256)$(le64 "$fs")"
# DIR_ITEM key of dir/file, XATTR_ITEM key of its xattr
dkey="$(le64 258)\\x54"
xkey="$(le64 259)\\x18"

echo "== 1. item offset"
fresh
corrupt "$fs" "$key257$(le32 "$off257")$(le32 160)" "$key257$bad_off"
must_fail_check "unexpected item end"
repaired
assert_grep "item offset $((off257 + 0x2d0e0000)) size 160, set to offset $off257 size 160" "$T/rep"
[ "$(itemoff "257 INODE_ITEM 0")" = "$off257" ] || _fail "item offset not restored"
dump -t 5 | grep -q "size 20000 nbytes 20480" || _fail "inode 257 lost its contents"

echo "== 2. inode generation"
fresh
corrupt "$fs" "$(le64 "$sgen")$(le64 "$sgen")$inode_tail" "$(le64 $bad_gen)$(le64 "$sgen")$inode_tail"
must_fail_check "invalid inode generation"
repaired
assert_grep "inode generation $bad_gen beyond the superblock's, set to its transid $sgen" "$T/rep"
dump -t 5 | grep -q "generation $sgen transid $sgen size 6 nbytes 6" || _fail "inode generation not restored"

echo "== 3. root item generation"
fresh
corrupt "$root" "$(le64 "$sgen")$root_tail" "$(le64 $bad_gen)$root_tail"
must_fail_check "invalid root generation"
repaired
assert_grep "root generation $bad_gen beyond the superblock's, set to $sgen (root block $fs)" "$T/rep"

echo "== 4. DIR_ITEM key not the hash of its name"
fresh
corrupt "$fs" "$dkey$(le64 "$hash")" "$dkey$(le64 $((hash + 1)))"
must_fail_check "name hash mismatch"
repaired
assert_grep "name 'file' hashes to .*moved to key (258 84 $hash), inode 259's ref confirms the name" "$T/rep"
dump -t 5 | grep -q "key (258 DIR_ITEM $hash)" || _fail "DIR_ITEM not back at its key"

echo "== 4b. XATTR_ITEM key not the hash of its name"
fresh
corrupt "$fs" "$xkey$(le64 "$xhash")" "$xkey$(le64 $((xhash + 1)))"
must_fail_check "name hash mismatch"
repaired
assert_grep "name 'user.kitattr' hashes to .*moved to key (259 24 $xhash), an xattr name, printable" "$T/rep"
dump -t 5 | grep -q "key (259 XATTR_ITEM $xhash)" || _fail "XATTR_ITEM not back at its key"

echo "== 5. DIR_ITEM name corrupt: nothing confirms it"
fresh
# the DIR_ITEM of 'file' lies just before the INODE_REF of 'dir' (index 3)
corrupt "$fs" "file$(le64 3)\\x03\\x00dir" "fild$(le64 3)\\x03\\x00dir"
must_fail_check "name hash mismatch"
cp --sparse=always "$T/img" "$T/before"
"$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
rc=$?
cat "$T/rep"
assert_grep "name 'fild' hashes to .* entry dropped" "$T/rep"
case $rc in
0)	expect_exit 0 "$BTRFS" check "$T/img" > /dev/null 2>&1
	[ ! -x /usr/bin/btrfs ] || /usr/bin/btrfs check "$T/img" > /dev/null 2>&1 ||
		_fail "Debian's check finds errors after our repair" ;;
1)	assert_grep "nothing was written" "$T/rep"
	cmp -s "$T/before" "$T/img" || _fail "repair refused but changed the image" ;;
*)	_fail "repair exit $rc" ;;
esac

echo "== 6. all of 1, 2, 4 and 4b in one leaf, then read back by the kernel"
fresh
corrupt "$fs" "$key257$(le32 "$off257")$(le32 160)" "$key257$bad_off"
corrupt "$fs" "$(le64 "$sgen")$(le64 "$sgen")$inode_tail" "$(le64 $bad_gen)$(le64 "$sgen")$inode_tail"
corrupt "$fs" "$dkey$(le64 "$hash")" "$dkey$(le64 $((hash + 1)))"
corrupt "$fs" "$xkey$(le64 "$xhash")" "$xkey$(le64 $((xhash + 1)))"
repaired
for slot in "slot 6 key (257 1 0): item offset" "slot 11 key (258 84 $((hash + 1))): name 'file'" \
	    "slot 13 key (259 1 0): inode generation" "slot 15 key (259 24 $((xhash + 1))): name 'user.kitattr'"; do
	assert_grep "^Mending leaf $fs of tree 5 $slot" "$T/rep"
done
if [ "$(id -u)" -eq 0 ] && losetup -f > /dev/null 2>&1 && grep -qw btrfs /proc/filesystems; then
	dev=$(setup_loopdev "$T/img")
	track_loopdev "$dev"
	mount_tracked "$dev" "$T/mnt" ro
	diff -r "$src" "$T/mnt" || _fail "files differ after the repair"
	[ "$(stat -c %u:%g "$T/mnt/dir/file")" = 4242:4343 ] || _fail "owner of dir/file changed"
	x=$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "user.kitattr").decode())' "$T/mnt/dir/file")
	[ "$x" = value1 ] || _fail "xattr of dir/file: '$x', expected value1"
	umount "$T/mnt" && losetup -d "$dev"
	echo "ok: the kernel reads every file back"
else
	echo "SKIP: kernel read-back (no loop device or btrfs)"
fi
echo "ok: leaves mended by --repair, clean for our check and Debian's"
