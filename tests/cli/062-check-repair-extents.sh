#!/bin/bash
# btrfs check --repair of extent records, block group and device counters:
# a filesystem our mkfs made from a tree is corrupted in one chosen place
# through the write engine (tests/tools/tree-edit: delete, insert or
# rewrite one item, no accounting), then --repair --force must exit 0 with
# the expected mending, and our check and Debian's check find it clean.  A
# corruption we cannot mend is refused with the image left byte for byte.
. "$TOP/tests/lib/common.sh"
check_prereq python3
need_tool EDIT tree-edit
src=$T/src
mkdir -p "$src/dir"
pattern_data 65536 "$src/data"
echo hello > "$src/dir/file"
head -c 20000 /dev/urandom > "$src/dir/rand"
img0=$T/clean.img
clean_image "$src" "$img0"

# values for tree-edit's ins: pairs VALUE BYTES, little-endian, as hex
le() {
	local out="" v n i
	while [ $# -gt 1 ]; do
		v=$1 n=$2; shift 2
		for ((i = 0; i < n; i++)); do
			out+=$(printf '%02x' $(((v >> (8 * i)) & 255)))
		done
	done
	echo "$out"
}
dump() { "$BTRFS" inspect-internal dump-tree -t "$1" "$img0"; }
# the data extents of /data and /dir/rand, the fs tree's leaf, the metadata block group
read -r data_start data_len <<< "$(dump extent | sed -n 's/.*key (\([0-9]*\) EXTENT_ITEM \(65536\)).*/\1 \2/p' | head -n 1)"
read -r rand_start rand_len <<< "$(dump extent | sed -n 's/.*key (\([0-9]*\) EXTENT_ITEM \(20480\)).*/\1 \2/p' | head -n 1)"
fs_leaf=$(dump fs | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1)
read -r meta_start meta_len <<< "$(dump block-group | grep -B1 'flags METADATA' |
	sed -n 's/.*key (\([0-9]*\) BLOCK_GROUP_ITEM \([0-9]*\)).*/\1 \2/p')"
[ -n "$data_start" ] && [ -n "$rand_start" ] && [ -n "$fs_leaf" ] && [ -n "$meta_start" ] ||
	_fail "layout not understood: data $data_start rand $rand_start fs leaf $fs_leaf metadata $meta_start"

repairs() { # NAME MESSAGE...: --repair mends it, then both checkers are content
	local name=$1; shift
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
	run_check "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
	for m in "$@"; do
		assert_grep "$m" "$T/rep"
	done
	assert_grep "Repair committed" "$T/rep"
	run_check "$BTRFS" check "$T/img" > "$T/out" 2>&1
	assert_grep "no error found" "$T/out"
	if [ -x /usr/bin/btrfs ]; then
		/usr/bin/btrfs check "$T/img" > "$T/out" 2>&1 ||
			{ cat "$T/out" >&2; _fail "$name: Debian's check finds errors after our repair"; }
	fi
	echo "ok: $name repaired"
}
fresh() { cp --sparse=always "$img0" "$T/img"; }

# 1. a tree block (the fs tree's leaf) without its extent item: block group
#    used and super bytes_used still count it
fresh
run_check "$EDIT" "$T/img" del 2 "$fs_leaf" 169 0
repairs "tree block without extent item" \
	"no extent item for tree block extent $fs_leaf" "Repaired extent references for $fs_leaf" \
	"Block group $meta_start: used" "Reset super bytes used"

# 2. a data extent without its extent item (its checksums stay)
fresh
run_check "$EDIT" "$T/img" del 2 "$rand_start" 168 "$rand_len"
repairs "data extent without extent item" \
	"no data extent at $rand_start" "Repaired extent references for $rand_start"

# 3. a stale data back reference: its file offset rewritten (038's kind:
#    a back reference with no file extent behind it, one missing)
fresh
run_check "$EDIT" "$T/img" set 2 "$data_start" 168 "$data_len" 41 64 4096
repairs "stale data back reference" \
	"offset 4096 (count 1) in the extent tree, no such reference found" \
	"Repaired extent references for $data_start"

