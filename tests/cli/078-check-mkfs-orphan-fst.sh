#!/bin/bash
# A filesystem made by mkfs.btrfs of btrfs-progs before 6.16.1 (Debian's 6.2)
# keeps free space tree entries of mkfs's temporary chunks, outside every
# block group.  btrfs-progs 6.19 reports them as errors and its --repair
# deletes them; we do the same: exit 1, one error per range (not per item)
# and one NOTE saying where they come from, then --repair leaves a
# filesystem both checks pass, with the entries gone and nothing else changed
# in the free space tree.  Debian's 6.2 check does not look for them.
. "$TOP/tests/lib/common.sh"
check_prereq progs
[ -x /usr/sbin/mkfs.btrfs ] || _skip "Debian's mkfs.btrfs not installed"
img=$T/img
truncate -s 1G "$img"
run_check /usr/sbin/mkfs.btrfs -q -f "$img" > /dev/null 2>&1
# the stale ranges are there: FREE_SPACE_INFO items of no BLOCK_GROUP_ITEM
run_check "$BTRFS" inspect-internal dump-tree -t free-space "$img" > "$T/fst-before"
assert_grep "key (1048576 FREE_SPACE_INFO 4194304)" "$T/fst-before"
expect_exit 1 "$BTRFS" check "$img" > "$T/check" 2>&1
assert_grep "^ERROR: free space tree: entries for \[1048576, 5242880) have no block group$" "$T/check"
assert_grep "^NOTE: free space tree entries without a block group are left by mkfs.btrfs of btrfs-progs before 6.16.1" "$T/check"
[ "$(grep -c "^ERROR: free space tree" "$T/check")" -eq 2 ] || _fail "expected one error per stale range, got: $(grep "^ERROR" "$T/check")"
[ "$(grep -c "^NOTE: free space tree entries" "$T/check")" -eq 1 ] || _fail "the NOTE should appear once"
assert_grep "error(s) found" "$T/check"
run_check /usr/bin/btrfs check "$img" > /dev/null 2>&1
run_check "$BTRFS" check --repair --force "$img" > "$T/repair" 2>&1
clean_checks "$img"
run_check "$BTRFS" inspect-internal dump-tree -t free-space "$img" > "$T/fst-after"
assert_not_grep "key (1048576 FREE_SPACE" "$T/fst-after"
assert_not_grep "key (5242880 FREE_SPACE" "$T/fst-after"
# the block groups' own entries are untouched
grep "FREE_SPACE_INFO" "$T/fst-before" | grep -v -e "key (1048576 " -e "key (5242880 " | sed 's/item [0-9]* key/key/; s/itemoff [0-9]* //' > "$T/kept-before"
grep "FREE_SPACE_INFO" "$T/fst-after" | sed 's/item [0-9]* key/key/; s/itemoff [0-9]* //' > "$T/kept-after"
[ -s "$T/kept-before" ] || _fail "no block group free space info found"
cmp -s "$T/kept-before" "$T/kept-after" ||
	{ diff "$T/kept-before" "$T/kept-after" >&8; _fail "the block groups' FREE_SPACE_INFO items changed"; }
echo "stale mkfs FST ranges: reported once each with a note, repaired, both checks clean"
