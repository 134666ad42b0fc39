#!/bin/bash
# The one test driver.  usage: tests/run.sh CATEGORY...   (unit cli golden interop robust cross)
#
# Prints one line per test (PASS/FAIL/SKIP name, PASS lines with the seconds taken), then
# "N passed, N failed, N skipped"; exits non-zero when any test failed.  Environment:
#   BTRFS=path        binary under test (default ./btrfs)
#   UNIT_DIR=dir      where the unit test binaries are (default .obj/default/tests)
#   TEST=glob         run only tests whose name matches (e.g. TEST='cli/0*')
#   TEST_LOG=tty      show each test's output as it runs instead of only on failure (one at a time)
#   JOBS=N            tests run at once (default 1).  Tests that use loop devices or mount
#                     (the kernel's device registry is machine-wide) still run one at a time,
#                     beside the others; lines are printed in the usual order.
#   LOOP_LOCK=file    lock that exclusive tests hold while they run (default
#                     /tmp/btrfs-kit-loop.lock), shared by every run on the machine; the
#                     test gets BTRFS_KIT_LOOP_LOCKED=file, so that the tools it runs that
#                     take the lock themselves (tests/tools/powercut.py, catalogue.py) do
#                     not wait for ever on the lock their own test holds
#   CI=true           a missing ../shared fixture fails the tests that need it (else: skip)
#   SAN_BTRFS=path    run the robust tests with this sanitizer build instead (make test
#                     does: btrfs-asan), its unit/tool binaries from SAN_UNIT_DIR/SAN_TOOL_DIR
# A shell test passes with exit 0 and is skipped with exit 77 (first line of output
# starting "SKIP:" gives the reason).  Logs are kept in tests/.scratch/logs/, the work
# folders of failed tests in tests/.scratch/work/ (KEEP_SCRATCH=1: of every test).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export TOP=$top
export BTRFS=${BTRFS:-$top/btrfs}
export UNIT_DIR=${UNIT_DIR:-$top/.obj/default/tests}
export TOOL_DIR=${TOOL_DIR:-$UNIT_DIR/tools}
export SHARED=${SHARED:-$top/../shared}
export SCRATCH_ROOT=${SCRATCH_ROOT:-$top/tests/.scratch}
jobs_max=${JOBS:-1}
[ "${TEST_LOG:-}" = tty ] && jobs_max=1
logs=$SCRATCH_ROOT/logs
results=$SCRATCH_ROOT/results.$$
mkdir -p "$logs" "$results"
trap 'rm -rf "$results"' EXIT
pass=0; fail=0; skip=0; failed=()

selected() { [ -z "${TEST:-}" ] || [[ $1 == $TEST ]]; }

# The tests, in order: name, what runs, whether it needs the machine's loop devices alone.
names=(); scripts=(); sanitized=(); exclusive=()
for cat in "$@"; do
	case $cat in
	unit)
		for t in "$UNIT_DIR"/*-test; do
			[ -x "$t" ] || continue
			name=unit/$(basename "$t")
			selected "$name" || continue
			names+=("$name"); scripts+=("$t"); sanitized+=(0); exclusive+=(0)
		done ;;
	cli|golden|interop|robust|cross)
		for t in "$top"/tests/$cat/*.sh; do
			[ -f "$t" ] || continue
			name=$cat/$(basename "$t" .sh)
			selected "$name" || continue
			san=0; [ "$cat" = robust ] && [ -n "${SAN_BTRFS:-}" ] && san=1
			excl=0
			grep -Eq 'check_prereq[^#]*\<(loop|btrfs-kernel)\>|setup_loopdev|attach_images|loop_images|losetup|mount' "$t" &&
				excl=1
			names+=("$name"); scripts+=("$t"); sanitized+=("$san"); exclusive+=("$excl")
		done ;;
	*) echo "unknown test category: $cat" >&2; exit 2 ;;
	esac
done

# Run test $1 (an index); its exit code and seconds go to $results/$1.
run_test() {
	local i=$1 name=${names[$1]} t=${scripts[$1]} log cmd t0 rc
	log=$logs/${name//\//_}.log
	case $t in
	*.sh) cmd=(bash "$t") ;;
	*) cmd=("$t") ;;
	esac
	if [ "${sanitized[$i]}" = 1 ]; then
		cmd=(env BTRFS="$SAN_BTRFS" UNIT_DIR="$SAN_UNIT_DIR" TOOL_DIR="$SAN_TOOL_DIR"
		     ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 "${cmd[@]}")
	fi
	# loop devices and the kernel's device registry are machine-wide: exclusive tests of
	# every run of the suite on this machine (other checkouts too) take turns
	[ "${exclusive[$i]}" = 1 ] && cmd=(flock "${LOOP_LOCK:-/tmp/btrfs-kit-loop.lock}"
		env BTRFS_KIT_LOOP_LOCKED="${LOOP_LOCK:-/tmp/btrfs-kit-loop.lock}" "${cmd[@]}")
	export TEST_NAME=$name
	t0=$SECONDS
	if [ "${TEST_LOG:-}" = tty ]; then
		"${cmd[@]}" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
	else
		"${cmd[@]}" > "$log" 2>&1; rc=$?
	fi
	echo "$rc $((SECONDS - t0))" > "$results/$i.tmp" && mv "$results/$i.tmp" "$results/$i"
}

report() { # index
	local name=${names[$1]} rc secs log
	read -r rc secs < "$results/$1"
	[ "${sanitized[$1]}" = 1 ] && name="$name (asan)"
	log=$logs/${names[$1]//\//_}.log
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

# Print, in order, every result that is in.
shown=0
drain() {
	while [ "$shown" -lt "${#names[@]}" ] && [ -f "$results/$shown" ]; do
		report "$shown"; shown=$((shown + 1))
	done
}

# Two queues: the exclusive tests one at a time, in order; the others in order
# on the remaining slots.  A slot frees when any test ends (wait -n).
excl_q=(); free_q=()
for i in "${!names[@]}"; do
	if [ "${exclusive[$i]}" = 1 ] && [ "$jobs_max" -gt 1 ]; then excl_q+=("$i"); else free_q+=("$i"); fi
done
running=0; excl_running=-1
while [ ${#excl_q[@]} -gt 0 ] || [ ${#free_q[@]} -gt 0 ]; do
	[ "$excl_running" -ge 0 ] && [ -f "$results/$excl_running" ] && excl_running=-1
	if [ "$running" -lt "$jobs_max" ] && [ "$excl_running" -lt 0 ] && [ ${#excl_q[@]} -gt 0 ]; then
		excl_running=${excl_q[0]}; excl_q=("${excl_q[@]:1}")
		if [ "$jobs_max" -gt 1 ]; then run_test "$excl_running" & else run_test "$excl_running"; fi
		running=$((running + 1))
	elif [ "$running" -lt "$jobs_max" ] && [ ${#free_q[@]} -gt 0 ]; then
		i=${free_q[0]}; free_q=("${free_q[@]:1}")
		if [ "$jobs_max" -gt 1 ]; then run_test "$i" & else run_test "$i"; fi
		running=$((running + 1))
	else
		wait -n
	fi
	if [ "$jobs_max" -gt 1 ]; then running=$(jobs -rp | wc -l); else running=0; fi
	drain
done
wait
drain
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped in ${SECONDS}s"
[ "$fail" -eq 0 ]
