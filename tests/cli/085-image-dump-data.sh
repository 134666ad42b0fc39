#!/bin/bash
# btrfs image -d (dump data too) on kernel-made corpus filesystems: default-rich
# (inline, regular, prealloc, zstd/lzo compressed, reflinked files, snapshots),
# compress-zlib (every extent compressed), mixed-bg (data in mixed block
# groups), csum-xxhash and legacy-features (space cache v1, no skinny metadata):
# - the dump is v1 ("_DUmP_v1" magic), its cluster chain valid;
# - our restore of it passes our check --check-data-csum (every data sector
#   of every extent, compressed ones as their on-disk bytes, matches the csum
#   tree) and Debian's check --check-data-csum; the restore of a metadata-only
#   dump of the same filesystem fails --check-data-csum (so the check sees
#   the data);
#   (inline file data, kept by -d, is read back by the kernel in interop/072);
# - -d with -w is refused (btrfs-image: "conflicts with -w"), and Debian's
#   btrfs-image (built without EXPERIMENTAL) refuses a v1 dump with
#   "unrecognized header format": it can neither make nor restore one.
. "$TOP/tests/lib/common.sh"
check_prereq corpus progs python3
clusters=$TOP/tests/tools/metadump-clusters.py
n=0
for case in default-rich compress-zlib mixed-bg csum-xxhash legacy-features; do
	img=$(corpus_case "$case")/dev1.img
	rm -f "$T"/*.dump "$T"/*.raw
	run_check "$BTRFS" image -d -c9 "$img" "$T/data.dump"
	[ "$(od -An -tx8 -N8 "$T/data.dump" | tr -d ' ')" = 31765f506d55445f ] ||
		_fail "$case: the -d dump is not v1"
	python3 "$clusters" "$T/data.dump" > /dev/null || _fail "$case: bad cluster chain"
	run_check "$BTRFS" image -r "$T/data.dump" "$T/data.raw"
	run_check "$BTRFS" check --check-data-csum "$T/data.raw" > "$T/check.log" 2>&1
	run_check /usr/bin/btrfs check --check-data-csum "$T/data.raw" > "$T/check.log" 2>&1
	run_check "$BTRFS" image -c9 "$img" "$T/meta.dump"
	run_check "$BTRFS" image -r "$T/meta.dump" "$T/meta.raw"
	expect_exit 1 "$BTRFS" check --check-data-csum "$T/meta.raw" > "$T/check.log" 2>&1
	assert_grep "csum mismatch" "$T/check.log"
	n=$((n + 1))
done
expect_exit 1 "$BTRFS" image -d -w "$img" "$T/x.dump" 2> "$T/err"
assert_grep "not with walking the trees" "$T/err"
expect_exit 1 /usr/bin/btrfs-image -r "$T/data.dump" "$T/deb.raw" > "$T/err" 2>&1
assert_grep "unrecognized header format" "$T/err"
echo "$n -d dumps: v1, restored with every data csum matching (ours and Debian's check), metadata-only restores do not; -d -w refused"
