#!/bin/bash
# btrfs check (also --check-data-csum) on every fuzz image: it may fail
# (cleanly, exit 1, with a message) but never crash, trip a sanitizer or hang.
. "$TOP/tests/lib/common.sh"
check_one() { # name image
	local args rc
	for args in "" "--check-data-csum -Q"; do
		# shellcheck disable=SC2086
		hostile_run 120 "$1 (check $args)" "$BTRFS" check --noscan $args "$2"; rc=$?
	done
	echo "ok $1 exit $rc"
}
each_hostile_image check_one
echo "$HOSTILE_N fuzz images, no crash"
