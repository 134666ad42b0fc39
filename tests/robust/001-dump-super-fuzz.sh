#!/bin/bash
# dump-super (-f, -a, -F -f, every mirror, JSON) on every fuzz image and
# every restored fsck image: it may fail cleanly but must never crash, hang
# or trip a sanitizer.
. "$TOP/tests/lib/common.sh"

dump_super() { # name image
	local args
	for args in "-f" "-a" "-F -f" "-F -f -a" "-s 1 -F -f"; do
		# shellcheck disable=SC2086
		hostile_run 30 "$1 (dump-super $args)" "$BTRFS" inspect-internal dump-super $args "$2"
	done
	hostile_run 30 "$1 (dump-super --format json)" \
		"$BTRFS" --format json inspect-internal dump-super -F -f -a "$2"
	if [ -s "$T/out" ] && command -v python3 > /dev/null; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" || _fail "$1: invalid JSON"
	fi
}
each_hostile_image --fsck dump_super
echo "$HOSTILE_N images, no crash"
