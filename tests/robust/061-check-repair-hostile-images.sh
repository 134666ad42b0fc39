#!/bin/bash
# btrfs check --repair on a copy of every fuzz image: it never crashes,
# trips a sanitizer or hangs; when it refuses (exit 1) the image is byte for
# byte as it was, and when it repairs (exit 0) our check finds it clean.
. "$TOP/tests/lib/common.sh"
n=0 repaired=0 refused=0
for x in "$SHARED"/fuzz-images/*.xz; do
	[ -f "$x" ] || continue
	name=$(basename "$x" .xz)
	xz -dc "$x" | dd of="$T/orig" bs=64k conv=sparse status=none || _fail "cannot decompress $x"
	cp --sparse=always "$T/orig" "$T/img"
	timeout 120 "$BTRFS" check --repair --force --noscan "$T/img" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -gt 1 ] || grep -q -e 'AddressSanitizer' -e 'runtime error:' -e 'LeakSanitizer' "$T/err"; then
		tail -n 20 "$T/err" >&2
		_fail "$name (check --repair): exit $rc"
	fi
	if [ $rc -eq 1 ]; then
		[ -s "$T/err" ] || _fail "$name: exit 1 without a message"
		cmp -s "$T/orig" "$T/img" || _fail "$name: repair refused but changed the image"
		refused=$((refused + 1))
	else
		expect_exit 0 "$BTRFS" check --noscan "$T/img" > "$T/out" 2>&1
		repaired=$((repaired + 1))
	fi
	echo "ok $name exit $rc"
	rm -f "$T/img" "$T/orig"; n=$((n + 1))
done
[ $n -gt 0 ] || _skip "no fuzz images"
echo "$n fuzz images: $repaired clean after --repair, $refused refused and unchanged"
