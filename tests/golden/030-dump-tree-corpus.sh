#!/bin/bash
# dump-tree, dump-tree -R and dump-tree --dfs --csum-headers --csum-items on
# every corpus case, byte-identical to the btrfs-progs 6.19 references (run in
# the case folder on the relative device names, first version line dropped
# by check_golden).
. "$TOP/tests/lib/common.sh"
check_prereq corpus

dump_tree() { # OUT DIR DEV...: the dump-tree of OUT on the devices; its exit code
	local out=$1 dir=$2 rc args=()
	shift 2
	case $out in
	dump-tree-R) args=(-R) ;;
	dump-tree-dfs-csum) args=(--dfs --csum-headers --csum-items) ;;
	esac
	(cd "$dir" && timeout 120 "$BTRFS" inspect-internal dump-tree --noscan "${args[@]}" "$@") > "$T/actual" 2>&1
	rc=$?
	[ $rc -lt 124 ] || _fail "$(basename "$dir") $out: crashed or timed out (exit $rc)"
	return $rc
}
each_corpus_golden dump-tree dump_tree dump-tree dump-tree-R dump-tree-dfs-csum