# 4. wrong counts: extent refs 2 and the inline data ref's count 2, one file extent
fresh
run_check "$EDIT" "$T/img" set 2 "$data_start" 168 "$data_len" 0 64 2
run_check "$EDIT" "$T/img" set 2 "$data_start" 168 "$data_len" 49 32 2
repairs "data back reference count" "ref mismatch on \[$data_start $data_len\] extent item 2, found 1" \
	"Repaired extent references for $data_start"

# 5. an extent item for a tree block nobody points to (near the end of the
#    metadata block group, away from what the engine allocates)
fresh
orphan=$((meta_start + meta_len - 16 * 16384))
run_check "$EDIT" "$T/img" ins 2 "$orphan" 169 0 "$(le 1 8 1 8 2 8 176 1 5 8)"
repairs "unreferenced tree block" "Deleted the extent records of $orphan"

# 5b. a keyed shared data back reference for an extent that does not exist
fresh
run_check "$EDIT" "$T/img" ins 2 $((data_start + 1048576)) 184 "$fs_leaf" 01000000
repairs "back reference without extent" "back reference for $((data_start + 1048576)) (shared data ref parent $fs_leaf) has no extent item" \
	"Deleted the extent records of $((data_start + 1048576))"

# 6. a dev extent without its chunk (068's kind), device bytes_used not
#    counting it
fresh
run_check "$EDIT" "$T/img" ins 4 1 204 209715200 "$(le 3 8 256 8 209715200 8 8388608 8 0 8 0 8)"
repairs "orphan dev extent" "Removed orphan dev extent, devid 1 physical 209715200 length 8388608" \
	"Device 1: bytes_used"

# 6b. a chunk stripe's dev extent deleted: put back as it was
fresh
read -r dphys dchunk <<< "$(dump dev | grep -A2 'key (1 DEV_EXTENT' | awk '
	/DEV_EXTENT/ { p = $6; sub(/\)/, "", p) } /chunk_offset/ { print p, $4; exit }')"
[ -n "$dchunk" ] || _fail "no dev extent found"
run_check "$EDIT" "$T/img" del 4 1 204 "$dphys"
repairs "missing dev extent" "has no dev extent" \
	"Inserted the dev extent of chunk $dchunk, devid 1 physical $dphys length"
dev_extents() { # the dev extents' keys and contents (not their slots)
	"$BTRFS" inspect-internal dump-tree -t dev "$1" > "$T/devtree" || _fail "dump-tree -t dev $1 failed"
	grep -A3 DEV_EXTENT "$T/devtree" | sed 's/^\titem [0-9]* \(key .*\) itemoff .*/\1/'
}
dev_extents "$img0" > "$T/want"
dev_extents "$T/img" > "$T/got"
# the one deleted and put back is among them: the comparison is not of two empty lists
assert_grep "^key (1 DEV_EXTENT $dphys)$" "$T/want"
assert_grep "chunk_offset $dchunk " "$T/want"
cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" >&2; _fail "dev extents differ from the original"; }

# 7. a data extent item with generation 0
fresh
run_check "$EDIT" "$T/img" set 2 "$rand_start" 168 "$rand_len" 8 64 0
repairs "extent item generation 0" "invalid generation for extent $rand_start, have 0" \
	"Repaired extent references for $rand_start"

# 7b. the extent tree leaf's own item says level 1 (its key patched with
#     blockpatch): the item is rebuilt while that very leaf is copied on write
fresh
ext_leaf=$(dump extent | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1)
esc() { le "$@" | sed 's/../\\x&/g'; }
run_check python3 "$TOP/tests/lib/blockpatch.py" "$T/img" 16384 "$ext_leaf" \
	"$(esc "$ext_leaf" 8 169 1 0 8)" "$(esc "$ext_leaf" 8 169 1 1 8)" > /dev/null
repairs "extent tree leaf's item level" "tree block level 0, extent item says level 1" \
	"Repaired extent references for $ext_leaf"

