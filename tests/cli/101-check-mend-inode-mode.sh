#!/bin/bash
# An inode mode with bits beyond the file type and permissions (random
# damage, so the type bits are suspect too): --repair takes the type its
# directory entries give, or, for an inode no entry names, the type its own
# items give (file extents: a regular file), and keeps the permissions.
# After: our check and Debian's clean, the file reads back.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block
mkdir -p "$T/root"
head -c 3000 /dev/urandom > "$T/root/file"
chmod 0640 "$T/root/file"
rootdir_image "$T/root" "$T/img"
ino=$("$BTRFS" inspect-internal dump-tree -t 5 "$T/img" | awk '/location key/ { i = $3 } $1 == "name:" && $2 == "file" { print i; exit }' | tr -d '(')
[ -n "$ino" ] || _fail "inode not found"
# 037020020640: unknown high bits and a character device type over 0640 (the entries say regular file)
run_check "$CB" "$T/img" field 5 "$ino,INODE_ITEM,0" mode 4164952480 > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
repaired_clean "key ($ino 1 0): inode mode 037020020640, set to 0100640 (the file type its directory entries give)" "$T/img"
files_unchanged "$T/img" "$T/root/file" "file"
