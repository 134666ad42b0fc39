#!/bin/bash
# btrfs image (dump) that fails midway (no space left on the target's
# filesystem, a 1 MiB tmpfs) leaves no target file and no partial file
# behind, and an older dump of that name as it was; the same dump with room
# succeeds.  btrfs image -r of bad dumps (truncated, not a dump, a cluster of
# garbage, another format's magic) exits 1 naming the cluster and creates no
# target.
. "$TOP/tests/lib/common.sh"
check_prereq root corpus
dir=$(corpus_case default-rich)
mkdir -p "$T/small"
mount -t tmpfs -o size=1m tmpfs "$T/small" || _skip "cannot mount a tmpfs"
trap 'umount "$T/small" 2> /dev/null' EXIT
expect_exit 1 "$BTRFS" image "$dir/dev1.img" "$T/small/fs.dump" 2> "$T/err"
assert_grep "no dump written to $T/small/fs.dump" "$T/err"
[ -z "$(ls -A "$T/small")" ] || _fail "a failed dump left $(ls -A "$T/small")"
echo "old dump" > "$T/small/fs.dump"
expect_exit 1 "$BTRFS" image "$dir/dev1.img" "$T/small/fs.dump" 2> "$T/err"
[ "$(cat "$T/small/fs.dump")" = "old dump" ] || _fail "a failed dump changed the older file"
[ "$(ls -A "$T/small")" = fs.dump ] || _fail "a failed dump left $(ls -A "$T/small")"
umount "$T/small"
run_check "$BTRFS" image "$dir/dev1.img" "$T/fs.dump"
[ "$(ls "$T" | grep -c partial)" = 0 ] || _fail "a partial file left beside a complete dump"
run_check "$BTRFS" image -r "$T/fs.dump" "$T/r.img"
run_check "$BTRFS" check "$T/r.img" > /dev/null 2>&1

d=$T/fs.dump
head -c 3000 "$d" > "$T/bad-truncated"
{ printf 'XXXXXXXX'; tail -c +9 "$d"; } > "$T/bad-magic"
{ head -c 1024 "$d"; head -c 8192 /dev/urandom; tail -c +9217 "$d"; } > "$T/bad-garbage"
{ printf '\x8c\x66\x95\x72\xe2\x25\x5c\xbd'; tail -c +9 "$d"; } > "$T/bad-version"
for b in truncated magic garbage version; do
	rm -f "$T/t.img"
	expect_exit 1 "$BTRFS" image -r "$T/bad-$b" "$T/t.img" 2> "$T/err"
	assert_grep "ERROR: cluster at [0-9]*" "$T/err"
	[ ! -e "$T/t.img" ] || _fail "bad-$b: a refused restore created the target"
done
echo ok
