# Power-cut replay in a test (source after common.sh): tests/tools/powercut.py
# sampled with seed 18, exhaustive with --mount under POWERCUT=full (make
# test-powercut).
#
# powercut_run NAME KIND POWERCUT.PY-ARGS... -- COMMAND...
#     replay COMMAND; fail unless powercut.py exits 0 with writes, flushes and
#     "failed 0" on its summary line, no FAILED state and (full mode) the kernel
#     mounting the final state.  The output stays in $T/out for more asserts.
POWERCUT_MODE=${POWERCUT:-sample}

powercut_run() {
	local name=$1 kind=$2 mount=() rc
	shift 2
	[ "$POWERCUT_MODE" = full ] && mount=(--mount)
	run_mayfail python3 "$TOP/tests/tools/powercut.py" --mode "$POWERCUT_MODE" --seed 18 "${mount[@]}" \
		--kind "$kind" --btrfs "$BTRFS" --name "$name" "$@" > "$T/out" 2>&1
	rc=$?
	cat "$T/out"
	[ $rc -eq 0 ] || _fail "$name: powercut.py exit $rc"
	assert_grep "^powercut $name: writes [1-9][0-9]*, flushes [1-9][0-9]*, .* failed 0 " "$T/out"
	assert_not_grep '^FAILED' "$T/out"
	[ "$POWERCUT_MODE" != full ] || assert_grep "^powercut $name: the kernel mounts the final state" "$T/out"
}
