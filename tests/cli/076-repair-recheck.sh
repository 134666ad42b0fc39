#!/bin/bash
# check --repair re-checks the generation it is about to commit, in memory
# (the commit's blocks not written yet): (a) a repair whose result is clean
# is committed, and our check and Debian's are clean afterwards; (b) a
# repair that writes a wrong value (BTRFS_KIT_TEST_SABOTAGE_REPAIR, the
# block group used bytes off by a sector) is refused: exit 1, the
# re-check's message naming the pass and what it found, the image
# byte-identical to before, also as a dry run; (c) a dev extent whose
# chunk_offset names another chunk is set back to the chunk with its stripe
# there (a dry run writes nothing); (d) --init-csum-tree --repair on a filesystem with an error no
# repair mends (an extent item overlapping another) is refused before the
# new csum tree is written (it was written, then the repair refused).
. "$TOP/tests/lib/common.sh"
check_prereq progs corpus
need_corrupt_block
need_tool EDIT tree-edit

img0=$(corpus_case csum-xxhash)/dev1.img
bg() { # the first DATA block group of the block group tree: "START LENGTH USED"
	"$BTRFS" inspect-internal dump-tree -t block-group "$img0" | awk '
		/BLOCK_GROUP_ITEM/ { s = $4; l = $6; sub(/\(/, "", s); sub(/\)/, "", l) }
		/block group used/ && /DATA/ { print s, l, $4; exit }'
}
read -r bg_start bg_len bg_used <<< "$(bg)"
[ -n "$bg_used" ] || _fail "no DATA block group item found"
damaged() { # CORRUPT-BLOCK ARGS...: a damaged copy in $T/img, kept as $T/before
	cp --sparse=always "$img0" "$T/img"
	run_check "$CB" "$T/img" "$@" > "$T/edit" 2>&1
	cp --sparse=always "$T/img" "$T/before"
}
unchanged() { # WHAT
	cmp "$T/before" "$T/img" > /dev/null || _fail "$1 changed the image"
}

# (a) block group used bytes off: repaired, the re-check clean, committed
damaged field 11 "$bg_start,BLOCK_GROUP_ITEM,$bg_len" used $((bg_used + 65536))
repaired_clean "Block group $bg_start: used $((bg_used + 65536)) reset to $bg_used" "$T/img"
assert_grep "^Repair committed" "$T/repair"
assert_grep "no error found" "$T/after-debian"
echo "ok: a clean repair is committed"

# (b) the same repair sabotaged (a sector too many): refused, nothing written
damaged field 11 "$bg_start,BLOCK_GROUP_ITEM,$bg_len" used $((bg_used + 65536))
expect_exit 1 env BTRFS_KIT_TEST_SABOTAGE_REPAIR=1 "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
unchanged "a sabotaged repair"
assert_grep "Block group $bg_start: used $((bg_used + 65536)) reset to $bg_used" "$T/repair"
assert_grep "the re-check of the repaired filesystem (transaction [0-9]*, in memory) finds errors: repair refused, nothing was written" "$T/repair"
assert_grep "^  checking extents: 1 error(s) before the repair, 1 after$" "$T/repair"
assert_grep "^  re-check: ERROR: block group \[$bg_start $bg_len\]: used $((bg_used + 4096)), extents in it sum to $bg_used$" "$T/repair"
assert_not_grep "Repair committed" "$T/repair"
echo "ok: a sabotaged repair is refused, the image unchanged"

# (c) a dev extent's chunk_offset naming another chunk (the one chunk with a
# stripe at its place is its own): a dry run prints the fix and writes
# nothing, the repair sets it back and both checks are clean
dev_ext=$("$BTRFS" inspect-internal dump-tree -t dev "$img0" | awk '
	/DEV_EXTENT/ { p = $4; sub(/\)/, "", p); sub(/\(/, "", p); k = $6; sub(/\)/, "", k) }
	/chunk_offset/ { if (c == "") { c = $4; key = k } else if ($4 != c) { print key, c, $4; exit } }')
read -r phys own other <<< "$dev_ext"
[ -n "$other" ] || _fail "no two dev extents of different chunks found"
damaged field 4 "1,DEV_EXTENT,$phys" chunk_offset "$other"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "dev extent devid 1 physical $phys names chunk $other; chunk $own has its stripe there" "$T/check"
run_check "$BTRFS" check --repair --dry-run "$T/img" > "$T/repair" 2>&1
unchanged "a dry run"
assert_grep "chunk_offset $other set to $own, the chunk with its stripe there" "$T/repair"
assert_grep "dry run: nothing written" "$T/repair"
run_check "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
clean_checks "$T/img"
echo "ok: a dev extent's chunk_offset naming another chunk set back (a dry run writes nothing)"

# the sabotaged repair as a dry run: refused as well, nothing written
damaged field 11 "$bg_start,BLOCK_GROUP_ITEM,$bg_len" used $((bg_used + 65536))
expect_exit 1 env BTRFS_KIT_TEST_SABOTAGE_REPAIR=1 "$BTRFS" check --repair --dry-run "$T/img" > "$T/repair" 2>&1
unchanged "a sabotaged dry run"
assert_grep "finds errors: repair refused, nothing was written" "$T/repair"
echo "ok: a sabotaged dry run is refused"

# (d) --init-csum-tree --repair, an extent item overlapping a data extent
src=$T/src
mkdir -p "$src"
pattern_data 65536 "$src/data"
clean_image "$src" "$T/mk.img"
data_start=$("$BTRFS" inspect-internal dump-tree -t extent "$T/mk.img" |
	sed -n 's/.*key (\([0-9]*\) EXTENT_ITEM 65536).*/\1/p' | head -n 1)
[ -n "$data_start" ] || _fail "no 64 KiB data extent in the mkfs image"
cp --sparse=always "$T/mk.img" "$T/img"
run_check "$EDIT" "$T/img" ins 2 $((data_start + 4096)) 168 4096 \
	010000000000000001000000000000000100000000000000b20500000000000000e703000000000000000000000000000001000000
cp --sparse=always "$T/img" "$T/before"
expect_exit 1 "$BTRFS" check --init-csum-tree --repair --force "$T/img" > "$T/repair" 2>&1
unchanged "--init-csum-tree --repair with an error no repair mends"
assert_grep "with the new checksum tree (transaction [0-9]*, checked in memory) [1-9][0-9]* error(s) checking extents remain that --repair does not mend: nothing was written" "$T/repair"
assert_grep "^  re-check: ERROR: .*overlaps extent" "$T/repair"
echo "ok: --init-csum-tree --repair refused before writing"
