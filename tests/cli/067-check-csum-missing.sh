#!/bin/bash
# btrfs check finds data the csum tree lacks checksums for ("some csum
# missing", as btrfs-progs' fs roots pass): the kernel writes a compressed
# file, a plain one, a NODATASUM one, an unwritten and a partly written
# prealloc file and an inline one; csum items are then deleted (or cut short)
# through the engine (tests/tools/item-delete, tree-edit).  Our check and
# Debian's report the same inodes and exit 1; the NODATASUM and unwritten
# prealloc files are never reported; plain --repair writes nothing;
# --init-csum-tree makes both checks clean and the data verifies.
. "$TOP/tests/lib/common.sh"
check_prereq root loop btrfs-kernel progs
need_tool DEL item-delete
need_tool EDIT tree-edit
PROGS=/usr/bin/btrfs
img0=$T/clean.img
truncate -s 512M "$img0"
run_check "$TOP/mkfs.btrfs" -q -f "$img0" > /dev/null
dev=$(setup_loopdev "$img0")
track_loopdev "$dev"
mnt=$T/mnt
mount_tracked "$dev" "$mnt" compress-force=zstd
yes COMPRESSME | head -c 300000 > "$mnt/comp"
mount -o remount,compress=no "$mnt" || _fail "remount failed"
touch "$mnt/nosum" || _fail "touch failed"
chattr +C "$mnt/nosum" || _fail "chattr +C failed"
head -c 200000 /dev/urandom > "$mnt/nosum"
fallocate -l 1M "$mnt/prealloc" || _skip "no fallocate"
fallocate -l 1M "$mnt/prealloc2"
dd if=/dev/urandom of="$mnt/prealloc2" bs=4096 count=3 seek=10 conv=notrunc status=none
head -c 100000 /dev/urandom > "$mnt/plain"
echo tiny > "$mnt/inline"
declare -A ino
for f in comp nosum prealloc prealloc2 plain inline; do ino[$f]=$(stat -c %i "$mnt/$f"); done
umount "$mnt" || _fail "umount failed"
losetup -d "$dev"

run_check "$BTRFS" check "$img0" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
run_check "$PROGS" check "$img0" > "$T/out" 2> "$T/err"

