#!/bin/bash
# btrfs check (also --check-data-csum) on every fuzz image: it may fail
# (cleanly, exit 1, with a message) but never crash, trip a sanitizer or hang.
. "$TOP/tests/lib/common.sh"
n=0
for x in "$SHARED"/fuzz-images/*.xz; do
	[ -f "$x" ] || continue
	xz -dc "$x" | dd of="$T/img" bs=64k conv=sparse status=none || _fail "cannot decompress $x"
	for args in "" "--check-data-csum -Q"; do
		# shellcheck disable=SC2086
		timeout 120 "$BTRFS" check --noscan $args "$T/img" > "$T/out" 2> "$T/err"
		rc=$?
		if [ $rc -gt 1 ] || grep -q -e 'AddressSanitizer' -e 'runtime error:' -e 'LeakSanitizer' "$T/err"; then
			tail -n 20 "$T/err" >&2
			_fail "$(basename "$x") (check $args): exit $rc"
		fi
		[ $rc -eq 0 ] || [ -s "$T/err" ] || _fail "$(basename "$x"): exit $rc without a message"
	done
	echo "ok $(basename "$x") exit $rc"
	rm -f "$T/img"; n=$((n + 1))
done
[ $n -gt 0 ] || _skip "no fuzz images"
