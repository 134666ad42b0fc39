#!/bin/bash
# btrfs image (create) against Debian's btrfs-image (6.2) on kernel-made corpus
# filesystems: default-rich (nodesize 16K, DUP metadata, snapshots, inline and
# compressed files), nodesize4k-bulk (4K, 3000 files; with -w its blocks come
# in walk order, 7 clusters of up to 83 items) and legacy-features (no skinny
# metadata: tree blocks from EXTENT_ITEMs).  For -c0, -c9 and -w:
# - our dump holds what Debian's dump of the same filesystem holds (same
#   blocks, same order, same zeroing, same clusters; same_dump in
#   tests/lib/common.sh): -c0 and -w byte for byte but for the stale bytes
#   after the last item of an index block (btrfs-image leaves the previous
#   cluster's items there, we write zeros: readers ignore them), -c9 item for
#   item once inflated (our level 9 searches fewer matches than zlib's);
# - Debian's restore of our dump equals Debian's restore of its own
#   (sparse-cmp over data regions), and so does our restore of either dump
#   (for -c9 and the multi-cluster -w dump: equal dumps restore equally);
# - the restored image passes our check and Debian's.
. "$TOP/tests/lib/common.sh"
check_prereq corpus progs python3
[ -x /usr/bin/btrfs-image ] || _skip "Debian's btrfs-image not installed"
CMP=$SHARED/tools/sparse-cmp.py
clusters=$TOP/tests/tools/metadump-clusters.py
n=0
for case in default-rich nodesize4k-bulk legacy-features; do
	img=$(corpus_case "$case")/dev1.img
	for opt in -c0 -c9 -w; do
		rm -f "$T"/*.dump "$T"/*.raw
		run_check "$BTRFS" image $opt "$img" "$T/ours.dump"
		run_check /usr/bin/btrfs-image $opt "$img" "$T/deb.dump" 2> /dev/null
		[ -s "$T/deb.dump" ] || _fail "$case $opt: Debian's dump is empty"
		python3 "$clusters" "$T/ours.dump" > "$T/nr" || _fail "$case $opt: bad cluster chain"
		same_dump "$T/ours.dump" "$T/deb.dump" "$case $opt"
		# equal dumps restore equally: the restores are compared once a case
		# (-c9) and for the multi-cluster -w dump
		[ "$opt" = -c9 ] || [ "$case $opt" = "nodesize4k-bulk -w" ] || { n=$((n + 1)); continue; }
		debian_restore "$T/ours.dump" "$T/deb-of-ours.raw"
		debian_restore "$T/deb.dump" "$T/deb-of-deb.raw"
		run_check "$BTRFS" image -r "$T/ours.dump" "$T/ours-of-ours.raw"
		run_check "$BTRFS" image -r "$T/deb.dump" "$T/ours-of-deb.raw"
		for r in deb-of-ours ours-of-ours ours-of-deb; do
			python3 "$CMP" "$T/deb-of-deb.raw" "$T/$r.raw" > "$T/cmp" ||
				{ cat "$T/cmp" >&8; _fail "$case $opt: $r.raw differs from Debian's restore of its dump"; }
		done
		run_check "$BTRFS" check "$T/ours-of-ours.raw" > /dev/null 2>&1
		run_check /usr/bin/btrfs check "$T/ours-of-ours.raw" > /dev/null 2>&1
		if [ "$case $opt" = "nodesize4k-bulk -w" ]; then
			# more than one cluster, the first ones full
			[ "$(wc -l < "$T/nr")" -gt 1 ] || _fail "$case $opt: one cluster only"
			[ "$(head -n 1 "$T/nr")" = 83 ] || _fail "$case $opt: first cluster not full"
		fi
		n=$((n + 1))
	done
done
echo "$n dumps equal to Debian's btrfs-image's (-c9 once inflated), restores equal both ways, both checks pass"
