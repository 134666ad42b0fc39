#!/bin/bash
# btrfs check on filesystems with one field of one item or header set to a
# hostile value (tests/tools/fuzz-fields.py through tests/tools/corrupt-block,
# fixed seeds): never a crash, sanitizer report or hang, and never exit 0
# where Debian's check sees damage.  A mkfs --rootdir image and a kernel-made
# corpus filesystem with snapshots, reflinks and compression; longer runs:
#   tests/tools/fuzz-fields.py IMAGE N --seed S --ref /usr/bin/btrfs
. "$TOP/tests/lib/common.sh"
check_prereq python3 progs corpus
need_tool tool corrupt-block
src=$T/src
mkdir -p "$src/d"
for i in 1 2 3 4 5 6; do echo "file $i" > "$src/d/f$i"; done
pattern_data 20000 "$src/big"
ln -s d/f1 "$src/link"
run_check "$TOP/mkfs.btrfs" -q -f -r "$src" -b 128M "$T/mkfs.img" > /dev/null
rich=$(corpus_case default-rich)/dev1.img
for args in "$T/mkfs.img 60 --seed 11" "$rich 60 --seed 12"; do
	# shellcheck disable=SC2086
	python3 "$TOP/tests/tools/fuzz-fields.py" $args --btrfs "$BTRFS" --tool "$tool" \
		--ref /usr/bin/btrfs --work "$T/work" --fail-on-missed > "$T/out" 2>&1
	rc=$?
	grep -v '^stricter' "$T/out"
	[ $rc -eq 0 ] || _fail "fuzz-fields.py $args: exit $rc"
	assert_grep '^fuzz: 60 runs, 0 crash, 0 missed' "$T/out"
done
# --more: the same mutations also through check --repair --force (ends clean
# or refuses with every byte unchanged), dump-tree, dump-super, image and
# offline balance: no crash there either
python3 "$TOP/tests/tools/fuzz-fields.py" "$T/mkfs.img" 8 --seed 13 --more --btrfs "$BTRFS" \
	--tool "$tool" --work "$T/work" > "$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 0 ] || _fail "fuzz-fields.py --more: exit $rc"
assert_grep '^fuzz: 8 runs, 0 crash, .* 0 badrepair' "$T/out"
