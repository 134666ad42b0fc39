#!/bin/bash
# Inode extrefs (INODE_EXTREF: the names the kernel keys by a hash of parent
# and name once a file's INODE_REF item for a directory is full) damaged in
# the fields check tells from the directory entries: the index (0, one off),
# the parent (0, one off, all ones) and the name's length (0, one more, all
# ones: the leaf is mended to the one length that fills the item and that
# the parent's dir index names); an extref item deleted: added back.  check finds each (exit 1) and
# --repair sets the index in place, or moves the name to the directory whose
# entries name it, keyed by the hash of the new parent; our check and
# Debian's are then clean, every file reads back unchanged, and the kernel
# mounts it and unlinks every hard link (it finds each name by that hash).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs
need_corrupt_block

many_links() { # one file with 40 long names in links/ (extrefs: past its INODE_REF item) and one in other/
	local i long
	mkdir "$T/mnt/links" "$T/mnt/other" || _fail "mkdir"
	echo "one file, many names" > "$T/mnt/links/f"
	long=$(printf 'y%.0s' $(seq 1 150))
	for i in $(seq -w 1 40); do ln "$T/mnt/links/f" "$T/mnt/links/link-$i-$long" || _fail "ln"; done
	ln "$T/mnt/links/f" "$T/mnt/other/name" || _fail "ln"
}
base=$T/base.img
kernel_base many_links "$base" "$T/orig"

# kernel_unlinks WHAT: the kernel mounts $T/img, reads the file, unlinks every
# hard link in links/ (each looked up by its name), and our check stays clean.
kernel_unlinks() {
	kernel_mount "$T/img"
	cmp "$T/mnt/other/name" "$T/orig/other/name" || _fail "$1: the file reads back changed"
	rm "$T/mnt"/links/link-* || _fail "$1: the kernel could not unlink a name"
	kernel_umount
	run_check "$BTRFS" check "$T/img" > /dev/null 2>&1
}

"$CB" "$base" list | awk '$1 == 5 && $2 ~ /,13,/ { print $2 }' > "$T/extrefs"
[ "$(wc -l < "$T/extrefs")" -ge 9 ] || _fail "the kernel wrote fewer than 9 extref items"
n=0
for edit in "index 0" "index -1" "parent_objectid -1" "parent_objectid 0" "parent_objectid 18446744073709551615" \
	    "name_len 0" "name_len +1" "name_len 65535"; do
	n=$((n + 1))
	key=$(sed -n "${n}p" "$T/extrefs")
	read -r field value <<< "$edit"
	# shellcheck disable=SC2086
	damaged_repaired "$base" "$T/orig" "ref 'link-.*' in dir [0-9]* has index\|unresolved ref dir\|inode extref name overflow" \
		"inode ref 'link-.*' (dir [0-9]* index [0-9]*) \(renamed to\|moved to dir\)\|inode extref name_len [0-9]*, the one length that fills the item" \
		field 5 "$key" inode_extref.$field $value
	kernel_unlinks "$edit"
	echo "ok: extref $key $edit repaired; the kernel unlinks every name"
done

# an extref item deleted: its names are added back as extrefs (the file's
# INODE_REF item for the directory is full), keyed by the hash
key=$(sed -n "$((n + 1))p" "$T/extrefs")
damaged_repaired "$base" "$T/orig" "nlink [0-9]*, [0-9]* names found" \
	"inode extref 'link-.*' (dir [0-9]* index [0-9]*) added" delete 5 "$key"
kernel_unlinks "extref deleted"
echo "ok: extref item $key deleted: its names added back as extrefs; the kernel unlinks every name"
