#!/bin/bash
# btrfs image (create) on filesystems made by our mkfs --rootdir: nodesize 4K
# and 16K with DUP metadata, compared with Debian's btrfs-image as in cli/081
# (dumps equal but for stale index bytes; Debian's restore of our dump equals
# its restore of its own dump); the dump written to stdout and through the
# btrfs-image name is the same file.  xxhash64 and sha256 corpus filesystems
# (btrfs-image re-checksums with crc32c, so its dumps of them are unusable):
# our dump, restored by ours, passes our check and Debian's, and its blocks
# keep the filesystem's checksum type.  -t 1, 2, 3: the same bytes, dumped
# and restored.  Bad input: not btrfs, unreadable,
# -c 10, -t 0, a missing argument: exit 1 with a message.
. "$TOP/tests/lib/common.sh"
check_prereq corpus progs python3
[ -x /usr/bin/btrfs-image ] || _skip "Debian's btrfs-image not installed"
CMP=$SHARED/tools/sparse-cmp.py
clusters=$TOP/tests/tools/metadump-clusters.py

mkdir -p "$T/root/dir" "$T/root/many"
for i in $(seq 1 400); do echo "file $i" > "$T/root/many/f$i"; done
head -c 100000 /dev/urandom > "$T/root/dir/big"
echo small > "$T/root/dir/inline"
ln -s dir/inline "$T/root/link"
for ns in 4096 16384; do
	img=$T/fs-$ns.img
	rm -f "$img"
	run_check "$BTRFS" mkfs -q -n $ns -m dup --rootdir "$T/root" -b 256M "$img"
	run_check "$BTRFS" image -c9 "$img" "$T/ours.dump"
	run_check /usr/bin/btrfs-image -c9 "$img" "$T/deb.dump" 2> /dev/null
	same_dump "$T/ours.dump" "$T/deb.dump" "nodesize $ns"
	rm -f "$T"/*.raw
	debian_restore "$T/ours.dump" "$T/deb-of-ours.raw"
	debian_restore "$T/deb.dump" "$T/deb-of-deb.raw"
	python3 "$CMP" "$T/deb-of-deb.raw" "$T/deb-of-ours.raw" > "$T/cmp" ||
		{ cat "$T/cmp" >&8; _fail "nodesize $ns: Debian's restore of our dump differs"; }
	run_check "$BTRFS" check "$T/deb-of-ours.raw" > /dev/null 2>&1
	run_check /usr/bin/btrfs check "$T/deb-of-ours.raw" > /dev/null 2>&1
done
# stdout and the btrfs-image name
"$TOP/btrfs-image" -c9 "$img" - > "$T/stdout.dump" || _fail "btrfs-image ... - failed"
cmp "$T/ours.dump" "$T/stdout.dump" || _fail "the dump on stdout differs"

for case in csum-xxhash csum-sha256; do
	src=$(corpus_case "$case")/dev1.img
	rm -f "$T"/*.raw
	run_check "$BTRFS" image -c1 "$src" "$T/ours.dump"
	run_check "$BTRFS" image -r "$T/ours.dump" "$T/ours.raw"
	run_check "$BTRFS" check "$T/ours.raw" > /dev/null 2>&1
	run_check /usr/bin/btrfs check "$T/ours.raw" > "$T/deb-check" 2>&1
	assert_not_grep "checksum verify failed" "$T/deb-check"
done

# -t: the same bytes with 1, 2 and 3 compression threads (7 clusters, -w)
src=$(corpus_case nodesize4k-bulk)/dev1.img
for t in 1 2 3; do
	run_check "$BTRFS" image -w -c9 -t $t "$src" "$T/t$t.dump"
done
[ "$(python3 "$clusters" "$T/t1.dump" | wc -l)" -gt 1 ] || _fail "-t: one cluster only"
cmp "$T/t1.dump" "$T/t2.dump" || _fail "-t 2 differs from -t 1"
cmp "$T/t1.dump" "$T/t3.dump" || _fail "-t 3 differs from -t 1"
# restored with 1, 2 and 3 threads (2 and 3 write behind, in batches of at
# most 16 items, while the next batch inflates): the same image
for t in 1 2 3; do
	run_check "$BTRFS" image -r -t $t "$T/t1.dump" "$T/r$t.raw"
done
for t in 2 3; do
	python3 "$CMP" "$T/r1.raw" "$T/r$t.raw" > "$T/cmp" ||
		{ cat "$T/cmp" >&8; _fail "restore -t $t differs from -t 1"; }
done
run_check "$BTRFS" check "$T/r2.raw" > /dev/null 2>&1
rm -f "$T"/r?.raw

# bad input
expect_exit 1 "$BTRFS" image -t 0 "$img" "$T/x.dump" 2> "$T/err"
assert_grep "number of threads from 1 to 64" "$T/err"
expect_exit 1 "$BTRFS" image "$T/root/dir/big" "$T/x.dump" 2> "$T/err"
assert_grep "not a btrfs filesystem" "$T/err"
expect_exit 1 "$BTRFS" image "$T/nonexistent" "$T/x.dump" 2> "$T/err"
assert_grep "cannot read $T/nonexistent" "$T/err"
expect_exit 1 "$BTRFS" image -c 10 "$img" "$T/x.dump" 2> "$T/err"
assert_grep "compression level from 0 to 9" "$T/err"
expect_exit 1 "$BTRFS" image -c x "$img" "$T/x.dump" 2> "$T/err"
assert_grep "compression level from 0 to 9" "$T/err"
expect_exit 1 "$BTRFS" image "$img" 2> "$T/err"
assert_grep "need SOURCE and TARGET" "$T/err"
expect_exit 1 "$BTRFS" image "$img" "$T/no/such/dir/x.dump" 2> "$T/err"
assert_grep "cannot create" "$T/err"
echo "mkfs 4K/16K dumps equal Debian's, stdout and alias, -t 1/2/3 dumps and restores equal, xxhash/sha256 round trips pass both checks, bad input refused"
