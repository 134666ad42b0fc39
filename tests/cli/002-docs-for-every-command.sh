#!/bin/bash
# Every command listed by "btrfs help --full" has a page in Documentation/.
. "$TOP/tests/lib/common.sh"

run_check "$BTRFS" help --full > "$T/full"
missing=0
while read -r prog group rest; do
	case $prog in btrfs) ;; *) continue ;; esac
	case $group in ''|help|version|-*|\[*) continue ;; esac
	page=$TOP/Documentation/btrfs-$group.rst
	[ "$group" = mkfs ] && page=$TOP/Documentation/mkfs.btrfs.rst
	[ "$group" = check ] && page=$TOP/Documentation/btrfs-check.rst
	if [ ! -f "$page" ]; then
		echo "no man page for 'btrfs $group': expected $page" >&2
		missing=$((missing + 1))
	fi
done < <(sed -n 's/^    \(btrfs [a-z-]*\).*/\1/p' "$T/full" | sort -u | sed 's/$/ x/')
[ $missing -eq 0 ] || _fail "$missing command(s) without a man page"
[ -f "$TOP/Documentation/btrfs.rst" ] || _fail "Documentation/btrfs.rst missing"
echo ok