# 8. an unreferenced data extent: /dir/rand's file extent made a hole
#    (disk_bytenr, disk_num_bytes and the inode's nbytes 0); its extent
#    records and the checksums of its range go, those of /data stay
fresh
rand_ino=$(dump fs | grep -B2 "disk byte $rand_start " | sed -n 's/.*key (\([0-9]*\) EXTENT_DATA 0).*/\1/p')
[ -n "$rand_ino" ] || _fail "no file extent item for extent $rand_start"
run_check "$EDIT" "$T/img" set 5 "$rand_ino" 108 0 21 64 0
run_check "$EDIT" "$T/img" set 5 "$rand_ino" 108 0 29 64 0
run_check "$EDIT" "$T/img" set 5 "$rand_ino" 1 0 24 64 0
repairs "unreferenced data extent" "ref mismatch on \[$rand_start $rand_len\] extent item 1, found 0" \
	"Deleted the extent records of $rand_start"
run_check "$BTRFS" check --check-data-csum "$T/img" > "$T/out" 2>&1
"$BTRFS" inspect-internal dump-tree -t csum "$T/img" > "$T/csum"
assert_grep "range start $data_start end $rand_start " "$T/csum"

# 9. several at once: an unreferenced tree block, an orphan dev extent, a
#    stale data back reference, a data extent and a tree block without items
fresh
run_check "$EDIT" "$T/img" ins 2 "$orphan" 169 0 "$(le 1 8 1 8 2 8 176 1 5 8)"
run_check "$EDIT" "$T/img" ins 4 1 204 209715200 "$(le 3 8 256 8 209715200 8 8388608 8 0 8 0 8)"
run_check "$EDIT" "$T/img" set 2 "$data_start" 168 "$data_len" 41 64 4096
run_check "$EDIT" "$T/img" del 2 "$rand_start" 168 "$rand_len"
run_check "$EDIT" "$T/img" del 2 "$fs_leaf" 169 0
repairs "five corruptions at once" "Deleted the extent records of $orphan" \
	"Repaired extent references for $data_start" "Repaired extent references for $rand_start" \
	"Repaired extent references for $fs_leaf" "Removed orphan dev extent" "Reset super bytes used"

# 10. two devices (raid1): a dev extent without chunk on devid 2
rm -f "$T/d1" "$T/d2"; truncate -s 256M "$T/d1" "$T/d2"
run_check "$TOP/mkfs.btrfs" -q -f -d raid1 -m raid1 "$T/d1" "$T/d2"
used2=$("$BTRFS" inspect-internal dump-tree -t chunk "$T/d1" "$T/d2" | sed -n 's/.*devid 2 total_bytes [0-9]* bytes_used \([0-9]*\).*/\1/p')
run_check "$EDIT" "$T/d1,$T/d2" ins 4 2 204 200015872 "$(le 3 8 256 8 200015872 8 8388608 8 0 8 0 8)"
expect_exit 1 "$BTRFS" check "$T/d1" "$T/d2" > /dev/null 2>&1
run_check "$BTRFS" check --repair --force "$T/d1" "$T/d2" > "$T/rep" 2>&1
assert_grep "Removed orphan dev extent, devid 2 physical 200015872" "$T/rep"
run_check "$BTRFS" check "$T/d1" "$T/d2" > "$T/out" 2>&1
"$BTRFS" inspect-internal dump-tree -t chunk "$T/d1" "$T/d2" > "$T/chunk"
assert_grep "devid 2 total_bytes [0-9]* bytes_used $used2\$" "$T/chunk"
"$BTRFS" inspect-internal dump-super "$T/d2" > "$T/sb"
assert_grep "^dev_item.bytes_used[[:space:]]*$used2\$" "$T/sb"
echo "ok: orphan dev extent on the second device repaired"

