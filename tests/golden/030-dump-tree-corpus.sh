#!/bin/bash
# dump-tree, dump-tree -R and dump-tree --dfs --csum-headers --csum-items on
# every corpus case, byte-identical to the btrfs-progs 6.19 references (run in
# the case folder on the relative device names, first version line dropped).
. "$TOP/tests/lib/common.sh"

cases=$(cd "$SHARED/corpus" && ls)
[ -n "$cases" ] || _skip "no corpus in $SHARED/corpus"
nfail=0
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
		sed '1{/^btrfs-progs v/d}' "$ref" > "$T/expected"
		(cd "$dir" && timeout 120 "$BTRFS" inspect-internal dump-tree --noscan "${args[@]}" $devs) \
			> "$T/actual" 2>&1
		rc=$?
		[ $rc -lt 128 ] || _fail "$c $out: crashed or timed out (exit $rc)"
		sed -i '1{/ v[0-9]/d}' "$T/actual"
		if cmp -s "$T/expected" "$T/actual"; then
			echo "PASS $c $out"
		else
			echo "FAIL $c $out (exit $rc)"
			diff "$T/expected" "$T/actual" | head -n 10
			nfail=$((nfail + 1))
		fi
	done
done
[ $nfail -eq 0 ] || _fail "$nfail dump-tree outputs differ from the references"
