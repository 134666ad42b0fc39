#!/bin/bash
# The corruption-class catalogue (tests/tools/catalogue.py), sampled with a
# fixed seed: 60 classes (item fields by rule, headers, item surgery, one
# mirror of a DUP/RAID1C4 block, superblock fields), each applied to one of
# four kernel-made corpus filesystems with tests/tools/corrupt-block.  Never
# a crash, never exit 0 where Debian's check sees damage, a refusing repair
# writes nothing, a repair that claims success leaves both checks clean.
# The whole catalogue, with kernel mounts of the repaired images:
#   make test-catalogue
. "$TOP/tests/lib/common.sh"
check_prereq python3 progs corpus
need_tool tool corrupt-block
fs=default-rich,nodesize4k-bulk,legacy-features,quota,raid1c3-raid1c4
for c in ${fs//,/ }; do corpus_case "$c" > /dev/null; done
# misses the catalogue found, now detected: a subvolume root item with refs 0
# still linked by its ROOT_REF and without orphan item (refs 1 is then the
# repair, cli/075); with the refs gone too, no orphan item
rich=$SCRATCH_ROOT/corpus/default-rich/dev1.img
cp --sparse=always "$rich" "$T/img"
run_check "$tool" "$T/img" field 1 257,ROOT_ITEM,10 root_item.refs 0 > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "root 257: root item refs 0, but the subvolume is linked by a ROOT_BACKREF" "$T/check"
expect_exit 1 /usr/bin/btrfs check "$T/img" > /dev/null 2>&1
run_check "$tool" "$T/img" delete 1 5,ROOT_REF,257 > /dev/null
run_check "$tool" "$T/img" delete 1 257,ROOT_BACKREF,5 > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "root 257: deleted subvolume (refs 0, no ROOT_BACKREF) has no orphan item (18446744073709551611 ORPHAN_ITEM 257)" "$T/check"
# found_refused PATTERN: $T/img (edited) is found by ours (PATTERN) and by Debian's check;
# our repair refuses and writes nothing
found_refused() {
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
	assert_grep "$1" "$T/check"
	expect_exit 1 /usr/bin/btrfs check "$T/img" > /dev/null 2>&1
	cp --sparse=always "$T/img" "$T/before"
	expect_exit 1 "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
	assert_grep "nothing was written" "$T/repair"
	cmp "$T/before" "$T/img" > /dev/null || _fail "a refused repair changed the image"
}
# a compressed file extent whose ram_bytes is below its offset + num_bytes (missed on
# compressed extents before; Debian finds it and does not mend it)
cp --sparse=always "$rich" "$T/img"
run_check "$tool" "$T/img" field 5 305,EXTENT_DATA,0 file_extent_item.ram_bytes 4096 > /dev/null
found_refused "root 5 inode 305: file extent at 0: offset 0 + num_bytes 131072 beyond ram_bytes 4096"
# a compressed inline file extent's ram_bytes beyond a sector (Debian: "inline file extent too
# large"; before, our repair took it for the inode's nbytes)
cp --sparse=always "$rich" "$T/img"
run_check "$tool" "$T/img" field 5 261,EXTENT_DATA,0 file_extent_item.compression 2 > /dev/null
run_check "$tool" "$T/img" field 5 261,EXTENT_DATA,0 file_extent_item.ram_bytes 131072 > /dev/null
found_refused "root 5 inode 261: inline file extent ram_bytes 131072 beyond the sector size 4096"
# a file extent's generation beyond the superblock's (fuzz-fields.py seed 17 on nodesize4k-bulk
# found it passing as clean; Debian: "invalid generation for extent"): set to the superblock's
cp --sparse=always "$rich" "$T/img"
run_check "$tool" "$T/img" field 5 305,EXTENT_DATA,0 file_extent_item.generation +65536 > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "root 5 inode 305: file extent at 0: generation 65545 beyond the superblock's 14 + 1" "$T/check"
repaired_clean "root 5 inode 305: file extent at 0 generation 65545 set to 14" "$T/img"
# a qgroup limit and relations naming a qgroup without its info item
q=$SCRATCH_ROOT/corpus/quota/dev1.img
cp --sparse=always "$q" "$T/img"
run_check "$tool" "$T/img" delete 8 0,QGROUP_INFO,281474976710756 > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "quota tree: the QGROUP_LIMIT item of qgroup 1/100 in leaf [0-9]* has no QGROUP_INFO item beside it" "$T/check"
assert_grep "quota tree: QGROUP_RELATION item 0/256 -> 1/100 in leaf [0-9]* names qgroup 1/100, which has no QGROUP_INFO item" "$T/check"
# a device item larger than its device (the catalogue found it after a repair)
cp --sparse=always "$q" "$T/img"
run_check "$tool" "$T/img" field 3 1,DEV_ITEM,1 total_bytes +1048576 > /dev/null
expect_exit 1 "$BTRFS" check "$T/img" > "$T/check" 2>&1
assert_grep "chunk tree: device item devid 1: total_bytes 210763776 is beyond the size of $T/img, 209715200" "$T/check"
expect_exit 1 /usr/bin/btrfs check "$T/img" > /dev/null 2>&1

cat_run() {
	python3 "$TOP/tests/tools/catalogue.py" --fs $fs --per-class 1 --tool "$tool" \
		--ref /usr/bin/btrfs --work "$T/work" --corpus "$SCRATCH_ROOT/corpus" "$@"
}
cat_run --sample 60 --seed 17 --btrfs "$BTRFS" --matrix "$T/matrix" > "$T/out" 2>&1
rc=$?
grep -A1 '^FAIL' "$T/out" >&8
[ $rc -eq 0 ] || _fail "catalogue: exit $rc"
assert_grep '^catalogue: [0-9]* classes, [0-9]* cases, 0 failures$' "$T/out"
cases=$(sed -n 's/^catalogue: [0-9]* classes, \([0-9]*\) cases.*/\1/p' "$T/out")
[ "$cases" -ge 40 ] || _fail "only $cases cases applied (the sample lost its classes)"
assert_grep '^total  *[0-9]' "$T/matrix"
assert_grep '^field/inode_item\.' "$T/matrix"
# the rules bite: a check that always says "clean" misses what Debian sees
printf '#!/bin/sh\nexit 0\n' > "$T/blind"; chmod +x "$T/blind"
expect_exit 1 cat_run --sample 15 --seed 17 --btrfs "$T/blind" --no-repair > "$T/blind.out" 2>&1
assert_grep '^FAIL .*missed: our check exits 0, Debian' "$T/blind.out"
echo "catalogue sample: $cases cases, 0 failures"
