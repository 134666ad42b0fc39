#!/bin/bash
# make-restore-goldens.sh PEER_BTRFS_IMAGE [SHARED]: the reference digests of
# tests/golden/image-restore/restore-619.txt, from btrfs-progs 6.19's restore
# (PEER_BTRFS_IMAGE: its btrfs-image, built from the v6.19 tag outside the
# project) of every dump in SHARED/fsck-images and of our dump (btrfs image,
# uncompressed) of every corpus case, one worker thread (-t 1: see
# debian_restore in tests/lib/common.sh).  One line per dump:
#   NAME MODE SIZE SHA256        (tests/tools/image-digest.py)
# MODE full: the whole image; nosupers: all but the superblock copies (a
# multi-device dump: 6.19 leaves the dumped device's size in the superblock's
# dev_item, ours the new one, as its DEV_ITEM); content: 6.19 stops before the
# end (a filesystem with another checksum than crc32c: it checksums the
# superblock with crc32c and cannot open it again), every block but the
# superblocks, the size not compared; none: 6.19 fails outright.
set -u
peer=$1 shared=${2:-$(dirname "$0")/../../../shared}
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
digest() { python3 "$top/tests/tools/image-digest.py" "$@" | awk '{print $1, $2}'; }
for d in "$shared"/fsck-images/*/*.img; do
	name=fsck:$(basename "$(dirname "$d")")
	rm -f "$tmp/r"
	if "$peer" -t 1 -r "$d" "$tmp/r" > /dev/null 2>&1; then
		echo "$name full $(digest "$tmp/r")"
	else
		echo "$name none - -"
	fi
done
for c in "$shared"/corpus/*/; do
	name=corpus:$(basename "$c")
	rm -rf "$tmp/c"; mkdir "$tmp/c"
	for x in "$c"/dev*.img.xz; do
		xz -dc "$x" | dd of="$tmp/c/$(basename "$x" .xz)" bs=64k conv=sparse status=none
	done
	"$top/btrfs" image "$tmp"/c/dev*.img "$tmp/d" 2> /dev/null || { echo "$name: our dump failed" >&2; exit 1; }
	n=$(ls "$tmp"/c/dev*.img | wc -l)
	rm -f "$tmp/r"
	if "$peer" -t 1 -r "$tmp/d" "$tmp/r" > /dev/null 2>&1; then
		if [ "$n" = 1 ]; then echo "$name full $(digest "$tmp/r")"
		else echo "$name nosupers $(digest "$tmp/r" --skip-supers)"; fi
	elif [ -s "$tmp/r" ]; then
		echo "$name content - $(digest "$tmp/r" --skip-supers | awk '{print $2}')"
	else
		echo "$name none - -"
	fi
	rm -rf "$tmp/c" "$tmp/d" "$tmp/r"
done
