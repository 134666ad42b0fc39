#!/bin/bash
# btrfs image (create: -c1, -w, -d, and -ss for the name sanitizer) on every
# fuzz image: it may refuse (exit 1, with a message) but must never crash,
# trip a sanitizer or hang; -ss exits as -c1 does; a dump it does write must
# restore (ours) without a crash either.
. "$TOP/tests/lib/common.sh"

check_one() { # name image
	local name=$1 img=$2 rc
	rm -f "$T/x.dump" "$T/x.raw"
	hostile_run 60 "$name (image -c1)" "$BTRFS" image -c1 "$img" "$T/x.dump"
	rc=$?
	hostile_run 60 "$name (image -w)" "$BTRFS" image -w "$img" "$T/w.dump"
	hostile_run 60 "$name (image -ss)" "$BTRFS" image -ss -c1 "$img" "$T/s.dump"
	# sanitizing refuses nothing the dump takes (a refusal of -ss itself would differ)
	[ $? -eq $rc ] || _fail "$name: image -ss exits otherwise than image -c1 ($rc)"
	hostile_run 60 "$name (image -d)" "$BTRFS" image -d "$img" "$T/d.dump"
	if [ $rc -eq 0 ]; then
		hostile_run 60 "$name (image -r of its dump)" "$BTRFS" image -r "$T/x.dump" "$T/x.raw"
		hostile_run 60 "$name (image -r of its -ss dump)" "$BTRFS" image -r "$T/s.dump" "$T/s.raw"
	fi
	echo "ok $name (dump exit $rc)"
}
each_hostile_image check_one
echo "$HOSTILE_N images dumped, no crash"
