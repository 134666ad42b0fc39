#!/bin/bash
# btrfs check --repair --force on every fuzz image: it repairs (exit 0, and
# then our check is clean) or refuses (exit 1) and the image is exactly as
# it was; never a crash, a sanitizer report or a hang.
. "$TOP/tests/lib/common.sh"
n=0
for x in "$SHARED"/fuzz-images/*.xz; do
	[ -f "$x" ] || continue
	xz -dc "$x" | dd of="$T/img" bs=64k conv=sparse status=none || _fail "cannot decompress $x"
	cp --sparse=always "$T/img" "$T/orig"
	timeout 120 "$BTRFS" check --repair --force --noscan "$T/img" > "$T/out" 2>&1
	rc=$?
	if [ $rc -gt 1 ] || grep -q -e 'AddressSanitizer' -e 'runtime error:' -e 'LeakSanitizer' "$T/out"; then
		tail -n 20 "$T/out" >&2
		_fail "$(basename "$x"): repair exit $rc"
	fi
	if [ $rc = 1 ]; then
		cmp -s "$T/img" "$T/orig" || _fail "$(basename "$x"): repair refused but the image changed"
	else
		expect_exit 0 "$BTRFS" check --noscan "$T/img" > "$T/out" 2>&1
	fi
	echo "ok $(basename "$x") repair exit $rc"
	rm -f "$T/img" "$T/orig"; n=$((n + 1))
done
[ $n -gt 0 ] || _skip "no fuzz images"
