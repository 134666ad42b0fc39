#!/bin/bash
# dump-super (-f, -a, -F -f, every mirror, JSON) on every fuzz image and
# every restored fsck image: it may fail cleanly but must never crash, hang
# or trip a sanitizer.
. "$TOP/tests/lib/common.sh"

n=0
for x in "$SHARED"/fuzz-images/*.xz; do
	[ -f "$x" ] || continue
	xz -dc "$x" | dd of="$T/img" bs=64k conv=sparse status=none || _fail "cannot decompress $x"
	for args in "-f" "-a" "-F -f" "-F -f -a" "-s 1 -F -f"; do
		# shellcheck disable=SC2086
		run_mayfail timeout 30 "$BTRFS" inspect-internal dump-super $args "$T/img" > "$T/out" 2> "$T/err"
		rc=$?
		if [ $rc -ge 124 ] || grep -q -e 'AddressSanitizer' -e 'runtime error:' "$T/err"; then
			tail -n 20 "$T/err" >&2
			_fail "$(basename "$x") (dump-super $args): exit $rc"
		fi
		[ $rc -eq 0 ] || [ -s "$T/err" ] || _fail "$(basename "$x") (dump-super $args): exit $rc without a message"
	done
	if [ -n "$(command -v python3)" ]; then
		"$BTRFS" --format json inspect-internal dump-super -F -f -a "$T/img" > "$T/json" 2>/dev/null
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/json" ||
			_fail "$(basename "$x"): invalid JSON"
	fi
	rm -f "$T/img"; n=$((n + 1))
done
for d in "$SHARED"/fsck-images/*/; do
	[ -f "$d/restored.raw.tar.xz" ] || continue
	rm -rf "$T/fsck"; mkdir -p "$T/fsck"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/fsck" || _fail "cannot extract $d"
	run_mayfail timeout 30 "$BTRFS" inspect-internal dump-super -F -f -a "$T/fsck/restored.raw" \
		> "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ge 124 ] || grep -q -e 'AddressSanitizer' -e 'runtime error:' "$T/err"; then
		tail -n 20 "$T/err" >&2
		_fail "$(basename "$d"): exit $rc"
	fi
	rm -rf "$T/fsck"; n=$((n + 1))
done
[ $n -gt 0 ] || _skip "no images in $SHARED/fuzz-images or fsck-images"
echo "$n images, no crash"
