#!/bin/bash
# btrfs check --repair on a copy of every fuzz image: it never crashes,
# trips a sanitizer or hangs; when it refuses (exit 1) the image is byte for
# byte as it was, and when it repairs (exit 0) our check finds it clean.
. "$TOP/tests/lib/common.sh"
repaired=0 refused=0
repair_one() { # name image
	local rc
	cp --sparse=always "$2" "$T/img"
	hostile_run 120 "$1 (check --repair)" "$BTRFS" check --repair --force --noscan "$T/img"; rc=$?
	if [ $rc -eq 1 ]; then
		cmp -s "$2" "$T/img" || _fail "$1: repair refused but changed the image"
		refused=$((refused + 1))
	else
		expect_exit 0 "$BTRFS" check --noscan "$T/img" > "$T/out" 2>&1
		repaired=$((repaired + 1))
	fi
	echo "ok $1 exit $rc"
	rm -f "$T/img"
}
each_hostile_image repair_one
echo "$HOSTILE_N fuzz images: $repaired clean after --repair, $refused refused and unchanged"
