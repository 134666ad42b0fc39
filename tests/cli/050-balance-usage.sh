#!/bin/bash
# btrfs balance: usage errors and filter errors, caught before any kernel call.
. "$TOP/tests/lib/common.sh"

run_check "$BTRFS" balance --help > "$T/help"
for c in start status pause resume cancel; do assert_grep "btrfs balance $c" "$T/help"; done
assert_not_grep 'btrfs balance <path>' "$T/help"
run_check "$BTRFS" balance start --help > "$T/start-help"
assert_grep 'full-balance' "$T/start-help"

# Every failure below must name what is wrong; nothing reaches a filesystem.
fail_with() { # message args...
	local msg=$1; shift
	expect_exit 1 "$BTRFS" balance "$@" 2> "$T/err"
	assert_grep "$msg" "$T/err"
}
fail_with '-s balances the system chunks, which hold the chunk tree: it needs --force' start -s /
fail_with '-s balances the system chunks, which hold the chunk tree: it needs --force' start -susage=5 -m /
fail_with 'unrecognized balance option: foo' start -dfoo /
fail_with 'unknown profile: bogus' start -dconvert=bogus /
fail_with 'invalid convert argument' start -mconvert=bogus /
fail_with 'unknown profile: raid7' start -dprofiles='raid1|raid7' /
fail_with 'invalid usage argument: 101' start -dusage=101 /
fail_with 'invalid usage argument: 0..101' start -dusage=0..101 /
fail_with 'the usage filter requires an argument' start -dusage /
fail_with 'the convert option requires an argument' start -dconvert= /
fail_with "'soft' option can be used only when converting profiles" start -dsoft /
fail_with 'drange filter must be used with devid filter' start -ddrange=1..5 /
fail_with 'invalid devid argument: 0' start -ddevid=0 /
fail_with 'Invalid limit argument: x' start -mlimit=x /
fail_with 'invalid stripes argument' start -dstripes=5 /
fail_with "range 5..1 doesn't make sense" start -dvrange=5..1 /
fail_with 'range 3..3 not allowed' start -ddevid=1,drange=3..3 /
fail_with 'not enough arguments' start -dusage=5
fail_with 'too many arguments' start -dusage=5 / /
fail_with 'not enough arguments' status
fail_with 'not enough arguments' pause
fail_with 'not enough arguments' resume
fail_with 'not enough arguments' cancel
run_mustfail "unknown option" "$BTRFS" balance start --no-such-option /

# Paths that are not a mounted btrfs are explained.
fail_with 'cannot access' start -dusage=5 "$T/does-not-exist"
mkdir -p "$T/dir"
if [ "$(stat -f -c %T "$T/dir")" != btrfs ]; then
	fail_with 'not a btrfs filesystem' start -dusage=5 "$T/dir"
	expect_exit 2 "$BTRFS" balance status "$T/dir" 2> "$T/err"
	assert_grep 'not a btrfs filesystem' "$T/err"
fi
truncate -s 1M "$T/plain.img"
fail_with 'not a btrfs filesystem' start -dusage=5 "$T/plain.img"
# An unmounted btrfs image: a superblock magic at 64KiB + 64 is enough to be recognised.
truncate -s 1M "$T/btrfs.img"
printf '_BHRfS_M' | dd of="$T/btrfs.img" bs=1 seek=$((65536 + 64)) conv=notrunc status=none
# offline balance (cli/052) takes it and finds no filesystem
fail_with 'offline balance only converts profiles' start -dusage=5 "$T/btrfs.img"
fail_with 'cannot open the filesystem' start -dconvert=raid1 "$T/btrfs.img"
# The old form "btrfs balance PATH" (no start) is refused, naming balance start (6.19).
fail_with "a balance is 'btrfs balance start \\[filters\\] $T/btrfs.img'" "$T/btrfs.img"
fail_with "'btrfs balance $T/dir' starts nothing" "$T/dir"
echo ok
