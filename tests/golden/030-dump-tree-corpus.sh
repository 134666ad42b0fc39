#!/bin/bash
# dump-tree, dump-tree -R and dump-tree --dfs --csum-headers --csum-items on
# every corpus case, byte-identical to the btrfs-progs 6.19 references (run in
# the case folder on the relative device names, first version line dropped
# by check_golden).
. "$TOP/tests/lib/common.sh"
check_prereq corpus

cases=$(cd "$SHARED/corpus" && ls)
nfail=0 npass=0
for c in $cases; do
	dir=$(corpus_case "$c")
	devs=$(cd "$dir" && ls dev*.img | sort -V)
	for out in dump-tree dump-tree-R dump-tree-dfs-csum; do
		ref=$SHARED/corpus/$c/$out.txt
		[ -f "$ref" ] || continue
		case $out in
		dump-tree) args=() ;;
		dump-tree-R) args=(-R) ;;
		dump-tree-dfs-csum) args=(--dfs --csum-headers --csum-items) ;;
		esac
		(cd "$dir" && timeout 120 "$BTRFS" inspect-internal dump-tree --noscan "${args[@]}" $devs) \
			> "$T/actual" 2>&1
		rc=$?
		[ $rc -lt 124 ] || _fail "$c $out: crashed or timed out (exit $rc)"
		# (a subshell: one difference is reported, the others still compared)
		if (check_golden "$ref" "$T/actual" "$c $out (exit $rc)"); then
			echo "PASS $c $out"; npass=$((npass + 1))
		else
			nfail=$((nfail + 1))
		fi
	done
done
[ $nfail -eq 0 ] || _fail "$nfail dump-tree outputs differ from the references"
[ $npass -gt 0 ] || _fail "no reference compared"
echo "$npass dump-tree outputs identical to the references"
