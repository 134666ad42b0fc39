#!/bin/bash
# Offline balance (issue 21) on every fuzz image and restored fsck image: the plan
# (--dry-run) and a convert to dup metadata and single data (-f) may fail (cleanly, exit
# 1, with a message: a refusal, a block with no good copy, a tree the engine refuses)
# but never crash, trip a sanitizer or hang.
. "$TOP/tests/lib/common.sh"
one() { # name image
	local rc
	hostile_run 120 "$1 (balance --dry-run)" "$BTRFS" balance start --dry-run -f -dconvert=single -mconvert=dup "$2"
	hostile_run 120 "$1 (balance convert)" "$BTRFS" balance start -f -dconvert=single -mconvert=dup "$2"; rc=$?
	echo "ok $1 exit $rc"
}
each_hostile_image --fsck one
echo "$HOSTILE_N hostile images, no crash"
