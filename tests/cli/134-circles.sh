#!/bin/bash
# No two files include each other, and modules call each other in a circle only where
# ARCHITECTURE.md lists the circle with its reason ("## Circles kept"); a listed circle
# that is gone fails too, so the list stays true (tests/tools/circles.py, over the
# sources and the built objects).
. "$TOP/tests/lib/common.sh"
check_prereq python3
cd "$TOP" || exit 1
run_check python3 tests/tools/circles.py "$(dirname "$UNIT_DIR")" > "$T/out"
assert_grep '^circles ok: no include circle, [0-9]* call circles, each listed$' "$T/out"
