#!/bin/bash
# SIGINT and SIGTERM during an offline convert (issue 37): the convert stops at the next safe
# point (the chunk being copied keeps its old layout), says how many chunks it converted and
# how to continue, exits 1; our check with data checksums and Debian's are clean, and the
# same command run again finishes the convert.  The signal is sent as soon as the first
# chunk's progress line appears, while later chunks (hundreds of MiB) remain.
. "$TOP/tests/lib/common.sh"

mkdir -p "$T/root"
for i in $(seq 1 12); do head -c 40M /dev/urandom > "$T/root/f$i"; done
truncate -s 1500M "$T/a.img" "$T/b.img"
run_check "$TOP/mkfs.btrfs" -q -f -d single -m raid1 -r "$T/root" "$T/a.img" "$T/b.img"

for sig in INT TERM; do
	[ "$sig" = INT ] && args=(-dconvert=raid1) || args=(-f -dconvert=single)
	rm -f "$T/fifo"
	mkfifo "$T/fifo"
	"$BTRFS" balance start "${args[@]}" "$T/a.img" "$T/b.img" > "$T/fifo" 2> "$T/err" &
	pid=$!
	: > "$T/out"
	while IFS= read -r line; do
		echo "$line" >> "$T/out"
		case $line in "chunk 1 of "*) kill -"$sig" "$pid" ;; esac
	done < "$T/fifo"
	wait "$pid"
	rc=$?
	cat "$T/out" "$T/err"
	[ "$rc" -eq 1 ] || _fail "SIG$sig: exit $rc, want 1 (stopped at a safe point)"
	assert_grep "^ERROR: interrupted: [1-9][0-9]* of [0-9]* chunks converted, each committed; chunk [0-9]* keeps its old layout" "$T/err"
	assert_not_grep '^Done' "$T/out"
	run_check "$BTRFS" check --check-data-csum "$T/a.img" "$T/b.img" > /dev/null 2>&1
	run_check "$BTRFS" balance start "${args[@]}" "$T/a.img" "$T/b.img" > "$T/again" 2>&1
	assert_grep '^Done, had to convert [1-9]' "$T/again"
	run_check "$BTRFS" check --check-data-csum "$T/a.img" "$T/b.img" > /dev/null 2>&1
done
echo ok
