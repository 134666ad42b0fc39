#!/bin/bash
# The write engine on every fuzz image and every restored fsck image
# (damaged on purpose): engine-fill may refuse or fail (cleanly, with a
# message) but must never crash, trip a sanitizer or hang; and when it did
# commit, our own tree walk of the result must not crash either.  The
# lenient free space tree rebuild (-R) is tried too.
. "$TOP/tests/lib/common.sh"
FILL=$TOOL_DIR/engine-fill
WALK=$TOOL_DIR/tree-walk
[ -x "$FILL" ] || _skip "engine-fill not built (make unit-bins)"

commits=0
check_one() { # name image
	local name=$1 img=$2 rc args
	for args in "-n 300 -c 2 -x -d 100" "-n 50 -c 1 -R"; do
		# shellcheck disable=SC2086
		timeout 120 "$FILL" $args "$img" > "$T/out" 2> "$T/err"
		rc=$?
		if [ $rc -ge 124 ] || grep -q -e 'AddressSanitizer' -e 'runtime error:' "$T/err"; then
			tail -n 20 "$T/err" >&2
			_fail "$name (engine-fill $args): exit $rc"
		fi
		[ $rc -eq 0 ] || [ -s "$T/err" ] || _fail "$name (engine-fill $args): exit $rc without a message"
		[ $rc -eq 0 ] && commits=$((commits + 1))
		if [ $rc -eq 0 ] && [ -x "$WALK" ]; then
			timeout 120 "$WALK" --noscan "$img" > /dev/null 2> "$T/err"
			rc=$?
			[ $rc -lt 124 ] && ! grep -q -e 'AddressSanitizer' -e 'runtime error:' "$T/err" ||
				_fail "$name: tree-walk after the commit: exit $rc"
		fi
	done
	echo "ok $name (last exit $rc)"
}

n=0
for x in "$SHARED"/fuzz-images/*.xz; do
	[ -f "$x" ] || continue
	xz -dc "$x" | dd of="$T/img" bs=64k conv=sparse status=none || _fail "cannot decompress $x"
	check_one "$(basename "$x")" "$T/img"
	rm -f "$T/img"; n=$((n + 1))
done
for d in "$SHARED"/fsck-images/*/; do
	[ -f "$d/restored.raw.tar.xz" ] || continue
	rm -rf "$T/fsck"; mkdir -p "$T/fsck"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/fsck" || _fail "cannot extract $d"
	check_one "$(basename "$d")" "$T/fsck/restored.raw"
	rm -rf "$T/fsck"; n=$((n + 1))
done
[ $n -gt 0 ] || _skip "no images in $SHARED"
echo "$n images, $commits runs committed"
