#!/bin/bash
# Every command listed by "btrfs help --full" answers --help with its usage
# (exit 0) and its group has a page in Documentation/.
. "$TOP/tests/lib/common.sh"

run_check "$BTRFS" help --full > "$T/full"
# the command lines: "    btrfs GROUP [COMMAND] ..." and "    mkfs.btrfs ..."
sed -n 's/^    \(btrfs [a-z-]*\( [a-z][a-z-]*\)\?\|mkfs\.btrfs\)\( .*\)\?$/\1/p' "$T/full" |
	sort -u > "$T/commands"
# the ones we know of must be there: an empty or broken listing is a failure
for c in "btrfs balance start" "btrfs check" "btrfs inspect-internal dump-super" \
	 "btrfs inspect-internal dump-tree" "btrfs version" mkfs.btrfs; do
	grep -qx "$c" "$T/commands" || { cat "$T/full" >&2; _fail "'$c' not listed by btrfs help --full"; }
done
n=0 missing=0
while read -r prog group cmd; do
	case $prog in
	btrfs)	[ "$group" = help ] && continue    # the help itself: cli/001
		page=$TOP/Documentation/btrfs-$group.rst
		[ "$group" = version ] && page=$TOP/Documentation/btrfs.rst
		# shellcheck disable=SC2086
		run_check "$BTRFS" $group $cmd --help > "$T/help" ;;
	mkfs.btrfs) page=$TOP/Documentation/mkfs.btrfs.rst
		run_check "$TOP/mkfs.btrfs" --help > "$T/help" ;;
	esac
	assert_grep "^usage: $prog${group:+ $group}${cmd:+ $cmd}\\b" "$T/help"
	if [ ! -f "$page" ]; then
		echo "no man page for '$prog $group': expected $page" >&2
		missing=$((missing + 1))
	fi
	n=$((n + 1))
done < "$T/commands"
[ $missing -eq 0 ] || _fail "$missing command(s) without a man page"
[ -f "$TOP/Documentation/btrfs.rst" ] || _fail "Documentation/btrfs.rst missing"
echo "ok: $n commands with help and a page"
