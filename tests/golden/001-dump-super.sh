#!/bin/bash
# dump-super -f and dump-super -a on every corpus case, byte-identical to the
# btrfs-progs 6.19 references (stdout and stderr, run in the case folder on
# the relative device names, exactly as tools/compare-golden.sh does).
. "$TOP/tests/lib/common.sh"
check_prereq corpus

cases=$(cd "$SHARED/corpus" && ls)
nfail=0 npass=0
for c in $cases; do
	dir=$(corpus_case "$c")
	devs=$(cd "$dir" && ls dev*.img | sort -V)
	for out in dump-super-f dump-super-a; do
		ref=$SHARED/corpus/$c/$out.txt
		[ -f "$ref" ] || continue
		case $out in
		dump-super-f) args=(-f dev1.img) ;;
		dump-super-a) args=(-a $devs) ;;
		esac
		(cd "$dir" && "$BTRFS" inspect-internal dump-super "${args[@]}") > "$T/actual" 2>&1
		rc=$?
		[ $rc -eq 0 ] || { cat "$T/actual" >&2; _fail "$c $out: exit $rc"; }
		# (a subshell: one difference is reported, the others still compared)
		if (check_golden "$ref" "$T/actual" "$c $out"); then
			npass=$((npass + 1))
		else
			nfail=$((nfail + 1))
		fi
	done
done
echo "$npass outputs identical, $nfail differ"
[ $nfail -eq 0 ] || _fail "$nfail dump-super outputs differ from the references"
[ $npass -gt 0 ] || _fail "no reference compared"
