#!/bin/bash
# btrfs check --repair --dry-run and refusals write nothing: every case
# compares sha256sum of the image before and after.  A dry run prints the
# fixes and "dry run: nothing written", exits 0 as the repair would, and
# the real repair that follows still repairs; a bad DUP copy is not
# rewritten by a dry run (that fix writes itself, after the commit only);
# a repair refused (an error class it does not mend, next to one it does)
# leaves every byte as it was.  -p prints the repair's phases.
. "$TOP/tests/lib/common.sh"
need_tool EDIT tree-edit
need_corrupt_block
src=$T/src
mkdir -p "$src/dir"
pattern_data 65536 "$src/data"
echo hello > "$src/a"
img0=$T/clean.img
clean_image "$src" "$img0"
dump() { "$BTRFS" inspect-internal dump-tree -t "$1" "$img0"; }
fs_leaf=$(dump fs | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1)
read -r data_start data_len <<< "$(dump extent | sed -n 's/.*key (\([0-9]*\) EXTENT_ITEM \(65536\)).*/\1 \2/p' | head -n 1)"
ino=$(dump 5 | awk '/location key/ { i = $3; sub(/\(/, "", i) } $1 == "name:" && $2 == "a" { print i; exit }')
[ -n "$fs_leaf" ] && [ -n "$data_start" ] && [ -n "$ino" ] ||
	_fail "layout not understood: fs leaf $fs_leaf data $data_start inode $ino"
fresh() { cp --sparse=always "$img0" "$T/img"; sha256sum < "$T/img" > "$T/sum0"; }
unchanged() { # WHAT
	sha256sum < "$T/img" > "$T/sum1"
	cmp -s "$T/sum0" "$T/sum1" || _fail "$1 changed the image"
}

# 1. a tree block without its extent item: the dry run shows the fix, writes nothing
fresh
run_check "$EDIT" "$T/img" del 2 "$fs_leaf" 169 0
sha256sum < "$T/img" > "$T/sum0"
run_check "$BTRFS" check --repair --dry-run "$T/img" > "$T/rep" 2>&1
unchanged "--repair --dry-run"
assert_grep "Repaired extent references for $fs_leaf" "$T/rep"
assert_grep "^dry run: transaction [0-9]* computed ([0-9]* tree blocks), not written\$" "$T/rep"
assert_grep "^dry run: nothing written\$" "$T/rep"
expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2>&1
assert_grep "no extent item for tree block extent $fs_leaf" "$T/out"
# the real repair still repairs; -p: a line and a time per repair phase
run_check "$BTRFS" check -p --repair --force "$T/img" > "$T/rep" 2>&1
assert_grep "Repair committed" "$T/rep"
assert_grep "^\[repair 1/3\] applying [1-9][0-9]* fixes\$" "$T/rep"
assert_grep "^      done (0:00:[0-9][0-9] elapsed, [1-9][0-9]* fixes applied)\$" "$T/rep"
assert_grep "^\[repair 2/3\] computing the commit\$" "$T/rep"
assert_grep "^      done (0:00:[0-9][0-9] elapsed, [1-9][0-9]* tree blocks computed)\$" "$T/rep"
assert_grep "^\[repair 3/3\] writing transaction [0-9]*\$" "$T/rep"
assert_grep "^      done (0:00:[0-9][0-9] elapsed, [1-9][0-9]* tree blocks written)\$" "$T/rep"
run_check "$BTRFS" check "$T/img" > "$T/out" 2>&1
assert_grep "no error found" "$T/out"
echo "ok: dry run wrote nothing, the repair then repaired"

# 2. one bad DUP copy: a dry run does not rewrite it
fresh
run_check "$CB" --mirror 1 --no-csum "$T/img" field 5 "$ino,INODE_ITEM,0" mode 0 > "$T/edit" 2>&1
sha256sum < "$T/img" > "$T/sum0"
run_check "$BTRFS" check --repair --dry-run "$T/img" > "$T/rep" 2>&1
unchanged "--repair --dry-run of a bad copy"
assert_grep "^dry run: nothing written\$" "$T/rep"
assert_not_grep "Rewrote copy" "$T/rep"
run_check "$BTRFS" check --repair --force "$T/img" > "$T/rep" 2>&1
assert_grep "^Rewrote copy 1 of tree block [0-9]* from copy 2\$" "$T/rep"
echo "ok: dry run left the bad copy, the repair rewrote it"

# 3. refused: an extent overlapping another (not mended) next to a missing
#    extent item (mended): nothing written, dry run or not, exit 1 both
fresh
run_check "$EDIT" "$T/img" del 2 "$fs_leaf" 169 0
run_check "$EDIT" "$T/img" ins 2 $((data_start + 4096)) 168 4096 \
	010000000000000001000000000000000100000000000000b20500000000000000e703000000000000000000000000000001000000
sha256sum < "$T/img" > "$T/sum0"
for mode in --dry-run --force; do
	expect_exit 1 "$BTRFS" check --repair $mode "$T/img" > "$T/rep" 2>&1
	assert_grep "overlaps extent" "$T/rep"
	assert_grep "is not implemented; nothing was written" "$T/rep"
	unchanged "refused repair ($mode)"
done
echo "ok: refused repair wrote nothing"

# 4. --dry-run alone or with the tree rebuilding options is a usage error
expect_exit 1 "$BTRFS" check --dry-run "$T/img" > "$T/out" 2>&1
assert_grep "dry-run goes with --repair only" "$T/out"
expect_exit 1 "$BTRFS" check --repair --dry-run --init-csum-tree --force "$T/img" > "$T/out" 2>&1
assert_grep "dry-run goes with --repair only" "$T/out"
unchanged "--dry-run usage errors"
echo "ok: usage errors"
