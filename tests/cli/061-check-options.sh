#!/bin/bash
# btrfs check options: usage errors, -s/-b/--tree-root/--chunk-root on a
# clean image, -Q, --mode, --repair on a clean image (nothing to do),
# --init-extent-tree refused as not implemented,
# and the fsck.btrfs alias.
. "$TOP/tests/lib/common.sh"
img=$T/img
run_check "$TOP/mkfs.btrfs" -q -f -b 256M "$img" > /dev/null
expect_exit 1 "$BTRFS" check > /dev/null 2> "$T/err"
assert_grep "not enough arguments" "$T/err"
expect_exit 1 "$BTRFS" check --mode fast "$img" > /dev/null 2> "$T/err"
assert_grep "unknown mode" "$T/err"
expect_exit 1 "$BTRFS" check --readonly --repair "$img" > /dev/null 2> "$T/err"
assert_grep "not compatible with --readonly" "$T/err"
expect_exit 1 "$BTRFS" check -s 3 "$img" > /dev/null 2> "$T/err"
assert_grep "super mirror should be less than 3" "$T/err"
expect_exit 1 "$BTRFS" check --clear-space-cache v3 "$img" > /dev/null 2> "$T/err"
assert_grep "must be v1 or v2" "$T/err"
run_check "$BTRFS" check --help > "$T/help"
assert_grep "check-data-csum" "$T/help"
for args in "" "--mode lowmem" "--mode original" "-b" "-p" "-Q"; do
	# shellcheck disable=SC2086
	run_check "$BTRFS" check $args "$img" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
done
# -p: a line per pass with elapsed time and items
run_check "$BTRFS" check -p "$img" > "$T/out" 2> "$T/err"
assert_grep "done (0:00:[0-9][0-9] elapsed, [0-9]* items checked)" "$T/err"
"$BTRFS" check "$img" > "$T/out" 2> "$T/err"
assert_not_grep "elapsed" "$T/err"
# the tree and chunk roots named explicitly
sb=$("$BTRFS" inspect-internal dump-super "$img")
root=$(echo "$sb" | sed -n "s/^root[[:space:]]\+\([0-9]\+\)$/\1/p")
chunk=$(echo "$sb" | sed -n "s/^chunk_root[[:space:]]\+\([0-9]\+\)$/\1/p")
run_check "$BTRFS" check --tree-root "$root" --chunk-root "$chunk" "$img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
# the mirror copy at 64MiB
run_check "$BTRFS" check -s 1 "$img" > "$T/out" 2> "$T/err"
assert_grep "using SB copy 1, bytenr 67108864" "$T/out"
assert_grep "no error found" "$T/out"
# --repair on a clean filesystem: the passes run, nothing to mend, exit 0,
# the image left as it was
cp "$img" "$T/before"
expect_exit 0 "$BTRFS" check --repair --force "$img" > "$T/out" 2> "$T/err"
assert_grep "^found [0-9]* bytes used, no error found$" "$T/out"
assert_grep "^\[8/8\] checking quota groups" "$T/err"
assert_not_grep "ERROR" "$T/err"
expect_exit 0 cmp -s "$img" "$T/before"
# what repair does not implement it names, exit 1, nothing written
expect_exit 1 "$BTRFS" check --init-extent-tree --force "$img" > "$T/out" 2> "$T/err"
[ "$(tail -n 1 "$T/err")" = "ERROR: --init-extent-tree is not supported: rebuilding the extent tree from scratch is not implemented" ] ||
	{ cat "$T/err" >&2; _fail "--init-extent-tree: not the 'not supported' message"; }
[ ! -s "$T/out" ] || { cat "$T/out" >&2; _fail "--init-extent-tree printed a result"; }
expect_exit 0 cmp -s "$img" "$T/before"
# --repair without --force asks, in btrfs-kit's words; "n" writes nothing.
cp "$img" "$T/before"
expect_exit 1 "$BTRFS" check --repair "$img" <<< n > "$T/out" 2> "$T/err"
assert_grep '^WARNING: --repair rewrites the metadata of this filesystem in place' "$T/out"
assert_grep 'Repair now? \[y/N\]' "$T/out"
assert_not_grep 'advised to do so' "$T/out"
expect_exit 0 cmp -s "$img" "$T/before"
# fsck.btrfs is check
run_check "$TOP/fsck.btrfs" "$img" > "$T/out" 2> "$T/err"
assert_grep "no error found" "$T/out"
echo ok
