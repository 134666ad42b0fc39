#!/bin/bash
# The write engine on every fuzz image and every restored fsck image
# (damaged on purpose): engine-fill may refuse or fail (cleanly, with a
# message) but must never crash, trip a sanitizer or hang; and when it did
# commit, our own tree walk of the result must not crash either.  The
# lenient free space tree rebuild (-R) is tried too.
. "$TOP/tests/lib/common.sh"
need_tool FILL engine-fill
need_tool WALK tree-walk

commits=0
check_one() { # name image
	local name=$1 img=$2 rc args
	for args in "-n 300 -c 2 -x -d 100" "-n 50 -c 1 -R"; do
		# shellcheck disable=SC2086
		hostile_run 120 "$name (engine-fill $args)" "$FILL" $args "$img"; rc=$?
		[ $rc -eq 0 ] || continue
		commits=$((commits + 1))
		[ -x "$WALK" ] && hostile_run -x 2 120 "$name: tree-walk after the commit" "$WALK" --noscan "$img"
	done
	echo "ok $name (last exit $rc)"
}
each_hostile_image --fsck check_one
echo "$HOSTILE_N images, $commits runs committed"
