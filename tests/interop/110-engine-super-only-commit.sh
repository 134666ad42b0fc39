#!/bin/bash
# Commits that change no tree: only the superblock label, or nothing at all
# (tests/tools/super-commit).  Each must still write a root tree block of
# the new generation: dump-super shows generation G+1 (and the label), the
# root tree block at the superblock's root address carries G+1, the newest
# backup root names it, our check and Debian's are clean, and the engine
# reopens the result for the next commit.  On a root tree of one leaf
# (16 KiB nodes) and of a node over leaves (4 KiB nodes).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq progs
need_tool COMMIT super-commit

super_field() { # field image
	"$BTRFS" inspect-internal dump-super "$2" | awk -v f="$1" '$1 == f {print $2}'
}

# generation G of image: superblock, root tree block, backup root, both checks
expect_generation() { # image G label
	local img=$1 gen=$2 label=$3 root head
	[ "$(super_field generation "$img")" = "$gen" ] || _fail "super generation is not $gen"
	[ "$(super_field label "$img")" = "$label" ] || _fail "label is not '$label'"
	root=$(super_field root "$img")
	"$BTRFS" inspect-internal dump-tree -t root "$img" > "$T/root.txt" 2>&1 ||
		{ cat "$T/root.txt" >&2; _fail "dump-tree -t root failed at generation $gen"; }
	head=$(sed -n 3p "$T/root.txt")
	[[ $head =~ ^(leaf|node)\ $root\ .*\ generation\ $gen\ owner\ ROOT_TREE ]] ||
		_fail "root tree block: '$head', expected block $root of generation $gen"
	"$BTRFS" inspect-internal dump-super -f "$img" > "$T/super.txt"
	grep -qP "^\t\tbackup_tree_root:\t$root\tgen: $gen\t" "$T/super.txt" ||
		_fail "no backup root names root tree block $root of generation $gen"
	"$BTRFS" check "$img" > "$T/ourcheck.log" 2>&1 ||
		{ cat "$T/ourcheck.log" >&2; _fail "our btrfs check found errors at generation $gen"; }
	progs_check "$img"
}

for nodesize in 16384 4096; do
	img=$T/n$nodesize.img
	rm -f "$img"
	truncate -s 512M "$img" || _fail "truncate"
	run_check "$BTRFS" mkfs -f -q -n "$nodesize" "$img"
	gen=$(super_field generation "$img")
	level=$(super_field root_level "$img")
	echo "nodesize $nodesize: mkfs generation $gen, root tree level $level"

	# the label only
	run_check "$COMMIT" -L super-only "$img" > "$T/out"
	assert_grep "^generation $((gen + 1)) blocks [1-9]" "$T/out"
	expect_generation "$img" $((gen + 1)) super-only

	# nothing at all, twice (the second reuses the space the first freed)
	run_check "$COMMIT" -c 2 "$img" > "$T/out"
	assert_grep "^generation $((gen + 3)) blocks [1-9]" "$T/out"
	expect_generation "$img" $((gen + 3)) super-only
done
echo ok
