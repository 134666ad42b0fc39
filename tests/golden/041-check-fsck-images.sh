#!/bin/bash
# btrfs check on every restored image of ../shared/fsck-images: our verdict
# (exit code) equals the reference's in check-before.txt, and the check of a
# corrupted image names what is wrong (an ERROR line).  Never a crash.
. "$TOP/tests/lib/common.sh"
n=0
for d in "$SHARED"/fsck-images/*/; do
	[ -f "$d/restored.raw.tar.xz" ] || continue
	c=$(basename "$d")
	rm -rf "$T/img"; mkdir -p "$T/img"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/img" || _fail "cannot extract $c"
	want=$(tail -n 1 "$d/check-before.txt" | sed -n 's/^exit //p')
	timeout 120 "$BTRFS" check --noscan "$T/img/restored.raw" > "$T/out" 2>&1
	rc=$?
	[ $rc -lt 124 ] || { tail -n 20 "$T/out" >&2; _fail "$c: exit $rc (crash or hang)"; }
	[ "$rc" = "$want" ] || { grep -m 10 ERROR "$T/out" >&2; _fail "$c: exit $rc, the reference says $want"; }
	if [ "$want" = 1 ]; then
		grep -q -e '^ERROR: ' -e '^Counts for qgroup' "$T/out" || _fail "$c: exit 1 without naming the problem"
	fi
	n=$((n + 1))
	echo "ok $c exit $rc"
done
[ $n -gt 0 ] || _skip "no fsck images"
echo "$n fsck images: verdicts equal the reference"
