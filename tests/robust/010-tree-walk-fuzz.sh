#!/bin/bash
# Hostile images (fuzz-images, fsck-images): opening and walking every tree
# must end by itself (no hang: 60 s each) and never crash (exit >= 128 or a
# sanitizer report); refusing the image with an error (exit 1 or 2, tree-walk's
# "cannot open") is fine.
. "$TOP/tests/lib/common.sh"
need_tool tool tree-walk
walk() { # name image
	local rc
	hostile_run -x 2 60 "$1 (tree-walk)" "$tool" --noscan "$2"; rc=$?
	echo "exit $rc $1"
}
each_hostile_image --fsck walk
echo "$HOSTILE_N images, no crash"
