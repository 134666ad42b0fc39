#!/bin/bash
# check/ keeps its rooms (check/check.h, ARCHITECTURE.md): driver -> passes
# -> mends and repairs -> context, no pass including or calling another, and
# no circle of includes or calls in check/ (tests/tools/check-rooms.py, over
# the sources and the built objects).
. "$TOP/tests/lib/common.sh"
cd "$TOP" || exit 1
run_check python3 "$TOP/tests/tools/check-rooms.py" "$(dirname "$UNIT_DIR")" > "$T/out"
assert_grep '^check rooms ok$' "$T/out"
