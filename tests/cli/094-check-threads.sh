#!/bin/bash
# check runs pass 5 (fs roots) on a second thread beside passes 3 and 4, its
# messages held in memory and printed in its turn: on every image of
# ../shared/fsck-images (damaged in every pass) and a few corpus images, the
# output (stdout and stderr in one file, as a terminal sees them) and the exit
# code are byte for byte those of one thread (BTRFS_KIT_CHECK_SERIAL=1), and
# --repair queues, applies and prints the same fixes and writes the same
# image.  strace shows the second thread is made, and not with
# BTRFS_KIT_CHECK_SERIAL=1.
. "$TOP/tests/lib/common.sh"
check_prereq fsck-images corpus
command -v strace > /dev/null || _skip "strace not installed"
[ "$(nproc)" -gt 1 ] || _skip "one CPU: check runs one thread"

rich=$(corpus_case default-rich)/dev1.img
strace -f -qq -e trace=clone,clone3 -o "$T/trace" "$BTRFS" check "$rich" > /dev/null 2>&1
assert_grep 'clone3\?(.*CLONE_THREAD' "$T/trace"
BTRFS_KIT_CHECK_SERIAL=1 strace -f -qq -e trace=clone,clone3 -o "$T/trace" "$BTRFS" check "$rich" > /dev/null 2>&1
assert_not_grep 'CLONE_THREAD' "$T/trace"

# same ARGS...: check ARGS in $T/r1 on one thread and in $T/r2 on two (each
# folder its own copy of the image, ARGS naming it relatively): the same exit
# code and output
same() {
	local rc1 rc2
	(cd "$T/r1" && BTRFS_KIT_CHECK_SERIAL=1 "$BTRFS" check "$@") > "$T/one" 2>&1; rc1=$?
	(cd "$T/r2" && "$BTRFS" check "$@") > "$T/two" 2>&1; rc2=$?
	[ $rc1 -lt 124 ] && [ $rc2 -lt 124 ] || _fail "check $*: exit $rc1 / $rc2 (crash)"
	[ $rc1 = $rc2 ] || _fail "check $*: exit $rc1 on one thread, $rc2 on two"
	assert_grep '^\[5/8\] checking fs roots' "$T/two"
	diff -u "$T/one" "$T/two" > "$T/diff" || { head -n 40 "$T/diff" >&8; _fail "check $* ($c): output differs"; }
}

mkdir -p "$T/r1" "$T/r2"
c=rich
ln -s "$rich" "$T/r1/img"; ln -s "$rich" "$T/r2/img"
same img
n=0 both=0 repairs=0
for d in "$SHARED"/fsck-images/*/; do
	[ -f "$d/restored.raw.tar.xz" ] || continue
	c=$(basename "$d")
	rm -rf "$T/img" "$T/r1/img" "$T/r2/img"; mkdir -p "$T/img"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/img" || _fail "cannot extract $c"
	ln -s "$T/img/restored.raw" "$T/r1/img"; ln -s "$T/img/restored.raw" "$T/r2/img"
	same --noscan img
	# pass 5's messages among those of passes 3 and 4
	grep -q '^ERROR: errors found in fs roots' "$T/two" &&
		grep -q '^ERROR: errors found in extent allocation tree' "$T/two" && both=$((both + 1))
	if [ "$(tail -n 1 "$d/check-before.txt")" = "exit 1" ] &&
	   [ "$(stat -c %s "$T/img/restored.raw")" -le $((2 << 30)) ]; then
		rm "$T/r1/img" "$T/r2/img"
		cp --sparse=always "$T/img/restored.raw" "$T/r1/img"
		cp --sparse=always "$T/img/restored.raw" "$T/r2/img"
		same --repair --force --noscan img
		cmp -s "$T/r1/img" "$T/r2/img" || _fail "$c: --repair on one thread and on two wrote different images"
		cmp -s "$T/r1/img" "$T/img/restored.raw" || repairs=$((repairs + 1))
	fi
	n=$((n + 1))
done
[ $n -ge 30 ] || _fail "only $n fsck images"
[ $both -ge 3 ] || _fail "only $both images with errors in both pass 3 and pass 5"
[ $repairs -ge 5 ] || _fail "only $repairs repairs that wrote something"
echo "$n images, $both with pass 3 and pass 5 errors, $repairs repaired: the same on one thread and two"
