#!/bin/bash
# The layer rule of ARCHITECTURE.md holds: no include from a layer above, no
# exit/abort/assert below cmds/ (tests/tools/layers.sh, over the built objects).
. "$TOP/tests/lib/common.sh"
run_check "$TOP/tests/tools/layers.sh" "$(dirname "$UNIT_DIR")" > "$T/out"
assert_grep '^layers ok$' "$T/out"
