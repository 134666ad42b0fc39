#!/bin/bash
# dump-tree on every fuzz image and every restored fsck image: it may fail
# (cleanly, exit 1) but must never crash, trip a sanitizer or hang.
. "$TOP/tests/lib/common.sh"

check_one() { # name image
	local name=$1 img=$2 rc args
	for args in "" "--dfs --csum-headers --csum-items" "-R" "-e" "json"; do
		if [ "$args" = json ]; then
			hostile_run 60 "$name (dump-tree --format json)" \
				"$BTRFS" --format json inspect-internal dump-tree --noscan "$img"
		else
			# shellcheck disable=SC2086
			hostile_run 60 "$name (dump-tree $args)" \
				"$BTRFS" inspect-internal dump-tree --noscan $args "$img"
		fi
		rc=$?
		# The JSON document stays valid whatever the image.
		if [ "$args" = json ] && [ -s "$T/out" ] && command -v python3 > /dev/null; then
			python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/out" ||
				_fail "$name (dump-tree --format json): invalid JSON"
		fi
	done
	echo "ok $name (last exit $rc, $(wc -l < "$T/out") lines)"
}
each_hostile_image --fsck check_one
echo "$HOSTILE_N images, no crash"
