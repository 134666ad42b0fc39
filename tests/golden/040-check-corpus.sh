#!/bin/bash
# btrfs check on every ../shared/corpus filesystem: exit 0 and exactly the
# reference check.txt of btrfs-progs 6.19 (pass lines on stderr, summary
# figures on stdout), also with --check-data-csum (reads every mirror).
. "$TOP/tests/lib/common.sh"
check_prereq corpus
n=0
for d in "$SHARED"/corpus/*/; do
	c=$(basename "$d")
	[ -f "$d/check.txt" ] || continue
	dir=$(corpus_case "$c")
	devs=$(cd "$dir" && ls dev*.img)
	grep '^\[' "$d/check.txt" > "$T/ref.err"
	grep -v '^\[' "$d/check.txt" > "$T/ref.out"
	for extra in "" --check-data-csum; do
		# shellcheck disable=SC2086
		(cd "$dir" && "$BTRFS" check $extra --noscan $devs) > "$T/out" 2> "$T/err"
		echo "exit $?" >> "$T/out"
		check_golden "$T/ref.out" "$T/out" "$c ${extra:-}: stdout"
		[ -z "$extra" ] ||
			sed -i 's/only csums items (without verifying data)/csums against data/' "$T/ref.err"
		check_golden "$T/ref.err" "$T/err" "$c ${extra:-}: pass lines"
	done
	n=$((n + 1))
	echo "ok $c"
done
[ $n -gt 0 ] || _fail "no corpus case with check.txt"
echo "$n corpus cases: check output identical to btrfs-progs 6.19"
