#!/bin/bash
# tests/tools/fuzz-dumps.py, fixed seed, at most 40 rounds or 45 s: random
# damage to cluster headers, item tables, zlib streams, the superblock item,
# chunk items and tree blocks (checksums recomputed), and truncations, of a
# -c9 and a -c0 dump this test makes of 012-leaf-corruption's good image and
# of the committed 3-device dump (-m); each restored with image -r/-m from a
# file or stdin onto an existing target.  No crash, hang, sanitizer report or
# silent failure; an existing target untouched when the dump's structure is bad.
. "$TOP/tests/lib/common.sh"
check_prereq fsck-images
src=$(compgen -G "$SHARED/fsck-images/012-leaf-corruption--good/*.img")
[ -n "$src" ] || _fail "no dump in 012-leaf-corruption--good"
"$BTRFS" image -r "$src" "$T/good.raw" || _fail "cannot restore $src"
"$BTRFS" image -c9 "$T/good.raw" "$T/c9.dump" || _fail "image -c9 failed"
"$BTRFS" image -c0 "$T/good.raw" "$T/c0.dump" || _fail "image -c0 failed"
rm -f "$T/good.raw"
python3 "$TOP/tests/tools/fuzz-dumps.py" --btrfs "$BTRFS" --work "$T/fuzz" \
	--seed 19 --count 40 --time 45 --timeout 30 \
	"$T/c9.dump" "$T/c0.dump" "$TOP/tests/robust/data/image-3dev-raid1-raid0.dump:3" > "$T/log" 2>&1
rc=$?
cat "$T/log"
[ $rc -eq 0 ] || _fail "fuzz-dumps.py found crashes or written targets (exit $rc)"
assert_grep "^fuzz-dumps: [0-9]* rounds, 0 crash, 0 written, [1-9][0-9]* refused" "$T/log"