fresh() { cp --sparse=always "$img0" "$T/img"; }
disk_of() { # INO: disk byte of the inode's first regular extent (the written one)
	"$BTRFS" inspect-internal dump-tree -t 5 "$T/img" | awk -v k="($1 EXTENT_DATA" '
		index($0, k) { in_ino = 1; next }
		/ key \(/ { in_ino = 0 }
		in_ino && /extent data disk byte/ { print $5; exit }'
}
item_of() { # BYTENR: key offset and end of the csum item covering it
	"$BTRFS" inspect-internal dump-tree -t csum "$T/img" | awk -v b="$1" '
		/range start/ && $3 <= b && b < $5 { print $3, $5; exit }'
}
hit() { # START END: inodes with a regular extent whose checksummed bytes meet [START, END)
	"$BTRFS" inspect-internal dump-tree -t 5 "$T/img" | awk -v s="$1" -v e="$2" '
		/ key \(/ { ino = $4; sub(/\(/, "", ino) }
		/extent data disk byte/ { d = $5; n = $7 }
		/extent data offset/ { o = $4; l = $6 }
		/extent compression/ && d {
			a = $3 ? d : d + o; b = $3 ? d + n : d + o + l
			if (a < e && s < b && !seen[ino]++) print ino }'
}
both_find() { # INODE...: ours and Debian's check report exactly these inodes
	local i
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
	expect_exit 1 "$PROGS" check "$T/img" > "$T/pout" 2> "$T/perr"
	[ "$(grep -c 'some csum missing' "$T/err")" -eq $# ] || { cat "$T/err" >&2; _fail "ours: not $# inodes"; }
	[ "$(grep -c 'some csum missing' "$T/perr")" -eq $# ] || { cat "$T/perr" >&2; _fail "progs: not $# inodes"; }
	for i in "$@"; do
		assert_grep "^ERROR: root 5 inode $i: file extent at .*(some csum missing)" "$T/err"
		assert_grep "^root 5 inode $i errors 1000, some csum missing" "$T/perr"
	done
	for i in nosum prealloc inline; do
		assert_not_grep "inode ${ino[$i]}[: ]" "$T/err"
		assert_not_grep "inode ${ino[$i]}[: ]" "$T/perr"
	done
	assert_grep "errors found in fs roots" "$T/err"
}
fresh
comp_disk=$(disk_of "${ino[comp]}"); plain_disk=$(disk_of "${ino[plain]}")
pre_disk=$(disk_of "${ino[prealloc2]}")
{ [ -n "$comp_disk" ] && [ -n "$plain_disk" ] && [ -n "$pre_disk" ]; } || _fail "file extents not found"
pre_off=$("$BTRFS" inspect-internal dump-tree -t 5 "$T/img" |
	awk -v k="(${ino[prealloc2]} EXTENT_DATA" 'index($0, k) { f = 1 } f && /extent data offset/ { print $4; exit }')
pre_start=$((pre_disk + pre_off))
read -r comp_item comp_end <<< "$(item_of "$comp_disk")"
read -r plain_item plain_end <<< "$(item_of "$plain_disk")"
read -r pre_item pre_end <<< "$(item_of "$pre_start")"
{ [ -n "$comp_end" ] && [ -n "$plain_end" ] && [ -n "$pre_end" ]; } || _fail "csum items not found"

# 1. the item holding the plain file's checksums (and maybe the compressed one's)
fresh
run_check "$DEL" "$T/img" 7 -10 128 "$plain_item"
hit "$plain_item" "$plain_end" | grep -qx "${ino[plain]}" || _fail "hit() misses the plain file"
# shellcheck disable=SC2046
both_find $(hit "$plain_item" "$plain_end")
echo "ok: plain file's csum item deleted"
cp "$T/img" "$T/missing.img"

# 2. plain --repair leaves it: the error is not ours to mend, nothing written
expect_exit 1 "$BTRFS" check --repair --force "$T/img" > "$T/out" 2> "$T/err"
assert_grep "is not implemented; nothing was written" "$T/err"
cmp -s "$T/img" "$T/missing.img" || _fail "--repair wrote to the filesystem"
echo "ok: --repair writes nothing"

# 3. --init-csum-tree rebuilds the checksums: both checks clean, data verifies
run_check "$BTRFS" check --init-csum-tree --force "$T/img" > "$T/out" 2> "$T/err"
run_check "$BTRFS" check --check-data-csum "$T/img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
run_check "$PROGS" check "$T/img" > "$T/pout" 2> "$T/perr"
assert_grep "no error found" "$T/pout"
echo "ok: --init-csum-tree makes both checks clean"

# 4. the compressed file's checksums (over its on-disk bytes)
fresh
run_check "$DEL" "$T/img" 7 -10 128 "$comp_item"
# shellcheck disable=SC2046
both_find $(hit "$comp_item" "$comp_end")
echo "ok: compressed file's csum item deleted"

# 5. the written part of a prealloc extent
if [ "$pre_item" != "$plain_item" ] && [ "$pre_item" != "$comp_item" ]; then
	fresh
	run_check "$DEL" "$T/img" 7 -10 128 "$pre_item"
	both_find "${ino[prealloc2]}"
	assert_grep "inode ${ino[prealloc2]}: file extent at $((10 * 4096)), disk \[$pre_start " "$T/err"
	echo "ok: written prealloc range's csum item deleted"
fi

# 6. the plain file's item cut short: its checksums end 2 sectors into the file
fresh
csum_size=$("$BTRFS" inspect-internal dump-super "$T/img" | sed -n 's/^csum_size[[:space:]]*//p')
[ -n "$csum_size" ] || _fail "no csum_size in the superblock"
cut=$((plain_disk + 8192))
nsect=$(((cut - plain_item) / 4096))
[ "$nsect" -le 1024 ] || _skip "plain file's item starts too far before it"
run_check "$DEL" "$T/img" 7 -10 128 "$plain_item"
run_check "$EDIT" "$T/img" ins 7 -10 128 "$plain_item" "$(head -c $((nsect * csum_size)) /dev/zero | od -An -v -tx1 | tr -d ' \n')"
# shellcheck disable=SC2046
both_find $(hit "$cut" "$plain_end")
assert_grep "inode ${ino[plain]}: file extent at 0, disk \[$plain_disk $((plain_disk + 102400))): the sector at $cut has no checksum" "$T/err"
echo "ok: plain file's csums cut short"

# 7. NODATASUM set on the compressed file (the kernel never compresses such
#    data): its extents are bad, and their checksums are still required (the
#    test is the same whichever way the kernel spread them over csum items)
fresh
run_check "$EDIT" "$T/img" set 5 "${ino[comp]}" 1 0 64 64 1   # inode item flags
run_check "$DEL" "$T/img" 7 -10 128 "$comp_item"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
expect_exit 1 "$PROGS" check "$T/img" > "$T/pout" 2> "$T/perr"
assert_grep "^ERROR: root 5 inode ${ino[comp]}: compressed file extent at 0 in a NODATASUM inode (bad file extent)" "$T/err"
assert_grep "^ERROR: root 5 inode ${ino[comp]}: file extent at .*(some csum missing)" "$T/err"
# the compressed file's extents may have checksums in more than the deleted
# item: those left are checksums of a NODATASUM inode, "odd csum item" too
if grep -q "^root 5 inode ${ino[comp]} errors 1840, bad file extent, odd csum item, some csum missing" "$T/perr"; then
	assert_grep "^ERROR: root 5 inode ${ino[comp]}: .*(odd csum item)" "$T/err"
	echo "ok: (its checksums spanned more items: the rest found as odd csum items by both)"
else
	assert_grep "^root 5 inode ${ino[comp]} errors 1040, bad file extent, some csum missing" "$T/perr"
	assert_not_grep "odd csum item" "$T/err"
fi
echo "ok: compressed extents of a NODATASUM inode"
