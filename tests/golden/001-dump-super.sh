#!/bin/bash
# dump-super -f and dump-super -a on every corpus case, byte-identical to the
# btrfs-progs 6.19 references (stdout and stderr, run in the case folder on
# the relative device names, exactly as tools/compare-golden.sh does).
. "$TOP/tests/lib/common.sh"
check_prereq corpus

dump_super() { # OUT DIR DEV...: dump-super -f of the first device or -a of all, exit 0
	local out=$1 dir=$2 rc
	shift 2
	case $out in
	dump-super-f) set -- -f dev1.img ;;
	dump-super-a) set -- -a "$@" ;;
	esac
	(cd "$dir" && "$BTRFS" inspect-internal dump-super "$@") > "$T/actual" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { cat "$T/actual" >&2; _fail "$(basename "$dir") $out: exit $rc"; }
}
each_corpus_golden dump-super dump_super dump-super-f dump-super-a
