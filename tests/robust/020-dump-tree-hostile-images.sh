#!/bin/bash
# dump-tree on every fuzz image and every restored fsck image: it may fail
# (cleanly, exit 1) but must never crash, trip a sanitizer or hang.
. "$TOP/tests/lib/common.sh"

check_one() { # name image
	local name=$1 img=$2 rc args
	for args in "" "--dfs --csum-headers --csum-items" "-R" "-e" "json"; do
		if [ "$args" = json ]; then
			timeout 60 "$BTRFS" --format json inspect-internal dump-tree --noscan "$img" \
				> "$T/out" 2> "$T/err"
		else
			# shellcheck disable=SC2086
			timeout 60 "$BTRFS" inspect-internal dump-tree --noscan $args "$img" \
				> "$T/out" 2> "$T/err"
		fi
		rc=$?
		if [ $rc -ge 124 ] || grep -q -e 'AddressSanitizer' -e 'runtime error:' "$T/err"; then
			tail -n 20 "$T/err" >&2
			_fail "$name (dump-tree $args): exit $rc"
		fi
		# The JSON document stays valid whatever the image.
		if [ "$args" = json ] && [ -s "$T/out" ] && command -v python3 > /dev/null; then
			python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/out" ||
				_fail "$name (dump-tree --format json): invalid JSON"
		fi
		# A failure must say why.
		[ $rc -eq 0 ] || [ -s "$T/err" ] || _fail "$name (dump-tree $args): exit $rc without a message"
	done
	echo "ok $name (last exit $rc, $(wc -l < "$T/out") lines)"
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
