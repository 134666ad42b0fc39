#!/bin/bash
# The one test driver.  usage: tests/run.sh CATEGORY...   (unit cli golden interop robust)
#
# Prints one line per test (PASS/FAIL/SKIP name, PASS lines with the seconds taken), then "N passed, N failed, N skipped";
# exits non-zero when any test failed.  Environment:
#   BTRFS=path        binary under test (default ./btrfs)
#   UNIT_DIR=dir      where the unit test binaries are (default .obj/default/tests)
#   TEST=glob         run only tests whose name matches (e.g. TEST='cli/0*')
#   TEST_LOG=tty      show each test's output as it runs instead of only on failure
#   SAN_BTRFS=path    run the robust tests with this sanitizer build instead (make test
#                     does: btrfs-asan), its unit/tool binaries from SAN_UNIT_DIR/SAN_TOOL_DIR
# A shell test passes with exit 0 and is skipped with exit 77 (first line of output
# starting "SKIP:" gives the reason).  Logs are kept in tests/.scratch/logs/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export TOP=$top
export BTRFS=${BTRFS:-$top/btrfs}
export UNIT_DIR=${UNIT_DIR:-$top/.obj/default/tests}
export TOOL_DIR=${TOOL_DIR:-$UNIT_DIR/tools}
export SHARED=${SHARED:-$top/../shared}
export SCRATCH_ROOT=${SCRATCH_ROOT:-$top/tests/.scratch}
logs=$SCRATCH_ROOT/logs
mkdir -p "$logs"
pass=0; fail=0; skip=0; failed=()

report() { # name rc log started_at
	local name=$1 rc=$2 log=$3 secs=$((SECONDS - $4))
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS $name (${secs}s)"
	elif [ "$rc" -eq 77 ]; then
		skip=$((skip + 1))
		echo "SKIP $name ($(grep -m1 '^SKIP:' "$log" | sed 's/^SKIP: *//'))"
	else
		fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc)"
		[ "${TEST_LOG:-}" = tty ] || tail -n 40 "$log" | sed 's/^/    | /'
	fi
}

selected() { [ -z "${TEST:-}" ] || [[ $1 == $TEST ]]; }

run_one() { # name log command...
	local name=$1 log=$2; shift 2
	if [ "${TEST_LOG:-}" = tty ]; then
		"$@" 2>&1 | tee "$log"; return "${PIPESTATUS[0]}"
	fi
	"$@" > "$log" 2>&1
}

for cat in "$@"; do
	case $cat in
	unit)
		for t in "$UNIT_DIR"/*-test; do
			[ -x "$t" ] || continue
			name=unit/$(basename "$t")
			selected "$name" || continue
			log=$logs/${name//\//_}.log
			t0=$SECONDS; run_one "$name" "$log" "$t"; report "$name" $? "$log" $t0
		done ;;
	cli|golden|interop|robust)
		for t in "$top"/tests/$cat/*.sh; do
			[ -f "$t" ] || continue
			name=$cat/$(basename "$t" .sh)
			selected "$name" || continue
			log=$logs/${name//\//_}.log
			export TEST_NAME=$name
			san=()
			if [ "$cat" = robust ] && [ -n "${SAN_BTRFS:-}" ]; then
				san=(env BTRFS="$SAN_BTRFS" UNIT_DIR="$SAN_UNIT_DIR" TOOL_DIR="$SAN_TOOL_DIR"
				     ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1)
				name="$name (asan)"
			fi
			t0=$SECONDS; run_one "$name" "$log" "${san[@]}" bash "$t"; report "$name" $? "$log" $t0
		done ;;
	*) echo "unknown test category: $cat" >&2; exit 2 ;;
	esac
done
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped in ${SECONDS}s"
[ "$fail" -eq 0 ]
