#!/bin/bash
# One name for two files in a directory: the DIR_ITEM of "foo" holds two
# entries named "foo" (inodes 257 and 258), each with its DIR_INDEX and inode
# ref.  A lookup finds only one of them.  Check reports the name given twice
# (exit 1; it passed as clean); --repair renames the second entry's
# DIR_ITEM, DIR_INDEX and inode ref to "foo.258" (btrfs-progs 6.19 reports
# "dup filename" and cannot repair), after which our check and Debian's are
# clean and both files read back under their names.  An xattr name given
# twice in one XATTR_ITEM is reported too.  Made here on a fresh filesystem
# through tests/tools/tree-edit (items rewritten through the engine).
. "$TOP/tests/lib/common.sh"
check_prereq progs python3
need_tool TE tree-edit
mkdir -p "$T/root"
echo first > "$T/root/foo"
echo second > "$T/root/bar"
rootdir_image "$T/root" "$T/img"
"$BTRFS" inspect-internal dump-tree -t 5 "$T/img" > "$T/fs"
# KEY of the entry NAME of type TYPE, "OBJECTID TYPE OFFSET" with TYPE a number
key_of() {
	awk -v t="$1" -v n="$2" '$3 == "key" && $5 == t { k = $4 " " $6 } $1 == "name:" && $2 == n && k != "" { print k; exit }' "$T/fs" |
		tr -d '()' | awk -v t="$1" '{ print $1, (t == "DIR_ITEM" ? 84 : 96), $2 }'
}
ino_of() { awk -v n="$1" '/location key/ { i = $3 } $1 == "name:" && $2 == n { print i; exit }' "$T/fs" | tr -d '('; }
foo_item=$(key_of DIR_ITEM foo); bar_item=$(key_of DIR_ITEM bar); bar_index=$(key_of DIR_INDEX bar)
foo=$(ino_of foo); bar=$(ino_of bar)
[ -n "$foo_item" ] && [ -n "$bar_item" ] && [ -n "$bar_index" ] && [ -n "$foo" ] && [ -n "$bar" ] || _fail "entries not found"
idx=${bar_index##* }
# entry INO NAME: a dir item (location (INO INODE_ITEM 0), transid 1, regular file), in hex
entry() { python3 -c 'import struct,sys; n=sys.argv[2].encode(); print((struct.pack("<QBQQHHB", int(sys.argv[1]), 1, 0, 1, 0, len(n), 1) + n).hex())' "$1" "$2"; }
ref() { python3 -c 'import struct,sys; n=sys.argv[2].encode(); print((struct.pack("<QH", int(sys.argv[1]), len(n)) + n).hex())' "$1" "$2"; }
# shellcheck disable=SC2086
{
	run_check "$TE" "$T/img" del 5 $bar_item
	run_check "$TE" "$T/img" del 5 $foo_item
	run_check "$TE" "$T/img" ins 5 $foo_item "$(entry "$foo" foo)$(entry "$bar" foo)"
	run_check "$TE" "$T/img" del 5 $bar_index
	run_check "$TE" "$T/img" ins 5 $bar_index "$(entry "$bar" foo)"
	run_check "$TE" "$T/img" del 5 "$bar" 12 256
	run_check "$TE" "$T/img" ins 5 "$bar" 12 256 "$(ref "$idx" foo)"
} > /dev/null
cp --sparse=always "$T/img" "$T/orig"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "root 5 inode 256: name 'foo' is present twice in the directory (DIR_ITEM " "$T/check"
# (Debian's 6.2 misses it; btrfs-progs 6.19 reports "dup filename")
repaired_clean "root 5 dir 256: inode $bar, the second entry named 'foo', renamed to 'foo.$bar'" "$T/img"
files_of "$T/img"
[ "$(cat "$T/files/foo")" = first ] || _fail "foo does not read back"
[ "$(cat "$T/files/foo.$bar")" = second ] || _fail "foo.$bar does not read back"

# an xattr given twice under one name in one XATTR_ITEM
cp --sparse=always "$T/orig" "$T/x"
xattr() { python3 -c 'import struct,sys; n=sys.argv[1].encode(); v=sys.argv[2].encode(); print((struct.pack("<QBQQHHB", 0, 0, 0, 1, len(v), len(n), 8) + n + v).hex())' "$1" "$2"; }
# the name hash: crc32c seeded with ~1 (the kernel's btrfs_name_hash)
hash=$(python3 -c '
import sys
c = 0xfffffffe
for b in sys.argv[1].encode():
    c ^= b
    for _ in range(8):
        c = (c >> 1) ^ (0x82f63b78 if c & 1 else 0)
print(c)' user.a)
run_check "$TE" "$T/x" ins 5 "$foo" 24 "$hash" "$(xattr user.a 1)$(xattr user.a 2)" > /dev/null
expect_exit 1 "$BTRFS" check "$T/x" > "$T/check-x" 2>&1
assert_grep "root 5 inode $foo: xattr 'user.a' is present twice (XATTR_ITEM $hash)" "$T/check-x"
