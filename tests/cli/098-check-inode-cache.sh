#!/bin/bash
# The inode cache (mount -o inode_cache, removed in Linux 5.11) left in a
# subvolume by old kernels: a header (FREE_SPACE 0 0) naming inode FREE_INO
# (-12) and that inode's items.  Check reports it once per subvolume (it
# was "unknown key"), --repair deletes it the way --clear-space-cache v1
# deletes the v1 caches (items, data extents, their checksums), after which
# our check and Debian's are clean.  Made here on a fresh filesystem with
# tests/tools/tree-edit (a header and an inode item, no data).
. "$TOP/tests/lib/common.sh"
check_prereq progs python3
need_tool TE tree-edit
mkdir -p "$T/root"
echo data > "$T/root/file"
rootdir_image "$T/root" "$T/img"
free_ino=18446744073709551604 free_space=18446744073709551605
# header: location (FREE_INO INODE_ITEM 0), generation 1, no entries or bitmaps
header=$(python3 -c 'import struct; print(struct.pack("<QBQQQQ", 18446744073709551604, 1, 0, 1, 0, 0).hex())')
# inode item: generation 1, transid 1, nlink 1, mode 0100600, NODATASUM
inode=$(python3 -c 'import struct; b = bytearray(160); struct.pack_into("<QQQQQIIIIQQQ", b, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0o100600, 0, 1, 0); print(bytes(b).hex())')
run_check "$TE" "$T/img" ins 5 "$free_ino" 1 0 "$inode" > /dev/null
run_check "$TE" "$T/img" ins 5 "$free_space" 0 0 "$header" > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "root 5: deprecated inode cache (FREE_INO inode, FREE_SPACE header) found in leaf" "$T/check"
repaired_clean "root 5: deprecated inode cache deleted" "$T/img"
"$BTRFS" inspect-internal dump-tree -t 5 "$T/img" > "$T/fs"
assert_not_grep "FREE_INO\|FREE_SPACE" "$T/fs"
files_of "$T/img"
[ "$(cat "$T/files/file")" = data ] || _fail "file does not read back"
