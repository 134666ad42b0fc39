#!/bin/bash
# A superblock generation or chunk_root_generation (every copy) that
# disagrees with its root block, while a backup root names that block with
# the block's own generation (two witnesses against one field): check
# reports it, reads the trees by the block's generation (not a flood of
# transid errors), and --repair commits the superblock with it; our check
# and Debian's are clean after and every file reads back.  Without a backup
# root to agree (it disagrees too) nothing is repaired: every byte stays.
. "$TOP/tests/lib/common.sh"
check_prereq progs
need_corrupt_block
mkdir -p "$T/src/d"
for i in $(seq 1 50); do echo "file $i" > "$T/src/d/f$i"; done
head -c 300000 /dev/urandom > "$T/src/data"
rootdir_image "$T/src" "$T/img0"
field() { "$BTRFS" inspect-internal dump-super "$1" | awk -v f="$2" '$1 == f { print $2 }'; }
gen=$(field "$T/img0" generation); cgen=$(field "$T/img0" chunk_root_generation)
root=$(field "$T/img0" root); croot=$(field "$T/img0" chunk_root)

for t in "generation +1:generation $((gen + 1)), but root tree block $root has generation $gen" \
	 "generation 0:generation 0, but root tree block $root has generation $gen" \
	 "generation 18446744073709551615:generation 18446744073709551615, but root tree block $root" \
	 "chunk_root_generation -1:chunk_root_generation $((cgen - 1)), but chunk root block $croot has generation $cgen" \
	 "chunk_root_generation 77:chunk_root_generation 77, but chunk root block $croot has generation $cgen"; do
	IFS=: read -r edit want <<< "$t"
	cp --sparse=always "$T/img0" "$T/img"
	run_check "$CB" "$T/img" super $edit > /dev/null
	expect_exit 1 "$BTRFS" check "$T/img" > "$T/out" 2> "$T/err"
	assert_grep "ERROR: superblock: $want" "$T/err"
	assert_not_grep "transid" "$T/err"
	run_check "$BTRFS" check --repair --force "$T/img" > "$T/repair" 2>&1
	assert_grep "Reset super \(chunk root \)\?generation from" "$T/repair"
	clean_with_files "$T/img" "$T/src" "$edit"
	echo "ok: super $edit found and repaired"
done

# the backup roots disagree too (slot 1's generation changed): refused, nothing written
cp --sparse=always "$T/img0" "$T/img"
run_check "$CB" "$T/img" super generation +1 > /dev/null
for slot in 0 1 2 3; do
	# backup root slot N's tree root generation: super_roots at 2859, 168 bytes a slot, field at +8
	run_check "$CB" "$T/img" super u64@$((2859 + 168 * slot + 8)) 999 > /dev/null
done
sum=$(md5sum < "$T/img")
expect_exit 1 "$BTRFS" check --repair --force "$T/img" > "$T/out" 2> "$T/err"
assert_grep "transid" "$T/err"
[ "$(md5sum < "$T/img")" = "$sum" ] || _fail "a refused repair wrote"
echo "ok: no backup root agrees: refused, nothing written"