# 12. each superblock's copy of its device item (dev_item): after --repair
#     it has the sizes of the chunk tree's item, as the kernel writes it;
#     where only the copy differs, check warns (as btrfs-progs 6.17 does)
#     and --repair rewrites it
SBPATCH="python3 $TOP/tests/lib/superpatch.py"
DEVITEM_TOTAL=0xd1 DEVITEM_USED=0xd9       # super dev_item (at 0xc9) fields
tree_item() { "$BTRFS" inspect-internal dump-tree -t chunk "$1" |
	sed -n 's/.*devid 1 total_bytes \([0-9]*\) bytes_used \([0-9]*\).*/\1 \2/p'; }
super_item() { "$BTRFS" inspect-internal dump-super "$1" |
	awk '/^dev_item.total_bytes/ { t = $2 } /^dev_item.bytes_used/ { u = $2 } END { print t, u }'; }
same_items() { # NAME: the superblock's copy is the chunk tree's item, as in the clean image
	local want got
	want=$(tree_item "$img0")
	got=$(tree_item "$T/img")
	[ "$got" = "$want" ] || _fail "$1: chunk tree's device item $got, want $want"
	got=$(super_item "$T/img")
	[ "$got" = "$want" ] || _fail "$1: superblock's device item $got, the chunk tree's $want"
	echo "ok: $1: superblock dev_item is the chunk tree's ($got)"
}
read -r dev_total dev_used <<< "$(tree_item "$img0")"
[ -n "$dev_used" ] && [ "$(super_item "$img0")" = "$dev_total $dev_used" ] ||
	_fail "mkfs: superblock's device item $(super_item "$img0"), chunk tree's $dev_total $dev_used"

# 12a. bytes_used wrong in the chunk tree and, otherwise, in the superblock
fresh
run_check "$EDIT" "$T/img" set 3 1 216 1 16 64 $((dev_used + 8388608))
$SBPATCH "$T/img" $DEVITEM_USED $((dev_used + 4194304)) > /dev/null || _fail "superblock not patched"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2>&1
assert_grep "WARNING: device 1's bytes_used was $((dev_used + 8388608)) in tree but $((dev_used + 4194304)) in superblock" "$T/out"
repairs "device bytes_used in both copies" \
	"Device 1: bytes_used $((dev_used + 8388608)) reset to $dev_used, the sum of its dev extents"
same_items "device bytes_used in both copies"

# 12b. only the superblock's copy wrong: a warning, exit 0; --repair commits
fresh
$SBPATCH "$T/img" $DEVITEM_USED $((dev_used - 1048576)) > /dev/null || _fail "superblock not patched"
run_check "$BTRFS" check "$T/img" > "$T/out" 2>&1
assert_grep "WARNING: device 1's bytes_used was $dev_used in tree but $((dev_used - 1048576)) in superblock" "$T/out"
assert_grep "no error found" "$T/out"
run_check "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
assert_grep "Rewriting the superblocks' device items from the chunk tree" "$T/rep"
assert_grep "Repair committed" "$T/rep"
run_check "$BTRFS" check "$T/img" > "$T/out" 2>&1
assert_not_grep "WARNING: device 1's" "$T/out"
same_items "superblock's device bytes_used"

# 12c. an unaligned device size beyond the super's total (the chunk tree)
#      and another one in the superblock's copy: both rounded down
fresh
run_check "$EDIT" "$T/img" set 3 1 216 1 8 64 $((dev_total + 100))
$SBPATCH "$T/img" $DEVITEM_TOTAL $((dev_total + 4096)) > /dev/null || _fail "superblock not patched"
repairs "device total_bytes" "Fixed device size for devid 1, old size: $((dev_total + 100)) new size: $dev_total"
same_items "device total_bytes"

# 11. an extent item overlapping another: not mended, refused, image untouched
fresh
run_check "$EDIT" "$T/img" ins 2 $((data_start + 4096)) 168 4096 "$(le 1 8 1 8 1 8 178 1 5 8 999 8 0 8 1 4)"
cp --sparse=always "$T/img" "$T/before"
expect_exit 1 "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
assert_grep "overlaps extent" "$T/rep"
assert_grep "nothing was written" "$T/rep"
cmp -s "$T/img" "$T/before" || _fail "refused repair changed the image"
echo "ok: overlapping extent refused, image unchanged"
echo "all extent repairs done"
